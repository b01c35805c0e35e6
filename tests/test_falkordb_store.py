"""The FalkorDB store at the store level: apply atomicity, time rules, tenancy, URLs, reconnect.

Every test gets a graph of its own on the session's server (``falkordb_url``); restart tests
run a :class:`LocalServer` of their own.
"""

from __future__ import annotations

import datetime as dt
import json
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.errors import InvalidInput, SchemaVersionError, StoreError
from graphmem.models import Entity, Fact, Predicate, Session
from graphmem.store import open_store
from graphmem.store.base import ChangeSet, Purge, Snapshot
from graphmem.store.falkordb import FalkorStore, writes
from graphmem.store.falkordb.codec import from_db, to_db
from graphmem.store.falkordb.connection import parse_url
from graphmem.store.falkordb.server import LocalServer

# The slow family (.ci/run): they run on a FalkorDB server.
pytestmark = pytest.mark.slow

UTC = dt.timezone.utc
T0 = dt.datetime(2024, 1, 1, tzinfo=UTC)


def t(days: float) -> dt.datetime:
    return T0 + dt.timedelta(days=days)


def fact(fid: str, subject: str, obj: str, *, pred: str = "works_at", **kw: object) -> Fact:
    data: dict[str, object] = {
        "id": fid,
        "subject": subject,
        "predicate": pred,
        "object": obj,
        "valid_from": kw.pop("valid_from", T0),
        "recorded_at": kw.pop("recorded_at", T0),
    }
    data.update(kw)
    return Fact.model_validate(data)


@pytest.fixture
def store(falkordb_url: str) -> Iterator[FalkorStore]:
    s = open_store(falkordb_url)
    assert isinstance(s, FalkorStore)
    try:
        yield s
    finally:
        s.executor.connection().command("GRAPH.DELETE", s.graph)
        s.close()


def insert(store: FalkorStore, at: dt.datetime, *rows: tuple[str, str, Fact]) -> None:
    store.apply(ChangeSet(at=at, inserts=list(rows)))


# -- URLs, opening, errors -------------------------------------------------------------------------


def test_parse_url_options() -> None:
    u = parse_url("falkordb://s3cret@db.example:6380/mem?tls=1&timeout=5&pool=3")
    assert (u.host, u.port, u.graph, u.password, u.tls, u.timeout, u.pool) == (
        "db.example", 6380, "mem", "s3cret", True, 5.0, 3
    )  # fmt: skip
    assert u.display == "falkordb://db.example:6380/mem?tls=1"
    assert "s3cret" not in u.display
    assert "s3cret" not in u.where
    assert parse_url("falkordb://localhost/g").port == 6379
    assert parse_url("falkordb://user:pw@h/g").username == "user"


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("falkordb://localhost:6379", "/graphname"),
        ("falkordb://localhost:6379/", "/graphname"),
        ("falkordb://localhost:notaport/g", "malformed"),
        ("falkordb:///g", "no host"),
        ("falkordb://h/g?colour=red", "unknown"),
        ("falkordb://h/g?timeout=soon", "timeout"),
        ("falkordb://h/g?pool=0", "pool"),
        ("falkordb://h/bad name!", "invalid"),
    ],
)
def test_bad_urls(url: str, needle: str) -> None:
    with pytest.raises(InvalidInput, match=needle):
        open_store(url)


def test_unknown_scheme_names_known_ones() -> None:
    with pytest.raises(StoreError, match="falkordb://"):
        open_store("postgres://localhost/db")


def test_password_never_in_messages() -> None:
    with pytest.raises(InvalidInput) as exc:
        parse_url("falkordb://hunter2@localhost:6379")
    assert "hunter2" not in str(exc.value)


def test_unreachable_server_is_store_error() -> None:
    from graphmem.store.falkordb.server import free_port

    port = free_port()
    with pytest.raises(StoreError, match=f"127.0.0.1:{port}") as exc:
        open_store(f"falkordb://pw123@127.0.0.1:{port}/g?timeout=2")
    assert "pw123" not in str(exc.value)


