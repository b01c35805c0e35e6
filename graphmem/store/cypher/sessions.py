"""Shared reads of sessions, mentions, topic aggregates and audit records.

Sessions are ``Session`` nodes with ``MENTIONS {count}`` edges to ``Entity`` nodes; a fact's
``source`` names the session it came from. Rows are ordered in Python where an order is promised
(code-point order whatever the engine's collation); where none is (the aggregates), rows come
sorted by entity id and callers treat them as sets (docs/concepts/storage.md#one-cypher-core).

Every ``CASE`` repeats its condition inline: a boolean projected with ``WITH`` and used in
``CASE WHEN`` inside an aggregate gives wrong counts in Kuzu 0.11.3. ``collect()`` of nothing
but NULLs is ``[]`` in Kuzu and ``NULL`` in ladybug and FalkorDB.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence
from typing import Any

from graphmem.models import Session
from graphmem.store.cypher.dialect import CypherHost, Dialect
from graphmem.store.records import FactActivity, MentionGroup

__all__ = [
    "KNOWN_AT_NOW",
    "MENTIONS",
    "NEWEST",
    "audit_records",
    "count_mentioning_sessions",
    "count_sessions",
    "existing_session_ids",
    "fact_activity",
    "get_sessions",
    "mention_groups",
    "read_sessions",
    "session_fact_ids",
    "session_scopes",
    "sessions_naming",
]

#: A version counts "as of $now" when it was believed then and had started by then.
KNOWN_AT_NOW = (
    "r.recorded_at <= $now AND (r.expired_at IS NULL OR $now < r.expired_at) "
    "AND r.valid_from <= $now"
)
#: Its activity time: the later of when it became true and when graphmem learned it.
NEWEST = "max(CASE WHEN r.recorded_at > r.valid_from THEN r.recorded_at ELSE r.valid_from END)"
_VALID_NOW = "(r.valid_to IS NULL OR $now < r.valid_to)"
#: Per mentioned entity as of $now: its sessions in the window (hits), in all history (df), and
#: the newest one's start (last).
MENTIONS = (
    "MATCH (s:Session)-[:MENTIONS]->(e:Entity) WHERE s.started_at <= $now "
    "WITH e, count(CASE WHEN s.started_at > $start THEN 1 END) AS hits, count(*) AS df, "
    "max(s.started_at) AS last"
)
_SESSION_RETURN = (
    "s.id, s.started_at, s.ended_at, s.title, s.text, s.summary, s.source, "
    "collect({name: e.name, n: m.count}), s.scope"
)


def _session(d: Dialect, r: Sequence[Any]) -> Session:
    mentions = {m["name"]: int(m["n"]) for m in (r[7] or ()) if m and m.get("name") is not None}
    return Session(
        id=r[0],
        started_at=d.aware(r[1]),
        ended_at=d.from_db(r[2]),
        title=r[3],
        text=r[4],
        summary=r[5],
        source=r[6],
        mentions=dict(sorted(mentions.items())),
        scope=r[8] or "",
    )


def existing_session_ids(self: CypherHost, ids: Sequence[str]) -> set[str]:
    """Return those of ``ids`` that name a stored session (one query)."""
    if not ids:
        return set()
    rows = self._q(
        "UNWIND $ids AS i MATCH (s:Session {id: i}) RETURN s.id", {"ids": sorted(set(ids))}
    )
    return {r[0] for r in rows}


def session_scopes(self: CypherHost) -> dict[str, str]:
    """Return ``{session id: scope}`` of the sessions outside the root scope."""
    rows = self._q("MATCH (s:Session) WHERE s.scope IS NOT NULL RETURN s.id, s.scope")
    return {r[0]: r[1] for r in rows if r[1]}


def read_sessions(
    self: CypherHost,
    *,
    since: dt.datetime | None = None,
    until: dt.datetime | None = None,
    ids: Sequence[str] | None = None,
) -> list[Session]:
    """Return sessions with their mentions (display name -> count), by ``started_at``, id.

    Args:
        self: the store (a method of both backends).
        since: only sessions started at or after this time.
        until: only sessions started at or before this time.
        ids: only these session ids.
    """
    d = self.dialect
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
        params["since"] = d.to_db(since)
    if until is not None:
        conds.append("s.started_at <= $until")
        params["until"] = d.to_db(until)
    where = d.where("s", conds)
    rows = self._q(
        f"{match} {where}OPTIONAL MATCH (s)-[m:MENTIONS]->(e:Entity) RETURN {_SESSION_RETURN}",
        params,
    )
    out = [_session(d, r) for r in rows]
    out.sort(key=lambda s: (s.started_at, s.id))
    return out


def get_sessions(self: CypherHost, ids: Sequence[str]) -> list[Session]:
    """Return the sessions of ``ids`` that exist, in the order of ``ids``, with mentions.

    A session node without a start (a damaged row) cannot be a :class:`Session` and is left out.
    """
    wanted = list(dict.fromkeys(ids))
    if not wanted:
        return []
    rows = self._q(
        "UNWIND $ids AS i MATCH (s:Session {id: i}) "
        f"OPTIONAL MATCH (s)-[m:MENTIONS]->(e:Entity) RETURN {_SESSION_RETURN}",
        {"ids": wanted},
    )
    found = {r[0]: _session(self.dialect, r) for r in rows if r[1] is not None}
    return [found[i] for i in wanted if i in found]


def count_sessions(self: CypherHost, *, until: dt.datetime | None = None) -> int:
    """Return how many sessions are stored (started at or before ``until``, if given)."""
    if until is None:
        return int(self._q("MATCH (s:Session) RETURN count(s)")[0][0])
    rows = self._q(
        "MATCH (s:Session) WHERE s.started_at <= $until RETURN count(s)",
        {"until": self.dialect.to_db(until)},
    )
    return int(rows[0][0])


def count_mentioning_sessions(self: CypherHost, *, now: dt.datetime) -> int:
    """Return how many sessions started by ``now`` mention anything: the IDF's ``N``."""
    rows = self._q(
        "MATCH (s:Session)-[:MENTIONS]->(:Entity) WHERE s.started_at <= $now "
        "RETURN count(DISTINCT s)",
        {"now": self.dialect.to_db(now)},
    )
    return int(rows[0][0]) if rows else 0


