"""graphmem check: invariants hold after real writes; each deliberate corruption is caught.

Corruptions go through the store's ``run`` with parameterised Cypher, as a buggy writer (or a
hand edit) would leave them.
"""

from __future__ import annotations

import datetime as dt
import json
import os

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.check import CODES, CheckReport, Problem, check, check_rows
from graphmem.cli import cli
from graphmem.errors import GraphmemError, IntegrityError
from graphmem.store import open_store
from graphmem.store.base import Store
from graphmem.store.kuzu.engine import KuzuStore
from graphmem.timeutil import ManualClock, to_store, to_utc
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


@pytest.fixture
def built(mem: gm.Memory, clock: ManualClock) -> gm.Memory:
    """A memory with supersessions, a retraction, a noop and an identity replacement.

    It is ``mem``: a test corrupts it through ``mem_store``, the store under it.
    """
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
    clock.advance(days=1)
    mem.add_fact("api", "runs_on", "Go", valid_from="2025-06-01")
    clock.advance(days=1)
    mem.add_fact("api", "runs_on", "Go", valid_from="2025-07-01")  # noop
    mem.define_predicate("uses", cardinality="many")
    mem.add_fact("api", "uses", "Redis")
    mem.add_fact("api", "uses", "Postgres", source_ref="db")
    clock.advance(days=1)
    mem.add_fact("api", "uses", "MySQL", source_ref="db")
    clock.advance(days=1)
    mem.retract("api", "uses", "Redis", reason="replaced by a queue")
    return mem


def _fid(mem: gm.Memory, subject: str, predicate: str, *, current: bool = True) -> str:
    rows = mem.history(subject, predicate, include_expired=not current)
    if not current:
        rows = [f for f in rows if f.expired_at is not None]
    return rows[0].id


def _set(store: Store, fid: str, assignment: str, **params: object) -> None:
    """Corrupt one version in ``store``: ``SET r.<assignment>`` with parameters."""
    store.run(
        f"MATCH ()-[r:Fact]->() WHERE r.fid = $fid SET r.{assignment}",
        {"fid": fid, **params},
    )


def _codes(report: CheckReport) -> set[str]:
    return {p.code for p in report.problems}


def test_clean_store_passes(built: gm.Memory) -> None:
    report = check(built)
    assert report.ok, report.format()
    assert report.stats["versions"] == built.count_versions()
    assert "OK" in report.format()
    assert built.check().ok  # the facade delegates
    report.raise_if_broken()  # no error


def test_every_code_is_documented() -> None:
    assert all(sev in ("error", "warning", "info") for sev, _ in CODES.values())


def test_same_instant_replacement_is_info_not_error(mem: gm.Memory) -> None:
    # Two writes at one clock reading: the first version lives for an empty system interval.
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2023-01-01")
    report = check(mem)
    assert report.ok, report.format()
    assert "empty-system-interval" in _codes(report)
    info = [p for p in report.problems if p.code == "empty-system-interval"]
    assert info[0].severity == "info"


def test_overlapping_current_versions(built: gm.Memory, mem_store: Store) -> None:
    old = [f for f in built.history("api", "runs_on") if f.object == "Laravel"][0]
    _set(mem_store, old.id, "valid_to = NULL")  # Laravel open-ended again, overlapping Go
    report = check(built)
    assert not report.ok
    assert "overlap-single-valued" in _codes(report)
    msg = next(p.message for p in report.problems if p.code == "overlap-single-valued")
    assert "current" in msg
    assert "runs_on" in msg


@pytest.mark.embedded
def test_overlap_in_the_past_is_caught(built: gm.Memory, mem_store: Store) -> None:
    # Corrupt a closed version: at its system time it overlapped what was then believed.
    closed = [f for f in built.history("api", "runs_on", include_expired=True) if f.expired_at]
    laravel_v1 = [f for f in closed if f.object == "Laravel" and f.valid_to is None][0]
    go = [f for f in built.history("api", "runs_on") if f.object == "Go"][0]
    _set(
        mem_store,
        go.id,
        "recorded_at = $t",
        t=to_store(laravel_v1.recorded_at),
    )
    report = check(built)
    assert "overlap-single-valued" in _codes(report)


