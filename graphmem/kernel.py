"""The kernel the services run on: the store, the clock, the names and the unit of work.

:class:`Memory <graphmem.memory.Memory>` is a facade: it validates arguments and delegates
each public call to the service module that owns its topic (writes, queries, sessions,
remember, context, audit, export, check). A service receives this :class:`Kernel`, never the
facade, and touches the store only through the :class:`~graphmem.store.base.Store` protocol.

Every public write goes through :meth:`UnitOfWork.write`: it takes the memory's lock (and the
store's writer lock, :meth:`~graphmem.store.base.FactStore.exclusive`, which orders the writes
of several processes on a server), reads the clock once (the write's system time, refused
when it runs backwards or the store is read-only), hands the service an empty
:class:`~graphmem.store.base.ChangeSet` to fill, and applies it with one ``store.apply``
call, which commits all of it or nothing. The newest-write marker moves only when that call
returns.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, Union

from graphmem.errors import BackfillOrderError, ClockError, InvalidInput, StoreError
from graphmem.models import Entity, Fact
from graphmem.normalize import clean_name, entity_key
from graphmem.store.base import Applied, ChangeSet, Store
from graphmem.timeutil import Clock, TimeLike, to_utc

if TYPE_CHECKING:
    from graphmem.admission import AdmissionPolicy, RateLimiter
    from graphmem.authority import Trust
    from graphmem.ontology import Ontology
    from graphmem.similarity import Similarity
    from graphmem.text.readers import Reader

#: The time of writes that record no system time (predicate seeds, entity declarations).
TIMELESS = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
#: How far behind another process's newest write this process's clock may read and still be
#: ordered after it (one microsecond later); further behind is a clock gone back.
MAX_SKEW = dt.timedelta(seconds=5)

__all__ = [
    "MAX_SKEW",
    "TIMELESS",
    "HasKernel",
    "Kernel",
    "MemoryLike",
    "UnitOfWork",
    "Write",
    "kernel_of",
]


@dataclass
class Write:
    """One write in progress: the change set a service fills, and what the store reported."""

    changes: ChangeSet
    applied: Applied | None = None

    @property
    def at(self) -> dt.datetime:
        """The write's system time."""
        return self.changes.at


