"""The ``Memory`` facade: one store, one clock, one ontology; every public call is one transaction.

>>> import graphmem as gm
>>> with gm.open(clock=lambda: gm.to_utc("2026-06-10")) as mem:
...     _ = mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
...     result = mem.add_fact("api", "runs_on", "Go", valid_from="2026-06-01")
...     print(result.decision, [f.object for f in mem.facts(subject="api")])
...     print([f.object for f in mem.facts(subject="api", valid_at="2025-01-01")])
supersede ['Go']
['Laravel']
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from graphmem.admission import AdmissionPolicy, RateLimiter, parse_window
from graphmem.display import FactList, ResultList
from graphmem.errors import InvalidInput, NotFound
from graphmem.kernel import TIMELESS, Kernel, UnitOfWork
from graphmem.models import Entity, Fact, Predicate, Session, TextResult, WriteResult
from graphmem.normalize import check_text
from graphmem.ontology import Ontology
from graphmem.rows import validate
from graphmem.store import open_store
from graphmem.timeutil import Clock, TimeLike, system_clock, to_utc
from graphmem.tracing import instrument
from graphmem.vocabulary import define, define_entity, define_predicate
from graphmem.writes import FIELDS, paused_gc, write_facts

if TYPE_CHECKING:
    from graphmem.audit import Change, Explanation, PurgeSummary
    from graphmem.explain import Readings
    from graphmem.merge import MergeResult
    from graphmem.similarity import Similarity
    from graphmem.store.base import Store
    from graphmem.text.readers import Reader
    from graphmem.trust import Trust

__all__ = ["Memory", "open"]


def _name_list(value: object, what: str) -> tuple[str, ...]:
    """Return a list-of-names argument as a tuple: one string is one name, None is none."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (bytes, Mapping)) or not isinstance(value, Iterable):
        raise InvalidInput(f"{what}={value!r} must be a list of names (or one name)")
    return tuple(value)


def open(  # noqa: A001 - the public name is part of the contract: gm.open()
    path: str | os.PathLike[str] | None = None,
    *,
    clock: Clock | None = None,
    engine: str | None = None,
    read_only: bool = False,
    admission: AdmissionPolicy | None = None,
    similarity: Similarity | None = None,
    ontology: str | os.PathLike[str] | None = "default",
    reader: Reader | None = None,
    trust: Trust | None = None,
) -> Memory:
    """Open a memory: on disk at ``path``, or in memory when ``path`` is ``None``.

    Args:
        path: database file; created when missing. ``None`` keeps everything in memory.
        clock: callable returning the current aware datetime (system time); inject one for
            tests and backfills. Defaults to the UTC wall clock.
        engine: ``"kuzu"`` (pinned 0.11.3) or ``"ladybug"`` (``graphmem[ladybug]``); default
            ``$GRAPHMEM_ENGINE``, else ``"kuzu"``. One process can load only one of the two.
        read_only: open without write access (several processes may read at once).
        admission: admission control (importance bands, statement bounds, hourly rate
            limits per kind); default :class:`~graphmem.admission.AdmissionPolicy()`. Use
            ``AdmissionPolicy.unlimited()`` for backfills, ``AdmissionPolicy.off()`` to admit
            everything valid.
        similarity: how free-text notes are compared; default
            :func:`graphmem.similarity.default_similarity` (WordLlama's bundled model, offline;
            the lexical :func:`~graphmem.similarity.text_similarity` where it is missing). Any
            :class:`~graphmem.similarity.Similarity` plugs in.
        ontology: the predicates a new database starts with: ``"default"`` (the shipped
            general agent-memory relations), ``None`` (none: every predicate is defined by use
            or by ``define_predicate``) or the path of a JSON file in the format of
            ``graphmem/data/ontology.json``. A database that already has predicates keeps
            them: ``"default"`` and ``None`` change nothing, and a file is merged into them
            as ``define_predicate`` calls would (the file wins; changes are recorded).
        reader: what reads text into claims; default graphmem's built-in reader (rule forms
            and a dependency parse). Any object with a ``read(text, *, at, owner)`` method
            returning claims plugs in (:class:`graphmem.text.readers.Reader`, e.g. one that
            asks an LLM); its claims go through the same resolution and time rules.
        trust: who may replace whom: a :class:`~graphmem.trust.Trust` (order of source types,
            confidence floor); default ``user > import > tool > system > agent``, floor 0.5.
            Per open, not stored with the database
            (docs/concepts/decisions.md#authority-and-disputes).

    Returns:
        A :class:`Memory`, usable as a context manager.

    Raises:
        InvalidInput: a bad ``ontology`` (not ``"default"``, ``None`` or a valid file), or a
            file that changes the cardinality of a predicate with stored facts.
        StoreBusy: another process holds the database.
        SchemaVersionError: the database was written by another schema version.
    """
    return Memory(
        path,
        clock=clock,
        engine=engine,
        read_only=read_only,
        admission=admission,
        similarity=similarity,
        ontology=ontology,
        reader=reader,
        trust=trust,
    )


