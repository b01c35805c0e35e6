"""Store queries for snapshots, neighbourhoods and the lossless export/import of a whole store.

Functions take a :class:`~graphmem.store.kuzu_store.KuzuStore`; :mod:`graphmem.export` builds
graphs and files on top of them. Rows come back as plain values (entity ids, JSON-ready dicts or
:class:`~graphmem.models.Fact` models); nothing here knows about file formats.

Restoring bypasses the write decisions: it writes history as it was recorded (ids, both time
axes, reasons, counters) into an empty store, inside the caller's transaction.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from graphmem.models import Fact, Predicate
from graphmem.store.kuzu_store import _RETURN, KuzuStore, _fact_from_row
from graphmem.timeutil import from_store, to_store

__all__ = [
    "EXPORTED_TABLES",
    "all_audit",
    "all_entities",
    "all_facts",
    "all_meta",
    "all_sessions",
    "content_counts",
    "create_audit",
    "create_entities",
    "create_sessions",
    "entity_rows",
    "incident_edges",
    "replace_predicates",
    "set_meta",
    "snapshot_edges",
]

#: Every table of ``graphmem.store.schema.DDL`` that an export carries (a test keeps it in sync).
EXPORTED_TABLES = frozenset({"Meta", "Entity", "Predicate", "Session", "Audit", "Fact", "MENTIONS"})

Edge = tuple[str, str, Fact]
"""``(subject entity id, object entity id, fact version)``."""


def _snapshot_where(valid_at: dt.datetime, known_at: dt.datetime, params: dict[str, Any]) -> str:
    # The same closed-open rules as KuzuStore.query_facts (SPEC §2 rule 3), behind a WITH
    # barrier (STACK_NOTES §2: filters on rel properties without it scan every edge).
    params["k"] = to_store(known_at)
    params["v"] = to_store(valid_at)
    return (
        "WITH a, r, b WHERE r.recorded_at <= $k AND (r.expired_at IS NULL OR $k < r.expired_at) "
        "AND r.valid_from <= $v AND (r.valid_to IS NULL OR $v < r.valid_to) "
    )


def _edges(rows: Iterable[Sequence[Any]]) -> list[Edge]:
    return [(r[0], r[1], _fact_from_row(r[2:])) for r in rows]


def snapshot_edges(
    store: KuzuStore,
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
    rows = store.run(
        f"{match}{where}RETURN a.id, b.id, {_RETURN} "
        "ORDER BY subject, r.predicate, r.valid_from, r.recorded_at, r.fid",
        params,
    )
    return _edges(rows)


def incident_edges(
    store: KuzuStore, ids: Sequence[str], *, valid_at: dt.datetime, known_at: dt.datetime
) -> list[Edge]:
    """Return the snapshot versions with their subject or object among ``ids``, each once."""
    if not ids:
        return []
    out: dict[str, Edge] = {}
    for pattern in (
        "MATCH (a:Entity {id: i})-[r:Fact]->(b:Entity) ",
        "MATCH (a:Entity)-[r:Fact]->(b:Entity {id: i}) ",
    ):
        params: dict[str, Any] = {"ids": sorted(set(ids))}
        where = _snapshot_where(valid_at, known_at, params)
        rows = store.run(f"UNWIND $ids AS i {pattern}{where}RETURN a.id, b.id, {_RETURN}", params)
        for edge in _edges(rows):
            out.setdefault(edge[2].id, edge)
    return list(out.values())


def entity_rows(store: KuzuStore, ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Return entities as ``{id, name, kind, aliases}`` dicts, sorted by id (all when ``None``).

    Values are returned as stored: ``name`` and ``kind`` may be ``None`` for an entity created
    only as the target of a session mention.
    """
    if ids is None:
        rows = store.run("MATCH (e:Entity) RETURN e.id, e.name, e.kind, e.aliases ORDER BY e.id")
    elif not ids:
        return []
    else:
        rows = store.run(
            "UNWIND $ids AS i MATCH (e:Entity {id: i}) RETURN e.id, e.name, e.kind, e.aliases "
            "ORDER BY e.id",
            {"ids": sorted(set(ids))},
        )
    return [{"id": r[0], "name": r[1], "kind": r[2], "aliases": list(r[3] or [])} for r in rows]


# -- whole-store dump ---------------------------------------------------------------------------


def content_counts(store: KuzuStore) -> dict[str, int]:
    """Return how many entities, facts, sessions and audit records the store holds."""
    queries = {
        "entities": "MATCH (e:Entity) RETURN count(e)",
        "facts": "MATCH ()-[r:Fact]->() RETURN count(r)",
        "sessions": "MATCH (s:Session) RETURN count(s)",
        "audit": "MATCH (x:Audit) RETURN count(x)",
    }
    return {name: int(store.run(q)[0][0]) for name, q in queries.items()}


def all_meta(store: KuzuStore) -> dict[str, str]:
    """Return every metadata key and value."""
    return {r[0]: r[1] for r in store.run("MATCH (m:Meta) RETURN m.key, m.value ORDER BY m.key")}


def all_entities(store: KuzuStore) -> list[dict[str, Any]]:
    """Return every entity (see :func:`entity_rows`)."""
    return entity_rows(store)


