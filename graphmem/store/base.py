"""The store interface: what a backend implements for graphmem to run on it.

A backend is one class implementing :class:`Store`, the union of five topic protocols
(:class:`FactStore`, :class:`SessionStore`, :class:`SearchStore`, :class:`TransferStore`,
:class:`IntegrityStore`), and describing itself with :class:`Capabilities`. Services above the
store see only these methods and the backend-neutral records below: times are aware UTC
``datetime`` values, ids are graphmem's strings, and no engine value (node offsets, internal
ids, naive timestamps) crosses this boundary.

Every write reaches a store as one :class:`ChangeSet` through :meth:`FactStore.apply`, which
commits it atomically: all of it or nothing. How is the backend's business (a Kuzu
transaction, one Cypher query on a server without multi-statement transactions). The contract
suite (``tests/contract``) is what "implements the protocol" means: a new backend passes it.
See ARCHITECTURE.md and docs/concepts/.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from graphmem.models import Entity, Fact, Predicate, Session
from graphmem.store.lineindex import LineIndex
from graphmem.store.records import (
    Edge,
    FactActivity,
    FactView,
    LineHit,
    LineRow,
    MentionCounts,
    MentionGroup,
    SessionClaim,
)

__all__ = [
    "Applied",
    "Capabilities",
    "ChangeSet",
    "Edge",
    "FactActivity",
    "FactStore",
    "FactView",
    "IntegrityStore",
    "LineHit",
    "LineIndex",
    "LineRow",
    "MentionCounts",
    "MentionGroup",
    "Purge",
    "SearchStore",
    "SessionClaim",
    "SessionStore",
    "Snapshot",
    "Store",
    "TransferStore",
]


@dataclass(frozen=True)
class Capabilities:
    """What a backend can do; services and tests branch on these, never on engine names.

    Attributes:
        transactions: multi-statement transactions (otherwise each change set is one query).
        bulk_copy: a bulk load path (``COPY``) that large change sets may take.
        full_text: a native full-text index (otherwise an in-memory BM25 over stored lines).
        vacuum: a purge can rebuild the database file so erased bytes leave the disk.
        embedded: a local database file (process locks, lending, the damaged-file guard).
        files: the local files of the database (the file, its log, ...), which a file export
            must never replace.
    """

    transactions: bool
    bulk_copy: bool
    full_text: bool
    vacuum: bool
    embedded: bool
    files: tuple[str, ...] = ()


@dataclass
class Purge:
    """The hard delete of one entity (the only one): its versions, mentions and name in texts.

    The store removes the entity, every version touching it and its mentions, redacts
    ``names`` in session texts (and re-splits those sessions' lines), and writes the audit
    record ``audit_id`` whose JSON detail is ``detail`` plus the counts it removed.
    ``merged`` are the entities merged into it (docs/concepts/decisions.md#merging-entities):
    each is removed the same way first, one after the other, as if purged alone (one already
    deleted as an orphan is skipped); the counts add up.
    """

    entity_id: str
    names: Sequence[str]
    audit_id: str
    detail: Mapping[str, Any]
    merged: Sequence[str] = ()


@dataclass
class Snapshot:
    """The rows of an import (a whole memory; the target store holds no facts)."""

    meta: Mapping[str, str]
    predicates: Sequence[Predicate]
    entities: Sequence[Mapping[str, Any]]
    facts: Sequence[Edge]
    sessions: Sequence[Mapping[str, Any]]
    audit: Sequence[Mapping[str, Any]]


@dataclass
class ChangeSet:
    """Everything one public write changes, planned before the store is touched.

    Applied in this order: predicates, entity upserts, alias lists, access bumps, closes,
    inserts (their new endpoints from ``new_entities``), sessions with their mentions and
    lines, audit records, metadata, then the ``last_write`` marker (``at``) when ``marker`` is
    set.

    Attributes:
        at: the write's system time.
        predicates: predicate definitions to create or replace.
        entities: entities to create, or whose kind and aliases to update.
        new_entities: endpoints of ``inserts`` known to be new (created with the versions).
        aliases: ``{entity id: alias keys}`` replacing the stored aliases of existing entities
            (an empty tuple clears them; an upsert's empty aliases leave them alone). A merge
            moves aliases with it (docs/concepts/decisions.md#merging-entities).
        bumps: ``(subject id, fact id, new access_count)``; ``last_accessed_at = at``.
        access: ``{(direction, entity id): fact ids}`` whose access_count goes up by one
            (``direction`` is ``"out"`` from a subject or ``"in"`` to an object).
        closes: ``(subject id, fact id, superseded_by, reason)``; ``expired_at = at``.
        inserts: new versions as ``(subject id, object id, fact)``.
        settles: ``(subject id, fact id, reason)``: the new reason of a disputed version (one
            closed at birth, ``expired_at = recorded_at``), set when the dispute is settled
            (docs/concepts/decisions.md#authority-and-disputes). Applied after the inserts.
        sessions: ``(session, {entity id: mention count})`` to create or replace.
        audit: ``(audit id, action, JSON detail)`` records at ``at``.
        meta: metadata keys to set.
        purge: the hard delete of one entity.
        snapshot: an import's rows.
        marker: advance the store's newest-write marker to ``at`` (it never moves back).
    """

    at: dt.datetime
    predicates: list[Predicate] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    new_entities: dict[str, Entity] = field(default_factory=dict)
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    bumps: list[tuple[str, str, int]] = field(default_factory=list)
    access: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    closes: list[tuple[str, str, str | None, str]] = field(default_factory=list)
    inserts: list[tuple[str, str, Fact]] = field(default_factory=list)
    settles: list[tuple[str, str, str]] = field(default_factory=list)
    sessions: list[tuple[Session, Mapping[str, int]]] = field(default_factory=list)
    audit: list[tuple[str, str, str]] = field(default_factory=list)
    meta: dict[str, str] = field(default_factory=dict)
    purge: Purge | None = None
    snapshot: Snapshot | None = None
    marker: bool = True

    def is_empty(self) -> bool:
        """Whether applying it would change nothing but the marker."""
        return not (
            self.predicates
            or self.entities
            or self.aliases
            or self.bumps
            or self.access
            or self.closes
            or self.inserts
            or self.settles
            or self.sessions
            or self.audit
            or self.meta
            or self.purge
            or self.snapshot
        )


@dataclass(frozen=True)
class Applied:
    """What :meth:`FactStore.apply` reports back: the purge's counts (empty otherwise)."""

    purged: Mapping[str, int] = field(default_factory=dict)


@runtime_checkable
class FactStore(Protocol):
    """Metadata, the ontology, entities, fact versions and the one write method."""

    @property
    def engine(self) -> str:
        """The engine's name (``kuzu``, ``ladybug``, ``falkordb``)."""
        ...

    @property
    def path(self) -> str | None:
        """Where the data lives (a file, a server's URL), or ``None`` in memory."""
        ...

    @property
    def read_only(self) -> bool:
        """Whether the store was opened read-only."""
        ...

    @property
    def capabilities(self) -> Capabilities:
        """What this backend can do."""
        ...

    def close(self) -> None:
        """Release the connection or database; later calls fail with StoreError."""
        ...

    def apply(self, changes: ChangeSet) -> Applied:
        """Commit ``changes`` atomically (all or nothing)."""
        ...

    def exclusive(self) -> AbstractContextManager[dt.datetime | None]:
        """Hold the store's write order from a write's first read to its ``apply``.

        A store that several processes write (a server) takes a writer lock, fences the
        applies made under it, and yields the newest-write marker read under the lock; a store
        only this process writes (an embedded file: its own lock) yields ``None``.
        Re-entrant. See docs/concurrency.md#many-writers-on-a-server.
        """
        ...

    def get_meta(self, key: str) -> str | None:
        """A metadata value, or ``None``."""
        ...

    def max_system_time(self) -> dt.datetime | None:
        """The newest write marker (aware UTC), or ``None`` for a store never written."""
        ...

    def load_predicates(self) -> list[Predicate]:
        """Every stored predicate definition, by name."""
        ...

    def load_aliases(self) -> dict[str, str]:
        """``{alias key: entity id}`` for every entity with aliases."""
        ...

    def entity_names(self, ids: Sequence[str]) -> dict[str, str]:
        """``{id: display name}`` for those ids that exist."""
        ...

    def get_entity(self, eid: str) -> Entity | None:
        """One entity by id, or ``None``."""
        ...

    def current_versions(
        self,
        subject_ids: Sequence[str],
        *,
        pairs: Collection[tuple[str, str]] | None = None,
    ) -> dict[str, list[Fact]]:
        """The versions not closed in system time, per subject id (every id is a key).

        With ``pairs`` (``(subject id, predicate)``), only the versions of those pairs.
        """
        ...

    def query_facts(
        self,
        *,
        subject_id: str | None = None,
        predicate: str | None = None,
        object_id: str | None = None,
        valid_at: dt.datetime | None = None,
        known_at: dt.datetime | None = None,
        current_only: bool = False,
        limit: int | None = None,
    ) -> list[Fact]:
        """Versions matching the filters (closed-open intervals on both axes).

        Ordered by subject name, predicate, valid_from, recorded_at, id.
        """
        ...

    def get_facts(self, fids: Sequence[str]) -> list[Fact]:
        """Versions by id (any order; missing ids are left out)."""
        ...

    def changed_between(self, since: dt.datetime, until: dt.datetime | None) -> list[Fact]:
        """Versions recorded or closed in system time within ``[since, until)``."""
        ...

    def count_versions(self) -> int:
        """How many fact versions are stored (current and closed)."""
        ...

    def count_predicate_versions(self, predicate: str) -> int:
        """How many stored versions use a predicate."""
        ...


@runtime_checkable
class SessionStore(Protocol):
    """Sessions, their mentions and the topic aggregates behind hotness and triage."""

    def existing_session_ids(self, ids: Sequence[str]) -> set[str]:
        """Those of ``ids`` that name stored sessions."""
        ...

    def session_scopes(self) -> dict[str, str]:
        """``{session id: scope}`` of the sessions outside the root (docs/concepts/scopes.md)."""
        ...

    def read_sessions(
        self,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        ids: Sequence[str] | None = None,
    ) -> list[Session]:
        """Sessions started in ``[since, until]`` (or those of ``ids``), by start time."""
        ...

    def get_sessions(self, ids: Sequence[str]) -> list[Session]:
        """The sessions of ``ids`` that exist, in the order of ``ids``."""
        ...

    def count_sessions(self, *, until: dt.datetime | None = None) -> int:
        """How many sessions started at or before ``until`` (all by default)."""
        ...

    def count_mentioning_sessions(self, *, now: dt.datetime) -> int:
        """How many sessions started by ``now`` mention at least one entity."""
        ...

    def mention_counts(
        self, *, now: dt.datetime, start: dt.datetime, min_hits: int = 0
    ) -> list[MentionCounts]:
        """Per mentioned entity: sessions in ``(start, now]`` (hits) and up to ``now``."""
        ...

    def mention_groups(self, *, now: dt.datetime, start: dt.datetime) -> list[MentionGroup]:
        """The (hits, df) pairs of the topics mentioned in the window, with their sizes."""
        ...

    def fact_activity(
        self,
        *,
        now: dt.datetime,
        with_texts: bool = False,
        keep: Collection[str] | None = None,
    ) -> list[FactActivity]:
        """Per entity: its versions believed at ``now`` (newest activity, current count)."""
        ...

    def newest_activity(
        self, *, now: dt.datetime, entity_ids: Collection[str]
    ) -> dict[str, dt.datetime]:
        """The newest fact activity as of ``now`` of the given entities."""
        ...

    def session_fact_ids(self, session_id: str) -> list[str]:
        """Ids of the versions whose ``source`` is the session."""
        ...

    def session_start_times(self, ids: Sequence[str]) -> dict[str, dt.datetime]:
        """``{session id: started_at}`` for those of ``ids`` that exist."""
        ...

    def audit_records(
        self, *, since: dt.datetime, until: dt.datetime | None = None
    ) -> list[tuple[str, dt.datetime, str, str]]:
        """``(id, at, action, detail)`` of the audit records in ``[since, until)``."""
        ...


@runtime_checkable
class SearchStore(Protocol):
    """Retrieval: entity names, fact views around entities, session lines (episodic recall)."""

    def entity_index_exists(self) -> bool:
        """Whether the full-text index over entity names exists."""
        ...

    def ensure_entity_index(self) -> bool:
        """Create the entity-name index where possible; return whether it exists."""
        ...

    def drop_entity_index(self) -> bool:
        """Drop the entity-name index; return whether one was dropped."""
        ...

    def search_entities(
        self, keywords: Sequence[str], *, limit: int = 20, use_index: bool = True
    ) -> list[tuple[str, str, float]]:
        """``(id, name, score)`` of entities whose names match the keywords, best first."""
        ...

    def find_entities(self, ids: Iterable[str]) -> dict[str, str]:
        """``{id: name}`` for those of ``ids`` that exist."""
        ...

    def has_facts(self) -> bool:
        """Whether any fact version is stored."""
        ...

    def has_lines(self) -> bool:
        """Whether any session line is stored."""
        ...

    def facts_from(
        self, ids: Sequence[str], *, known_at: dt.datetime, limit: int = 2000
    ) -> list[FactView]:
        """Versions believed at ``known_at`` with these subjects (newest first per id)."""
        ...

    def facts_to(
        self,
        ids: Sequence[str],
        *,
        known_at: dt.datetime,
        valid_at: dt.datetime,
        limit: int = 50,
    ) -> list[FactView]:
        """Versions believed at ``known_at`` and valid at ``valid_at`` into these objects."""
        ...

    def facts_of_sessions(
        self, session_ids: Sequence[str], *, known_at: dt.datetime, expired: bool = False
    ) -> list[SessionClaim]:
        """The versions written from these sessions (with their sentences), as believed.

        Believed at ``known_at``; ``expired``: recorded by then and no longer believed then.
        """
        ...

    def versions_of(
        self, pairs: Iterable[tuple[str, str]], *, known_at: dt.datetime
    ) -> list[FactView]:
        """Every version believed at ``known_at`` of these (subject id, predicate) pairs."""
        ...

    def line_index_exists(self) -> bool:
        """Whether the full-text index over session lines exists."""
        ...

    def ensure_line_index(self) -> bool:
        """Create the session-line index where possible; return whether it exists."""
        ...

    def drop_line_index(self) -> bool:
        """Drop the session-line index; return whether one was dropped."""
        ...

    def get_lines(self, ids: Iterable[str]) -> dict[str, LineRow]:
        """Session lines by id."""
        ...

    def search_lines(
        self,
        words: Sequence[str],
        *,
        limit: int = 50,
        known_at: dt.datetime | None = None,
        use_index: bool | None = None,
        common: float | None = None,
    ) -> list[LineHit]:
        """The best ``limit`` lines for the query words (BM25), best first, ties by id.

        ``common``: leave out words found in more than this share of the lines (then the
        in-memory index answers: :meth:`graphmem.store.lineindex.LineIndex.search`).
        """
        ...

    def warm_index(self) -> LineIndex | None:
        """Build the in-memory line index ahead of the first search (``None``: none used)."""
        ...

    def neighbours(
        self, row: LineRow, *, index: LineIndex | None = None
    ) -> tuple[LineRow | None, LineRow | None]:
        """The lines before and after ``row`` in its session."""
        ...

    def session_lines(self, session_id: str) -> list[LineRow]:
        """The lines of one session, in order."""
        ...

    def line_counts(self) -> Mapping[str, int]:
        """``{session id: number of lines}``."""
        ...


@runtime_checkable
class TransferStore(Protocol):
    """Whole-memory reads for export and graph views."""

    def snapshot_edges(
        self, *, valid_at: dt.datetime, known_at: dt.datetime, subject_id: str | None = None
    ) -> list[Edge]:
        """Every version valid at ``valid_at`` as believed at ``known_at`` (a graph view)."""
        ...

    def ball(
        self, entity_id: str, hops: int, *, valid_at: dt.datetime, known_at: dt.datetime
    ) -> tuple[list[dict[str, Any]], list[Edge]] | None:
        """The entities and edges within ``hops`` of an entity at a point; ``None``: no entity."""
        ...

    def entity_rows(self, ids: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Entity rows (``id``, ``name``, ``kind``, ``aliases``) of ``ids`` (all: ``None``)."""
        ...

    def content_counts(self) -> dict[str, int]:
        """How many facts, sessions and audit records are stored (import refuses > 0)."""
        ...

    def all_meta(self) -> dict[str, str]:
        """Every metadata key and value."""
        ...

    def all_entities(self) -> list[dict[str, Any]]:
        """Every entity row."""
        ...

    def all_facts(self) -> list[Edge]:
        """Every version as ``(subject id, object id, fact)``."""
        ...

    def all_sessions(self) -> list[dict[str, Any]]:
        """Every session row with its mentions."""
        ...

    def all_audit(self) -> list[dict[str, Any]]:
        """Every audit record row."""
        ...


@runtime_checkable
class IntegrityStore(Protocol):
    """Raw rows for ``graphmem check`` (times as stored: aware UTC) and housekeeping."""

    def table_names(self) -> set[str]:
        """The tables (labels) the store holds."""
        ...

    def fact_states(self) -> list[tuple[Any, ...]]:
        """Every version's state as comparable tuples (whole-store comparisons in tests)."""
        ...

    def raw_meta(self) -> dict[str, Any]:
        """Every metadata key and value, as stored."""
        ...

    def raw_facts(self) -> list[dict[str, Any]]:
        """Every version with its endpoints, as stored (times aware UTC, values unvalidated)."""
        ...

    def raw_entities(self) -> list[dict[str, Any]]:
        """Every entity row, as stored."""
        ...

    def raw_sessions(self) -> list[dict[str, Any]]:
        """Every session row, as stored."""
        ...

    def raw_mentions(self) -> list[dict[str, Any]]:
        """Every mention edge, as stored."""
        ...

    def raw_predicates(self) -> list[dict[str, Any]]:
        """Every predicate row, as stored."""
        ...

    def loose_mentions(self) -> int:
        """How many mention edges miss an endpoint."""
        ...

    def orphan_entities(self) -> list[str]:
        """Ids of entities nothing refers to (no version, mention or alias)."""
        ...

    def unfindable_entities(self) -> list[str]:
        """Ids of entities a lookup by id does not find (or finds twice): a broken index.

        A version written to such an entity can have been lost (docs/falkordb.md#what-is-atomic).
        """
        ...

    def counts(self) -> dict[str, int]:
        """Rows per table."""
        ...

    def checkpoint(self) -> None:
        """Flush the engine's log to its files (a no-op where there is none)."""
        ...

    def vacuum(self) -> None:
        """Rebuild files so purged bytes leave the disk (no-op unless ``capabilities.vacuum``)."""
        ...


@runtime_checkable
class Store(FactStore, SessionStore, SearchStore, TransferStore, IntegrityStore, Protocol):
    """A complete graphmem backend."""
