"""Store-level tests: every Fact field round-trips on every write path, transactions are atomic,
bulk COPYs never tear or corrupt, and the schema is checked on open.

The write paths of ``KuzuWriter.insert_facts``: one prepared statement per version (below
``COPY_THRESHOLD``, or when the transaction also wrote something else), and the COPY-only
commit (a big batch in a transaction that wrote nothing else). ``current_versions``,
``close_versions`` and ``bump_access`` go row by row up to ``SMALL_BATCH`` and through one
``UNWIND`` above.
"""

from __future__ import annotations

import datetime as dt
import os
import random
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import graphmem as gm
from graphmem.check import check
from graphmem.errors import SchemaVersionError, StoreError
from graphmem.models import Entity, Fact
from graphmem.normalize import entity_key
from graphmem.store import open_store
from graphmem.store.kuzu.engine import COPY_THRESHOLD, ENGINES, SMALL_BATCH, KuzuStore
from graphmem.timeutil import ManualClock

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
UTC = dt.timezone.utc
NOW = dt.datetime(2026, 1, 1, tzinfo=UTC)
PLUS2 = dt.timezone(dt.timedelta(hours=2))
ODD = [
    "plain",
    "a\x00b",  # NUL inside
    "\x00end",
    "ünïcødé ｆｕｌｌ 👩\u200d👩\u200d👧",
    "\u202eevil",
    "'; DROP TABLE Fact; --",
    "$s",
    "x" * 5000,
]


def make_fact(i: int, **over: object) -> Fact:
    """A version with every field set, varied by ``i`` (odd text, zones, extreme years)."""
    text = ODD[i % len(ODD)]
    data: dict[str, object] = {
        "id": f"f{i:016x}",
        "subject": f"S{i % 7} {text[:20]}",
        "predicate": f"p{i % 3}",
        "object": f"O{i} {text[:30]}",
        "valid_from": [
            dt.datetime(1, 1, 1, tzinfo=UTC),
            dt.datetime(1490, 6, 1, 12, 30, 15, 123456, tzinfo=UTC),
            dt.datetime(2020, 3, 1, 10, 0, 0, 1, tzinfo=PLUS2),
        ][i % 3],
        "valid_to": [
            None,
            dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
            dt.datetime(2021, 1, 1, tzinfo=PLUS2),
        ][i % 3],
        "recorded_at": NOW + dt.timedelta(microseconds=i),
        "expired_at": None if i % 4 else NOW + dt.timedelta(days=1, microseconds=7),
        "statement": None if i % 5 == 0 else text,
        "kind": ["fact", "event", "insight", "directive", "identity"][i % 5],
        "importance": (i % 11) * 0.9,
        "confidence": (i % 10) / 9,
        "source": None if i % 2 else f"session {text[:10]}",
        "source_ref": None if i % 3 else f"ref-{i}",
        "superseded_by": None if i % 4 else f"f{i + 1:016x}",
        "reason": None if i % 4 else f"closed because {text[:40]}",
        "access_count": i % 6,
        "last_accessed_at": None if i % 2 else NOW + dt.timedelta(hours=1, microseconds=3),
        "pinned": i % 7 == 0,
    }
    data.update(over)
    return Fact.model_validate(data)


def rows_of(facts: list[Fact]) -> list[tuple[str, str, Fact]]:
    return [(entity_key(f.subject), entity_key(f.object), f) for f in facts]


def stored(store: KuzuStore) -> list[Fact]:
    return sorted(store.query_facts(), key=lambda f: f.id)


@contextmanager
def fresh(path: str | None = None) -> Iterator[KuzuStore]:
    s = open_store(path, engine=ENGINE)
    try:
        yield s
    finally:
        s.close()


@pytest.fixture
def store() -> Iterator[KuzuStore]:
    with fresh() as s:
        yield s


def insert(store: KuzuStore, facts: list[Fact], *, logged: bool = False) -> None:
    """Insert in one transaction; ``logged``: write something else first (no COPY-only commit)."""
    with store.transaction():
        if logged:
            store.set_meta("note", "a logged write")
        store.writer.insert_facts(rows_of(facts))


SIZES = [1, SMALL_BATCH, SMALL_BATCH + 1, COPY_THRESHOLD - 1, COPY_THRESHOLD, COPY_THRESHOLD + 1]


