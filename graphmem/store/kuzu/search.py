"""Retrieval queries for agent context: entity lookup, full-text search, 1-hop neighbourhoods.

Functions take a :class:`~graphmem.store.kuzu.engine.KuzuStore`; :mod:`graphmem.context` ranks
and renders what they return. Every query is parameterised and follows the Kuzu 0.11.3 planner
rules of docs/concepts/storage.md#with-barrier (rel-property filters behind a ``WITH`` barrier),
plus two measured here at 100k-1M facts: ``UNWIND $ids AS i MATCH (a:Entity {id: i})-[r:Fact]->()``
scans every edge
(177 ms at 100k facts) and ``UNWIND``/``IN`` over Entity ids scans the node table (30-50 ms at
1M facts), so lookups are one parameterised query per id (0.7 ms per entity, 2-5 ms per
adjacency); and ``SET`` through an undirected match fails (see :meth:`count_access`).

Full-text search
    Kuzu's FTS indexes live on *node* tables, and statements live on ``Fact`` edges. So the index
    (:data:`ENTITY_INDEX`, BM25, English stemmer and stop words) covers ``Entity.name``: entity
    names, and — because a free-text note is stored as a ``note`` fact whose object entity *is*
    the text — every note's text. Statements of structured facts are matched in Python over the
    candidate facts gathered around the hit entities (their subjects and objects are entities the
    index finds). No schema change: the index is created on first use (``CREATE_FTS_INDEX`` runs
    in auto-commit mode only, so not inside a write transaction) and Kuzu keeps it up to date on
    every ``MERGE``/``CREATE``/``COPY``/``DELETE`` of an entity. Its tokenizer drops digits
    and punctuation, so names such as "E123" or "GPT-4" are found by the primary-key lookup of
    the query's words, not by full text.

Fallback
    When the engine has no FTS extension (ladybug offline: ``INSTALL fts`` needs the network) or
    the database is read-only and has no index yet, :meth:`search_entities` scans entity names
    for the keywords with ``CONTAINS`` and scores the hits in Python (fraction of keywords
    matched as whole words). That is a full scan of the Entity table — fine up to about 100k
    entities, slow beyond; entity-anchored lookups (:meth:`find_entities`) never scan.

Caveat for ``EXPORT DATABASE``: Kuzu exports the index as ``CALL CREATE_FTS_INDEX(...)`` in
``index.cypher``, which an offline ladybug cannot import; call :meth:`drop_entity_index` before
exporting for ladybug (the index is recreated on first use).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.store.cypher import search as shared_search
from graphmem.store.kuzu.codec import KUZU
from graphmem.store.kuzu.engine import KuzuStore
from graphmem.store.records import FactView, SessionClaim
from graphmem.timeutil import from_store, to_store

__all__ = ["ENTITY_INDEX", "KuzuSearch"]

#: Name of the FTS index over ``Entity.name``.
ENTITY_INDEX = "graphmem_entity_fts"


def _view(via: str | None, r: Sequence[Any]) -> FactView:
    return FactView.from_row(via, r, from_store)


# -- the full-text index ---------------------------------------------------------------------


# -- entities and facts ----------------------------------------------------------------------


@dataclass
class _Claims:
    marker: str | None
    rows: dict[str, tuple[SessionClaim, dt.datetime, dt.datetime | None]]
    by_source: dict[str, set[str]]


_CLAIM_RETURN = (
    "RETURN a.id, r.fid, r.predicate, r.object, r.statement, r.source, r.valid_from, "
    "r.valid_to, r.recorded_at, r.expired_at"
)


def _load_claims(store: KuzuStore, claims: _Claims, since: str | None) -> None:
    cond = "r.source IS NOT NULL AND r.statement IS NOT NULL"
    params: dict[str, Any] = {}
    if since is not None:
        cond += " AND (r.recorded_at > $m OR r.expired_at > $m)"
        params["m"] = to_store(dt.datetime.fromisoformat(since))
    for r in store.run(
        f"MATCH (a:Entity)-[r:Fact]->() WITH a, r WHERE {cond} {_CLAIM_RETURN}", params
    ):
        vf, rec = from_store(r[6]), from_store(r[8])
        if vf is None or rec is None:
            continue
        claim = SessionClaim(r[0], r[1], r[2], r[3], r[4], r[5], vf, from_store(r[7]))
        claims.rows[claim.id] = (claim, rec, from_store(r[9]))
        claims.by_source.setdefault(claim.source, set()).add(claim.id)


class KuzuSearch(KuzuStore):
    """Entity search and fact views on Kuzu (half of SearchStore)."""

    def __init__(
        self, path: str | None = None, *, engine: str = "kuzu", read_only: bool = False
    ) -> None:
        self._claims: _Claims | None = None  # the session claims read so far (facts_of_sessions)
        super().__init__(path, engine=engine, read_only=read_only)

    def entity_index_exists(self) -> bool:
        """Return whether the entity-name FTS index exists (``False`` without the extension)."""
        if not self.fts_available():
            return False
        rows = self.run("CALL SHOW_INDEXES() RETURN index_name")
        return any(r[0] == ENTITY_INDEX for r in rows)

    def ensure_entity_index(self) -> bool:
        """Create the entity-name FTS index when missing; return whether it can be queried.

        Returns ``False`` (and does nothing) when the engine has no FTS extension, or the store is
        read-only and has no index. Must not be called inside a write transaction (Kuzu creates FTS
        indexes in auto-commit mode only). Building it over an existing database is a one-time cost
        that grows with the number of entities (measured on a busy 2-core box: 1 s for 10k entities,
        106 s for the 110k entities of a 1M-fact store); once it exists, Kuzu maintains it on every
        write (no measurable cost on ``add_fact``/``add_facts``). Creating it with the schema keeps
        it cheap: an empty index is built instantly and grows with the data.

        Also ``False`` (no index: the callers scan) while an entity name holds a NUL character:
        Kuzu 0.11.3 crashes the process (SIGSEGV) on a later ``DELETE`` or ``SET`` of a row that
        ``CREATE_FTS_INDEX`` indexed with a NUL in its text, e.g. purging that entity. Rows
        written after the index exists are indexed one by one and are safe
        (docs/concepts/storage.md#fts-nul).
        """
        if self.entity_index_exists():
            return True
        if self.read_only or not self.fts_available():
            return False
        if self.run(
            "MATCH (e:Entity) WHERE e.name CONTAINS $nul RETURN e.id LIMIT 1", {"nul": "\x00"}
        ):
            return False
        self.run(
            f"CALL CREATE_FTS_INDEX('Entity', '{ENTITY_INDEX}', ['name'], "
            "stemmer := 'english', stopWords := 'default')"
        )
        return True

    def drop_entity_index(self) -> bool:
        """Drop the entity-name FTS index (e.g. before ``EXPORT DATABASE`` for ladybug).

        Returns:
            Whether an index was dropped.
        """
        if not self.entity_index_exists():
            return False
        self.run(f"CALL DROP_FTS_INDEX('Entity', '{ENTITY_INDEX}')")
        return True

    def search_entities(
        self, keywords: Sequence[str], *, limit: int = 20, use_index: bool = True
    ) -> list[tuple[str, str, float]]:
        """Full-text search over entity names (and so over note texts).

        Args:
            keywords: query words (already lower-cased, stop words removed); digits are ignored by
                the index tokenizer, so pass words.
            limit: at most this many hits.
            use_index: query the FTS index (the caller checked :meth:`ensure_entity_index`);
                ``False`` uses the scan fallback.

        Returns:
            ``(entity id, name, score)`` with ``score`` in ``(0, 1]`` relative to the best hit,
            best first, ties by id.
        """
        words = shared_search.keywords(keywords)
        if not words or limit <= 0:
            return []
        if use_index:
            rows = self.run(
                f"CALL QUERY_FTS_INDEX('Entity', '{ENTITY_INDEX}', $q, top := $top) "
                "RETURN node.id, node.name, score",
                {"q": " ".join(words), "top": limit},
            )
            hits = [(r[0], r[1], float(r[2])) for r in rows]
        else:
            hits = shared_search.scan_names(self, words[:12], limit)
        return shared_search.normalise(hits, limit)

    def find_entities(self, ids: Iterable[str]) -> dict[str, str]:
        """Return ``{id: name}`` for the given entity ids that exist.

        One primary-key lookup per id (0.7 ms at 1M facts): ``UNWIND $ids ... MATCH (e {id: i})``
        and ``WHERE e.id IN $ids`` both scan the Entity table on Kuzu 0.11.3 (30-50 ms there).
        """
        out: dict[str, str] = {}
        for i in sorted(set(ids)):
            for eid, name in self.run("MATCH (e:Entity {id: $i}) RETURN e.id, e.name", {"i": i}):
                out[eid] = name
        return out

    def has_facts(self) -> bool:
        """Return whether any fact version is stored."""
        return bool(self.run("MATCH ()-[r:Fact]->() RETURN r.fid LIMIT 1"))

    def _views_per_id(
        self, ids: Sequence[str], match: str, conds: Sequence[str], params: dict[str, Any]
    ) -> list[FactView]:
        """One query per id.

        On Kuzu 0.11.3 ``UNWIND $ids ... MATCH (a {id: i})-[r]->()`` scans every edge (177 ms
        at 100k facts against 2-4 ms a lookup).
        """
        query = (
            f"{match.format(i='$i')} {KUZU.where('a, r', conds)}RETURN {shared_search.VIEW}"
            " ORDER BY r.recorded_at DESC, r.fid LIMIT $lim"
        )
        return [_view(i, r) for i in ids for r in self.run(query, {"i": i, **params})]

    def forget_claims(self) -> None:
        """Drop the cached session claims of ``store`` (after a purge deleted versions)."""
        self._claims = None

    def facts_of_sessions(
        self, session_ids: Sequence[str], *, known_at: dt.datetime, expired: bool = False
    ) -> list[SessionClaim]:
        """Return the versions with a statement whose ``source`` is one of ``session_ids``.

        Only versions believed at ``known_at`` (``expired``: only those recorded by then and no
        longer believed then). ``source`` is a rel property, which has no index,
        so every version with a source and a statement is read once per process (one scan) and
        kept; after a write (the ``last_write`` marker moved) only the versions recorded or closed
        since are read again (one scan that returns few rows). A purge calls
        :meth:`forget_claims`.
        """
        ids = sorted(set(session_ids))
        if not ids:
            return []
        marker = self.get_meta("last_write")
        claims = self._claims
        if claims is None:
            claims = self._claims = _Claims(marker, {}, {})
            _load_claims(self, claims, None)
        elif claims.marker != marker:
            _load_claims(self, claims, claims.marker)
            claims.marker = marker
        out = []
        for sid in ids:
            for fid in sorted(claims.by_source.get(sid, ())):
                claim, rec, exp = claims.rows[fid]
                believed = exp is None or known_at < exp
                if rec <= known_at and believed != expired:
                    out.append(claim)
        return out

    def versions_of(
        self, pairs: Iterable[tuple[str, str]], *, known_at: dt.datetime
    ) -> list[FactView]:
        """Return every version of the ``(subject id, predicate)`` pairs known at ``known_at``."""
        query = (
            "MATCH (a:Entity {id: $s})-[r:Fact]->() "
            f"WITH a, r WHERE r.predicate = $p AND {shared_search.KNOWN_AT_K} "
            f"RETURN {shared_search.VIEW}"
        )
        k = to_store(known_at)
        return [
            _view(s, r)
            for s, p in sorted(set(pairs))
            for r in self.run(query, {"s": s, "p": p, "k": k})
        ]

    def count_access(
        self, groups: Mapping[tuple[str, str], Sequence[str]], *, at: dt.datetime
    ) -> None:
        """Add 1 to ``access_count`` and set ``last_accessed_at`` of the given versions.

        Args:
            groups: ``{(direction, entity id): [fact ids]}`` where ``direction`` is ``"out"`` when
                the entity is the versions' subject and ``"in"`` when it is their object — one
                query per group, through the entity's primary key and adjacency.
            at: the access time.
        """
        for (direction, eid), fids in sorted(groups.items()):
            if direction not in ("out", "in"):
                raise InvalidInput(f"access direction={direction!r}; use 'out' or 'in'")
            # Directed on purpose: a SET through an undirected match, (a)-[r]-(), fails on Kuzu
            # 0.11.3 with "KU_UNREACHABLE" (csr_node_group.cpp:411) once it reaches an edge by the
            # backward adjacency of a large table (seen at 1M facts).
            pattern = (
                "(a:Entity {id: $i})-[r:Fact]->()"
                if direction == "out"
                else "()-[r:Fact]->(a:Entity {id: $i})"
            )
            self.run(
                f"MATCH {pattern} WITH r WHERE r.fid IN $f "
                "SET r.access_count = coalesce(r.access_count, 0) + 1, r.last_accessed_at = $at",
                {"i": eid, "f": sorted(set(fids)), "at": to_store(at)},
            )
