"""The FalkorDB-only session reads: mention counts and the newest activity of entities.

The reads both backends share are in :mod:`graphmem.store.cypher.sessions`. Here:
:meth:`mention_counts` (rows sorted by entity id) and :meth:`newest_activity` (keyed by entity
id, one ``UNWIND`` over the Entity.id index), and the session starts of ids, in their order.
Times are INT64 microseconds UTC (:mod:`~graphmem.store.falkordb.codec`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence

from graphmem.store.cypher.sessions import KNOWN_AT_NOW, MENTIONS, NEWEST
from graphmem.store.falkordb.codec import FALKOR, to_db
from graphmem.store.falkordb.connection import FalkorBase
from graphmem.store.records import MentionCounts

__all__ = ["FalkorSessions"]


class FalkorSessions(FalkorBase):
    """The :class:`~graphmem.store.base.SessionStore` methods (module docstring)."""

    def mention_counts(
        self, *, now: dt.datetime, start: dt.datetime, min_hits: int = 0
    ) -> list[MentionCounts]:
        """Count the sessions started by ``now`` that mention each entity (one query).

        ``hits`` counts those started in ``(start, now]``, ``df`` all of them, ``last_mention``
        is the newest one's start; only entities with ``hits >= min_hits``, by entity id.
        """
        rows = self._q(
            MENTIONS + " WHERE hits >= $min_hits RETURN e.id, e.name, hits, df, last",
            {"now": to_db(now), "start": to_db(start), "min_hits": int(min_hits)},
        )
        out = [MentionCounts(r[0], r[1], int(r[2]), int(r[3]), FALKOR.aware(r[4])) for r in rows]
        out.sort(key=lambda m: m.entity_id)
        return out

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
            + KNOWN_AT_NOW
            + " RETURN e.id, "
            + NEWEST,
            {"ids": sorted(set(entity_ids)), "now": to_db(now)},
        )
        return {r[0]: FALKOR.aware(r[1]) for r in rows if r[1] is not None}

    def session_start_times(self, ids: Sequence[str]) -> dict[str, dt.datetime]:
        """Return ``{session id: started_at}`` for those ids that exist."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return {}
        rows = self._q(
            "UNWIND $ids AS i MATCH (s:Session {id: i}) RETURN s.id, s.started_at",
            {"ids": wanted},
        )
        found = {r[0]: FALKOR.aware(r[1]) for r in rows}
        return {i: found[i] for i in wanted if i in found}
