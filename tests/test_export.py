"""Snapshots (to_networkx, neighborhood) and the lossless export/import round trip."""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem import export as ex
from graphmem.cli import cli
from graphmem.datasets import sample
from graphmem.demo import learning_schedule
from graphmem.normalize import entity_key
from graphmem.store import open_store
from graphmem.store.base import Store
from graphmem.store.kuzu.engine import COPY_THRESHOLD
from graphmem.store.kuzu.schema import DDL
from graphmem.store.kuzu.transfer import EXPORTED_TABLES
from graphmem.timeutil import ManualClock
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")

UTC = dt.timezone.utc

# -- random stores ----------------------------------------------------------------------------

SUBJECTS = ["Alice", "bob", "Acme"]
OBJECTS = ["Acme", "Globex", "Initech", "alice", "Paris"]
PREDICATES = ["works_at", "likes", "lives_in"]
DATES = ["2019-01-01", "2020-01-01", "2020-06-01", "2021-01-01", "2022-01-01", "2023-01-01"]

add_op = st.tuples(
    st.just("add"),
    st.sampled_from(SUBJECTS),
    st.sampled_from(PREDICATES),
    st.sampled_from(OBJECTS),
    st.integers(0, len(DATES) - 1),
    st.one_of(st.none(), st.integers(1, 3)),
    st.sampled_from([None, "says so", "no longer true"]),
    st.integers(0, 3),
)
retract_op = st.tuples(
    st.just("retract"),
    st.sampled_from(SUBJECTS),
    st.sampled_from(PREDICATES),
    st.one_of(st.none(), st.sampled_from(OBJECTS)),
    st.integers(0, len(DATES) - 1),
    st.integers(0, 3),
)
ops = st.lists(st.one_of(add_op, add_op, retract_op), min_size=1, max_size=14)


def build(mem: gm.Memory, clock: ManualClock, script: list[tuple[Any, ...]]) -> list[dt.datetime]:
    """Apply a random script; return every system time used."""
    mem.define_predicate("likes", cardinality="many")
    times = [clock()]
    for op in script:
        if op[0] == "add":
            _, s, p, o, vf, span, statement, advance = op
            clock.advance(days=advance)
            vt = None if span is None else DATES[min(vf + span, len(DATES) - 1)]
            if vt == DATES[vf]:
                vt = None
            mem.add_fact(s, p, o, valid_from=DATES[vf], valid_to=vt, statement=statement)
        else:
            _, s, p, o, at, advance = op
            clock.advance(days=advance)
            with contextlib.suppress(gm.NotFound):
                mem.retract(s, p, o, at=DATES[at], reason="test")
        times.append(clock())
    return times


def probes(times: list[dt.datetime]) -> Iterator[tuple[dt.datetime, dt.datetime]]:
    """(valid_at, known_at) pairs around the scripted dates, before, amid and after the writes."""
    valid = [gm.to_utc(d) for d in ("2019-06-01", "2020-03-01", "2021-01-01", "2030-01-01")]
    ordered = sorted(set(times))
    known = {
        ordered[0] - dt.timedelta(days=1),
        ordered[len(ordered) // 2],
        ordered[-1],
        ordered[-1] + dt.timedelta(hours=1),
    }
    for v in valid:
        for k in sorted(known):
            yield v, k


def edge_facts(G: nx.MultiDiGraph) -> list[gm.Fact]:
    return sorted((gm.Fact(**d) for _, _, d in G.edges(data=True)), key=lambda f: f.id)


def fresh(clock_start: str = "2025-01-01") -> tuple[gm.Memory, Store, ManualClock]:
    """A fresh memory on the run's backend, the store it runs on (it owns it), and its clock."""
    clock = ManualClock(clock_start)
    store = backends.store()
    return gm.open(store=store, clock=clock), store, clock


# -- to_networkx ------------------------------------------------------------------------------


@pytest.mark.slow  # a long test: CI's slow family runs it
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=ops)
def test_snapshot_edges_equal_facts(script: list[tuple[Any, ...]]) -> None:
    mem, _, clock = fresh()
    with mem:
        times = build(mem, clock, script)
        for v, k in probes(times):
            expected = mem.facts(valid_at=v, known_at=k)
            G = mem.to_networkx(valid_at=v, known_at=k)
            assert edge_facts(G) == sorted(expected, key=lambda f: f.id)
            for u, w, key, data in G.edges(keys=True, data=True):
                assert key == data["id"]
                assert (u, w) == (entity_key(data["subject"]), entity_key(data["object"]))
            assert set(G.nodes) == {n for e in G.edges() for n in e}
            for _, attrs in G.nodes(data=True):
                assert set(attrs) == {"name", "kind"}
            assert G.graph == {"valid_at": v, "known_at": k}
        # neighbourhoods are the networkx ego graphs of the same snapshot
        for v, k in list(probes(times))[1::5]:
            G = mem.to_networkx(valid_at=v, known_at=k)
            for entity in ("alice", "acme"):
                if entity not in G:
                    continue
                for hops in (0, 1, 2):
                    N = mem.neighborhood(entity, hops=hops, valid_at=v, known_at=k)
                    ego = nx.ego_graph(G, entity, radius=hops, undirected=True)
                    assert set(N.nodes) == set(ego.nodes)
                    assert sorted(N.edges(keys=True)) == sorted(ego.edges(keys=True))


