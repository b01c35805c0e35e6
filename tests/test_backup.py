"""Backups: ``graphmem export`` then ``graphmem import`` into a new store reproduces every answer.

A randomised store (supersessions, out-of-order facts, retractions, negations, identity
replacements, same-instant writes, notes, sessions, aliases) is exported and imported through
the CLI; then every ``facts(valid_at=V, known_at=K)`` answer is compared, for every system instant
K at which belief changed (answers are constant in between) and a spread of valid-time
breakpoints V, and the whole version sets must be equal, ids included.
"""

from __future__ import annotations

import datetime as dt
import os
import random
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import graphmem as gm
from graphmem.check import check, versions
from graphmem.cli import cli
from graphmem.errors import GraphmemError
from graphmem.timeutil import ManualClock

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")

pytestmark = pytest.mark.skipif(
    not {"export", "import"} <= set(cli.list_commands(click.Context(cli))),
    reason="graphmem export/import are not available yet (export colleague's feature)",
)

PEOPLE = ["Alice", "Bob", "Carol", "Dave", "Eve"]
ORGS = ["ACME", "Globex", "Initech", "Umbrella"]
TOOLS = ["Go", "Rust", "Python", "Kafka", "Redis"]


def _day(rng: random.Random) -> dt.date:
    return dt.date(2015, 1, 1) + dt.timedelta(days=rng.randrange(0, 4000))


def build_random_store(path: str, seed: int, n_ops: int) -> None:
    rng = random.Random(seed)
    clock = ManualClock("2024-01-01T00:00:00Z")
    with gm.open(path, clock=clock, engine=ENGINE) as mem:
        mem.define_predicate("uses", cardinality="many")
        mem.define_entity("ACME", kind="org", aliases=["Acme Corp"])
        for _ in range(n_ops):
            if rng.random() < 0.8:  # sometimes two writes at one clock reading
                clock.advance(hours=rng.choice([1, 5, 24, 24 * 30]))
            op = rng.random()
            who = rng.choice(PEOPLE)
            try:
                if op < 0.45:
                    start = _day(rng)
                    end = (
                        start + dt.timedelta(days=rng.randrange(1, 900))
                        if rng.random() < 0.3
                        else None
                    )
                    statement = rng.choice([None, None, f"{who} no longer works there", "fine"])
                    mem.add_fact(
                        who,
                        "works_at",
                        rng.choice(ORGS + ["Acme Corp"]),
                        valid_from=start,
                        valid_to=end,
                        statement=statement,
                        source=rng.choice([None, "s1", "s2"]),
                    )
                elif op < 0.6:
                    mem.add_fact(
                        who,
                        "uses",
                        rng.choice(TOOLS),
                        valid_from=_day(rng),
                        source_ref=rng.choice([None, f"{who}-stack"]),
                        importance=rng.choice([None, 1.5, 9.0]),
                    )
                elif op < 0.7:
                    mem.retract(who, rng.choice(["works_at", "uses"]), at=_day(rng), reason="gone")
                elif op < 0.8:
                    mem.remember(
                        rng.choice(
                            [
                                f"{who} prefers tabs",
                                f"{who} prefers spaces",
                                f"{who} no longer prefers tabs",
                            ]
                        ),
                        subject=who,
                    )
                elif op < 0.9:
                    mem.add_session(
                        f"{who} talked about {rng.choice(TOOLS)}",
                        started_at=clock(),
                        mentions=[who, rng.choice(TOOLS)],
                    )
                else:
                    mem.add_facts(
                        [
                            {
                                "subject": p,
                                "predicate": "lives_in",
                                "object": rng.choice(["Paris", "Rome"]),
                            }
                            for p in rng.sample(PEOPLE, 3)
                        ]
                    )
            except GraphmemError:
                pass  # nothing to retract, empty interval, rate limits: fine


def _grid(facts: list[gm.Fact]) -> tuple[list[dt.datetime], list[dt.datetime]]:
    """System instants where belief changes (answers are constant in between) and a spread
    of valid-time breakpoints."""
    tick = dt.timedelta(microseconds=1)
    system = sorted({t for f in facts for t in (f.recorded_at, f.expired_at) if t is not None})
    system.insert(0, system[0] - tick)
    valid_all = sorted({t for f in facts for t in (f.valid_from, f.valid_to) if t is not None})
    step = max(1, len(valid_all) // 12)
    valid = valid_all[::step] + [
        valid_all[-1] - tick,
        dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc),
    ]
    return system, valid


def _roundtrip(tmp_path: Path, seed: int, n_ops: int) -> None:
    src, dst = str(tmp_path / "src.kuzu"), str(tmp_path / "dst.kuzu")
    dump = str(tmp_path / "backup.jsonl")
    build_random_store(src, seed, n_ops)
    runner = CliRunner()
    out = runner.invoke(cli, ["--db", src, "--engine", ENGINE, "export", "-o", dump])
    assert out.exit_code == 0, out.output
    back = runner.invoke(cli, ["--db", dst, "--engine", ENGINE, "import", dump])
    assert back.exit_code == 0, back.output

    with (
        gm.open(src, engine=ENGINE, read_only=True) as a,
        gm.open(dst, engine=ENGINE, read_only=True) as b,
    ):
        va, vb = versions(a), versions(b)
        assert len(va) > n_ops // 3  # the store is not trivial
        assert va == vb  # every version, ids, both time axes, reasons and counters
        system, valid = _grid(va)
        compared = 0
        for k in system:
            for v in valid:
                assert a.facts(valid_at=v, known_at=k) == b.facts(valid_at=v, known_at=k), (v, k)
                compared += 1
        assert compared > 50
        for who in PEOPLE:
            assert a.history(who, include_expired=True) == b.history(who, include_expired=True)
        assert a.sessions() == b.sessions()
        assert a.predicates() == b.predicates()
        assert check(a).ok
        report = check(b)
        assert report.ok, report.format()


@pytest.mark.slow  # a long test: CI's slow family runs it
def test_export_import_reproduces_every_answer(tmp_path: Path) -> None:
    _roundtrip(tmp_path, seed=11, n_ops=40)


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("seed", range(5))
def test_export_import_many_random_stores(tmp_path: Path, seed: int) -> None:
    _roundtrip(tmp_path, seed=100 + seed, n_ops=300)


def test_import_refuses_a_non_empty_store(tmp_path: Path) -> None:
    src, dump = str(tmp_path / "src.kuzu"), str(tmp_path / "backup.jsonl")
    build_random_store(src, seed=3, n_ops=10)
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", src, "export", "-o", dump]).exit_code == 0
    again = runner.invoke(cli, ["--db", src, "import", dump])
    assert again.exit_code == 1
    assert again.output.strip().splitlines()[-1].startswith("Error: ")
