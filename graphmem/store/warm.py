"""Warming the version cache: every subject of a store that fits, read in the background.

A miss of the version cache costs one engine query (about 1.5 ms on Kuzu 0.11.3 at 100k facts,
most of it the engine returning a version's twenty columns), a hit a few Python objects
(0.07 ms). A process that keeps reading (an agent's loop, ``graphmem mcp``, a notebook) soon
reads subjects it has not read before; so once a store has missed :data:`WARM_AFTER` times, a
:class:`Warmer` reads every subject's versions and every entity's name into the cache in a
thread of its own, on a connection of its own, while the process goes on
(docs/concepts/storage.md#warming). It does so only when the whole store fits the cache's
limits; a bigger store keeps the least-recently-used cache alone.

The warm keeps the cache coherent the way every fill does (:mod:`graphmem.store.cache`): each
chunk is read in a read transaction of its own and kept only if no change set or other write
ran meanwhile (the cache's generation); a chunk that overlapped one is left to be read on
demand. It never evicts what the process read itself (warmed subjects go to the cold end), stops
at the first failure (the cache stays as it was), and is stopped and joined before its store
closes, detaches or swaps its file, and before the interpreter exits.
"""

from __future__ import annotations

import atexit
import threading
import weakref
from collections.abc import Mapping, Sequence
from typing import Protocol

from graphmem.models import Fact

__all__ = ["WARM_AFTER", "WARM_CHUNK", "WarmCache", "WarmSource", "Warmer"]

#: Misses of the version cache after which a store starts warming it: a command that reads
#: one subject never starts it; a store closed while it warms interrupts its query.
WARM_AFTER = 2
#: Subjects read per query of the warm: a read transaction of about 50 ms at 10 versions a
#: subject, which a checkpoint of the writing connection waits out.
WARM_CHUNK = 1000


class WarmCache(Protocol):
    """What the warm uses of a :class:`~graphmem.store.cache.VersionCache`."""

    generation: int
    max_subjects: int
    max_versions: int
    max_names: int

    def uncached(self, ids: Sequence[str]) -> list[str]:
        """Those of ``ids`` not cached."""
        ...

    def put(self, loaded: Mapping[str, list[Fact]], generation: int, *, cold: bool = False) -> int:
        """Keep what was read at ``generation`` if nothing changed since; how many kept."""
        ...

    def put_names(self, names: Mapping[str, str], generation: int) -> None:
        """Keep entity names read at ``generation`` if nothing changed since."""
        ...


class WarmSource(Protocol):
    """What a backend gives the warm: reads on a connection of their own."""

    def plan(self) -> tuple[dict[str, str], int]:
        """``({entity id: name}, number of versions)`` of the whole store."""
        ...

    def versions(self, ids: Sequence[str]) -> dict[str, list[Fact]]:
        """Every version (current and closed) of each subject id, ``[]`` for one with none."""
        ...

    def interrupt(self) -> None:
        """Stop the query running now (called from another thread)."""
        ...

    def close(self) -> None:
        """Close the connection."""
        ...


_LIVE: weakref.WeakSet[Warmer] = weakref.WeakSet()


@atexit.register
def _stop_all() -> None:
    # A thread still inside the engine while the interpreter tears the engine's module down
    # crashes the process on exit.
    for warmer in list(_LIVE):
        warmer.stop()


class Warmer:
    """One warm of one cache from one source, in a thread; :meth:`stop` ends and joins it."""

    def __init__(self, cache: WarmCache, source: WarmSource) -> None:
        self._cache = cache
        self._source = source
        self._stopping = threading.Event()
        #: Why the warm stopped early (the engine's message), or ``None``.
        self.error: str | None = None
        #: Subjects the warm put in the cache.
        self.warmed = 0
        self._thread = threading.Thread(target=self._run, name="graphmem-warm", daemon=True)
        _LIVE.add(self)
        self._thread.start()

    @property
    def running(self) -> bool:
        """Whether the warm is still reading."""
        return self._thread.is_alive()

    def join(self, timeout: float | None = None) -> None:
        """Wait for the warm to finish (tests and benchmarks)."""
        self._thread.join(timeout)

    def stop(self) -> None:
        """Stop the warm (its query is interrupted) and wait for it."""
        self._stopping.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._source.interrupt()
            self._thread.join()

    def _run(self) -> None:
        cache = self._cache
        try:
            generation = cache.generation
            names, versions = self._source.plan()
            if (
                self._stopping.is_set()
                or versions > cache.max_versions
                or len(names) > min(cache.max_subjects, cache.max_names)
            ):
                return
            cache.put_names(names, generation)
            ids = list(names)
            for start in range(0, len(ids), WARM_CHUNK):
                if self._stopping.is_set():
                    return
                todo = cache.uncached(ids[start : start + WARM_CHUNK])
                if not todo:
                    continue
                generation = cache.generation
                loaded = self._source.versions(todo)
                self.warmed += cache.put(loaded, generation, cold=True)
        except Exception as exc:  # noqa: BLE001 - any failure ends the warm; reads go on
            if not self._stopping.is_set():  # else: the interrupted query
                self.error = " ".join(str(exc).split()) or type(exc).__name__
        finally:
            self._source.close()
