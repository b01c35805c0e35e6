"""The append workloads: appending in batches, streaming bulk ingest, session text, the demo.

Each ``work_*`` runs in its own process (called by :mod:`benchmarks.run`):

- ``append-{kuzu,ladybug}``: graphmem on disk. A base store of ``n`` facts (one ``add_facts``
  call), then the batches of :data:`benchmarks.run.APPEND_PLAN` (5 calls of 1k, 3 of 10k, 10
  of 100), one ``add_facts`` call each at a later system time: new facts about the stored
  subjects, with supersessions and no-ops decided against the store.
- ``append-copy-{kuzu,ladybug}``: the engine alone. The same base as one ``COPY``, then every
  batch (each input row one edge, no decisions) as one ``COPY`` in a transaction of its own,
  from a prebuilt Arrow table: the limit of an append.
- ``append-sqlite``: the peer (benchmarks/sqlite_peer.py) doing the same writes.
- ``stream-{kuzu,ladybug}``: ``Memory.ingest_facts`` of ``n`` facts from a generator in
  chunks of 100k with results off: time and peak RSS.
- ``text-{kuzu,ladybug}``: ``add_sessions`` of 1,000 generated dialogue sessions of 20 turns,
  in calls of 100, their text read by the text pipeline into the store: sentences per second.
- ``demo-{kuzu,ladybug}``: ``python -m graphmem demo`` end to end, a fresh process.
- ``calls-{kuzu,ladybug}``: ``n`` facts as ``add_facts`` calls of 10k from an empty store;
  ``calls-copy-{kuzu,ladybug}``: the same batches as raw ``COPY``s into a minimal rel table
  (docs/benchmarks.md#appending-in-10k-calls).
"""

from __future__ import annotations

import datetime as dt
import os
import statistics
import subprocess
import sys
import time
from typing import Any

from benchmarks.measure import disk_mb, note, rss_mb

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 1, 1, tzinfo=UTC)


