"""SessionStore on FalkorDB: session reads, mention and fact aggregates, the audit trail.

:class:`FalkorSessions` is a mixin of :class:`~graphmem.store.falkordb.FalkorStore`; it only
reads, through ``self._q`` (:class:`~graphmem.store.falkordb.connection.FalkorBase`). The
graph is the one of ``falkordb_schema``: ``(:Session)-[:MENTIONS {count}]->(:Entity)``,
``(:Entity)-[:Fact]->(:Entity)`` one edge per version, times as INT64 microseconds UTC
(:mod:`~graphmem.store.falkordb.codec`), an absent property for NULL.

Semantics are those of the Kuzu functions in :mod:`graphmem.store.kuzu.sessions` and
:mod:`graphmem.store.kuzu.audit` (same filters, same edge cases). Ordering: where Kuzu orders
(sessions by ``started_at, id``, fact ids, audit records by ``at, id``) the rows are sorted
here in Python, so string order is code-point order whatever the server's collation. Where the
Kuzu query has no ``ORDER BY`` (:meth:`mention_counts`, :meth:`mention_groups`,
:meth:`fact_activity`: the order of a hash aggregate) the rows here are sorted by entity id
(groups by ``hits, df``) and a ``FactActivity``'s statements are the subject side's, then the
object side's, each by fact id; callers and the comparison tests treat those as sets.
:meth:`newest_activity` is keyed by entity id (one ``UNWIND`` over the Entity.id index).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from typing import Any

from graphmem.errors import StoreError
from graphmem.models import Session
from graphmem.store.falkordb.codec import from_db, to_db
from graphmem.store.falkordb.connection import FalkorBase
from graphmem.store.records import FactActivity, MentionCounts, MentionGroup

__all__ = ["FalkorSessions"]

# A version counts "as of $now" when it was believed then and had started by then; its
# activity time is the later of when it became true and when graphmem learned it.
_KNOWN_IF = (
    "r.recorded_at <= $now AND (r.expired_at IS NULL OR $now < r.expired_at) "
    "AND r.valid_from <= $now"
)
_NEWEST = "max(CASE WHEN r.recorded_at > r.valid_from THEN r.recorded_at ELSE r.valid_from END)"
_VALID_NOW = "(r.valid_to IS NULL OR $now < r.valid_to)"
# Per mentioned entity as of $now: its sessions in the window (hits) and in all history (df).
_MENTIONS = (
    "MATCH (s:Session)-[:MENTIONS]->(e:Entity) WHERE s.started_at <= $now "
    "WITH e, count(CASE WHEN s.started_at > $start THEN 1 END) AS hits, count(*) AS df, "
    "max(s.started_at) AS last"
)
_SESSION_RETURN = (
    "s.id, s.started_at, s.ended_at, s.title, s.text, s.summary, s.source, "
    "collect({name: e.name, n: m.count}), s.scope"
)


def _aware(value: Any) -> dt.datetime:
    out = from_db(value)
    if out is None:
        raise StoreError("the store returned no time where one is required; run 'graphmem check'")
    return out


def _session(r: Sequence[Any]) -> Session:
    mentions = {m["name"]: int(m["n"]) for m in (r[7] or ()) if m and m.get("name") is not None}
    return Session(
        id=r[0],
        started_at=_aware(r[1]),
        ended_at=from_db(r[2]),
        title=r[3],
        text=r[4],
        summary=r[5],
        source=r[6],
        mentions=dict(sorted(mentions.items())),
        scope=r[8] or "",
    )


class FalkorSessions(FalkorBase):
    """The :class:`~graphmem.store.base.SessionStore` methods (module docstring)."""

    def existing_session_ids(self, ids: Sequence[str]) -> set[str]:
        """Return those of ``ids`` that name a stored session (one query)."""
        if not ids:
            return set()
        rows = self._q(
            "UNWIND $ids AS i MATCH (s:Session {id: i}) RETURN s.id", {"ids": sorted(set(ids))}
        )
        return {r[0] for r in rows}

    def session_scopes(self) -> dict[str, str]:
        """Return ``{session id: scope}`` of the sessions outside the root scope."""
        rows = self._q("MATCH (s:Session) WHERE s.scope IS NOT NULL RETURN s.id, s.scope")
        return {r[0]: r[1] for r in rows if r[1]}

    def read_sessions(
        self,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        ids: Sequence[str] | None = None,
    ) -> list[Session]:
        """Return sessions with their mentions (display name -> count), by ``started_at``, id."""
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
            params["since"] = to_db(since)
        if until is not None:
            conds.append("s.started_at <= $until")
            params["until"] = to_db(until)
        where = f" WHERE {' AND '.join(conds)}" if conds else ""
        rows = self._q(
            f"{match}{where} OPTIONAL MATCH (s)-[m:MENTIONS]->(e:Entity) RETURN {_SESSION_RETURN}",
            params,
        )
        out = [_session(r) for r in rows]
        out.sort(key=lambda s: (s.started_at, s.id))
        return out

    def get_sessions(self, ids: Sequence[str]) -> list[Session]:
        """Return the sessions of ``ids`` that exist, in the order of ``ids``, with mentions.

        As Kuzu's ``get_sessions``: a session node without a start is left out.
        """
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        rows = self._q(
            "UNWIND $ids AS i MATCH (s:Session {id: i}) "
            f"OPTIONAL MATCH (s)-[m:MENTIONS]->(e:Entity) RETURN {_SESSION_RETURN}",
            {"ids": wanted},
        )
        found = {r[0]: _session(r) for r in rows if r[1] is not None}
        return [found[i] for i in wanted if i in found]

    def count_sessions(self, *, until: dt.datetime | None = None) -> int:
        """Return how many sessions are stored (started at or before ``until``, if given)."""
        if until is None:
            return int(self._q("MATCH (s:Session) RETURN count(s)")[0][0])
        rows = self._q(
            "MATCH (s:Session) WHERE s.started_at <= $until RETURN count(s)",
            {"until": to_db(until)},
        )
        return int(rows[0][0])

    def count_mentioning_sessions(self, *, now: dt.datetime) -> int:
        """Return how many sessions started by ``now`` mention anything: the IDF's ``N``."""
        rows = self._q(
            "MATCH (s:Session)-[:MENTIONS]->(:Entity) WHERE s.started_at <= $now "
            "RETURN count(DISTINCT s)",
            {"now": to_db(now)},
        )
        return int(rows[0][0]) if rows else 0

    def mention_counts(
        self, *, now: dt.datetime, start: dt.datetime, min_hits: int = 0
    ) -> list[MentionCounts]:
        """Count the sessions started by ``now`` that mention each entity (one query).

        ``hits`` counts those started in ``(start, now]``, ``df`` all of them, ``last_mention``
        is the newest one's start; only entities with ``hits >= min_hits``, by entity id.
        """
        rows = self._q(
            _MENTIONS + " WHERE hits >= $min_hits RETURN e.id, e.name, hits, df, last",
            {"now": to_db(now), "start": to_db(start), "min_hits": int(min_hits)},
        )
        out = [MentionCounts(r[0], r[1], int(r[2]), int(r[3]), _aware(r[4])) for r in rows]
        out.sort(key=lambda m: m.entity_id)
        return out

    def mention_groups(self, *, now: dt.datetime, start: dt.datetime) -> list[MentionGroup]:
        """Count the entities mentioned in ``(start, now]`` by their ``(hits, df)``."""
        rows = self._q(
            _MENTIONS + " WHERE hits > 0 RETURN hits, df, count(*)",
            {"now": to_db(now), "start": to_db(start)},
        )
        return sorted(MentionGroup(int(r[0]), int(r[1]), int(r[2])) for r in rows)

    def fact_activity(
        self,
        *,
        now: dt.datetime,
        with_texts: bool = False,
        keep: Collection[str] | None = None,
    ) -> list[FactActivity]:
        """Each entity's fact versions believed and started at ``now`` (both endpoints count).

        ``n_current`` and ``statements`` keep the versions also valid at ``now``; with ``keep``
        an entity that is only ever an object is returned only when its id is in ``keep``.
        """
        texts = (
            f", collect(CASE WHEN {_VALID_NOW} AND r.statement IS NOT NULL "
            "THEN [r.fid, r.statement] END) AS texts"
            if with_texts
            else ", [] AS texts"
        )
        side = (
            "MATCH (a:Entity)-[r:Fact]->(b:Entity) WHERE " + _KNOWN_IF + " "
            "RETURN {e}.id AS id, {e}.name AS name, {subj} AS subj, " + _NEWEST + " AS newest, "
            f"count(CASE WHEN {_VALID_NOW} THEN 1 END) AS n" + texts
        )
        rows = self._q(
            side.format(e="a", subj="true") + " UNION ALL " + side.format(e="b", subj="false"),
            {"now": to_db(now)},
        )
        subjects = {r[0] for r in rows if r[2]}
        merged: dict[str, list[Any]] = {}
        for r in sorted(rows, key=lambda r: not r[2]):  # the subject side first
            eid = r[0]
            if keep is not None and eid not in subjects and eid not in keep:
                continue
            statements = [t for _, t in sorted(r[5] or ()) if t] if with_texts else []
            prev = merged.get(eid)
            if prev is None:
                merged[eid] = [r[1], r[3], int(r[4]), statements]
            else:
                prev[1] = max(prev[1], r[3])
                prev[2] += int(r[4])
                prev[3].extend(statements)
        return [
            FactActivity(eid, name, eid in subjects, _aware(newest), n, tuple(texts_))
            for eid, (name, newest, n, texts_) in sorted(merged.items())
        ]

    def newest_activity(
        self, *, now: dt.datetime, entity_ids: Collection[str]
    ) -> dict[str, dt.datetime]:
        """Return ``{entity id: newest fact activity}`` as of ``now`` for these entities.

        The times are :meth:`fact_activity`'s ``newest``; entities without a counted version
        are left out.
        """
        if not entity_ids:
            return {}
        rows = self._q(
            "UNWIND $ids AS i MATCH (e:Entity {id: i})-[r:Fact]-() WHERE "
            + _KNOWN_IF
            + " RETURN e.id, "
            + _NEWEST,
            {"ids": sorted(set(entity_ids)), "now": to_db(now)},
        )
        return {r[0]: _aware(r[1]) for r in rows if r[1] is not None}

    def session_fact_ids(self, session_id: str) -> list[str]:
        """Return the ids of every fact version whose ``source`` is ``session_id``, sorted."""
        rows = self._q(
            "MATCH ()-[r:Fact]->() WHERE r.source = $sid RETURN r.fid", {"sid": session_id}
        )
        return sorted(r[0] for r in rows)

    def session_start_times(self, ids: Sequence[str]) -> dict[str, dt.datetime]:
        """Return ``{session id: started_at}`` for those ids that exist."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        rows = self._q(
            "UNWIND $ids AS i MATCH (s:Session {id: i}) RETURN s.id, s.started_at",
            {"ids": wanted},
        )
        found = {r[0]: _aware(r[1]) for r in rows}
        return {i: found[i] for i in wanted if i in found}

    def audit_records(
        self, *, since: dt.datetime, until: dt.datetime | None = None
    ) -> list[tuple[str, dt.datetime, str, str]]:
        """Return ``(id, at, action, detail)`` of audit records within ``[since, until)``."""
        params: dict[str, Any] = {"a0": to_db(since)}
        cond = "a.at >= $a0"
        if until is not None:
            cond += " AND a.at < $a1"
            params["a1"] = to_db(until)
        rows = self._q(
            f"MATCH (a:Audit) WHERE {cond} RETURN a.id, a.at, a.action, a.detail", params
        )
        out = [(r[0], _aware(r[1]), r[2] or "", r[3] or "") for r in rows]
        out.sort(key=lambda a: (a[1], a[0]))
        return out