# -- round trips on every path ----------------------------------------------------------------


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("logged", [False, True], ids=["alone", "with-other-writes"])
def test_every_field_round_trips(store: KuzuStore, n: int, logged: bool) -> None:
    facts = [make_fact(i) for i in range(n)]
    insert(store, facts, logged=logged)
    assert stored(store) == sorted(facts, key=lambda f: f.id)
    picked = sorted({facts[0].id, facts[-1].id})
    assert sorted(store.get_facts(picked), key=lambda f: f.id) == [
        f for f in sorted(facts, key=lambda f: f.id) if f.id in picked
    ]


def test_instants_come_back_in_utc(store: KuzuStore) -> None:
    f = make_fact(2)  # valid_from and valid_to given at +02:00
    insert(store, [f])
    (back,) = store.query_facts()
    assert back.valid_from == dt.datetime(2020, 3, 1, 8, 0, 0, 1, tzinfo=UTC)
    assert back.valid_from.utcoffset() == dt.timedelta(0)
    assert back.valid_to == dt.datetime(2020, 12, 31, 22, tzinfo=UTC)


@pytest.mark.parametrize("n", [SMALL_BATCH - 1, SMALL_BATCH + 3, COPY_THRESHOLD + 2])
def test_copy_and_row_paths_store_identical_rows(n: int) -> None:
    facts = [make_fact(i) for i in range(n)]
    got = []
    for logged in (False, True):
        with fresh() as s:
            insert(s, facts, logged=logged)
            got.append(
                (
                    stored(s),
                    sorted(s.run("MATCH (e:Entity) RETURN e.id, e.name, e.kind, e.aliases")),
                    s.run("MATCH ()-[r:Fact]->() RETURN count(r)"),
                )
            )
    assert got[0] == got[1]


def test_missing_endpoints_are_created_with_given_entities(store: KuzuStore) -> None:
    facts = [make_fact(i) for i in range(COPY_THRESHOLD + 1)]
    rows = rows_of(facts)
    special = Entity(id=rows[0][1], name="Object Zero", kind="topic", aliases=("o-zero",))
    with store.transaction():
        store.writer.insert_facts(rows, entities={special.id: special})
    assert store.get_entity(special.id) == special
    assert store.entity_names([rows[1][0]]) == {rows[1][0]: facts[1].subject}


@pytest.mark.parametrize("n", [SMALL_BATCH, SMALL_BATCH + 1])
def test_current_versions_close_and_bump_by_row_and_by_unwind(store: KuzuStore, n: int) -> None:
    facts = [
        make_fact(i, subject=f"subject {i}", expired_at=None, superseded_by=None, reason=None)
        for i in range(n)
    ]
    insert(store, facts)
    ids = [entity_key(f.subject) for f in facts]
    current = store.current_versions(ids)
    assert [v.id for i in ids for v in current[i]] == [f.id for f in facts]
    later = NOW + dt.timedelta(days=3)
    with store.transaction():
        store.writer.bump_access([(i, f.id, 41) for i, f in zip(ids, facts, strict=True)], at=later)
        store.writer.close_versions(
            [(i, f.id, None, "gone") for i, f in zip(ids, facts, strict=True)], at=later
        )
    assert store.current_versions(ids) == {i: [] for i in ids}
    for back in store.query_facts():
        assert (back.access_count, back.last_accessed_at) == (41, later)
        assert (back.expired_at, back.reason, back.superseded_by) == (later, "gone", None)


# -- query shapes -----------------------------------------------------------------------------


def test_as_of_filters_are_closed_open(store: KuzuStore) -> None:
    t = [NOW + dt.timedelta(days=d) for d in range(6)]
    f = make_fact(
        1,
        valid_from=t[1],
        valid_to=t[3],
        recorded_at=t[2],
        expired_at=t[4],
        subject="s",
        predicate="p",
    )
    insert(store, [f])

    def ids(**kw: object) -> list[str]:
        return [v.id for v in store.query_facts(subject_id="s", predicate="p", **kw)]

    assert ids(valid_at=t[1], known_at=t[2]) == [f.id]
    assert ids(valid_at=t[0], known_at=t[2]) == []  # before valid_from
    assert ids(valid_at=t[3], known_at=t[2]) == []  # valid_to is exclusive
    assert ids(valid_at=t[1], known_at=t[1]) == []  # before recorded_at
    assert ids(valid_at=t[1], known_at=t[4]) == []  # expired_at is exclusive
    assert ids(current_only=True) == []
    assert ids(object_id=entity_key(f.object)) == [f.id]
    assert ids(object_id="someone else") == []