def test_wrong_password_is_store_error() -> None:
    server = LocalServer(password="right-one").start()
    try:
        port = server.port
        with pytest.raises(StoreError, match="password") as exc:
            open_store(f"falkordb://wrong-one@127.0.0.1:{port}/g")
        assert "wrong-one" not in str(exc.value)
        with pytest.raises(StoreError, match="password"):
            open_store(f"falkordb://127.0.0.1:{port}/g")
        s = open_store(f"falkordb://right-one@127.0.0.1:{port}/g")
        assert s.get_meta("schema_version") is not None
        assert "right-one" not in repr(s)
        assert "right-one" not in (s.path or "")
        s.close()
    finally:
        server.stop()


def test_read_only_missing_graph(falkordb_url: str) -> None:
    with pytest.raises(StoreError, match="read-only"):
        open_store(falkordb_url, read_only=True)


def test_read_only_refuses_writes(store: FalkorStore) -> None:
    ro = open_store(store.url.display.replace("falkordb://", "falkordb://"), read_only=True)
    with pytest.raises(StoreError, match="read-only"):
        ro.apply(ChangeSet(at=T0, meta={"a": "b"}))
    ro.close()


def test_foreign_graph_and_schema_version(store: FalkorStore, falkordb_url: str) -> None:
    store._w("MATCH (m:Meta {key: 'schema_version'}) SET m.value = '999'")
    with pytest.raises(SchemaVersionError, match="'999'"):
        open_store(falkordb_url.rsplit("/", 1)[0] + "/" + store.graph)
    other = store.graph + "_foreign"
    store.executor.connection().execute_on(other, "CREATE (:Person {name: 'x'})", None)
    try:
        with pytest.raises(SchemaVersionError, match="no graphmem schema"):
            open_store(falkordb_url.rsplit("/", 1)[0] + "/" + other)
    finally:
        store.executor.connection().command("GRAPH.DELETE", other)


def test_capabilities_and_path(store: FalkorStore) -> None:
    caps = store.capabilities
    assert (caps.transactions, caps.bulk_copy, caps.full_text, caps.vacuum, caps.embedded) == (
        False, False, True, False, False
    )  # fmt: skip
    assert store.engine == "falkordb"
    assert store.path is not None
    assert store.path.startswith("falkordb://")
    assert store.path.endswith(store.graph)


def test_codec_roundtrip() -> None:
    for value in (T0, dt.datetime(1, 1, 1, tzinfo=UTC), dt.datetime(9999, 12, 31, tzinfo=UTC)):
        assert from_db(to_db(value)) == value
    assert to_db(None) is None
    assert from_db(None) is None
    with pytest.raises(InvalidInput):
        to_db(dt.datetime(2024, 1, 1))


# -- apply -----------------------------------------------------------------------------------------


def test_insert_close_and_query(store: FalkorStore) -> None:
    alice, acme = Entity(id="alice", name="Alice"), Entity(id="acme", name="Acme", kind="org")
    f1 = fact("f1", "Alice", "Acme", statement="Alice works at Acme")
    store.apply(
        ChangeSet(
            at=T0,
            predicates=[Predicate(name="works_at", aliases=("employed_by",))],
            inserts=[("alice", "acme", f1)],
            new_entities={"alice": alice, "acme": acme},
        )
    )
    assert store.get_entity("acme") == acme
    assert store.entity_names(["alice", "nobody"]) == {"alice": "Alice"}
    assert [p.name for p in store.load_predicates()] == ["works_at"]
    assert store.query_facts(subject_id="alice") == [f1]
    assert store.max_system_time() == T0
    f2 = fact("f2", "Alice", "Initech", valid_from=t(10), recorded_at=t(10))
    store.apply(
        ChangeSet(
            at=t(10),
            closes=[("alice", "f1", "f2", "superseded")],
            inserts=[("alice", "initech", f2)],
        )
    )
    assert store.get_entity("initech") == Entity(id="initech", name="Initech")
    old = store.get_facts(["f1"])[0]
    assert (old.expired_at, old.superseded_by, old.reason) == (t(10), "f2", "superseded")
    assert store.current_versions(["alice", "bob"]) == {"alice": [f2], "bob": []}
    assert [f.id for f in store.query_facts(known_at=t(5))] == ["f1"]
    assert [f.id for f in store.query_facts(known_at=t(10))] == ["f2"]
    assert [f.id for f in store.query_facts(object_id="initech")] == ["f2"]
    assert store.count_versions() == 2
    assert store.count_predicate_versions("works_at") == 2
    assert [f.id for f in store.changed_between(t(10), None)] == ["f1", "f2"]
    assert [f.id for f in store.changed_between(T0, t(10))] == ["f1"]
    # Closing again does nothing (only versions still current are closed).
    store.apply(ChangeSet(at=t(11), closes=[("alice", "f1", None, "again")]))
    assert store.get_facts(["f1"])[0].reason == "superseded"