def test_snapshot_defaults_to_now_and_keeps_every_field(mem: gm.Memory, clock: ManualClock) -> None:
    mem.define_entity("Alice", kind="person", aliases=["Ali"])
    mem.add_fact("Alice", "works_at", "Acme", valid_from="2020-01-01", importance=7, pinned=True)
    clock.advance(days=1)
    mem.add_fact("Alice", "works_at", "Globex", valid_from="2024-01-01", source="s1")
    G = mem.to_networkx()
    assert list(G.edges(data="object")) == [("alice", "globex", "Globex")]
    (data,) = [d for _, _, d in G.edges(data=True)]
    assert set(data) == set(gm.Fact.model_fields)
    assert data["source"] == "s1"
    assert data["valid_to"] is None
    assert data["expired_at"] is None
    assert G.nodes["alice"] == {"name": "Alice", "kind": "person"}
    past = mem.to_networkx(valid_at="2021-01-01")
    assert [d["object"] for _, _, d in past.edges(data=True)] == ["Acme"]
    # what we believed before learning about Globex
    before = mem.to_networkx(valid_at="2025-01-01", known_at="2026-01-01")
    assert [d["object"] for _, _, d in before.edges(data=True)] == ["Acme"]


def test_subject_filter_and_hops(mem: gm.Memory) -> None:
    mem.add_fact("Alice", "works_at", "Acme", valid_from="2020-01-01")
    mem.add_fact("Bob", "works_at", "Acme", valid_from="2020-01-01")
    mem.add_fact("Acme", "located_in", "Paris", valid_from="2020-01-01")
    only = mem.to_networkx(subject="ali ce".replace(" ", ""))
    assert [(u, v) for u, v in only.edges()] == [("alice", "acme")]
    two = mem.to_networkx(subject="Alice", hops=2)
    assert set(two.nodes) == {"alice", "acme", "bob", "paris"}
    one = mem.neighborhood("Alice", hops=1)
    assert set(one.nodes) == {"alice", "acme"}
    zero = mem.neighborhood("acme", hops=0)
    assert list(zero.nodes) == ["acme"]
    assert zero.number_of_edges() == 0
    # incoming edges count: Paris reaches Acme backwards, then Alice and Bob
    assert set(mem.neighborhood("Paris", hops=2).nodes) == {"paris", "acme", "alice", "bob"}
    # an entity with nothing true at that time is still the centre
    lonely = mem.neighborhood("Alice", valid_at="1990-01-01")
    assert list(lonely.nodes) == ["alice"]
    assert lonely.number_of_edges() == 0


