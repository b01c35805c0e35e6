"""IntegrityStore on FalkorDB: raw rows for ``graphmem check`` (times decoded to aware UTC).

:class:`FalkorIntegrity` is a mixin of :class:`~graphmem.store.falkordb.FalkorStore`; the
Kuzu reference is :mod:`graphmem.store.kuzu.integrity`. Values come back unvalidated (a string
where a time belongs stays a string), so the checker can report rows that would not load as models.
"""

from __future__ import annotations

from typing import Any

from graphmem.store.falkordb.connection import FalkorBase
from graphmem.store.falkordb.order import lost_data

__all__ = ["LABELS", "RELATIONS", "FalkorIntegrity"]

#: The node labels and relationship types of the graphmem schema (``counts`` reports them).
LABELS = ("Audit", "Entity", "Meta", "Predicate", "Session", "SessionLine")
RELATIONS = ("Fact", "MENTIONS")


class FalkorIntegrity(FalkorBase):
    """Raw rows for graphmem check (IntegrityStore)."""

    def table_names(self) -> set[str]:
        """The labels and relationship types of the schema (a graph has them all, implicitly)."""
        return set(LABELS) | set(RELATIONS)

    def raw_meta(self) -> dict[str, Any]:
        """Every ``Meta`` key and value.

        Raises:
            StoreError: the graph no longer holds the memory this handle opened (its id,
                :mod:`graphmem.store.falkordb.order`): ``graphmem check`` says so.
        """
        mine = getattr(self, "memory_id", None)
        if mine is not None:
            rows = self._q("MATCH (t:GraphmemTx {key: 'tokens'}) RETURN t.memory")
            if not rows or rows[0][0] != mine:
                raise lost_data(self.url.where, mine)
        return {k: v for k, v in self._q("MATCH (m:Meta) RETURN m.key, m.value")}

    def loose_mentions(self) -> int:
        """How many MENTIONS edges do not join a stored session to a stored entity."""
        every = int(self._q("MATCH ()-[m:MENTIONS]->() RETURN count(m)")[0][0])
        joined = int(self._q("MATCH (:Session)-[m:MENTIONS]->(:Entity) RETURN count(m)")[0][0])
        return every - joined

    def orphan_entities(self) -> list[str]:
        """The sorted ids of entities with no fact, no session mention and no alias."""
        rows = self._q(
            "MATCH (e:Entity) WHERE NOT (e)-[:Fact]-() AND NOT (:Session)-[:MENTIONS]->(e) "
            "AND (e.aliases IS NULL OR size(e.aliases) = 0) RETURN e.id"
        )
        return sorted(r[0] for r in rows)

    def unfindable_entities(self) -> list[str]:
        """Sorted ids of entities the id index does not find exactly once.

        An id the server's index could not look up (one holding U+0001 stored before the
        codec escaped it) left its versions unwritten and, on every write naming it, one more
        entity (docs/falkordb.md#what-is-atomic).
        """
        ids = [r[0] for r in self._q("MATCH (e:Entity) RETURN e.id")]
        found: dict[str, int] = {}
        for i in range(0, len(ids), 10_000):
            chunk = sorted(set(ids[i : i + 10_000]))
            for eid, n in self._q(
                "UNWIND $ids AS i MATCH (e:Entity {id: i}) RETURN i, count(e)", {"ids": chunk}
            ):
                found[eid] = int(n)
        seen: dict[str, int] = {}
        for eid in ids:
            seen[eid] = seen.get(eid, 0) + 1
        return sorted(e for e, n in seen.items() if n != 1 or found.get(e) != 1)

    def counts(self) -> dict[str, int]:
        """How many nodes each label and edges each relationship type of the schema hold."""
        out: dict[str, int] = {}
        for label in LABELS:  # fixed names, not input: labels cannot be parameters
            out[label] = int(self._q(f"MATCH (n:{label}) RETURN count(n)")[0][0])
        for rel in RELATIONS:
            out[rel] = int(self._q(f"MATCH ()-[r:{rel}]->() RETURN count(r)")[0][0])
        return dict(sorted(out.items()))

    def checkpoint(self) -> None:
        """Nothing to do: the server persists by itself (its AOF / RDB settings)."""

    def vacuum(self) -> None:
        """Nothing to do here (``capabilities.vacuum`` is False).

        A deleted node or edge leaves the server's memory at once; its AOF keeps the deleted
        values until the next rewrite (``BGREWRITEAOF``, run by the operator: docs/falkordb.md).
        """
