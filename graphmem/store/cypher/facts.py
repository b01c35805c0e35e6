"""Shared reads of predicates, entities and fact versions.

See docs/concepts/storage.md#one-cypher-core.

Each function is a method of both backends (:mod:`graphmem.store.cypher`). The closed-open time
rules are those of docs/concepts/time.md#rule-3.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from graphmem.models import Entity, Fact, Predicate
from graphmem.store.cypher.dialect import CypherHost
from graphmem.store.records import predicate_from_row

__all__ = [
    "changed_between",
    "count_predicate_versions",
    "count_versions",
    "get_entity",
    "load_aliases",
    "load_predicates",
    "query_facts",
]


def load_predicates(self: CypherHost) -> list[Predicate]:
    """Return every stored predicate definition, by name (code-point order)."""
    rows = self._q(
        "MATCH (p:Predicate) RETURN p.name, p.cardinality, p.aliases, p.inverse, p.symmetric,"
        " p.description"
    )
    return [predicate_from_row(r) for r in sorted(rows, key=lambda r: r[0])]


def load_aliases(self: CypherHost) -> dict[str, str]:
    """Return ``{alias key: entity id}`` for every entity with aliases."""
    where = self.dialect.where("e", ["e.aliases IS NOT NULL", "size(e.aliases) > 0"])
    rows = self._q(f"MATCH (e:Entity) {where}RETURN e.id, e.aliases ORDER BY e.id")
    return {alias: eid for eid, aliases in rows for alias in aliases}


def get_entity(self: CypherHost, eid: str) -> Entity | None:
    """Return one entity by id, or ``None``."""
    rows = self._q("MATCH (e:Entity {id: $i}) RETURN e.id, e.name, e.kind, e.aliases", {"i": eid})
    if not rows:
        return None
    r = rows[0]
    return Entity(id=r[0], name=r[1], kind=r[2] or "entity", aliases=tuple(r[3] or ()))


def query_facts(
    self: CypherHost,
    *,
    subject_id: str | None = None,
    predicate: str | None = None,
    object_id: str | None = None,
    valid_at: dt.datetime | None = None,
    known_at: dt.datetime | None = None,
    current_only: bool = False,
    limit: int | None = None,
) -> list[Fact]:
    """Return versions matching the filters (``None`` skips a filter).

    Ordered by subject name, predicate, valid_from, recorded_at, id. ``valid_at`` and
    ``known_at`` apply the closed-open rules; ``current_only`` keeps versions not closed in
    system time.
    """
    d = self.dialect
    params: dict[str, Any] = {}
    source = "(a:Entity {id: $s})" if subject_id else "(a:Entity)"
    if subject_id:
        params["s"] = subject_id
    # The object node is joined only when filtered on.
    target = "(b:Entity)" if object_id is not None else "()"
    conds: list[str] = []
    if predicate is not None:
        conds.append("r.predicate = $p")
        params["p"] = predicate
    if object_id is not None:
        conds.append("b.id = $o")
        params["o"] = object_id
    if known_at is not None:
        conds.append("r.recorded_at <= $k AND (r.expired_at IS NULL OR $k < r.expired_at)")
        params["k"] = d.to_db(known_at)
    if current_only:
        conds.append("r.expired_at IS NULL")
    if valid_at is not None:
        conds.append("r.valid_from <= $v AND (r.valid_to IS NULL OR $v < r.valid_to)")
        params["v"] = d.to_db(valid_at)
    where = d.where("a, r, b" if object_id is not None else "a, r", conds)
    tail = ""
    if limit is not None:
        tail = " LIMIT $limit"
        params["limit"] = int(limit)
    rows = self._q(
        f"MATCH {source}-[r:Fact]->{target} {where}RETURN {d.fact_return} "
        f"ORDER BY subject, r.predicate, r.valid_from, r.recorded_at, r.fid{tail}",
        params,
    )
    return [d.fact_from_row(r) for r in rows]


def changed_between(self: CypherHost, since: dt.datetime, until: dt.datetime | None) -> list[Fact]:
    """Return versions recorded or closed in system time within ``[since, until)``."""
    d = self.dialect
    params: dict[str, Any] = {"a0": d.to_db(since)}
    upper = upper_e = ""
    if until is not None:
        params["a1"] = d.to_db(until)
        upper, upper_e = " AND r.recorded_at < $a1", " AND r.expired_at < $a1"
    where = d.where(
        "a, r",
        [
            f"((r.recorded_at >= $a0{upper}) OR "
            f"(r.expired_at IS NOT NULL AND r.expired_at >= $a0{upper_e}))"
        ],
    )
    rows = self._q(
        f"MATCH (a:Entity)-[r:Fact]->() {where}RETURN {d.fact_return} "
        "ORDER BY r.recorded_at, r.fid",
        params,
    )
    return [d.fact_from_row(r) for r in rows]


def count_versions(self: CypherHost) -> int:
    """Return how many fact versions are stored (current and closed)."""
    return int(self._q("MATCH ()-[r:Fact]->() RETURN count(r)")[0][0])


def count_predicate_versions(self: CypherHost, predicate: str) -> int:
    """Return how many versions (current or closed) are stored under ``predicate`` (a scan)."""
    where = self.dialect.where("r", ["r.predicate = $p"])
    rows = self._q(f"MATCH ()-[r:Fact]->() {where}RETURN count(r)", {"p": predicate})
    return int(rows[0][0]) if rows else 0
