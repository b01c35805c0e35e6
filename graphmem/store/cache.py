"""The version cache: every version of recently read subjects, held in this process.

An embedded store (Kuzu, ladybug) is written by one process at a time: the one that holds it
open. Other processes are refused, or borrow the file while its holder has closed it
(:class:`~graphmem.store.locks.Lender`), and a borrowed file comes back to a *new* store object
whose cache starts empty. So a cache kept in the store object sees every write that can happen
while it lives, and is coherent by construction
(docs/concepts/storage.md#version-cache):

- every change set goes through :meth:`CachedVersions.apply`: what it changes in cached
  subjects is changed in the cache after the commit (inserts, closes, settles, access
  counters); a purge, an import, or any failure drops the whole cache;
- any other data write of the store (a migration, a repair on open, a test calling a store
  method directly) reaches the backend's write hook (:meth:`CachedVersions._on_write` gives
  it: :meth:`VersionCache.wrote`), which drops the whole cache; so do closing, detaching
  (vacuum swaps the file) and reopening;
- nothing is cached from inside a transaction, and a read that overlaps a write (another
  thread) is not cached: each change bumps a generation that a fill must find unchanged;
- a read-only store caches nothing: ladybug lets readers join a writer of another process.

A miss costs what the uncached read costs (one point query for all the subject's versions);
a hit filters a few Python objects. A server store (FalkorDB, many writers) mixes none of this
in. The class this is mixed into provides ``_subject_versions`` (every version of some
subjects) and calls the hook ``_on_write`` returns before each statement that changes data.
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInput
from graphmem.models import Fact
from graphmem.store.base import Applied, ChangeSet
from graphmem.store.warm import WARM_AFTER, Warmer, WarmSource

__all__ = [
    "FILL_BATCH",
    "MAX_NAMES",
    "MAX_SUBJECTS",
    "MAX_VERSIONS",
    "VERSIONS_ENV",
    "CachedVersions",
    "Loaded",
    "VersionCache",
]

#: Subjects kept (least recently used go first) ...
MAX_SUBJECTS = 50_000
#: ... and versions kept over all of them, unless :data:`VERSIONS_ENV` says otherwise. A cached
#: version costs about 1.15 KB (the Fact with its datetimes and strings; tracemalloc in
#: ``benchmarks/version_cache.py``, 100k facts): about 140 MB at the cap, which a store of 100k
#: facts fits whole (docs/concepts/storage.md#warming). A subject with more versions than this
#: is never cached.
MAX_VERSIONS = 120_000
#: Entity names kept (``entity_names``: the names a write resolves).
MAX_NAMES = 50_000
#: The environment variable that sets how many versions the cache keeps (``0`` turns it off).
VERSIONS_ENV = "GRAPHMEM_VERSION_CACHE"
#: A read missing more subjects than this (a bulk write's plan) reads the missing ones'
#: current versions only, without filling the cache.
FILL_BATCH = 64


def max_versions() -> int:
    """The versions the cache keeps: :data:`VERSIONS_ENV` when set, else :data:`MAX_VERSIONS`.

    Raises:
        InvalidInput: the variable is not a whole number of at least 0.
    """
    raw = os.environ.get(VERSIONS_ENV, "").strip()
    if not raw:
        return MAX_VERSIONS
    n = int(raw) if raw.isdigit() else -1
    if n < 0:
        raise InvalidInput(
            f"{VERSIONS_ENV}={raw!r} is not a number of versions; set a whole number such as "
            f"{MAX_VERSIONS}, or 0 to turn the version cache off"
        )
    return n


#: What a backend's ``_subject_versions`` returns per subject: every version of it, current
#: and closed.
Loaded = list[Fact]


class VersionCache:
    """An LRU of ``{subject id: [version]}`` plus entity names, with hit and miss counters."""

    def __init__(self, subjects: int = MAX_SUBJECTS, versions: int | None = None) -> None:
        #: The limits; ``subjects=0`` turns the cache off.
        self.max_subjects = subjects
        self.max_versions = max_versions() if versions is None else versions
        self.max_names = MAX_NAMES
        if not self.max_versions:
            self.max_subjects = 0
        self._subjects: OrderedDict[str, list[Fact]] = OrderedDict()
        self._fids: dict[str, str] = {}  # fact id -> cached subject id ("in" access counts)
        self._names: OrderedDict[str, str] = OrderedDict()
        self._count = 0
        self._lock = threading.RLock()
        #: Bumped by every change; a fill keeps what it read only if it is unchanged.
        self.generation = 0
        self.writing = 0  # change sets being applied
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._subjects)

    @property
    def versions(self) -> int:
        """How many versions are cached."""
        return self._count

    def get(self, sid: str) -> list[Fact] | None:
        """The cached versions of a subject (a new list), or ``None``; counts hits and misses."""
        with self._lock:
            entry = self._subjects.get(sid)
            if entry is None:
                self.misses += 1
                return None
            self._subjects.move_to_end(sid)
            self.hits += 1
            return list(entry)

    def fillable(self, generation: int) -> bool:
        """Whether a read that began at ``generation`` may be kept: no change since."""
        return self.max_subjects > 0 and not self.writing and generation == self.generation

    def uncached(self, ids: Sequence[str]) -> list[str]:
        """Those of ``ids`` the cache does not hold (not counted as misses)."""
        with self._lock:
            return [i for i in ids if i not in self._subjects]

    def put(self, loaded: Mapping[str, Loaded], generation: int, *, cold: bool = False) -> int:
        """Keep the versions (and subject names) read at ``generation`` if nothing changed.

        ``cold`` (the warm): keep only subjects not cached yet, at the end evicted first.
        Returns how many subjects were kept.
        """
        kept = 0
        with self._lock:
            if not self.fillable(generation):
                return 0
            for sid, rows in loaded.items():
                if len(rows) > self.max_versions or (cold and sid in self._subjects):
                    continue
                self._drop(sid)
                self._subjects[sid] = list(rows)
                if cold:
                    self._subjects.move_to_end(sid, last=False)
                self._count += len(rows)
                kept += 1
                for f in rows:
                    self._fids[f.id] = sid
                if rows:
                    self._name(sid, rows[0].subject)
            self._evict()
        return kept

    def names(self, ids: Sequence[str]) -> tuple[dict[str, str], list[str]]:
        """The cached names of ``ids`` and the ids not cached."""
        found: dict[str, str] = {}
        missing: list[str] = []
        with self._lock:
            for i in dict.fromkeys(ids):
                name = self._names.get(i)
                if name is None:
                    missing.append(i)
                else:
                    found[i] = name
        return found, missing

    def put_names(self, names: Mapping[str, str], generation: int) -> None:
        """Keep entity names read at ``generation`` if nothing changed since."""
        with self._lock:
            if self.fillable(generation):
                for i, name in names.items():
                    self._name(i, name)

    def _name(self, eid: str, name: str) -> None:
        self._names[eid] = name
        self._names.move_to_end(eid)
        if len(self._names) > self.max_names:
            self._names.popitem(last=False)

    def wrote(self) -> None:
        """A data write is about to run: outside a change set's :meth:`write`, drop everything."""
        if not self.writing:
            self.clear()

    def clear(self) -> None:
        """Drop everything (and make reads in flight uncacheable)."""
        with self._lock:
            self.generation += 1
            self._subjects.clear()
            self._fids.clear()
            self._names.clear()
            self._count = 0

    def _drop(self, sid: str) -> None:
        entry = self._subjects.pop(sid, None)
        if entry is not None:
            self._count -= len(entry)
            for f in entry:
                self._fids.pop(f.id, None)

    def _evict(self) -> None:
        while self._subjects and (
            len(self._subjects) > self.max_subjects or self._count > self.max_versions
        ):
            self._drop(next(iter(self._subjects)))

    @contextmanager
    def write(self) -> Iterator[list[ChangeSet]]:
        """Around one change set's commit: the block appends it once committed.

        A block that raises, or that commits a purge or an import, drops the whole cache.
        """
        with self._lock:
            self.writing += 1
            self.generation += 1
        done: list[ChangeSet] = []
        try:
            yield done
        finally:
            with self._lock:
                self.writing -= 1
                self.generation += 1
                changes = done[0] if done else None
                if changes is None or changes.purge is not None or changes.snapshot is not None:
                    self.clear()
                else:
                    self._absorb(changes)
                    self._evict()

    def _absorb(self, c: ChangeSet) -> None:
        """Change the cached subjects as the store did, in ``ChangeSet``'s order."""
        at = c.at
        for sid, fid, n in c.bumps:
            self._update(sid, fid, {"access_count": n, "last_accessed_at": at})
        for (direction, eid), fids in c.access.items():
            for fid in set(fids):
                if direction == "out":  # versions of subject ``eid``
                    self._update(eid, fid, {"last_accessed_at": at}, count=True)
                elif fid in self._fids:  # versions into object ``eid``: not checked here
                    self._drop(self._fids[fid])
        for sid, fid, by, why in c.closes:
            update: dict[str, Any] = {"expired_at": at, "reason": why}
            if by is not None:
                update["superseded_by"] = by
            self._update(sid, fid, update, current=True)
        for sid, _, f in c.inserts:
            entry = self._subjects.get(sid)
            if entry is not None:
                entry.append(f)
                self._fids[f.id] = sid
                self._count += 1
        for sid, fid, why in c.settles:
            self._update(sid, fid, {"reason": why}, disputed=True)

    def _update(
        self,
        sid: str,
        fid: str,
        update: dict[str, Any],
        *,
        current: bool = False,
        disputed: bool = False,
        count: bool = False,
    ) -> None:
        """Update version ``fid`` of a cached subject as the store's ``SET`` does.

        ``current``: only a version not closed yet (a close); ``disputed``: only one closed at
        birth (a settle); ``count``: one more access. A version the cache does not find drops
        the subject.
        """
        entry = self._subjects.get(sid)
        if entry is None:
            return
        for i, f in enumerate(entry):
            if f.id == fid:
                if current and f.expired_at is not None:
                    return
                if disputed and f.expired_at != f.recorded_at:
                    return
                if count:
                    update["access_count"] = f.access_count + 1
                entry[i] = f.model_copy(update=update)
                return
        self._drop(sid)


