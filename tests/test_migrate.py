"""``graphmem migrate``: kuzu -> falkordb -> kuzu gives the same answers at every time point."""

from __future__ import annotations

import datetime as dt
import json
import os
from typing import Any

import pytest
from click.testing import CliRunner

import graphmem as gm
from graphmem.cli import cli
from graphmem.timeutil import ManualClock

UTC = dt.timezone.utc
T0 = dt.datetime(2024, 1, 1, tzinfo=UTC)


def _day(n: int) -> dt.datetime:
    return T0 + dt.timedelta(days=n)


def _build(path: str) -> None:
    """A memory with supersedes, a retraction, aliases, sessions, accesses and a purge."""
    clock = ManualClock(T0)
    with gm.open(path, clock=clock) as mem:
        mem.define_entity("Ann Lee", kind="person", aliases=["Annie"])
        mem.add_fact("Ann Lee", "works_at", "Acme", valid_from="2019-01-01")
        clock.advance(days=1)
        mem.add_fact("Ann Lee", "works_at", "Initech", valid_from="2022-03-01")
        mem.add_fact("Bob", "knows", "Ann Lee", valid_from="2020-01-01")
        clock.advance(days=1)
        mem.add_session(
            "Ann Lee: I joined Initech.\nBob: congrats!",
            started_at=_day(2),
            title="catch-up",
            mentions={"Ann Lee": 2, "Bob": 1},
            extract=False,
        )
        mem.add_fact("Carol", "lives_in", "Paris", valid_from="2021-01-01")
        clock.advance(days=1)
        mem.retract("Carol", "lives_in", at="2023-06-01", reason="moved")
        mem.add_fact("Carol", "lives_in", "Lyon", valid_from="2023-06-01")
        clock.advance(days=1)
        mem.context("Ann Lee")  # access counters
        mem.add_fact("Dan", "works_at", "Acme", valid_from="2020-05-05")
        mem.add_session("Dan: I am at Acme.", started_at=_day(4), mentions=["Dan"], extract=False)
        clock.advance(days=1)
        mem.purge("Dan", reason="asked to be forgotten")
        clock.advance(days=1)
        mem.add_fact("Ann Lee", "works_at", "Globex", valid_from="2024-01-05")


def _dump(fs: list[Any]) -> list[Any]:
    return [f.model_dump(mode="json") for f in fs]


def _answers(target: str) -> dict[str, Any]:
    """Everything a user can ask, at many (valid, known) points."""
    out: dict[str, Any] = {}
    with gm.open(target, read_only=True) as mem:
        points = [_day(n) for n in range(-1, 9)] + [
            dt.datetime(y, 1, 1, tzinfo=UTC) for y in (2018, 2020, 2022, 2023, 2025)
        ]
        for v in points:
            for k in points:
                out[f"facts {v} {k}"] = _dump(mem.facts(valid_at=v, known_at=k))
            out[f"believed {v}"] = _dump(mem.believed(on=v))
            out[f"changes {v}"] = [str(c) for c in mem.changes(since=v)]
        for subject in ("Ann Lee", "Bob", "Carol", "Annie"):
            out[f"history {subject}"] = _dump(mem.history(subject, include_expired=True))
        every = mem.history("Ann Lee", include_expired=True) + mem.history(
            "Carol", include_expired=True
        )
        for f in every:
            out[f"why {f.id}"] = str(mem.why(f.id))
        out["sessions"] = [s.model_dump(mode="json") for s in mem.sessions()]
        out["predicates"] = [p.model_dump(mode="json") for p in mem.predicates()]
        out["search"] = [str(h) for h in mem.search("initech")]
        out["check"] = [p.code for p in mem.check().problems]
    return out


def _records(target: str) -> list[dict[str, Any]]:
    from graphmem.export import to_records

    with gm.open(target, read_only=True) as mem:
        recs = list(to_records(mem))
    for r in recs:
        r.pop("exported_at", None)
        r.pop("graphmem", None)
    # ``lines_gen`` names the generation of the session lines of one store (each import
    # re-splits them): a cache key, not content.
    return [r for r in recs if not (r["type"] == "meta" and r["key"] == "lines_gen")]


def _migrate(src: str, dst: str, *extra: str) -> Any:
    return CliRunner().invoke(cli, ["migrate", "--from", src, "--to", dst, *extra])


def test_kuzu_falkordb_kuzu_same_answers(tmp_path: os.PathLike[str], falkordb_url: str) -> None:
    src = os.path.join(os.fspath(tmp_path), "src.kuzu")
    back = os.path.join(os.fspath(tmp_path), "back.kuzu")
    _build(src)
    res = _migrate(src, falkordb_url, "--dry-run")
    assert res.exit_code == 0, res.output
    assert "would copy" in res.output
    assert "target empty" in res.output
    res = _migrate(src, falkordb_url)
    assert res.exit_code == 0, res.output
    assert "migrated" in res.output
    assert falkordb_url.split("@")[-1] in res.output
    res = _migrate(falkordb_url, back, "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["facts"] > 0
    want = _answers(src)
    assert _answers(falkordb_url) == want
    assert _answers(back) == want
    assert _records(back) == _records(src) == _records(falkordb_url)


def test_target_must_be_empty(tmp_path: os.PathLike[str], falkordb_url: str) -> None:
    src = os.path.join(os.fspath(tmp_path), "src.kuzu")
    with gm.open(src, clock=ManualClock(T0)) as mem:
        mem.add_fact("Ann", "works_at", "Acme")
    assert _migrate(src, falkordb_url).exit_code == 0
    res = _migrate(src, falkordb_url)
    assert res.exit_code == 1
    assert "not empty" in res.output
    res = _migrate(src, falkordb_url, "--dry-run")
    assert res.exit_code == 1
    assert "NOT empty" in res.output


def test_bad_arguments(tmp_path: os.PathLike[str]) -> None:
    missing = os.path.join(os.fspath(tmp_path), "nope.kuzu")
    res = _migrate(missing, os.path.join(os.fspath(tmp_path), "x.kuzu"))
    assert res.exit_code == 1
    assert "no database" in res.output
    res = _migrate("redis://localhost/g", missing)
    assert res.exit_code == 1
    assert "falkordb://" in res.output
    res = _migrate("falkordb://localhost:6379", missing)
    assert res.exit_code == 1
    assert "/graphname" in res.output


@pytest.mark.parametrize("direction", ["to-falkordb"])
def test_dry_run_writes_nothing(
    tmp_path: os.PathLike[str], falkordb_url: str, direction: str
) -> None:
    src = os.path.join(os.fspath(tmp_path), "src.kuzu")
    with gm.open(src, clock=ManualClock(T0)) as mem:
        mem.add_fact("Ann", "works_at", "Acme")
    res = _migrate(src, falkordb_url, "--dry-run", "--json")
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["target_empty"] is True
    from graphmem.store import open_store

    store = open_store(falkordb_url)
    assert store.content_counts() == {"entities": 0, "facts": 0, "sessions": 0, "audit": 0}
    store.close()


def test_cli_takes_a_url_for_db(falkordb_url: str) -> None:
    runner = CliRunner()
    res = runner.invoke(cli, ["--db", falkordb_url, "--read-only", "facts"])
    assert res.exit_code == 1
    assert "does not exist" in res.output
    res = runner.invoke(cli, ["--db", falkordb_url, "add", "Alice", "works_at", "Acme"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(cli, ["--db", falkordb_url, "--read-only", "facts", "--json"])
    assert res.exit_code == 0, res.output
    assert [f["object"] for f in json.loads(res.output)] == ["Acme"]
