"""The FalkorDB backend: graphmem's store on a FalkorDB server (one graph per memory).

:class:`FalkorStore` composes the topic mixins (facts and the one write, sessions, search,
transfer, integrity) over :class:`~graphmem.store.falkordb.connection.FalkorBase`; it is
opened with a ``falkordb://[password@]host:port/graph`` URL (``graphmem.store.open_store``).
On a writable open it creates the exact-match indexes of the schema, records the schema
version in ``Meta``, gives the graph its memory id (:mod:`~graphmem.store.falkordb.order`)
and removes staging graphs of crashed large writes. See docs/falkordb.md
and, for the write path, :mod:`graphmem.store.falkordb.writes`. Importing this package does
not import the client: the connection does, when a store opens.
"""

from __future__ import annotations

from typing import Any

from graphmem.errors import SchemaVersionError, StoreError
from graphmem.store.base import Capabilities
from graphmem.store.falkordb.connection import FalkorURL, parse_url
from graphmem.store.falkordb.facts import FalkorFacts
from graphmem.store.falkordb.integrity import LABELS, FalkorIntegrity
from graphmem.store.falkordb.search import FalkorSearch
from graphmem.store.falkordb.sessions import FalkorSessions
from graphmem.store.falkordb.transfer import FalkorTransfer
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
        if chunk_rows is not None:
            self.chunk_rows = max(1, int(chunk_rows))
        if staging_max_age is not None:
            self.staging_max_age = float(staging_max_age)
        self._connect(url, read_only=read_only)
        try:
            self._init_schema()
            self._check_terms()
            if not read_only:
                self._claim_memory()
                self._remove_stale_staging()
            else:
                rows = self._q("MATCH (t:GraphmemTx {key: 'tokens'}) RETURN t.memory")
                self.memory_id = rows[0][0] if rows else None
        except BaseException:
            self.close()
            raise

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
        self._close_connection()

    def __enter__(self) -> FalkorStore:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"FalkorStore({self.path!r}, read_only={self.read_only})"

    # -- schema ---------------------------------------------------------------------------------

    def _graph_exists(self) -> bool:
        try:
            names = self._conn.command("GRAPH.LIST") or []
        except Exception as exc:  # noqa: BLE001 - mapped to StoreError
            raise self._conn.error(exc, "GRAPH.LIST") from None
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