@instrument  # a span per public call when OpenTelemetry is installed (graphmem.tracing)
class Memory:
    """A bi-temporal fact memory. Create it with :func:`graphmem.open`."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        clock: Clock | None = None,
        engine: str | None = None,
        read_only: bool = False,
        admission: AdmissionPolicy | None = None,
        similarity: Similarity | None = None,
        ontology: str | os.PathLike[str] | None = "default",
        reader: Reader | None = None,
        trust: Trust | None = None,
    ) -> None:
        from graphmem.ontology import choose_ontology
        from graphmem.similarity import default_similarity
        from graphmem.trust import check_trust

        chosen = choose_ontology(ontology)  # before the store: a bad value creates nothing
        checked_trust = check_trust(trust)
        if reader is not None and not callable(getattr(reader, "read", None)):
            raise InvalidInput(
                f"reader={reader!r} has no read() method; pass an object with "
                "read(text, *, at, owner) returning claims (graphmem.text.readers.Reader)"
            )
        self.path = None if path is None else os.path.expanduser(os.fspath(path))
        if self.path is not None and "://" not in self.path and not read_only:
            parent = os.path.dirname(os.path.abspath(self.path))
            os.makedirs(parent, exist_ok=True)
        store = open_store(self.path, engine=engine, read_only=read_only)
        self.path = store.path  # a server URL without its password
        self.engine = store.engine
        self.closed = False
        try:
            uow = UnitOfWork(store, clock or system_clock, self.path or ":memory:")
            policy = admission if admission is not None else AdmissionPolicy()
            self._kernel = Kernel(
                store=store,
                uow=uow,
                path=self.path,
                ontology=Ontology(),
                admission=policy,
                rate=RateLimiter(
                    policy, seed=lambda since: parse_window(store.get_meta("rate_window"), since)
                ),
                similarity=similarity or default_similarity(),
                reader=reader,
                trust=checked_trust,
            )
            stored = store.load_predicates()
            seeded = not stored
            if seeded:
                stored = Ontology(chosen.predicates).predicates()
                if stored and not read_only:
                    with uow.write(at=TIMELESS, marker=False) as w:
                        w.changes.predicates.extend(stored)
            for p in stored:
                self._kernel.ontology.add(p)
            self._kernel.aliases = store.load_aliases()
            if chosen.kind == "file" and not seeded:
                for p in chosen.predicates:  # the user's file wins over the stored definitions
                    define(self._kernel, p, force=False, persist=not read_only)
        except BaseException:
            store.close()
            self.closed = True
            raise

    # -- what the services share (graphmem.kernel) --------------------------------------------

    @property
    def _store(self) -> Store:
        return self._kernel.store

    @property
    def ontology(self) -> Ontology:
        """The predicate definitions in force."""
        return self._kernel.ontology

    @property
    def owner(self) -> str:
        """The subject of first-person text ("we", "our", "I") and of notes without a subject."""
        return self._kernel.owner

    @owner.setter
    def owner(self, value: str) -> None:
        self._kernel.owner = check_text(value, what="owner")

    @property
    def admission(self) -> AdmissionPolicy:
        """The admission policy (importance bands, statement bounds, rate limits)."""
        return self._kernel.admission

    @property
    def similarity(self) -> Similarity:
        """How notes are compared (deduplication and supersession of free text)."""
        return self._kernel.similarity

    # -- lifecycle ----------------------------------------------------------------------------

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the store. Further calls raise ``StoreError`` ("memory ... is closed")."""
        if not self.closed:
            from graphmem.store.locks import ClosedStore

            self._kernel.store.close()
            self._kernel.store = ClosedStore(self.path)  # type: ignore[assignment]
            self._kernel.uow.store = self._kernel.store
            self.closed = True

    def __repr__(self) -> str:
        where = self.path or ":memory:"
        return f"<graphmem.Memory {where!r} engine={self.engine!r}>"

    # -- time ---------------------------------------------------------------------------------

    def now(self) -> dt.datetime:
        """Return the clock's current reading as aware UTC.

        Raises:
            InvalidInput: the clock returned something that is not an aware datetime.
        """
        return self._kernel.now()

    # -- names --------------------------------------------------------------------------------

    def define_entity(
        self, name: str, *, kind: str = "entity", aliases: Sequence[str] = ()
    ) -> Entity:
        """Declare an entity with its kind and aliases; aliases resolve to it from then on.

        Raises:
            InvalidInput: blank names, or an alias that already names another entity.
        """
        aliases = _name_list(aliases, "aliases")
        if not check_text(kind, what="kind").strip():
            raise InvalidInput(f"kind={kind!r} is blank; use e.g. 'person', 'org' or 'entity'")
        return define_entity(self._kernel, name, kind=kind, aliases=aliases)

    def merge_entities(self, keep: str, other: str) -> MergeResult:
        """Merge entity ``other`` into ``keep``: re-file its current facts, make it an alias.

        One audited write (docs/concepts/decisions.md#merging-entities); stored versions are
        closed and written again under ``keep``, never edited. See
        :func:`graphmem.merge.merge_entities`.

        Raises:
            NotFound: an unknown name.
            InvalidInput: the same entity twice, or single-valued values from the same instant.
        """
        from graphmem.merge import merge_entities

        return merge_entities(self._kernel, keep, other)

    # -- ontology -----------------------------------------------------------------------------

    def define_predicate(
        self,
        name: str,
        *,
        cardinality: str | None = None,
        aliases: Sequence[str] = (),
        inverse: str | None = None,
        symmetric: bool | None = None,
        description: str | None = None,
        force: bool = False,
    ) -> Predicate:
        """Define (or redefine) a predicate: its cardinality and the aliases that map to it.

        The user's vocabulary wins (docs/concepts/model.md#the-data-model-rules): any valid name
        becomes a predicate of its own, even one that is an alias of a shipped predicate, and each
        alias given moves to it from
        whichever predicate had it. The change is recorded (it shows in :meth:`changes` as
        ``defined`` or ``redefined``); facts already stored keep their predicate. Calling it
        again with a definition already in force changes, writes and records nothing.

        Args:
            name: canonical name, normalised to snake_case (``"Works At"`` → ``works_at``).
            cardinality: ``"one"`` (a new object supersedes the old) or ``"many"``; ``None``
                keeps the current one (``"one"`` for a new predicate).
            aliases: other spellings that map to this predicate before any decision; they add
                to the aliases it has.
            inverse: name of the inverse predicate; ``None`` keeps the current one.
            symmetric: whether ``a p b`` implies ``b p a``; ``None`` keeps the current value.
            description: free text for humans; ``None`` keeps the current one.
            force: change the cardinality of a predicate that has stored fact versions. The
                stored versions are not rewritten; later writes follow the new cardinality.

        Returns:
            The definition in force.

        Raises:
            InvalidInput: bad cardinality, an unusable name or alias, an alias that is another
                predicate's own name, or a cardinality change of a predicate with stored fact
                versions without ``force=True``.
        """
        return define_predicate(
            self._kernel,
            name,
            cardinality=cardinality,
            aliases=_name_list(aliases, "aliases"),
            inverse=inverse,
            symmetric=symmetric,
            description=description,
            force=force,
        )

    def predicates(self) -> list[Predicate]:
        """Return the ontology: every predicate definition, sorted by name."""
        return self.ontology.predicates()

    # -- writes -------------------------------------------------------------------------------

    def add_fact(
        self,
        subject: str,
        predicate: str,
        object: str,  # noqa: A002 - the SPEC's name
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
        self, facts: Iterable[Mapping[str, Any] | Fact], *, learned_at: TimeLike | None = None
    ) -> list[WriteResult]:
        """Assert many facts in one transaction, in order, with a constant number of queries.

        A bulk import: admission control clamps importance and checks statement bounds but
        applies no rate limit.

        Args:
            facts: dictionaries with ``add_fact``'s parameters as keys, or Fact models.
            learned_at: record the batch as learned then, not now (a backfill).

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
        validate(self._kernel, -1, item, self.now())

    def retract(
        self,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,  # noqa: A002 - the SPEC's name
        *,
        fact_id: str | None = None,
        at: TimeLike | None = None,
        reason: str | None = None,
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

    # -- reads --------------------------------------------------------------------------------

    def facts(
        self,
        *,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,  # noqa: A002 - the SPEC's name
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        limit: int | None = None,
        source_type: str | None = None,
    ) -> list[Fact]:
        """Return the fact versions true at ``valid_at`` as believed at ``known_at``.

        Both default to now: ``recorded_at <= known_at < expired_at`` and
        ``valid_from <= valid_at < valid_to`` (docs/concepts/time.md#rule-3). ``source_type``
        keeps only the versions said by that source (``user``, ``agent``, ...).

        Raises:
            InvalidInput: bad names, times, limit or source type.
        """
        if source_type is not None:
            from graphmem.trust import check_filter

            wanted = check_filter(source_type)
            rows = self.facts(
                subject=subject,
                predicate=predicate,
                object=object,
                valid_at=valid_at,
                known_at=known_at,
            )
            kept = [f for f in rows if f.source_type == wanted]
            if limit is not None and not (isinstance(limit, bool) or not isinstance(limit, int)):
                kept = kept[: max(limit, 0)]
            elif limit is not None:
                raise InvalidInput(f"limit={limit!r} must be a non-negative integer or None")
            return FactList(kept)
        now = self.now()
        if limit is not None and (
            # the store takes a 64-bit LIMIT: a bigger int failed as a StoreError (#7 fuzz)
            isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit < 2**63
        ):
            raise InvalidInput(f"limit={limit!r} must be a non-negative integer or None")
        pred = None if predicate is None else self.ontology.resolve(predicate).name
        query: dict[str, Any] = {
            "predicate": pred,
            "object_id": None if object is None else self._kernel.entity_id(object, what="object"),
            "valid_at": self._kernel.time(valid_at, "valid_at", now),
            "known_at": self._kernel.time(known_at, "known_at", now),
            "limit": limit,
        }
        if subject is None:
            return FactList(self._store.query_facts(**query))
        return FactList(self._kernel.subject_facts(subject, **query))

    def believed(
        self, *, on: TimeLike, subject: str | None = None, predicate: str | None = None
    ) -> list[Fact]:
        """Return what we believed on date ``on`` was true then: ``valid_at=on, known_at=on``.

        Raises:
            InvalidInput: a bad date.
        """
        when = to_utc(on, name="on")
        return self.facts(subject=subject, predicate=predicate, valid_at=when, known_at=when)

    def history(
        self, subject: str, predicate: str | None = None, *, include_expired: bool = False
    ) -> list[Fact]:
        """Return the timeline of a subject ordered by ``valid_from``.

        Args:
            subject: the subject's name.
            predicate: restrict to one predicate.
            include_expired: also return versions closed in system time (the audit view).

        Returns:
            Current-knowledge versions (or every version), past, present and future.

        Raises:
            InvalidInput: bad names.
        """
        pred = None if predicate is None else self.ontology.resolve(predicate).name
        rows = self._kernel.subject_facts(subject, predicate=pred, current_only=not include_expired)
        rows.sort(key=lambda f: (f.valid_from, f.recorded_at, f.predicate, f.id))
        return FactList(rows)

    def get_fact(self, fact_id: str) -> Fact:
        """Return one version by id.

        Raises:
            NotFound: no version has that id.
            InvalidInput: ``fact_id`` is not text.
        """
        found = self._store.get_facts([check_text(fact_id, what="fact_id")])
        if not found:
            raise NotFound(
                f"no fact version with id {fact_id!r} in memory {self.path or ':memory:'!r}"
            )
        return found[0]

    def count_versions(self) -> int:
        """Return how many fact versions are stored, current and closed."""
        return self._store.count_versions()

    def check(self) -> Any:
        """Verify the store's invariants (``graphmem check``). See :func:`graphmem.check.check`."""
        from graphmem.check import check

        return check(self._kernel)

    # -- the rest of the surface: thin delegations to the modules that own each topic ---------

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

    def disputes(self, *, subject: str | None = None, include_settled: bool = False) -> list[Fact]:
        """Return the disputed versions, oldest first (never current).

        Writes that contradicted a current version of higher authority or confidence and were
        stored beside it.

        See docs/concepts/decisions.md#authority-and-disputes and
        :func:`graphmem.trust.disputes`.
        """
        from graphmem.trust import disputes

        return FactList(disputes(self._kernel, subject=subject, include_settled=include_settled))

    def resolve_dispute(
        self, fact_id: str, *, accept: bool, reason: str | None = None
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

    def explain(self, subject: str, predicate: str, *, at: TimeLike) -> Readings:
        """Return the three readings of a slot at ``at``: ``.now``, ``.then``, ``.believed``.

        See :func:`graphmem.explain.explain`.
        """
        from graphmem.explain import explain

        return explain(self._kernel, subject, predicate, at=at)

    def why(self, fact_id: str) -> Explanation:
        """Explain a version: its supersession chain and the sessions that asserted it.

        Raises:
            NotFound: no version has that id.

        See :func:`graphmem.audit.why`.
        """
        from graphmem.audit import why

        return why(self._kernel, fact_id)

    def changes(self, *, since: TimeLike, until: TimeLike | None = None) -> list[Change]:
        """List what was learned, superseded, corrected, retracted, merged or purged in a window.

        Raises:
            InvalidInput: bad times.

        See :func:`graphmem.audit.changes`.
        """
        from graphmem.audit import changes

        return ResultList(changes(self._kernel, since=since, until=until))

    def purge(self, subject: str, *, reason: str) -> PurgeSummary:
        """Erase every version about a subject (privacy); leaves an audit record, no content.

        The only hard delete (docs/concepts/time.md#rule-1); one change set. On disk, the database
        file is then rebuilt from its live rows (``vacuum()`` of the store: Kuzu keeps deleted
        strings in its pages, and a purge must remove the content from the files).

        Raises:
            NotFound: no such entity.
            InvalidInput: blank reason.

        See :func:`graphmem.audit.purge`.
        """
        from graphmem.audit import purge

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
    ) -> list[Session]:
        """Record many sessions in one transaction. See :func:`graphmem.sessions.add_sessions`.

        ``learned_at``: record them as learned then, not now (a backfill).
        """
        from graphmem.sessions import add_sessions

        with self._kernel.uow.learned(learned_at):
            return add_sessions(self, items, extract=extract)

    def sessions(self, *, since: TimeLike | None = None, until: TimeLike | None = None) -> Any:
        """Return recorded sessions, oldest first. See :func:`graphmem.sessions.sessions`."""
        from graphmem.sessions import sessions

        return sessions(self._kernel, since=since, until=until)

    def hot_topics(
        self,
        *,
        now: TimeLike | None = None,
        window_days: float = 30,
        limit: int | None = None,
        weighting: str = "plain",
    ) -> Any:
        """Rank topics by hotness as of ``now``. See :func:`graphmem.topics.hot_topics`."""
        from graphmem.topics import hot_topics

        found = hot_topics(
            self._kernel, now=now, window_days=window_days, limit=limit, weighting=weighting
        )
        return ResultList(found)

    def triage(
        self, *, now: TimeLike | None = None, limit: int | None = 5, window_days: float = 30
    ) -> Any:
        """Return the topics most in need of attention. See :func:`graphmem.topics.triage`."""
        from graphmem.topics import triage

        return ResultList(triage(self._kernel, now=now, limit=limit, window_days=window_days))

    def topic_health(
        self, path: str | os.PathLike[str], *, now: TimeLike | None = None, window_days: float = 30
    ) -> Any:
        """Score the topic files of a directory. See :func:`graphmem.topic_files.topic_health`."""
        from graphmem.topic_files import topic_health

        return topic_health(self._kernel, path, now=now, window_days=window_days)

    def topic_triage(
        self,
        path: str | os.PathLike[str],
        *,
        now: TimeLike | None = None,
        window_days: float = 30,
        limit: int | None = 5,
    ) -> Any:
        """Triage the topic files of a directory. See :func:`graphmem.topic_files.topic_triage`."""
        from graphmem.topic_files import topic_triage

        return topic_triage(self._kernel, path, now=now, window_days=window_days, limit=limit)

    def topic_audit(self, path: str | os.PathLike[str], *, now: TimeLike | None = None) -> Any:
        """List the stale lines of a directory. See :func:`graphmem.topic_audit.topic_audit`."""
        from graphmem.topic_audit import topic_audit

        return topic_audit(self._kernel, path, now=now)

    def context(
        self,
        query: str,
        *,
        budget_tokens: int = 800,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
    ) -> Any:
        """Return the facts and session lines relevant to a query, as a block for a prompt.

        A :class:`graphmem.Context`: a ``str`` (the text) with ``.text`` and ``.items`` (the
        facts and lines shown, with ids and scores). See :func:`graphmem.context.context`.
        """
        from graphmem.context import context

        return context(
            self._kernel, query, budget_tokens=budget_tokens, valid_at=valid_at, known_at=known_at
        )

    def search(
        self,
        query: str,
        *,
        limit: int = 20,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        kinds: Sequence[str] = ("fact", "line"),
    ) -> Any:
        """Return scored facts and session lines for a query (kind, id, text, score, date, session).

        See :func:`graphmem.context.search`.
        """
        from graphmem.context import search

        return ResultList(
            search(
                self._kernel, query, limit=limit, valid_at=valid_at, known_at=known_at, kinds=kinds
            )
        )

    def neighborhood(
        self,
        entity: str,
        *,
        hops: int = 1,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
    ) -> Any:
        """Return the snapshot subgraph around an entity as a ``networkx.MultiDiGraph``.

        See :func:`graphmem.graphs.neighborhood`.
        """
        from graphmem.graphs import neighborhood

        return neighborhood(self._kernel, entity, hops=hops, valid_at=valid_at, known_at=known_at)

    def to_networkx(
        self,
        *,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        subject: str | None = None,
        hops: int | None = None,
    ) -> Any:
        """Return a snapshot as a ``networkx.MultiDiGraph`` whose edges are fact versions.

        See :func:`graphmem.graphs.to_networkx`.
        """
        from graphmem.graphs import to_networkx

        return to_networkx(
            self._kernel, valid_at=valid_at, known_at=known_at, subject=subject, hops=hops
        )

    def ingest_text(
        self,
        text: str,
        *,
        at: TimeLike | None = None,
        source: str | None = None,
        learned_at: TimeLike | None = None,
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
    ) -> Any:
        """Write a large or streamed input in chunks; atomic per chunk, not as a whole.

        See :func:`graphmem.bulk.ingest_facts` (returns its ``IngestReport``).
        """
        from graphmem.bulk import DEFAULT_CHUNK, ingest_facts

        size = DEFAULT_CHUNK if chunk is None else chunk
        return ingest_facts(self, facts, chunk=size, results=results, progress=progress)
