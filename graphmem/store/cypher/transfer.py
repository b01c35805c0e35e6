"""Shared whole-memory reads for export, import checks and graph views.

Rows come sorted in Python (code-point order whatever the engine's collation); a row without
a time (a damaged one, which ``graphmem check`` names) sorts first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphmem.store.cypher.dialect import CypherHost, Dialect
from graphmem.store.records import Edge
from graphmem.store.schema import FACT_COLUMNS

__all__ = [
    "all_audit",
    "all_entities",
    "all_facts",
    "all_meta",
    "all_sessions",
    "content_counts",
    "edges",
    "entity_rows",
    "fact_states",
    "raw_entities",
    "raw_facts",
    "raw_mentions",
    "raw_predicates",
    "raw_sessions",
]

_COUNTS = {
    "entities": "MATCH (e:Entity) RETURN count(e)",
    "facts": "MATCH ()-[r:Fact]->() RETURN count(r)",
    "sessions": "MATCH (s:Session) RETURN count(s)",
    "audit": "MATCH (x:Audit) RETURN count(x)",
}


def edges(d: Dialect, rows: Sequence[Sequence[Any]]) -> list[Edge]:
    """Fact versions with their endpoint ids from rows of ``a.id, b.id, <fact_return>``."""
    return [(r[0], r[1], d.fact_from_row(r[2:])) for r in rows]


def _timed(row: Sequence[Any]) -> tuple[bool, Any, str]:
    """Sort key of a row ``[id, time, ...]``: no time first, then by time and id."""
    return (row[1] is not None, row[1] if row[1] is not None else 0, row[0])


def entity_rows(self: CypherHost, ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Return entities as ``{id, name, kind, aliases}`` dicts, sorted by id (all when ``None``).

    Values are returned as stored: ``name`` and ``kind`` may be ``None`` for an entity created
    only as the target of a session mention.
    """
    if ids is None:
        rows = self._q("MATCH (e:Entity) RETURN e.id, e.name, e.kind, e.aliases")
    elif not ids:
        return []
    else:
        rows = self._q(
            "UNWIND $ids AS i MATCH (e:Entity {id: i}) RETURN e.id, e.name, e.kind, e.aliases",
            {"ids": sorted(set(ids))},
        )
    return [
        {"id": r[0], "name": r[1], "kind": r[2], "aliases": list(r[3] or [])}
        for r in sorted(rows, key=lambda r: r[0])
    ]


def all_entities(self: CypherHost) -> list[dict[str, Any]]:
    """Return every entity (see :func:`entity_rows`)."""
    return entity_rows(self)


def content_counts(self: CypherHost) -> dict[str, int]:
    """Return how many entities, facts, sessions and audit records the store holds."""
    return {name: int(self._q(q)[0][0]) for name, q in _COUNTS.items()}


def all_meta(self: CypherHost) -> dict[str, str]:
    """Return every metadata key and value, by key."""
    rows = self._q("MATCH (m:Meta) RETURN m.key, m.value")
    return {r[0]: r[1] for r in sorted(rows, key=lambda r: r[0])}


def all_facts(self: CypherHost) -> list[Edge]:
    """Return every fact version with its endpoint ids, ordered by system time then id."""
    d = self.dialect
    rows = self._q(f"MATCH (a:Entity)-[r:Fact]->(b:Entity) RETURN a.id, b.id, {d.fact_return}")
    return sorted(edges(d, rows), key=lambda e: (e[2].recorded_at, e[2].id))


def all_sessions(self: CypherHost) -> list[dict[str, Any]]:
    """Return every session with its fields and ``mentions`` as ``{entity id: count}``."""
    d = self.dialect
    rows = self._q(
        "MATCH (s:Session) OPTIONAL MATCH (s)-[m:MENTIONS]->(e:Entity) "
        "RETURN s.id, s.started_at, s.ended_at, s.title, s.text, s.summary, s.source, "
        "collect({e: e.id, n: m.count}), s.recorded_at, s.scope"
    )
    out = []
    for r in sorted(rows, key=_timed):
        mentions = {m["e"]: int(m["n"]) for m in r[7] or () if m and m.get("e") is not None}
        out.append(
            {
                "id": r[0],
                "started_at": d.from_db(r[1]),
                "ended_at": d.from_db(r[2]),
                "title": r[3],
                "text": r[4],
                "summary": r[5],
                "source": r[6],
                "mentions": dict(sorted(mentions.items())),
                "recorded_at": d.from_db(r[8]),
                "scope": r[9] or "",
            }
        )
    return out