class UnitOfWork:
    """Owns the lock, the clock, the tick and the newest-write marker of one memory."""

    def __init__(self, store: Store, clock: Clock, where: str) -> None:
        self.store = store
        self.clock = clock
        self.where = where
        self.lock = threading.RLock()
        self.last_write: dt.datetime | None = store.max_system_time()
        #: The time of this process's last write when it was ordered after its clock (another
        #: process wrote later than this clock read): "now" is at least that until the clock
        #: passes it, so a process reads its own writes.
        self.ahead: dt.datetime | None = None
        #: Inside :meth:`learned`: the system time the writes are recorded at (a backfill).
        self.learned_at: dt.datetime | None = None

    @contextmanager
    def learned(self, at: TimeLike | None) -> Iterator[None]:
        """Record the writes of the block as learned at ``at`` instead of the clock's now.

        A backfill (docs/concepts/time.md#backfilling-history): an old transcript is recorded
        as learned on its own date, so ``believed(on=D)`` answers what it had said by ``D``.
        Inside the block "now" (default ``valid_from``, time words) is ``at``. ``None``: the
        clock, as usual. The memory's lock is held for the whole block.

        Raises:
            InvalidInput: ``at`` is not a time, or is later than the clock's now.
        """
        if at is None:
            yield
            return
        when = to_utc(at, name="learned_at", clock=self.clock)
        with self.lock:
            clock_now = self._clock_now()
            if when > clock_now:
                raise InvalidInput(
                    f"learned_at={when.isoformat()} is later than now ({clock_now.isoformat()});"
                    " a backfill records what was learned in the past: pass a date up to today"
                )
            previous, self.learned_at = self.learned_at, when
            try:
                yield
            finally:
                self.learned_at = previous

    def backdate(self, seen: dt.datetime | None) -> dt.datetime:
        """Return the system time of a write inside :meth:`learned` (its ``learned_at``).

        A ``learned_at`` equal to the newest recorded write is ordered one microsecond after
        it (two sessions of the same day); an earlier one is refused.

        Raises:
            BackfillOrderError: ``learned_at`` is before the newest recorded write.
        """
        self.writable()
        when = self.learned_at
        assert when is not None
        newest = max((t for t in (self.last_write, seen) if t is not None), default=None)
        if newest is not None and when <= newest:
            if when < newest:
                raise BackfillOrderError(
                    f"learned_at={when.isoformat()} is before the newest write already recorded"
                    f" ({newest.isoformat()}); system time never moves backwards, so a "
                    "backfill must run in date order: ingest the oldest input first, into a "
                    "fresh memory (nothing was written)"
                )
            when = newest + dt.timedelta(microseconds=1)
        return when

    def _clock_now(self) -> dt.datetime:
        value = self.clock()
        if not isinstance(value, dt.datetime):
            raise InvalidInput(f"clock() returned {value!r}; it must return an aware datetime")
        return to_utc(value, name="clock()")

    def now(self) -> dt.datetime:
        """The clock's reading as aware UTC (at least this process's own ordered write).

        Inside :meth:`learned`, its ``learned_at``.

        Raises:
            InvalidInput: the clock returned something that is not an aware datetime.
        """
        if self.learned_at is not None:
            return self.learned_at
        now = self._clock_now()
        ahead = self.ahead
        if ahead is not None:
            if now < ahead:
                return ahead
            self.ahead = None
        return now

    def tick(self, seen: dt.datetime | None = None) -> dt.datetime:
        """Return the system time of a write; refuse a read-only store or a clock gone back.

        ``seen`` is the newest-write marker the store read under its writer lock (a store
        shared by several processes: :meth:`Store.exclusive`). When another process wrote
        after this one's last write, this write is ordered after it: its time is the clock's,
        or one microsecond after that write when the clock has not passed it yet (clocks of
        processes differ by the moment they are read; one write order gives one time order,
        docs/concurrency.md#many-writers-on-a-server). A clock more than
        :data:`MAX_SKEW` behind it is refused as a clock gone back. Inside :meth:`learned`,
        the time is its ``learned_at`` (:meth:`backdate`).
        """
        if self.learned_at is not None:
            return self.backdate(seen)
        self.writable()
        now = self.now()
        if seen is not None and (self.last_write is None or seen > self.last_write):
            self.last_write = seen
            if now <= seen and seen - now <= MAX_SKEW:
                self.ahead = seen + dt.timedelta(microseconds=1)
                return self.ahead
        if self.last_write is not None and now < self.last_write:
            raise ClockError(
                f"clock reads {now.isoformat()}, earlier than the newest recorded write "
                f"{self.last_write.isoformat()}; system time never moves backwards — fix the "
                "clock passed to graphmem.open(clock=...)"
            )
        return now

    def writable(self) -> None:
        """Raise ``StoreError`` when the store is open read-only."""
        if self.store.read_only:
            raise StoreError(
                f"memory {self.where!r} is open read-only; reopen it without read_only=True "
                "(CLI: without --read-only) to write"
            )

    @contextmanager
    def write(self, *, at: dt.datetime | None = None, marker: bool = True) -> Iterator[Write]:
        """Run one write: yield its :class:`Write`, then apply the change set atomically.

        Args:
            at: the system time to write at (an import restores its own history); default:
                :meth:`tick`.
            marker: whether the write moves the newest-write marker (access counters do not).

        Nothing reaches the store when the block raises.
        """
        with self.lock:
            self.writable()
            # Held from the write's first read to its commit: the plan stays true
            # (docs/concurrency.md#many-writers-on-a-server).
            with self.store.exclusive() as seen:
                if at is None:
                    at = self.tick(seen)
                w = Write(ChangeSet(at=at, marker=marker))
                yield w
                w.applied = self.store.apply(w.changes)
            if marker and (self.last_write is None or at > self.last_write):
                self.last_write = at


def _default_trust() -> Trust:
    from graphmem.authority import Trust

    return Trust()


