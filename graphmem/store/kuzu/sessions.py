"""Session storage and the topic aggregates behind hotness and triage (Cypher lives here).

Functions over a :class:`~graphmem.store.kuzu.engine.KuzuStore`; the logic that uses them is in
:mod:`graphmem.sessions`. Sessions are ``Session`` nodes with ``MENTIONS {count}`` edges to
``Entity`` nodes; a fact's ``source`` property names the session it came from.

Query shapes follow the Kuzu 0.11.3 traps (docs/concepts/storage.md#engine-facts): filters on rel
properties sit behind a ``WITH`` barrier; no ``UNWIND ... MATCH (a {id}), (b {id})``; big batches
use one ``UNWIND``
statement per table, never ``COPY`` (:meth:`write_sessions`: COPY mixed with logged writes is
torn by a crash). Session texts are also stored line by line (:mod:`graphmem.store.kuzu.lines`).
Three more traps, measured while writing this module:

- A boolean projected with ``WITH (x IS NULL OR $p < x) AS cur`` and then used in
  ``CASE WHEN cur`` inside an aggregate gives wrong counts in Kuzu 0.11.3, so every ``CASE``
  below repeats its condition inline.
- ``collect()`` of nothing but NULLs is ``[]`` in Kuzu and ``NULL`` in ladybug.
- A ``COPY`` that hits a duplicate primary key crashes ladybug 0.22 inside a transaction (one
  more reason not to copy sessions).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from graphmem.errors import StoreError
from graphmem.models import Session
from graphmem.store.kuzu.engine import SMALL_BATCH
from graphmem.store.kuzu.lines import KuzuLines
from graphmem.store.records import FactActivity, MentionCounts, MentionGroup
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

# A fact version counts "as of $now" when it was believed then and had started by then; its
# activity time is the later of when it became true and when graphmem learned it.
_KNOWN_IF = (
    "r.recorded_at <= $now AND (r.expired_at IS NULL OR $now < r.expired_at) "
    "AND r.valid_from <= $now "
)
_KNOWN = "WITH a, b, r WHERE " + _KNOWN_IF
_NEWEST = "max(CASE WHEN r.recorded_at > r.valid_from THEN r.recorded_at ELSE r.valid_from END)"
_VALID_NOW = "r.valid_to IS NULL OR $now < r.valid_to"


def _aware(value: dt.datetime | None) -> dt.datetime:
    out = from_store(value)
    if out is None:
        raise StoreError("the store returned no time where one is required; run 'graphmem check'")
    return out


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


# Per mentioned entity as of $now: its sessions in the window (hits) and in all history (df).
_MENTIONS = (
    "MATCH (s:Session)-[:MENTIONS]->(e:Entity) WHERE s.started_at <= $now "
    "WITH e, count(CASE WHEN s.started_at > $start THEN 1 END) AS hits, count(*) AS df"
)


class KuzuSessions(KuzuLines):
    """Sessions, mentions and topic aggregates on Kuzu (SessionStore)."""

    def __init__(
        self, path: str | None = None, *, engine: str = "kuzu", read_only: bool = False
    ) -> None:
        # The node offsets of the entities the last mention_counts() counted (newest_activity).
        self._offsets: dict[str, int] = {}
        super().__init__(path, engine=engine, read_only=read_only)

    def existing_session_ids(self, ids: Sequence[str]) -> set[str]:
        """Return those of ``ids`` that name a stored session (one query).

        Raises:
            StoreError: the engine failed.
        """
        if not ids:
            return set()
        rows = self.run(
            "UNWIND $ids AS i MATCH (s:Session {id: i}) RETURN s.id", {"ids": sorted(set(ids))}
        )
        return {r[0] for r in rows}

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

    def session_scopes(self) -> dict[str, str]:
        """Return ``{session id: scope}`` of the sessions outside the root scope."""
        rows = self.run("MATCH (s:Session) WHERE s.scope IS NOT NULL RETURN s.id, s.scope")
        return {r[0]: r[1] for r in rows if r[1]}

    def read_sessions(
        self,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        ids: Sequence[str] | None = None,
    ) -> list[Session]:
        """Return sessions with their mentions (display name -> count), oldest first.

        Args:
            since: only sessions started at or after this time.
            until: only sessions started at or before this time.
            ids: only these session ids.

        Returns:
            Sessions ordered by ``started_at`` then id.

        Raises:
            StoreError: the engine failed.
        """
        params: dict[str, Any] = {}
        conds: list[str] = []
        if ids is not None:
            if not ids:
                return []
            match = "UNWIND $ids AS i MATCH (s:Session {id: i})"
            params["ids"] = sorted(set(ids))
        else:
            match = "MATCH (s:Session)"
        if since is not None:
            conds.append("s.started_at >= $since")
            params["since"] = to_store(since)
        if until is not None:
            conds.append("s.started_at <= $until")
            params["until"] = to_store(until)
        where = f"WITH s WHERE {' AND '.join(conds)} " if conds else ""
        rows = self.run(
            f"{match} {where}OPTIONAL MATCH (s)-[m:MENTIONS]->(e:Entity) "
            "RETURN s.id, s.started_at, s.ended_at, s.title, s.text, s.summary, s.source, "
            "collect({name: e.name, n: m.count}), s.scope ORDER BY s.started_at, s.id",
            params,
        )
        out = []
        for r in rows:
            mentions = {
                m["name"]: int(m["n"]) for m in (r[7] or ()) if m and m.get("name") is not None
            }
            out.append(
                Session(
                    id=r[0],
                    started_at=_aware(r[1]),
                    ended_at=from_store(r[2]),
                    title=r[3],
                    text=r[4],
                    summary=r[5],
                    source=r[6],
                    mentions=dict(sorted(mentions.items())),
                    scope=r[8] or "",
                )
            )
        return out

    def count_sessions(self, *, until: dt.datetime | None = None) -> int:
        """Return how many sessions are stored (started at or before ``until``, if given).

        Raises:
            StoreError: the engine failed.
        """
        if until is None:
            return int(self.run("MATCH (s:Session) RETURN count(s)")[0][0])
        rows = self.run(
            "MATCH (s:Session) WHERE s.started_at <= $until RETURN count(s)",
            {"until": to_store(until)},
        )
        return int(rows[0][0])

    def count_mentioning_sessions(self, *, now: dt.datetime) -> int:
        """Return how many sessions started by ``now`` mention anything: the IDF's ``N``.

        Raises:
            StoreError: the engine failed.
        """
        rows = self.run(
            "MATCH (s:Session)-[:MENTIONS]->(:Entity) WHERE s.started_at <= $now "
            "RETURN count(DISTINCT s)",
            {"now": to_store(now)},
        )
        return int(rows[0][0]) if rows else 0

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
            _MENTIONS + ", max(s.started_at) AS last WHERE hits >= $min_hits "
            "WITH e, hits, df, last MATCH (t:Entity) WHERE ID(t) = ID(e) "
            "RETURN t.id, t.name, hits, df, last, offset(ID(t))",
            {"now": to_store(now), "start": to_store(start), "min_hits": int(min_hits)},
        )
        # Node offsets stay inside the store: newest_activity() reads by them (see there).
        self._offsets = {r[0]: r[5] for r in rows}
        return [MentionCounts(r[0], r[1], int(r[2]), int(r[3]), _aware(r[4])) for r in rows]

    def mention_groups(self, *, now: dt.datetime, start: dt.datetime) -> list[MentionGroup]:
        """Count the entities mentioned in the window ``(start, now]`` by their ``(hits, df)``.

        One query, a handful of rows (12 for 33,000 mentioned entities, in 15–25 ms): what a
        caller needs to bound every topic's engagement without reading one row per topic.

        Raises:
            StoreError: the engine failed.
        """
        rows = self.run(
            _MENTIONS + " WHERE hits > 0 RETURN hits, df, count(*)",
            {"now": to_store(now), "start": to_store(start)},
        )
        return [MentionGroup(int(r[0]), int(r[1]), int(r[2])) for r in rows]

    def fact_activity(
        self,
        *,
        now: dt.datetime,
        with_texts: bool = False,
        keep: Collection[str] | None = None,
    ) -> list[FactActivity]:
        """Aggregate, in one query, each entity's fact versions as believed at ``now``.

        A version counts when ``recorded_at <= now < expired_at`` (believed then) and
        ``valid_from <= now`` (started by then); both endpoints of a fact count. ``n_current`` and
        ``statements`` keep the versions also valid at ``now`` (``now < valid_to``).

        Args:
            now: the time to aggregate at.
            with_texts: also return the statements of current versions (for actionability).
            keep: if given, an entity that is only ever a fact's object (a literal value, a note
                text) is returned only when its id is in ``keep``; subjects are always returned.

        Returns:
            One :class:`FactActivity` per returned entity with at least one counted version.

        Raises:
            StoreError: the engine failed.
        """
        texts = (
            f", collect(CASE WHEN {_VALID_NOW} THEN r.statement END) AS texts" if with_texts else ""
        )
        side = (
            "MATCH (a:Entity)-[r:Fact]->(b:Entity) "
            + _KNOWN
            + "RETURN {e}.id AS id, {e}.name AS name, "
            "{subj} AS subj, " + _NEWEST + " AS newest, "
            f"count(CASE WHEN {_VALID_NOW} THEN 1 END) AS n" + texts
        )
        rows = self.run(
            side.format(e="a", subj="true") + " UNION ALL " + side.format(e="b", subj="false"),
            {"now": to_store(now)},
        )
        subjects = {r[0] for r in rows if r[2]}
        # Merge the two sides on naive store times; convert once per kept entity.
        merged: dict[str, list[Any]] = {}
        for r in rows:
            eid = r[0]
            if keep is not None and eid not in subjects and eid not in keep:
                continue
            statements = [t for t in (r[5] or ()) if t] if with_texts else []
            prev = merged.get(eid)
            if prev is None:
                merged[eid] = [r[1], r[3], int(r[4]), statements]
            else:
                prev[1] = max(prev[1], r[3])
                prev[2] += int(r[4])
                prev[3].extend(statements)
        return [
            FactActivity(eid, name, eid in subjects, _aware(newest), n, tuple(texts_))
            for eid, (name, newest, n, texts_) in merged.items()
        ]

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
                "WITH e, r WHERE " + _KNOWN_IF + "RETURN e.id, " + _NEWEST,
                {"nodes": sorted(nodes), "now": to_store(now)},
            )
        if others:
            rows += self.run(
                "MATCH (e:Entity)-[r:Fact]-() WHERE e.id IN $ids "
                "WITH e, r WHERE " + _KNOWN_IF + "RETURN e.id, " + _NEWEST,
                {"ids": others, "now": to_store(now)},
            )
        return {r[0]: _aware(r[1]) for r in rows if r[0] in entity_ids}

    def session_fact_ids(self, session_id: str) -> list[str]:
        """Return the ids of every fact version whose ``source`` is ``session_id`` (a scan).

        Raises:
            StoreError: the engine failed.
        """
        rows = self.run(
            "MATCH ()-[r:Fact]->() WITH r WHERE r.source = $sid RETURN r.fid ORDER BY r.fid",
            {"sid": session_id},
        )
        return [r[0] for r in rows]

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
        return {r[0]: _aware(r[1]) for r in rows}
