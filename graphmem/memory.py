"""The ``Memory`` facade: one store, one clock, one ontology; every public call is one transaction.

This module opens a memory (:func:`open`) and holds what the facade owns itself: the setup, the
lifecycle, the clock, the vocabulary (entities and predicates) and the plain reads of fact
versions. The writes are :class:`~graphmem.memory_writes.MemoryWrites`, the reads delegated to
the services :class:`~graphmem.memory_reads.MemoryReads`; :class:`Memory` inherits both.

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
import weakref
from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from graphmem.admission import AdmissionPolicy, RateLimiter, parse_window
from graphmem.display import FactList
from graphmem.errors import InvalidInput, NotFound
from graphmem.kernel import TIMELESS, Kernel, UnitOfWork
from graphmem.memory_reads import MemoryReads
from graphmem.memory_writes import MemoryWrites
from graphmem.models import Entity, Fact, Predicate
from graphmem.normalize import check_text
from graphmem.ontology import Ontology
from graphmem.scoped import ScopedStore, unfiltered
from graphmem.scopes import check_scope, every_scope, scoped_calls
from graphmem.store import open_store
from graphmem.timeutil import Clock, TimeLike, system_clock, to_utc
from graphmem.tracing import instrument
from graphmem.vocabulary import define, define_entity, define_predicate

if TYPE_CHECKING:
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


#: Stores that an open Memory owns, by ``id``: one store serves one memory at a time.
_OWNED: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()


def _check_given_store(store: object, *, path: object, engine: str | None, read_only: bool) -> None:
    """Refuse a ``store=`` that is not a store, or that comes with arguments it decides itself."""
    from graphmem.store.base import Store

    if not isinstance(store, Store):
        raise InvalidInput(
            f"store={store!r} is not a graphmem store; pass one from "
            "graphmem.store.open_store(path, engine=...) or an object implementing "
            "graphmem.store.base.Store"
        )
    if path is not None or engine is not None:
        raise InvalidInput(
            f"store={store!r} came with path={path!r} or engine={engine!r}; a store is already "
            "open on its own file and engine: pass store= alone"
        )
    if read_only and not store.read_only:
        raise InvalidInput(
            f"read_only=True came with the writable store={store!r}; open the store with "
            "open_store(path, read_only=True) instead"
        )
    if _OWNED.get(id(store)) is store:
        raise InvalidInput(
            f"store={store!r} already serves another open Memory; close that memory first or "
            "open a store of its own for this one"
        )


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
    store: Store | None = None,
    scope: str | None = None,
) -> Memory:
    """Open a memory: on disk at ``path``, in memory when ``path`` is ``None``, or on a store.

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
        store: an opened store (:func:`graphmem.store.open_store`, or any object implementing
            :class:`graphmem.store.base.Store`) to run on instead of opening ``path``; give
            neither ``path`` nor ``engine`` with it, and its own ``read_only`` decides. The
            memory owns it from then on: closing the memory closes the store
            (docs/api.md#opening-a-memory-on-a-store).
        scope: the scope this memory is pinned to, a path such as ``"acme/alice/agent-1"``
            (docs/concepts/scopes.md): it reads what was written there and in its ancestors,
            never a sibling's, and writes there. Every read and write also takes ``scope=``,
            which may narrow it, never widen it. ``None``: every scope is read, writes go to
            the root.

    Returns:
        A :class:`Memory`, usable as a context manager.

    Raises:
        InvalidInput: a bad ``scope`` or ``ontology`` (not ``"default"``, ``None`` or a valid
            file), a file that changes the cardinality of a predicate with stored facts, or a
            ``store`` that is not a store or comes with ``path``, ``engine`` or another
            ``read_only``.
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
        store=store,
        scope=scope,
    )


