"""A bulk session write is whole or absent after SIGKILL (docs/concepts/storage.md#durability).

A child process (tests/session_crash_child.py) writes batches of 70 new sessions plus a
rewrite of one existing session, one ``add_sessions`` call each, and is killed at random
moments. After each kill the store must hold whole batches only: every session of a batch
with its mentions and lines, and the shared session as the newest stored batch wrote it.
"""

from __future__ import annotations

import os
import random
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import graphmem as gm
from graphmem.check import check
from graphmem.store import open_store

sys.path.insert(0, str(Path(__file__).parent))
import session_crash_child as child  # noqa: E402

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")

CHILD = str(Path(__file__).with_name("session_crash_child.py"))
ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


def _run(path: str, start: int, rng: random.Random) -> list[int]:
    env = {**os.environ, "GRAPHMEM_ENGINE": ENGINE}
    proc = subprocess.Popen(
        [sys.executable, CHILD, path, str(start)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None
    try:
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "the child did not open the store within 60 s"
        time.sleep(rng.uniform(0.05, 1.5))
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == -signal.SIGKILL, err.decode(errors="replace")
    return [int(x) for x in out.decode().split("\n")[:-1] if x.isdigit()]


def _verify(path: str, reported: set[int]) -> int:
    """Check that the store holds whole batches 0..m; return m (-1: none)."""
    store = open_store(path, engine=ENGINE, read_only=True)
    with gm.open(store=store) as mem:
        stored = {s.id: s for s in mem.sessions()}
        counts = store.line_counts()
        report = check(mem)
    batches = {int(sid[1:].split("-")[0]) for sid in stored if sid.startswith("b")}
    top = max(batches, default=-1)
    assert batches == set(range(top + 1)), f"batches {sorted(batches)} are not a prefix"
    assert reported <= batches, f"reported {sorted(reported - batches)} but not stored"
    for n in batches:
        for i in range(child.PER_BATCH):
            s = stored.get(f"b{n}-{i}")
            assert s is not None, f"batch {n} lost session {i}: a torn write"
            assert s.mentions == {f"topic-{n}-{i % 3}": 1, "common": 2}, (n, i, s.mentions)
            assert counts.get(s.id) == 2, f"session {s.id} has {counts.get(s.id)} lines"
    if top >= 0:
        shared = stored["shared"]
        assert shared.text == child.shared_text(top), "the shared session is not batch top's"
        assert shared.mentions == {f"shared-topic-{top}": 1}
        assert counts.get("shared") == 2
        with gm.open(path, engine=ENGINE, read_only=True) as mem:
            found = mem.search("rewrote", kinds=("line",), known_at=child.batch_time(top))
            assert found[0].id == "shared#1"
    else:
        assert "shared" not in stored
    assert report.ok, report.format()
    return top


@pytest.mark.slow
@pytest.mark.long
def test_bulk_session_write_survives_sigkill(db_path: str) -> None:
    rng = random.Random(11)
    reported: set[int] = set()
    last = -1
    rounds = 6
    for _ in range(rounds):
        got = _run(db_path, last + 1, rng)
        reported |= set(got)
        last = _verify(db_path, reported)
    assert last >= 1, "no batch committed: the kills came too early to test anything"