@dataclass
class Kernel:
    """What a service needs of a memory (see the module docstring)."""

    store: Store
    uow: UnitOfWork
    path: str | None
    ontology: Ontology
    admission: AdmissionPolicy
    rate: RateLimiter
    similarity: Similarity
    owner: str = "self"
    #: A caller's reader of text (docs/concepts/text.md#readers); ``None``: the built-in one.
    reader: Reader | None = None
    aliases: dict[str, str] = field(default_factory=dict)
    #: Who may replace whom (docs/concepts/decisions.md#authority-and-disputes).
    trust: Trust = field(default_factory=lambda: _default_trust())
    #: The scope the memory is pinned to (docs/concepts/scopes.md); ``None``: every scope.
    scope: str | None = None

    @property
    def where(self) -> str:
        """The memory's path for messages (``:memory:`` in memory)."""
        return self.path or ":memory:"

    @property
    def lock(self) -> threading.RLock:
        """The memory's lock: reads of several queries hold it so no write lands in between."""
        return self.uow.lock

    def now(self) -> dt.datetime:
        """The clock's reading (aware UTC)."""
        return self.uow.now()

    def time(self, value: TimeLike | None, name: str, default: dt.datetime) -> dt.datetime:
        """``value`` as aware UTC, or ``default`` when it is ``None``."""
        return default if value is None else to_utc(value, name=name)

    def entity_id(self, name: str, *, what: str = "name") -> str:
        """The entity id a name resolves to (its key, or the entity it is an alias of)."""
        key = entity_key(clean_name(name, what=what))
        return self.aliases.get(key, key)

    def subject_ids(self, name: str, *, what: str = "subject") -> list[str]:
        """The entity a name resolves to, then the entities merged into it.

        A merged entity keeps the versions closed by its merge under its own id, and its id
        became an alias (docs/concepts/decisions.md#merging-entities): reads by subject ask
        both, so the history and the past beliefs of either name stay in view.
        """
        eid = self.entity_id(name, what=what)
        if not self.aliases:
            return [eid]
        return [eid, *sorted(a for a, owner in self.aliases.items() if owner == eid)]

    def subject_facts(self, name: str, **query: Any) -> list[Fact]:
        """``store.query_facts`` for a subject and the entities merged into it (store order)."""
        ids = self.subject_ids(name)
        if len(ids) == 1:
            return self.store.query_facts(subject_id=ids[0], **query)
        rows = [f for sid in ids for f in self.store.query_facts(subject_id=sid, **query)]
        rows.sort(key=lambda f: (f.subject, f.predicate, f.valid_from, f.recorded_at, f.id))
        limit = query.get("limit")
        return rows if limit is None else rows[:limit]

    def resolve_entities(
        self, names: Iterable[tuple[str, str]]
    ) -> tuple[dict[str, Entity], dict[str, Entity]]:
        """Map ``(name, kind)`` pairs to entities; return (by input name, new ones by id)."""
        wanted: dict[str, tuple[str, str]] = {}
        for name, kind in names:
            if name not in wanted:
                wanted[name] = (self.entity_id(name), kind)
        existing = self.store.entity_names(sorted({eid for eid, _ in wanted.values()}))
        by_name: dict[str, Entity] = {}
        new: dict[str, Entity] = {}
        for name, (eid, kind) in wanted.items():
            if eid in existing:
                by_name[name] = Entity(id=eid, name=existing[eid], kind=kind)
            else:
                ent = new.get(eid) or Entity(id=eid, name=clean_name(name), kind=kind)
                new[eid] = ent
                by_name[name] = ent
        return by_name, new

    def reload(self) -> None:
        """Re-read what the kernel caches from the store (after an import)."""
        from graphmem.ontology import Ontology

        self.ontology = Ontology(self.store.load_predicates())
        self.aliases = self.store.load_aliases()
        self.uow.last_write = self.store.max_system_time()


class HasKernel(Protocol):
    """A facade over a kernel (:class:`graphmem.memory.Memory`)."""

    @property
    def _kernel(self) -> Kernel: ...


#: What the public functions of the service modules accept: a ``Memory`` (or its kernel).
MemoryLike = Union[Kernel, HasKernel]  # noqa: UP007 - a runtime alias on Python 3.10


def kernel_of(target: MemoryLike) -> Kernel:
    """The kernel of a memory (the argument itself when it is one)."""
    if isinstance(target, Kernel):
        return target
    return target._kernel  # noqa: SLF001 - the facade hands its kernel to the services