def test_rel_property_filters_sit_behind_a_with_barrier(store: KuzuStore) -> None:
    """Kuzu 0.11.3 scans every edge when rel-property filters share the MATCH.

    See docs/concepts/storage.md#engine-facts.
    """
    rec = KuzuStore(None, engine=ENGINE)
    seen = _queries(rec)
    try:
        insert(rec, [make_fact(i, subject="s") for i in range(3)])
        rec.query_facts(subject_id="s", predicate="p1", valid_at=NOW, known_at=NOW)
        rec.current_versions(["s"])
        with rec.transaction():
            rec.writer.close_versions([("s", make_fact(0).id, None, "x")], at=NOW)
            rec.writer.bump_access([("s", make_fact(1).id, 3)], at=NOW)
    finally:
        rec.close()
    filtered = [q for q in seen if "[r:Fact]" in q and "r." in q.split("RETURN")[0]]
    assert filtered
    for q in filtered:
        before_with = q.split(" WITH ")[0]
        assert " WHERE " not in before_with, q


# -- transactions -----------------------------------------------------------------------------


@pytest.mark.parametrize("n", [3, COPY_THRESHOLD + 5])
def test_rollback_leaves_nothing(store: KuzuStore, n: int) -> None:
    base = [make_fact(i, subject=f"base {i}") for i in range(5)]
    insert(store, base)
    before = (stored(store), store.run("MATCH (e:Entity) RETURN count(e)"), store.get_meta("x"))

    def failing_write() -> None:
        with store.transaction():
            store.writer.upsert_entities([Entity(id="ghost", name="Ghost")])
            store.writer.close_versions(
                [(entity_key(base[0].subject), base[0].id, None, "r")], at=NOW
            )
            store.writer.insert_facts(rows_of([make_fact(100 + i) for i in range(n)]))
            store.set_meta("x", "y")
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        failing_write()
    after = (stored(store), store.run("MATCH (e:Entity) RETURN count(e)"), store.get_meta("x"))
    assert after == before
    # A rolled-back COPY corrupts a non-empty rel table (module docstring): none may have run.
    more = [make_fact(200 + i, subject=f"more {i}") for i in range(COPY_THRESHOLD + 3)]
    insert(store, more)
    assert stored(store) == sorted(base + more, key=lambda f: f.id)


def test_failed_statement_rolls_back_the_transaction(store: KuzuStore) -> None:
    insert(store, [make_fact(1)])

    def failing_write() -> None:
        with store.transaction():
            store.set_meta("x", "y")
            store.run("MATCH (n:NoSuchTable) RETURN n")

    with pytest.raises(StoreError):
        failing_write()
    assert store.get_meta("x") is None
    insert(store, [make_fact(2)])
    assert len(stored(store)) == 2


def test_reads_in_a_transaction_see_deferred_bulk_rows(store: KuzuStore) -> None:
    facts = [make_fact(i) for i in range(COPY_THRESHOLD)]
    with store.transaction():
        store.writer.insert_facts(rows_of(facts))
        assert store.count_versions() == COPY_THRESHOLD
    assert store.count_versions() == COPY_THRESHOLD


def test_bulk_marker_follows_the_copy(tmp_path: Path) -> None:
    path = str(tmp_path / "m.kuzu")
    clock = ManualClock(NOW)
    store = open_store(path, engine=ENGINE)
    with gm.open(store=store, clock=clock) as mem:
        mem.add_facts(
            [{"subject": f"s{i}", "predicate": "tag", "object": f"o{i}"} for i in range(600)]
        )
        assert store.max_system_time() == NOW
        # A crash between the COPY-only commit and the marker's commit leaves it behind ...
        store.run(
            "MATCH (m:Meta {key: 'last_write'}) SET m.value = $v",
            {"v": "2000-01-01T00:00:00+00:00"},
        )
    # ... and the next writable open moves it up to the newest system time stored.
    store = open_store(path, engine=ENGINE)
    with gm.open(store=store, clock=clock):
        assert store.max_system_time() == NOW


