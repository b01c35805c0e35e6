"""The version cache on and off, on one store (docs/benchmarks.md#a-version-cache).

Builds the benchmark's store of ``--size`` facts (``benchmarks/data.py``), reopens it, and
measures point reads and single writes with the cache off (``max_subjects = 0``) and on:
first touch of a subject (a miss), second touch (a hit), ``add_fact`` on subjects read before
(their versions and names cached) and on random subjects (as ``benchmarks/run.py`` does), and
the memory a cached version costs (tracemalloc). One engine per process::

    python -m benchmarks.version_cache --engine kuzu --size 100000
"""

from __future__ import annotations

import argparse
import datetime as dt
import itertools
import os
import random
import tempfile
import tracemalloc
from typing import Any

from benchmarks.measure import lat
from benchmarks.run import T0, probes


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
        cache = mem._store.version_cache
        for mode in ("off", "on"):
            cache.max_subjects = 0 if mode == "off" else 4096
            cache.clear()
            out[mode] = one_mode(mem, clock, points, n, tick)
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
    print("| metric | cache off p50/p95 ms | cache on p50/p95 ms |")
    print("|---|---|---|")
    for key in result["on"]:
        off, on = result["off"][key], result["on"][key]
        print(f"| {key} | {off['p50_ms']} / {off['p95_ms']} | {on['p50_ms']} / {on['p95_ms']} |")
    print(
        f"cached: {result['cached_subjects']} subjects, {result['cached_versions']} versions, "
        f"{result['bytes_per_version']} bytes a version"
    )


if __name__ == "__main__":
    main()