def test_entities_bumps_access_meta_marker(store: FalkorStore) -> None:
    store.apply(ChangeSet(at=T0, entities=[Entity(id="bob", name="Bob", kind="person")]))
    store.apply(ChangeSet(at=t(1), entities=[Entity(id="bob", name="Robert", aliases=("bobby",))]))
    assert store.get_entity("bob") == Entity(
        id="bob", name="Bob", kind="person", aliases=("bobby",)
    )
    assert store.load_aliases() == {"bobby": "bob"}
    insert(store, t(2), ("bob", "x", fact("f1", "Bob", "X")), ("y", "bob", fact("f2", "Y", "Bob")))
    store.apply(ChangeSet(at=t(3), bumps=[("bob", "f1", 7)]))
    store.apply(ChangeSet(at=t(4), access={("out", "bob"): ["f1"], ("in", "bob"): ["f2"]}))
    f1, f2 = sorted(store.get_facts(["f1", "f2"]), key=lambda f: f.id)
    assert (f1.access_count, f1.last_accessed_at) == (8, t(4))
    assert (f2.access_count, f2.last_accessed_at) == (1, t(4))
    store.apply(ChangeSet(at=t(5), meta={"rate_window": "{}"}, marker=False))
    assert store.get_meta("rate_window") == "{}"
    assert store.max_system_time() == t(4)


def test_empty_part_does_not_stop_later_parts(store: FalkorStore) -> None:
    # A part whose MATCH finds nothing (a close of an unknown version) between two parts
    # that write: the later part still runs.
    store.apply(
        ChangeSet(
            at=T0,
            entities=[Entity(id="a", name="A")],
            closes=[("nobody", "nofact", None, "x")],
            meta={"after": "yes"},
        )
    )
    assert store.get_entity("a") is not None
    assert store.get_meta("after") == "yes"
    assert store.max_system_time() == T0


def test_failure_in_last_part_leaves_nothing(store: FalkorStore) -> None:
    # The metadata part comes after every other part of the content; a map is no property
    # value, so the server fails the query there.
    with pytest.raises(StoreError, match="[Pp]roperty values"):
        store.apply(
            ChangeSet(
                at=T0,
                predicates=[Predicate(name="likes")],
                entities=[Entity(id="a", name="A")],
                inserts=[("a", "b", fact("f1", "A", "B"))],
                closes=[("a", "f0", None, "x")],
                bumps=[("a", "f1", 3)],
                sessions=[(Session(id="s1", started_at=T0, text="A met B."), {"a": 1})],
                audit=[("au1", "test", "{}")],
                meta={"k": "v", "z": {"not": "a string"}},  # type: ignore[dict-item]
            )
        )
    assert store.content_counts() == {"entities": 0, "facts": 0, "sessions": 0, "audit": 0}
    assert store.load_predicates() == []
    assert store.get_meta("k") is None
    assert store.max_system_time() is None
    assert store.counts()["SessionLine"] == 0