_ABANDON = textwrap.dedent(
    """
    import os, sys
    import graphmem as gm
    from graphmem.timeutil import ManualClock
    path, engine = sys.argv[1], sys.argv[2]
    clock = ManualClock("2026-03-01T00:00:00Z")
    mem = gm.open(path, engine=engine, clock=clock)
    mem.add_fact("api", "runs_on", "Laravel")
    clock.advance(days=1)
    mem.add_fact("api", "runs_on", "Go")  # a supersession: a close and an insert
    os._exit(0)  # as a crash: no close, the marker was never saved
    """
)


def _stored_marker(path: str) -> tuple[str | None, bool]:
    """The ``last_write`` value and whether the unsaved-marker flag is stored, read raw."""
    store = open_store(path, engine=ENGINE, read_only=True)
    try:
        rows = dict(store.run("MATCH (m:Meta) RETURN m.key, m.value"))
    finally:
        store.close()
    return rows.get("last_write"), "marker_unsaved" in rows


def test_marker_waits_in_memory_and_is_saved_on_close(tmp_path: Path) -> None:
    # docs/concepts/storage.md#lazy-marker
    path = str(tmp_path / "lazy.kuzu")
    clock = ManualClock(NOW)
    store = open_store(path, engine=ENGINE)
    with gm.open(store=store, clock=clock) as mem:
        mem.add_fact("api", "runs_on", "Laravel")
        first = clock()
        clock.advance(days=1)
        mem.add_fact("api", "runs_on", "Go")
        assert store.max_system_time() == clock() > first
        assert store.all_meta()["last_write"] == clock().isoformat()
        assert "marker_unsaved" not in store.all_meta()
        raw = dict(store.run("MATCH (m:Meta) RETURN m.key, m.value"))
        assert raw["marker_unsaved"] == "1"  # flagged by the first write ...
        assert raw.get("last_write") != clock().isoformat()  # ... whose marker waits
        clock.set(first)
        with pytest.raises(gm.GraphmemError):  # the clock may not go behind it
            mem.add_fact("api", "runs_on", "Rust")
        clock.advance(days=2)
    value, flagged = _stored_marker(path)
    assert not flagged
    assert value is not None
    assert dt.datetime.fromisoformat(value) == NOW + dt.timedelta(days=1)


