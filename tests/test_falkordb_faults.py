"""FalkorDB faults: look-alike tenants, control characters, timeouts, lost data, loading, URLs.

Each test pins one defect found by an attack run on a real server (the session's
``falkordb_server``, or a :class:`LocalServer` of its own where the test stops it).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

import graphmem as gm
from graphmem.errors import InvalidInput, StoreBusy, StoreError
from graphmem.store.falkordb import FalkorStore, writes
from graphmem.store.falkordb.codec import decode_text, encode_text
from graphmem.store.falkordb.connection import Connection, parse_url
from graphmem.store.falkordb.server import LocalServer
from graphmem.timeutil import ManualClock

# The slow family (.ci/run): they run on a FalkorDB server.
pytestmark = pytest.mark.slow

UTC = dt.timezone.utc


@pytest.fixture
def mem(falkordb_url: str) -> Iterator[Any]:
    m = gm.open(falkordb_url, clock=ManualClock("2026-01-01"))
    try:
        yield m
    finally:
        store = m._kernel.store
        store.executor.connection().command("GRAPH.DELETE", store.graph)
        m.close()


# -- URLs ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "falkordb://h/g#frag",
        "falkordb://h/g#",
        "falkordb://h:6379/team#prod?timeout=1",
    ],
)
def test_url_fragment_refused(url: str) -> None:
    with pytest.raises(InvalidInput, match="fragment"):
        parse_url(url)


@pytest.mark.parametrize("name", ["a.b", "a:b", "a-b", "team::staging::1::x", "a b", "é"])
def test_graph_name_outside_the_alphabet_refused(name: str) -> None:
    with pytest.raises(InvalidInput, match="letters, digits and '_'"):
        parse_url(f"falkordb://h/{name}")


def test_graph_name_alphabet_accepted() -> None:
    assert parse_url("falkordb://h/Team_01").graph == "Team_01"
    assert parse_url("falkordb://h/" + "x" * 128).graph == "x" * 128
    with pytest.raises(InvalidInput):
        parse_url("falkordb://h/" + "x" * 129)


# -- tenancy: staging names ------------------------------------------------------------------------


def test_open_never_deletes_a_look_alike_graph(falkordb_server: Any) -> None:
    # Another tenant whose name looks like a staging graph of 'team' (made outside graphmem,
    # which refuses ':' in graph names) survives every open of 'team', however old it looks.
    team = f"team_{uuid.uuid4().hex[:8]}"
    other = f"{team}{writes.STAGING}1000000000::prod"
    base = FalkorStore(f"{falkordb_server.url}/{team}", staging_max_age=-1)
    base.executor.connection().execute_on(other, "CREATE (:Meta {key: 'tenant'})", None)
    try:
        FalkorStore(f"{falkordb_server.url}/{team}", staging_max_age=-1).close()
        gm.open(f"{falkordb_server.url}/{team}").close()
        assert other in base.executor.connection().command("GRAPH.LIST")
    finally:
        for name in (other, team):
            base.executor.connection().command("GRAPH.DELETE", name)
        base.close()


# -- control characters ----------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["x\x01y", "\x01", "a\x00b\x01c\ue000d", "\ue0002"])
def test_codec_round_trip(value: str) -> None:
    stored = encode_text(value)
    assert "\x01" not in stored
    assert "\x00" not in stored
    assert decode_text(stored) == value


@pytest.mark.parametrize("value", ["x\x01y", "\x01", "a\x01\x01b", "tag\x01\x00\ue000"])
def test_u0001_value_is_stored_exactly(mem: Any, value: str) -> None:
    r = mem.add_fact("s", "tag", value)
    assert r.decision.value == "add"
    got = mem.facts(subject="s", predicate="tag")
    assert [f.object for f in got] == [value]
    assert got[0].id == r.fact.id
    assert mem.get_fact(r.fact.id).object == value
    assert mem.check().ok


def test_check_notices_an_edge_the_index_cannot_find(mem: Any) -> None:
    # What the defect left: an endpoint stored with a raw U+0001 (no escape), which the
    # server's index cannot find, and no version to it.
    store = mem._kernel.store
    mem.add_fact("s", "tag", "ok")
    # As the defect stored it: the raw character, not escaped (the client is bypassed).
    store.executor.connection().command(
        "GRAPH.QUERY",
        store.graph,
        "CYPHER i=\"x\x01y\" CREATE (:Entity {id: $i, name: $i, kind: 'entity'})",
    )
    report = mem.check()
    assert not report.ok
    assert "entity-unfindable" in {p.code for p in report.problems}


def test_an_endpoint_the_index_cannot_find_fails_the_whole_write(
    mem: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Without the codec's escape, U+0001 reaches the server's index, which cannot find it:
    # the write must fail as a whole instead of acknowledging a version it dropped.
    from graphmem.store.falkordb import connection

    store = mem._kernel.store
    mem.add_fact("s", "tag", "ok")
    before = store.count_versions()
    monkeypatch.setattr(connection, "encode_value", lambda v: v)
    with pytest.raises(StoreError, match="could not find an endpoint"):
        mem.add_fact("s", "tag", "x\x01y")
    monkeypatch.undo()
    assert store.count_versions() == before
    assert [f.object for f in mem.facts(subject="s", predicate="tag")] == ["ok"]


# -- timeouts --------------------------------------------------------------------------------------


class _Late:
    """Patch ``Connection.execute`` so the next write times out, before or after it runs."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, *, applied: bool) -> None:
        import redis

        self.calls = 0
        self.sent = 0  # write queries of apply sent (a resend would make it 2)
        real = Connection.execute

        def execute(conn: Connection, query: str, params: Any, *, read_only: bool) -> Any:
            if not read_only and params and "tok" in params:
                self.sent += 1
            if read_only or "GraphmemTx" not in query or self.calls:
                return real(conn, query, params, read_only=read_only)
            self.calls += 1
            if applied:
                real(conn, query, params, read_only=read_only)
            raise redis.exceptions.TimeoutError("Timeout reading from socket")

        monkeypatch.setattr(Connection, "execute", execute)


