"""FactStore on FalkorDB: metadata, ontology, entities and fact versions (reads), and ``apply``.

:class:`FalkorFacts` is a mixin of :class:`~graphmem.store.falkordb.FalkorStore`; its write,
:meth:`~graphmem.store.falkordb.writes.FalkorWrites.apply`, commits a change set as one query
(:mod:`graphmem.store.falkordb.writes`). Semantics are those of
:class:`graphmem.store.kuzu.engine.KuzuStore`: same filters, closed-open intervals on both time
axes (``valid_from <= v < valid_to``, ``recorded_at <= k < expired_at``, an absent end is
open), ``query_facts`` ordered by subject name, predicate, valid_from, recorded_at, id. Times
are INT64 microseconds UTC (:mod:`~graphmem.store.falkordb.codec`).

Query shapes (FalkorDB 4, measured at 100k versions): an edge-property lookup must leave the
far node unlabeled, ``MATCH (a)-[r:Fact {fid: x}]->()``, so the plan starts from the edge
index; with ``(a:Entity)`` it scans every entity and probes the index from each (100 ids:
21 s instead of 1.4 ms).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from graphmem.models import Entity, Fact, Predicate
from graphmem.store.falkordb.codec import from_db, to_db
from graphmem.store.falkordb.writes import FalkorWrites
from graphmem.store.records import predicate_from_row
from graphmem.store.schema import FACT_COLUMNS

__all__ = ["FACT_RETURN", "FalkorFacts", "fact_from_row"]

_COLS = [c for c, _ in FACT_COLUMNS]
_TIME_COLS = {c for c, t in FACT_COLUMNS if t == "TIMESTAMP"}
#: The subject's name, then every Fact column (``r``: the edge, ``a``: its subject).
FACT_RETURN = "a.name, " + ", ".join(f"r.{c}" for c in _COLS)
_ORDER = "ORDER BY a.name, r.predicate, r.valid_from, r.recorded_at, r.fid"


def fact_from_row(row: Sequence[Any]) -> Fact:
    """A :class:`Fact` from ``[subject name, *Fact columns]`` (:data:`FACT_RETURN`)."""
    data: dict[str, Any] = {"subject": row[0]}
    for name, value in zip(_COLS, row[1:], strict=True):
        data["id" if name == "fid" else name] = from_db(value) if name in _TIME_COLS else value
    data["access_count"] = data["access_count"] or 0
    data["pinned"] = bool(data["pinned"])
    data["scope"] = data["scope"] or ""  # absent on versions written before schema 4
    try:
        return Fact.model_validate(data)
    except ValidationError:
        # A stored row the model refuses (e.g. closed before it was recorded, written by two
        # processes with their own clocks before docs/concurrency.md#many-writers-on-a-server)
        # is read as stored: reads and exports never crash on a row; 'graphmem check' names it.
        return Fact.model_construct(**data)


class FalkorFacts(FalkorWrites):
    """Metadata, ontology, entities, fact versions and the one write method (FactStore)."""

    # -- metadata, ontology, entities ----------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        """Return a metadata value, or ``None``."""
        rows = self._q("MATCH (m:Meta {key: $k}) RETURN m.value", {"k": key})
        return rows[0][0] if rows else None

    def max_system_time(self) -> dt.datetime | None:
        """The newest write marker (aware UTC), or ``None`` for a store never written."""
        value = self.get_meta("last_write")
        return dt.datetime.fromisoformat(value) if value else None

    def load_predicates(self) -> list[Predicate]:
        """Return every stored predicate definition, by name."""
        rows = self._q(
            "MATCH (p:Predicate) RETURN p.name, p.cardinality, p.aliases, p.inverse, p.symmetric,"
            " p.description ORDER BY p.name"
        )
        return [predicate_from_row(r) for r in sorted(rows, key=lambda r: r[0])]

    def load_aliases(self) -> dict[str, str]:
        """Return ``{alias key: entity id}`` for every entity with aliases."""
        rows = self._q(
            "MATCH (e:Entity) WHERE e.aliases IS NOT NULL AND size(e.aliases) > 0 "
            "RETURN e.id, e.aliases ORDER BY e.id"
        )
        return {alias: eid for eid, aliases in rows for alias in aliases}

    def entity_names(self, ids: Sequence[str]) -> dict[str, str]:
        """Return ``{id: display name}`` for those ids that exist."""
        unique = list(dict.fromkeys(ids))
        if not unique:
            return {}
        rows = self._q(
            "UNWIND $ids AS i MATCH (e:Entity {id: i}) RETURN e.id, e.name", {"ids": unique}
        )
        return {r[0]: r[1] for r in rows}

    def get_entity(self, eid: str) -> Entity | None:
        """Return one entity by id, or ``None``."""
        rows = self._q(
            "MATCH (e:Entity {id: $i}) RETURN e.id, e.name, e.kind, e.aliases", {"i": eid}
        )
        if not rows:
            return None
        r = rows[0]
        return Entity(id=r[0], name=r[1], kind=r[2] or "entity", aliases=tuple(r[3] or ()))

    # -- fact versions ---------------------------------------------------------------------------

    def current_versions(self, subject_ids: Sequence[str]) -> dict[str, list[Fact]]:
        """The versions not closed in system time, per subject id (every id is a key)."""
        out: dict[str, list[Fact]] = {s: [] for s in subject_ids}
        if not out:
            return out
        rows = self._q(
            "UNWIND $ids AS i MATCH (a:Entity {id: i})-[r:Fact]->() "
            f"WHERE r.expired_at IS NULL RETURN i, {FACT_RETURN} "
            "ORDER BY i, r.predicate, r.valid_from, r.recorded_at, r.fid",
            {"ids": list(out)},
        )
        for row in rows:
            out[row[0]].append(fact_from_row(row[1:]))
        return out

    def query_facts(
        self,
        *,
        subject_id: str | None = None,
        predicate: str | None = None,
        object_id: str | None = None,
        valid_at: dt.datetime | None = None,
        known_at: dt.datetime | None = None,
        current_only: bool = False,
        limit: int | None = None,
    ) -> list[Fact]:
        """Versions matching the filters (closed-open on both axes; ``None`` skips a filter).

        Ordered by subject name, predicate, valid_from, recorded_at, id.
        """
        params: dict[str, Any] = {}
        source = "(a:Entity {id: $s})" if subject_id else "(a:Entity)"
        if subject_id:
            params["s"] = subject_id
        target = "(b:Entity {id: $o})" if object_id is not None else "(b:Entity)"
        if object_id is not None:
            params["o"] = object_id
        conds: list[str] = []
        if predicate is not None:
            conds.append("r.predicate = $p")
            params["p"] = predicate
        if known_at is not None:
            conds.append("r.recorded_at <= $k AND (r.expired_at IS NULL OR $k < r.expired_at)")
            params["k"] = to_db(known_at)
        if current_only:
            conds.append("r.expired_at IS NULL")
        if valid_at is not None:
            conds.append("r.valid_from <= $v AND (r.valid_to IS NULL OR $v < r.valid_to)")
            params["v"] = to_db(valid_at)
        where = f"WHERE {' AND '.join(conds)} " if conds else ""
        tail = ""
        if limit is not None:
            tail = " LIMIT $limit"
            params["limit"] = int(limit)
        rows = self._q(
            f"MATCH {source}-[r:Fact]->{target} {where}RETURN {FACT_RETURN} {_ORDER}{tail}",
            params,
        )
        return [fact_from_row(r) for r in rows]

    def get_facts(self, fids: Sequence[str]) -> list[Fact]:
        """Return versions by id (through the index on the Fact edge's ``fid``)."""
        if not fids:
            return []
        rows = self._q(
            # The subject unlabeled: the plan starts from the edge index (with ``(a:Entity)`` it
            # scans every entity and probes the index from each: 21 s for 100 ids at 100k).
            f"UNWIND $f AS fid MATCH (a)-[r:Fact {{fid: fid}}]->() RETURN DISTINCT {FACT_RETURN}",
            {"f": sorted(set(fids))},
        )
        return [fact_from_row(r) for r in rows]

    def changed_between(self, since: dt.datetime, until: dt.datetime | None) -> list[Fact]:
        """Versions recorded or closed in system time within ``[since, until)``."""
        params: dict[str, Any] = {"a0": to_db(since)}
        upper = upper_e = ""
        if until is not None:
            params["a1"] = to_db(until)
            upper, upper_e = " AND r.recorded_at < $a1", " AND r.expired_at < $a1"
        rows = self._q(
            "MATCH (a:Entity)-[r:Fact]->() WHERE "
            f"(r.recorded_at >= $a0{upper}) OR "
            f"(r.expired_at IS NOT NULL AND r.expired_at >= $a0{upper_e}) "
            f"RETURN {FACT_RETURN} ORDER BY r.recorded_at, r.fid",
            params,
        )
        return [fact_from_row(r) for r in rows]

    def count_versions(self) -> int:
        """How many fact versions are stored (current and closed)."""
        return int(self._q("MATCH ()-[r:Fact]->() RETURN count(r)")[0][0])

    def count_predicate_versions(self, predicate: str) -> int:
        """How many versions (current or closed) are stored under ``predicate``."""
        rows = self._q(
            "MATCH ()-[r:Fact]->() WHERE r.predicate = $p RETURN count(r)", {"p": predicate}
        )
        return int(rows[0][0]) if rows else 0