def test_neighborhood_is_the_induced_ego_graph(mem: gm.Memory, clock: ManualClock) -> None:
    # A chain a-b-c-d-e with self-loops, parallel versions, an incoming branch, an edge between
    # two nodes at the same distance (x-d), a closed version and an entity without facts.
    mem.define_predicate("likes", cardinality="many")
    mem.define_predicate("knows", cardinality="many")
    for s, p, o in [
        ("A", "likes", "B"),
        ("B", "likes", "C"),
        ("C", "likes", "D"),
        ("C", "knows", "D"),
        ("D", "likes", "E"),
        ("C", "likes", "C"),
        ("D", "likes", "D"),
        ("C", "likes", "X"),
        ("X", "knows", "D"),
        ("F", "likes", "C"),
        ("A", "likes", "A"),
    ]:
        mem.add_fact(s, p, o, valid_from="2020-01-01")
    mem.add_fact("B", "knows", "Z", valid_from="2020-01-01", valid_to="2021-01-01")
    clock.advance(days=1)
    mem.retract("F", "likes", "C", at="2022-01-01", reason="test")
    mem.define_entity("Loner")
    for v in ("2020-06-01", "2023-01-01"):
        G = mem.to_networkx(valid_at=v)
        for entity in ("a", "c", "d", "x", "loner"):
            for hops in range(5):
                N = mem.neighborhood(entity, hops=hops, valid_at=v)
                ego = nx.ego_graph(G, entity, radius=hops, undirected=True) if entity in G else None
                assert sorted(N.nodes) == (sorted(ego.nodes) if ego else [entity])
                assert sorted(N.edges(keys=True)) == (sorted(ego.edges(keys=True)) if ego else [])
                for u, w, key, data in N.edges(keys=True, data=True):
                    assert data == G.edges[u, w, key]
                assert dict(N.nodes(data=True)) == {
                    n: G.nodes[n] if n in G else {"name": "Loner", "kind": "entity"} for n in N
                }
                assert N.graph == G.graph


@pytest.mark.parametrize("hops", [-1, 1.5, True, "2"])
def test_bad_hops(mem: gm.Memory, hops: Any) -> None:
    mem.add_fact("Alice", "works_at", "Acme")
    with pytest.raises(gm.InvalidInput, match="hops"):
        mem.neighborhood("Alice", hops=hops)


def test_unknown_entity_and_hops_without_subject(mem: gm.Memory) -> None:
    mem.add_fact("Alice", "works_at", "Acme")
    with pytest.raises(gm.NotFound, match="Alcie"):
        mem.neighborhood("Alcie")
    with pytest.raises(gm.NotFound):
        mem.to_networkx(subject="nobody", hops=1)
    with pytest.raises(gm.InvalidInput, match="needs subject"):
        mem.to_networkx(hops=1)
    with pytest.raises(gm.InvalidInput, match="naive"):
        mem.to_networkx(valid_at=dt.datetime(2020, 1, 1))  # noqa: DTZ001 - the point


def test_historic_snapshot(mem: gm.Memory) -> None:
    mem.add_fact("Granada", "ruled_by", "Emirate of Granada", valid_from="1238", valid_to="1492")
    mem.add_fact("Granada", "ruled_by", "Crown of Castile", valid_from="1492-01-02")
    G = mem.to_networkx(valid_at="1490-06-01")
    (data,) = [d for _, _, d in G.edges(data=True)]
    assert data["object"] == "Emirate of Granada"
    assert data["valid_from"] == dt.datetime(1238, 1, 1, tzinfo=UTC)


# -- export / import --------------------------------------------------------------------------


def roundtrip(
    mem: gm.Memory, fmt: str, *, start: str = "1000-01-01"
) -> tuple[gm.Memory, Store, str]:
    """Export ``mem`` and import it into a fresh memory: the copy, its store and the text."""
    buf = io.StringIO()
    ex.export_memory(mem, buf, format=fmt)
    copy, copy_store, _ = fresh(start)
    report = ex.import_memory(copy, io.StringIO(buf.getvalue()))
    assert report.format == fmt
    return copy, copy_store, buf.getvalue()


def same_export(a: gm.Memory, b: gm.Memory) -> None:
    ra, rb = list(ex.to_records(a)), list(ex.to_records(b))
    ra[0].pop("exported_at")
    rb[0].pop("exported_at")
    assert ra == rb


def subjects(store: Store) -> list[str]:
    return sorted({f.subject for f in store.query_facts()})


def assert_same_memory(
    a: gm.Memory, a_store: Store, b: gm.Memory, times: list[dt.datetime]
) -> None:
    """``b`` answers as ``a`` does (``a_store``: the store under ``a``)."""
    for v, k in probes(times):
        assert a.facts(valid_at=v, known_at=k) == b.facts(valid_at=v, known_at=k)
    for s in subjects(a_store):
        assert a.history(s, include_expired=True) == b.history(s, include_expired=True)
        assert a.history(s) == b.history(s)
    assert a.count_versions() == b.count_versions()
    assert a.predicates() == b.predicates()
    same_export(a, b)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=ops, fmt=st.sampled_from(ex.FORMATS))
