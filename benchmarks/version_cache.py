"""The version cache on and off, on one store (docs/benchmarks.md#a-version-cache).

Builds the benchmark's store of ``--size`` facts (``benchmarks/data.py``), reopens it, and
measures point reads and single writes with the cache off (``max_subjects = 0``), on (not
warmed) and warmed (docs/concepts/storage.md#warming: the whole store read in the background,
then 300 other subjects): first touch of a subject, second touch, ``add_fact`` on subjects read
before (their versions and names cached) and on random subjects (as ``benchmarks/run.py``
does), how long the warm takes, and the memory a cached version costs (tracemalloc). One engine
per process::

    python -m benchmarks.version_cache --engine kuzu --size 100000
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import os
import random
import tempfile
import time
import tracemalloc
from typing import Any

from benchmarks.measure import lat
from benchmarks.run import T0, probes
from graphmem.store.cache import MAX_SUBJECTS


def build(path: str, engine: str, n: int) -> None:
    import graphmem as gm
    from benchmarks import data
    from graphmem.timeutil import ManualClock

    clock = ManualClock(T0 - dt.timedelta(seconds=1))
    with gm.open(path, engine=engine, clock=clock) as mem:
        for p, c in data.predicates():
            mem.define_predicate(p, cardinality=c)
        clock.set(T0)
        mem.add_facts(list(data.facts(n)))


def one_mode(mem: Any, clock: Any, points: list[Any], n: int, tick: Any) -> dict[str, Any]:
    """Reads of ``points`` twice (first touch, again), then single writes."""
    from benchmarks import data

    k = T0 + dt.timedelta(seconds=1)

    def asof(a: Any) -> None:
        mem.facts(subject=a[0], predicate=a[1], valid_at=a[2], known_at=k)

    r = {"asof_first": lat("asof_first", asof, points, warm=0)}
    r["asof_again"] = lat("asof_again", asof, points, warm=0)
    clock.set(k)
    r["current"] = lat("current", lambda a: mem.facts(subject=a[0]), points, warm=0)
    r["history"] = lat("history", lambda a: mem.history(a[0]), points, warm=0)
    rng = random.Random(11)
    subjects = [a[0] for a in points]
    entities = max(n // 10, 10)

    def write(known: bool) -> None:
        clock.set(k + dt.timedelta(seconds=next(tick)))
        s, o = (
            (rng.choice(subjects), rng.choice(subjects))
            if known
            else (f"E{rng.randrange(entities)}", f"E{rng.randrange(entities)}")
        )
        mem.add_fact(
            s,
            f"p{rng.randrange(50):02d}",
            o,
            valid_from=data.BASE + dt.timedelta(days=rng.randrange(data.SPAN_DAYS)),
        )

    q = len(points)
    r["add_fact_read_subjects"] = lat("add_fact_read", lambda _: write(True), list(range(q)))
    r["add_fact_random_subjects"] = lat("add_fact_random", lambda _: write(False), list(range(q)))
    return r


def measure(path: str, engine: str, n: int, q: int) -> dict[str, Any]:
    import graphmem as gm
    from graphmem.timeutil import ManualClock

    out: dict[str, Any] = {}
    points = probes(n, q)
    clock = ManualClock(T0 + dt.timedelta(seconds=1))
    tick = itertools.count(1)
    with gm.open(path, engine=engine, clock=clock) as mem:
        store = mem._store
        cache = store.version_cache
        store.warm_after = 10**9  # warmed only in the third mode
        for mode in ("off", "on"):
            cache.max_subjects = 0 if mode == "off" else MAX_SUBJECTS
            cache.clear()
            out[mode] = one_mode(mem, clock, points, n, tick)
        cache.clear()
        start = time.perf_counter()
        store.warm().join()
        out["warm_s"] = round(time.perf_counter() - start, 3)
        out["warmed_versions"] = cache.versions
        out["warmed"] = one_mode(mem, clock, probes(n, q, seed=99), n, tick)
        cache.clear()
        tracemalloc.start()
        before = tracemalloc.take_snapshot()
        for a in points:
            mem.facts(subject=a[0])
        grown = sum(s.size_diff for s in tracemalloc.take_snapshot().compare_to(before, "filename"))
        tracemalloc.stop()
        out["cached_subjects"] = len(cache)
        out["cached_versions"] = cache.versions
        out["bytes_per_version"] = round(grown / max(cache.versions, 1))
    return out


MODES = ("off", "on", "warmed")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--engine", default=os.environ.get("GRAPHMEM_ENGINE", "kuzu"))
    ap.add_argument("--size", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=300)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "gm.db")
        build(path, args.engine, args.size)
        result = measure(path, args.engine, args.size, args.queries)
    print(f"engine {args.engine}, {args.size:,} facts, {args.queries} subjects")
    print("| metric | cache off p50/p95 ms | cache on p50/p95 ms | warmed p50/p95 ms |")
    print("|---|---|---|---|")
    for key in result["on"]:
        cells = [f"{result[m][key]['p50_ms']} / {result[m][key]['p95_ms']}" for m in MODES]
        print(f"| {key} | {' | '.join(cells)} |")
    print(f"warm: {result['warm_s']} s, {result['warmed_versions']:,} versions")
    print(
        f"cached: {result['cached_subjects']} subjects, {result['cached_versions']} versions, "
        f"{result['bytes_per_version']} bytes a version"
    )


if __name__ == "__main__":
    main()
