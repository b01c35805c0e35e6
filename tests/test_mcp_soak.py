"""Soak: a real stdio ``graphmem mcp`` holds flat memory over many mixed tool calls.

The server grew by about 180 KB a tool call (1.3 GB after 5,000 calls): Kuzu 0.11.3 holds
what a commit changed in memory until a checkpoint, and the log reached the 16 MiB threshold
only after thousands of calls (docs/concepts/storage.md#durability). The bound: at most 100 MB
of growth over 1,500 mixed calls after a warm-up.
"""

from __future__ import annotations

import os
import sys

import pytest

pytest.importorskip("mcp")

from mcp_tools import RawServer  # noqa: E402

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
WARM_UP = 200
CALLS = 1500
BOUND_MB = 100


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _call(server: RawServer, i: int) -> None:
    subject = f"svc{i % 50}"
    kind = i % 7
    if kind == 0:
        reply = server.call("remember", subject=subject, predicate="runs_on", object=f"L{i % 13}")
    elif kind == 1:
        reply = server.call("context", query=f"what does {subject} run on?")
    elif kind == 2:
        reply = server.call("remember", text=f"We migrated {subject} to Lang{i % 11}.")
    elif kind == 3:
        reply = server.call("facts_as_of", subject=subject)
    elif kind == 4:
        reply = server.call("history", subject=subject, include_expired=True)
    elif kind == 5:
        reply = server.call(
            "add_session",
            text=f"Talked about {subject} and Kafka. Alice works at Acme{i % 5}.",
            started_at="2026-01-01",
        )
    else:
        reply = server.call("hot_topics")
    assert reply["isError"] is False, reply


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_server_memory_stays_flat(db_path: str) -> None:
    server = RawServer(db_path, ENGINE).start()
    try:
        for i in range(WARM_UP):
            _call(server, i)
        before = _rss_mb(server.proc.pid)
        for i in range(WARM_UP, WARM_UP + CALLS):
            _call(server, i)
        after = _rss_mb(server.proc.pid)
    finally:
        server.close()
    print(f"RSS {before:.0f} MB after warm-up, {after:.0f} MB after {CALLS} calls")
    assert after - before <= BOUND_MB, (before, after)