@pytest.mark.embedded
def test_expired_before_recorded(built: gm.Memory, mem_store: Store) -> None:
    fid = _fid(built, "api", "runs_on", current=False)
    _set(mem_store, fid, "expired_at = $t", t=dt.datetime(2000, 1, 1))
    assert "system-interval" in _codes(check(built))


def test_valid_to_not_after_valid_from(built: gm.Memory, mem_store: Store) -> None:
    fid = _fid(built, "api", "runs_on")
    _set(mem_store, fid, "valid_to = r.valid_from")
    report = check(built)
    assert "valid-interval" in _codes(report)
    assert not report.ok


def test_dangling_and_self_superseded_by(built: gm.Memory, mem_store: Store) -> None:
    closed = [f for f in built.history("api", include_expired=True) if f.superseded_by]
    _set(mem_store, closed[0].id, "superseded_by = 'fnothere'")
    _set(mem_store, closed[1].id, "superseded_by = $me", me=closed[1].id)
    codes = _codes(check(built))
    assert {"superseded-by-dangling", "superseded-by-self"} <= codes


def test_current_version_with_successor(built: gm.Memory, mem_store: Store) -> None:
    current = built.history("api", "runs_on")[0]
    other = built.history("api", "uses")[0]
    _set(mem_store, current.id, "superseded_by = $o", o=other.id)
    assert "superseded-current" in _codes(check(built))


@pytest.mark.embedded
def test_successor_recorded_at_another_instant(
    built: gm.Memory, mem_store: Store, clock: ManualClock
) -> None:
    closed = [f for f in built.history("api", include_expired=True) if f.superseded_by]
    succ, expired = closed[0].superseded_by, closed[0].expired_at
    assert succ is not None
    assert expired is not None
    _set(mem_store, succ, "recorded_at = $t", t=to_store(expired - dt.timedelta(hours=1)))
    assert "successor-time" in _codes(check(built))


@pytest.mark.embedded
def test_system_time_after_last_write(
    built: gm.Memory, mem_store: Store, clock: ManualClock
) -> None:
    closed = [f for f in built.history("api", include_expired=True) if f.expired_at][0]
    _set(mem_store, closed.id, "expired_at = $t", t=to_store(clock() + dt.timedelta(days=30)))
    report = check(built)
    assert "system-time-future" in _codes(report)
    assert not report.ok


def test_marker_behind_one_bulk_insert_is_a_warning(db_path: str) -> None:
    # A crash between a COPY-only commit and its marker commit: inserts at one instant, later
    # than the marker. Legit (repaired by the next open for writing), unlike anything else late.
    clock = ManualClock("2026-01-01")
    store = open_store(db_path, engine=ENGINE)
    with gm.open(store=store, clock=clock) as mem:
        mem.add_fact("api", "runs_on", "Go")
        clock.advance(days=1)
        mem.add_facts([{"subject": f"s{i}", "predicate": "p", "object": "o"} for i in range(3)])
        store.save_marker()  # kept in memory until now (docs/concepts/storage.md#lazy-marker)
        store.run(
            "MATCH (m:Meta) WHERE m.key = 'last_write' SET m.value = $v",
            {"v": "2026-01-01T00:00:00+00:00"},
        )
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        report = check(mem)
        assert report.ok, report.format()
        assert "last-write-behind" in _codes(report)
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:  # a writer repairs the marker
        report = check(mem)
        assert report.ok
        assert "last-write-behind" not in _codes(report)


