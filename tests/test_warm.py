"""Warming the version cache (docs/concepts/storage.md#warming).

After a few misses an embedded store reads every subject into its cache in a thread of its own;
the answers stay the engine's whatever runs meanwhile (writes of every path while the warm
reads), a store too big for the cache is left alone, and closing or exiting during a warm
interrupts it cleanly.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.errors import InvalidInput
from graphmem.store import open_store
from graphmem.store.cache import VERSIONS_ENV, VersionCache
from graphmem.store.kuzu.codec import _aware
from graphmem.store.warm import WARM_AFTER
from tests import backends
from tests.test_version_cache import (
    ENGINE,
    PROPS,
    SUBJECTS,
    T0,
    believed,
    open_mem,
    rows,
    same_as_engine,
    step,
    steps,
    stored,
)

pytestmark = pytest.mark.skipif(
    backends.on_falkordb(), reason="a server store keeps no version cache"
)


def filled(path: str, n: int = 300) -> tuple[gm.Memory, object, object]:
    """A store of ``n`` facts at ``path``, opened again (nothing cached, nothing missed)."""
    mem, _, clock = open_mem(path)
    clock.set(T0 + dt.timedelta(seconds=1))
    mem.add_facts(rows(7, n))  # its plan's reads miss too
    mem.close()
    return open_mem(path)


def test_a_few_misses_warm_every_subject_and_the_answers_stay_the_engines(db_path: str) -> None:
    mem, store, _ = filled(db_path)
    with mem:
        assert store.warmer is None  # type: ignore[attr-defined]
        for s in SUBJECTS[:WARM_AFTER]:
            mem.facts(subject=s)
        warmer = store.warmer  # type: ignore[attr-defined]
        assert warmer is not None
        warmer.join()
        assert warmer.error is None
        cache = store.version_cache  # type: ignore[attr-defined]
        with store.uncached():  # type: ignore[attr-defined]
            total = len(store.query_facts())
        assert cache.versions == total
        assert not cache.uncached(SUBJECTS)
        hits = cache.hits
        same_as_engine(mem, store, SUBJECTS, [T0, T0 + dt.timedelta(seconds=1)])
        assert cache.hits > hits


def test_one_read_never_warms(db_path: str) -> None:
    mem, store, _ = filled(db_path)
    with mem:
        mem.facts(subject=SUBJECTS[0])
        mem.facts(subject=SUBJECTS[0])
        assert store.warmer is None  # type: ignore[attr-defined]


def test_a_store_bigger_than_the_cache_is_left_alone(db_path: str) -> None:
    mem, store, _ = filled(db_path)
    with mem:
        store.version_cache.max_versions = 50  # type: ignore[attr-defined]
        warmer = store.warm()  # type: ignore[attr-defined]
        warmer.join()
        assert (warmer.warmed, warmer.error) == (0, None)
        assert store.version_cache.versions == 0  # type: ignore[attr-defined]


def test_a_read_only_store_never_warms(db_path: str) -> None:
    mem, _, _ = filled(db_path)
    mem.close()
    with gm.open(db_path, read_only=True, engine=ENGINE) as ro:
        for s in SUBJECTS[:5]:
            ro.facts(subject=s)
    reader = open_store(db_path, engine=ENGINE, read_only=True)
    try:
        assert reader.warm() is None  # type: ignore[attr-defined]
    finally:
        reader.close()


def test_warmed_subjects_are_evicted_before_those_the_process_read() -> None:
    cache = VersionCache(subjects=3)
    cache.put({"a": []}, cache.generation)
    assert cache.put({"a": [], "b": [], "c": []}, cache.generation, cold=True) == 2
    cache.put({"d": []}, cache.generation)  # one too many: a warmed subject goes
    assert cache.uncached(["a", "b", "c", "d"]) == ["c"]


def test_a_fill_that_overlapped_a_write_is_not_kept() -> None:
    cache = VersionCache()
    generation = cache.generation
    with cache.write() as done:
        done.append(None)  # type: ignore[arg-type]  # a failed change set drops everything
    assert cache.put({"a": []}, generation, cold=True) == 0
    assert cache.uncached(["a"]) == ["a"]


@pytest.mark.slow  # a long property: CI's slow family runs it
@settings(PROPS, max_examples=4)
@given(steps, st.sampled_from(["auto", "always", "never"]))
def test_writes_while_the_store_warms_keep_every_answer_the_engines(
    steps: list, policy: str
) -> None:
    # The warm starts before the first step and runs beside the writes (COPY, logged rows,
    # closes, retractions); the reference memory has no cache.
    mem, store, clock = open_mem(policy=policy)
    ref, ref_store, ref_clock = open_mem(policy=policy)
    ref_store.version_cache.max_subjects = 0  # type: ignore[attr-defined]
    with mem, ref:
        for m, c in ((mem, clock), (ref, ref_clock)):
            c.set(T0 + dt.timedelta(milliseconds=1))
            m.add_facts(rows(99, 200))
        store.warm()  # type: ignore[attr-defined]
        seen: list[tuple[dt.datetime, list[list[tuple]]]] = []
        for k, (op, seed, size) in enumerate(steps):
            now = T0 + dt.timedelta(seconds=k + 1)
            clock.set(now)
            ref_clock.set(now)
            assert step(mem, op, seed, size) == step(ref, op, seed, size)
            seen.append((now, believed(mem, SUBJECTS[:6], now)))
        store.warmer.join()  # type: ignore[attr-defined]
        assert store.warmer.error is None  # type: ignore[attr-defined]
        same_as_engine(mem, store, SUBJECTS, [t for t, _ in seen])
        for known, before in seen:
            assert believed(mem, SUBJECTS[:6], known) == before
        assert stored(store) == stored(ref_store)


def test_closing_or_exiting_while_it_warms_is_clean(tmp_path) -> None:
    path = os.path.join(tmp_path, "m.kuzu")
    mem, _, _ = filled(path, 2000)
    mem.close()
    code = textwrap.dedent(
        f"""
        import sys
        import graphmem as gm
        from graphmem.store import open_store
        store = open_store({path!r}, engine={ENGINE!r})
        mem = gm.open(store=store)
        warmer = store.warm()
        assert warmer is not None
        if sys.argv[1] == "close":
            mem.close()
            assert not warmer.running and warmer.error is None, warmer.error
            print("closed")
        else:
            print("exiting")  # atexit stops the warm before the engine goes
        """
    )
    for how in ("close", "exit"):
        run = subprocess.run(
            [sys.executable, "-c", code, how], capture_output=True, text=True, timeout=120
        )
        assert run.returncode == 0, run.stderr
    with gm.open(path, engine=ENGINE) as again:  # the file is whole
        assert len(again.facts(subject=SUBJECTS[0])) >= 0


def test_the_cache_size_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VERSIONS_ENV, "1000")
    assert VersionCache().max_versions == 1000
    monkeypatch.setenv(VERSIONS_ENV, "0")
    off = VersionCache()
    assert (off.max_versions, off.max_subjects) == (0, 0)
    monkeypatch.setenv(VERSIONS_ENV, "lots")
    with pytest.raises(InvalidInput, match="GRAPHMEM_VERSION_CACHE='lots'.*whole number"):
        VersionCache()


@given(st.datetimes(min_value=dt.datetime(1, 1, 2), max_value=dt.datetime(9999, 12, 30)))
def test_an_instant_read_is_the_same_instant_in_utc(value: dt.datetime) -> None:
    assert _aware(value) == value.replace(tzinfo=dt.timezone.utc)
    assert _aware(value).tzinfo is dt.timezone.utc
    assert _aware(value) is _aware(value)
