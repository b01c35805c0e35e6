"""The write order of a memory on a FalkorDB server shared by many processes.

Every public write plans its change set from what it read (the current versions of its
subjects) and commits it as one query. Two processes planning from the same state would both
supersede the same version (two current versions of a single-valued predicate), so a write
holds the memory's **writer lock** from its first read to its commit
(:meth:`WriterLock.exclusive`, taken by :meth:`graphmem.kernel.UnitOfWork.write`):

- the lock is a Redis key beside the graph, ``<graph>::graphmem::writer``, set with ``NX`` and
  a time to live that a thread of the handle renews while it writes (every third of the time
  to live), so a holder that dies frees it after :data:`LOCK_TTL` seconds at most; a waiter
  polls with a random back-off and gives up with :class:`~graphmem.errors.StoreBusy` after
  the URL's timeout;
- the lock is also **fenced**: the graph keeps a write counter (``serial`` on the
  ``GraphmemTx`` node) that every applied change set moves on by one. The holder reads it when
  it takes the lock, and its query applies only while the counter still has that value; a
  holder that lost its lock (frozen longer than the time to live) therefore writes nothing
  and gets a ``StoreBusy`` saying so, instead of a plan made from a stale read;
- the holder also reads the newest-write marker, so the kernel can order its system time after
  every write already committed (docs/concurrency.md#many-writers-on-a-server);
- the ``GraphmemTx`` node carries the **memory's id** (``memory``), created with the graph. A
  handle remembers it, and its writes apply only to a graph holding that id: a server that
  lost the graph (restarted without its files) or a graph replaced by another empty one is
  reported as "the server lost this memory's data", never written to as an empty memory.

The lock adds three round trips to a write, and no write to the append-only file (measured:
docs/concurrency.md#many-writers-on-a-server).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import random
import threading
import time
import uuid
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from graphmem.errors import StoreBusy, StoreError
from graphmem.store.falkordb.connection import FalkorExecutor

__all__ = ["LOCK_TTL", "WriterLock", "lost_data"]

#: Seconds a writer lock lives without renewal (its holder renews it every third of that).
LOCK_TTL = 10.0

# The lock's commands run in scripts that do not propagate their writes
# (``redis.set_repl(redis.REPL_NONE)``): the lock lives in the server's memory only, so taking
# and releasing it costs no append-only-file write (no fsync with ``appendfsync always``), a
# restarted server has no stale lock, and a replica none at all.
_ACQUIRE = (
    "redis.set_repl(redis.REPL_NONE) "
    "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end return 0"
)
_RENEW = (
    "redis.set_repl(redis.REPL_NONE) "
    "if redis.call('get', KEYS[1]) == ARGV[1] then "
    "return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end"
)
_RELEASE = (
    "redis.set_repl(redis.REPL_NONE) "
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) "
    "else return 0 end"
)
_STATE = (
    "OPTIONAL MATCH (t:GraphmemTx {key: 'tokens'}) "
    "OPTIONAL MATCH (m:Meta {key: 'last_write'}) "
    "RETURN t.serial, t.memory, m.value"
)


def lost_data(where: str, memory: str | None) -> StoreError:
    """The error of a handle whose memory is no longer on the server."""
    ident = f" (memory id {memory})" if memory else ""
    return StoreError(
        f"the server lost this memory's data: graph {where} no longer holds the memory this "
        f"handle opened{ident} (the server restarted without its files, or the graph was "
        "deleted or replaced); nothing was written. Restore it from a backup or an export "
        "(graphmem import), then open it again (docs/falkordb.md#a-server-that-lost-its-data)"
    )


class WriterLock:
    """The writer lock, the fence and the memory's id (module docstring).

    The store's ``lock`` part (docs/concepts/storage.md#the-backends-parts).

    Attributes:
        memory_id: the id of the memory this handle opened (``None`` before a writable open).
        ttl: the writer lock's time to live (seconds).
    """

    def __init__(self, executor: FalkorExecutor, *, ttl: float = LOCK_TTL) -> None:
        self.executor = executor
        self.memory_id: str | None = None
        self.ttl = ttl
        self._fence: int | None = None
        self._held: str | None = None
        self._renewer: threading.Thread | None = None
        self._depth = 0
        self._marker: dt.datetime | None = None

    @property
    def key(self) -> str:
        """The lock's Redis key, beside the graph."""
        return f"{self.executor.graph}::graphmem::writer"

    def claim_memory(self) -> None:
        """Give the graph its memory id when it has none, and remember it (writable open)."""
        rows = self.executor.w(
            "MERGE (t:GraphmemTx {key: 'tokens'}) "
            "ON CREATE SET t.memory = $new, t.serial = 0 "
            "SET t.memory = coalesce(t.memory, $new) RETURN t.memory",
            {"new": uuid.uuid4().hex},
        )
        self.memory_id = rows[0][0]

    def read_memory(self) -> None:
        """Remember the graph's memory id without giving it one (read-only open)."""
        rows = self.executor.q("MATCH (t:GraphmemTx {key: 'tokens'}) RETURN t.memory")
        self.memory_id = rows[0][0] if rows else None

    @contextmanager
    def exclusive(self) -> Iterator[dt.datetime | None]:
        """Hold the memory's writer lock; yield the newest-write marker read under it.

        Re-entrant within this handle. Applies made while it is held are fenced (module
        docstring).

        Raises:
            StoreBusy: another process held the lock for longer than the URL's timeout.
            StoreError: the server failed, or it lost this memory's data.
        """
        if self._depth:
            self._depth += 1
            try:
                yield self._marker
            finally:
                self._depth -= 1
            return
        conn = self.executor.connection()
        token = uuid.uuid4().hex
        self._acquire(token)
        self._held = token
        self._start_renewer()
        try:
            serial, memory, marker = self._state()
            if self.memory_id is not None and memory != self.memory_id:
                raise lost_data(self.executor.url.where, self.memory_id)
            self._fence = int(serial or 0)
            self._marker = dt.datetime.fromisoformat(marker) if marker else None
            self._depth = 1
            yield self._marker
        finally:
            self._depth = 0
            self._fence = None
            self._held = None
            with contextlib.suppress(Exception):  # it expires by itself
                conn.command("EVAL", _RELEASE, 1, self.key, token)

    def _state(self) -> tuple[Any, Any, Any]:
        rows = self.executor.q(_STATE)
        if not rows:
            return None, None, None
        serial, memory, marker = rows[0]
        return serial, memory, marker

    def _acquire(self, token: str) -> None:
        conn = self.executor.connection()
        ttl_ms = int(self.ttl * 1000)
        deadline = time.monotonic() + conn.url.timeout
        pause = 0.002
        while True:
            try:
                got = conn.command("EVAL", _ACQUIRE, 1, self.key, token, ttl_ms)
            except Exception as exc:  # noqa: BLE001 - mapped to StoreError
                raise conn.error(exc, "writer lock") from None
            if got:
                return
            if time.monotonic() > deadline:
                raise StoreBusy(
                    f"another process has been writing to {conn.url.where} for more than "
                    f"{conn.url.timeout:g} s (it holds the memory's writer lock); nothing was "
                    "written: retry later, or raise ?timeout= in the URL "
                    "(docs/concurrency.md#many-writers-on-a-server)"
                )
            time.sleep(pause * (0.5 + random.random()))  # noqa: S311 - back-off jitter
            pause = min(pause * 2, 0.05)

    def _start_renewer(self) -> None:
        """Start the renewing thread once (it holds the lock weakly, ends on close)."""
        if self._renewer is not None:
            return
        ref = weakref.ref(self)
        period = self.ttl / 3

        def loop() -> None:
            while True:
                time.sleep(period)
                lock = ref()
                if lock is None or not lock._renew():  # noqa: SLF001 - its own lock
                    return
                del lock

        self._renewer = threading.Thread(target=loop, name="graphmem-writer-lock", daemon=True)
        self._renewer.start()

    def _renew(self) -> bool:
        """Renew the lock this handle holds, if any; ``False`` once the store is closed."""
        conn = self.executor.conn
        if conn is None:
            return False
        token = self._held
        if token is not None:
            with contextlib.suppress(Exception):  # the fence catches a lost lock
                conn.command("EVAL", _RENEW, 1, self.key, token, int(self.ttl * 1000))
        return True

    def fenced(self) -> int | None:
        """The write counter the next apply expects (``None``: not under the lock)."""
        return self._fence if self._depth else None

    def advance(self) -> None:
        """Note that an apply under the lock moved the write counter on."""
        if self._depth and self._fence is not None:
            self._fence += 1