@pytest.mark.embedded
def test_two_late_instants_are_an_error(
    built: gm.Memory, mem_store: Store, clock: ManualClock
) -> None:
    a, b = built.history("api", "uses")[:2]
    _set(mem_store, a.id, "recorded_at = $t", t=to_store(clock() + dt.timedelta(days=30)))
    _set(mem_store, b.id, "recorded_at = $t", t=to_store(clock() + dt.timedelta(days=31)))
    assert "system-time-future" in _codes(check(built))


def test_missing_last_write_marker(built: gm.Memory, mem_store: Store) -> None:
    if isinstance(mem_store, KuzuStore):
        mem_store.save_marker()  # the marker kept in memory (docs/concepts/storage.md#lazy-marker)
    mem_store.run("MATCH (m:Meta) WHERE m.key = $k DELETE m", {"k": "last_write"})
    assert "last-write-missing" in _codes(check(built))


def test_duplicate_fid(built: gm.Memory, mem_store: Store) -> None:
    a = built.history("api", "runs_on")[0].id
    b = built.history("api", "uses")[0].id
    _set(mem_store, b, "fid = $a", a=a)
    report = check(built)
    assert "fid-duplicate" in _codes(report)
    assert not report.ok


def test_empty_fid(built: gm.Memory, mem_store: Store) -> None:
    _set(mem_store, _fid(built, "api", "uses"), "fid = ''")
    assert "fid-missing" in _codes(check(built))


@pytest.mark.parametrize(
    ("assignment", "value"),
    [("kind = $v", "bogus"), ("importance = $v", 99.0), ("confidence = $v", float("nan"))],
)
@pytest.mark.embedded
def test_unreadable_version(
    built: gm.Memory, mem_store: Store, assignment: str, value: object
) -> None:
    _set(mem_store, _fid(built, "api", "uses"), assignment, v=value)
    report = check(built)
    assert "unreadable-version" in _codes(report)
    assert not report.ok


def test_schema_version(built: gm.Memory, mem_store: Store) -> None:
    mem_store.run(
        "MATCH (m:Meta) WHERE m.key = $k SET m.value = $v", {"k": "schema_version", "v": "99"}
    )
    assert "schema-version" in _codes(check(built))


def test_invalid_cardinality_and_undefined_predicate(built: gm.Memory, mem_store: Store) -> None:
    mem_store.run(
        "MATCH (p:Predicate) WHERE p.name = $n SET p.cardinality = 'several'", {"n": "uses"}
    )
    mem_store.run("MATCH (p:Predicate) WHERE p.name = $n DELETE p", {"n": "runs_on"})
    report = check(built)
    codes = _codes(report)
    assert "predicate-invalid" in codes
    assert "predicate-undefined" in codes
    assert next(p for p in report.problems if p.code == "predicate-undefined").severity == "warning"


def test_alias_conflict(mem: gm.Memory, mem_store: Store) -> None:
    mem.define_entity("Acme Corp", aliases=["acme"])
    mem.define_entity("Globex")
    mem_store.run("MATCH (e:Entity) WHERE e.id = $i SET e.aliases = ['acme']", {"i": "globex"})
    assert "alias-conflict" in _codes(check(mem))


def test_raise_if_broken(built: gm.Memory, mem_store: Store) -> None:
    _set(mem_store, _fid(built, "api", "uses"), "valid_to = r.valid_from")
    with pytest.raises(IntegrityError, match="valid-interval"):
        check(built).raise_if_broken()
    assert issubclass(IntegrityError, GraphmemError)


def test_problems_per_code_are_capped() -> None:
    t = dt.datetime(2020, 1, 1)
    rows = [
        {
            "fid": f"f{i}",
            "subject_id": "s",
            "subject": "s",
            "predicate": "p",
            "object": "o",
            "valid_from": t,
            "valid_to": t,
            "recorded_at": t,
            "expired_at": None,
        }
        for i in range(50)
    ]
    problems, omitted = check_rows(rows, predicates=[{"name": "p", "cardinality": "many"}])
    assert sum(p.code == "valid-interval" for p in problems) == 20
    assert omitted["valid-interval"] == 30
    report = CheckReport(None, tuple(problems), {}, omitted)
    assert not report.ok
    assert "30 more" in report.format()
    assert Problem("valid-interval", "x").to_dict()["severity"] == "error"


