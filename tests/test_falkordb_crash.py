"""Crash tests of the FalkorDB store: no torn change set when the client or the server dies.

A child process (this file run as a script) applies numbered change sets: write ``i`` closes
version ``i - 1``, inserts version ``i`` with :data:`WIDTH` side versions, a session with its
mention and lines, an audit record and ``meta n = i``, and prints ``i`` once ``apply``
returned. After a SIGKILL of the child (or of the server, restarted from its AOF) every write
must be whole or absent: exactly writes ``0..n`` are there, each complete.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import time

import pytest

# Crash tests kill a client or a FalkorDB server: the slow family (.ci/run).
pytestmark = pytest.mark.slow

UTC = dt.timezone.utc
T0 = dt.datetime(2024, 1, 1, tzinfo=UTC)
WIDTH = 40  # side versions per write: makes each write's query big enough to be cut


def _t(i: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=i)


def _changes(i: int):  # type: ignore[no-untyped-def]
    from graphmem.models import Fact, Session
    from graphmem.store.base import ChangeSet

    def fact(fid: str, obj: str) -> Fact:
        return Fact(
            id=fid, subject="Ann", predicate="works_at", object=obj,
            valid_from=_t(i), recorded_at=_t(i),
        )  # fmt: skip

    inserts = [("ann", f"org{i}", fact(f"f{i}", f"Org {i}"))]
    inserts += [("ann", f"x{i}_{k}", fact(f"f{i}_{k}", f"X {i} {k}")) for k in range(WIDTH)]
    closes = [("ann", f"f{i - 1}", f"f{i}", "superseded")] if i else []
    text = "\n".join(f"Ann: line {k} of write {i}" for k in range(5))
    return ChangeSet(
        at=_t(i),
        closes=closes,
        inserts=inserts,
        sessions=[(Session(id=f"s{i}", started_at=_t(i), text=text), {"ann": 1})],
        audit=[(f"a{i}", "write", "{}")],
        meta={"n": str(i)},
    )


def child(url: str, start: int, count: int, chunk: int | None) -> None:
    """Apply writes ``start .. start+count-1``, printing each once acknowledged."""
    from graphmem.store.falkordb import FalkorStore

    store = FalkorStore(url, chunk_rows=chunk)
    for i in range(start, start + count):
        store.apply(_changes(i))
        print(i, flush=True)


def check_whole(url: str) -> int:
    """Assert writes 0..n are all there and whole, nothing of later ones; return n (-1: none)."""
    from graphmem.store import open_store

    store = open_store(url)
    try:
        value = store.get_meta("n")
        n = -1 if value is None else int(value)
        counts = store.content_counts()
        assert counts["facts"] == (n + 1) * (WIDTH + 1)
        assert counts["sessions"] == n + 1
        assert counts["audit"] == n + 1
        assert store.counts()["SessionLine"] == 5 * (n + 1)
        assert store.counts()["MENTIONS"] == n + 1
        if n >= 0:
            assert store.max_system_time() == _t(n)
            current = store.current_versions(["ann"])["ann"]
            assert {f.id for f in current if not f.id.count("_")} == {f"f{n}"}
            closed = [f for f in store.query_facts(subject_id="ann") if f.expired_at]
            assert sorted(f.id for f in closed) == sorted(f"f{i}" for i in range(n))
        assert store.loose_mentions() == 0
        return n
    finally:
        store.close()


def _spawn(url: str, start: int, count: int, chunk: int | None = None) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    args = [sys.executable, __file__, url, str(start), str(count), str(chunk or 0)]
    return subprocess.Popen(args, stdout=subprocess.PIPE, text=True, env=env)  # noqa: S603


def _read_acks(proc: subprocess.Popen[str], want: int) -> list[int]:
    acks = []
    assert proc.stdout is not None
    while len(acks) < want:
        line = proc.stdout.readline()
        if not line:
            break
        acks.append(int(line))
    return acks


def _rest(proc: subprocess.Popen[str]) -> list[int]:
    assert proc.stdout is not None
    with proc.stdout:
        return [int(x) for x in proc.stdout.read().split()]


def test_kill_client_mid_write(falkordb_url: str) -> None:
    n = -1
    for rnd in range(4):
        proc = _spawn(falkordb_url, n + 1, 10_000)
        acks = _read_acks(proc, 3 + rnd)  # then kill it somewhere inside a later write
        time.sleep(0.003 * (rnd + 1))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        acks += _rest(proc)
        found = check_whole(falkordb_url)
        assert acks, "the child wrote nothing"
        assert max(acks) <= found <= max(acks) + 1  # the write in flight: whole or absent
        n = found
    assert n >= 4


def test_kill_client_mid_staged_write(falkordb_url: str) -> None:
    from graphmem.store import open_store
    from graphmem.store.falkordb import FalkorStore, writes

    proc = _spawn(falkordb_url, 0, 1)
    proc.wait()
    assert _rest(proc) == [0]
    # Chunks of 3 rows: one write is about 40 queries on a staging graph; kill it mid-way.
    proc = _spawn(falkordb_url, 1, 10_000, chunk=3)
    time.sleep(1.5)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    acks = _rest(proc)
    n = check_whole(falkordb_url)
    assert max([0, *acks]) <= n <= max([0, *acks]) + 1
    store = open_store(falkordb_url)
    graph = store.graph
    names = store.executor.connection().command("GRAPH.LIST")
    staging = [x for x in names if x.startswith(graph + writes.STAGING)]
    store.close()
    FalkorStore(falkordb_url, staging_max_age=-1).close()  # removes the crashed write's graph
    store = open_store(falkordb_url)
    names = store.executor.connection().command("GRAPH.LIST")
    left = [x for x in names if x.startswith(graph + writes.STAGING)]
    store.close()
    assert left == []
    assert len(staging) <= 1
    assert check_whole(falkordb_url) == n


def test_kill_server_mid_write() -> None:
    from graphmem.store.falkordb.server import LocalServer

    server = LocalServer().start()
    url = f"{server.url}/crash?timeout=5"
    try:
        n = -1
        for rnd in range(3):
            proc = _spawn(url, n + 1, 10_000)
            acks = _read_acks(proc, 3 + rnd)
            time.sleep(0.002 * (rnd + 1))
            server.kill()  # SIGKILL: the AOF (appendfsync always) is all that is left
            proc.wait(timeout=60)  # the child fails: StoreError
            acks += _rest(proc)
            server.restart()
            found = check_whole(url)
            assert max(acks) <= found <= max(acks) + 1  # acknowledged writes survived
            n = found
        assert n >= 4
    finally:
        server.stop()


if __name__ == "__main__":
    child(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]) or None)