def mention_groups(self: CypherHost, *, now: dt.datetime, start: dt.datetime) -> list[MentionGroup]:
    """Count the entities mentioned in the window ``(start, now]`` by their ``(hits, df)``.

    One query, a handful of rows (12 for 33,000 mentioned entities, in 15–25 ms on Kuzu): what a
    caller needs to bound every topic's engagement without reading one row per topic.
    """
    d = self.dialect
    rows = self._q(
        MENTIONS + " WHERE hits > 0 RETURN hits, df, count(*)",
        {"now": d.to_db(now), "start": d.to_db(start)},
    )
    return sorted(MentionGroup(int(r[0]), int(r[1]), int(r[2])) for r in rows)


def fact_activity(
    self: CypherHost,
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
        self: the store (a method of both backends).
        now: the time to aggregate at.
        with_texts: also return the statements of current versions (for actionability): the
            subject side's, then the object side's, each by fact id.
        keep: if given, an entity that is only ever a fact's object (a literal value, a note
            text) is returned only when its id is in ``keep``; subjects are always returned.

    Returns:
        One :class:`FactActivity` per returned entity with a counted version, by entity id.
    """
    d = self.dialect
    texts = (
        f", collect(CASE WHEN {_VALID_NOW} AND r.statement IS NOT NULL "
        "THEN [r.fid, r.statement] END) AS texts"
        if with_texts
        else ""
    )
    side = (
        "MATCH (a:Entity)-[r:Fact]->(b:Entity) "
        + d.where("a, b, r", [KNOWN_AT_NOW])
        + "RETURN {e}.id AS id, {e}.name AS name, {subj} AS subj, "
        + NEWEST
        + " AS newest, "
        f"count(CASE WHEN {_VALID_NOW} THEN 1 END) AS n" + texts
    )
    rows = self._q(
        side.format(e="a", subj="true") + " UNION ALL " + side.format(e="b", subj="false"),
        {"now": d.to_db(now)},
    )
    subjects = {r[0] for r in rows if r[2]}
    merged: dict[str, list[Any]] = {}
    for r in sorted(rows, key=lambda r: not r[2]):  # the subject side first
        eid = r[0]
        if keep is not None and eid not in subjects and eid not in keep:
            continue
        statements = (
            [p[1] for p in sorted(p for p in r[5] or () if p) if p[1]] if with_texts else []
        )
        prev = merged.get(eid)
        if prev is None:
            merged[eid] = [r[1], r[3], int(r[4]), statements]
        else:
            prev[1] = max(prev[1], r[3])
            prev[2] += int(r[4])
            prev[3].extend(statements)
    return [
        FactActivity(eid, name, eid in subjects, d.aware(newest), n, tuple(texts_))
        for eid, (name, newest, n, texts_) in sorted(merged.items())
    ]


def session_fact_ids(self: CypherHost, session_id: str) -> list[str]:
    """Return the ids of every fact version whose ``source`` is ``session_id``, sorted (a scan)."""
    where = self.dialect.where("r", ["r.source = $sid"])
    rows = self._q(f"MATCH ()-[r:Fact]->() {where}RETURN r.fid", {"sid": session_id})
    return sorted(r[0] for r in rows)


def audit_records(
    self: CypherHost, *, since: dt.datetime, until: dt.datetime | None = None
) -> list[tuple[str, dt.datetime, str, str]]:
    """Return ``(id, at, action, detail)`` of audit records within ``[since, until)``, by time."""
    d = self.dialect
    params: dict[str, Any] = {"a0": d.to_db(since)}
    cond = "a.at >= $a0"
    if until is not None:
        cond += " AND a.at < $a1"
        params["a1"] = d.to_db(until)
    rows = self._q(f"MATCH (a:Audit) WHERE {cond} RETURN a.id, a.at, a.action, a.detail", params)
    out = [(r[0], d.aware(r[1]), r[2] or "", r[3] or "") for r in rows]
    out.sort(key=lambda a: (a[1], a[0]))
    return out


def sessions_naming(self: CypherHost, words: Sequence[str]) -> dict[str, list[Any]]:
    """``{session id: [id, title, text, summary]}`` of sessions whose texts hold any word.

    A case-insensitive substring scan of every session (``words`` lower case): the candidates
    of a purge's redaction, which checks each for whole names.
    """
    lower = self.dialect.lower
    hits: dict[str, list[Any]] = {}
    for w in words:
        for r in self._q(
            f"MATCH (s:Session) WHERE {lower}(coalesce(s.title, '')) CONTAINS $w "
            f"OR {lower}(coalesce(s.text, '')) CONTAINS $w "
            f"OR {lower}(coalesce(s.summary, '')) CONTAINS $w "
            "RETURN s.id, s.title, s.text, s.summary",
            {"w": w},
        ):
            hits[r[0]] = r
    return hits