# -- the CLI ---------------------------------------------------------------------------------


def _disk_store(path: str) -> None:
    clock = ManualClock("2026-01-01")
    with gm.open(path, clock=clock, engine=ENGINE) as mem:
        mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
        clock.advance(days=1)
        mem.add_fact("api", "runs_on", "Go", valid_from="2025-01-01")


def test_cli_check_ok_and_broken(db_path: str) -> None:
    _disk_store(db_path)
    runner = CliRunner()
    ok = runner.invoke(cli, ["--db", db_path, "--engine", ENGINE, "check"])
    assert ok.exit_code == 0, ok.output
    assert "OK" in ok.output
    store = open_store(db_path, engine=ENGINE)
    with gm.open(store=store) as mem:
        laravel = [f for f in mem.history("api", "runs_on") if f.object == "Laravel"][0]
        _set(store, laravel.id, "valid_to = NULL")
    bad = runner.invoke(cli, ["--db", db_path, "--engine", ENGINE, "check"])
    assert bad.exit_code == 1
    assert "overlap-single-valued" in bad.output
    assert "Traceback" not in bad.output
    as_json = runner.invoke(cli, ["--db", db_path, "--engine", ENGINE, "check", "--json"])
    assert as_json.exit_code == 1
    # The report, then (exit status 1) the error as one JSON line: read the first document.
    data, _ = json.JSONDecoder().raw_decode(as_json.output)
    assert data["ok"] is False
    assert "overlap-single-valued" in {p["code"] for p in data["problems"]}


def test_cli_check_schema_version(db_path: str) -> None:
    _disk_store(db_path)
    store = open_store(db_path, engine=ENGINE)
    with gm.open(store=store):
        store.run("MATCH (m:Meta) WHERE m.key = $k SET m.value = '99'", {"k": "schema_version"})
    result = CliRunner().invoke(cli, ["--db", db_path, "--engine", ENGINE, "check", "--json"])
    assert result.exit_code == 1
    data, _ = json.JSONDecoder().raw_decode(result.output)
    assert [p["code"] for p in data["problems"]] == ["schema-version"]


def test_cli_check_missing_database(tmp_path: os.PathLike[str]) -> None:
    path = os.path.join(os.fspath(tmp_path), "none.kuzu")
    result = CliRunner().invoke(cli, ["--db", path, "check"])
    assert result.exit_code == 1
    assert "no database" in result.output
    assert not os.path.exists(path)


# -- a property: any sequence of public writes leaves every invariant intact ------------------

_NAMES = st.sampled_from(["alice", "Alice ", "bob", "ACME", "acme"])
_DATES = st.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2030, 1, 1))
_OPS = st.lists(
    st.one_of(
        st.tuples(
            st.just("add"),
            _NAMES,
            st.sampled_from(["works_at", "lives_in", "uses"]),
            _NAMES,
            _DATES,
            st.one_of(st.none(), _DATES),
            st.sampled_from([None, "ref1", "ref2"]),
            st.sampled_from([None, "she no longer does", "fine"]),
        ),
        st.tuples(
            st.just("retract"),
            _NAMES,
            st.sampled_from(["works_at", "lives_in", "uses"]),
            st.one_of(st.none(), _NAMES),
            _DATES,
        ),
        st.tuples(st.just("tick"), st.integers(0, 2)),
    ),
    max_size=25,
)


