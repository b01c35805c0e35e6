"""SearchStore on FalkorDB: entity names and fact views around entities.

:class:`FalkorSearch` is a mixin of :class:`~graphmem.store.falkordb.FalkorStore`; it only
reads, through ``self._q``, plus the DDL of its two full-text indexes. Results equal those of
the Kuzu reference (:mod:`graphmem.store.kuzu.search`, :mod:`graphmem.store.kuzu.lines`) for
the same data, in the same order, with the differences listed here. The session lines
(episodic search) are :class:`~graphmem.store.falkordb.lines.FalkorLines`, which this class
extends.

Entity search (:meth:`FalkorSearch.search_entities`)
    Scored as Kuzu's scan fallback (``_scan_entities``): the fraction of query words that are
    a word, or the prefix of a word, of the name, divided by ``1 + 0.02 * words in the name``,
    relative to the best hit, ties by id. ``use_index=False`` finds the candidates with a
    ``toLower(name) CONTAINS`` scan, as Kuzu's fallback does: the same results.
    ``use_index=True`` asks the full-text index over ``Entity.name`` (English stemming, like
    Kuzu's FTS index) for the names holding a query word or a word of the same stem (no scan),
    then scores them the same way: the scan's hits less those that match only by a prefix.
    Prefix queries (``word*``) are not used: RediSearch caps their expansion (``ro*`` found 69
    of 1,000 names starting with "ro"). Kuzu's FTS path ranks by its own BM25 instead; that
    ranking is not reproduced here (same kind of hits, another order). RediSearch folds case
    in ASCII only and splits words at punctuation, not at digits, so a query with a non-ASCII
    word takes the scan, and through the index ``abc123def`` is not found by ``def``. An
    index still being filled (created over existing entities) is not used: the scan answers.
    Measured at 100,000 entities (load average 8): 1-3 ms through the index, 125-270 ms for
    the scan. With ``use_index=True`` and no index, :class:`StoreError` (as Kuzu).

Fact views
    :meth:`facts_from` and :meth:`facts_to` are one ``UNWIND ... CALL {... ORDER BY ... LIMIT}``
    query for all ids (a round trip per id on Kuzu). :meth:`facts_of_sessions` is one query
    on ``r.source IN $ids``, answered by the store's edge index on ``Fact.source`` (Kuzu has no
    rel index and keeps a per-process cache instead).
    :meth:`versions_of` returns each pair's versions by ``recorded_at`` then id (Kuzu: storage
    order).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from graphmem.errors import StoreError
from graphmem.store.cypher import search as shared_search
from graphmem.store.falkordb.codec import from_db, to_db
from graphmem.store.falkordb.lines import COLD_FTS_MIN, LINE_INDEX_DDL, FalkorLines
from graphmem.store.records import FactView, SessionClaim

__all__ = ["COLD_FTS_MIN", "ENTITY_INDEX_DDL", "LINE_INDEX_DDL", "FalkorSearch"]

#: The full-text index over ``Entity.name``.
ENTITY_INDEX_DDL = "CALL db.idx.fulltext.createNodeIndex('Entity', 'name')"


_VIEW_AS = ", ".join(f"{c} AS c{i}" for i, c in enumerate(shared_search.VIEW.split(", ")))
_VIEW_COLS = ", ".join(f"c{i}" for i in range(len(shared_search.VIEW.split(", "))))


def _view(via: str, r: Sequence[Any]) -> FactView:
    return FactView.from_row(via, r, from_db)


def _newest_first(view: FactView) -> tuple[float, str]:
    return (-view.recorded_at.timestamp(), view.id)


class FalkorSearch(FalkorLines):
    """The :class:`~graphmem.store.base.SearchStore` methods (module docstring)."""

    # -- entities ------------------------------------------------------------------------------

    def entity_index_exists(self) -> bool:
        """Return whether the full-text index over ``Entity.name`` exists."""
        found = self._fulltext("Entity")
        return found is not None and "name" in found.fields

    def ensure_entity_index(self) -> bool:
        """Create the entity-name full-text index when missing; return whether it is usable.

        ``False`` on a read-only store without the index. FalkorDB keeps it up to date on
        every write.
        """
        return self._ensure_fulltext("Entity", "name", ENTITY_INDEX_DDL)

    def drop_entity_index(self) -> bool:
        """Drop the entity-name full-text index; return whether one was dropped."""
        return self._drop_fulltext("Entity", "name")

    def search_entities(
        self, keywords: Sequence[str], *, limit: int = 20, use_index: bool = True
    ) -> list[tuple[str, str, float]]:
        """Search entity names (and so note texts) for the keywords (module docstring).

        Returns:
            ``(entity id, name, score)`` with ``score`` in ``(0, 1]`` relative to the best
            hit, best first, ties by id.
        """
        words = shared_search.keywords(keywords)
        if not words or limit <= 0:
            return []
        words = words[:12]
        if use_index:
            found = self._fulltext("Entity")
            if found is None or "name" not in found.fields:
                # FalkorDB answers a query on a missing index with no rows (Kuzu fails).
                raise StoreError(
                    f"the store {self.path} has no full-text index over entity names; call "
                    "ensure_entity_index() or search with use_index=False"
                )
            use_index = found.ready and all(w.isascii() for w in words)
        if not use_index:
            return shared_search.normalise(shared_search.scan_names(self, words, limit), limit)
        rows = self._q(
            "CALL db.idx.fulltext.queryNodes('Entity', $q) YIELD node RETURN node.id, node.name",
            {"q": "|".join(words)},
        )
        return shared_search.normalise(shared_search.rank_names(rows, words, limit), limit)

    def find_entities(self, ids: Iterable[str]) -> dict[str, str]:
        """Return ``{id: name}`` for the given entity ids that exist."""
        wanted = sorted(set(ids))
        if not wanted:
            return {}
        rows = self._q(
            "UNWIND $ids AS i MATCH (e:Entity {id: i}) RETURN e.id, e.name", {"ids": wanted}
        )
        found = {r[0]: r[1] for r in rows}
        return {i: found[i] for i in wanted if i in found}

    # -- fact versions -------------------------------------------------------------------------

    def has_facts(self) -> bool:
        """Return whether any fact version is stored."""
        return bool(self._q("MATCH ()-[r:Fact]->() RETURN r.fid LIMIT 1"))

    def _views_per_id(
        self, ids: Sequence[str], match: str, conds: Sequence[str], params: dict[str, Any]
    ) -> list[FactView]:
        """One query for all ids (``UNWIND`` into a ``CALL`` subquery: a limit per id)."""
        wanted = list(dict.fromkeys(ids))
        if not wanted:
            return []
        rows = self._q(
            f"UNWIND $ids AS i CALL {{ WITH i {match.format(i='i')} WHERE {' AND '.join(conds)} "
            f"RETURN {_VIEW_AS} "
            f"ORDER BY c7 DESC, c2 LIMIT $lim }} RETURN i, {_VIEW_COLS}",
            {"ids": wanted, **params},
        )
        found: dict[str, list[FactView]] = {}
        for r in rows:
            found.setdefault(r[0], []).append(_view(r[0], r[1:]))
        for views in found.values():
            views.sort(key=_newest_first)
        return [v for i in ids for v in found.get(i, ())]

    def facts_of_sessions(
        self, session_ids: Sequence[str], *, known_at: dt.datetime, expired: bool = False
    ) -> list[SessionClaim]:
        """Return the versions with a statement whose ``source`` is one of ``session_ids``.

        Only those believed at ``known_at`` (``expired``: only those recorded by then and no
        longer believed then); by session id, then fact id.
        """
        ids = sorted(set(session_ids))
        if not ids:
            return []
        when = (
            "r.recorded_at <= $k AND r.expired_at IS NOT NULL AND r.expired_at <= $k"
            if expired
            else shared_search.KNOWN_AT_K
        )
        rows = self._q(
            "MATCH (a)-[r:Fact]->() WHERE r.source IN $ids AND r.statement IS NOT NULL "
            f"AND {when} RETURN a.id, r.fid, r.predicate, r.object, r.statement, r.source, "
            "r.valid_from, r.valid_to",
            {"ids": ids, "k": to_db(known_at)},
        )
        out = []
        for r in rows:
            vf = from_db(r[6])
            if vf is None:
                continue
            out.append(SessionClaim(r[0], r[1], r[2], r[3], r[4], r[5], vf, from_db(r[7])))
        out.sort(key=lambda c: (c.source, c.id))
        return out

    def versions_of(
        self, pairs: Iterable[tuple[str, str]], *, known_at: dt.datetime
    ) -> list[FactView]:
        """Return every version of the ``(subject id, predicate)`` pairs known at ``known_at``.

        By pair, then ``recorded_at`` and id.
        """
        wanted = sorted(set(pairs))
        if not wanted:
            return []
        rows = self._q(
            "UNWIND $pairs AS p MATCH (a:Entity {id: p[0]})-[r:Fact]->() "
            f"WHERE r.predicate = p[1] AND {shared_search.KNOWN_AT_K} RETURN {shared_search.VIEW}",
            {"pairs": [list(p) for p in wanted], "k": to_db(known_at)},
        )
        found: dict[tuple[str, str], list[FactView]] = {}
        for r in rows:
            view = _view(r[0], r)
            found.setdefault((view.subject_id, view.predicate), []).append(view)
        out = []
        for pair in wanted:
            out.extend(sorted(found.get(pair, ()), key=lambda v: (v.recorded_at, v.id)))
        return out
