"""FactStore on FalkorDB: metadata, ontology, entities and fact versions (reads).

:class:`FalkorFacts` is a mixin of :class:`~graphmem.store.falkordb.FalkorStore`; the store's
``writer`` part commits a change set as one query (:mod:`graphmem.store.falkordb.writes`).
The reads both backends share (``query_facts``, ``changed_between``, entities, predicates) are
in :mod:`graphmem.store.cypher.facts`; here are the ones FalkorDB answers its own way. Times
are INT64 microseconds UTC (:mod:`~graphmem.store.falkordb.codec`).

Query shapes (FalkorDB 4, measured at 100k versions): an edge-property lookup must leave the
far node unlabeled, ``MATCH (a)-[r:Fact {fid: x}]->()``, so the plan starts from the edge
index; with ``(a:Entity)`` it scans every entity and probes the index from each (100 ids:
21 s instead of 1.4 ms).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Sequence

from graphmem.models import Fact
from graphmem.store.falkordb.codec import FACT_RETURN, fact_from_row
from graphmem.store.falkordb.connection import FalkorBase

__all__ = ["FalkorFacts"]


class FalkorFacts(FalkorBase):
    """Metadata, ontology, entities and fact versions (the reads of FactStore)."""

    # -- metadata, ontology, entities ----------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        """Return a metadata value, or ``None``."""
        rows = self._q("MATCH (m:Meta {key: $k}) RETURN m.value", {"k": key})
        return rows[0][0] if rows else None

    def max_system_time(self) -> dt.datetime | None:
        """The newest write marker (aware UTC), or ``None`` for a store never written."""
        value = self.get_meta("last_write")
        return dt.datetime.fromisoformat(value) if value else None

    def entity_names(self, ids: Sequence[str]) -> dict[str, str]:
        """Return ``{id: display name}`` for those ids that exist."""
        unique = list(dict.fromkeys(ids))
        if not unique:
            return {}
        rows = self._q(
            "UNWIND $ids AS i MATCH (e:Entity {id: i}) RETURN e.id, e.name", {"ids": unique}
        )
        return {r[0]: r[1] for r in rows}

    # -- fact versions ---------------------------------------------------------------------------

    def current_versions(
        self,
        subject_ids: Sequence[str],
        *,
        pairs: Collection[tuple[str, str]] | None = None,
    ) -> dict[str, list[Fact]]:
        """One ``UNWIND`` over the ids, or over the pairs (the predicate filtered in the query).

        The protocol's :meth:`~graphmem.store.base.FactStore.current_versions`.
        """
        out: dict[str, list[Fact]] = {s: [] for s in subject_ids}
        if not out:
            return out
        if pairs is None:
            rows = self._q(
                "UNWIND $ids AS i MATCH (a:Entity {id: i})-[r:Fact]->() "
                f"WHERE r.expired_at IS NULL RETURN i, {FACT_RETURN} "
                "ORDER BY i, r.predicate, r.valid_from, r.recorded_at, r.fid",
                {"ids": list(out)},
            )
        else:
            rows = self._q(
                "UNWIND $pairs AS pr MATCH (a:Entity {id: pr.s})-[r:Fact]->() "
                f"WHERE r.predicate = pr.p AND r.expired_at IS NULL RETURN pr.s, {FACT_RETURN} "
                "ORDER BY pr.s, r.predicate, r.valid_from, r.recorded_at, r.fid",
                {"pairs": [{"s": s, "p": p} for s, p in dict.fromkeys(pairs) if s in out]},
            )
        for row in rows:
            out[row[0]].append(fact_from_row(row[1:]))
        return out

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