def test_sessions_create_or_replace(store: FalkorStore) -> None:
    store.apply(ChangeSet(at=T0, entities=[Entity(id="a", name="A"), Entity(id="b", name="B")]))
    s1 = Session(id="s1", started_at=T0, title="first", text="A: hello\nB: hi there")
    store.apply(ChangeSet(at=t(1), sessions=[(s1, {"a": 2, "b": 1})]))
    rows = store.all_sessions()
    assert rows[0]["mentions"] == {"a": 2, "b": 1}
    assert rows[0]["recorded_at"] == t(1)
    assert store.counts()["SessionLine"] == 2
    s1b = Session(id="s1", started_at=T0, text="only one line")
    store.apply(ChangeSet(at=t(2), sessions=[(s1b, {"b": 3})]))
    rows = store.all_sessions()
    assert len(rows) == 1
    assert rows[0]["title"] is None
    assert rows[0]["text"] == "only one line"
    assert rows[0]["mentions"] == {"b": 3}
    assert rows[0]["recorded_at"] == t(2)
    assert store.counts()["SessionLine"] == 1
    assert store.counts()["MENTIONS"] == 1


def test_purge(store: FalkorStore) -> None:
    ents = [Entity(id=i, name=n) for i, n in (("ann", "Ann Lee"), ("bob", "Bob"))]
    store.apply(ChangeSet(at=T0, entities=[*ents, Entity(id="ally", name="Ally", aliases=("al",))]))
    insert(
        store,
        t(1),
        ("ann", "addr", fact("f1", "Ann Lee", "12 Main St", pred="lives_at")),
        ("bob", "ann", fact("f2", "Bob", "Ann Lee", pred="knows")),
        ("ann", "ally", fact("f3", "Ann Lee", "Ally", pred="knows")),
        ("bob", "acme", fact("f4", "Bob", "Acme")),
    )
    sess = Session(id="s1", started_at=T0, title="Ann Lee visit", text="Bob: I saw ann lee.\nok")
    other = Session(id="s2", started_at=T0, text="Bob: nothing here")
    store.apply(ChangeSet(at=t(2), sessions=[(sess, {"ann": 1, "bob": 1}), (other, {"bob": 1})]))
    applied = store.apply(
        ChangeSet(
            at=t(3),
            purge=Purge(
                entity_id="ann",
                names=["Ann Lee", "ann lee"],
                audit_id="p1",
                detail={"entity": "ann", "reason": "asked"},
            ),
        )
    )
    assert applied.purged == {"versions": 3, "entities": 2, "mentions": 1, "sessions_redacted": 1}
    assert store.get_entity("ann") is None
    assert store.get_entity("addr") is None
    assert store.get_entity("ally") is not None  # has an alias: kept
    assert store.get_entity("bob") is not None
    assert [f.id for f in store.query_facts()] == ["f4"]
    s1 = next(s for s in store.all_sessions() if s["id"] == "s1")
    # a title or a sentence that names the subject goes whole (docs/concepts/time.md#rule-1)
    assert s1["title"] == "[purged]"
    assert s1["text"] == "Bob: [purged]\nok"
    assert s1["mentions"] == {"bob": 1}
    texts = [r[0] for r in store._q("MATCH (l:SessionLine) RETURN l.text")]
    assert "[purged]" in texts
    assert not any("ann" in x.lower() for x in texts)
    (audit,) = store.all_audit()
    assert audit["action"] == "purge"
    assert audit["at"] == t(3)
    detail = json.loads(audit["detail"])
    assert detail["versions"] == 3
    assert list(detail)[-1] == "reason"


