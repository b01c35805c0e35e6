"""Many writers, one truth: N = 2..8 processes supersede one subject on a FalkorDB server.

Each round, every writer process (tests/race_child.py) calls ``add_fact("<subject>",
"works_at", ...)`` at the same wall-clock instant against the session's server. With one value
for all writers, exactly one supersede happens (the others are re-assertions): one current
version and one past version. With a value per writer, the writes apply one after another: a
chain in system time where each acknowledged version is current or closed by the next one.
Either way every acknowledged write is applied or superseded in order, ``check`` is clean and
``history``/``export`` read every row (docs/concurrency.md#many-writers-on-a-server).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

import graphmem as gm
from graphmem.export import export_memory

pytestmark = pytest.mark.slow

CHILD = str(Path(__file__).with_name("race_child.py"))
ROUNDS_SAME = 3
ROUNDS_CHAIN = 2
NOW = dt.datetime.now(dt.timezone.utc)


class Writers:
    """N writer processes on one URL."""

    def __init__(self, url: str, n: int) -> None:
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parent.parent)
        env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
        self.procs = [
            subprocess.Popen(  # noqa: S603
                [sys.executable, CHILD, url],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                text=True,
                env=env,
            )
            for _ in range(n)
        ]
        for p in self.procs:
            assert p.stdout is not None
            assert p.stdout.readline().strip() == "ready"

    def race(self, subject: str, values: list[str]) -> list[dict[str, Any]]:
        at = time.time() + 0.3
        for p, value in zip(self.procs, values, strict=True):
            assert p.stdin is not None
            job = {"subject": subject, "value": value, "valid_from": "2024-01-01", "at": at}
            p.stdin.write(json.dumps(job) + "\n")
            p.stdin.flush()
        out = []
        for p in self.procs:
            assert p.stdout is not None
            out.append(json.loads(p.stdout.readline()))
        return out

    def close(self) -> None:
        for p in self.procs:
            assert p.stdin is not None
            p.stdin.close()
        for p in self.procs:
            p.wait(timeout=60)
            assert p.stdout is not None
            p.stdout.close()


def _round(mem: Any, writers: Writers, n: int, *, chain: bool) -> None:
    subject = f"alice_{uuid.uuid4().hex[:8]}"
    mem.add_fact(subject, "works_at", "Acme", valid_from="2020-01-01")
    values = [f"Co{i}" for i in range(n)] if chain else ["Globex"] * n
    results = writers.race(subject, values)
    assert not [r for r in results if "error" in r], results
    now = mem.facts(subject=subject)
    past = mem.facts(subject=subject, valid_at="2022-06-01")
    assert len(now) == 1, (now, results)
    assert [f.object for f in past] == ["Acme"], (past, results)
    history = mem.history(subject, include_expired=True)
    by_id = {f.id: f for f in history}
    acked = sorted(results, key=lambda r: r["recorded_at"])
    if not chain:
        # One supersede, the rest re-assert it: every writer acknowledges the one current id.
        assert sorted(r["decision"] for r in results) == ["noop"] * (n - 1) + ["supersede"]
        assert {r["fid"] for r in results} == {now[0].id}
        assert now[0].object == "Globex"
        # Acme: the original (closed) and its bounded copy; Globex once.
        assert sorted(f.object for f in history) == ["Acme", "Acme", "Globex"]
        return
    # A chain: each write superseded the one before it, in one system-time order.
    assert [r["decision"] for r in results] == ["supersede"] * n
    times = [r["recorded_at"] for r in acked]
    assert len(set(times)) == n, times  # one time per write, strictly increasing
    for before, after in zip(acked, acked[1:], strict=False):
        old = by_id[before["fid"]]
        assert old.expired_at is not None
        assert old.superseded_by == after["fid"]
        assert old.expired_at.isoformat() == after["recorded_at"]
        assert after["closed"] == [before["fid"]]
    assert now[0].id == acked[-1]["fid"]
    for f in history:
        assert f.expired_at is None or f.expired_at >= f.recorded_at


@pytest.mark.parametrize("n", range(2, 9))
def test_concurrent_writers_keep_one_truth(falkordb_url: str, n: int, tmp_path: Path) -> None:
    mem = gm.open(falkordb_url)
    writers = Writers(falkordb_url, n)
    try:
        for _ in range(ROUNDS_SAME):
            _round(mem, writers, n, chain=False)
        for _ in range(ROUNDS_CHAIN):
            _round(mem, writers, n, chain=True)
        report = mem.check()
        assert report.ok, report.problems
        export_memory(mem, tmp_path / "backup.jsonl")
    finally:
        writers.close()
        store = mem._kernel.store
        store.executor.connection().command("GRAPH.DELETE", store.graph)
        mem.close()
