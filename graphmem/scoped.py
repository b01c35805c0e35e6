"""The store as a scope sees it: every service reads and writes through this one filter.

:class:`ScopedStore` wraps a backend (docs/concepts/scopes.md). With no scope in force
(:func:`graphmem.scopes.in_force` is ``None``) every read passes through unchanged, so a memory
that never uses scopes reads exactly what it did. In scope ``S`` each read keeps what ``S``
sees (:func:`graphmem.scopes.nearest`): fact versions of ``S`` and its ancestors with the
nearest scope's value of a single-valued slot, sessions and their lines of the same scopes,
and the topic aggregates computed over those alone. Whatever the scope, a write's planning
read (:meth:`current_versions`) sees only the versions of the scope the write is recorded in,
and :meth:`apply` records the change set's new versions and sessions in it: one write path,
so supersession never crosses scopes.

The backends store the scope as a column; the filtering is here, once, for every backend.
Scoped topic aggregates read the visible sessions and versions in Python: a scan of the
store, where the unscoped ones are one aggregate query.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any, cast

from graphmem.models import Fact, Session
from graphmem.scopes import in_force, nearest, visible_set, write_scope
from graphmem.store.base import (
    Applied,
    ChangeSet,
    Edge,
    FactActivity,
    FactView,
    LineHit,
    LineRow,
    MentionCounts,
    MentionGroup,
    SessionClaim,
    Store,
)

__all__ = ["ScopedStore", "unfiltered"]


#: The attributes of the filter itself; any other is set on the backend.
_OWN = frozenset({"inner", "pinned", "_one", "_memo"})


def unfiltered(store: Store) -> Store:
    """The backend under the scope filter: for what every scope shares (a merge, a purge)."""
    inner = getattr(store, "inner", None)
    return store if inner is None else cast(Store, inner)


def _no_end(_: object) -> None:
    return None


class ScopedStore:
    """A :class:`~graphmem.store.base.Store` that shows and writes one scope's view."""

    def __init__(self, inner: Store, one: Callable[[str], bool], pinned: str | None) -> None:
        #: The backend.
        self.inner = inner
        #: The memory's own scope (``None``: every scope), in force outside its calls.
        self.pinned = pinned
        self._one = one  # whether a predicate is single-valued (the live ontology)
        #: What :meth:`_per_write` read, by name, with the newest-write marker it was read at.
        self._memo: dict[str, tuple[dt.datetime | None, Any]] = {}

    @property
    def store(self) -> Store:
        """This filter, typed as the store it stands for."""
        return cast(Store, self)

    def __getattr__(self, name: str) -> Any:
        # Everything this class does not filter (metadata, entities, integrity rows, ...).
        return getattr(self.inner, name)

    def __setattr__(self, name: str, value: Any) -> None:
        # A backend's settings (its copy policy, a test's seam) are the backend's; what this
        # class defines (a test wrapping ``apply``) is its own.
        if name in _OWN or hasattr(type(self), name):
            object.__setattr__(self, name, value)
        else:
            setattr(self.inner, name, value)

    # -- the write path -----------------------------------------------------------------------

    def apply(self, changes: ChangeSet) -> Applied:
        """Record the change set's new versions and sessions in the write's scope, then apply."""
        scope = write_scope(self.pinned)
        if scope:
            for _, _, f in changes.inserts:
                if not f.scope:  # a version this write built (a refiled one keeps its own)
                    f.__dict__["scope"] = scope
            changes.sessions = [
                (s if s.scope else s.model_copy(update={"scope": scope}), counts)
                for s, counts in changes.sessions
            ]
        if changes.sessions:
            self._memo.clear()
        return self.inner.apply(changes)

    def current_versions(self, subject_ids: Sequence[str], **kw: Any) -> dict[str, list[Fact]]:
        """The current versions of the write's own scope (what it may supersede)."""
        rows = self.inner.current_versions(subject_ids, **kw)
        scope = write_scope(self.pinned)
        return {sid: [f for f in vs if f.scope == scope] for sid, vs in rows.items()}

    # -- what the scope in force sees ---------------------------------------------------------

    def _seen(self) -> dict[str, int] | None:
        """The scopes a read in the scope in force sees; ``None``: every scope (no filter)."""
        scope = in_force(self.pinned)
        return None if scope is None else visible_set(scope)

    def _per_write(self, name: str, load: Callable[[], Any]) -> Any:
        """``load()``, read again only once a write moved the store's newest-write marker."""
        marker = self.inner.max_system_time()
        hit = self._memo.get(name)
        if hit is None or hit[0] != marker:
            hit = self._memo[name] = (marker, load())
        return hit[1]

    def _hidden(self) -> set[str] | None:
        """The sessions the scope in force does not see; ``None``: every scope (no filter)."""
        seen = self._seen()
        if seen is None:
            return None
        scopes: dict[str, str] = self._per_write("session scopes", self.inner.session_scopes)
        return {sid for sid, s in scopes.items() if s not in seen}

    # -- fact versions ------------------------------------------------------------------------

    def _facts(self, rows: Sequence[Fact], scope: str) -> list[Fact]:
        return nearest(
            rows, scope, one=self._one, subject=lambda f: f.subject, expired=lambda f: f.expired_at
        )

    def _views(self, rows: Sequence[FactView], scope: str) -> list[FactView]:
        return nearest(rows, scope, one=self._one, subject=lambda v: v.subject_id, expired=_no_end)

    def _edges(self, rows: Sequence[Edge], scope: str) -> list[Edge]:
        facts = {id(f): (s, o, f) for s, o, f in rows}
        kept = nearest(
            [f for _, _, f in rows],
            scope,
            one=self._one,
            subject=lambda f: f.subject,
            expired=lambda f: f.expired_at,
        )
        return [facts[id(f)] for f in kept]

    def query_facts(self, *, limit: int | None = None, **query: Any) -> list[Fact]:
        """The versions matching the filters that the scope in force sees."""
        scope = in_force(self.pinned)
        if scope is None:
            return self.inner.query_facts(limit=limit, **query)
        rows = self._facts(self.inner.query_facts(**query), scope)
        return rows if limit is None else rows[:limit]

    def get_facts(self, fids: Sequence[str]) -> list[Fact]:
        """The versions of ``fids`` the scope in force sees."""
        rows = self.inner.get_facts(fids)
        seen = self._seen()
        return rows if seen is None else [f for f in rows if f.scope in seen]

    def changed_between(self, since: dt.datetime, until: dt.datetime | None) -> list[Fact]:
        """The changed versions the scope in force sees."""
        rows = self.inner.changed_between(since, until)
        seen = self._seen()
        return rows if seen is None else [f for f in rows if f.scope in seen]

    def count_versions(self) -> int:
        """How many versions the scope in force sees."""
        if self._seen() is None:
            return self.inner.count_versions()
        return len(self.all_facts())

    def facts_from(
        self, ids: Sequence[str], *, known_at: dt.datetime, limit: int = 2000
    ) -> list[FactView]:
        """The versions from these subjects the scope in force sees."""
        rows = self.inner.facts_from(ids, known_at=known_at, limit=limit)
        scope = in_force(self.pinned)
        return rows if scope is None else self._views(rows, scope)

    def facts_to(
        self, ids: Sequence[str], *, known_at: dt.datetime, valid_at: dt.datetime, limit: int = 50
    ) -> list[FactView]:
        """The versions into these objects the scope in force sees."""
        rows = self.inner.facts_to(ids, known_at=known_at, valid_at=valid_at, limit=limit)
        scope = in_force(self.pinned)
        return rows if scope is None else self._views(rows, scope)

    def versions_of(
        self, pairs: Iterable[tuple[str, str]], *, known_at: dt.datetime
    ) -> list[FactView]:
        """The versions of these slots the scope in force sees."""
        rows = self.inner.versions_of(pairs, known_at=known_at)
        scope = in_force(self.pinned)
        return rows if scope is None else self._views(rows, scope)

    def snapshot_edges(
        self, *, valid_at: dt.datetime, known_at: dt.datetime, subject_id: str | None = None
    ) -> list[Edge]:
        """The graph at a point as the scope in force sees it."""
        rows = self.inner.snapshot_edges(
            valid_at=valid_at, known_at=known_at, subject_id=subject_id
        )
        scope = in_force(self.pinned)
        return rows if scope is None else self._edges(rows, scope)

    def ball(
        self, entity_id: str, hops: int, *, valid_at: dt.datetime, known_at: dt.datetime
    ) -> tuple[list[dict[str, Any]], list[Edge]] | None:
        """The entities and edges around an entity as the scope in force sees them."""
        found = self.inner.ball(entity_id, hops, valid_at=valid_at, known_at=known_at)
        scope = in_force(self.pinned)
        if scope is None or found is None:
            return found
        entities, edges = found
        kept = self._edges(edges, scope)
        ends = {entity_id} | {s for s, _, _ in kept} | {o for _, o, _ in kept}
        return [e for e in entities if e.get("id") in ends], kept

    def all_facts(self) -> list[Edge]:
        """Every version the scope in force sees."""
        rows = self.inner.all_facts()
        seen = self._seen()
        return rows if seen is None else [e for e in rows if e[2].scope in seen]

    # -- sessions -----------------------------------------------------------------------------

    def _keep_sessions(self, rows: Sequence[Session]) -> list[Session]:
        seen = self._seen()
        return list(rows) if seen is None else [s for s in rows if s.scope in seen]

    def read_sessions(
        self,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        ids: Sequence[str] | None = None,
    ) -> list[Session]:
        """The sessions the scope in force sees."""
        return self._keep_sessions(self.inner.read_sessions(since=since, until=until, ids=ids))

    def get_sessions(self, ids: Sequence[str]) -> list[Session]:
        """The sessions of ``ids`` the scope in force sees."""
        return self._keep_sessions(self.inner.get_sessions(ids))

    def all_sessions(self) -> list[dict[str, Any]]:
        """Every session row the scope in force sees."""
        rows = self.inner.all_sessions()
        seen = self._seen()
        return rows if seen is None else [r for r in rows if (r.get("scope") or "") in seen]

    def count_sessions(self, *, until: dt.datetime | None = None) -> int:
        """How many sessions the scope in force sees (started by ``until``)."""
        total = self.inner.count_sessions(until=until)
        hidden = self._hidden()
        if hidden is None:
            return total
        starts = self.inner.session_start_times(sorted(hidden))
        return total - sum(1 for t in starts.values() if until is None or t <= until)

    def session_fact_ids(self, session_id: str) -> list[str]:
        """The versions written from a session the scope in force sees."""
        if session_id in (self._hidden() or ()):
            return []
        return self.inner.session_fact_ids(session_id)

    def session_start_times(self, ids: Sequence[str]) -> dict[str, dt.datetime]:
        """The start times of the sessions of ``ids`` the scope in force sees."""
        rows = self.inner.session_start_times(ids)
        hidden = self._hidden()
        return rows if hidden is None else {k: v for k, v in rows.items() if k not in hidden}

    def facts_of_sessions(
        self, session_ids: Sequence[str], *, known_at: dt.datetime, expired: bool = False
    ) -> list[SessionClaim]:
        """The versions the scope in force sees, written from the sessions it sees."""
        hidden = self._hidden()
        if hidden is None:
            return self.inner.facts_of_sessions(session_ids, known_at=known_at, expired=expired)
        session_ids = [s for s in session_ids if s not in hidden]
        claims = self.inner.facts_of_sessions(session_ids, known_at=known_at, expired=expired)
        # A version written in a narrower scope than its session (a sibling's) stays hidden.
        seen = {f.id for f in self.get_facts([c.id for c in claims])}
        return [c for c in claims if c.id in seen]

    # -- topic aggregates (docs/concepts/scopes.md#what-a-scope-costs) ------------------------

    def _mentions(self, now: dt.datetime) -> list[tuple[dt.datetime, Mapping[str, int]]]:
        """``(started_at, {entity id: count})`` of the visible sessions started by ``now``.

        Every session's row is read once per write (a topic read asks three or four times).
        """
        seen = self._seen() or {}
        rows: list[tuple[str, dt.datetime | None, Mapping[str, int]]] = self._per_write(
            "mentions",
            lambda: [
                (r.get("scope") or "", r["started_at"], r.get("mentions") or {})
                for r in self.inner.all_sessions()
            ],
        )
        return [
            (started, mentions)
            for scope, started, mentions in rows
            if scope in seen and started is not None and started <= now
        ]

    def count_mentioning_sessions(self, *, now: dt.datetime) -> int:
        """How many sessions the scope in force sees mention anything by ``now``."""
        if self._seen() is None:
            return self.inner.count_mentioning_sessions(now=now)
        return sum(1 for _, m in self._mentions(now) if m)

    def mention_counts(
        self, *, now: dt.datetime, start: dt.datetime, min_hits: int = 0
    ) -> list[MentionCounts]:
        """Per entity, the visible sessions that mention it (the window and all history)."""
        if self._seen() is None:
            return self.inner.mention_counts(now=now, start=start, min_hits=min_hits)
        hits: Counter[str] = Counter()
        df: Counter[str] = Counter()
        last: dict[str, dt.datetime] = {}
        for started, mentions in self._mentions(now):
            for eid in mentions:
                df[eid] += 1
                hits[eid] += started > start
                last[eid] = max(last.get(eid, started), started)
        names = self.inner.entity_names(sorted(df))
        return [
            MentionCounts(eid, names[eid], hits[eid], df[eid], last[eid])
            for eid in sorted(df)
            if eid in names and hits[eid] >= min_hits
        ]

    def mention_groups(self, *, now: dt.datetime, start: dt.datetime) -> list[MentionGroup]:
        """The (hits, df) pairs of the topics the visible sessions mention."""
        if self._seen() is None:
            return self.inner.mention_groups(now=now, start=start)
        groups = Counter(
            (m.hits, m.df) for m in self.mention_counts(now=now, start=start) if m.hits > 0
        )
        return sorted(MentionGroup(h, d, n) for (h, d), n in groups.items())

    def _activity(self, scope: str, now: dt.datetime) -> dict[str, list[Any]]:
        """Per entity: ``[is subject, newest, n current, statements]`` as believed at ``now``."""
        believed = [e for e in self.all_facts() if e[2].known_at(now) and e[2].valid_from <= now]
        out: dict[str, list[Any]] = {}
        for s, o, f in self._edges(believed, scope):
            newest = max(f.recorded_at, f.valid_from)
            valid = f.valid_to is None or now < f.valid_to
            for eid, subj in ((s, True), (o, False)):
                row = out.setdefault(eid, [False, newest, 0, []])
                row[0] = row[0] or subj
                row[1] = max(row[1], newest)
                row[2] += valid
                if valid and f.statement:
                    row[3].append(f.statement)
        return out

    def fact_activity(
        self,
        *,
        now: dt.datetime,
        with_texts: bool = False,
        keep: Collection[str] | None = None,
    ) -> list[FactActivity]:
        """Per entity, its visible versions believed at ``now``."""
        scope = in_force(self.pinned)
        if scope is None:
            return self.inner.fact_activity(now=now, with_texts=with_texts, keep=keep)
        rows = {
            eid: row
            for eid, row in self._activity(scope, now).items()
            if keep is None or row[0] or eid in keep
        }
        names = self.inner.entity_names(sorted(rows))
        return [
            FactActivity(eid, names[eid], subj, newest, n, tuple(texts) if with_texts else ())
            for eid, (subj, newest, n, texts) in rows.items()
            if eid in names
        ]

    def newest_activity(
        self, *, now: dt.datetime, entity_ids: Collection[str]
    ) -> dict[str, dt.datetime]:
        """The newest visible fact activity of these entities as of ``now``."""
        scope = in_force(self.pinned)
        if scope is None:
            return self.inner.newest_activity(now=now, entity_ids=entity_ids)
        rows = self._activity(scope, now)
        return {eid: rows[eid][1] for eid in entity_ids if eid in rows}

    # -- session lines ------------------------------------------------------------------------

    def search_lines(
        self,
        words: Sequence[str],
        *,
        limit: int = 50,
        known_at: dt.datetime | None = None,
        use_index: bool | None = None,
        common: float | None = None,
    ) -> list[LineHit]:
        """The best visible lines for the query words (asks the backend for more as needed)."""
        hidden = self._hidden()
        if hidden is None:
            return self.inner.search_lines(
                words, limit=limit, known_at=known_at, use_index=use_index, common=common
            )
        asked = limit
        while True:  # ask for more until enough visible lines come back, or none are left
            hits = self.inner.search_lines(
                words, limit=asked, known_at=known_at, use_index=use_index, common=common
            )
            kept = [h for h in hits if h.line.session not in hidden]
            if len(kept) >= limit or len(hits) < asked or not hidden:
                return kept[:limit]
            asked *= 4

    def get_lines(self, ids: Iterable[str]) -> dict[str, LineRow]:
        """The lines of ``ids`` in sessions the scope in force sees."""
        rows = self.inner.get_lines(ids)
        hidden = self._hidden()
        return (
            rows if hidden is None else {k: r for k, r in rows.items() if r.session not in hidden}
        )

    def session_lines(self, session_id: str) -> list[LineRow]:
        """The lines of a session the scope in force sees (none otherwise)."""
        if session_id in (self._hidden() or ()):
            return []
        return self.inner.session_lines(session_id)

    def line_counts(self) -> Mapping[str, int]:
        """``{session id: number of lines}`` of the sessions the scope in force sees."""
        rows = self.inner.line_counts()
        hidden = self._hidden()
        return rows if hidden is None else {k: n for k, n in rows.items() if k not in hidden}
