"""TransferStore on FalkorDB: snapshots, neighbourhoods and whole-memory reads for export.

:class:`FalkorTransfer` is a mixin of :class:`~graphmem.store.falkordb.FalkorStore`; semantics
and ordering are Kuzu's (:mod:`graphmem.store.kuzu.transfer`). Whole-store reads sort in Python, so
string order is code-point order whatever the server does. The import itself is a
:class:`~graphmem.store.base.Snapshot` in a change set (:mod:`~graphmem.store.falkordb.writes`).
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

from graphmem.store.cypher import transfer as shared_transfer
from graphmem.store.cypher.walk import breadth_first
from graphmem.store.falkordb.codec import FACT_RETURN, FALKOR, fact_from_row, to_db
from graphmem.store.falkordb.connection import FalkorBase
from graphmem.store.records import Edge

__all__ = ["FalkorTransfer"]

# The closed-open rules of query_facts (docs/concepts/time.md#rule-3).
_SNAPSHOT = (
    "r.recorded_at <= $k AND (r.expired_at IS NULL OR $k < r.expired_at) "
    "AND r.valid_from <= $v AND (r.valid_to IS NULL OR $v < r.valid_to)"
)
_EDGE = f"a.id, b.id, {FACT_RETURN}"
_OUT = (
    "UNWIND $ids AS i MATCH (a:Entity {id: i})-[r:Fact]->(b:Entity) "
    f"WHERE {_SNAPSHOT} RETURN {_EDGE}"
)
_IN = (
    "UNWIND $ids AS i MATCH (a:Entity)-[r:Fact]->(b:Entity {id: i}) "
    f"WHERE {_SNAPSHOT} RETURN {_EDGE}"
)


def _fact_order(edge: Edge) -> tuple[Any, ...]:
    f = edge[2]
    return (f.subject, f.predicate, f.valid_from, f.recorded_at, f.id)


class FalkorTransfer(FalkorBase):
    """Whole-memory reads for export and graph views (TransferStore)."""

    def snapshot_edges(
        self, *, valid_at: dt.datetime, known_at: dt.datetime, subject_id: str | None = None
    ) -> list[Edge]:
        """The versions true at ``valid_at`` as believed at ``known_at``, with endpoint ids.

        The same versions as ``query_facts(valid_at=, known_at=, subject_id=)``, in its order.
        """
        params: dict[str, Any] = {"k": to_db(known_at), "v": to_db(valid_at)}
        head = "MATCH (a:Entity)-[r:Fact]->(b:Entity) "
        if subject_id is not None:
            head = "MATCH (a:Entity {id: $s})-[r:Fact]->(b:Entity) "
            params["s"] = subject_id
        rows = self._q(f"{head}WHERE {_SNAPSHOT} RETURN {_EDGE}", params)
        return sorted(shared_transfer.edges(FALKOR, rows), key=_fact_order)

    def ball(
        self, entity_id: str, hops: int, *, valid_at: dt.datetime, known_at: dt.datetime
    ) -> tuple[list[dict[str, Any]], list[Edge]] | None:
        """The entities within ``hops`` snapshot edges of an entity, and the edges among them.

        A breadth-first search over the snapshot versions following edges both ways; the
        entities are ``{id, name, kind}`` sorted by id, the edges the induced subgraph (each
        once, in no order). ``None`` when no entity has that id.
        """
        center = self._q("MATCH (e:Entity {id: $i}) RETURN e.id, e.name, e.kind", {"i": entity_id})
        if not center:
            return None
        params: dict[str, Any] = {"v": to_db(valid_at), "k": to_db(known_at)}
        nodes: dict[str, list[Any]] = {r[0]: list(r) for r in center}
        seen, frontier, rows = breadth_first(
            nodes,
            hops,
            lambda ids: itertools.chain.from_iterable(
                self._q(q, {**params, "ids": ids}) for q in (_OUT, _IN)
            ),
            key=3,  # rows: [subject id, object id, subject name, *columns]
        )
        if frontier:
            # Edges among the nodes at the radius (self-loops when hops=0).
            for row in self._q(_OUT, {**params, "ids": sorted(frontier)}):
                if row[1] in frontier:
                    rows[row[3]] = row
        missing = sorted(seen - set(nodes))
        if missing:
            for r in self._q(
                "UNWIND $ids AS i MATCH (e:Entity {id: i}) RETURN e.id, e.name, e.kind",
                {"ids": missing},
            ):
                nodes[r[0]] = list(r)
        edges = [(r[0], r[1], fact_from_row([nodes[r[0]][1], *r[3:]])) for r in rows.values()]
        entities = [
            {"id": eid, "name": name, "kind": kind}
            for eid, name, kind in sorted(nodes.values(), key=lambda n: n[0])
        ]
        return entities, edges
