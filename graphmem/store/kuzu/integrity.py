"""Raw reads for ``graphmem check`` (and a checkpoint): every query of the integrity checker.

These methods return the stored values *as stored* (unvalidated strings; times as aware
UTC), so that :mod:`graphmem.check` can report rows that would not even load as models.
"""

from __future__ import annotations

from typing import Any

from graphmem.errors import StoreError
from graphmem.store.kuzu.engine import KuzuStore
from graphmem.store.kuzu.schema import DDL

__all__ = ["KuzuIntegrity"]

NODE_TABLES = frozenset(
    stmt.split("EXISTS ")[1].split("(")[0] for stmt in DDL if stmt.startswith("CREATE NODE")
)
REL_TABLES = frozenset(
    stmt.split("EXISTS ")[1].split("(")[0] for stmt in DDL if stmt.startswith("CREATE REL")
)


class KuzuIntegrity(KuzuStore):
    """Raw rows for graphmem check on Kuzu (IntegrityStore)."""

    def table_names(self) -> set[str]:
        """Return the names of the tables in the database."""
        return {row[0] for row in self.run("CALL show_tables() RETURN name")}

    def raw_meta(self) -> dict[str, Any]:
        """Return every ``Meta`` key and value."""
        meta = {k: v for k, v in self.run("MATCH (m:Meta) RETURN m.key, m.value")}
        if self.writer.unsaved_marker is not None:  # docs/concepts/storage.md#lazy-marker
            meta["last_write"] = self.writer.get_meta("last_write")
        return meta

    def loose_mentions(self) -> int:
        """Return how many MENTIONS edges do not join a stored session to a stored entity."""
        every = int(self.run("MATCH ()-[m:MENTIONS]->() RETURN count(m)")[0][0])
        # Counted by the ends' ids: an edge into a deleted node is counted by count(m) alone
        # (docs/concepts/storage.md#purged-group).
        joined = int(
            self.run("MATCH (s:Session)-[m:MENTIONS]->(e:Entity) RETURN count(s.id + e.id)")[0][0]
        )
        return every - joined

    def orphan_entities(self) -> list[str]:
        """Return the sorted ids of entities with no fact, no session mention and no alias."""
        rows = self.run(
            "MATCH (e:Entity) WHERE NOT EXISTS { MATCH (e)-[:Fact]-() } "
            "AND NOT EXISTS { MATCH (:Session)-[:MENTIONS]->(e) } "
            "AND (e.aliases IS NULL OR size(e.aliases) = 0) RETURN e.id ORDER BY e.id"
        )
        return [r[0] for r in rows]

    def unfindable_entities(self) -> list[str]:
        """None: Kuzu's primary key finds every entity, and an id is unique."""
        return []

    def counts(self) -> dict[str, int]:
        """Return how many rows each table holds (node and rel tables alike)."""
        out: dict[str, int] = {}
        for name in sorted(self.table_names()):
            # Table names come from the catalogue, not from input; labels cannot be parameters.
            if name in NODE_TABLES:
                out[name] = int(self.run(f"MATCH (n:{name}) RETURN count(n)")[0][0])
            elif name in REL_TABLES:
                out[name] = int(self.run(f"MATCH ()-[r:{name}]->() RETURN count(r)")[0][0])
        return out

    def checkpoint(self) -> None:
        """Merge the write-ahead log into the database file (Kuzu ``CHECKPOINT``, copy first)."""
        try:
            self.executor.checkpoint_now()
        except (RuntimeError, OSError) as exc:
            raise StoreError(f"checkpoint of {self.path!r} failed: {exc}") from exc
