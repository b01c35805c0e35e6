"""Raw reads for ``graphmem check`` (and a checkpoint): every query of the integrity checker.

These methods return the stored values *as stored* (unvalidated strings; times as aware
UTC), so that :mod:`graphmem.check` can report rows that would not even load as models.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from graphmem.errors import StoreError
from graphmem.store.kuzu.engine import KuzuStore
from graphmem.store.kuzu.schema import DDL
from graphmem.timeutil import from_store

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
        return {k: v for k, v in self.run("MATCH (m:Meta) RETURN m.key, m.value")}

    def fact_states(self) -> list[tuple[Any, ...]]:
        """Return a cheap, sorted fingerprint of every version: what writes may change.

        Rows of ``(fid, recorded_at, expired_at, valid_to, superseded_by, access_count)``; no text
        columns, so a store holding megabyte strings fingerprints fast.
        """
        rows = self.run(
            "MATCH ()-[r:Fact]->() RETURN r.fid, r.recorded_at, r.expired_at, r.valid_to, "
            "r.superseded_by, r.access_count"
        )
        return sorted(
            (tuple(from_store(v) if isinstance(v, dt.datetime) else v for v in r) for r in rows),
            key=repr,
        )

    def raw_entities(self) -> list[dict[str, Any]]:
        """Return every entity's id, name and aliases."""
        rows = self.run("MATCH (e:Entity) RETURN e.id, e.name, e.aliases")
        return [{"id": r[0], "name": r[1], "aliases": list(r[2] or [])} for r in rows]

    def raw_sessions(self) -> list[dict[str, Any]]:
        """Return every session's id and times (the text is not read)."""
        rows = self.run("MATCH (s:Session) RETURN s.id, s.started_at, s.ended_at")
        return [
            {"id": r[0], "started_at": from_store(r[1]), "ended_at": from_store(r[2])} for r in rows
        ]

    def raw_mentions(self) -> list[dict[str, Any]]:
        """Return every MENTIONS edge of a session to an entity as ``{session, entity, count}``."""
        rows = self.run("MATCH (s:Session)-[m:MENTIONS]->(e:Entity) RETURN s.id, e.id, m.count")
        return [{"session": r[0], "entity": r[1], "count": r[2]} for r in rows]

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

    def raw_predicates(self) -> list[dict[str, Any]]:
        """Return every predicate definition's name, cardinality and aliases."""
        rows = self.run("MATCH (p:Predicate) RETURN p.name, p.cardinality, p.aliases")
        return [{"name": r[0], "cardinality": r[1], "aliases": list(r[2] or [])} for r in rows]

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
