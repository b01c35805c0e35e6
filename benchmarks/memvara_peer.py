"""memvara as a peer: the same data and measures as graphmem, in memvara's own virtual env.

memvara (PyPI ``memvara``, Apache-2.0) is a bi-temporal agent memory on SQLite with LLM-free
writes. It is not a graphmem dependency, so it lives in ``benchmarks/.venv-memvara`` (see
:data:`SETUP`) and runs in :mod:`benchmarks.memvara_worker`, a script started with that
env's Python. This module is the graphmem side: it writes the generated rows (benchmarks/data.py,
seed 42), the query points and the single writes to a JSON file, runs the worker twice (ingest,
then serving on the store reopened in a fresh process, as graphmem's rows do) and renders the
side-by-side table of docs/benchmarks.md#memvara.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venv-memvara"
VERSION = "0.21.0"
SETUP = (
    f"memvara's virtual env is missing ({VENV}). Create it with:\n"
    f"    python -m venv {VENV}\n"
    f"    {VENV}/bin/pip install memvara=={VERSION} pysqlite3-binary"
)


def venv_python(venv: Path = VENV) -> Path | None:
    """Return the Python of memvara's env, or None when the env (or memvara in it) is missing."""
    python = venv / "bin" / "python"
    if not python.exists() or not list(venv.glob("lib/python*/site-packages/memvara")):
        return None
    return python


def iso(t: dt.datetime | None) -> str | None:
    return None if t is None else t.astimezone(dt.timezone.utc).isoformat()


def claims(rows: Iterable[Mapping[str, Any]]) -> list[list[str | None]]:
    """Return the ``add_facts`` rows as memvara claims ``[subject, predicate, object,
    valid_from, valid_to]`` (ISO-8601 UTC; ``valid_to`` None when open)."""
    return [
        [
            str(r["subject"]),
            str(r["predicate"]),
            str(r["object"]),
            iso(r["valid_from"]),
            iso(r.get("valid_to")),
        ]
        for r in rows
    ]


def workload(n: int, q: int, t0: dt.datetime) -> dict[str, Any]:
    """Return everything the worker needs, drawn exactly as for the graphmem rows."""
    from benchmarks import data
    from benchmarks.run import probes

    return {
        "facts": claims(data.facts(n)),
        "predicates": data.predicates(),
        "recorded_at": iso(t0),
        "known_at": iso(t0 + dt.timedelta(seconds=1)),
        "probes": [[s, p, iso(v)] for s, p, v in probes(n, q)],
        # 20 more than measured: the warm-up calls write too, as in benchmarks/run.py.
        "writes": claims(data.single_writes(n, q + 20)),
        "texts": data.remember_texts(110),
    }


def _run(python: Path, mode: str, spec: str, db: str) -> dict[str, Any]:
    cmd = [str(python), str(HERE / "memvara_worker.py"), mode, spec, db]
    env = {**os.environ, "PYTHONPATH": ""}  # nothing of graphmem's env in memvara's process
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env, check=False)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RESULT ")), None)
    if proc.returncode or line is None:
        raise SystemExit(f"memvara worker ({mode}) failed ({proc.returncode})")
    result: dict[str, Any] = json.loads(line[len("RESULT ") :])
    return result


def work_memvara(n: int, q: int, tmp: str, t0: dt.datetime) -> dict[str, Any]:
    """Run memvara on ``n`` facts: ingest in one process, serve in another."""
    python = venv_python()
    if python is None:
        raise SystemExit(SETUP)
    spec = os.path.join(tmp, "memvara-input.json")
    with open(spec, "w") as f:
        json.dump(workload(n, q, t0), f)
    db = os.path.join(tmp, "memvara.db")
    out: dict[str, Any] = {"system": "memvara", "facts": n}
    out.update(_run(python, "ingest", spec, db))
    out["ingest_facts_per_s"] = round(n / out["ingest_s"])
    served = _run(python, "serve", spec, db)
    out.update({k: v for k, v in served.items() if k != "peak_rss_mb"})
    out["serve_peak_rss_mb"] = served["peak_rss_mb"]
    out["peak_rss_mb"] = max(out["ingest_peak_rss_mb"], served["peak_rss_mb"])
    return out


# -- the table -------------------------------------------------------------------------------

#: (column, result key): the measures memvara has an equivalent for; "–" where a system has not.
COLUMNS: Sequence[tuple[str, str]] = (
    ("add p50/p95 ms", "add_fact"),
    ("as-of p50/p95 ms", "asof_query"),
    ("as-of warmed p50/p95 ms", "asof_warmed"),
    ("current of subject p50/p95 ms", "current_of_subject"),
    ("history of (subject, predicate) p50/p95 ms", "history_slot"),
    ("search p50/p95 ms", "search"),
    ("neighborhood(2) p50/p95 ms", "neighborhood_2hop"),
    ("text remember p50/p95 ms", "remember"),
)


def side_by_side(results: Iterable[dict[str, Any]]) -> list[str]:
    """Return the markdown table of docs/benchmarks.md#memvara (empty without a memvara row)."""
    from benchmarks.run import fmt_lat, fmt_rss

    kept = [
        r
        for r in results
        if "ingest_s" in r and r["system"].startswith(("graphmem-", "copy-", "sqlite", "memvara"))
    ]
    if not any(r["system"] == "memvara" for r in kept):
        return []
    head = ["system", "facts", "ingest s (facts/s)", "versions"]
    head += [c for c, _ in COLUMNS] + ["peak RSS MB (ingest / serve)", "disk MB"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in sorted(kept, key=lambda r: r["facts"]):
        cells = [
            r["system"],
            f"{r['facts']:,}",
            f"{r['ingest_s']} ({r['ingest_facts_per_s']:,})",
            f"{r.get('versions', 0):,}",
        ]
        cells += [fmt_lat(r, key) for _, key in COLUMNS]
        cells += [fmt_rss(r), str(r.get("disk_mb", "–"))]
        lines.append("| " + " | ".join(cells) + " |")
    return lines