def _matches(
    f: Fact,
    predicate: str | None,
    valid_at: dt.datetime | None,
    known_at: dt.datetime | None,
    current_only: bool,
) -> bool:
    """The store's filters on one version (closed-open, docs/concepts/time.md#rule-3)."""
    return (
        (predicate is None or f.predicate == predicate)
        and (not current_only or f.is_current)
        and (known_at is None or f.known_at(known_at))
        and (valid_at is None or f.valid_at(valid_at))
    )


if TYPE_CHECKING:

    class _Backend:
        """What the cache needs of the backend it is mixed into (type checking only)."""

        in_transaction: bool
        read_only: bool

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            raise NotImplementedError

        def apply(self, changes: ChangeSet) -> Applied:
            raise NotImplementedError

        def close(self) -> None:
            raise NotImplementedError

        def detach(self) -> None:
            raise NotImplementedError

        def attach(self) -> None:
            raise NotImplementedError

        def vacuum(self) -> None:
            raise NotImplementedError

        def _on_write(self) -> Callable[[], None] | None:
            raise NotImplementedError

        def _subject_versions(self, ids: Sequence[str]) -> dict[str, Loaded]:
            raise NotImplementedError

        def _warm_source(self) -> WarmSource | None:
            raise NotImplementedError

        def entity_names(self, ids: Sequence[str]) -> dict[str, str]:
            raise NotImplementedError

        def current_versions(
            self,
            subject_ids: Sequence[str],
            *,
            pairs: Collection[tuple[str, str]] | None = None,
        ) -> dict[str, list[Fact]]:
            raise NotImplementedError

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
            raise NotImplementedError

