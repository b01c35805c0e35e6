"""The embedded store on Kuzu 0.11.3 (default) or its fork ladybug: schema, entities, versions.

:class:`KuzuStore` is the core of the embedded backend; the topic mixins
(``sessions``, ``lines``, ``search``, ``audit``, ``transfer``, ``integrity``) extend it and
:class:`~graphmem.store.kuzu.backend.KuzuBackend` composes them. It holds its parts as
attributes (docs/concepts/storage.md#the-backends-parts), each from a module of its own:

- :mod:`~graphmem.store.kuzu.connection`: the executor, ``executor``: the engine's handles,
  open, close, checkpoints and prepared queries (the only importer of kuzu or ladybug);
- :mod:`~graphmem.store.kuzu.transactions` over :mod:`~graphmem.store.kuzu.statements`: the
  writer, ``writer``: the write transaction, with big inserts deferred to a COPY-only commit,
  and the logged writes and point reads, one prepared statement a row or one ``UNWIND`` (the
  measured query shapes, docs/concepts/storage.md#engine-facts);
- :mod:`~graphmem.store.kuzu.restore`: ``restore``, an import's rows through the writer;
- :mod:`~graphmem.store.kuzu.codec`: rows to values and back, and the Arrow tables of a COPY;
- this module: the store over its parts, the schema on open (create, upgrade, recover) and
  the reads of fact versions of the store protocol (:mod:`graphmem.store.base`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import os
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any

from graphmem.errors import SchemaVersionError, StoreBusy, StoreError
from graphmem.models import Fact
from graphmem.store import locks
from graphmem.store.cypher.reads import CypherReads
from graphmem.store.kuzu.codec import _RETURN, KUZU, _fact_from_row
from graphmem.store.kuzu.connection import (
    CHECKPOINT_BYTES,
    CHECKPOINT_COMMITS,
    ENGINES,
    KuzuConnection,
)
from graphmem.store.kuzu.restore import KuzuRestore
from graphmem.store.kuzu.schema import DDL, SCHEMA_VERSION, UPGRADES
from graphmem.store.kuzu.statements import POINT_VS_SCAN, SMALL_BATCH
from graphmem.store.kuzu.transactions import (
    COPY_PENDING,
    COPY_THRESHOLD,
    MARKER_UNSAVED,
    WRITE_COSTS,
    KuzuWriter,
)
from graphmem.store.kuzu.warm import KuzuWarmSource
from graphmem.store.warm import WarmSource

__all__ = [
    "CHECKPOINT_BYTES",
    "CHECKPOINT_COMMITS",
    "COPY_THRESHOLD",
    "ENGINES",
    "POINT_VS_SCAN",
    "SMALL_BATCH",
    "WRITE_COSTS",
    "KuzuStore",
]

#: Seconds a read-only open waits to see a bulk write a crash cut short finished
#: (docs/concepts/storage.md#read-only-recovery).
CUT_WRITE_WAIT = 5.0


class KuzuStore(CypherReads):
    """Graphmem's storage on a Kuzu-family engine (one database, one connection).

    Its parts (docs/concepts/storage.md#the-backends-parts): :attr:`executor`, the engine's
    handles, :attr:`writer`, the transactions and logged writes over it, and :attr:`restore`,
    the import's writes through the writer.
    """

    dialect = KUZU

    def __init__(
        self, path: str | None = None, *, engine: str = "kuzu", read_only: bool = False
    ) -> None:
        #: The engine's handles, checkpoints and prepared queries.
        self.executor = KuzuConnection(
            path, engine=engine, read_only=read_only, on_write=self._on_write()
        )
        #: The write transaction, its deferred COPY and the logged writes.
        self.writer = KuzuWriter(self.executor)
        #: The import's writes (a snapshot restored in the writer's transaction).
        self.restore = KuzuRestore(self.writer)
        self.executor.open(self)
        try:
            self._init_schema()
            if read_only and path is not None:
                self._finish_cut_write()
            self.executor.size = self._recover()
            if path is not None and not read_only:
                # A purge's file rebuild that a crash cut short is finished first (vacuum).
                from graphmem.store.kuzu.vacuum import finish_interrupted

                finish_interrupted(self)
        except BaseException:
            self.close()
            raise

    # -- the parts' faces ------------------------------------------------------------------------

    @property
    def path(self) -> str | None:
        """The database file (``None``: in memory)."""
        return self.executor.path

    @property
    def engine(self) -> str:
        """The engine's name (``kuzu`` or ``ladybug``)."""
        return self.executor.engine

    @property
    def read_only(self) -> bool:
        """Whether the store was opened read-only."""
        return self.executor.read_only

    @property
    def recovered(self) -> str | None:
        """What the open recovered (a killed checkpoint's copy put back), or ``None``."""
        return self.executor.recovered

    @property
    def in_transaction(self) -> bool:
        """Whether a write transaction is open."""
        return self.writer.in_tx

    def _on_write(self) -> Callable[[], None] | None:
        """The executor's hook before each statement that changes data (the version cache's)."""
        return None

    def fts_available(self) -> bool:
        """Return whether the engine has the full-text-search extension (Kuzu has it built in)."""
        return self.executor.fts_available()

    def close(self) -> None:
        """Save the marker, close the connection and the database; seal a file left whole."""
        self.save_marker()
        self.executor.close()

    def detach(self) -> None:
        """Close the engine's handles but keep this store's claim (vacuum swaps the file)."""
        self.save_marker()
        self.executor.detach()

    def save_marker(self) -> None:
        """Write the marker a writable store kept in memory (docs/concepts/storage.md#lazy-marker).

        Failing (a full disk), the flag stays and the next open takes the newest time from the
        versions.
        """
        if self.read_only or self.executor.conn is None:
            return
        with contextlib.suppress(StoreError):
            self.writer.save_marker()

    def attach(self) -> None:
        """Reopen the engine's handles after :meth:`detach`.

        Raises:
            StoreBusy: another process opened the database in between.
            StoreError: the engine cannot open it.
        """
        self.executor.attach()

    @contextlib.contextmanager
    def file_swap(self) -> Iterator[None]:
        """Close the handles under the gate, let the caller replace the file, reopen them.

        The store keeps its claim on the database meanwhile, and no other process opens the
        file (storage.md#the-gate). When the body raises, the handles stay closed.

        Raises:
            StoreBusy: another process opened the database in between.
            StoreError: the engine cannot open the replaced file.
        """
        with self.executor.gated():
            self.detach()
            yield
            self.attach()

    def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Execute one parameterised query and return all rows (through the writer).

        Raises:
            StoreError: the engine failed; the message includes its own.
        """
        return self.writer.run(query, params)

    def _q(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Run one read of this store (after the writer's deferred rows)."""
        return self.writer.execute(query, params)

    def transaction(self) -> contextlib.AbstractContextManager[None]:
        """Run the block in one write transaction: all of it is applied or none."""
        return self.writer.transaction()

    def get_meta(self, key: str) -> str | None:
        """Return a metadata value, or ``None``."""
        return self.writer.get_meta(key)

    def all_meta(self) -> dict[str, str]:
        """Return every metadata key and value, by key, as :meth:`get_meta` gives them.

        The flag of a marker kept in memory belongs to the file, not to its data
        (docs/concepts/storage.md#lazy-marker).
        """
        meta = super().all_meta()
        meta.pop(MARKER_UNSAVED, None)
        if "last_write" in meta or self.writer.unsaved_marker is not None:
            meta["last_write"] = self.writer.get_meta("last_write") or ""
        return dict(sorted(meta.items()))

    def set_meta(self, key: str, value: str) -> None:
        """Set a metadata value."""
        self.writer.set_meta(key, value)

    def entity_names(self, ids: Sequence[str]) -> dict[str, str]:
        """Return ``{id: display name}`` for those ids that exist."""
        return self.writer.entity_names(ids)

    # -- the schema -----------------------------------------------------------------------------

    def _init_schema(self) -> None:
        tables = {row[0] for row in self.run("CALL show_tables() RETURN name")}
        if "Meta" in tables:
            rows = self.run("MATCH (m:Meta {key: 'schema_version'}) RETURN m.value")
            found = rows[0][0] if rows else None
            if found in UPGRADES and not self.read_only:
                self._upgrade(found)
                return
            if found in UPGRADES:
                raise SchemaVersionError(
                    f"database {self.path!r} has graphmem schema version {found!r}, this graphmem "
                    f"needs {SCHEMA_VERSION}; open it once without read_only (CLI: without "
                    "--read-only) to upgrade it in place"
                )
            if found != str(SCHEMA_VERSION):
                raise SchemaVersionError(
                    f"database {self.path!r} has graphmem schema version {found!r}, this graphmem "
                    f"needs {SCHEMA_VERSION}; export it with the graphmem that wrote it "
                    "('graphmem export') and import it into a new database"
                )
            return
        if not tables and self.read_only:
            raise StoreError(f"database {self.path!r} is empty and opened read-only")
        if tables:
            raise SchemaVersionError(
                f"database {self.path!r} holds tables {sorted(tables)} but no graphmem schema; "
                "open another path"
            )
        with self.transaction():
            for stmt in DDL:
                self.run(stmt)
            self.run(
                "CREATE (:Meta {key: 'schema_version', value: $v})", {"v": str(SCHEMA_VERSION)}
            )

    def _upgrade(self, found: str) -> None:
        """Upgrade an older schema in one transaction (``graphmem.store.kuzu.schema.UPGRADES``)."""
        with self.transaction():
            for stmt in UPGRADES[found]:
                self.run(stmt)
            self._upgrade_data(found)
            self.set_meta("schema_version", str(SCHEMA_VERSION))

    def _upgrade_data(self, found: str) -> None:
        """Fill what an upgrade's DDL added (the lines topic overrides it: KuzuLines).

        ``found`` is the version upgraded from; schema 3's ``Fact.source_type`` stays NULL on
        the versions written before it (nobody said who said them).
        """

    def _finish_cut_write(self) -> None:
        """Finish a bulk write a crash cut between its commits before a read-only open reads.

        A write's record (``copy_pending``: docs/concepts/storage.md#read-only-recovery) means
        its versions and its closes, or its nodes and its versions, are in separate commits
        that a kill can part; a writable open finishes or removes it, a read-only one cannot.
        So this store closes, a writable open of the file (in this process) repairs it, and the
        store opens read-only again. While a writer holds the file (ladybug lets readers join
        it), its next commit removes the record: the store reopens until it is gone.

        Raises:
            StoreBusy: the record stayed for :data:`CUT_WRITE_WAIT` seconds (other readers
                held the file, so no writable open could repair it).
        """
        path = os.fspath(self.executor.path or "")
        deadline = time.monotonic() + CUT_WRITE_WAIT
        while self.writer.get_meta(COPY_PENDING) is not None:
            self.executor.close()
            try:
                if not any(mode == "WRITE" for _, mode in locks.lock_holders(path)):
                    with contextlib.suppress(StoreBusy):
                        type(self)(path, engine=self.engine).close()  # its open repairs
                if time.monotonic() > deadline:
                    raise StoreBusy(
                        f"database {path!r} holds a bulk write a crash cut short, and other "
                        "processes held it while this read-only open waited to finish it; "
                        "close them, then open it once without read_only (CLI: without "
                        "--read-only) (docs/concepts/storage.md#read-only-recovery)"
                    )
                time.sleep(0.05)
            finally:
                if self.executor.conn is None:
                    self.executor.open(self)

    def _recover(self) -> int:
        """Return how many entities and versions are stored; repair a lagging marker.

        A crash between a COPY-only commit and its marker's commit, or of a process that kept
        the marker in memory (Meta flagged, docs/concepts/storage.md#lazy-marker), leaves the
        ``last_write`` marker behind the data; a writable open moves it up to the newest system
        time stored, a read-only one keeps that time in memory.
        """
        flagged = self.get_meta(MARKER_UNSAVED) is not None
        if self.read_only and not flagged:  # the count alone (a scan of no column)
            versions = self._q("MATCH ()-[r:Fact]->() RETURN count(*)")[0][0]
            return int(self._q("MATCH (e:Entity) RETURN count(*)")[0][0]) + int(versions)
        if not self.read_only:
            self.writer.undo_copy_pending()
        rows = self._q(
            "MATCH ()-[r:Fact]->() RETURN max(r.recorded_at), max(r.expired_at), count(r)"
        )
        entities = int(self._q("MATCH (e:Entity) RETURN count(e)")[0][0])
        count = int(rows[0][2]) if rows and rows[0][2] else 0
        marker = self.max_system_time()
        newest = max((t for t in rows[0][:2] if t is not None), default=None) if count else None
        if newest is not None:
            newest = newest.replace(tzinfo=dt.timezone.utc)
        lags = newest is not None and (marker is None or marker < newest)
        if self.read_only:
            if lags and newest is not None:  # known to this process only: nothing is written
                self.writer.unsaved_marker = newest.isoformat()
        elif lags or flagged:
            with self.transaction():
                if lags and newest is not None:
                    self.writer.set_max_system_time(newest)
                self.writer.execute(
                    "MATCH (m:Meta {key: $k}) DELETE m", {"k": MARKER_UNSAVED}, write=True
                )
        return entities + count

    # -- fact versions --------------------------------------------------------------------------

    def current_versions(
        self,
        subject_ids: Sequence[str],
        *,
        pairs: Collection[tuple[str, str]] | None = None,
    ) -> dict[str, list[Fact]]:
        """Return the versions not closed in system time, per subject id.

        With ``pairs`` (``(subject id, predicate)``), only the versions of those pairs: a write
        whose rules look at one predicate of a subject reads a tenth of the rows (converting a
        row costs about 10 µs, docs/benchmarks.md#appending). One prepared point query per subject
        (or pair) while :meth:`~graphmem.store.kuzu.statements.KuzuStatements.point_lookups`
        says so, else one ``UNWIND`` query.
        """
        if pairs is not None and subject_ids:
            return self._current_of_pairs({s: [] for s in subject_ids}, pairs)
        return self._versions_of(subject_ids, current=True)

    def _subject_versions(self, ids: Sequence[str]) -> dict[str, list[Fact]]:
        """Every version of each subject, current and closed: what the version cache keeps."""
        return self._versions_of(ids, current=False)

    def _warm_source(self) -> WarmSource | None:
        """Whole-store reads on a second connection (docs/concepts/storage.md#warming)."""
        conn = self.executor.side_connection()
        return None if conn is None else KuzuWarmSource(conn)

    def _versions_of(self, ids: Sequence[str], *, current: bool) -> dict[str, list[Fact]]:
        """The versions of each subject (``current``: only those not closed in system time).

        One prepared point query a subject for few ids (``point_lookups``), else one ``UNWIND``;
        without the object node (joining it doubles a point read on Kuzu 0.11.3); the
        rel-property filter goes behind a ``WITH``
        (docs/concepts/storage.md#kuzu-planner-traps-we-avoid).
        """
        out: dict[str, list[Fact]] = {s: [] for s in ids}
        if not out:
            return out
        live = "WHERE r.expired_at IS NULL"
        point_filter = f" WITH a, r {live}" if current else ""
        batch_filter = f" WITH i, a, r {live}" if current else ""
        if self.writer.point_lookups(len(out)):
            query = f"MATCH (a:Entity {{id: $i}})-[r:Fact]->(){point_filter} RETURN {_RETURN}"
            for i in out:
                out[i] = [_fact_from_row(row) for row in self._q(query, {"i": i})]
            return out
        rows = self._q(
            f"UNWIND $ids AS i MATCH (a:Entity {{id: i}})-[r:Fact]->(){batch_filter} "
            f"RETURN i, {_RETURN}",
            {"ids": list(out)},
        )
        for row in rows:
            out[row[0]].append(_fact_from_row(row[1:]))
        return out

    def _current_of_pairs(
        self, out: dict[str, list[Fact]], pairs: Collection[tuple[str, str]]
    ) -> dict[str, list[Fact]]:
        wanted = [(s, p) for s, p in dict.fromkeys(pairs) if s in out]
        if self.writer.point_lookups(len(wanted)):
            query = (
                "MATCH (a:Entity {id: $i})-[r:Fact]->() "
                f"WITH a, r WHERE r.predicate = $p AND r.expired_at IS NULL RETURN {_RETURN}"
            )
            for i, p in wanted:
                out[i].extend(_fact_from_row(row) for row in self._q(query, {"i": i, "p": p}))
            return out
        if not wanted:
            return out
        # The subjects' rows, filtered as they come: matching each pair's predicate in the
        # query took 4x the engine time (1.1 s against 0.28 s for 9.5k pairs at 200k versions);
        # the rows not kept are neither held nor converted (docs/benchmarks.md#appending).
        keep = set(wanted)
        rows = self.writer.execute(
            "UNWIND $ids AS i MATCH (a:Entity {id: i})-[r:Fact]->() "
            f"WITH i, a, r WHERE r.expired_at IS NULL RETURN i, {_RETURN}",
            {"ids": list(dict.fromkeys(s for s, _ in wanted))},
            keep=lambda row: (row[0], row[3]) in keep,
        )
        for row in rows:
            out[row[0]].append(_fact_from_row(row[1:]))
        return out

    def get_facts(self, fids: Sequence[str]) -> list[Fact]:
        """Return versions by id (a scan: rel properties have no index)."""
        if not fids:
            return []
        rows = self._q(
            f"MATCH (a:Entity)-[r:Fact]->() WITH a, r WHERE r.fid IN $f RETURN {_RETURN}",
            {"f": list(fids)},
        )
        return [_fact_from_row(r) for r in rows]

    def max_system_time(self) -> dt.datetime | None:
        """Return the newest system-time instant written (a recorded_at or expired_at)."""
        value = self.get_meta("last_write")
        return dt.datetime.fromisoformat(value) if value else None