@pytest.mark.parametrize("chunk_rows", [None, 2], ids=["one-query", "staged"])
def test_snapshot_into_empty_graph(falkordb_url: str, chunk_rows: int | None) -> None:
    store = FalkorStore(falkordb_url, chunk_rows=chunk_rows)
    f1 = fact("f1", "Ann", "Acme", recorded_at=t(1), expired_at=t(2), superseded_by="f2")
    f2 = fact("f2", "Ann", "Initech", recorded_at=t(2), access_count=3, last_accessed_at=t(3))
    snap = Snapshot(
        meta={"custom": "1"},
        predicates=[Predicate(name="works_at", cardinality="one")],
        entities=[
            {"id": "ann", "name": "Ann", "kind": "person", "aliases": ["annie"]},
            {"id": "acme", "name": "Acme", "kind": "org", "aliases": []},
            {"id": "initech", "name": "Initech", "kind": "org", "aliases": []},
        ],
        facts=[("ann", "acme", f1), ("ann", "initech", f2)],
        sessions=[
            {
                "id": "s1",
                "started_at": T0,
                "ended_at": None,
                "title": None,
                "text": "Ann: hi",
                "summary": None,
                "source": None,
                "mentions": {"ann": 1},
                "recorded_at": t(1),
            }
        ],
        audit=[{"id": "a1", "at": t(1), "action": "add", "detail": "{}"}],
    )
    store.apply(ChangeSet(at=t(3), snapshot=snap))
    assert store.all_facts() == [("ann", "acme", f1), ("ann", "initech", f2)]
    assert store.all_entities()[0] == {"id": "acme", "name": "Acme", "kind": "org", "aliases": []}
    assert store.all_sessions()[0]["mentions"] == {"ann": 1}
    assert store.all_audit() == [{"id": "a1", "at": t(1), "action": "add", "detail": "{}"}]
    assert store.get_meta("custom") == "1"
    assert store.max_system_time() == t(3)
    assert store.counts()["SessionLine"] == 1
    assert store.orphan_entities() == []
    assert store.loose_mentions() == 0
    raw = store.raw_facts()
    assert {r["recorded_at"] for r in raw} == {t(1), t(2)}
    store.executor.connection().command("GRAPH.DELETE", store.graph)
    store.close()


def test_staged_apply_is_whole(falkordb_url: str) -> None:
    store = FalkorStore(falkordb_url, chunk_rows=7)
    rows = [(f"e{i}", f"o{i}", fact(f"f{i}", f"E{i}", f"O{i}")) for i in range(30)]
    store.apply(ChangeSet(at=T0, inserts=rows, meta={"k": "v"}))
    assert store.count_versions() == 30
    assert store.get_meta("k") == "v"
    assert store.max_system_time() == T0
    names = store.executor.connection().command("GRAPH.LIST")
    assert not [n for n in names if n.startswith(store.graph + writes.STAGING)]
    # A chunk that fails (the metadata part, after the inserts): nothing of the change set,
    # and the staging graph is gone.
    more = [(f"x{i}", f"y{i}", fact(f"g{i}", f"X{i}", f"Y{i}")) for i in range(30)]
    bad = {"z": {"not": "a string"}}
    with pytest.raises(StoreError):
        store.apply(ChangeSet(at=t(1), inserts=more, meta=bad))  # type: ignore[arg-type]
    assert store.count_versions() == 30
    assert store.max_system_time() == T0
    names = store.executor.connection().command("GRAPH.LIST")
    assert not [n for n in names if n.startswith(store.graph + writes.STAGING)]
    store.executor.connection().command("GRAPH.DELETE", store.graph)
    store.close()


def test_staged_apply_refuses_a_concurrent_write(falkordb_url: str) -> None:
    store = FalkorStore(falkordb_url, chunk_rows=5)
    other = open_store(falkordb_url)

    def meddle(chunk: int) -> None:
        if chunk == 0:
            other.apply(ChangeSet(at=T0, meta={"meddler": "1"}))

    store.writer.staging_hook = meddle
    rows = [(f"e{i}", f"o{i}", fact(f"f{i}", f"E{i}", f"O{i}")) for i in range(12)]
    with pytest.raises(StoreError, match="another client"):
        store.apply(ChangeSet(at=t(1), inserts=rows))
    assert store.count_versions() == 0
    assert store.get_meta("meddler") == "1"
    names = store.executor.connection().command("GRAPH.LIST")
    assert not [n for n in names if n.startswith(store.graph + writes.STAGING)]
    other.close()
    store.executor.connection().command("GRAPH.DELETE", store.graph)
    store.close()