def test_roundtrip_random_store(script: list[tuple[Any, ...]], fmt: str) -> None:
    mem, store, clock = fresh()
    with mem:
        times = build(mem, clock, script)
        copy, _, _ = roundtrip(mem, fmt)
        with copy:
            assert_same_memory(mem, store, copy, times)
            assert copy._kernel.uow.last_write == store.max_system_time()


@pytest.fixture(scope="module")
def demo_memory() -> Iterator[tuple[gm.Memory, list[dt.datetime]]]:
    """The demo's sample replayed as learned (over 1,000 versions: over the COPY threshold)."""
    clock = ManualClock("1000-01-01")
    times = []
    with backends.memory(clock=clock) as mem:
        for day, batch in learning_schedule(sample()):
            clock.set(day)
            mem.add_facts(batch)
            times.append(day)
        mem.define_entity("Albert Einstein", kind="person", aliases=["Einstein"])
        yield mem, times[::30]


@pytest.mark.slow  # a long test: CI's slow family runs it
@pytest.mark.parametrize("fmt", ex.FORMATS)
def test_roundtrip_demo_data(demo_memory: tuple[gm.Memory, list[dt.datetime]], fmt: str) -> None:
    mem, times = demo_memory
    copy, _, _ = roundtrip(mem, fmt)
    with copy:
        for v in times:
            for k in times:
                assert mem.facts(valid_at=v, known_at=k) == copy.facts(valid_at=v, known_at=k)
        assert mem.count_versions() == copy.count_versions() > COPY_THRESHOLD
        for s in ("Albert Einstein", "Richard Feynman"):
            assert mem.history(s, include_expired=True) == copy.history(s, include_expired=True)
        same_export(mem, copy)
        # aliases survive: the import resolves them like the original (at the original's now:
        # the copy's clock still stands at its start)
        at = {"valid_at": mem.now(), "known_at": mem.now()}
        assert copy.facts(subject="Einstein", **at) == mem.facts(subject="Einstein", **at) != []


def rich_memory() -> tuple[gm.Memory, Store, ManualClock]:
    """Every kind of content: sessions + mentions, audit, meta, pins, counters, odd text."""
    mem, store, clock = fresh("2026-01-01T08:30:00.123456Z")
    mem.define_predicate("uses", cardinality="many", aliases=["relies_on"], description="tools")
    mem.define_entity("Alice Smith", kind="person", aliases=["Ali", "A. Smith"])
    mem.add_session(
        "Alice Smith talked about Kuzu\r\nand Paris",
        started_at="2026-01-01",
        session_id="s1",
        title="kick-off ✓",
        mentions={"Kuzu": 3, "Alice Smith": 1},
    )
    mem.add_fact(
        "Alice Smith",
        "works_at",
        "Acme",
        valid_from="1490-03-04",
        source="s1",
        source_ref="hr:1",
        statement="  leading spaces,\ttabs,\r\nCRLF and ünïcode ✓  ",
        kind="identity",
        importance=8.25,
        confidence=0.5,
        pinned=True,
    )
    clock.advance(hours=5, microseconds=7)
    mem.add_fact("Alice Smith", "works_at", "Acme", valid_from="1490-03-04")  # noop: counters
    mem.add_fact("Alice Smith", "uses", "Kuzu", valid_from="2025-01-01", kind="directive")
    clock.advance(days=2)
    mem.add_fact("Alice Smith", "works_at", "Globex", valid_from="2026-01-02", source="s2")
    mem.retract("Alice Smith", "uses", "Kuzu", at="2026-01-02", reason="switched")
    mem.add_session(started_at="2026-01-03", session_id="s2", summary="moves", source="chat")
    mem.add_fact("Bob", "knows", "Alice Smith", valid_from="2020-01-01")
    clock.advance(days=1)
    mem.purge("Bob", reason="asked to be forgotten")
    store.set_meta("custom_marker", "kept verbatim")
    return mem, store, clock


