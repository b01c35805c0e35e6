"""Store queries for snapshots, neighbourhoods and the lossless export of a whole store.

Functions take a :class:`~graphmem.store.kuzu.engine.KuzuStore`; :mod:`graphmem.export` builds
graphs and files on top of them. Rows come back as plain values (entity ids, JSON-ready dicts or
:class:`~graphmem.models.Fact` models); nothing here knows about file formats. The import's
writes are the store's ``restore`` part (:mod:`graphmem.store.kuzu.restore`).

**Neighbourhoods** (:meth:`ball`). Query shapes measured on Kuzu 0.11.3 with 1M facts, 100k
entities and an out-degree of about 10, on 2 shared cores. A 2-hop ball holds 110-370 entities
there, a 3-hop ball 2.4k-4.7k.

- Rel properties are cheap only along adjacency from entities the plan picks one by one. Two
  shapes do that: a primary-key point query (1.3 ms for one entity's edges, every column) and a
  node scan filtered by ``offset(ID(a)) IN $ids`` (3 ms at 1 id, 7 ms at 20, 89 ms at 250). The
  list test costs about 0.035 ms per id at 100k entities.
- Everything else scans every edge or every entity:
  - ``UNWIND $ids AS i MATCH (a:Entity {id: i})-[r:Fact]->(b)`` is a hash join over all edges
    (0.6-0.8 s a query);
  - the filter on the far node (``(a)-[r]->(b) WHERE offset(ID(b)) IN ...``) costs 200 ms at
    20 ids, against 5-9 ms written ``(b)<-[r]-(a)``: the filtered node comes first;
  - naming the far end (``b.id``) adds 2.5 ms to a point query;
  - extending a variable-length result (``(c)-[:Fact* SHORTEST 1..2]-(a)-[r:Fact]->(b)``) costs
    310 ms. Semi-masks select 2048-row vectors, and a few hundred scattered entities touch them
    all;
  - path properties (``rels(p)``) cost 0.8-1.4 s;
  - ``UNWIND`` over offsets is a cross product, 4x slower than ``IN``.
- So the search names entities by offset, and reads their ids, names and kinds once at the end.
  That scan reads the columns of every entity (8-10 ms, whatever the list).
- A single-source variable-length query finds a 2-hop ball in 12 ms (20 ms with names). It is
  not used: its bound must be a literal of at most 30, and the whole search was no faster with
  it (51-54 ms against 49-72 ms).
- Edges among the nodes at the radius: reading every edge of the ~230 radius nodes costs 80 ms.
  ``_LINKED`` finds the few nodes that have such an edge, reading only the snapshot columns, in
  13 ms; their edges then take 3 ms.
- Kuzu 0.11.3 segfaults on a prepared statement that uses one list parameter on both sides of a
  ``WITH`` (ladybug does not), so ``_LINKED`` passes the list twice under two names.
- Result, p50 over 20 random entities for 0 / 1 / 2 / 3 hops:
  - now: 2 ms / 17-21 ms / 50-71 ms / 0.64 s;
  - before (``UNWIND`` per hop and direction): 1.5 s / 2.8 s / 3.8 s / 6.7 s.
  A 2-hop call spends 11 ms on out-edges (3 queries), 8 ms on in-edges (2), 13 ms on
  ``_LINKED``, 16 ms on the entities and 4 ms in Python. ladybug 0.22 on the same data takes
  2 ms / 17 ms / 44 ms / 0.41 s, against 0.9 s / 1.4 s / 2.4 s / 4.5 s before.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

from graphmem.store.cypher import transfer as shared_transfer
from graphmem.store.cypher.walk import breadth_first
from graphmem.store.kuzu.codec import _COLS, _RETURN, KUZU, _fact_from_row
from graphmem.store.kuzu.lines import KuzuLines
from graphmem.store.records import Edge
from graphmem.timeutil import to_store

__all__ = ["EXPORTED_TABLES", "KuzuTransfer"]

#: Every table of ``graphmem.store.kuzu.schema.DDL`` that an export carries (a test keeps it in
#: sync).
#: ``SessionLine`` is carried by the session texts: an import splits them again
#: (:func:`create_sessions`).
EXPORTED_TABLES = frozenset(
    {"Meta", "Entity", "Predicate", "Session", "SessionLine", "Audit", "Fact", "MENTIONS"}
)


# The same closed-open rules as KuzuStore.query_facts (docs/concepts/time.md#rule-3); always
# behind a WITH
# barrier (docs/concepts/storage.md#with-barrier: filters on rel properties without it scan every
# edge).
_SNAPSHOT = (
    "r.recorded_at <= $k AND (r.expired_at IS NULL OR $k < r.expired_at) "
    "AND r.valid_from <= $v AND (r.valid_to IS NULL OR $v < r.valid_to)"
)


def _snapshot_where(valid_at: dt.datetime, known_at: dt.datetime, params: dict[str, Any]) -> str:
    params["k"] = to_store(known_at)
    params["v"] = to_store(valid_at)
    return f"WITH a, r, b WHERE {_SNAPSHOT} "


# Neighbourhood queries name entities by their row offset in the Entity table, never by id
# (module docstring). The filtered node comes first in each pattern.
_EDGE_COLUMNS = "offset(ID(a)), offset(ID(b)), " + ", ".join(f"r.{c}" for c in _COLS)
_OUT_EDGES = (
    "MATCH (a:Entity)-[r:Fact]->(b:Entity) WHERE offset(ID(a)) IN $ids "
    f"WITH a, r, b WHERE {_SNAPSHOT} RETURN {_EDGE_COLUMNS}"
)
_IN_EDGES = (
    "MATCH (b:Entity)<-[r:Fact]-(a:Entity) WHERE offset(ID(b)) IN $ids "
    f"WITH a, r, b WHERE {_SNAPSHOT} RETURN {_EDGE_COLUMNS}"
)
# The nodes of $ids with a snapshot edge to a node of $far (the same list under a second name:
# Kuzu 0.11.3 crashes on a prepared list parameter used on both sides of a WITH).
_LINKED = (
    "MATCH (a:Entity)-[r:Fact]->(b:Entity) WHERE offset(ID(a)) IN $ids "
    f"WITH a, r, b WHERE offset(ID(b)) IN $far AND {_SNAPSHOT} RETURN DISTINCT offset(ID(a))"
)
_NODES = "MATCH (e:Entity) WHERE offset(ID(e)) IN $ids RETURN offset(ID(e)), e.id, e.name, e.kind"


class KuzuTransfer(KuzuLines):
    """Whole-memory reads on Kuzu (TransferStore)."""

    def snapshot_edges(
        self,
        *,
        valid_at: dt.datetime,
        known_at: dt.datetime,
        subject_id: str | None = None,
    ) -> list[Edge]:
        """Return the versions true at ``valid_at`` as believed at ``known_at``, with endpoint ids.

        The same versions as ``query_facts(valid_at=, known_at=, subject_id=)``, in the same order.
        """
        params: dict[str, Any] = {}
        if subject_id is None:
            match = "MATCH (a:Entity)-[r:Fact]->(b:Entity) "
        else:
            match = "MATCH (a:Entity {id: $s})-[r:Fact]->(b:Entity) "
            params["s"] = subject_id
        where = _snapshot_where(valid_at, known_at, params)
        rows = self.run(
            f"{match}{where}RETURN a.id, b.id, {_RETURN} "
            "ORDER BY subject, r.predicate, r.valid_from, r.recorded_at, r.fid",
            params,
        )
        return shared_transfer.edges(KUZU, rows)

    def ball(
        self,
        entity_id: str,
        hops: int,
        *,
        valid_at: dt.datetime,
        known_at: dt.datetime,
    ) -> tuple[list[dict[str, Any]], list[Edge]] | None:
        """Return the entities within ``hops`` snapshot edges of an entity and the edges among them.

        A breadth-first search over the snapshot versions (those of :meth:`snapshot_edges`),
        following edges both ways. The entities are ``{id, name, kind}`` dicts sorted by id; the
        edges are every snapshot version between two of them (the induced subgraph), each once, in
        no particular order. ``None`` when no entity has that id.

        The queries see the store as it is when each runs: hold the memory's lock around the call.
        """
        center = self.run(
            "MATCH (e:Entity {id: $i}) RETURN offset(ID(e)), e.id, e.name, e.kind", {"i": entity_id}
        )
        if not center:
            return None
        params: dict[str, Any] = {"v": to_store(valid_at), "k": to_store(known_at)}
        nodes = {row[0]: row[1:] for row in center}  # offset -> [id, name, kind]
        seen, frontier, rows = breadth_first(
            nodes,
            hops,
            lambda ids: itertools.chain.from_iterable(
                self.run(q, {**params, "ids": ids}) for q in (_OUT_EDGES, _IN_EDGES)
            ),
            key=2,  # rows: [subject offset, object offset, *columns]
        )
        if frontier:
            # Edges among the nodes at the radius (the entity's self-loops when hops=0) complete the
            # induced subgraph: find the few nodes that have one, then read only their edges.
            ids = sorted(frontier)
            linked = [row[0] for row in self.run(_LINKED, {**params, "ids": ids, "far": ids})]
            if linked:
                for row in self.run(_OUT_EDGES, {**params, "ids": linked}):
                    if row[1] in frontier:
                        rows[row[2]] = row
        if len(seen) > len(nodes):
            found = self.run(_NODES, {"ids": sorted(seen - set(nodes))})
            nodes.update((row[0], row[1:]) for row in found)
        edges = [
            (nodes[r[0]][0], nodes[r[1]][0], _fact_from_row([nodes[r[0]][1], *r[2:]]))
            for r in rows.values()
        ]
        entities = [
            {"id": eid, "name": name, "kind": kind}
            for eid, name, kind in sorted(nodes.values(), key=lambda n: n[0])
        ]
        return entities, edges