def test_timeout_of_an_unapplied_write_says_so_and_is_not_resent(
    mem: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    late = _Late(monkeypatch, applied=False)
    with pytest.raises(StoreError, match="it was not applied and never will be") as exc:
        mem.add_fact("alice", "works_at", "Acme")
    assert "not sent again" in str(exc.value)
    assert late.calls == 1
    assert late.sent == 1
    assert mem.facts(subject="alice") == []
    assert mem.add_fact("alice", "works_at", "Acme").decision.value == "add"


def test_timeout_of_an_applied_write_is_a_success(
    mem: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    late = _Late(monkeypatch, applied=True)
    r = mem.add_fact("alice", "works_at", "Acme")
    assert late.calls == 1
    assert late.sent == 1  # not resent: the wait is not doubled
    assert [f.id for f in mem.facts(subject="alice")] == [r.fact.id]


def test_timeout_message_without_token_says_unknown(falkordb_url: str) -> None:
    store = FalkorStore(falkordb_url)
    try:
        err = store.executor.timed_out(store.executor.connection(), None)
        assert "whether it was applied is unknown" in str(err)
    finally:
        store.executor.connection().command("GRAPH.DELETE", store.graph)
        store.close()


# -- a server that lost the data, or is loading it -------------------------------------------------


def test_a_server_that_lost_the_memory_is_reported_not_emptied() -> None:
    server = LocalServer().start()
    try:
        url = f"{server.url}/team?timeout=5"
        m = gm.open(url, clock=ManualClock("2026-01-01"))
        m.add_fact("alice", "works_at", "Acme")
        # The server comes back without its files.
        server.kill()
        import shutil

        assert server.directory is not None
        shutil.rmtree(server.directory)
        server.restart()
        with pytest.raises(StoreError, match="the server lost this memory's data"):
            m.facts(subject="alice")
        with pytest.raises(StoreError, match="the server lost this memory's data"):
            m.add_fact("alice", "works_at", "Globex")
        with pytest.raises(StoreError, match="the server lost this memory's data"):
            m.check()
        # Another process makes the graph again: this handle still refuses to write into it.
        other = gm.open(url)
        other.add_fact("bob", "works_at", "Initech")
        with pytest.raises(StoreError, match="the server lost this memory's data"):
            m.add_fact("alice", "works_at", "Globex")
        with pytest.raises(StoreError, match="the server lost this memory's data"):
            m.check()
        assert [f.subject for f in other.facts()] == ["bob"]
        assert other.check().ok
        other.close()
        m.close()
    finally:
        server.stop()


def test_loading_server_says_so(monkeypatch: pytest.MonkeyPatch, falkordb_url: str) -> None:
    import redis

    store = FalkorStore(falkordb_url)
    try:

        def loading(*a: Any, **k: Any) -> Any:
            raise redis.exceptions.BusyLoadingError("Redis is loading the dataset in memory")

        monkeypatch.setattr(Connection, "execute", loading)
        with pytest.raises(StoreBusy, match="is loading its data"):
            store.count_versions()
    finally:
        monkeypatch.undo()
        store.executor.connection().command("GRAPH.DELETE", store.graph)
        store.close()


# -- one clock per write order ---------------------------------------------------------------------


def test_a_writer_whose_clock_is_behind_is_ordered_after_the_newest_write(
    falkordb_url: str,
) -> None:
    # Two processes (two handles) read their own clocks; the one behind writes second.
    ahead = gm.open(falkordb_url, clock=ManualClock("2026-01-01T00:00:01Z"))
    behind = gm.open(falkordb_url, clock=ManualClock("2026-01-01T00:00:00Z"))
    try:
        first = ahead.add_fact("alice", "works_at", "Acme", valid_from="2024-01-01").fact
        r = behind.add_fact("alice", "works_at", "Globex", valid_from="2024-01-01")
        assert r.decision.value == "supersede"
        assert r.fact.recorded_at > first.recorded_at
        closed = [f for f in behind.history("alice", include_expired=True) if f.id == first.id]
        assert closed[0].expired_at == r.fact.recorded_at
        assert [f.object for f in behind.facts(subject="alice")] == ["Globex"]  # its own write
        assert behind.check().ok
    finally:
        store = ahead._kernel.store
        store.executor.connection().command("GRAPH.DELETE", store.graph)
        ahead.close()
        behind.close()


def test_a_row_closed_before_it_was_recorded_is_read_and_exported(mem: Any, tmp_path: Any) -> None:
    # What two clocks left before the fix: reads, history and export never crash on it.
    from graphmem.export import export_memory
    from graphmem.models import Fact
    from graphmem.store.base import ChangeSet

    t0 = dt.datetime(2026, 1, 1, tzinfo=UTC)
    bad = Fact.model_construct(
        id="v1",
        subject="alice",
        predicate="works_at",
        object="Acme",
        valid_from=t0,
        recorded_at=t0,
        expired_at=t0 - dt.timedelta(seconds=1),
        kind="fact",
        importance=0.5,
        confidence=1.0,
        access_count=0,
        pinned=False,
    )
    mem._kernel.store.apply(ChangeSet(at=t0, inserts=[("alice", "acme", bad)]))
    history = mem.history("alice", include_expired=True)
    assert [f.id for f in history] == ["v1"]
    export_memory(mem, tmp_path / "backup.jsonl")
    assert "v1" in (tmp_path / "backup.jsonl").read_text()
    assert "system-interval" in {p.code for p in mem.check().problems}


# -- the writer lock -------------------------------------------------------------------------------


def test_a_writer_that_lost_its_lock_writes_nothing(falkordb_url: str) -> None:
    a = gm.open(falkordb_url, clock=ManualClock("2026-01-01"))
    b = gm.open(falkordb_url, clock=ManualClock("2026-01-01T00:00:01Z"))
    store = a._kernel.store
    try:
        a.add_fact("alice", "works_at", "Acme")
        with pytest.raises(StoreBusy, match="writer lock it had lost"), a._kernel.uow.write() as w:  # noqa: PT012
            # A paused past the lock's time to live: the lock is gone, B writes.
            store.executor.connection().command("DEL", store.lock.key)
            b.add_fact("alice", "works_at", "Globex")
            w.changes.meta["stale"] = "1"
        assert store.get_meta("stale") is None
        assert [f.object for f in b.facts(subject="alice")] == ["Globex"]
        r = a.add_fact("alice", "works_at", "Initech")  # planned again, after B's write
        assert r.decision.value == "supersede"
        assert [f.object for f in r.superseded] == ["Globex"]
        assert a.check().ok
    finally:
        store.executor.connection().command("GRAPH.DELETE", store.graph)
        a.close()
        b.close()


def test_a_writer_waits_for_the_lock_then_gives_up_busy(falkordb_url: str) -> None:
    a = gm.open(falkordb_url, clock=ManualClock("2026-01-01"))
    b = gm.open(falkordb_url + "?timeout=0.3", clock=ManualClock("2026-01-01"))
    store = a._kernel.store
    try:
        with (
            a._kernel.uow.write(),
            pytest.raises(StoreBusy, match="holds the memory's writer lock"),
        ):
            b.add_fact("bob", "works_at", "Acme")
        assert b.facts(subject="bob") == []
        # A lock left by a process that died expires; the next writer then proceeds.
        store.executor.connection().command("SET", store.lock.key, "dead", "PX", 200)
        assert b.add_fact("bob", "works_at", "Acme").decision.value == "add"
    finally:
        store.executor.connection().command("GRAPH.DELETE", store.graph)
        a.close()
        b.close()


# -- restarts --------------------------------------------------------------------------------------


def test_writes_are_logged_as_effects_and_snapshots_come_early() -> None:
    # The documented server settings (docs/falkordb.md#restarts): a restart applies logged
    # effects instead of running every write query again (which scans the entities: restart
    # time grew with the square of the data), and the log is rewritten as a snapshot early.
    import os

    server = LocalServer().start()
    try:
        m = gm.open(f"{server.url}/team", clock=ManualClock("2026-01-01"))
        for i in range(20):
            m.add_fact(f"p{i}", "works_at", f"c{i % 3}")
        m.close()
        import redis

        client = redis.Redis(port=server.port)
        try:
            size = client.config_get("auto-aof-rewrite-min-size")["auto-aof-rewrite-min-size"]
        finally:
            client.close()
        assert int(size) == 16 * 1024 * 1024
        assert server.directory is not None
        folder = os.path.join(server.directory, "appendonlydir")
        from pathlib import Path

        log = b"".join(
            p.read_bytes() for p in Path(folder).iterdir() if p.name.endswith(".incr.aof")
        )
        assert log.count(b"GRAPH.EFFECT") >= 20
        assert b"MATCH (a:Entity {id: row.s})" not in log  # no write query replayed
        assert b"writer" not in log  # the writer lock never reaches the log
        server.restart()
        again = gm.open(f"{server.url}/team")
        assert len(again.facts()) == 20
        again.close()
    finally:
        server.stop()
