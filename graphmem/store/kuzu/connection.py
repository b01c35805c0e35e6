"""The embedded engine's handles: open, close, checkpoints and running prepared queries.

:class:`KuzuConnection` is the executor of the embedded store, held by it as ``executor``
(docs/concepts/storage.md#the-backends-parts): it imports the engine module (Kuzu 0.11.3 or
ladybug, the only importer of either), opens the database behind the file guard and the gate
(docs/concepts/storage.md#the-gate), checkpoints after commits
(docs/concepts/storage.md#durability), seals the file on close, and runs queries
(docs/concepts/storage.md#engine-facts). Its state is the engine's: the database and the
connection, the prepared statements, the checkpointer, the metadata read so far and the
store's size as the statement cache sees it.

- **Prepared statements.** Planning costs more than running a point query (the as-of query of
  a subject: 4.2 ms planned on every call, 1.0 ms prepared once), so :meth:`execute` keeps an
  LRU of prepared statements keyed by the query text. Queries must be parameterised, never
  built from values (docs/concepts/storage.md#the-storage-rules).
- ladybug plans a prepared statement from the table sizes at prepare time, so the cache is
  cleared each time the store doubles.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib
import os
import re
import sys
import time
import warnings
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from graphmem.errors import InvalidInput, StoreBusy, StoreError
from graphmem.store import locks
from graphmem.store.kuzu import checkpoint, guard

__all__ = ["CHECKPOINT_BYTES", "CHECKPOINT_COMMITS", "ENGINES", "KuzuConnection"]

ENGINES = {"kuzu": "kuzu", "ladybug": "ladybug"}
#: Prepared statements kept per connection.
STATEMENT_CACHE = 256
#: A commit checkpoints when the write-ahead log is at least this big (Kuzu's default
#: automatic threshold, 16 MiB) ...
CHECKPOINT_BYTES = 16 * 2**20
#: ... or after this many commits since the last checkpoint. Kuzu 0.11.3 holds what a commit
#: changed in memory until a checkpoint, about 300 KB a small write while the log grows by
#: 2 KB: a long-running process (``graphmem mcp``) grew by 1.3 GB over 5,000 tool calls before
#: its log reached 16 MiB (docs/concepts/storage.md#durability).
CHECKPOINT_COMMITS = 100
#: Statements worth preparing: queries and data writes, not DDL, COPY or transaction control.
_PREPARED_HEADS = ("MATCH", "OPTIONAL", "UNWIND", "MERGE", "WITH", "RETURN", "CREATE (")
#: A statement that writes through the log (or copies): it rules out a COPY-only commit.
_WRITES = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|DROP|ALTER|COPY|CALL)\b", re.IGNORECASE)
#: Of those, the statements that can change rows: the store's procedures (``CALL``) only read
#: or manage indexes (show_tables, SHOW_INDEXES, QUERY_FTS_INDEX, CREATE/DROP_FTS_INDEX).
_CHANGES = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|DROP|ALTER|COPY)\b", re.IGNORECASE)
#: Opens tried while another process is closing the database (:meth:`KuzuConnection._open_settled`).
SETTLE_TRIES = 10

#: A read-only open's buffer pool: this many times the database's files, at least
#: :data:`READ_POOL_MIN` bytes, and never above the engine's own default of 80% of memory.
#: Reserving the default pool costs a short command 15 ms (docs/concepts/storage.md#read-pool).
READ_POOL_FACTOR = 8
READ_POOL_MIN = 2**30
#: The environment variable that sets the buffer pool of a writable open (or an in-memory
#: store), in bytes or with a unit: ``512MiB``, ``2GiB`` (docs/concepts/storage.md#buffer-pool).
POOL_ENV = "GRAPHMEM_BUFFER_POOL"
_POOL_UNITS = {"": 1, "b": 1, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40}
_POOL_VALUE = re.compile(r"\s*(\d+)\s*([a-z]*)\s*")
#: The smallest buffer pool graphmem opens a database with (the schema alone needs room).
POOL_MIN = 64 * 2**20
#: How long an open waits for another process's lock on the file to go before it reports the
#: database as busy without probing it (:meth:`KuzuConnection._held_elsewhere`).
HELD_WAIT = 0.5


def _closing_elsewhere(message: str) -> bool:
    """Whether an open failed on the shadow file of another process's checkpoint.

    The file was there but still empty, or gone again between Kuzu's look and its read.
    """
    return ".shadow" in message and (
        "Reading past the end of the file" in message or "No such file or directory" in message
    )


class KuzuConnection:
    """One database and one connection of a Kuzu-family engine, with their checkpoints.

    ``on_write`` is called before every statement that changes data (the version cache's hook,
    docs/concepts/storage.md#version-cache).
    """

    def __init__(
        self,
        path: str | None = None,
        *,
        engine: str = "kuzu",
        read_only: bool = False,
        on_write: Callable[[], None] | None = None,
    ) -> None:
        if engine not in ENGINES:
            raise StoreError(f"engine={engine!r} is unknown; use one of {sorted(ENGINES)}")
        loaded = [e for e, mod in ENGINES.items() if e != engine and mod in sys.modules]
        if loaded and ENGINES[engine] not in sys.modules:
            # Both native modules register the same pybind11 types: the second one fails to
            # import, and the process then crashes on exit.
            raise StoreError(
                f"engine {engine!r} cannot be loaded: this process already uses engine "
                f"{loaded[0]!r}, and one process can load only one of them; use one engine per "
                "process (gm.open(engine=...) or GRAPHMEM_ENGINE)"
            )
        try:
            self._mod = importlib.import_module(ENGINES[engine])
        except ImportError as exc:
            from graphmem.errors import ExtraUnavailable

            raise ExtraUnavailable(
                f"engine {engine!r} is not installed; run: pip install 'graphmem[{engine}]'"
            ) from exc
        self.engine = engine
        self.path = path
        self.read_only = read_only
        self.on_write = on_write
        self._stmts: OrderedDict[str, Any] = OrderedDict()
        #: Metadata values read outside a transaction of a writable store, and the write
        #: generation: every data write drops them (docs/concepts/storage.md#meta-cache).
        self.meta: dict[str, str | None] = {}
        self.meta_gen = 0
        # Rows written since the statement cache was last cleared, and the store's size then:
        # ladybug plans a prepared statement from the table sizes at prepare time (a point query
        # prepared on an empty store scans once the store is big: 57 ms instead of 0.07 ms), so
        # the cache is cleared each time the store doubles.
        self._grown = 0
        self.size = 0
        self._writes: dict[str, tuple[bool, bool]] = {}  # query -> (write, changes rows)
        self._has_fts: bool | None = None
        #: The last checkpoint's failure (``None`` when it worked): commits stay in the log.
        self.checkpoint_error: str | None = None
        self._commits = 0  # commits since the last checkpoint (CHECKPOINT_COMMITS)
        #: What the open recovered (a killed checkpoint's copy put back), or ``None``.
        self.recovered: str | None = None
        #: The buffer pool the database was opened with, in bytes (``None``: the engine's
        #: default, 80% of memory): docs/concepts/storage.md#buffer-pool.
        self.pool: int | None = None
        self._ckpt: checkpoint.Checkpointer | None = None  # Kuzu files: copy, then checkpoint
        self._conn: Any = None
        self._db: Any = None
        self._gate: locks.Gate | None = None
        self._claim: locks.Claim | None = None

    @property
    def conn(self) -> Any:
        """The engine's connection (``None`` while closed or detached)."""
        return self._conn

    def side_connection(self) -> Any:
        """A second connection to the open database, with transactions of its own, or ``None``.

        The version cache's warm reads through it (docs/concepts/storage.md#warming); its owner
        closes it before this database closes.
        """
        if self._db is None:
            return None
        return self._mod.Connection(self._db)

    @property
    def stored_rows(self) -> int:
        """About how many entities and versions the store holds (:attr:`size` and writes since)."""
        return self.size + self._grown

    def open(self, owner: object) -> None:
        """Claim the file for ``owner`` (the store) and open the engine's handles.

        The claim lives as long as ``owner`` (:func:`graphmem.store.locks.claim`); on failure
        everything opened is closed again.
        """
        path = self.path
        self.forget_meta()  # opened again after a close: the file may have changed
        self._has_fts = None
        # One graphmem process at a time before an open and during a checkpoint or the close
        # (docs/concepts/storage.md#the-gate).
        self._gate = None if path is None else locks.Gate(os.fspath(path))
        # Kuzu's file lock only excludes other processes: refuse a second handle in this one.
        self._claim = locks.claim(path, read_only=self.read_only, owner=owner)
        self._connect()

    def _connect(self) -> None:
        """Open the database and the connection (the store is closed on failure).

        A file that may be damaged is probed first (:mod:`graphmem.store.kuzu.guard`). The
        probe, a recovery and the engine's open hold the gate
        (docs/concepts/storage.md#the-gate): Kuzu looks at the log before it takes its lock.
        """
        try:
            with self.gated():
                self._connect_gated()
        except StoreBusy:
            self.close()
            raise

    def _connect_gated(self) -> None:
        path = self.path
        target = ":memory:" if path is None else os.fspath(path)
        if path is not None:

            def refuse_if_held() -> None:
                if self._held_elsewhere(target):
                    raise self._busy(target, "Could not set lock on file")

            try:
                note = guard.check_before_open(
                    target, self.engine, ENGINES[self.engine], before_probe=refuse_if_held
                )
            except BaseException:
                self.close()
                raise
            if note is not None:
                self.recovered = note
        try:
            self._db = self._open_settled(target)
            self._conn = self._mod.Connection(self._db)
            if path is not None and self.engine == "kuzu" and not self.read_only:
                self._ckpt = checkpoint.Checkpointer(target)
        except RuntimeError as exc:
            self.close()
            msg = " ".join(str(exc).split())  # one line: the CLI prints errors on one line
            if "lock" in msg.lower() or _closing_elsewhere(msg):
                raise self._busy(target, msg) from exc
            hint = ""
            if path is not None and os.path.exists(target):
                hint = (
                    "; if the file is damaged, restore the last backup into a new database "
                    "(graphmem --db NEW_PATH import BACKUP.jsonl) and run 'graphmem check' on it"
                )
            raise StoreError(f"cannot open database {path!r}: {msg}{hint}") from exc

    def _held_elsewhere(self, target: str) -> bool:
        """Whether another process holds the file as this open cannot share (Linux).

        Asked only before a probe (a sealed file goes straight to the engine, which refuses a
        held file by itself): the engine would refuse the open, and the probe would hold the
        gate for a while. A writer refuses at once; readers count once they have stayed
        :data:`HELD_WAIT` seconds: the probe (a reader) of a process killed while it opened
        lives a moment longer than its parent.
        """
        deadline = time.monotonic() + HELD_WAIT
        while True:
            modes = {mode for _, mode in locks.lock_holders(target)}
            if "WRITE" in modes:
                return True
            if self.read_only or not modes:
                return False
            if time.monotonic() >= deadline:
                return True
            time.sleep(0.02)

    def _busy(self, target: str, msg: str) -> StoreBusy:
        return StoreBusy(
            f"database {self.path!r} is in use by {locks.describe_holder(target)}; Kuzu "
            "allows one process that writes or several that only read (read_only=True "
            "/ --read-only), not both: stop that process (e.g. the MCP server) or wait "
            f"for it to finish (docs/concurrency.md) [{msg}]"
        )

    @property
    def engine_module(self) -> Any:
        """The engine's Python module (``kuzu`` or ``real_ladybug``) this store opened with."""
        return self._mod

    def detach(self) -> None:
        """Close the engine's handles but keep this store's claim (vacuum swaps the file)."""
        self.forget_meta()
        self._stmts.clear()
        with self.gated(required=False):
            self._checkpoint_before_close()
            for obj in (self._conn, self._db):
                with contextlib.suppress(RuntimeError):
                    obj.close()
            if self._ckpt is not None:
                self._ckpt.after(True)  # the close checkpointed what was left: the copy goes

    def attach(self) -> None:
        """Reopen the engine's handles after :meth:`detach`.

        Raises:
            StoreBusy: another process opened the database in between.
            StoreError: the engine cannot open it.
        """
        self.forget_meta()  # the file may have been replaced or written by a borrower
        self._stmts.clear()
        self._writes.clear()
        self._has_fts = None
        self._connect()

    def _open_settled(self, target: str) -> Any:
        """Open the database, waiting out another process that is closing it.

        Kuzu 0.11.3 reads the ``.shadow`` file of a checkpoint before it takes its file lock:
        an open that lands while another process checkpoints on close fails with "Reading past
        the end of the file ...shadow with size 0" or "Cannot open file ...shadow" (seen with
        two writers taking turns under load, ``tests/test_concurrency.py``). Such an open is
        retried for up to a second; after that the caller reports the database as busy.
        """
        for attempt in range(SETTLE_TRIES):
            try:
                return self._open(target, read_only=self.read_only)
            except RuntimeError as exc:
                if attempt == SETTLE_TRIES - 1 or not _closing_elsewhere(str(exc)):
                    raise
                time.sleep(0.02 * (attempt + 1))
        raise AssertionError("unreachable")  # the loop returns or raises

    def _open(self, target: str, *, read_only: bool) -> Any:
        options: dict[str, Any] = {}
        if self.engine == "kuzu" and not read_only and target != ":memory:":
            # Kuzu: checkpoints run after COMMIT returned (_checkpoint), never inside it: an
            # automatic one that fails (a full disk) made COMMIT raise for a committed write.
            # Not ladybug: with automatic checkpoints off, ladybug 0.22 lost acknowledged
            # commits after a SIGKILL (test_crash, docs/concepts/storage.md#durability).
            options["auto_checkpoint"] = False
        if read_only and target != ":memory:":
            options.update(_read_pool(target))
        else:
            pool = buffer_pool()
            if pool is not None:
                options["buffer_pool_size"] = pool
        self.pool = options.get("buffer_pool_size")
        try:
            return self._mod.Database(target, read_only=read_only, **options)
        except RuntimeError as exc:
            pending = ("recovery is pending", "replay shadow pages")
            if not (read_only and any(p in str(exc) for p in pending)):
                raise
        # Killed during a checkpoint, ladybug ("recovery is pending") and Kuzu ("couldn't replay
        # shadow pages") refuse read-only opens until a writable open has finished the recovery:
        # do that (it fails with a lock error if a writer is alive). Its close checkpoints:
        # the data file is copied first (docs/concepts/storage.md#checkpoint-base).
        ckpt = checkpoint.Checkpointer(target) if self.engine == "kuzu" else None
        if ckpt is not None:
            with contextlib.suppress(OSError):  # a full disk: Kuzu's close checkpoints alone
                ckpt.before()
        self._mod.Database(target).close()
        if ckpt is not None:
            ckpt.after(True)
        return self._mod.Database(target, read_only=True)

    def after_commit(self) -> None:
        """Merge the write-ahead log into the file once it exceeds :data:`CHECKPOINT_BYTES`.

        Or after :data:`CHECKPOINT_COMMITS` commits, which bounds the memory the engine holds
        for changes not yet checkpointed.
        """
        if self.path is None or self.read_only:
            return
        self._commits += 1
        if self.engine == "kuzu":
            try:
                size = os.path.getsize(os.fspath(self.path) + ".wal")
            except OSError:
                return
        else:
            size = 0  # ladybug checkpoints by itself at its log threshold; the memory: here
        if size < CHECKPOINT_BYTES and self._commits < CHECKPOINT_COMMITS:
            return
        try:
            self.checkpoint_now()
            self._commits = 0
            self.checkpoint_error = None
        except (RuntimeError, OSError, StoreBusy) as exc:
            # The commits are safe in the log; the next commit retries.
            self.checkpoint_error = " ".join(str(exc).split())

    def checkpoint_now(self) -> None:
        """Run ``CHECKPOINT``; on a Kuzu file, copy the data file first.

        A checkpoint killed after node inserts can leave a file the log no longer replays
        over; the copy taken before it is put back on open
        (docs/concepts/storage.md#checkpoint-base).

        The copy, the checkpoint and dropping the copy hold the gate
        (docs/concepts/storage.md#the-gate).

        Raises:
            RuntimeError: the engine's checkpoint failed (the commits stay in the log).
            OSError: the copy could not be written; nothing was checkpointed.
            StoreBusy: another process held the gate too long; nothing was checkpointed.
        """
        conn = self._conn
        if conn is None:
            raise StoreError(f"store {self.path!r} is closed; open it again")
        with self.gated():
            if self._ckpt is None:
                conn.execute("CHECKPOINT")
            else:
                self._ckpt.run(lambda: conn.execute("CHECKPOINT"))

    def gated(self, *, required: bool = True) -> contextlib.AbstractContextManager[None]:
        """Hold the gate of a file store (docs/concepts/storage.md#the-gate); none in memory.

        ``required=False`` (closing): after waiting in vain, go on without it.
        """
        if self._gate is None:
            return contextlib.nullcontext()
        return self._gate.held(required=required)

    def _checkpoint_before_close(self) -> None:
        """Kuzu checkpoints a file with a log on close: do it here, with the copy first."""
        ckpt = self._ckpt
        if ckpt is None or self._conn is None:
            return
        if checkpoint.log_pending(ckpt.path):
            with contextlib.suppress(RuntimeError, OSError, StoreError):
                self.checkpoint_now()  # failing, the copy is kept and the close checkpoints

    def close(self) -> None:
        """Close the connection and the database; seal a file left whole (guard).

        The checkpoint, the close and the seal hold the gate
        (docs/concepts/storage.md#the-gate).
        """
        self._stmts.clear()
        closed = self._db is not None
        with self.gated(required=False) if closed else contextlib.nullcontext():
            self._checkpoint_before_close()
            for obj in (self._conn, self._db):
                if obj is not None:
                    try:
                        obj.close()
                    except RuntimeError:  # closing twice, or the final checkpoint failed
                        closed = False
            self._conn = self._db = None
            ckpt, self._ckpt = self._ckpt, None
            if closed and ckpt is not None:
                ckpt.after(True)  # dropped when the close left no log
            if closed and self.path is not None and not self.read_only:
                target = os.fspath(self.path)
                if os.path.isfile(target) and not os.path.exists(target + ".wal"):
                    guard.seal(target, self.engine)
        if self._claim is not None:
            self._claim.release()

    def execute(
        self,
        query: str,
        params: dict[str, Any],
        keep: Callable[[list[Any]], bool] | None = None,
    ) -> list[list[Any]]:
        """Run one parameterised query (prepared when it is worth it) and return all rows.

        ``keep``: return only the rows it accepts, taken one at a time from the engine, so the
        rows left out are never all in memory at once (a bulk write's planning read keeps the
        rows of its pairs only: a streamed 1M ingest peaked at 2.8 GB instead of 3.35 GB,
        docs/benchmarks.md#appending-in-10k-calls).

        Raises:
            StoreError: the store is closed, or the engine failed (its message included).
        """
        kind = self._writes.get(query)
        if kind is None:
            kind = self._writes[query] = (bool(_WRITES.search(query)), bool(_CHANGES.search(query)))
            if len(self._writes) > 4 * STATEMENT_CACHE:
                self._writes.clear()
        write, changes = kind
        if changes:
            self._wrote()
        if write:
            batch = params.get("rows", params.get("t"))  # UNWIND rows or a COPY's table
            size = getattr(batch, "num_rows", None)
            self._grown += size if size is not None else len(batch) if type(batch) is list else 1
            if self._grown > max(self.size, 1000):
                self.size += self._grown
                self._grown = 0
                self._stmts.clear()
        if self._conn is None:
            raise StoreError(
                f"store {self.path or ':memory:'!r} is closed (or lent to another process); "
                "open it again"
            )
        stmt = self._prepared(query, params)
        try:
            result = self._conn.execute(query if stmt is None else stmt, params)
            if keep is None:
                rows: list[list[Any]] = result.get_all()
                return rows
            return [row for row in result if keep(row)]
        except RuntimeError as exc:
            self._stmts.pop(query, None)
            raise StoreError(f"{self.engine} query failed: {exc}") from exc

    def _wrote(self) -> None:
        """Called before every statement that changes data: the hook, then the metadata goes.

        :attr:`on_write` drops the version cache outside a change set
        (docs/concepts/storage.md#version-cache); the metadata read so far is dropped too
        (docs/concepts/storage.md#meta-cache).
        """
        if self.on_write is not None:
            self.on_write()
        self.forget_meta()

    def forget_meta(self) -> None:
        """Drop the metadata values kept (:attr:`meta`) and start a new generation."""
        self.meta_gen += 1
        self.meta.clear()

    def _prepared(self, query: str, params: Mapping[str, Any]) -> Any:
        """Return the cached prepared statement for ``query``, or ``None`` to run it directly."""
        stmt = self._stmts.get(query)
        if stmt is not None:
            self._stmts.move_to_end(query)
            return stmt
        if not query.lstrip()[:8].upper().startswith(_PREPARED_HEADS):
            return None
        if not hasattr(self._conn, "prepare") or any(
            v is not None and not isinstance(v, (str, int, float, list, dict, dt.datetime))
            for v in params.values()
        ):
            return None  # Arrow tables and data frames bind at prepare time: run directly
        with warnings.catch_warnings():
            # Deprecated in favour of execute(query, params), which plans the query every call.
            warnings.simplefilter("ignore", DeprecationWarning)
            stmt = self._conn.prepare(query)
        if not stmt.is_success():
            return None  # run it directly: the engine reports the error
        self._stmts[query] = stmt
        if len(self._stmts) > STATEMENT_CACHE:
            self._stmts.popitem(last=False)
        return stmt

    def fts_available(self) -> bool:
        """Return whether the engine has the full-text-search extension (Kuzu has it built in).

        ladybug ships no extensions and cannot download them offline: there, text search falls
        back to the callers' scans.
        """
        if self._has_fts is None:
            try:
                self._conn.execute("LOAD EXTENSION fts")
                self._has_fts = True
            except RuntimeError as exc:
                self._has_fts = "already loaded" in str(exc).lower() or (
                    "statically linked" in str(exc).lower()
                )
        return self._has_fts


def buffer_pool(value: str | None = None) -> int | None:
    """The buffer pool of a writable open set by :data:`POOL_ENV`, or ``None`` (the engine's).

    Args:
        value: the setting (``None``: read :data:`POOL_ENV`).

    Raises:
        InvalidInput: a value that is not a size of at least :data:`POOL_MIN` bytes.
    """
    if value is None:
        value = os.environ.get(POOL_ENV)
    if value is None or not value.strip():
        return None
    m = _POOL_VALUE.fullmatch(value.lower())
    if m is None or m.group(2) not in _POOL_UNITS:
        raise InvalidInput(
            f"{POOL_ENV}={value!r} is not a size; give bytes or a number with a unit "
            "(KiB, MiB, GiB, TiB), e.g. 2GiB"
        )
    size = int(m.group(1)) * _POOL_UNITS[m.group(2)]
    if size < POOL_MIN:
        raise InvalidInput(
            f"{POOL_ENV}={value!r} is below the least buffer pool graphmem opens a database "
            f"with ({POOL_MIN // 2**20} MiB); raise it, or unset it for the engine's default"
        )
    return size


def _read_pool(target: str) -> dict[str, int]:
    """The buffer pool of a read-only open, or no option when the default is smaller.

    ``READ_POOL_FACTOR`` times the data file and its log, so a read never has less room than
    the whole database several times over (docs/concepts/storage.md#read-pool).
    """
    size = 0
    for path in (target, target + ".wal"):
        with contextlib.suppress(OSError):
            size += os.path.getsize(path)
    pool = max(READ_POOL_MIN, READ_POOL_FACTOR * size)
    try:
        default = int(0.8 * os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (OSError, ValueError):
        return {}
    return {"buffer_pool_size": pool} if pool < default else {}
