"""context() latency at 10,000 sessions / 200,000 lines on Kuzu: first call, second, p50/p95.

docs/benchmarks.md#episodic-recall. The store is the one of ``benchmarks.episodic.latency``
(same generator and seed: 20 lines of 10 random words per session, 10,000 facts with a source
and a statement), written once into ``--cache`` and copied for every run, so each run's first
call is a new process's first call on a store it never searched:

    PYTHONPATH=. python -m benchmarks.line_latency [--cache /tmp/gm-200k.kuzu] [--runs 3]

Each run is a child process (a fresh interpreter: imports, caches and the line index cold)
that opens the copy, times ``context()`` twice, then 60 queries of 2 random words at
``budget_tokens=1000``; it prints wall and CPU times (CPU: this process's, all threads, a
truer figure on a shared machine), peak RSS and the store's size on disk. ``--prepared``
builds the entity full-text index once in the cached store (as ``graphmem.context.prepare``
does on a server) and saves the line index beside it (``<db>.graphmem-lines``,
docs/concepts/recall.md#line-index-file), which the copies carry: the first call then reads
that file; ``--no-file`` leaves it out of the copies (the first call builds the index). Each
child's close saves its own index file too, which the disk figure counts.
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchmarks.measure import disk_mb, rss_mb

VOCAB = [f"{w}{i}" for w in ("topic", "thing", "place", "name") for i in range(3000)]


def build(path: str, n_sessions: int = 10_000, lines_per: int = 20) -> None:
    """Write the store (as ``benchmarks.episodic.latency``)."""
    import graphmem as gm
    from graphmem.sessions import add_sessions
    from graphmem.timeutil import ManualClock

    rng = random.Random(5)
    with gm.open(path, clock=ManualClock("2024-01-01")) as mem:
        for start in range(0, n_sessions, 1000):
            rows = []
            for s in range(start, min(start + 1000, n_sessions)):
                text = "\n".join(
                    f"{('Ann', 'Bo')[k % 2]}: "
                    + " ".join(rng.choice(VOCAB) for _ in range(10))
                    + " and some common words about the project"
                    for k in range(lines_per)
                )
                started = f"2023-{s % 12 + 1:02d}-{s % 27 + 1:02d}"
                rows.append(
                    {"session_id": f"s{s}", "started_at": started, "text": text, "mentions": {}}
                )
            add_sessions(mem, rows, extract=False)
        mem.add_facts(
            [
                {
                    "subject": f"topic{i}",
                    "predicate": "uses",
                    "object": f"thing{i}",
                    "source": f"s{i}",
                    "statement": f"topic{i} uses thing{i}",
                }
                for i in range(n_sessions)
            ]
        )


def _timed(fn: object, *args: object, **kw: object) -> tuple[float, float]:
    c, w = time.process_time(), time.perf_counter()
    fn(*args, **kw)  # type: ignore[operator]
    return (time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000


def run(path: str) -> dict[str, float]:
    """One cold process's figures (called in the child)."""
    import graphmem as gm
    from graphmem.timeutil import ManualClock

    rng = random.Random(7)
    out: dict[str, float] = {}
    with gm.open(path, clock=ManualClock("2024-01-01")) as mem:
        out["first_ms"], out["first_cpu_ms"] = _timed(
            mem.context, "what about topic17 and place99?"
        )
        out["second_ms"], out["second_cpu_ms"] = _timed(
            mem.context, "what about topic18 and place98?"
        )
        walls, cpus = [], []
        for _ in range(60):
            q = f"what did we say about {rng.choice(VOCAB)} and {rng.choice(VOCAB)}?"
            w, c = _timed(mem.context, q, budget_tokens=1000)
            walls.append(w)
            cpus.append(c)
    for name, xs in (("", walls), ("cpu_", cpus)):
        out[f"p50_{name}ms"] = statistics.median(xs)
        out[f"p95_{name}ms"] = sorted(xs)[int(0.95 * len(xs)) - 1]
    out["rss_mb"] = rss_mb()
    out["disk_mb"] = disk_mb(path)
    out["load"] = os.getloadavg()[0]
    return out


def main() -> None:
    """Build or reuse the cached store, then time ``--runs`` cold processes on copies."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", default=os.path.join(tempfile.gettempdir(), "gm-200k.kuzu"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--prepared", action="store_true")
    ap.add_argument("--no-file", action="store_true", help="copy no line index file")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(run(args.child)))
        return
    if not os.path.exists(args.cache):
        t = time.perf_counter()
        build(args.cache)
        print(f"# wrote {args.cache} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    if args.prepared:
        import graphmem as gm
        from graphmem.context import prepare

        with gm.open(args.cache) as mem:
            prepare(mem)
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(args.runs):
            copy = os.path.join(tmp, f"run{i}.kuzu")
            for f in glob.glob(args.cache + "*"):
                if not f.endswith("-lock") and not (args.no_file and f.endswith("-lines")):
                    shutil.copy(f, copy + f[len(args.cache) :])
            paths = [os.getcwd(), os.environ.get("PYTHONPATH", "")]
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
            child = [sys.executable, "-m", "benchmarks.line_latency", "--child", copy]
            done = subprocess.run(child, capture_output=True, text=True, env=env, check=True)
            r = json.loads(done.stdout.strip().splitlines()[-1])
            print(
                f"run {i + 1}: first {r['first_ms']:.0f} ms (CPU {r['first_cpu_ms']:.0f}), "
                f"second {r['second_ms']:.0f} ms (CPU {r['second_cpu_ms']:.0f}), "
                f"p50/p95 {r['p50_ms']:.1f}/{r['p95_ms']:.1f} ms "
                f"(CPU {r['p50_cpu_ms']:.1f}/{r['p95_cpu_ms']:.1f}), "
                f"peak RSS {r['rss_mb']:.0f} MB, disk {r['disk_mb']:.0f} MB, load {r['load']:.1f}"
            )


if __name__ == "__main__":
    main()