def all_facts(store: KuzuStore) -> list[Edge]:
    """Return every fact version, current and closed, ordered by system time then id."""
    rows = store.run(
        f"MATCH (a:Entity)-[r:Fact]->(b:Entity) RETURN a.id, b.id, {_RETURN} "
        "ORDER BY r.recorded_at, r.fid"
    )
    return _edges(rows)


def all_sessions(store: KuzuStore) -> list[dict[str, Any]]:
    """Return every session with its fields and ``mentions`` as ``{entity id: count}``."""
    rows = store.run(
        "MATCH (s:Session) OPTIONAL MATCH (s)-[m:MENTIONS]->(e:Entity) "
        "RETURN s.id, s.started_at, s.ended_at, s.title, s.text, s.summary, s.source, "
        "collect({e: e.id, n: m.count}) ORDER BY s.started_at, s.id"
    )
    out = []
    for r in rows:
        mentions = {m["e"]: int(m["n"]) for m in r[7] or () if m.get("e") is not None}
        out.append(
            {
                "id": r[0],
                "started_at": from_store(r[1]),
                "ended_at": from_store(r[2]),
                "title": r[3],
                "text": r[4],
                "summary": r[5],
                "source": r[6],
                "mentions": dict(sorted(mentions.items())),
            }
        )
    return out


def all_audit(store: KuzuStore) -> list[dict[str, Any]]:
    """Return every audit record ``{id, at, action, detail}``, oldest first."""
    rows = store.run("MATCH (x:Audit) RETURN x.id, x.at, x.action, x.detail ORDER BY x.at, x.id")
    return [{"id": r[0], "at": from_store(r[1]), "action": r[2], "detail": r[3]} for r in rows]


# -- restore (into an empty store, inside the caller's transaction) ----------------------------


def set_meta(store: KuzuStore, values: Mapping[str, str]) -> None:
    """Set metadata keys."""
    for key, value in sorted(values.items()):
        store.set_meta(key, value)


def replace_predicates(store: KuzuStore, predicates: Sequence[Predicate]) -> None:
    """Replace the whole ontology by ``predicates``."""
    store.run("MATCH (p:Predicate) DELETE p")
    store.save_predicates(predicates)


def create_entities(store: KuzuStore, rows: Sequence[Mapping[str, Any]]) -> None:
    """Create entities from ``{id, name, kind, aliases}`` rows, values as given."""
    if not rows:
        return
    store.run(
        "UNWIND $rows AS row CREATE (:Entity {id: row.id, name: cast(row.name AS STRING), "
        "kind: cast(row.kind AS STRING), aliases: cast(row.aliases AS STRING[])})",
        {
            "rows": [
                {
                    "id": r["id"],
                    "name": r.get("name"),
                    "kind": r.get("kind"),
                    "aliases": list(r.get("aliases") or []),
                }
                for r in rows
            ]
        },
    )


def create_sessions(store: KuzuStore, rows: Sequence[Mapping[str, Any]]) -> None:
    """Create sessions and their MENTIONS edges (the entities must exist)."""
    if not rows:
        return
    store.run(
        "UNWIND $rows AS row CREATE (:Session {id: row.id, "
        "started_at: cast(row.started_at AS TIMESTAMP), ended_at: cast(row.ended_at AS TIMESTAMP), "
        "title: cast(row.title AS STRING), text: cast(row.text AS STRING), "
        "summary: cast(row.summary AS STRING), source: cast(row.source AS STRING)})",
        {
            "rows": [
                {
                    "id": r["id"],
                    "started_at": to_store(r["started_at"]),
                    "ended_at": to_store(r.get("ended_at")),
                    "title": r.get("title"),
                    "text": r.get("text"),
                    "summary": r.get("summary"),
                    "source": r.get("source"),
                }
                for r in rows
            ]
        },
    )
    mentions = [
        {"s": r["id"], "e": eid, "n": int(n)}
        for r in rows
        for eid, n in sorted((r.get("mentions") or {}).items())
    ]
    if mentions:
        # MERGE, not MATCH, on both endpoints: UNWIND + MATCH on two nodes plans as a cross
        # product on Kuzu 0.11.3 (STACK_NOTES §2); both nodes exist already.
        store.run(
            "UNWIND $rows AS row MERGE (s:Session {id: row.s}) MERGE (e:Entity {id: row.e}) "
            "CREATE (s)-[:MENTIONS {count: cast(row.n AS INT64)}]->(e)",
            {"rows": mentions},
        )


def create_audit(store: KuzuStore, rows: Sequence[Mapping[str, Any]]) -> None:
    """Create audit records from ``{id, at, action, detail}`` rows."""
    if not rows:
        return
    store.run(
        "UNWIND $rows AS row CREATE (:Audit {id: row.id, at: cast(row.at AS TIMESTAMP), "
        "action: cast(row.action AS STRING), detail: cast(row.detail AS STRING)})",
        {
            "rows": [
                {
                    "id": r["id"],
                    "at": to_store(r.get("at")),
                    "action": r.get("action"),
                    "detail": r.get("detail"),
                }
                for r in rows
            ]
        },
    )