@pytest.mark.parametrize("fmt", ex.FORMATS)
@pytest.mark.embedded
def test_roundtrip_everything(fmt: str) -> None:
    mem, store, clock = rich_memory()
    with mem:
        copy, copy_store, text = roundtrip(mem, fmt)
        with copy:
            assert_same_memory(mem, store, copy, [clock(), gm.to_utc("2026-01-01T13:00:00Z")])
            assert copy.sessions() == mem.sessions()
            assert [s.mentions for s in copy.sessions()][0] == {"Kuzu": 3, "Alice Smith": 1}
            assert copy_store.all_audit() == store.all_audit() != []
            assert copy_store.all_entities() == store.all_entities()
            assert copy_store.all_meta() == store.all_meta()
            pinned = [f for f in copy.history("Ali", include_expired=True) if f.pinned][0]
            assert pinned.statement == "  leading spaces,\ttabs,\r\nCRLF and ünïcode ✓  "
            assert pinned.valid_from == dt.datetime(1490, 3, 4, tzinfo=UTC)
            assert pinned.recorded_at.microsecond == 123456
            assert any(f.access_count == 1 for f in copy.history("Ali", include_expired=True))
            assert copy.facts(subject="Ali", predicate="relies on") == mem.facts(
                subject="Ali", predicate="relies on"
            )
        if fmt == "node-link":  # readable by networkx as is
            G = nx.node_link_graph(json.loads(text), edges="edges")
            assert G.is_multigraph()
            assert G.is_directed()
            assert G.nodes["entity:alice smith"]["kind"] == "person"
        if fmt == "graphml":
            G = nx.read_graphml(io.StringIO(text), force_multigraph=True)
            assert G.number_of_edges() == mem.count_versions() + 2  # + two mentions


def test_jsonl_layout(mem: gm.Memory) -> None:
    mem.add_fact("Alice", "works_at", "Acme", valid_from="2020-01-01")
    lines = [json.loads(line) for line in io.StringIO(_export(mem, "jsonl"))]
    header = lines[0]
    assert header["type"] == "header"
    assert header["format"] == "graphmem-export"
    assert header["version"] == ex.FORMAT_VERSION
    assert header["counts"]["facts"] == 1
    assert {r["type"] for r in lines} == {"header", "predicate", "entity", "fact"}
    (fact,) = [r for r in lines if r["type"] == "fact"]
    assert fact["subject_id"] == "alice"
    assert fact["valid_from"] == "2020-01-01T00:00:00+00:00"


def _export(mem: gm.Memory, fmt: str) -> str:
    buf = io.StringIO()
    ex.export_memory(mem, buf, format=fmt)
    return buf.getvalue()


def test_import_restores_the_clock_guard(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-05-01")
    mem.add_fact("Alice", "works_at", "Acme")
    copy, copy_store, clock2 = fresh("2026-04-01")
    with copy:
        ex.import_memory(copy, io.StringIO(_export(mem, "jsonl")))
        with pytest.raises(gm.ClockError):
            copy.add_fact("Alice", "works_at", "Globex")
        clock2.set("2026-05-02")
        assert copy.add_fact("Alice", "works_at", "Globex").decision == "supersede"
        assert copy_store.max_system_time() == gm.to_utc("2026-05-02")


def test_import_refuses_a_non_empty_memory(mem: gm.Memory) -> None:
    mem.add_fact("Alice", "works_at", "Acme")
    text = _export(mem, "jsonl")
    with pytest.raises(gm.InvalidInput, match="not empty"):
        ex.import_memory(mem, io.StringIO(text))
    assert mem.count_versions() == 1


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda ls: ls[1:], "first record must be the export header"),
        (lambda ls: ls[:-1], "truncated"),
        (lambda ls: [*ls, '{"type": "bogus"}'], "unknown record type"),
        (lambda ls: [*ls[:2], "{not json", *ls[2:]], "line 3: invalid JSON"),
        (lambda ls: [ls[0].replace('"version": 1', '"version": 99'), *ls[1:]], "newer"),
        (lambda ls: [ls[0].replace("graphmem-export", "other"), *ls[1:]], "not a graphmem"),
        (
            lambda ls: [re.sub(r'"subject_id": "[^"]*"', '"subject_id": "ghost"', x) for x in ls],
            "'ghost' is not an exported entity",
        ),
        (
            lambda ls: [x.replace('"valid_from": "2020', '"valid_from": "20x0') for x in ls],
            "valid_from",
        ),
    ],
)
def test_import_rejects_bad_files(mem: gm.Memory, mutate: Any, message: str) -> None:
    mem.add_fact("Alice", "works_at", "Acme", valid_from="2020-01-01")
    lines = _export(mem, "jsonl").splitlines()
    copy, copy_store, _ = fresh()
    with copy:
        with pytest.raises(gm.InvalidInput, match=message):
            ex.import_memory(copy, io.StringIO("\n".join(mutate(lines))), format="jsonl")
        assert copy_store.content_counts() == dict.fromkeys(
            ("entities", "facts", "sessions", "audit"), 0
        )
        ex.import_memory(copy, io.StringIO("\n".join(lines)))  # still empty: works
        assert copy.count_versions() == 1


