"""The FalkorDB backend: graphmem's store on a FalkorDB server (one graph per memory).

:class:`FalkorStore` is made of parts (docs/concepts/storage.md#the-backends-parts): its
``executor`` (:class:`~graphmem.store.falkordb.connection.FalkorExecutor`: the connection pool
and the queries), its writer ``lock`` (:class:`~graphmem.store.falkordb.order.WriterLock`: the
lock, the fence and the memory's id) and its ``writer``
(:class:`~graphmem.store.falkordb.writes.FalkorWriter`: the one write), and of the topic
mixins (facts, sessions, search, transfer, integrity) over
:class:`~graphmem.store.falkordb.connection.FalkorBase`; it is
opened with a ``falkordb://[password@]host:port/graph`` URL (``graphmem.store.open_store``).
On a writable open it creates the exact-match indexes of the schema, records the schema
version in ``Meta``, gives the graph its memory id (:mod:`~graphmem.store.falkordb.order`)
and removes staging graphs of crashed large writes. See docs/falkordb.md
and, for the write path, :mod:`graphmem.store.falkordb.writes`. Importing this package does
not import the client: the connection does, when a store opens.
"""

from __future__ import annotations

import datetime as dt
from contextlib import AbstractContextManager
from typing import Any

from graphmem.errors import SchemaVersionError, StoreError
from graphmem.store.base import Applied, Capabilities, ChangeSet
from graphmem.store.falkordb.connection import FalkorExecutor, FalkorURL, parse_url
from graphmem.store.falkordb.facts import FalkorFacts
from graphmem.store.falkordb.integrity import LABELS, FalkorIntegrity
from graphmem.store.falkordb.order import WriterLock
from graphmem.store.falkordb.search import FalkorSearch
from graphmem.store.falkordb.sessions import FalkorSessions
from graphmem.store.falkordb.transfer import FalkorTransfer
from graphmem.store.falkordb.writes import FalkorWriter
from graphmem.store.schema import SCHEMA_VERSION as _KUZU_SCHEMA_VERSION

__all__ = ["INDEXES", "SCHEMA_VERSION", "FalkorStore", "FalkorURL", "parse_url"]

#: The schema version kept in ``Meta`` (``schema_version``): graphmem's data model version
#: (:data:`graphmem.store.schema.SCHEMA_VERSION`, which ``graphmem check`` expects); a graph of
#: another version refuses to open.
SCHEMA_VERSION = str(_KUZU_SCHEMA_VERSION)

#: Exact-match (range) indexes: ``(kind, label, property)``, kind ``node`` or ``edge``.
INDEXES: tuple[tuple[str, str, str], ...] = (
    ("node", "Entity", "id"),
    ("node", "Predicate", "name"),
    ("node", "Meta", "key"),
    ("node", "Session", "id"),
    ("node", "Session", "started_at"),
    ("node", "SessionLine", "id"),
    ("node", "SessionLine", "session"),
    ("node", "Audit", "id"),
    ("node", "GraphmemTx", "key"),
    ("edge", "Fact", "fid"),
    ("edge", "Fact", "predicate"),
    ("edge", "Fact", "expired_at"),
    ("edge", "Fact", "source"),
)


