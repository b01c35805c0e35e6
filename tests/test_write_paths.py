"""Every write path of the embedded store gives the same results.

``KuzuWriter.insert_facts`` (the store's writer) takes one of several paths by batch size and
store size: logged inserts one statement a row (``rows``) or one ``UNWIND`` (``unwind``,
ladybug), a COPY into an empty table (``copy-empty``) or into a non-empty one
(``copy-append``), the latter with the call's closes, bumps and upserts held back until after
the COPY (``+ops``). The batches below are big enough to reach each of them (``copy_policy``
forces the choice the measured costs would make only for bigger stores), and the properties
hold on all of them:

1. A query with ``known_at=K`` returns the same answer before and after any later write.
2. Every path leaves the same versions and returns the same decisions as logged inserts.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import subprocess
import sys
import textwrap
import time

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.store import open_store
from graphmem.store.base import Store
from graphmem.store.kuzu.engine import COPY_THRESHOLD, SMALL_BATCH
from graphmem.timeutil import ManualClock

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 1, 1, tzinfo=UTC)
SUBJECTS = [f"s{i}" for i in range(300)]
OBJECTS = [f"o{i}" for i in range(6)]
PREDICATES = ["works_at", "lives_in", "likes", "knows"]  # two single-valued, two multi-valued
SIZES = [3, SMALL_BATCH + 5, COPY_THRESHOLD + 150]

# Each example writes batches of hundreds of facts three times over: few examples, and no
# shrinking (a failing plan is printed as drawn: a list of (seed, size) pairs).
PROPS = settings(
    max_examples=6,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def rows(seed: int, n: int) -> list[dict[str, object]]:
    """``n`` facts over a small pool: supersessions, no-ops, ends and out-of-order starts."""
    rng = random.Random(seed)
    out: list[dict[str, object]] = []
    for _ in range(n):
        start = dt.datetime(2000 + rng.randrange(20), 1 + rng.randrange(12), 1, tzinfo=UTC)
        row: dict[str, object] = {
            "subject": rng.choice(SUBJECTS),
            "predicate": rng.choice(PREDICATES),
            "object": rng.choice(OBJECTS),
            "valid_from": start,
        }
        if rng.random() < 0.15:
            row["valid_to"] = start + dt.timedelta(days=200 + rng.randrange(3000))
        if rng.random() < 0.05:
            row["object"] = f"new {seed} {rng.randrange(1000)}"  # a new entity
        out.append(row)
    return out


def open_mem(policy: str, path: str | None = None) -> tuple[gm.Memory, Store, ManualClock]:
    """A memory on a store of its own (the memory owns it), and the store, to look at."""
    clock = ManualClock(T0)
    store = open_store(path, engine=ENGINE)
    mem = gm.open(store=store, clock=clock)
    mem.define_predicate("works_at", cardinality="one")
    mem.define_predicate("lives_in", cardinality="one")
    mem.define_predicate("likes", cardinality="many")
    mem.define_predicate("knows", cardinality="many")
    store.writer.copy_policy = policy  # the seam: which path big batches take
    return mem, store, clock


def versions(store: Store, known_at: dt.datetime | None = None) -> list[tuple]:
    """Every stored version (or those known at ``known_at``) without its random ids.

    With ``known_at``, only what a version asserts and when it was recorded: a later write
    closes a version (``expired_at``, ``superseded_by``, ``reason``: after ``known_at``, so it
    stays in the answer) or reinforces it in place (the access counters, docs/concepts/hotness.md).
    """
    facts = store.query_facts(known_at=known_at)
    if known_at is not None:
        return [t[:6] for t in versions_of(facts)]
    return versions_of(facts)


def _order(t: tuple) -> tuple:
    return tuple((False, 0) if x is None else (True, x) for x in t)


def versions_of(facts: list) -> list[tuple]:
    return sorted(
        (
            (
                f.subject,
                f.predicate,
                f.object,
                f.valid_from,
                f.valid_to,
                f.recorded_at,
                f.expired_at,
                f.superseded_by is None,
                f.reason,
                f.access_count,
                f.last_accessed_at,
            )
            for f in facts
        ),
        key=_order,
    )


def write_all(mem: gm.Memory, clock: ManualClock, plan: list[tuple[int, int]]) -> list[list]:
    """Write the batches of ``plan`` (seed, size), each at a later second; return decisions."""
    decisions = []
    for k, (seed, size) in enumerate(plan):
        clock.set(T0 + dt.timedelta(seconds=k + 1))
        decisions.append([r.decision.value for r in mem.add_facts(rows(seed, size))])
    return decisions


plans = st.lists(st.tuples(st.integers(0, 10_000), st.sampled_from(SIZES)), min_size=2, max_size=4)


@PROPS
@given(plans, st.sampled_from(["auto", "always"]))
def test_known_at_answers_never_change(plan: list[tuple[int, int]], policy: str) -> None:
    mem, store, clock = open_mem(policy)
    with mem:
        seen: list[tuple[dt.datetime, list[tuple]]] = []
        for k, (seed, size) in enumerate(plan):
            clock.set(T0 + dt.timedelta(seconds=k + 1))
            mem.add_facts(rows(seed, size))
            now = T0 + dt.timedelta(seconds=k + 1)
            seen.append((now, versions(store, known_at=now)))
            for known, before in seen:
                assert versions(store, known_at=known) == before, (known, policy)
            # single-valued predicates: one current object at any valid instant
            current = store.query_facts(current_only=True)
            for p in ("works_at", "lives_in"):
                by_subject: dict[str, list] = {}
                for f in current:
                    if f.predicate == p:
                        by_subject.setdefault(f.subject, []).append(f)
                for vs in by_subject.values():
                    vs.sort(key=lambda f: f.valid_from)
                    for a, b in zip(vs, vs[1:], strict=False):
                        assert a.valid_to is not None
                        assert a.valid_to <= b.valid_from


@PROPS
@given(plans)
def test_every_path_equals_logged_inserts(plan: list[tuple[int, int]]) -> None:
    results = {}
    for policy in ("never", "auto", "always"):
        mem, store, clock = open_mem(policy)
        with mem:
            decisions = write_all(mem, clock, plan)
            results[policy] = (decisions, versions(store))
    assert results["auto"] == results["never"]
    assert results["always"] == results["never"]


@pytest.mark.parametrize("on_disk", [False, True])
def test_each_path_is_reached_and_agrees(tmp_path, on_disk: bool) -> None:
    """A fixed plan through every path, on disk too, compared with logged inserts."""
    big = COPY_THRESHOLD + 150
    plan = [(1, big), (2, 3), (3, SMALL_BATCH + 10), (4, big), (5, big)]
    out = {}
    paths = {}
    for policy in ("never", "always"):
        path = str(tmp_path / f"{policy}.kuzu") if on_disk else None
        mem, store, clock = open_mem(policy, path)
        with mem:
            decisions = write_all(mem, clock, plan)
            out[policy] = (decisions, versions(store))
            paths[policy] = dict(store.writer.write_paths)
        if on_disk:  # reopened from disk: the same versions
            again = open_store(path, engine=ENGINE)
            with gm.open(store=again, clock=clock):
                assert versions(again) == out[policy][1]
    assert out["always"] == out["never"]
    copied = paths["always"]
    assert copied.get("copy-empty", 0) >= 1, copied
    # later big batches supersede stored versions: COPY with the closes after it
    assert copied.get("copy-append+ops", 0) >= 1, copied
    logged = "rows" if ENGINE == "kuzu" else "unwind"
    assert paths["never"].get(logged, 0) >= 1, paths["never"]
    assert not any(k.startswith("copy") for k in paths["never"]), paths["never"]
    decisions = {d for batch in out["never"][0] for d in batch}
    assert {"add", "supersede"} <= decisions, decisions


def test_auto_copies_into_an_empty_store_and_appends_small_batches_row_by_row() -> None:
    mem, store, clock = open_mem("auto")
    with mem:
        write_all(mem, clock, [(1, COPY_THRESHOLD + 150), (2, 3)])
        paths = store.writer.write_paths
        assert paths.get("copy-empty", 0) == 1, paths
        assert paths.get("rows", 0) >= 1, paths


@pytest.mark.slow
def test_crash_record_of_held_back_writes_is_applied_on_open(tmp_path) -> None:
    """A COPY that committed before its closes did: the next open applies the closes.

    Simulated by committing the record and the COPY, not the third transaction (the kill
    harness in test_crash covers real kills).
    """
    path = str(tmp_path / "r.kuzu")
    base = [(1, COPY_THRESHOLD + 150)]
    more = rows(2, COPY_THRESHOLD + 150)
    later = T0 + dt.timedelta(seconds=10)
    ref, ref_store, ref_clock = open_mem("always", str(tmp_path / "ref.kuzu"))
    with ref:  # the reference: the same writes, nothing interrupted
        write_all(ref, ref_clock, base)
        ref_clock.set(later)
        ref.add_facts(more)
        want = versions(ref_store)
        assert ref_store.writer.write_paths.get("copy-append+ops", 0) == 1
    mem, store, clock = open_mem("always", path)
    with mem:
        write_all(mem, clock, base)
        clock.set(later)
        store.writer.fail_after_copy = True  # the seam: stop between the two commits
        with pytest.raises(RuntimeError, match="after the copy"):
            mem.add_facts(more)
    # A read-only open reads the finished write too: it repairs the file through a writable
    # open first (docs/concepts/storage.md#read-only-recovery).
    reader = open_store(path, engine=ENGINE, read_only=True)
    try:
        assert versions(reader) == want
        assert reader.get_meta("copy_pending") is None
    finally:
        reader.close()
    reopened = open_store(path, engine=ENGINE)
    with gm.open(store=reopened, clock=clock):  # the open applies the held-back closes
        assert versions(reopened) == want
        assert reopened.get_meta("copy_pending") is None


_CHILD = textwrap.dedent(
    """
    import datetime as dt, sys
    import graphmem as gm
    from graphmem.store import open_store
    from graphmem.timeutil import ManualClock

    path, engine, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    base = dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)
    clock = ManualClock(base)
    store = open_store(path, engine=engine)
    with gm.open(store=store, clock=clock) as mem:
        mem.define_predicate("works_at", cardinality="one")
        store.writer.copy_policy = "always"
        start = len({f.source for f in store.query_facts(predicate="works_at")})
        print("ready", flush=True)
        for b in range(start, start + 1000):
            clock.set(base + dt.timedelta(seconds=b + 1))
            mem.add_facts(
                [
                    {
                        "subject": f"s{i}",
                        "predicate": "works_at",
                        "object": f"o{b}",
                        "valid_from": dt.datetime(1900 + b, 1, 1, tzinfo=dt.timezone.utc),
                        "source": f"batch{b}",
                    }
                    for i in range(n)
                ]
            )
            print(b, flush=True)
    """
)


@pytest.mark.slow
def test_kill_during_copy_with_closes_keeps_whole_calls(tmp_path) -> None:
    """Killed anywhere in a COPY with held-back closes, each call is whole or absent."""
    path = str(tmp_path / "k.kuzu")
    n = COPY_THRESHOLD + 100  # every call supersedes all n current versions: n closes
    rng = random.Random(18)
    reported: set[int] = set()
    for _ in range(4):
        proc = subprocess.Popen(
            [sys.executable, "-c", _CHILD, path, ENGINE, str(n)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"ready\n", proc.stderr.read() if proc.stderr else ""
        time.sleep(rng.uniform(0.3, 2.5))
        proc.kill()
        out, _ = proc.communicate(timeout=60)
        reported |= {int(x) for x in out.split()}
        store = open_store(path, engine=ENGINE)
        with gm.open(store=store) as mem:
            current = store.query_facts(predicate="works_at", current_only=True)
            assert store.get_meta("copy_pending") is None
            assert mem.check().ok
        open_ended = [f for f in current if f.valid_to is None]
        # whole calls only: one open-ended current version per subject, all from one call
        assert len(open_ended) in (0, n), len(open_ended)
        assert len({f.object for f in open_ended}) <= 1
        if reported:  # a call reported done is durable: the newest object is at least its
            assert int(open_ended[0].object[1:]) >= max(reported)
        # and every earlier call left its shortened copy: n current versions per call
        calls = {f.source for f in current}
        assert len(current) == n * len(calls), (len(current), len(calls))
        assert {f"batch{b}" for b in reported} <= calls