def test_duplicate_fact_ids_rejected(mem: gm.Memory) -> None:
    mem.add_fact("Alice", "works_at", "Acme")
    lines = _export(mem, "jsonl").splitlines()
    fact = next(x for x in lines if '"type": "fact"' in x)
    header = json.loads(lines[0])
    header["counts"]["facts"] = 2
    text = "\n".join([json.dumps(header), *lines[1:], fact])
    copy, _, _ = fresh()
    with copy, pytest.raises(gm.InvalidInput, match="appears twice"):
        ex.import_memory(copy, io.StringIO(text))


def test_graphml_refuses_control_characters(mem: gm.Memory) -> None:
    mem.add_fact("Alice", "said", "hello", statement="bell \x07 here")
    with pytest.raises(gm.InvalidInput, match="GraphML.*jsonl"):
        _export(mem, "graphml")
    assert "\\u0007" in _export(mem, "jsonl")


def test_unknown_format(mem: gm.Memory, tmp_path: Any) -> None:
    with pytest.raises(gm.InvalidInput, match="format='csv'"):
        ex.export_memory(mem, tmp_path / "x", format="csv")
    assert not (tmp_path / "x").exists()


def test_from_records(mem: gm.Memory) -> None:
    mem.add_fact("Alice", "works_at", "Acme")
    copy, _, _ = fresh()
    with copy:
        report = ex.from_records(copy, ex.to_records(mem))
        assert (report.facts, report.entities) == (1, 2)
        assert "1 fact version, 2 entities" in report.summary()
        same_export(mem, copy)


def test_exported_tables_cover_the_schema() -> None:
    tables = {
        m.group(1) for stmt in DDL for m in [re.search(r"TABLE IF NOT EXISTS (\w+)", stmt)] if m
    }
    assert tables == EXPORTED_TABLES


def test_bare_session_roundtrip() -> None:
    """A session with no mentions and no optional fields survives too."""
    mem, store, _ = fresh()
    with mem:
        mem.add_session(started_at="2024-02-29", session_id="bare")
        copy, copy_store, _ = roundtrip(mem, "graphml")
        with copy:
            assert copy_store.all_sessions() == store.all_sessions()
            assert copy.sessions()[0].mentions == {}


# -- CLI --------------------------------------------------------------------------------------


def test_cli_export_import(tmp_path: Any) -> None:
    runner = CliRunner()
    src, dst = str(tmp_path / "a.kuzu"), str(tmp_path / "b.kuzu")
    env = {"GRAPHMEM_ENGINE": ENGINE}
    for args in (
        ["add", "Alice", "works_at", "Acme", "--valid-from", "2020-01-01"],
        ["add", "Alice", "works_at", "Globex", "--valid-from", "2022-01-01"],
    ):
        assert runner.invoke(cli, ["--db", src, *args], env=env).exit_code == 0
    out = tmp_path / "backup.jsonl"
    result = runner.invoke(cli, ["--db", src, "export", "-o", str(out)], env=env)
    assert result.exit_code == 0, result.output
    assert "exported 3 fact versions" in result.output
    for fmt in ("graphml", "node-link"):
        result = runner.invoke(cli, ["--db", src, "export", "--format", fmt], env=env)
        assert result.exit_code == 0
        assert result.stdout.lstrip().startswith("<" if fmt == "graphml" else "{")
    result = runner.invoke(cli, ["--db", dst, "import", str(out), "--json"], env=env)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["facts"] == 3
    result = runner.invoke(cli, ["--db", dst, "import", str(out)], env=env)
    assert result.exit_code == 1
    assert "not empty" in result.output
    assert "Traceback" not in result.output
    result = runner.invoke(cli, ["--db", dst, "history", "Alice", "--json"], env=env)
    assert [f["object"] for f in json.loads(result.stdout)] == ["Acme", "Globex"]
    result = runner.invoke(
        cli, ["--db", str(tmp_path / "c.kuzu"), "import", "-"], input=out.read_text(), env=env
    )
    assert result.exit_code == 0
    assert "imported 3 fact versions" in result.output
    result = runner.invoke(
        cli, ["--db", str(tmp_path / "d.kuzu"), "import", str(tmp_path / "nope")], env=env
    )
    assert result.exit_code == 1
    assert "no such file" in result.output