class FalkorStore(FalkorFacts, FalkorSessions, FalkorSearch, FalkorTransfer, FalkorIntegrity):
    """A graphmem store in one graph of a FalkorDB server.

    Args:
        url: ``falkordb://[password@]host[:port]/graph[?tls=1&timeout=S&pool=N]``.
        read_only: refuse writes (and do not create the schema).
        chunk_rows: stage change sets of more rows than this (default
            :data:`~graphmem.store.falkordb.writes.CHUNK_ROWS`).
        staging_max_age: seconds after which a crashed write's staging graph is removed on
            open (default :data:`~graphmem.store.falkordb.writes.STAGING_MAX_AGE`).

    Raises:
        InvalidInput: a malformed URL (no graph name, a bad option).
        StoreError: the server is unreachable, refuses the password, or the graph is empty
            and opened read-only.
        SchemaVersionError: the graph holds another schema version or no graphmem data.
    """

    engine = "falkordb"

    def __init__(
        self,
        url: str | FalkorURL,
        *,
        read_only: bool = False,
        chunk_rows: int | None = None,
        staging_max_age: float | None = None,
    ) -> None:
        #: The connection pool and the queries.
        self.executor = FalkorExecutor(url, read_only=read_only)
        #: The writer lock, the fence and the memory's id.
        self.lock = WriterLock(self.executor)
        #: The one write: a change set planned into one query, or staged when huge.
        self.writer = FalkorWriter(
            self.executor, self.lock, chunk_rows=chunk_rows, staging_max_age=staging_max_age
        )
        try:
            self._init_schema()
            self._check_terms()
            if not read_only:
                self.lock.claim_memory()
                self.writer.remove_stale_staging()
            else:
                self.lock.read_memory()
        except BaseException:
            self.close()
            raise

    @property
    def memory_id(self) -> str | None:
        """The id of the memory this handle opened (``None`` for a graph never written)."""
        return self.lock.memory_id

    def exclusive(self) -> AbstractContextManager[dt.datetime | None]:
        """Hold the memory's writer lock (:meth:`WriterLock.exclusive`)."""
        return self.lock.exclusive()

    def apply(self, changes: ChangeSet) -> Applied:
        """Commit ``changes`` as one query (:meth:`FalkorWriter.apply`); the line index follows."""
        applied, lines = self.writer.apply(changes)
        if lines is not None:
            self._note_lines(*lines)
        return applied

    @property
    def capabilities(self) -> Capabilities:
        """One query per change set, no COPY, full text (RediSearch), a server."""
        return Capabilities(
            transactions=False, bulk_copy=False, full_text=True, vacuum=False, embedded=False
        )

    def run(self, query: str, params: dict[str, Any] | None = None) -> list[list[Any]]:
        """Run a raw Cypher query on this store's graph and return its rows (tools and tests).

        Values must be parameters; a write goes around :meth:`apply` (no marker, no token).
        """
        return self._w(query, params) if not self.read_only else self._q(query, params)

    def close(self) -> None:
        """Close the connections (the server keeps the data)."""
        self.executor.close()

    def __enter__(self) -> FalkorStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"FalkorStore({self.path!r}, read_only={self.read_only})"

    # -- schema ---------------------------------------------------------------------------------

    def _graph_exists(self) -> bool:
        try:
            conn = self.executor.connection()
            names = conn.command("GRAPH.LIST") or []
        except StoreError:
            raise
        except Exception as exc:  # noqa: BLE001 - mapped to StoreError
            raise conn.error(exc, "GRAPH.LIST") from None
        return self.graph in names

    def _init_schema(self) -> None:
        exists = self._graph_exists()
        if not exists and self.read_only:
            raise StoreError(
                f"graph {self.path} does not exist and the store is opened read-only; open it "
                "writable once (it is created empty) or check the graph name"
            )
        found = None
        if exists:
            rows = self._q("MATCH (m:Meta {key: 'schema_version'}) RETURN m.value")
            found = rows[0][0] if rows else None
            if found is None:
                used = [
                    label
                    for label in self._q("CALL db.labels() YIELD label RETURN label")
                    if label and label[0] not in LABELS
                ]
                data = self._q("MATCH (n) RETURN count(n)")[0][0]
                if data:
                    raise SchemaVersionError(
                        f"graph {self.path} holds {data} nodes but no graphmem schema"
                        f"{' (labels ' + ', '.join(str(u[0]) for u in used) + ')' if used else ''}"
                        "; use another graph name in the URL"
                    )
            elif found in ("2", "3") and not self.read_only:
                # Schema 3 adds Fact.source_type, 4 Fact.scope and Session.scope: properties
                # older nodes and edges simply lack (NULL, the root scope).
                self._w(
                    "MATCH (m:Meta {key: 'schema_version'}) SET m.value = $v", {"v": SCHEMA_VERSION}
                )
            elif found != SCHEMA_VERSION:
                raise SchemaVersionError(
                    f"graph {self.path} has graphmem schema version {found!r}, this graphmem "
                    f"needs {SCHEMA_VERSION!r}; export it with the graphmem that wrote it "
                    "('graphmem export') and import it into a new graph"
                )
        if self.read_only:
            return
        if found is None:  # creates the graph when missing
            self._w(
                "MERGE (m:Meta {key: 'schema_version'}) ON CREATE SET m.value = $v",
                {"v": SCHEMA_VERSION},
            )
        self._ensure_indexes()

    def _ensure_indexes(self) -> None:
        have: set[tuple[str, str, str]] = set()
        rows = self._q("CALL db.indexes() YIELD label, properties, types, entitytype")
        for label, props, types, entity in rows:
            kind = "edge" if str(entity).upper() == "RELATIONSHIP" else "node"
            for prop in props or ():
                if "RANGE" in ((types or {}).get(prop) or ()):
                    have.add((kind, label, prop))
        for kind, label, prop in INDEXES:
            if (kind, label, prop) in have:
                continue
            # Labels and properties are the fixed names above, never input.
            pattern = f"(n:{label})" if kind == "node" else f"()-[n:{label}]-()"
            try:
                self._w(f"CREATE INDEX FOR {pattern} ON (n.{prop})")
            except StoreError as exc:
                if "already indexed" not in str(exc).lower():
                    raise