def test_stale_staging_removed_on_open(store: FalkorStore, falkordb_url: str) -> None:
    old = f"{store.graph}{writes.STAGING}1000::dead"
    young = f"{store.graph}{writes.STAGING}99999999999::live"
    for name, started in ((old, 1000), (young, int(time.time()))):
        store.executor.connection().execute_on(name, "CREATE (:Meta {key: 'x'})", None)
        # as a staged write does
        store.executor.connection().command("HSET", store.writer.staging_key, name, started)
    open_store(falkordb_url).close()
    names = store.executor.connection().command("GRAPH.LIST")
    assert old not in names
    assert young in names
    store.executor.connection().command("GRAPH.DELETE", young)


def test_tenancy(falkordb_url: str) -> None:
    a = open_store(falkordb_url + "_a")
    b = open_store(falkordb_url + "_b")
    try:
        insert(a, T0, ("x", "y", fact("f1", "X", "Y")))
        b.apply(ChangeSet(at=T0, sessions=[(Session(id="s", started_at=T0, text="t"), {})]))
        assert b.count_versions() == 0
        assert b.get_entity("x") is None
        assert a.content_counts()["sessions"] == 0
        assert b.content_counts()["sessions"] == 1
        assert a.count_versions() == 1
    finally:
        for s in (a, b):
            s.executor.connection().command("GRAPH.DELETE", s.graph)
            s.close()


def test_reconnect_after_restart() -> None:
    server = LocalServer().start()
    try:
        s = open_store(f"{server.url}/g?timeout=5")
        insert(s, T0, ("x", "y", fact("f1", "X", "Y")))
        server.restart()
        assert s.count_versions() == 1  # a read on a pooled connection the restart broke
        insert(s, t(1), ("x", "z", fact("f2", "X", "Z", recorded_at=t(1))))
        server.restart()
        insert(s, t(2), ("x", "w", fact("f3", "X", "W", recorded_at=t(2))))
        assert s.count_versions() == 3  # a write after a restart, applied once
        server.kill()
        with pytest.raises(StoreError, match=f"127.0.0.1:{server.port}"):
            s.count_versions()
        server.restart()
        assert s.count_versions() == 3
        s.close()
    finally:
        server.stop()


def test_resent_change_set_is_applied_once(store: FalkorStore) -> None:
    # What the connection does after a lost reply: send the same query again.
    changes = ChangeSet(
        at=T0,
        inserts=[("x", "y", fact("f1", "X", "Y"))],
        access={("out", "x"): ["f1"]},
        sessions=[(Session(id="s1", started_at=T0, text="X: hi\nY: ho"), {"x": 1})],
        audit=[("a1", "add", "{}")],
    )
    plan, _ = store.writer.plan(changes)
    query, params = plan.query()
    first = store._w(query, params)
    again = store._w(query, params)
    assert first == again  # the same lines_gen base, reported twice
    assert store.count_versions() == 1
    assert store.content_counts() == {"entities": 2, "facts": 1, "sessions": 1, "audit": 1}
    assert store.counts()["SessionLine"] == 2


def test_reply_timeout_never_applies_twice(falkordb_url: str) -> None:
    # A reply slower than the timeout: the query is not resent; its token is recorded at once,
    # so it is applied (the error is a success) or can no longer apply, as the error says.
    open_store(falkordb_url).close()  # the schema first: on a busy machine it takes > 0.05 s
    slow = open_store(falkordb_url + "?timeout=0.05")
    rows = [(f"e{i % 300}", f"o{i % 500}", fact(f"f{i}", "E", "O")) for i in range(20_000)]
    failed = None
    try:
        slow.apply(ChangeSet(at=T0, inserts=rows))
    except StoreError as exc:
        failed = str(exc)
    slow.close()
    store = open_store(falkordb_url)
    # A write queues behind every write the server still runs on the graph.
    store.apply(ChangeSet(at=t(1), inserts=[("z", "w", fact("g", "Z", "W"))]))
    if failed is None:
        assert store.count_versions() == 20_001
    elif "not applied and never will be" in failed:
        assert store.count_versions() == 1
    else:
        assert "whether it was applied is unknown" in failed
        assert store.count_versions() in (1, 20_001)
    store.executor.connection().command("GRAPH.DELETE", store.graph)
    store.close()