@pytest.mark.parametrize("path", ["missing/x.jsonl", "."])
def test_import_of_an_unreadable_path_fails(tmp_path: os.PathLike[str], path: str) -> None:
    with backends.memory() as mem, pytest.raises(gm.InvalidInput, match="cannot be read"):
        ex.import_memory(mem, os.path.join(tmp_path, path))


def test_export_to_an_unwritable_path_is_invalid_input(tmp_path: os.PathLike[str]) -> None:
    with backends.memory() as mem, pytest.raises(gm.InvalidInput, match="cannot be written"):
        ex.export_memory(mem, os.path.join(tmp_path, "missing", "x.jsonl"))


# -- import validates history as check does --------------------------------------------------


def _history_records(mem: gm.Memory, clock: ManualClock) -> list[dict[str, Any]]:
    """An export with one supersession: Laravel (closed, superseded by Go), then Go (current)."""
    clock.set("2026-03-01")
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
    clock.set("2026-06-01")
    mem.add_fact("api", "runs_on", "Go", valid_from="2026-06-01")
    clock.set("2026-06-02")
    mem.add_fact("api", "runs_on", "Rust", valid_from="2026-06-02")
    return list(ex.to_records(mem))


def _facts(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted((r for r in records if r["type"] == "fact"), key=lambda r: r["recorded_at"])


def _dangling(records: list[dict[str, Any]]) -> None:
    _facts(records)[0]["superseded_by"] = "no-such-version"


def _two_current(records: list[dict[str, Any]]) -> None:
    # The closed Laravel version (its valid interval was capped at 2026-06-01) made current
    # again with its original open interval: two current versions of a single-valued fact.
    first = _facts(records)[0]
    first.update(expired_at=None, superseded_by=None, reason=None, valid_to=None)


def _cycle(records: list[dict[str, Any]]) -> None:
    # Every version closed at one instant, each superseded by the next, the last by the first.
    facts = _facts(records)
    at = facts[-1]["recorded_at"]
    for a, b in zip(facts, facts[1:] + facts[:1], strict=True):
        a.update(recorded_at=at, expired_at=at, superseded_by=b["id"], reason="cycle")


@pytest.mark.parametrize(
    ("mutate", "code"),
    [
        (_dangling, "superseded-by-dangling"),
        (_two_current, "overlap-single-valued"),
        (_cycle, "superseded-by-cycle"),
    ],
)
def test_import_refuses_broken_history(
    mem: gm.Memory, clock: ManualClock, mutate: Any, code: str
) -> None:
    records = _history_records(mem, clock)
    mutate(records)
    text = "\n".join(json.dumps(r) for r in records)
    copy, copy_store, _ = fresh()
    with copy:
        with pytest.raises(gm.InvalidInput, match=rf"^line \d+: broken history \({code}") as err:
            ex.import_memory(copy, io.StringIO(text))
        assert "nothing imported" in str(err.value)
        assert copy.count_versions() == 0
        assert copy_store.content_counts() == dict.fromkeys(
            ("entities", "facts", "sessions", "audit"), 0
        )


def test_check_reports_a_supersede_cycle() -> None:
    from graphmem.check import check_rows

    t = dt.datetime(2026, 1, 1)
    rows = [
        {
            "fid": fid,
            "subject_id": "s",
            "subject": "s",
            "object_id": obj,
            "predicate": "p",
            "object": obj,
            "valid_from": t,
            "recorded_at": t,
            "expired_at": t,
            "superseded_by": by,
            "reason": "x",
        }
        for fid, obj, by in (("a", "x", "b"), ("b", "y", "c"), ("c", "z", "a"))
    ]
    problems, _ = check_rows(rows, predicates=[{"name": "p", "cardinality": "many"}])
    cycles = [p for p in problems if p.code == "superseded-by-cycle"]
    assert len(cycles) == 1
    assert set(cycles[0].fids) == {"a", "b", "c"}


@pytest.mark.parametrize("key", ["schema_version", "last_write"])
def test_import_never_trusts_meta_from_the_file(
    mem: gm.Memory, tmp_path: os.PathLike[str], key: str
) -> None:
    mem.add_fact("Alice", "works_at", "Acme")
    lines = _export(mem, "jsonl").splitlines()
    lines.insert(1, json.dumps({"type": "meta", "key": key, "value": "999"}))
    path = os.path.join(os.fspath(tmp_path), "copy.kuzu")
    message = rf"line 2: a meta record sets '{key}'"
    with gm.open(path, engine=ENGINE) as copy, pytest.raises(gm.InvalidInput, match=message):
        ex.import_memory(copy, io.StringIO("\n".join(lines)))
    copy_store = open_store(path, engine=ENGINE)
    with gm.open(store=copy_store) as copy:  # still opens: nothing was written
        assert copy.count_versions() == 0
        assert copy_store.all_meta()["schema_version"] != "999"
    doc = json.loads(_export(mem, "node-link"))
    doc["graph"]["meta"][key] = "999"
    with backends.memory() as copy, pytest.raises(gm.InvalidInput, match="meta"):
        ex.import_memory(copy, io.StringIO(json.dumps(doc)))


def _deep(depth: int) -> str:
    return '{"type": "fact", "object": ' + "[" * depth + "]" * depth + "}"


def test_deeply_nested_json_is_invalid_input(mem: gm.Memory, tmp_path: os.PathLike[str]) -> None:
    mem.add_fact("Alice", "works_at", "Acme")
    lines = _export(mem, "jsonl").splitlines()
    text = "\n".join([*lines[:2], _deep(200_000), *lines[2:]])
    copy, _, _ = fresh()
    with copy, pytest.raises(gm.InvalidInput, match="line 3: the JSON is nested too deeply"):
        ex.import_memory(copy, io.StringIO(text))
    with backends.memory() as copy, pytest.raises(gm.InvalidInput, match="too deep"):
        ex.import_memory(copy, io.StringIO("[" * 200_000 + "]" * 200_000), format="node-link")
    # The CLI: import and add-many answer with the line number, exit 1, no traceback.
    bad = os.path.join(os.fspath(tmp_path), "deep.jsonl")
    with open(bad, "w", encoding="utf-8") as fh:
        fh.write("\n".join([*lines[:2], _deep(200_000), *lines[2:]]) + "\n")
    runner = CliRunner()
    db_path = os.path.join(os.fspath(tmp_path), "deep.kuzu")
    for args in (["import", bad], ["add-many", bad]):
        result = runner.invoke(cli, ["--db", db_path, "--engine", ENGINE, *args])
        assert result.exit_code == 1, result.output
        assert "line 3" in result.output
        assert "nested too deeply" in result.output
        assert not isinstance(result.exception, RecursionError)
        assert "Traceback" not in result.output


def test_export_over_a_backup_is_atomic(mem: gm.Memory, tmp_path: os.PathLike[str]) -> None:
    """A failed export (here: a GraphML-incompatible text, then a failing rename) keeps the old
    backup byte for byte; a symlinked target is replaced through the link."""
    from graphmem.fileio import atomic_write

    mem.add_fact("Alice", "works_at", "Acme")
    folder = os.fspath(tmp_path)
    target = os.path.join(folder, "backup.jsonl")
    ex.export_memory(mem, target)
    before = Path(target).read_bytes()
    mem.add_fact("Alice", "note", "bell \x07")
    with pytest.raises(gm.InvalidInput, match="control character"):
        ex.export_memory(mem, target, format="graphml")
    assert Path(target).read_bytes() == before

    def broken(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space"), atomic_write(target, replace=broken) as fh:
        fh.write("half")
    assert Path(target).read_bytes() == before
    assert sorted(os.listdir(folder)) == ["backup.jsonl"]  # no temp file left behind
    link = os.path.join(folder, "link.jsonl")
    os.symlink(target, link)
    ex.export_memory(mem, link)
    assert os.path.islink(link)
    assert "bell" in Path(target).read_text(encoding="utf-8")
