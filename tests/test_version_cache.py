"""The version cache of the embedded store (docs/concepts/storage.md#version-cache).

Cached answers must equal the engine's: after every write path (per-row inserts, COPY, closes,
access counters, disputes, merges, purges, imports, vacuum, a write outside a change set), for
``facts(subject, valid_at, known_at)``, current facts and ``history``; an answer with
``known_at=K`` never changes; a borrowed and returned database is read afresh.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import socket
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

import graphmem as gm
from graphmem.export import export_memory, import_memory
from graphmem.models import Fact
from graphmem.store import open_store
from graphmem.store.base import ChangeSet, Store
from graphmem.store.cache import FILL_BATCH, VersionCache
from graphmem.store.kuzu.engine import COPY_THRESHOLD, SMALL_BATCH
from graphmem.timeutil import ManualClock

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
UTC = dt.timezone.utc
T0 = dt.datetime(2026, 1, 1, tzinfo=UTC)
SUBJECTS = [f"s{i}" for i in range(40)]
OBJECTS = [f"o{i}" for i in range(5)]
PREDICATES = ["works_at", "likes"]  # single-valued, multi-valued


def fact(fid: str, subject: str = "a", **kw: object) -> Fact:
    data: dict[str, object] = {
        "id": fid,
        "subject": subject,
        "predicate": "likes",
        "object": "x",
        "valid_from": T0,
        "recorded_at": T0,
    }
    data.update(kw)
    return Fact.model_validate(data)


def loaded(sid: str, *fids: str) -> dict[str, list[Fact]]:
    return {sid: [fact(f, sid) for f in fids]}


# -- the cache alone -----------------------------------------------------------------------------


def test_hit_miss_and_fresh_lists() -> None:
    cache = VersionCache()
    assert cache.get("a") is None
    cache.put(loaded("a", "f1", "f2"), cache.generation)
    got = cache.get("a")
    assert got is not None
    assert [f.id for f in got] == ["f1", "f2"]
    got.clear()  # the caller's list: the cache keeps its own
    assert len(cache.get("a") or []) == 2
    assert (cache.hits, cache.misses) == (2, 1)
    assert cache.names(["a", "zz"]) == ({"a": "a"}, ["zz"])


def test_lru_evicts_by_subjects_and_by_versions() -> None:
    cache = VersionCache(subjects=2, versions=5)
    cache.put(loaded("a", "a1"), cache.generation)
    cache.put(loaded("b", "b1"), cache.generation)
    cache.get("a")  # a is now the most recently used
    cache.put(loaded("c", "c1"), cache.generation)
    assert cache.get("b") is None
    assert cache.get("a") is not None
    assert len(cache) == 2
    cache.put(loaded("d", "d1", "d2", "d3", "d4"), cache.generation)
    assert cache.versions <= 5
    assert cache.get("d") is not None
    cache.put(loaded("e", *[f"e{i}" for i in range(6)]), cache.generation)  # never fits
    assert cache.get("e") is None


def test_a_read_overlapping_a_write_is_not_kept() -> None:
    cache = VersionCache()
    before = cache.generation
    with cache.write() as done:
        cache.put(loaded("a", "f1"), cache.generation)  # during the write: never kept
        done.append(ChangeSet(at=T0))
    cache.put(loaded("a", "f1"), before)  # read before the write, kept after it: stale
    assert cache.get("a") is None
    cache.put(loaded("a", "f1"), cache.generation)
    assert cache.get("a") is not None


def test_a_failed_write_or_a_purge_drops_everything() -> None:
    cache = VersionCache()
    cache.put(loaded("a", "f1"), cache.generation)
    with pytest.raises(RuntimeError), cache.write():
        raise RuntimeError("the commit failed")
    assert cache.get("a") is None
    assert cache.names(["a"])[0] == {}
    cache.put(loaded("a", "f1"), cache.generation)
    from graphmem.store.base import Purge

    with cache.write() as done:
        done.append(ChangeSet(at=T0, purge=Purge("zz", (), "audit", {})))
    assert cache.get("a") is None


def test_a_change_set_updates_cached_subjects() -> None:
    cache = VersionCache()
    cache.put(loaded("a", "f1", "f2"), cache.generation)
    at = T0 + dt.timedelta(days=1)
    changes = ChangeSet(at=at)
    changes.closes.append(("a", "f1", "f3", "superseded"))
    changes.inserts.append(("a", "x", fact("f3", "a", recorded_at=at)))
    changes.inserts.append(("b", "x", fact("b1", "b", recorded_at=at)))  # b is not cached
    changes.bumps.append(("a", "f2", 4))
    changes.access[("out", "a")] = ["f2"]
    with cache.write() as done:
        done.append(changes)
    by_id = {f.id: f for f in cache.get("a") or []}
    assert by_id["f1"].expired_at == at
    assert by_id["f1"].superseded_by == "f3"
    assert by_id["f2"].access_count == 5
    assert by_id["f2"].last_accessed_at == at
    assert "f3" in by_id
    assert cache.get("b") is None
    counted = ChangeSet(at=at)
    counted.access[("in", "x")] = ["f2"]  # into object x: the cache drops the subject
    with cache.write() as done:
        done.append(counted)
    assert cache.get("a") is None


@pytest.mark.embedded
def test_cached_versions_cannot_be_changed_by_callers(mem: gm.Memory, mem_store: Store) -> None:
    mem.add_fact("api", "runs_on", "Go")
    first = mem.facts(subject="api")
    with pytest.raises(ValidationError):
        first[0].object = "Rust"  # type: ignore[misc]  # Fact is frozen
    first.clear()
    assert [f.object for f in mem.facts(subject="api")] == ["Go"]
    assert mem_store.version_cache.hits > 0  # type: ignore[attr-defined]


# -- cached answers equal the engine's -----------------------------------------------------------


def answers(
    mem: gm.Memory, store: Store, subjects: list[str], known: list[dt.datetime]
) -> list[str]:
    """Every read the cache serves, as JSON (types and time zones compared too).

    ``store``: the one ``mem`` runs on.
    """
    out: list[object] = []
    for s in subjects:
        out.append(mem.facts(subject=s))
        out.append(mem.history(s, include_expired=True))
        out.append(mem.history(s, "works_at"))
        for k in known:
            out.append(
                mem.facts(subject=s, known_at=k, valid_at=dt.datetime(2010, 6, 1, tzinfo=UTC))
            )
            out.append(mem.facts(subject=s, predicate="likes", known_at=k, limit=2))
    ids = [s.lower() for s in subjects]
    current = store.current_versions(ids)
    out.append({s: sorted(f.id for f in vs) for s, vs in current.items()})
    pairs = store.current_versions(ids, pairs=[(i, "likes") for i in ids])  # type: ignore[call-arg]
    out.append({s: sorted(f.id for f in vs) for s, vs in pairs.items()})
    out.append(store.entity_names(ids + ["nobody"]))
    return [json.dumps(x, default=_dump, sort_keys=True) for x in out]


def _dump(x: object) -> object:
    if isinstance(x, Fact):
        return x.model_dump(mode="json")
    raise TypeError(type(x))


def same_as_engine(
    mem: gm.Memory, store: Store, subjects: list[str], known: list[dt.datetime]
) -> list[str]:
    cached = answers(mem, store, subjects, known)
    again = answers(mem, store, subjects, known)  # now from the cache
    with store.uncached():  # type: ignore[attr-defined]
        fresh = answers(mem, store, subjects, known)
    assert cached == fresh
    assert again == fresh
    return fresh


def believed(mem: gm.Memory, subjects: list[str], k: dt.datetime) -> list[list[tuple]]:
    keys = ("id", "predicate", "object", "valid_from", "valid_to", "recorded_at")
    return [
        [tuple(getattr(f, a) for a in keys) for f in mem.facts(subject=s, known_at=k, valid_at=v)]
        for s in subjects
        for v in (dt.datetime(2005, 6, 1, tzinfo=UTC), k)
    ]


def rows(seed: int, n: int) -> list[dict[str, object]]:
    rng = random.Random(seed)
    out: list[dict[str, object]] = []
    for _ in range(n):
        start = dt.datetime(2000 + rng.randrange(15), 1 + rng.randrange(12), 1, tzinfo=UTC)
        row: dict[str, object] = {
            "subject": rng.choice(SUBJECTS),
            "predicate": rng.choice(PREDICATES),
            "object": rng.choice(OBJECTS),
            "valid_from": start,
        }
        if rng.random() < 0.2:
            row["valid_to"] = start + dt.timedelta(days=100 + rng.randrange(3000))
        out.append(row)
    return out


def open_mem(path: str | None = None, policy: str = "auto") -> tuple[gm.Memory, Store, ManualClock]:
    """A memory on a store of its own (the memory owns it), and the store, to look at."""
    clock = ManualClock(T0)
    store = open_store(path, engine=ENGINE)
    mem = gm.open(store=store, clock=clock)
    mem.define_predicate("works_at", cardinality="one")
    mem.define_predicate("likes", cardinality="many")
    store.writer.copy_policy = policy  # type: ignore[attr-defined]  # which path big batches take
    return mem, store, clock


# Each example writes batches of up to hundreds of facts: few examples, no shrinking.
PROPS = settings(
    max_examples=8,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SIZES = [1, 3, SMALL_BATCH + 5, COPY_THRESHOLD + 20]
steps = st.lists(
    st.one_of(
        st.tuples(st.just("batch"), st.integers(0, 10_000), st.sampled_from(SIZES)),
        st.tuples(st.just("retract"), st.integers(0, 10_000), st.just(0)),
        st.tuples(st.just("read"), st.integers(0, 10_000), st.just(0)),
    ),
    min_size=2,
    max_size=6,
)


def step(mem: gm.Memory, op: str, seed: int, size: int) -> list[str]:
    """One step of a plan; the decisions it made."""
    rng = random.Random(seed)
    if op == "batch":
        return [r.decision.value for r in mem.add_facts(rows(seed, size))]
    s = rng.choice(SUBJECTS[:6])
    if op == "retract":
        # the first in a fixed order: facts() may order a tie differently in each memory
        current = sorted(mem.facts(subject=s), key=lambda f: (f.predicate, f.object))
        if current:
            return [mem.retract(s, current[0].predicate, current[0].object).decision.value]
        return []
    mem.facts(subject=s)
    return []


def stored(store: Store) -> list[tuple]:
    """Every stored version without its random ids (successors as a flag)."""
    with store.uncached():  # type: ignore[attr-defined]
        facts = store.query_facts()
    keys = ("subject", "predicate", "object", "valid_from", "valid_to", "recorded_at")
    keys += ("expired_at", "reason", "access_count")
    return sorted(
        tuple((False, 0) if x is None else (True, x) for x in (getattr(f, a) for a in keys))
        + (f.superseded_by is None,)
        for f in facts
    )


@PROPS
@given(steps, st.sampled_from(["auto", "always", "never"]))
def test_cached_answers_equal_the_engine_and_never_change(steps: list, policy: str) -> None:
    mem, store, clock = open_mem(policy=policy)
    ref, ref_store, ref_clock = open_mem(policy=policy)  # the same writes with the cache off
    ref_store.version_cache.max_subjects = 0  # type: ignore[attr-defined]
    with mem, ref:
        seen: list[tuple[dt.datetime, list[list[tuple]]]] = []
        probe = SUBJECTS[:6]
        for k, (op, seed, size) in enumerate(steps):
            now = T0 + dt.timedelta(seconds=k + 1)
            clock.set(now)
            ref_clock.set(now)
            assert step(mem, op, seed, size) == step(ref, op, seed, size)
            same_as_engine(mem, store, probe, [now])
            seen.append((now, believed(mem, probe, now)))
            for known, before in seen:
                # What a version asserts and when it was recorded; a later write may close it
                # (expired_at after ``known``) or count an access, never change the answer.
                assert believed(mem, probe, known) == before, known
        assert stored(store) == stored(ref_store)
        assert store.version_cache.hits > 0  # type: ignore[attr-defined]
        assert ref_store.version_cache.hits == 0  # type: ignore[attr-defined]


def test_every_write_path_keeps_the_cache_true(tmp_path) -> None:
    """Per-row inserts, COPY, closes, access counts, disputes, corrections, merges, purge."""
    path = os.path.join(tmp_path, "m.kuzu")
    mem, store, clock = open_mem(path, policy="always")
    subjects = ["s0", "s1", "s2", "Ana", "Acme", "api"]
    t = iter(range(1, 1000))

    def tick() -> dt.datetime:
        now = T0 + dt.timedelta(minutes=next(t))
        clock.set(now)
        return now

    with mem:
        known = [tick()]
        mem.add_fact("Ana", "works_at", "Acme", source_type="user")
        same_as_engine(mem, store, subjects, known)
        tick()
        mem.add_facts(rows(1, COPY_THRESHOLD + 10))  # COPY (forced)
        assert store.writer.write_paths  # type: ignore[attr-defined]
        same_as_engine(mem, store, subjects, known)
        store.writer.copy_policy = "never"  # type: ignore[attr-defined]
        known.append(tick())
        mem.add_facts(rows(2, SMALL_BATCH + 5))  # logged rows, closes among them
        same_as_engine(mem, store, subjects, known)
        tick()
        r = mem.add_fact("Ana", "works_at", "Acme", statement="Ana no longer works at Acme")
        same_as_engine(mem, store, subjects, known)
        if r.decision is gm.Decision.DISPUTE and r.fact is not None:
            tick()
            mem.resolve_dispute(r.fact.id, accept=False)  # a settle
            same_as_engine(mem, store, subjects, known)
        known.append(tick())
        victim = mem.facts(subject="s0")[0]
        mem.correct(victim.id, "o4-corrected")
        same_as_engine(mem, store, subjects, known)
        tick()
        mem.retract(fact_id=mem.facts(subject="s1")[0].id)
        same_as_engine(mem, store, subjects, known)
        tick()
        mem.add_fact("api", "runs_on", "Go")
        mem.context("what does api run on", budget_tokens=400)  # access counters ("out"/"in")
        same_as_engine(mem, store, subjects, known)
        tick()
        mem.merge_entities("s2", "s3")
        same_as_engine(mem, store, [*subjects, "s3"], known)
        tick()
        mem.define_predicate("likes", aliases=["enjoys"])
        same_as_engine(mem, store, subjects, known)
        tick()
        mem.purge("s0", reason="asked to forget")  # vacuums the file too
        same_as_engine(mem, store, subjects, known)
        assert store.version_cache.hits > 0  # type: ignore[attr-defined]
        # A write outside any change set (a repair, a test) drops the cache at once.
        mem.facts(subject="s1")
        assert len(store.version_cache) > 0  # type: ignore[attr-defined]
        store.run(  # type: ignore[attr-defined]
            "MATCH (a:Entity {id: 's1'})-[r:Fact]->() SET r.importance = 9.5"
        )
        assert len(store.version_cache) == 0  # type: ignore[attr-defined]
        assert {f.importance for f in mem.history("s1", include_expired=True)} == {9.5}
        same_as_engine(mem, store, subjects, known)


def test_import_and_reopen_start_from_the_file(tmp_path) -> None:
    src, _, clock = open_mem(policy="auto")
    with src:
        src.add_facts(rows(3, 50))
        dump = os.path.join(tmp_path, "dump.jsonl")
        export_memory(src, dump)
        expected = [f.model_dump() for f in src.history("s1", include_expired=True)]
    path = os.path.join(tmp_path, "m.kuzu")
    store = open_store(path, engine=ENGINE)
    with gm.open(store=store, clock=ManualClock(T0), ontology=None) as mem:
        assert mem.facts(subject="s1") == []  # cached as empty
        import_memory(mem, dump)
        got = [f.model_dump() for f in mem.history("s1", include_expired=True)]
        assert got == expected
        same_as_engine(mem, store, SUBJECTS[:5], [T0 + dt.timedelta(days=1)])
    with gm.open(path, engine=ENGINE, clock=ManualClock(T0 + dt.timedelta(days=1))) as mem:
        mem.add_fact("s1", "likes", "reopened")
    with gm.open(path, engine=ENGINE, clock=ManualClock(T0 + dt.timedelta(days=1))) as mem:
        assert "reopened" in {f.object for f in mem.facts(subject="s1")}


def test_a_read_only_store_caches_nothing(tmp_path) -> None:
    path = os.path.join(tmp_path, "m.kuzu")
    with gm.open(path, engine=ENGINE, clock=ManualClock(T0)) as mem:
        mem.add_fact("api", "runs_on", "Go")
    store = open_store(path, engine=ENGINE, read_only=True)
    with gm.open(store=store) as reader:
        for _ in range(2):
            assert [f.object for f in reader.facts(subject="api")] == ["Go"]
        assert store.version_cache.hits == 0  # type: ignore[attr-defined]
        assert len(store.version_cache) == 0  # type: ignore[attr-defined]


@pytest.mark.embedded
def test_a_bulk_plan_reads_many_subjects_without_filling(mem: gm.Memory, mem_store: Store) -> None:
    many = [
        {"subject": f"n{i}", "predicate": "likes", "object": "x"} for i in range(FILL_BATCH + 1)
    ]
    mem.add_facts(many)
    assert len(mem_store.version_cache) <= FILL_BATCH  # type: ignore[attr-defined]


# -- lending -------------------------------------------------------------------------------------

BORROWER = textwrap.dedent(
    """
    import sys
    import graphmem as gm
    from graphmem.store.locks import borrow
    from graphmem.timeutil import ManualClock

    path, engine = sys.argv[1], sys.argv[2]
    with borrow(path) as lender:
        assert lender is not None, "nobody lends the database"
        with gm.open(path, engine=engine, clock=ManualClock("2026-03-01")) as mem:
            mem.add_fact("api", "runs_on", "Rust", valid_from="2026-03-01")
    """
)


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets")
def test_a_write_by_a_borrower_is_seen_by_the_lender(tmp_path, monkeypatch) -> None:
    import tempfile

    from graphmem.store.locks import Lender

    run = tempfile.mkdtemp(prefix="gm")  # socket paths are short
    os.chmod(run, 0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", run)
    path = os.path.join(tmp_path, "m.kuzu")
    clock = ManualClock("2026-01-01")
    opened: list[Store] = []  # the stores the lender's memories run on, newest last

    def open_lent() -> gm.Memory:
        store = open_store(path, engine=ENGINE)
        mem = gm.open(store=store, clock=clock)
        opened.append(store)
        return mem

    lender = Lender(path, open_lent)
    lender.start()
    try:
        with lender.use() as mem:
            mem.add_fact("api", "runs_on", "Go", valid_from="2026-01-01")
            assert [f.object for f in mem.facts(subject="api")] == ["Go"]
            assert [f.object for f in mem.facts(subject="api")] == ["Go"]  # cached now
            assert opened[-1].version_cache.hits > 0  # type: ignore[attr-defined]
        env = {**os.environ, "XDG_RUNTIME_DIR": run, "PYTHONPATH": os.pathsep.join(sys.path)}
        proc = subprocess.run(
            [sys.executable, "-c", BORROWER, path, ENGINE],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert proc.returncode == 0, proc.stderr
        clock.set("2026-03-02")
        with lender.use() as mem:
            assert [f.object for f in mem.facts(subject="api")] == ["Rust"]
            assert len(mem.history("api", include_expired=True)) == 3
    finally:
        lender.close()
