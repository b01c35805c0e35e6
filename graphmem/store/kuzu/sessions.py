"""Session writes and the Kuzu-only topic reads behind hotness and triage.

The reads both backends share (sessions, counts, ``fact_activity``, ``mention_groups``) are in
:mod:`graphmem.store.cypher.sessions`; this module writes sessions and their ``MENTIONS``
edges, and keeps the reads that Kuzu answers its own way: ``mention_counts`` remembers node
offsets that ``newest_activity`` then reads by, and session starts are looked up one by one
(docs/concepts/storage.md#one-cypher-core).

Big batches use one ``UNWIND`` statement per table, never ``COPY`` (:meth:`write_sessions`: COPY
mixed with logged writes is torn by a crash, and a ``COPY`` that hits a duplicate primary key
crashes ladybug 0.22 inside a transaction). Session texts are also stored line by line
(:mod:`graphmem.store.kuzu.lines`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from graphmem.models import Session
from graphmem.store.cypher.sessions import KNOWN_AT_NOW, MENTIONS, NEWEST
from graphmem.store.kuzu.codec import KUZU
from graphmem.store.kuzu.engine import SMALL_BATCH
from graphmem.store.kuzu.lines import KuzuLines
from graphmem.store.records import MentionCounts
from graphmem.timeutil import from_store, to_store

__all__ = ["COPY_MIN_SESSIONS", "KuzuSessions"]

#: Batches of more than this many new sessions are written with one ``UNWIND`` statement per
#: table, smaller ones one statement per row. (No ``COPY`` is made despite the name: a COPY
#: next to logged writes is torn by a crash, docs/concepts/storage.md#copy.)
COPY_MIN_SESSIONS = SMALL_BATCH

_SESSION_COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "STRING"),
    ("started_at", "TIMESTAMP"),
    ("ended_at", "TIMESTAMP"),
    ("title", "STRING"),
    ("text", "STRING"),
    ("summary", "STRING"),
    ("source", "STRING"),
    ("recorded_at", "TIMESTAMP"),
    ("scope", "STRING"),
)


def _session_params(session: Session) -> dict[str, Any]:
    return {
        "id": session.id,
        "started_at": to_store(session.started_at),
        "ended_at": to_store(session.ended_at),
        "title": session.title,
        "text": session.text,
        "summary": session.summary,
        "source": session.source,
        "scope": session.scope or None,  # the root scope is NULL, as before schema 4
    }


class KuzuSessions(KuzuLines):
    """Sessions, mentions and topic aggregates on Kuzu (SessionStore)."""

    def __init__(
        self, path: str | None = None, *, engine: str = "kuzu", read_only: bool = False
    ) -> None:
        # The node offsets of the entities the last mention_counts() counted (newest_activity).
        self._offsets: dict[str, int] = {}
        super().__init__(path, engine=engine, read_only=read_only)

    def write_sessions(
        self,
        items: Sequence[tuple[Session, Mapping[str, int]]],
        *,
        recorded_at: dt.datetime | None = None,
    ) -> None:
        """Create or replace sessions, their ``MENTIONS`` edges and their lines.

        A session whose id is stored already gets its properties overwritten, its mentions and
        its lines replaced (so writing the same session twice is idempotent). Run it inside
        ``store.transaction()`` so the batch is atomic.

        Every statement is a logged write (``CREATE``/``MERGE``/``SET``/``DELETE``), never a
        ``COPY``: a transaction that mixes COPY with logged writes (the entities the caller merged,
        a rewritten session) keeps the logged part and loses the copied rows when killed during
        ``COMMIT`` (docs/concepts/storage.md#copy). Large batches use one ``UNWIND`` statement per
        table (measured on 2 cores: 10,000 sessions with 40,000 mentions and 200,000 lines in about
        12 s, against 0.25 s for the old COPY of the sessions and mentions alone; mentions go
        through ``UNWIND ... MERGE`` on both primary keys at about 14,000 rows/s).

        Args:
            items: ``(session, {entity id: count})`` pairs with distinct session ids; every entity
                must exist and every count must be ``>= 1``.
            recorded_at: the system time of the write (stored as each session's and line's
                ``recorded_at``); default: the store's newest write marker, else
                ``started_at``.

        Raises:
            StoreError: the engine failed (inside a transaction, nothing is written).
        """
        if not items:
            return
        at = recorded_at or self.max_system_time()
        existing = self.existing_session_ids([s.id for s, _ in items])
        rows = [
            {**_session_params(s), "recorded_at": to_store(at or s.started_at)} for s, _ in items
        ]
        old = [r for r in rows if r["id"] in existing]
        new = [r for r in rows if r["id"] not in existing]
        mentions = [
            {"s": s.id, "e": eid, "n": int(n)}
            for s, counts in items
            for eid, n in sorted(counts.items())
        ]
        if old:
            self.run(
                "UNWIND $ids AS i MATCH (s:Session {id: i})-[m:MENTIONS]->() DELETE m",
                {"ids": [p["id"] for p in old]},
            )
            self.run(
                "UNWIND $rows AS row MATCH (s:Session {id: row.id}) "
                "SET s.started_at = cast(row.started_at AS TIMESTAMP), "
                "s.ended_at = cast(row.ended_at AS TIMESTAMP), "
                "s.title = cast(row.title AS STRING), "
                "s.text = cast(row.text AS STRING), s.summary = cast(row.summary AS STRING), "
                "s.source = cast(row.source AS STRING), "
                "s.recorded_at = cast(row.recorded_at AS TIMESTAMP), "
                "s.scope = cast(row.scope AS STRING)",
                {"rows": old},
            )
        if len(new) > SMALL_BATCH:
            props = ", ".join(f"{c}: cast(row.{c} AS {t})" for c, t in _SESSION_COLUMNS)
            for i in range(0, len(new), 10_000):
                self.run(
                    f"UNWIND $rows AS row CREATE (:Session {{{props}}})",
                    {"rows": new[i : i + 10_000]},
                )
        else:
            props = ", ".join(f"{c}: cast(${c} AS {t})" for c, t in _SESSION_COLUMNS)
            for params in new:
                self.run(f"CREATE (:Session {{{props}}})", params)
        if len(mentions) > SMALL_BATCH:
            # MERGE on both primary keys: UNWIND + two MATCHes plans as a cross product on Kuzu
            # 0.11.3 (docs/concepts/storage.md#engine-facts); both nodes exist.
            for i in range(0, len(mentions), 20_000):
                self.run(
                    "UNWIND $rows AS row MERGE (s:Session {id: row.s}) "
                    "MERGE (e:Entity {id: row.e}) "
                    "CREATE (s)-[:MENTIONS {count: cast(row.n AS INT64)}]->(e)",
                    {"rows": mentions[i : i + 20_000]},
                )
        else:
            for row in mentions:
                # Two single-node MATCHes on primary keys, one row at a time: no cross product.
                self.run(
                    "MATCH (s:Session {id: $s}) MATCH (e:Entity {id: $e}) "
                    "CREATE (s)-[:MENTIONS {count: cast($n AS INT64)}]->(e)",
                    row,
                )
        self.replace_lines(
            [
                (s.id, s.text, s.started_at, from_store(r["recorded_at"]) or s.started_at)
                for (s, _), r in zip(items, rows, strict=True)
            ],
            existing=[p["id"] for p in old],
        )

    def mention_counts(
        self, *, now: dt.datetime, start: dt.datetime, min_hits: int = 0
    ) -> list[MentionCounts]:
        """Count, in one query, the sessions that mention each entity as of ``now``.

        Only sessions with ``started_at <= now`` count (sessions are placed on the time axis by when
        they happened). ``MENTIONS`` holds at most one edge per (session, entity), so a count of
        edges is a count of distinct sessions.

        The entity's properties are read after the aggregation, through a second ``MATCH`` on its
        internal id. Asked for in the ``RETURN`` directly, Kuzu 0.11.3 reads them for all 100,000
        entities and carries them through the aggregation: 100 ms with 33,000 entities mentioned
        and 60 ms when ``min_hits`` keeps 82 of them, against 80 ms and 25 ms this way.

        Args:
            now: the time to count at.
            start: the window start; ``hits`` counts sessions with ``start < started_at <= now``.
            min_hits: only entities with at least this many ``hits``.

        Returns:
            One :class:`MentionCounts` per mentioned entity that passes ``min_hits``.

        Raises:
            StoreError: the engine failed.
        """
        rows = self.run(
            MENTIONS + " WHERE hits >= $min_hits "
            "WITH e, hits, df, last MATCH (t:Entity) WHERE ID(t) = ID(e) "
            "RETURN t.id, t.name, hits, df, last, offset(ID(t))",
            {"now": to_store(now), "start": to_store(start), "min_hits": int(min_hits)},
        )
        # Node offsets stay inside the store: newest_activity() reads by them (see there).
        self._offsets = {r[0]: r[5] for r in rows}
        return [MentionCounts(r[0], r[1], int(r[2]), int(r[3]), KUZU.aware(r[4])) for r in rows]

    def newest_activity(
        self, *, now: dt.datetime, entity_ids: Collection[str]
    ) -> dict[str, dt.datetime]:
        """Return ``{entity id: newest fact activity}`` as of ``now`` for the given entities only.

        Entities returned by the last :meth:`mention_counts` (read with no write in between:
        the caller holds the memory's lock) are found by their node offsets. The
        versions and times are :meth:`fact_activity`'s ``newest`` (subject or object side), without
        aggregating the whole graph: with 1M facts and 100,000 entities, 13 ms for 82 entities and
        60 ms for 1,300 (against 2.5 s for all). Filtering on ids instead costs 0.6 ms per id
        (``e.id IN $ids`` compares strings for every entity) or 230 ms (``UNWIND``: a hash join
        over all entities). Entities without a counted version are left out.

        Raises:
            StoreError: the engine failed.
        """
        if not entity_ids:
            return {}
        known = self._offsets
        nodes = {known[i] for i in entity_ids if i in known}
        others = sorted({i for i in entity_ids if i not in known})
        rows = []
        if nodes:
            rows = self.run(
                "MATCH (e:Entity)-[r:Fact]-() WHERE offset(ID(e)) IN $nodes "
                "WITH e, r WHERE " + KNOWN_AT_NOW + " RETURN e.id, " + NEWEST,
                {"nodes": sorted(nodes), "now": to_store(now)},
            )
        if others:
            rows += self.run(
                "MATCH (e:Entity)-[r:Fact]-() WHERE e.id IN $ids "
                "WITH e, r WHERE " + KNOWN_AT_NOW + " RETURN e.id, " + NEWEST,
                {"ids": others, "now": to_store(now)},
            )
        return {r[0]: KUZU.aware(r[1]) for r in rows if r[0] in entity_ids}

    def session_start_times(self, ids: Sequence[str]) -> dict[str, dt.datetime]:
        """Return ``{session id: started_at}`` for those ids that exist.

        Point lookups through the primary key: ``UNWIND ... MATCH {id: i}`` scans the whole table
        on Kuzu 0.11.3, so a few ids are looked up one by one.
        """
        wanted = list(dict.fromkeys(ids))
        if len(wanted) <= 8:
            rows = [
                row
                for i in wanted
                for row in self.run(
                    "MATCH (s:Session {id: $i}) RETURN s.id, s.started_at", {"i": i}
                )
            ]
        else:
            rows = self.run(
                "MATCH (s:Session) WITH s WHERE s.id IN $ids RETURN s.id, s.started_at",
                {"ids": wanted},
            )
        return {r[0]: KUZU.aware(r[1]) for r in rows}
