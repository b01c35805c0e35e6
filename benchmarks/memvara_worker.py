"""The memvara side of docs/benchmarks.md#memvara, run with memvara's own Python.

    benchmarks/.venv-memvara/bin/python benchmarks/memvara_worker.py ingest|serve INPUT.json DB

Started by benchmarks/memvara_peer.py, which writes INPUT.json; prints one ``RESULT {json}``
line. It runs in another env, without graphmem: of this repository it imports only the
standard-library helpers of ``benchmarks/measure.py`` (the same latency measure). memvara needs
SQLite >= 3.42, so the pysqlite3 wheel stands in for the standard sqlite3 module.

The mapping (memvara 0.21.0, its defaults otherwise: no LLM, the offline hashing embedder):

- the 50 predicates: ``PredicateSpec(name, cardinality, object_type=("entity",), graph=True)``
  (single-valued ones ``Cardinality.ONE``; ``graph`` makes them walkable for ``neighborhood``);
- bulk ingest: ``remember(s, p, o, valid_from=, valid_to=, recorded_at=T0)`` per row inside
  one ``store.batch()`` (one transaction; memvara has no bulk call);
- single add: ``remember(..., recorded_at=)``, one commit each;
- point as-of: ``history(s, p, valid_at=, known_at=)`` (the slot at both instants);
- current of subject: ``neighborhood(s, depth=1)`` (memvara has no facts-of-a-subject read;
  it also walks incoming edges and ranks paths);
- history: ``history(s, p)`` (one slot; memvara has no whole-subject timeline);
- search: ``search(text, k=10, query_rewrite=False)`` (BM25 fused with hashing vectors);
- text remember: ``add(text)`` (rule-based extraction; stamps recorded time with the wall clock).
"""

from __future__ import annotations

import datetime as dt
import itertools
import json
import os
import sys
import time
import warnings
from typing import Any

import pysqlite3

sys.modules["sqlite3"] = pysqlite3
warnings.simplefilter("ignore")  # the warning that no LLM extracts: that is the setup here

from memvara import Cardinality, Memvara, NullLLM, PredicateRegistry, PredicateSpec  # noqa: E402
from memvara.schema import BUILTIN_PREDICATES  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchmarks.measure import disk_mb, lat, note, rss_mb  # noqa: E402


def when(text: str | None) -> dt.datetime | None:
    return None if text is None else dt.datetime.fromisoformat(text)


def open_memory(db: str, predicates: list[list[str]]) -> Memvara:
    specs = tuple(
        PredicateSpec(
            name,
            cardinality=Cardinality.ONE if card == "one" else Cardinality.MANY,
            object_type=("entity",),
            graph=True,
        )
        for name, card in predicates
    )
    return Memvara(db, registry=PredicateRegistry(BUILTIN_PREDICATES + specs), llm=NullLLM())


def ingest(spec: dict[str, Any], db: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    mem = open_memory(db, spec["predicates"])
    at = when(spec["recorded_at"])
    counts = {"added": 0, "closed": 0, "reinforced": 0}
    t = time.perf_counter()
    with mem.store.batch():
        for s, p, o, vf, vt in spec["facts"]:
            r = mem.remember(s, p, o, valid_from=when(vf), valid_to=when(vt), recorded_at=at)
            counts["added"] += len(r.added)
            counts["closed"] += len(r.closed)
            counts["reinforced"] += len(r.reinforced)
    out["ingest_s"] = round(time.perf_counter() - t, 2)
    out["decisions"] = counts
    out["versions"] = mem.stats()["claims"]
    note("ingest", out["ingest_s"], "s", out["versions"], "claims")
    mem.close()
    out["disk_mb"] = round(disk_mb(db), 1)
    out["ingest_peak_rss_mb"] = round(rss_mb())
    return out


def serve(spec: dict[str, Any], db: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    mem = open_memory(db, spec["predicates"])
    k = dt.datetime.fromisoformat(spec["known_at"])
    points = [(s, p, when(v)) for s, p, v in spec["probes"]]
    out["asof_query"] = lat(
        "asof_query", lambda a: mem.history(a[0], a[1], valid_at=a[2], known_at=k), points
    )
    out["current_of_subject"] = lat(
        "current_of_subject", lambda a: mem.neighborhood(a[0], depth=1, k=1000), points
    )
    out["history_slot"] = lat("history_slot", lambda a: mem.history(a[0], a[1]), points)
    out["search"] = lat(
        "search",
        lambda a: mem.search(f"what about {a[0]}?", k=10, query_rewrite=False),
        points,
    )
    few = points[: max(len(points) // 3, 20)]
    out["neighborhood_2hop"] = lat(
        "neighborhood_2hop", lambda a: mem.neighborhood(a[0], depth=2, k=1000), few, 5
    )
    writes = iter(spec["writes"])
    tick = itertools.count(1)

    def one(_: int) -> None:
        s, p, o, vf, vt = next(writes)
        at = k + dt.timedelta(seconds=next(tick))
        mem.remember(s, p, o, valid_from=when(vf), valid_to=when(vt), recorded_at=at)

    out["add_fact"] = lat("add_fact", one, list(range(len(spec["writes"]) - 20)))
    texts = iter(spec["texts"])
    out["remember"] = lat("remember", lambda _: mem.add(next(texts)), list(range(100)), warm=10)
    mem.close()
    out["disk_mb_end"] = round(disk_mb(db), 1)
    out["peak_rss_mb"] = round(rss_mb())
    return out


def main() -> None:
    mode, path, db = sys.argv[1:4]
    with open(path) as f:
        spec = json.load(f)
    result = ingest(spec, db) if mode == "ingest" else serve(spec, db)
    print("RESULT " + json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