@scoped_calls  # every method with a ``scope`` parameter runs in that scope (graphmem.scopes)
@instrument  # a span per public call when OpenTelemetry is installed (graphmem.tracing)
class Memory(MemoryWrites, MemoryReads):
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
        store: Store | None = None,
        scope: str | None = None,
    ) -> None:
        from graphmem.ontology import choose_ontology
        from graphmem.similarity import default_similarity
        from graphmem.trust import check_trust

        chosen = choose_ontology(ontology)  # before the store: a bad value creates nothing
        pinned = None if scope is None else check_scope(scope)
        checked_trust = check_trust(trust)
        if reader is not None and not callable(getattr(reader, "read", None)):
            raise InvalidInput(
                f"reader={reader!r} has no read() method; pass an object with "
                "read(text, *, at, owner) returning claims (graphmem.text.readers.Reader)"
            )
        if store is not None:
            _check_given_store(store, path=path, engine=engine, read_only=read_only)
            read_only = store.read_only
        else:
            self.path = None if path is None else os.path.expanduser(os.fspath(path))
            if self.path is not None and "://" not in self.path and not read_only:
                parent = os.path.dirname(os.path.abspath(self.path))
                os.makedirs(parent, exist_ok=True)
            store = open_store(self.path, engine=engine, read_only=read_only)
        self.path = store.path  # a server URL without its password
        _OWNED[id(store)] = store
        self.engine = store.engine
        self.closed = False
        try:
            names = Ontology()
            # Every service reaches the store through the scope filter (docs/concepts/scopes.md).
            scoped = ScopedStore(store, names.single_valued, pinned)
            uow = UnitOfWork(scoped.store, clock or system_clock, self.path or ":memory:")
            # the defaults are valid: no validator built for a read (surfaces.md#startup)
            policy = admission if admission is not None else AdmissionPolicy.model_construct()
            self._kernel = Kernel(
                store=scoped.store,
                uow=uow,
                path=self.path,
                ontology=names,
                scope=pinned,
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
            _OWNED.pop(id(store), None)
            store.close()
            self.closed = True
            raise

    # -- what the services share (graphmem.kernel) --------------------------------------------

    @property
    def _store(self) -> Store:
        return self._kernel.store

    @property
    def scope(self) -> str | None:
        """The scope the memory is pinned to (docs/concepts/scopes.md); ``None``: every scope."""
        return self._kernel.scope

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

            _OWNED.pop(id(unfiltered(self._kernel.store)), None)
            self._kernel.store.close()
            self._kernel.store = ClosedStore(self.path)
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
            ScopeError: the memory is pinned to a scope (a merge renames in every scope).
        """
        from graphmem.merge import merge_entities

        every_scope(self._kernel.scope, "merge_entities")
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

    # -- reads --------------------------------------------------------------------------------

    def facts(
        self,
        *,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,  # noqa: A002 - the name of Fact.object
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        limit: int | None = None,
        source_type: str | None = None,
        scope: str | None = None,
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
            # the store takes a 64-bit LIMIT: a bigger int failed as a StoreError
            # (docs/concurrency.md#hostile-input)
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
        self,
        *,
        on: TimeLike,
        subject: str | None = None,
        predicate: str | None = None,
        scope: str | None = None,
    ) -> list[Fact]:
        """Return what we believed on date ``on`` was true then: ``valid_at=on, known_at=on``.

        Raises:
            InvalidInput: a bad date.
        """
        when = to_utc(on, name="on")
        return self.facts(subject=subject, predicate=predicate, valid_at=when, known_at=when)

    def history(
        self,
        subject: str,
        predicate: str | None = None,
        *,
        include_expired: bool = False,
        scope: str | None = None,
    ) -> list[Fact]:
        """Return the timeline of a subject ordered by ``valid_from``.

        Args:
            subject: the subject's name.
            predicate: restrict to one predicate.
            include_expired: also return versions closed in system time (the audit view).
            scope: the scope to read in (docs/concepts/scopes.md); it may narrow the memory's,
                never widen it.

        Returns:
            Current-knowledge versions (or every version), past, present and future.

        Raises:
            InvalidInput: bad names.
        """
        pred = None if predicate is None else self.ontology.resolve(predicate).name
        rows = self._kernel.subject_facts(subject, predicate=pred, current_only=not include_expired)
        rows.sort(key=lambda f: (f.valid_from, f.recorded_at, f.predicate, f.id))
        return FactList(rows)

    def get_fact(self, fact_id: str, *, scope: str | None = None) -> Fact:
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

    def count_versions(self, *, scope: str | None = None) -> int:
        """Return how many fact versions are stored, current and closed."""
        return self._store.count_versions()

    def check(self) -> Any:
        """Verify the store's invariants (``graphmem check``). See :func:`graphmem.check.check`."""
        from graphmem.check import check

        return check(self._kernel)