# -- time rules (hypothesis) -----------------------------------------------------------------------


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    writes=st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(0, 30), st.booleans()),
        min_size=1,
        max_size=8,
    ),
    probes=st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=6),
)
def test_known_at_unchanged_by_later_applies(
    falkordb_server: LocalServer, writes: list[tuple[str, int, bool]], probes: list[tuple[int, int]]
) -> None:
    import uuid

    s = open_store(f"{falkordb_server.url}/hyp_{uuid.uuid4().hex[:10]}")
    try:

        def view(fs: list[Fact]) -> list[tuple[object, ...]]:
            # What was believed then: closing a version later sets only its expired_at side.
            return [(f.id, f.object, f.valid_from, f.valid_to, f.recorded_at) for f in fs]

        snaps: list[tuple[int, dict[tuple[int, int], list[tuple[object, ...]]]]] = []
        for n, (subject, valid, supersede) in enumerate(writes):
            at = t(n + 1)
            current = s.current_versions([subject])[subject]
            f = fact(f"f{n}", subject.upper(), f"O{n}", valid_from=t(valid), recorded_at=at)
            closes = [(subject, c.id, f.id, "superseded") for c in current] if supersede else []
            s.apply(ChangeSet(at=at, closes=closes, inserts=[(subject, f"o{n}", f)]))
            seen = {
                (k, v): view(s.query_facts(known_at=t(k), valid_at=t(v)))
                for k, v in probes
                if k <= n + 1
            }
            snaps.append((n, seen))
        for _, seen in snaps:
            for (k, v), before in seen.items():
                assert view(s.query_facts(known_at=t(k), valid_at=t(v))) == before
        # Closed-open on both axes.
        for f in s.query_facts():
            assert s.query_facts(known_at=f.recorded_at, subject_id=None).count(f) == (
                1 if f.expired_at != f.recorded_at else 0
            )
            if f.expired_at is not None:
                assert f not in s.query_facts(known_at=f.expired_at)
    finally:
        s.executor.connection().command("GRAPH.DELETE", s.graph)
        s.close()


def test_importing_graphmem_loads_no_client() -> None:
    import subprocess
    import sys

    code = (
        "import sys, graphmem, graphmem.store, graphmem.store.falkordb, graphmem.cli\n"
        "assert 'redis' not in sys.modules and 'falkordb' not in sys.modules, sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)  # noqa: S603


def test_engine_option_is_ignored_for_a_url(falkordb_url: str) -> None:
    store = open_store(falkordb_url, engine="kuzu")
    assert store.engine == "falkordb"
    store.executor.connection().command("GRAPH.DELETE", store.graph)
    store.close()


def test_closed_store_is_store_error(falkordb_url: str) -> None:
    store = open_store(falkordb_url)
    store.executor.connection().command("GRAPH.DELETE", store.graph)
    store.close()
    store.close()  # twice is fine
    with pytest.raises(StoreError, match="closed"):
        store.count_versions()
    with pytest.raises(StoreError, match="closed"):
        store.apply(ChangeSet(at=T0))


def test_nul_and_int64_limits(store: FalkorStore) -> None:
    f = fact("f1", "A", "B", statement="a\x00b \ue000 c\ue0000")
    insert(store, T0, ("a", "b", f))
    assert store.get_facts(["f1"]) == [f]
    huge = fact("f2", "A", "C", access_count=2**63)
    with pytest.raises(InvalidInput, match="64-bit"):
        insert(store, t(1), ("a", "c", huge))
    assert store.count_versions() == 1