@pytest.mark.skipif(sys.platform == "win32", reason="needs os._exit without close")
def test_marker_kept_in_memory_survives_a_crash(tmp_path: Path) -> None:
    path = str(tmp_path / "crash.kuzu")
    done = subprocess.run(
        [sys.executable, "-c", _ABANDON, path, ENGINE], capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode()
    newest = dt.datetime(2026, 3, 2, tzinfo=UTC)
    value, flagged = _stored_marker(path)
    assert flagged
    assert value is None or dt.datetime.fromisoformat(value) < newest
    store = open_store(path, engine=ENGINE, read_only=True)
    with gm.open(store=store) as mem:  # takes it from the versions
        assert store.max_system_time() == newest
        assert check(mem).ok
    store = open_store(path, engine=ENGINE)
    with gm.open(store=store, clock=ManualClock("2026-03-05")) as mem:
        assert store.max_system_time() == newest
        assert [f.object for f in mem.facts(subject="api")] == ["Go"]
    value, flagged = _stored_marker(path)
    assert not flagged
    assert value is not None
    assert dt.datetime.fromisoformat(value) == newest


# -- opening ----------------------------------------------------------------------------------


def test_reopen_from_disk(tmp_path: Path) -> None:
    path = str(tmp_path / "r.kuzu")
    facts = [make_fact(i) for i in range(COPY_THRESHOLD + 1)]
    with fresh(path) as s:
        insert(s, facts[:10], logged=True)
        insert(s, facts[10:])
    with fresh(path) as s:
        assert stored(s) == sorted(facts, key=lambda f: f.id)


def test_schema_version_mismatch(tmp_path: Path) -> None:
    path = str(tmp_path / "v.kuzu")
    with fresh(path) as s:
        s.run("MATCH (m:Meta {key: 'schema_version'}) SET m.value = '0'")
    with pytest.raises(SchemaVersionError, match="schema version '0'"):
        open_store(path, engine=ENGINE)


def test_foreign_database_is_refused(tmp_path: Path) -> None:
    path = str(tmp_path / "f.kuzu")
    with fresh(path) as s:
        s.run("DROP TABLE MENTIONS")
        s.run("DROP TABLE Meta")
    with pytest.raises(SchemaVersionError, match="no graphmem schema"):
        open_store(path, engine=ENGINE)


def test_one_engine_per_process() -> None:
    other = next(e for e in ENGINES if e != ENGINE)
    if ENGINES[other] in sys.modules:  # pragma: no cover - only if a test loaded it
        pytest.skip(f"{other} already loaded")
    with pytest.raises(StoreError, match="one process can load only one"):
        open_store(None, engine=other)
    assert ENGINES[other] not in sys.modules


def test_prepared_statements_survive_schema_changes(store: KuzuStore) -> None:
    insert(store, [make_fact(1)])
    assert len(stored(store)) == 1
    store.run("CREATE NODE TABLE IF NOT EXISTS Extra(id STRING PRIMARY KEY)")
    insert(store, [make_fact(2)])
    assert len(stored(store)) == 2


# -- crashes ----------------------------------------------------------------------------------

_CHILD = textwrap.dedent(
    """
    import datetime as dt
    import sys
    import graphmem as gm
    from graphmem.store import open_store
    from graphmem.timeutil import ManualClock
    path, engine, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    base = dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)
    clock = ManualClock(base)
    store = open_store(path, engine=engine)
    with gm.open(store=store, clock=clock) as mem:
        mem.define_predicate("tag", cardinality="many")
        # Batches commit in order: the stored ones are 0 .. start-1.
        start = len(store.run("MATCH ()-[r:Fact]->() RETURN DISTINCT r.source"))
        print("ready", flush=True)
        for b in range(start, start + 1000):
            clock.set(base + dt.timedelta(seconds=b + 1))
            mem.add_facts(
                [{"subject": f"b{b}-s{i % 97}", "predicate": "tag", "object": f"b{b}-o{i}",
                  "source": f"batch{b}"} for i in range(n)]
            )
            print(b, flush=True)
    """
)


@pytest.mark.slow
@pytest.mark.xfail(
    ENGINE == "ladybug",
    strict=False,
    reason="ladybug 0.22 refuses to open a write-ahead log whose last record a kill cut short "
    "('Checksum verification failed, the WAL file is corrupted'), as after a full disk "
    "(test_reliability); graphmem reports it as damaged, the kill lands there only sometimes",
)
def test_kill_during_bulk_copy_keeps_whole_batches(tmp_path: Path) -> None:
    """A kill while COPY-only bulk batches commit leaves each batch whole or absent."""
    path = str(tmp_path / "k.kuzu")
    n = COPY_THRESHOLD * 4
    rng = random.Random(6)
    reported: set[int] = set()
    for _ in range(3):
        proc = subprocess.Popen(
            [sys.executable, "-c", _CHILD, path, ENGINE, str(n)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"ready\n", proc.stderr.read() if proc.stderr else ""
        time.sleep(rng.uniform(0.2, 1.5))
        proc.kill()
        out, _ = proc.communicate(timeout=60)
        reported |= {int(x) for x in out.split()}
        opened = open_store(path, engine=ENGINE)
        with gm.open(store=opened):
            counts = dict(
                opened.run("MATCH ()-[r:Fact]->() RETURN r.source, count(r) ORDER BY r.source")
            )
            marker = opened.max_system_time()
            newest = opened.run("MATCH ()-[r:Fact]->() RETURN max(r.recorded_at)")[0][0]
        assert set(counts.values()) <= {n}, counts  # whole batches only
        assert {f"batch{b}" for b in reported} <= set(counts)  # reported ones were durable
        if newest is not None:
            assert marker is not None
            assert marker >= newest.replace(tzinfo=UTC)


# -- metadata kept between reads (docs/concepts/storage.md#meta-cache) -------------------------


def _queries(store: KuzuStore, word: str = "") -> list[str]:
    """Record the queries containing ``word`` that the store's executor runs from now on."""
    asked: list[str] = []
    run = store.executor.execute

    def recording(query: str, params: dict[str, object], keep=None) -> list[list[object]]:
        if word in query:
            asked.append(query)
        return run(query, params, keep)  # type: ignore[arg-type]

    store.executor.execute = recording  # type: ignore[method-assign]
    return asked


def _meta_queries(store: KuzuStore) -> list[str]:
    return _queries(store, "Meta")


def test_metadata_is_read_once_until_the_store_writes(store: KuzuStore) -> None:
    store.set_meta("k", "1")
    asked = _meta_queries(store)
    assert [store.get_meta("k") for _ in range(3)] == ["1", "1", "1"]
    assert store.get_meta("absent") is None
    assert store.get_meta("absent") is None
    assert len(asked) == 2  # one per key
    store.set_meta("k", "2")
    assert store.get_meta("k") == "2"
    insert(store, [make_fact(1)])  # any data write drops what was kept
    asked.clear()
    assert store.get_meta("k") == "2"
    assert len(asked) == 1


def test_metadata_set_in_a_rolled_back_transaction_is_not_kept(store: KuzuStore) -> None:
    store.set_meta("k", "before")
    assert store.get_meta("k") == "before"
    seen: list[str | None] = []

    def write_then_fail() -> None:
        with store.transaction():
            store.set_meta("k", "inside")
            seen.append(store.get_meta("k"))
            raise RuntimeError("roll back")

    with pytest.raises(RuntimeError):
        write_then_fail()
    assert seen == ["inside"]  # the transaction saw its own write
    assert store.get_meta("k") == "before"


def test_a_read_only_store_asks_every_time(tmp_path: Path) -> None:
    path = str(tmp_path / "m.kuzu")
    with fresh(path) as s:
        s.set_meta("k", "1")
    s = open_store(path, engine=ENGINE, read_only=True)
    try:
        asked = _meta_queries(s)
        assert [s.get_meta("k") for _ in range(2)] == ["1", "1"]
        assert len(asked) == 2
    finally:
        s.close()


def test_a_read_only_open_sizes_its_buffer_pool_by_the_database(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # docs/concepts/storage.md#read-pool
    from graphmem.store.kuzu import connection

    path = str(tmp_path / "m.kuzu")
    with fresh(path) as s:
        s.set_meta("k", "1")
    size = sum(os.path.getsize(p) for p in (path, path + ".wal") if os.path.exists(p))
    assert connection._read_pool(path) == {"buffer_pool_size": max(2**30, 8 * size)}
    s = open_store(path, engine=ENGINE, read_only=True)
    try:
        assert s.get_meta("k") == "1"  # a capped pool reads as before
    finally:
        s.close()
    monkeypatch.setattr(connection, "READ_POOL_MIN", 2**62)  # above 80% of memory
    assert connection._read_pool(path) == {}  # the engine's default


@pytest.mark.parametrize(
    ("value", "size"),
    [("2GiB", 2**31), ("512 MiB", 2**29), ("67108864", 2**26), ("1tib", 2**40), ("", None)],
)
def test_the_buffer_pool_setting_reads_sizes(value: str, size: int | None) -> None:
    # docs/concepts/storage.md#buffer-pool
    from graphmem.store.kuzu.connection import buffer_pool

    assert buffer_pool(value) == size


@pytest.mark.parametrize("value", ["lots", "2GB", "-1GiB", "1.5GiB", "1MiB", "0"])
def test_a_buffer_pool_that_is_no_size_is_refused_naming_it(value: str) -> None:
    from graphmem.store.kuzu.connection import POOL_ENV, buffer_pool

    with pytest.raises(gm.InvalidInput, match=f"{POOL_ENV}={value!r}"):
        buffer_pool(value)


def test_the_buffer_pool_applies_to_writable_and_in_memory_opens(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphmem.store.kuzu.connection import POOL_ENV

    path = str(tmp_path / "m.kuzu")
    monkeypatch.setenv(POOL_ENV, "256MiB")
    for target in (None, path):
        with fresh(target) as s:
            assert s.executor.pool == 2**28
            s.set_meta("k", "1")
    monkeypatch.delenv(POOL_ENV)
    with fresh(path) as s:
        assert s.executor.pool is None  # the engine's default
        assert s.get_meta("k") == "1"
    monkeypatch.setenv(POOL_ENV, "a lot")
    with pytest.raises(gm.InvalidInput, match="not a size"):
        open_store(path, engine=ENGINE)
    monkeypatch.delenv(POOL_ENV)
    with fresh(path) as s:
        assert s.get_meta("k") == "1"  # the refused open changed nothing