def all_audit(self: CypherHost) -> list[dict[str, Any]]:
    """Return every audit record ``{id, at, action, detail}``, oldest first."""
    rows = self._q("MATCH (x:Audit) RETURN x.id, x.at, x.action, x.detail")
    d = self.dialect
    return [
        {"id": r[0], "at": d.from_db(r[1]), "action": r[2], "detail": r[3]}
        for r in sorted(rows, key=_timed)
    ]


_FACT_COLS = [c for c, _ in FACT_COLUMNS]
_TIME_COLS = [c for c, t in FACT_COLUMNS if t == "TIMESTAMP"]


def raw_facts(self: CypherHost) -> list[dict[str, Any]]:
    """Every fact version with its endpoints' ids and names, as stored (``graphmem check``).

    One full scan of the Fact edges; times come back aware UTC, and a value that is no time (a
    damaged row) as stored, so the checker can report rows that would not load as models.
    """
    cols = ", ".join(f"r.{c}" for c in _FACT_COLS)
    rows = self._q(
        f"MATCH (a:Entity)-[r:Fact]->(b:Entity) RETURN a.id, a.name, b.id, b.name, {cols}"
    )
    keys = ["subject_id", "subject", "object_id", "object_name", *_FACT_COLS]
    out = []
    for row in rows:
        d = dict(zip(keys, row, strict=True))
        for c in _TIME_COLS:
            d[c] = self.dialect.raw_time(d[c])
        out.append(d)
    return out


def fact_states(self: CypherHost) -> list[tuple[Any, ...]]:
    """A cheap, sorted fingerprint of every version: what writes may change.

    Rows of ``(fid, recorded_at, expired_at, valid_to, superseded_by, access_count)``, times
    decoded as :func:`raw_facts` decodes them; no text columns, so a store holding megabyte
    strings fingerprints fast.
    """
    rows = self._q(
        "MATCH ()-[r:Fact]->() RETURN r.fid, r.recorded_at, r.expired_at, r.valid_to, "
        "r.superseded_by, r.access_count"
    )
    t = self.dialect.raw_time
    return sorted(((r[0], t(r[1]), t(r[2]), t(r[3]), r[4], r[5]) for r in rows), key=repr)


def raw_sessions(self: CypherHost) -> list[dict[str, Any]]:
    """Every session's id and times (the text is not read), decoded as :func:`raw_facts`."""
    rows = self._q("MATCH (s:Session) RETURN s.id, s.started_at, s.ended_at")
    t = self.dialect.raw_time
    return [{"id": r[0], "started_at": t(r[1]), "ended_at": t(r[2])} for r in rows]


def raw_entities(self: CypherHost) -> list[dict[str, Any]]:
    """Every entity's id, name and aliases, as stored (``graphmem check``)."""
    rows = self._q("MATCH (e:Entity) RETURN e.id, e.name, e.aliases")
    return [{"id": r[0], "name": r[1], "aliases": list(r[2] or [])} for r in rows]


def raw_mentions(self: CypherHost) -> list[dict[str, Any]]:
    """Every MENTIONS edge of a session to an entity as ``{session, entity, count}``."""
    rows = self._q("MATCH (s:Session)-[m:MENTIONS]->(e:Entity) RETURN s.id, e.id, m.count")
    return [{"session": r[0], "entity": r[1], "count": r[2]} for r in rows]


def raw_predicates(self: CypherHost) -> list[dict[str, Any]]:
    """Every predicate definition's name, cardinality and aliases, as stored."""
    rows = self._q("MATCH (p:Predicate) RETURN p.name, p.cardinality, p.aliases")
    return [{"name": r[0], "cardinality": r[1], "aliases": list(r[2] or [])} for r in rows]