@settings(
    max_examples=int(os.environ.get("GRAPHMEM_CHECK_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(ops=_OPS)
def test_random_histories_keep_every_invariant(ops: list[tuple[object, ...]]) -> None:
    clock = ManualClock("2026-01-01")
    with backends.memory(clock=clock) as mem:
        mem.define_predicate("uses", cardinality="many")
        for op in ops:
            try:
                if op[0] == "tick":
                    clock.advance(hours=int(op[1]))  # type: ignore[call-overload]
                elif op[0] == "add":
                    _, s, p, o, vf, vt, ref, statement = op
                    mem.add_fact(
                        s,  # type: ignore[arg-type]
                        p,  # type: ignore[arg-type]
                        o,  # type: ignore[arg-type]
                        valid_from=vf,  # type: ignore[arg-type]
                        valid_to=vt,  # type: ignore[arg-type]
                        source_ref=ref,  # type: ignore[arg-type]
                        statement=statement,  # type: ignore[arg-type]
                    )
                else:
                    _, s, p, o, at = op
                    mem.retract(s, p, o, at=at)  # type: ignore[arg-type]
            except GraphmemError:
                pass  # invalid intervals and nothing-to-retract are fine
        report = check(mem)
        assert report.ok, report.format()
        # The system-time invariant seen from the API: what we believed stays believed.
        assert all(f.expired_at is None for f in mem.facts(known_at=to_utc(clock())))


# -- torn session writes -------------------------------------------------------------------------


def _sessions(mem: gm.Memory) -> None:
    mem.add_fact("api", "runs_on", "Go")
    mem.add_session(
        started_at="2025-12-01", session_id="s1", mentions={"Kubernetes": 2, "Paris": 1}
    )
    mem.add_session(started_at="2025-12-02", session_id="s2", mentions=["Kubernetes"])


def test_sessions_and_mentions_that_agree_pass(mem: gm.Memory) -> None:
    _sessions(mem)
    report = check(mem)
    assert report.ok, report.format()
    assert report.stats["sessions"] == 2
    assert report.stats["mentions"] == 3
    assert "entity-orphan" not in _codes(report)


def test_a_duplicate_mention_edge_is_an_error(mem: gm.Memory, mem_store: Store) -> None:
    # What a session write applied twice, or a rewrite whose DELETE was lost, leaves.
    _sessions(mem)
    mem_store.run(
        "MATCH (s:Session {id: 's1'}) MATCH (e:Entity {id: 'kubernetes'}) "
        "CREATE (s)-[:MENTIONS {count: 2}]->(e)"
    )
    report = check(mem)
    assert not report.ok
    assert "mention-duplicate" in _codes(report)
    assert "'s1'" in report.format()


@pytest.mark.parametrize("count", ["0", "NULL"])
@pytest.mark.embedded
def test_a_bad_mention_count_is_an_error(mem: gm.Memory, mem_store: Store, count: str) -> None:
    _sessions(mem)
    mem_store.run(
        f"MATCH (:Session {{id: 's2'}})-[m:MENTIONS]->() SET m.count = cast({count} AS INT64)"
    )
    report = check(mem)
    assert not report.ok
    assert "mention-count" in _codes(report)


@pytest.mark.embedded
def test_a_session_without_a_start_is_an_error(mem: gm.Memory, mem_store: Store) -> None:
    _sessions(mem)
    mem_store.run("MATCH (s:Session {id: 's2'}) SET s.started_at = cast(NULL AS TIMESTAMP)")
    report = check(mem)
    assert "session-invalid" in _codes(report)
    assert not report.ok


def test_entities_left_by_a_torn_session_write_are_reported(
    mem: gm.Memory, mem_store: Store
) -> None:
    # A bulk session write torn on a crash kept the topic entities it merged
    # and lost the sessions and mentions that named them.
    _sessions(mem)
    mem_store.run("MATCH (s:Session {id: 's1'})-[m:MENTIONS]->() DELETE m")
    mem_store.run("MATCH (s:Session {id: 's1'}) DELETE s")
    report = check(mem)
    assert report.ok  # a warning: a rewritten session or a purge leaves them legitimately too
    orphans = [p for p in report.problems if p.code == "entity-orphan"]
    assert len(orphans) == 1
    assert "'paris'" in orphans[0].message
    assert "kubernetes" not in orphans[0].message  # s2 still mentions it