def batches(n: int) -> list[tuple[int, list[dict[str, object]]]]:
    """Return the append batches for a store of ``n`` facts: ``(size, rows)`` in order."""
    from benchmarks import data
    from benchmarks.run import APPEND_PLAN

    out = []
    k = 0
    for size, calls in APPEND_PLAN:
        for _ in range(calls):
            out.append((size, list(data.facts(size, seed=1000 + k, entities=max(n // 10, 10)))))
            k += 1
    return out


def summarize(times: list[tuple[int, float]]) -> dict[str, Any]:
    """Per batch size: calls, total seconds, facts/s, median seconds per call."""
    out: dict[str, Any] = {}
    for size in sorted({s for s, _ in times}):
        ts = [t for s, t in times if s == size]
        out[str(size)] = {
            "calls": len(ts),
            "seconds": round(sum(ts), 3),
            "facts_per_s": round(size * len(ts) / sum(ts)),
            "p50_call_s": round(statistics.median(ts), 3),
        }
    return out


def work_append(engine: str, n: int, tmp: str) -> dict[str, Any]:
    import graphmem as gm
    from benchmarks import data
    from graphmem.timeutil import ManualClock

    out: dict[str, Any] = {"system": f"append-{engine}", "facts": n}
    path = os.path.join(tmp, f"append-{engine}.db")
    clock = ManualClock(T0 - dt.timedelta(seconds=1))
    plan = batches(n)
    with gm.open(path, engine=engine, clock=clock) as mem:
        for p, c in data.predicates():
            mem.define_predicate(p, cardinality=c)
        clock.set(T0)
        t = time.perf_counter()
        mem.add_facts(list(data.facts(n)))
        out["base_s"] = round(time.perf_counter() - t, 2)
        note("base", out["base_s"], "s")
    times: list[tuple[int, float]] = []
    decisions: dict[str, int] = {}
    with gm.open(path, engine=engine, clock=clock) as mem:  # reopened, as an agent would
        for k, (size, rows) in enumerate(plan):
            clock.set(T0 + dt.timedelta(seconds=k + 1))
            t = time.perf_counter()
            results = mem.add_facts(rows)
            times.append((size, time.perf_counter() - t))
            for r in results:
                decisions[r.decision.value] = decisions.get(r.decision.value, 0) + 1
            note(f"append {size}", round(times[-1][1], 3), "s")
        out["versions"] = mem.count_versions()
    out["append"] = summarize(times)
    out["decisions"] = decisions
    out["peak_rss_mb"] = round(rss_mb())
    return out


def _edges(rows: list[dict[str, object]], start: int, at: dt.datetime) -> Any:
    """The rows as a ``COPY Fact`` Arrow table (every row one edge), as benchmarks.run does."""
    import pyarrow as pa

    from graphmem.normalize import entity_key
    from graphmem.store.kuzu.schema import FACT_COLUMNS

    n = len(rows)
    ts = pa.timestamp("us")
    cols: dict[str, Any] = {
        "from": pa.array([entity_key(str(r["subject"])) for r in rows]),
        "to": pa.array([entity_key(str(r["object"])) for r in rows]),
    }
    for c, typ in FACT_COLUMNS:
        if c == "fid":
            cols[c] = pa.array([f"f{start + i:016x}" for i in range(n)])
        elif c in ("predicate", "object"):
            cols[c] = pa.array([str(r[c]) for r in rows])
        elif c in ("valid_from", "valid_to"):
            vals = [r.get(c) for r in rows]
            cols[c] = pa.array(
                [v.replace(tzinfo=None) if isinstance(v, dt.datetime) else None for v in vals], ts
            )
        elif c == "recorded_at":
            cols[c] = pa.array([at.replace(tzinfo=None)] * n, ts)
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
    return pa.table(cols)


def work_append_copy(engine: str, n: int, tmp: str) -> dict[str, Any]:
    import importlib

    import pyarrow as pa

    from benchmarks import data
    from graphmem.normalize import entity_key
    from graphmem.store.kuzu.schema import DDL

    out: dict[str, Any] = {"system": f"append-copy-{engine}", "facts": n}
    base = list(data.facts(n))
    ents = sorted({entity_key(f"E{i}") for i in range(max(n // 10, 10))})
    nodes = pa.table(
        {
            "id": ents,
            "name": ents,
            "kind": ["entity"] * len(ents),
            "aliases": pa.array([[]] * len(ents), pa.list_(pa.string())),
        }
    )
    base_edges = _edges(base, 0, T0)
    del base
    plan = batches(n)
    tables = [
        (size, _edges(rows, n + 1_000_000 * (k + 1), T0 + dt.timedelta(seconds=k + 1)))
        for k, (size, rows) in enumerate(plan)
    ]
    mod = importlib.import_module(engine)
    path = os.path.join(tmp, f"append-copy-{engine}.db")
    db = mod.Database(path)
    conn = mod.Connection(db)
    for stmt in DDL:
        conn.execute(stmt)
    conn.execute("COPY Entity FROM $t", {"t": nodes})
    t = time.perf_counter()
    conn.execute("COPY Fact FROM $t", {"t": base_edges})
    out["base_s"] = round(time.perf_counter() - t, 2)
    conn.close()
    db.close()
    db = mod.Database(path)  # reopened, as graphmem's appends are
    conn = mod.Connection(db)
    times: list[tuple[int, float]] = []
    for size, table in tables:
        t = time.perf_counter()
        conn.execute("BEGIN TRANSACTION")
        conn.execute("COPY Fact FROM $t", {"t": table})
        conn.execute("COMMIT")
        times.append((size, time.perf_counter() - t))
        note(f"copy {size}", round(times[-1][1], 3), "s")
    out["append"] = summarize(times)
    out["versions"] = n + sum(s for s, _ in tables)
    conn.close()
    db.close()
    out["peak_rss_mb"] = round(rss_mb())
    return out


def work_calls(engine: str, n: int, tmp: str) -> dict[str, Any]:
    """``n`` facts as ``add_facts`` calls of 10k from an empty store (``data.call_batches``)."""
    import graphmem as gm
    from benchmarks import data
    from graphmem.timeutil import ManualClock

    out: dict[str, Any] = {"system": f"calls-{engine}", "facts": n}
    plan = data.call_batches(n)
    clock = ManualClock(T0)
    times = []
    with gm.open(os.path.join(tmp, f"calls-{engine}.db"), engine=engine, clock=clock) as mem:
        for p, c in data.CALL_PREDICATES:
            mem.define_predicate(p, cardinality=c)
        for k, rows in enumerate(plan):
            clock.set(T0 + dt.timedelta(seconds=k + 1))
            t = time.perf_counter()
            mem.add_facts(rows)
            times.append(time.perf_counter() - t)
            note(f"call {k + 1}", round(times[-1], 2), "s")
        out["versions"] = mem.count_versions()
    out["seconds"] = round(sum(times), 2)
    out["calls"] = len(times)
    out["last_call_s"] = round(times[-1], 2)
    out["disk_mb"] = round(disk_mb(os.path.join(tmp, f"calls-{engine}.db")), 1)
    out["peak_rss_mb"] = round(rss_mb())
    return out


def work_calls_copy(engine: str, n: int, tmp: str) -> dict[str, Any]:
    """The engine alone on the same batches: each one ``COPY`` into the least a bitemporal edge
    needs (an id, the predicate, both intervals), from prebuilt Arrow tables."""
    import importlib

    import pyarrow as pa

    from benchmarks import data

    out: dict[str, Any] = {"system": f"calls-copy-{engine}", "facts": n}
    plan = data.call_batches(n)
    ts = pa.timestamp("us")
    tables = [
        pa.table(
            {
                "from": [str(r["subject"]) for r in rows],
                "to": [str(r["object"]) for r in rows],
                "id": [f"f{k}_{i}" for i in range(len(rows))],
                "predicate": [str(r["predicate"]) for r in rows],
                "vf": pa.array([r["valid_from"].replace(tzinfo=None) for r in rows], ts),  # type: ignore[attr-defined]
                "vt": pa.nulls(len(rows), ts),
                "rf": pa.array([T0.replace(tzinfo=None)] * len(rows), ts),
                "rt": pa.nulls(len(rows), ts),
            }
        )
        for k, rows in enumerate(plan)
    ]
    mod = importlib.import_module(engine)
    path = os.path.join(tmp, f"calls-copy-{engine}.db")
    db = mod.Database(path)
    conn = mod.Connection(db)
    conn.execute("CREATE NODE TABLE E(id STRING, PRIMARY KEY(id))")
    conn.execute(
        "CREATE REL TABLE F(FROM E TO E, id STRING, predicate STRING, vf TIMESTAMP, "
        "vt TIMESTAMP, rf TIMESTAMP, rt TIMESTAMP)"
    )
    conn.execute("COPY E FROM $t", {"t": pa.table({"id": [f"E{i}" for i in range(n // 10)]})})
    times = []
    for table in tables:
        t = time.perf_counter()
        conn.execute("COPY F FROM $t", {"t": table})
        times.append(time.perf_counter() - t)
    conn.close()
    db.close()
    out["seconds"] = round(sum(times), 2)
    out["calls"] = len(times)
    out["last_call_s"] = round(times[-1], 2)
    out["disk_mb"] = round(disk_mb(path), 1)
    out["peak_rss_mb"] = round(rss_mb())
    return out


def work_append_sqlite(n: int, tmp: str) -> dict[str, Any]:
    from benchmarks import data
    from benchmarks.sqlite_peer import SqlitePeer, single_valued

    out: dict[str, Any] = {"system": "append-sqlite", "facts": n}
    path = os.path.join(tmp, "append.sqlite")
    one = single_valued(data.predicates())
    peer = SqlitePeer(path, one)
    t = time.perf_counter()
    peer.add_facts(list(data.facts(n)), T0)
    out["base_s"] = round(time.perf_counter() - t, 2)
    peer.close()
    peer = SqlitePeer(path, one)
    times: list[tuple[int, float]] = []
    for k, (size, rows) in enumerate(batches(n)):
        t = time.perf_counter()
        peer.add_facts(rows, T0 + dt.timedelta(seconds=k + 1))
        times.append((size, time.perf_counter() - t))
    out["append"] = summarize(times)
    out["versions"] = peer.count()
    peer.close()
    out["peak_rss_mb"] = round(rss_mb())
    return out


def work_stream(engine: str, n: int, tmp: str) -> dict[str, Any]:
    import graphmem as gm
    from benchmarks import data
    from graphmem.timeutil import ManualClock

    out: dict[str, Any] = {"system": f"stream-{engine}", "facts": n}
    path = os.path.join(tmp, f"stream-{engine}.db")
    clock = ManualClock(T0)
    out["rss_before_mb"] = round(rss_mb())
    with gm.open(path, engine=engine, clock=clock) as mem:
        for p, c in data.predicates():
            mem.define_predicate(p, cardinality=c)
        t = time.perf_counter()
        report = mem.ingest_facts(
            data.facts(n),
            progress=lambda r: note("chunk", r.chunks, round(r.seconds, 1), "s", round(rss_mb())),
        )
        out["ingest_s"] = round(time.perf_counter() - t, 2)
        out["ingest_facts_per_s"] = round(n / out["ingest_s"])
        out["chunks"] = report.chunks
        out["decisions"] = report.decisions
        out["versions"] = mem.count_versions()
    out["peak_rss_mb"] = round(rss_mb())
    return out


def dialogue(i: int, turns: int) -> str:
    """A generated session: ``turns`` lines, each one or two sentences of everyday facts."""
    import random

    rng = random.Random(i)
    people = ["Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi"]
    cities = ["Paris", "Berlin", "Lisbon", "Oslo", "Madrid", "Rome", "Vienna", "Prague"]
    firms = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark Industries"]
    lines = []
    for _ in range(turns):
        who = rng.choice(people)
        kind = rng.randrange(4)
        if kind == 0:
            text = f"{who} lives in {rng.choice(cities)}."
        elif kind == 1:
            text = f"{who} works at {rng.choice(firms)}. The weather was nice today."
        elif kind == 2:
            text = f"{who} moved to {rng.choice(cities)} last year."
        else:
            text = f"I talked to {who} about the trip. We had lunch."
        lines.append(f"{rng.choice(people)}: {text}")
    return "\n".join(lines)


def work_text(engine: str, n: int, tmp: str) -> dict[str, Any]:
    import graphmem as gm
    from graphmem.sessions import add_sessions
    from graphmem.timeutil import ManualClock

    out: dict[str, Any] = {"system": f"text-{engine}", "facts": n}
    sessions = 1_000
    turns = 20
    path = os.path.join(tmp, f"text-{engine}.db")
    clock = ManualClock(T0)
    items = [
        {
            "session_id": f"s{i}",
            "started_at": T0 - dt.timedelta(days=sessions - i),
            "text": dialogue(i, turns),
        }
        for i in range(sessions)
    ]
    sentences = sum(t["text"].count(".") for t in items)
    with gm.open(path, engine=engine, clock=clock) as mem:
        t = time.perf_counter()
        for k in range(0, sessions, 100):
            clock.set(T0 + dt.timedelta(seconds=k))
            add_sessions(mem, items[k : k + 100])
        el = time.perf_counter() - t
        out["versions"] = mem.count_versions()
    out["sessions"] = sessions
    out["sentences"] = sentences
    out["seconds"] = round(el, 2)
    out["sentences_per_s"] = round(sentences / el)
    out["peak_rss_mb"] = round(rss_mb())
    return out


def work_demo(engine: str, tmp: str) -> dict[str, Any]:
    out: dict[str, Any] = {"system": f"demo-{engine}", "facts": 0}
    env = {**os.environ, "GRAPHMEM_ENGINE": engine}
    db = os.path.join(tmp, f"demo-{engine}.db")
    runs = []
    for _ in range(3):
        if os.path.exists(db):
            os.remove(db)
        t = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "graphmem", "--db", db, "demo"],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        runs.append(time.perf_counter() - t)
        if proc.returncode:
            raise SystemExit(f"demo failed: {proc.stderr[-500:]}")
    out["runs_s"] = [round(r, 2) for r in runs]
    out["seconds"] = round(statistics.median(runs), 2)
    return out