else:
    _Backend = object


class CachedVersions(_Backend):
    """Serves point reads of subjects from a :class:`VersionCache` (mix in before a backend).

    ``query_facts(subject_id=...)`` (as-of, current, history), ``current_versions`` (the plan
    of a write) and ``entity_names`` come from the cache when it holds the subjects.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        #: The cache (``version_cache.max_subjects = 0`` turns it off).
        self.version_cache = VersionCache()
        self._uncached = 0
        #: Misses after which the cache is warmed (docs/concepts/storage.md#warming) ...
        self.warm_after = WARM_AFTER
        #: ... and the warm, once started.
        self.warmer: Warmer | None = None
        self._missed = 0
        self._warm_tried = False
        super().__init__(*args, **kwargs)
        if self.read_only:
            # Another process may write while this one reads: ladybug 0.22 lets readers join
            # a running writer (docs/concurrency.md), so a reader keeps nothing.
            self.version_cache.max_subjects = 0

    @contextmanager
    def uncached(self) -> Iterator[None]:
        """Read around the cache for the block (tests compare both answers)."""
        self._uncached += 1
        try:
            yield
        finally:
            self._uncached -= 1

    def _cacheable(self) -> bool:
        # Not inside a transaction: it may see writes that are rolled back.
        return (
            self.version_cache.max_subjects > 0 and not self._uncached and not self.in_transaction
        )

    # -- writes: every one reaches the cache -------------------------------------------------

    def apply(self, changes: ChangeSet) -> Applied:
        """Commit ``changes``; then change the cached subjects as they were changed."""
        with self.version_cache.write() as done:
            applied = super().apply(changes)
            done.append(changes)
        return applied

    def _on_write(self) -> Callable[[], None] | None:
        """The backend's hook before a data write: outside :meth:`apply`, drop the whole cache.

        The cache's own method, so the backend's executor holds no reference to the store.
        """
        return self.version_cache.wrote

    def close(self) -> None:
        """Stop the warm, drop the cache and close the store."""
        self._stop_warm()
        self.version_cache.clear()
        super().close()

    def detach(self) -> None:
        """Stop the warm, drop the cache and close the engine's handles (the file may change)."""
        self._stop_warm()
        self.version_cache.clear()
        super().detach()

    def attach(self) -> None:
        """Reopen the engine's handles with an empty cache (warmed again after misses)."""
        self._stop_warm()
        self.version_cache.clear()
        self.warmer = None
        self._missed = 0
        self._warm_tried = False
        super().attach()

    def vacuum(self) -> None:
        """Rebuild the file; the cache is dropped before and after."""
        self._stop_warm()
        self.version_cache.clear()
        try:
            super().vacuum()
        finally:
            self.version_cache.clear()

    # -- reads -------------------------------------------------------------------------------

    def _cached(self, ids: Sequence[str]) -> dict[str, list[Fact]]:
        """The versions of those ``ids`` the cache holds, or reads and keeps (a few missing)."""
        cache = self.version_cache
        found: dict[str, list[Fact]] = {}
        missing: list[str] = []
        for sid in ids:
            entry = cache.get(sid)
            if entry is None:
                missing.append(sid)
            else:
                found[sid] = entry
        if missing and len(missing) <= FILL_BATCH:
            generation = cache.generation
            loaded = self._subject_versions(missing)
            cache.put(loaded, generation)
            found.update(loaded)
            self._missed += len(missing)
            if self._missed >= self.warm_after and not self._warm_tried:
                self.warm()
        return found

    # -- warming -----------------------------------------------------------------------------

    def warm(self) -> Warmer | None:
        """Start reading every subject into the cache in the background (if not started yet).

        Runs by itself after :attr:`warm_after` misses (docs/concepts/storage.md#warming);
        returns the warm, or ``None`` when this store has none (read-only, cache off, no
        second connection).
        """
        self._warm_tried = True
        if self.warmer is None and self.version_cache.max_subjects > 0 and not self.read_only:
            source = self._warm_source()
            if source is not None:
                self.warmer = Warmer(self.version_cache, source)
        return self.warmer

    def _stop_warm(self) -> None:
        if self.warmer is not None:
            self.warmer.stop()

    def current_versions(
        self,
        subject_ids: Sequence[str],
        *,
        pairs: Collection[tuple[str, str]] | None = None,
    ) -> dict[str, list[Fact]]:
        """The versions not closed in system time, per subject id (cached subjects first)."""
        if not subject_ids or not self._cacheable():
            return super().current_versions(subject_ids, pairs=pairs)
        out: dict[str, list[Fact]] = {s: [] for s in subject_ids}
        found = self._cached(list(out))
        rest = [s for s in out if s not in found]
        if rest:
            wanted = None if pairs is None else [p for p in pairs if p[0] not in found]
            out.update(super().current_versions(rest, pairs=wanted))
        if pairs is None:
            for sid, entry in found.items():
                out[sid] = [f for f in entry if f.expired_at is None]
            return out
        # As the store answers pairs: per pair, in order.
        for sid, pred in dict.fromkeys(pairs):
            if sid in found:
                live = (f for f in found[sid] if f.predicate == pred and f.expired_at is None)
                out[sid].extend(live)
        return out

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
        """Versions matching the filters; those of one subject from the cache."""
        query: dict[str, Any] = {
            "predicate": predicate,
            "valid_at": valid_at,
            "known_at": known_at,
            "current_only": current_only,
        }
        if subject_id and object_id is None and self._cacheable():
            entry = self._cached([subject_id]).get(subject_id)
            if entry is not None:
                rows = [f for f in entry if _matches(f, **query)]
                rows.sort(key=lambda f: (f.predicate, f.valid_from, f.recorded_at, f.id))
                return rows if limit is None else rows[:limit]
        return super().query_facts(subject_id=subject_id, object_id=object_id, limit=limit, **query)

    def entity_names(self, ids: Sequence[str]) -> dict[str, str]:
        """``{id: display name}`` for those ids that exist (cached names first)."""
        if not self._cacheable():
            return super().entity_names(ids)
        cache = self.version_cache
        found, missing = cache.names(ids)
        if missing:
            generation = cache.generation
            read = super().entity_names(missing)
            cache.put_names(read, generation)
            found.update(read)
        return found
