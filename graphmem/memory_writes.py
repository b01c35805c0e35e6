"""The writes of the ``Memory`` facade: facts, retractions, corrections, text and sessions.

:class:`MemoryWrites` is a base of :class:`graphmem.memory.Memory`: each method checks its
arguments and hands the write to the module that owns it (:mod:`graphmem.writes`,
:mod:`graphmem.remember`, :mod:`graphmem.sessions`, :mod:`graphmem.extract`,
:mod:`graphmem.audit`, :mod:`graphmem.trust`, :mod:`graphmem.bulk`), which commits it as one
change set (docs/concepts/storage.md#rule-3).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInput
from graphmem.kernel import Kernel
from graphmem.models import Fact, Session, TextResult, WriteResult
from graphmem.rows import validate
from graphmem.scopes import every_scope
from graphmem.timeutil import TimeLike
from graphmem.writes import FIELDS, paused_gc, write_facts

if TYPE_CHECKING:
    from graphmem.audit import PurgeSummary
    from graphmem.similarity import Similarity

__all__ = ["MemoryWrites"]


class MemoryWrites:
    """The write methods of :class:`graphmem.memory.Memory` (one change set each)."""

    _kernel: Kernel

    def add_fact(
        self,
        subject: str,
        predicate: str,
        object: str,  # noqa: A002 - the name of Fact.object
        *,
        valid_from: TimeLike | None = None,
        valid_to: TimeLike | None = None,
        source: str | None = None,
        source_ref: str | None = None,
        statement: str | None = None,
        kind: str = "fact",
        importance: float | None = None,
        confidence: float = 1.0,
        pinned: bool = False,
        source_type: str | None = None,
        learned_at: TimeLike | None = None,
        scope: str | None = None,
    ) -> WriteResult:
        """Assert one fact and apply the write decision in one transaction.

        See docs/concepts/decisions.md#the-decision-rules.

        Args:
            subject: the subject's name (resolved through aliases and normalisation).
            predicate: a predicate name or alias; unknown ones are defined with cardinality
                ``"one"``.
            object: the object's name.
            valid_from: when it became true in the world (default: now).
            valid_to: when it stopped being true (default: open-ended).
            source: session/episode id this fact came from.
            source_ref: a caller identity key; a new fact with the same key replaces the old.
            statement: the original text; a negating one ("no longer ...") invalidates.
            kind: ``fact``, ``event``, ``insight``, ``directive`` or ``identity``.
            importance: 0–10 (default 5), clamped into the kind's band by admission control
                (:mod:`graphmem.admission`).
            confidence: 0–1.
            pinned: never decays in ranking.
            source_type: who says it: ``user`` (+1 importance), ``agent``, ``tool``,
                ``system``, ``import`` or ``None``.
            learned_at: record the write as learned then, not now (a backfill; default
                ``valid_from``'s default too); see docs/concepts/time.md#backfilling-history.
            scope: the scope to write in (docs/concepts/scopes.md); it may narrow the memory's,
                never widen it.

        Returns:
            What the write did: ``WriteResult(decision, fact, superseded)``.

        Raises:
            InvalidInput: a bad value (the message names it and the fix); nothing is written.
            RateLimited: the kind's hourly write limit is reached; nothing is written.
            ClockError: the clock moved backwards.
            BackfillOrderError: ``learned_at`` is before the newest recorded write.
        """
        item = {
            "subject": subject,
            "predicate": predicate,
            "object": object,
            "valid_from": valid_from,
            "valid_to": valid_to,
            "source": source,
            "source_ref": source_ref,
            "statement": statement,
            "kind": kind,
            "importance": importance,
            "confidence": confidence,
            "pinned": pinned,
            "source_type": source_type,
        }
        with self._kernel.uow.learned(learned_at):
            return write_facts(self._kernel, [item])[0]

    def add_facts(
        self,
        facts: Iterable[Mapping[str, Any] | Fact],
        *,
        learned_at: TimeLike | None = None,
        scope: str | None = None,
    ) -> list[WriteResult]:
        """Assert many facts in one transaction, in order, with a constant number of queries.

        A bulk import: admission control clamps importance and checks statement bounds but
        applies no rate limit.

        Args:
            facts: dictionaries with ``add_fact``'s parameters as keys, or Fact models.
            learned_at: record the batch as learned then, not now (a backfill).
            scope: the scope to write in (docs/concepts/scopes.md); it may narrow the memory's,
                never widen it.

        Returns:
            One WriteResult per input, in order.

        Raises:
            InvalidInput: any bad item (the message gives its index); nothing is written.
            BackfillOrderError: ``learned_at`` is before the newest recorded write.
        """
        if isinstance(facts, (str, bytes, Mapping, Fact)) or not isinstance(facts, Iterable):
            raise InvalidInput(
                f"facts={facts!r} is not a collection of facts; pass a list of dicts (one "
                "fact: add_fact, or add_facts([{...}]))"
            )
        items: list[Mapping[str, Any]] = []
        for i, f in enumerate(facts):
            if isinstance(f, Fact):
                items.append(f.model_dump(include=set(FIELDS)))
            elif isinstance(f, Mapping):
                items.append(f)
            else:
                raise InvalidInput(
                    f"facts[{i}]={f!r} is neither a mapping nor a Fact; pass dicts with keys "
                    "subject, predicate, object (and optional valid_from, valid_to, ...)"
                )
        with paused_gc(len(items)), self._kernel.uow.learned(learned_at):
            return write_facts(self._kernel, items, bulk=True)

    def validate_fact(self, item: Mapping[str, Any]) -> None:
        """Check one ``add_facts`` row without writing anything.

        Raises:
            InvalidInput: the row is invalid; the message names the field and the fix.
        """
        validate(self._kernel, -1, item, self._kernel.now())

    def retract(
        self,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,  # noqa: A002 - the name of Fact.object
        *,
        fact_id: str | None = None,
        at: TimeLike | None = None,
        reason: str | None = None,
        scope: str | None = None,
    ) -> WriteResult:
        """End every current version of (subject, predicate[, object]) valid at ``at``.

        The versions are closed in system time and replaced by versions ending at ``at``
        (``valid_to = at``); a version starting at ``at`` is closed without replacement.

        Args:
            subject: the subject's name.
            predicate: the predicate name or alias.
            object: only versions with this object (default: any object).
            fact_id: instead of subject and predicate, end this one current version (an id
                from ``facts``, ``search`` or ``context``).
            at: when it stopped being true (default: now).
            reason: why, recorded on the closed versions.
            scope: the scope to write in (docs/concepts/scopes.md); it may narrow the memory's,
                never widen it.

        Returns:
            ``WriteResult(decision="invalidate", fact=first shortened version, superseded)``.

        Raises:
            NotFound: no current version of that subject and predicate (or id) is valid at
                ``at``.
            InvalidInput: bad names or times, or both ``fact_id`` and a subject.
        """
        from graphmem.writes import retract, retract_version

        if fact_id is not None:
            if subject is not None or predicate is not None or object is not None:
                raise InvalidInput(
                    f"retract(fact_id={fact_id!r}) takes no subject, predicate or object; "
                    "pass either fact_id or subject and predicate"
                )
            return retract_version(self._kernel, fact_id, at=at, reason=reason)
        if subject is None or predicate is None:
            raise InvalidInput(
                "retract needs subject and predicate (and optionally object), or fact_id=..."
            )
        return retract(self._kernel, subject, predicate, object, at=at, reason=reason)

    def correct(
        self,
        fact_id: str,
        new_object: str,
        *,
        reason: str | None = None,
        learned_at: TimeLike | None = None,
        scope: str | None = None,
    ) -> WriteResult:
        """Correct a wrong fact: ``new_object`` replaces version ``fact_id`` from its start.

        The old value was wrong, not outdated (docs/concepts/decisions.md#correcting-the-past):
        the version is closed in system time with the reason ``corrected to ...`` and a version
        with the same subject, predicate and valid interval but ``new_object`` is inserted.
        ``known_at`` queries from before the correction still see the old value.

        Raises:
            NotFound: no current version has that id.
            InvalidInput: the new object is blank or the same as the old one.
            BackfillOrderError: ``learned_at`` is before the newest recorded write.
        """
        from graphmem.writes import correct

        with self._kernel.uow.learned(learned_at):
            return correct(self._kernel, fact_id, new_object, reason=reason)

    def remember(
        self,
        text: str,
        *,
        subject: str | None = None,
        at: TimeLike | None = None,
        kind: str = "insight",
        source: str | None = None,
        source_ref: str | None = None,
        importance: float | None = None,
        source_type: str | None = None,
        similarity: Similarity | None = None,
        learned_at: TimeLike | None = None,
        scope: str | None = None,
    ) -> TextResult:
        """Remember a text: its claims become facts (superseding what they replace), else a note.

        "The API runs on Laravel" becomes ``API runs_on Laravel``; a later "We migrated the API
        to Go" supersedes it. First-person words mean ``subject`` (default: the owner,
        ``"self"``). A text without claims is a note, deduplicated against the subject's notes.

        ``learned_at``: record it as learned then, not now (a backfill).

        Raises:
            InvalidInput: blank or too long text, bad kind, time or importance.
            RateLimited: the kind's hourly write limit is reached.
            BackfillOrderError: ``learned_at`` is before the newest recorded write.

        See :func:`graphmem.remember.remember`.
        """
        from graphmem.remember import remember

        with self._kernel.uow.learned(learned_at):
            return remember(
                self._kernel,
                text,
                subject=subject,
                at=at,
                kind=kind,
                source=source,
                source_ref=source_ref,
                importance=importance,
                source_type=source_type,
                similarity=similarity,
            )

    def resolve_dispute(
        self, fact_id: str, *, accept: bool, reason: str | None = None, scope: str | None = None
    ) -> WriteResult:
        """Settle one dispute in one audited write.

        ``accept=True`` lets the disputed value supersede the current one (from its
        ``valid_from``), ``False`` keeps the current one.

        See :func:`graphmem.trust.resolve_dispute`.

        Raises:
            NotFound: no version has that id.
            graphmem.trust.NotDisputed: the version is not an open dispute.
        """
        from graphmem.trust import resolve_dispute

        return resolve_dispute(self._kernel, fact_id, accept=accept, reason=reason)

    def purge(self, subject: str, *, reason: str) -> PurgeSummary:
        """Erase every version about a subject (privacy); leaves an audit record, no content.

        The only hard delete (docs/concepts/time.md#rule-1); one change set. On disk, the database
        file is then rebuilt from its live rows (``vacuum()`` of the store: Kuzu keeps deleted
        strings in its pages, and a purge must remove the content from the files).

        Raises:
            NotFound: no such entity.
            InvalidInput: blank reason.
            ScopeError: the memory is pinned to a scope (a purge erases from every scope).

        See :func:`graphmem.audit.purge`.
        """
        from graphmem.audit import purge

        every_scope(self._kernel.scope, "purge")
        with self._kernel.lock:
            summary = purge(self._kernel, subject, reason=reason)
            self._kernel.store.vacuum()
            return summary

    def add_session(
        self,
        text: str | None = None,
        *,
        started_at: TimeLike,
        session_id: str | None = None,
        title: str | None = None,
        mentions: Mapping[str, int] | Iterable[str] | None = None,
        source: str | None = None,
        ended_at: TimeLike | None = None,
        summary: str | None = None,
        extract: bool = True,
        learned_at: TimeLike | None = None,
        scope: str | None = None,
    ) -> Any:
        """Record a session (episode), the facts its text states and the topics it mentions.

        The text becomes claims written with the session as ``source`` ("Alice left Acme and
        joined Globex" closes ``Alice works_at Acme``); ``extract=False`` only logs it.
        Returns a :class:`~graphmem.sessions.SessionWrite` (``.session``, ``.results``).
        ``learned_at``: record it as learned then, not now (a backfill of old transcripts:
        ``learned_at=started_at``; docs/concepts/time.md#backfilling-history).

        Raises:
            BackfillOrderError: ``learned_at`` is before the newest recorded write.

        See :func:`graphmem.sessions.add_session`.
        """
        from graphmem.sessions import add_session

        with self._kernel.uow.learned(learned_at):
            return add_session(
                self._kernel,
                text,
                started_at=started_at,
                session_id=session_id,
                title=title,
                mentions=mentions,
                source=source,
                ended_at=ended_at,
                summary=summary,
                extract=extract,
            )

    def add_sessions(
        self,
        items: Iterable[Mapping[str, Any] | Session],
        *,
        extract: bool = True,
        learned_at: TimeLike | None = None,
        scope: str | None = None,
    ) -> list[Session]:
        """Record many sessions in one transaction. See :func:`graphmem.sessions.add_sessions`.

        ``learned_at``: record them as learned then, not now (a backfill).
        """
        from graphmem.sessions import add_sessions

        with self._kernel.uow.learned(learned_at):
            return add_sessions(self, items, extract=extract)

    def ingest_text(
        self,
        text: str,
        *,
        at: TimeLike | None = None,
        source: str | None = None,
        learned_at: TimeLike | None = None,
        scope: str | None = None,
    ) -> Any:
        """Extract facts from text (rule-based spaCy pipeline) and write them.

        ``learned_at``: record them as learned then, not now (a backfill).
        See :func:`graphmem.extract.ingest_text`.
        """
        from graphmem.extract import ingest_text

        with self._kernel.uow.learned(learned_at):
            return ingest_text(self._kernel, text, at=at, source=source)

    def ingest_facts(
        self,
        facts: Iterable[Mapping[str, Any] | Fact],
        *,
        chunk: int | None = None,
        results: bool = False,
        progress: Any = None,
        scope: str | None = None,
    ) -> Any:
        """Write a large or streamed input in chunks; atomic per chunk, not as a whole.

        See :func:`graphmem.bulk.ingest_facts` (returns its ``IngestReport``).
        """
        from graphmem.bulk import DEFAULT_CHUNK, ingest_facts

        size = DEFAULT_CHUNK if chunk is None else chunk
        return ingest_facts(self, facts, chunk=size, results=results, progress=progress)
