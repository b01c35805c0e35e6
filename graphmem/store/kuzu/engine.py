"""The embedded store on Kuzu 0.11.3 (default) or its fork ladybug: the only importer of either.

The query shapes come from measurements with 1M facts on 2 cores (docs/benchmarks.md; the
numbers below are Kuzu 0.11.3; docs/concepts/storage.md#engine-facts):

- **Prepared statements.** Planning costs more than running a point query (the as-of query of
  a subject: 4.2 ms planned on every call, 1.0 ms prepared once), so :meth:`KuzuStore.run`
  keeps an LRU of prepared statements keyed by the query text. Queries must be parameterised,
  never built from values (docs/concepts/storage.md#the-storage-rules). A ``None`` parameter
  makes ladybug re-bind the statement (20 µs each), so writes leave NULL properties out of the
  query instead of passing ``None``.
- **Point lookups, not joins.** ``UNWIND $ids AS i MATCH (e:Entity {id: i})`` is a hash join
  over a full Entity scan (40 ms at 100k entities, however few the ids), and
  ``UNWIND ... MERGE ... CREATE`` costs about 2 ms a row, while one prepared statement per row
  costs 0.1–0.6 ms. Small id sets and every write below the COPY path go row by row; ``UNWIND``
  only serves large id sets (:data:`SMALL_BATCH`). Inserting a version costs Kuzu 0.45–0.55
  ms a row either way (a prepared ``MATCH``/``MATCH``/``CREATE`` per row, or one ``UNWIND``:
  measured for issue 18, no shape is faster), ladybug 0.13 ms per row and 0.09 ms through one
  ``UNWIND``, which its bigger batches take (:meth:`KuzuStore._insert_rows`).
- Every filter on rel properties sits behind a ``WITH`` barrier, or the planner scans all edges
  (461 ms instead of 6 ms).
- **COPY is the bulk path, in a transaction of its own kind.** Killed during ``COMMIT``, a
  transaction that mixes COPY with logged writes (``CREATE``/``MERGE``/``SET``) keeps the
  logged writes and loses the copied rows (a torn write, Kuzu 0.11.3 and ladybug 0.22, found
  for issue #7), and a rolled-back transaction that COPY-ed into a non-empty rel table corrupts
  it (later writes resurrect the rolled-back rows). A transaction holding *only* COPYs commits
  all or nothing, except on Kuzu 0.11.3, where a killed COPY also damages the primary-key
  indexes (issue 16): there the new nodes are written with logged statements and committed,
  the log is checkpointed, and only the versions are copied (:meth:`_copy_after_checkpoint`).
  So :meth:`insert_facts` defers a big batch, with the entities and predicates
  it creates, to the commit: when the transaction logged nothing else it commits as COPYs only
  (the ``last_write`` marker follows in a second transaction and is repaired on open after a
  crash in between); otherwise the rows are logged inserts. Nothing is ever copied
  before a rollback.
- **Held-back writes.** An append supersedes stored versions: its closes, access bumps and
  entity upserts are logged writes. Inside a transaction that has logged nothing yet they are
  held back (``_pending_ops``) instead of run, so a big insert can still take the COPY: the
  nodes commit first with a ``copy_pending`` record holding the held-back writes and one copied
  version's id, then the COPY alone, then the held-back writes with the marker, which delete
  the record. Killed after the COPY's commit, the next open applies the recorded writes (the
  probe version exists), killed before it, it removes the nodes: the call is whole or absent
  (``tests/test_write_paths.py`` kills it). Any read in the transaction runs the held-back
  writes first (:meth:`_materialize`), so reads see them.
- A COPY into a non-empty rel table costs about ``fixed + stored × per_stored`` whatever the
  batch size (Kuzu 0.11.3: 0.3 s for 1k rows into 100k versions, 4–14 s into 1M, growing with
  earlier appends), so a batch of at least :data:`COPY_THRESHOLD` versions is copied only when
  that beats logged inserts (:data:`WRITE_COSTS`, :attr:`KuzuStore.copy_policy`).
- Values are ``cast`` explicitly (a NULL first value breaks type inference).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import importlib
import json
import os
import re
import sys
import time
import warnings
from collections import Counter, OrderedDict
from collections.abc import Collection, Iterator, Mapping, Sequence
from contextlib import contextmanager
from operator import itemgetter
from typing import Any

from graphmem.errors import SchemaVersionError, StoreBusy, StoreError
from graphmem.models import Entity, Fact, Predicate, trusted
from graphmem.store import locks
from graphmem.store.kuzu import checkpoint, guard
from graphmem.store.kuzu.schema import DDL, FACT_COLUMNS, SCHEMA_VERSION, UPGRADES
from graphmem.timeutil import to_store

__all__ = ["COPY_THRESHOLD", "ENGINES", "SMALL_BATCH", "WRITE_COSTS", "KuzuStore"]

ENGINES = {"kuzu": "kuzu", "ladybug": "ladybug"}
#: A call inserting at least this many new versions may take the bulk COPY path (when it is
#: cheaper than logged inserts: :data:`WRITE_COSTS`; into an empty table it always is).
COPY_THRESHOLD = 500
#: Up to this many ids or rows, one prepared statement per id/row; above, one ``UNWIND`` query.
SMALL_BATCH = 64
#: Seconds, measured for issue 18 on 2 cores (``benchmarks/run.py``, systems ``append-*``):
#: ``(a logged insert per row, COPY fixed, COPY per stored version)``. A COPY into a rel table
#: holding ``m`` versions costs about ``fixed + m * per_stored`` whatever the batch size
#: (Kuzu 0.11.3: 0.31 s for 1k and 0.84 s for 10k rows into 100k versions, 4-14 s into 1M,
#: growing with earlier appends; ladybug 0.22: 0.37-0.45 s into 100k, 3.8-3.9 s into 1M);
#: a logged insert costs 0.45-0.55 ms a row on Kuzu (one statement a row: ``UNWIND`` is no
#: faster there) and 0.09-0.1 ms on ladybug (``UNWIND``). A batch is copied when that is
#: cheaper: on Kuzu from about 1.5k rows into 100k versions, 11k rows into 1M.
WRITE_COSTS = {"kuzu": (0.45e-3, 0.2, 5e-6), "ladybug": (0.09e-3, 0.3, 3.5e-6)}
#: One point query costs about as much as scanning this many stored rows (entities, versions).
POINT_VS_SCAN = 1000
#: Prepared statements kept per connection.
STATEMENT_CACHE = 256
#: Meta key: the nodes a Kuzu bulk write committed before its version COPY (undone on open).
_COPY_PENDING = "copy_pending"
#: A commit checkpoints when the write-ahead log is at least this big (Kuzu's default
#: automatic threshold, 16 MiB) ...
CHECKPOINT_BYTES = 16 * 2**20
#: ... or after this many commits since the last checkpoint. Kuzu 0.11.3 holds what a commit
#: changed in memory until a checkpoint, about 300 KB a small write while the log grows by
#: 2 KB: a long-running process (``graphmem mcp``) grew by 1.3 GB over 5,000 tool calls before
#: its log reached 16 MiB (docs/concepts/storage.md#durability).
CHECKPOINT_COMMITS = 100

_COLS = [c for c, _ in FACT_COLUMNS]
_TYPES = dict(FACT_COLUMNS)
_RETURN = "a.name AS subject, " + ", ".join(f"r.{c}" for c in _COLS)
_TIME_COLS = {c for c, t in FACT_COLUMNS if t == "TIMESTAMP"}
_UTC = dt.timezone.utc
_CAST = {
    "STRING": "STRING",
    "TIMESTAMP": "TIMESTAMP",
    "DOUBLE": "DOUBLE",
    "INT64": "INT64",
    "BOOLEAN": "BOOLEAN",
}
#: Statements worth preparing: queries and data writes, not DDL, COPY or transaction control.
_PREPARED_HEADS = ("MATCH", "OPTIONAL", "UNWIND", "MERGE", "WITH", "RETURN", "CREATE (")
#: A statement that writes through the log (or copies): it rules out a COPY-only commit.
_WRITES = re.compile(r"\b(CREATE|MERGE|SET|DELETE|REMOVE|DROP|ALTER|COPY|CALL)\b", re.IGNORECASE)


def _fact_from_row(row: Sequence[Any]) -> Fact:
    """Build a stored version from ``subject, *FACT_COLUMNS`` without validating it again.

    The store only holds versions that were validated when written, and a write reads the
    current versions of every subject it touches: 75k versions cost 1.7 s through
    ``model_validate`` in a 10k append (issue 18), a tenth of that through ``trusted``.
    """
    (
        fid,
        pred,
        obj,
        vf,
        vt,
        rec,
        exp,
        stmt,
        kind,
        imp,
        conf,
        src,
        ref,
        by,
        why,
        n,
        last,
        pin,
        st,
    ) = row[1:]
    utc = _UTC
    return trusted(
        Fact,
        {
            "id": fid,
            "subject": row[0],
            "predicate": pred,
            "object": obj,
            "valid_from": vf if vf is None or vf.tzinfo else vf.replace(tzinfo=utc),
            "valid_to": vt if vt is None or vt.tzinfo else vt.replace(tzinfo=utc),
            "recorded_at": rec if rec is None or rec.tzinfo else rec.replace(tzinfo=utc),
            "expired_at": exp if exp is None or exp.tzinfo else exp.replace(tzinfo=utc),
            "statement": stmt,
            "kind": kind or "fact",
            "importance": 5.0 if imp is None else imp,
            "confidence": 1.0 if conf is None else conf,
            "source": src,
            "source_ref": ref,
            "superseded_by": by,
            "reason": why,
            "access_count": n or 0,
            "last_accessed_at": last if last is None or last.tzinfo else last.replace(tzinfo=utc),
            "pinned": bool(pin),
            "source_type": st,
        },
    )


def _fact_params(f: Fact) -> dict[str, Any]:
    """Return a version's storage values by column, ``None`` included."""
    data = f.__dict__
    out: dict[str, Any] = {}
    for name in _COLS:
        value = data["id" if name == "fid" else name]
        out[name] = to_store(value) if name in _TIME_COLS else value
    return out


@functools.lru_cache(maxsize=512)
def _insert_query(cols: tuple[str, ...], merge: bool) -> str:
    """Return the per-row insert of a version whose non-NULL properties are ``cols``.

    Both endpoints are MATCHed on their primary key, or with ``merge`` MERGE-d and created when
    missing (named by ``$src_name``/``$src_kind``, ``$dst_name``/``$dst_kind``). The query
    returns a row only when it inserted.
    """
    if merge:
        head = "".join(
            f"MERGE ({v}:Entity {{id: ${e}}}) ON CREATE SET {v}.name = ${e}_name, "
            f"{v}.kind = ${e}_kind, {v}.aliases = cast([] AS STRING[]) "
            for v, e in (("a", "src"), ("b", "dst"))
        )
    else:
        head = "MATCH (a:Entity {id: $src}) MATCH (b:Entity {id: $dst}) "
    props = ", ".join(f"{c}: cast(${c} AS {_CAST[_TYPES[c]]})" for c in cols)
    return f"{head}CREATE (a)-[:Fact {{{props}}}]->(b) RETURN 1"


_UNWIND_INSERT = (
    "UNWIND $rows AS row MATCH (a:Entity {id: row.src}) MATCH (b:Entity {id: row.dst}) "
    "CREATE (a)-[:Fact {"
    + ", ".join(f"{c}: cast(row.{c} AS {_CAST[_TYPES[c]]})" for c in _COLS)
    + "}]->(b)"
)

_STR_LIST: Any = None


def _arrow() -> Any:
    global _STR_LIST
    import pyarrow as pa

    if _STR_LIST is None:
        _STR_LIST = pa.list_(pa.string())
    return pa


def _entity_table(entities: Sequence[Entity]) -> Any:
    """Return entities as an Arrow table in Entity column order."""
    pa = _arrow()
    return pa.table(
        {
            "id": pa.array([e.id for e in entities], pa.string()),
            "name": pa.array([e.name for e in entities], pa.string()),
            "kind": pa.array([e.kind for e in entities], pa.string()),
            "aliases": pa.array([list(e.aliases) for e in entities], _STR_LIST),
        }
    )


def _predicate_table(predicates: Sequence[Predicate]) -> Any:
    """Return predicates as an Arrow table in Predicate column order."""
    pa = _arrow()
    return pa.table(
        {
            "name": pa.array([p.name for p in predicates], pa.string()),
            "cardinality": pa.array([p.cardinality for p in predicates], pa.string()),
            "aliases": pa.array([list(p.aliases) for p in predicates], _STR_LIST),
            "inverse": pa.array([p.inverse for p in predicates], pa.string()),
            "symmetric": pa.array([p.symmetric for p in predicates], pa.bool_()),
            "description": pa.array([p.description for p in predicates], pa.string()),
        }
    )


def _fact_table(rows: Sequence[tuple[str, str, Fact]]) -> Any:
    """Return ``(subject id, object id, fact)`` rows as an Arrow table for ``COPY Fact``.

    One pass over the versions, then columns: a pass per column over a million versions
    scattered in the heap cost 3x more in cache misses (15.5 s vs 7.9 s at 1M shuffled; #6).
    """
    pa = _arrow()
    types = {
        "STRING": pa.string(),
        "TIMESTAMP": pa.timestamp("us"),
        "DOUBLE": pa.float64(),
        "INT64": pa.int64(),
        "BOOLEAN": pa.bool_(),
    }
    get = itemgetter(*["id" if name == "fid" else name for name, _ in FACT_COLUMNS])
    columns = list(zip(*[(s, o, *get(f.__dict__)) for s, o, f in rows], strict=True))
    table: dict[str, Any] = {
        "from": pa.array(columns[0], pa.string()),
        "to": pa.array(columns[1], pa.string()),
    }
    for (name, typ), values in zip(FACT_COLUMNS, columns[2:], strict=True):
        # Facts hold aware UTC datetimes: Arrow converts them to UTC in C and stores them
        # naive, as the store keeps them (4.6x faster than through a zoned type and a cast:
        # 0.3 s a column at 100k versions, issue 18).
        table[name] = pa.array(values, types[typ])
    return pa.table(table)


#: Opens tried while another process is closing the database (:meth:`KuzuStore._open_settled`).
SETTLE_TRIES = 10
#: How long an open waits for another process's lock on the file to go before it reports the
#: database as busy without probing it (:meth:`KuzuStore._held_elsewhere`).
HELD_WAIT = 0.5


def _closing_elsewhere(message: str) -> bool:
    """Whether an open failed on the shadow file of another process's checkpoint.

    The file was there but still empty, or gone again between Kuzu's look and its read.
    """
    return ".shadow" in message and (
        "Reading past the end of the file" in message or "No such file or directory" in message
    )


class KuzuStore:
    """Graphmem's storage on a Kuzu-family engine (one database, one connection)."""

    def __init__(
        self, path: str | None = None, *, engine: str = "kuzu", read_only: bool = False
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
        self._stmts: OrderedDict[str, Any] = OrderedDict()
        # Rows written since the statement cache was last cleared, and the store's size then:
        # ladybug plans a prepared statement from the table sizes at prepare time (a point query
        # prepared on an empty store scans once the store is big: 57 ms instead of 0.07 ms), so
        # the cache is cleared each time the store doubles.
        self._grown = 0
        self._size = 0
        self._writes: dict[str, bool] = {}
        self._in_tx = False
        self._logged = False  # the open transaction ran a logged write (no COPY-only commit)
        self._pending_facts: list[tuple[str, str, Fact]] = []
        self._pending_entities: dict[str, Entity] = {}
        self._pending_predicates: dict[str, Predicate] = {}
        self._pending_marker: str | None = None
        # Logged writes (entity upserts, access bumps, closes) held back while the transaction
        # has logged nothing: a big insert can still commit as a COPY, with these after it
        # (module docstring). Serialised as ``(op, rows, at)`` so a crash record can hold them.
        self._pending_ops: list[tuple[str, list[Any], str | None]] = []
        self._after_copy: list[tuple[str, list[Any], str | None]] = []
        self._pending_into = ""  # "copy-empty" or "copy-append": the deferred COPY's kind
        #: When big inserts are copied: ``"auto"`` (by :data:`WRITE_COSTS`), ``"always"`` (every
        #: batch of :data:`COPY_THRESHOLD` or more) or ``"never"`` (logged inserts only). A seam
        #: for tests and measurements; results are the same on every path.
        self.copy_policy = "auto"
        #: How many inserts took each write path (``rows``, ``unwind``, ``copy-empty``,
        #: ``copy-append``, and ``+ops`` when held-back writes followed the COPY).
        self.write_paths: Counter[str] = Counter()
        #: Tests: stop between a COPY's commit and its held-back writes' (as a crash would).
        self.fail_after_copy = False
        self._copy_pending = False  # a copy_pending record waits for the copy's commit
        self._has_fts: bool | None = None
        #: The last checkpoint's failure (``None`` when it worked): commits stay in the log.
        self.checkpoint_error: str | None = None
        self._commits = 0  # commits since the last checkpoint (CHECKPOINT_COMMITS)
        #: What the open recovered (a killed checkpoint's copy put back), or ``None``.
        self.recovered: str | None = None
        self._ckpt: checkpoint.Checkpointer | None = None  # Kuzu files: copy, then checkpoint
        # One graphmem process at a time before an open and during a checkpoint or the close
        # (docs/concepts/storage.md#the-gate).
        self._gate = None if path is None else locks.Gate(os.fspath(path))
        # Kuzu's file lock only excludes other processes: refuse a second handle in this one.
        self._claim = locks.claim(path, read_only=read_only, owner=self)
        self._connect()
        try:
            self._init_schema()
            self._size = self._recover()
            if path is not None and not read_only:
                # A purge's file rebuild that a crash cut short is finished first (vacuum).
                from graphmem.store.kuzu.vacuum import finish_interrupted

                finish_interrupted(self)
        except BaseException:
            self.close()
            raise

    def _connect(self) -> None:
        """Open the database and the connection (the store is closed on failure).

        A file that may be damaged is probed first (:mod:`graphmem.store.kuzu.guard`). The
        probe, a recovery and the engine's open hold the gate
        (docs/concepts/storage.md#the-gate): Kuzu looks at the log before it takes its lock.
        """
        try:
            with self._gated():
                self._connect_gated()
        except StoreBusy:
            self.close()
            raise

    def _connect_gated(self) -> None:
        path = self.path
        target = ":memory:" if path is None else os.fspath(path)
        if path is not None:
            if self._held_elsewhere(target):
                self.close()
                raise self._busy(target, "Could not set lock on file")
            try:
                note = guard.check_before_open(target, self.engine, ENGINES[self.engine])
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

        The engine would refuse the open: it is refused before the probe, which would hold the
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

    def _detach(self) -> None:
        """Close the engine's handles but keep this store's claim (vacuum swaps the file)."""
        self._stmts.clear()
        with self._gated(required=False):
            self._checkpoint_before_close()
            for obj in (self._conn, self._db):
                with contextlib.suppress(RuntimeError):
                    obj.close()
            if self._ckpt is not None:
                self._ckpt.after(True)  # the close checkpointed what was left: the copy goes

    def _attach(self) -> None:
        """Reopen the engine's handles after :meth:`_detach`.

        Raises:
            StoreBusy: another process opened the database in between.
            StoreError: the engine cannot open it.
        """
        self._stmts.clear()
        self._writes.clear()
        self._has_fts = None
        self._connect()

    # -- plumbing -----------------------------------------------------------------------------

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
            # commits after a SIGKILL (test_crash, issue 16).
            options["auto_checkpoint"] = False
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

    def _commit(self) -> None:
        """COMMIT the open transaction, then checkpoint when the log is big.

        With automatic checkpoints off (:meth:`_open`), COMMIT only appends the transaction to
        the write-ahead log: when it fails (a full disk), the log holds no complete commit
        record, so the write is absent after a reopen and the error says so. A checkpoint that
        fails afterwards does not undo the commit: it is reported in
        :attr:`checkpoint_error` and retried after the next commit, and the call succeeds.

        Raises:
            StoreError: the commit failed; nothing of the transaction was written.
        """
        try:
            self._conn.execute("COMMIT")
        except RuntimeError as exc:
            with contextlib.suppress(RuntimeError):
                self._conn.execute("ROLLBACK")
            self._copy_pending = False  # its record stays: the next open undoes the nodes
            msg = " ".join(str(exc).split())
            raise StoreError(
                f"{self.engine} could not commit the write: {msg}; nothing of it was written "
                "(free disk space, then retry it)"
            ) from exc
        self._checkpoint()

    def _checkpoint(self) -> None:
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
            self._checkpoint_now()
            self._commits = 0
            self.checkpoint_error = None
        except (RuntimeError, OSError, StoreBusy) as exc:
            # The commits are safe in the log; the next commit retries.
            self.checkpoint_error = " ".join(str(exc).split())

    def _checkpoint_now(self) -> None:
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
        with self._gated():
            if self._ckpt is None:
                conn.execute("CHECKPOINT")
            else:
                self._ckpt.run(lambda: conn.execute("CHECKPOINT"))

    def _gated(self, *, required: bool = True) -> contextlib.AbstractContextManager[None]:
        """Hold the gate of a file store (docs/concepts/storage.md#the-gate); none in memory.

        ``required=False`` (closing): after waiting in vain, go on without it.
        """
        gate: locks.Gate | None = getattr(self, "_gate", None)
        if gate is None:
            return contextlib.nullcontext()
        return gate.held(required=required)

    def _checkpoint_before_close(self) -> None:
        """Kuzu checkpoints a file with a log on close: do it here, with the copy first."""
        ckpt = getattr(self, "_ckpt", None)
        if ckpt is None or getattr(self, "_conn", None) is None:
            return
        if checkpoint.log_pending(ckpt.path):
            with contextlib.suppress(RuntimeError, OSError, StoreError):
                self._checkpoint_now()  # failing, the copy is kept and the close checkpoints

    def close(self) -> None:
        """Close the connection and the database; seal a file left whole (guard).

        The checkpoint, the close and the seal hold the gate
        (docs/concepts/storage.md#the-gate).
        """
        self._stmts.clear()
        closed = getattr(self, "_db", None) is not None
        with self._gated(required=False) if closed else contextlib.nullcontext():
            self._checkpoint_before_close()
            for obj in (getattr(self, "_conn", None), getattr(self, "_db", None)):
                if obj is not None:
                    try:
                        obj.close()
                    except RuntimeError:  # closing twice, or the final checkpoint failed
                        closed = False
            self._conn = self._db = None
            ckpt, self._ckpt = getattr(self, "_ckpt", None), None
            if closed and ckpt is not None:
                ckpt.after(True)  # dropped when the close left no log
            if closed and self.path is not None and not self.read_only:
                target = os.fspath(self.path)
                if os.path.isfile(target) and not os.path.exists(target + ".wal"):
                    guard.seal(target, self.engine)
        if getattr(self, "_claim", None) is not None:
            self._claim.release()

    def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Execute one parameterised query and return all rows.

        The query is prepared once and its plan reused: keep values in parameters. Inside
        :meth:`transaction`, versions deferred by :meth:`insert_facts` are written first, so the
        query sees them; a write here rules out the COPY-only commit (module docstring).

        Raises:
            StoreError: the engine failed; the message includes its own.
        """
        return self._q(query, params, write=self._in_tx and bool(_WRITES.search(query)))

    def _q(
        self, query: str, params: Mapping[str, Any] | None = None, *, write: bool = False
    ) -> list[list[Any]]:
        """Run a query of this store after the deferred writes; ``write``: a logged write."""
        if (
            self._pending_facts
            or self._pending_entities
            or self._pending_predicates
            or self._pending_ops
        ):
            self._materialize()
        if write and self._in_tx:
            self._logged = True
        return self._execute(query, dict(params or {}))

    def _execute(self, query: str, params: dict[str, Any]) -> list[list[Any]]:
        write = self._writes.get(query)
        if write is None:
            write = self._writes[query] = bool(_WRITES.search(query))
            if len(self._writes) > 4 * STATEMENT_CACHE:
                self._writes.clear()
        if write:
            batch = params.get("rows", params.get("t"))  # UNWIND rows or a COPY's table
            size = getattr(batch, "num_rows", None)
            self._grown += size if size is not None else len(batch) if type(batch) is list else 1
            if self._grown > max(self._size, 1000):
                self._size += self._grown
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
            rows: list[list[Any]] = result.get_all()
            return rows
        except RuntimeError as exc:
            self._stmts.pop(query, None)
            raise StoreError(f"{self.engine} query failed: {exc}") from exc

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

    def _write_rows(
        self,
        single: str,
        many: str,
        rows: Sequence[Mapping[str, Any]],
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        """Run ``single`` once per row for small batches, else ``many`` with ``$rows``.

        ``single`` reads each row's values as ``$key``; ``many`` reads them as ``row.key``.
        Up to :data:`SMALL_BATCH` rows go one by one (prepared point statements beat an
        ``UNWIND`` join). Every query is a logged write of this store.
        """
        if len(rows) <= SMALL_BATCH:
            for row in rows:
                self._q(single, {**row, **(extra or {})}, write=True)
        else:
            self._q(many, {"rows": list(rows), **(extra or {})}, write=True)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Run the block in one write transaction: all of it is applied or none.

        Nested blocks join the outer transaction. Deferred bulk versions are written when the
        block ends: as COPYs only, or statement by statement (module docstring).
        """
        if self._in_tx:
            yield
            return
        self._execute("BEGIN TRANSACTION", {})
        self._in_tx, self._logged = True, False
        copied = False
        try:
            yield
            copied = self._commit_pending()
        except BaseException:
            self._in_tx = False
            self._discard_pending()
            # The engine may already have rolled back after a failed query.
            with contextlib.suppress(RuntimeError):
                self._conn.execute("ROLLBACK")
            raise
        self._in_tx = False
        marker, self._pending_marker = self._pending_marker, None
        ops, self._after_copy = self._after_copy, []
        self._commit()
        pending, self._copy_pending = self._copy_pending, False
        if copied and ops and self.fail_after_copy:
            raise RuntimeError("stopped after the copy's commit (fail_after_copy)")
        if copied and (marker is not None or pending or ops):
            # Its own transaction: a logged write must not share a COPY's commit. A crash right
            # before it leaves the marker behind the data (_recover fixes that on open) and the
            # held-back writes undone (the copy_pending record holds them: _undo_copy_pending
            # applies them on open).
            with self.transaction():
                self._logged = True
                self._run_ops(ops)
                if marker is not None:
                    self._advance_marker(marker)
                if pending:
                    self._q("MATCH (m:Meta {key: $k}) DELETE m", {"k": _COPY_PENDING}, write=True)

    def _discard_pending(self) -> None:
        self._discard_pending_rows()
        self._pending_marker = None
        self._copy_pending = False
        self._after_copy = []

    def _commit_pending(self) -> bool:
        """Write the deferred rows before COMMIT; return whether they went as COPYs only."""
        if not self._pending_facts or self._logged:
            self._materialize()
            return False
        preds = list(self._pending_predicates.values())
        ents = list(self._pending_entities.values())
        facts, ops = self._pending_facts, self._pending_ops
        self.write_paths[self._pending_into + ("+ops" if ops else "")] += 1
        self._discard_pending_rows()
        if self.engine == "kuzu" or ops:
            # With held-back writes, ladybug takes this path too: nodes and those writes are
            # logged, so they must not share the COPY's commit.
            self._copy_after_checkpoint(preds, ents, facts, ops)
            return True
        if preds:
            self._execute("COPY Predicate FROM $t", {"t": _predicate_table(preds)})
        if ents:
            self._execute("COPY Entity FROM $t", {"t": _entity_table(ents)})
        self._execute("COPY Fact FROM $t", {"t": _fact_table(facts)})
        return True

    def _copy_after_checkpoint(
        self,
        preds: Sequence[Predicate],
        ents: Sequence[Entity],
        facts: Sequence[tuple[str, str, Fact]],
        ops: Sequence[tuple[str, list[Any], str | None]] = (),
    ) -> None:
        """Kuzu 0.11.3: commit the new nodes (logged), checkpoint, then COPY only the versions.

        ``ops`` (entity upserts, access bumps and closes held back by the transaction) run in
        a third transaction after the copy's commit (:meth:`transaction`). The first commit
        records them with one copied version's id (the probe): a crash after the copy's commit
        and before theirs is finished on open by applying them (:meth:`_undo_copy_pending`),
        one before the copy's commit is undone, so the call is whole or absent.

        Measured for issue 16 with SIGKILL rounds on plain Kuzu 0.11.3 (ladybug 0.22 has none
        of these):

        - a ``COPY`` into a node table killed before its commit leaves keys in the
          primary-key index: afterwards even a plain ``CREATE`` of such a key fails with
          "duplicated primary key", forever (3 of 3 seeds, with or without automatic
          checkpoints, with a CHECKPOINT before and after each COPY transaction);
        - a ``COPY`` into the rel table killed while committed transactions still wait in the
          write-ahead log makes the next open fail with "duplicated primary key" while it
          replays them;
        - nodes created by logged writes, a ``CHECKPOINT``, then a transaction holding only the
          rel ``COPY``: 75 kill rounds, all opened and none torn.

        So nodes never go through ``COPY`` here, and the log is empty when the copy starts. A
        crash between the two commits leaves the call's new entities and predicates without
        versions; the first commit records them (the ``copy_pending`` metadata), and the next
        writable open removes those that no version uses (:meth:`_undo_copy_pending`), so the
        call is whole or absent. A failure removes them at once.
        """
        if preds:
            self._save_predicates(preds)
        if ents:
            self._create_entities(ents)
        if preds or ents or ops:
            # Undone on open if the copy never commits, finished if it did (_undo_copy_pending).
            record: dict[str, Any] = {
                "entities": [e.id for e in ents],
                "predicates": [p.name for p in preds],
            }
            if ops:
                s, _, f = facts[0]
                record["probe"] = [s, f.id]
                record["ops"] = [list(op) for op in ops]
            self.set_meta(_COPY_PENDING, json.dumps(record))
            self._copy_pending = True
            self._after_copy = list(ops)
        self._commit()
        try:
            try:
                self._checkpoint_now()
            except (RuntimeError, OSError) as exc:
                msg = " ".join(str(exc).split())
                raise StoreError(
                    f"kuzu could not checkpoint before the copy: {msg}; nothing of the write "
                    "was kept (free disk space, then retry it)"
                ) from exc
            self._execute("BEGIN TRANSACTION", {})
            self._execute("COPY Fact FROM $t", {"t": _fact_table(facts)})
        except BaseException:
            with contextlib.suppress(RuntimeError):
                self._conn.execute("ROLLBACK")
            self._execute("BEGIN TRANSACTION", {})
            if ents:
                self._execute(
                    "UNWIND $ids AS i MATCH (e:Entity {id: i}) DETACH DELETE e",
                    {"ids": [e.id for e in ents]},
                )
            if preds:
                self._execute(
                    "UNWIND $n AS n MATCH (p:Predicate {name: n}) DELETE p",
                    {"n": [p.name for p in preds]},
                )
            self._execute("MATCH (m:Meta {key: $k}) DELETE m", {"k": _COPY_PENDING})
            self._copy_pending = False
            self._after_copy = []
            self._commit()
            self._execute("BEGIN TRANSACTION", {})  # the caller's ROLLBACK ends this one
            raise

    def _discard_pending_rows(self) -> None:
        self._pending_facts, self._pending_entities, self._pending_predicates = [], {}, {}
        self._pending_ops = []
        self._pending_into = ""

    def _materialize(self) -> None:
        """Write the deferred rows with logged statements (the transaction is no COPY-only)."""
        preds, ents = list(self._pending_predicates.values()), list(self._pending_entities.values())
        facts, ops = self._pending_facts, self._pending_ops
        self._discard_pending_rows()
        if preds:
            self._save_predicates(preds)
        if ents:
            # Checked missing when deferred, before the held-back upserts ran: created first,
            # as on the COPY path, so an upsert of the same id updates instead of colliding.
            self._create_entities(ents)
        self._run_ops(ops)
        if facts:
            self._insert_rows(facts, {})
        if self._pending_marker is not None:
            marker, self._pending_marker = self._pending_marker, None
            self._advance_marker(marker)

    def _init_schema(self) -> None:
        tables = {row[0] for row in self.run("CALL show_tables() RETURN name")}
        if "Meta" in tables:
            rows = self.run("MATCH (m:Meta {key: 'schema_version'}) RETURN m.value")
            found = rows[0][0] if rows else None
            if found in UPGRADES and not self.read_only:
                self._upgrade(found)
                return
            if found in UPGRADES:
                raise SchemaVersionError(
                    f"database {self.path!r} has graphmem schema version {found!r}, this graphmem "
                    f"needs {SCHEMA_VERSION}; open it once without read_only (CLI: without "
                    "--read-only) to upgrade it in place"
                )
            if found != str(SCHEMA_VERSION):
                raise SchemaVersionError(
                    f"database {self.path!r} has graphmem schema version {found!r}, this graphmem "
                    f"needs {SCHEMA_VERSION}; export it with the graphmem that wrote it "
                    "('graphmem export') and import it into a new database"
                )
            return
        if not tables and self.read_only:
            raise StoreError(f"database {self.path!r} is empty and opened read-only")
        if tables:
            raise SchemaVersionError(
                f"database {self.path!r} holds tables {sorted(tables)} but no graphmem schema; "
                "open another path"
            )
        with self.transaction():
            for stmt in DDL:
                self.run(stmt)
            self.run(
                "CREATE (:Meta {key: 'schema_version', value: $v})", {"v": str(SCHEMA_VERSION)}
            )

    def _upgrade(self, found: str) -> None:
        """Upgrade an older schema in one transaction (``graphmem.store.kuzu.schema.UPGRADES``)."""
        with self.transaction():
            for stmt in UPGRADES[found]:
                self.run(stmt)
            self._upgrade_data(found)
            self.set_meta("schema_version", str(SCHEMA_VERSION))

    def _upgrade_data(self, found: str) -> None:
        """Fill what an upgrade's DDL added (the lines topic overrides it: KuzuLines).

        ``found`` is the version upgraded from; schema 3's ``Fact.source_type`` stays NULL on
        the versions written before it (nobody said who said them).
        """

    def _recover(self) -> int:
        """Return how many entities and versions are stored; repair a lagging marker.

        Only a crash between a COPY-only commit and its marker's commit leaves the ``last_write``
        marker behind the data; a writable open moves it up to the newest system time stored.
        """
        if not self.read_only:
            self._undo_copy_pending()
        rows = self._q(
            "MATCH ()-[r:Fact]->() RETURN max(r.recorded_at), max(r.expired_at), count(r)"
        )
        entities = int(self._q("MATCH (e:Entity) RETURN count(e)")[0][0])
        if not rows or not rows[0][2]:
            return entities
        newest = max(t for t in rows[0][:2] if t is not None).replace(tzinfo=dt.timezone.utc)
        marker = self.max_system_time()
        if not self.read_only and (marker is None or marker < newest):
            with self.transaction():
                self.set_max_system_time(newest)
        return entities + int(rows[0][2])

    def _undo_copy_pending(self) -> None:
        """Remove the nodes of a bulk write whose version COPY never committed (Kuzu).

        The entities and predicates :meth:`_copy_after_checkpoint` committed first are removed
        when no version, mention or alias uses them; when the copy did commit, they are all in
        use and only the record goes, after the writes it held back (``ops``: upserts, bumps,
        closes, which follow the copy in a transaction of their own) are applied: the copy
        committed when its probe version exists.
        """
        value = self.get_meta(_COPY_PENDING)
        if value is None:
            return
        ops: list[tuple[str, list[Any], str | None]] = []
        probe: list[str] = []
        try:
            record = json.loads(value)
            ids = [str(i) for i in record.get("entities", [])]
            names = [str(n) for n in record.get("predicates", [])]
            probe = [str(x) for x in record.get("probe", [])]
            ops = [(str(op), list(rows), at) for op, rows, at in record.get("ops", [])]
        except (ValueError, AttributeError, TypeError):
            ids, names = [], []
        with self.transaction():
            self._logged = True
            if ops and len(probe) == 2:
                found = self._q(
                    "MATCH (a:Entity {id: $s})-[r:Fact]->() WITH r WHERE r.fid = $f "
                    "RETURN count(r)",
                    {"s": probe[0], "f": probe[1]},
                )
                if found and found[0][0]:
                    self._run_ops(ops)
            if ids:
                self._q(
                    "UNWIND $ids AS i MATCH (e:Entity {id: i}) "
                    "WHERE NOT EXISTS { MATCH (e)-[:Fact]-() } "
                    "AND NOT EXISTS { MATCH (:Session)-[:MENTIONS]->(e) } "
                    "AND (e.aliases IS NULL OR size(e.aliases) = 0) DELETE e",
                    {"ids": ids},
                    write=True,
                )
            for name in names:
                used = self._q(
                    "MATCH ()-[r:Fact]->() WITH r WHERE r.predicate = $p RETURN count(r)",
                    {"p": name},
                )
                if not used or not used[0][0]:
                    self._q("MATCH (p:Predicate {name: $p}) DELETE p", {"p": name}, write=True)
            self._q("MATCH (m:Meta {key: $k}) DELETE m", {"k": _COPY_PENDING}, write=True)

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

    # -- meta, ontology, entities ----------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        """Return a metadata value, or ``None``."""
        rows = self._q("MATCH (m:Meta {key: $k}) RETURN m.value", {"k": key})
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        """Set a metadata value."""
        self._q("MERGE (m:Meta {key: $k}) SET m.value = $v", {"k": key, "v": value}, write=True)

    def load_predicates(self) -> list[Predicate]:
        """Return every stored predicate definition."""
        rows = self._q(
            "MATCH (p:Predicate) RETURN p.name, p.cardinality, p.aliases, p.inverse, p.symmetric,"
            " p.description ORDER BY p.name"
        )
        return [
            Predicate(
                name=r[0],
                cardinality=r[1],
                aliases=tuple(r[2] or ()),
                inverse=r[3],
                symmetric=bool(r[4]),
                description=r[5] or "",
            )
            for r in rows
        ]

    def save_predicates(self, predicates: Sequence[Predicate]) -> None:
        """Insert or update predicate definitions.

        Inside a transaction, new predicates wait for the commit (they may go with a bulk COPY).
        """
        if not predicates:
            return
        if self._in_tx and not self._logged:
            found = self._execute(
                "UNWIND $n AS n MATCH (p:Predicate {name: n}) RETURN p.name",
                {"n": [p.name for p in predicates]},
            )
            if not found:
                self._pending_predicates.update({p.name: p for p in predicates})
                return
        self._materialize()
        self._save_predicates(predicates)

    def _save_predicates(self, predicates: Sequence[Predicate]) -> None:
        rows = [
            {
                "name": p.name,
                "cardinality": p.cardinality,
                "aliases": list(p.aliases),
                "inverse": p.inverse,
                "symmetric": p.symmetric,
                "description": p.description,
            }
            for p in predicates
        ]
        body = (
            "MERGE (p:Predicate {{name: {p}name}}) "
            "SET p.cardinality = {p}cardinality, p.aliases = cast({p}aliases AS STRING[]), "
            "p.inverse = cast({p}inverse AS STRING), p.symmetric = {p}symmetric, "
            "p.description = {p}description"
        )
        self._write_rows(body.format(p="$"), "UNWIND $rows AS row " + body.format(p="row."), rows)

    def load_aliases(self) -> dict[str, str]:
        """Return ``{alias key: entity id}`` for every entity with aliases."""
        rows = self._q("MATCH (e:Entity) WITH e WHERE size(e.aliases) > 0 RETURN e.id, e.aliases")
        return {alias: eid for eid, aliases in rows for alias in aliases}

    def _point_lookups(self, n: int) -> bool:
        """Whether ``n`` ids are read with one point query each rather than one ``UNWIND``.

        An ``UNWIND`` read scans the whole Entity table once (about 0.4 µs an entity), a point
        query costs about 0.5 ms: small batches and big stores go point by point.
        """
        return n <= SMALL_BATCH and n * POINT_VS_SCAN <= self._size + self._grown

    def entity_names(self, ids: Sequence[str]) -> dict[str, str]:
        """Return ``{id: display name}`` for those ids that exist."""
        if self._pending_entities:
            self._materialize()
        return self._names(ids)

    def _names(self, ids: Sequence[str]) -> dict[str, str]:
        unique = list(dict.fromkeys(ids))
        if not unique:
            return {}
        if self._point_lookups(len(unique)):
            query = "MATCH (e:Entity {id: $i}) RETURN e.id, e.name"
            rows = [row for i in unique for row in self._execute(query, {"i": i})]
        else:
            rows = self._execute(
                "UNWIND $ids AS i MATCH (e:Entity {id: i}) RETURN e.id, e.name", {"ids": unique}
            )
        return {r[0]: r[1] for r in rows}

    def get_entity(self, eid: str) -> Entity | None:
        """Return one entity by id, or ``None``."""
        rows = self._q(
            "MATCH (e:Entity {id: $i}) RETURN e.id, e.name, e.kind, e.aliases", {"i": eid}
        )
        if not rows:
            return None
        r = rows[0]
        return Entity(id=r[0], name=r[1], kind=r[2] or "entity", aliases=tuple(r[3] or ()))

    def upsert_entities(self, entities: Sequence[Entity]) -> None:
        """Create missing entities; update kind and aliases of existing ones.

        An existing entity keeps its display name; ``kind="entity"`` and empty aliases leave
        the stored kind and aliases alone.
        """
        if not entities:
            return
        rows = [
            {"id": e.id, "name": e.name, "kind": e.kind, "aliases": list(e.aliases)}
            for e in {e.id: e for e in entities}.values()
        ]
        if self._holding():
            self._pending_ops.append(("upsert", rows, None))
            return
        self._materialize()
        self._upsert(rows)

    def _holding(self) -> bool:
        """Whether logged writes are held back: a transaction that has logged nothing yet."""
        return self._in_tx and not self._logged

    def _run_ops(self, ops: Sequence[tuple[str, list[Any], str | None]]) -> None:
        """Apply held-back writes in their order (live, or from a crash record on open)."""
        for op, rows, at in ops:
            if op == "upsert":
                self._upsert(rows)
            elif op == "bump":
                self._bump(rows, at)
            elif op == "close":
                self._close(rows, at)

    def _upsert(self, rows: Sequence[Mapping[str, Any]]) -> None:
        body = (
            "MERGE (e:Entity {{id: {p}id}}) "
            "ON CREATE SET e.name = {p}name, e.kind = {p}kind, "
            "e.aliases = cast({p}aliases AS STRING[]) "
            "ON MATCH SET e.kind = CASE WHEN {p}kind = 'entity' THEN e.kind ELSE {p}kind END, "
            "e.aliases = CASE WHEN size(cast({p}aliases AS STRING[])) = 0 THEN e.aliases "
            "ELSE cast({p}aliases AS STRING[]) END"
        )
        self._write_rows(body.format(p="$"), "UNWIND $rows AS row " + body.format(p="row."), rows)

    # -- fact versions --------------------------------------------------------------------------

    def current_versions(
        self,
        subject_ids: Sequence[str],
        *,
        pairs: Collection[tuple[str, str]] | None = None,
    ) -> dict[str, list[Fact]]:
        """Return the versions not closed in system time, per subject id.

        With ``pairs`` (``(subject id, predicate)``), only the versions of those pairs: a write
        whose rules look at one predicate of a subject reads a tenth of the rows (converting a
        row costs about 10 µs, issue 18). One prepared point query per subject (or pair) up to
        :data:`SMALL_BATCH`, else one ``UNWIND`` query.
        """
        out: dict[str, list[Fact]] = {s: [] for s in subject_ids}
        if not subject_ids:
            return out
        if pairs is not None:
            return self._current_of_pairs(out, pairs)
        ids = list(out)
        if self._point_lookups(len(ids)):
            query = (
                "MATCH (a:Entity {id: $i})-[r:Fact]->() "
                f"WITH a, r WHERE r.expired_at IS NULL RETURN {_RETURN}"
            )
            for i in ids:
                out[i] = [_fact_from_row(row) for row in self._q(query, {"i": i})]
            return out
        rows = self._q(
            "UNWIND $ids AS i MATCH (a:Entity {id: i})-[r:Fact]->() "
            f"WITH i, a, r WHERE r.expired_at IS NULL RETURN i, {_RETURN}",
            {"ids": ids},
        )
        for row in rows:
            out[row[0]].append(_fact_from_row(row[1:]))
        return out

    def _current_of_pairs(
        self, out: dict[str, list[Fact]], pairs: Collection[tuple[str, str]]
    ) -> dict[str, list[Fact]]:
        wanted = [(s, p) for s, p in dict.fromkeys(pairs) if s in out]
        if self._point_lookups(len(wanted)):
            query = (
                "MATCH (a:Entity {id: $i})-[r:Fact]->() "
                f"WITH a, r WHERE r.predicate = $p AND r.expired_at IS NULL RETURN {_RETURN}"
            )
            for i, p in wanted:
                out[i].extend(_fact_from_row(row) for row in self._q(query, {"i": i, "p": p}))
            return out
        if not wanted:
            return out
        rows = self._q(
            "UNWIND $pairs AS pr MATCH (a:Entity {id: pr.s})-[r:Fact]->() "
            "WITH pr, a, r WHERE r.predicate = pr.p AND r.expired_at IS NULL "
            f"RETURN pr.s, {_RETURN}",
            {"pairs": [{"s": s, "p": p} for s, p in wanted]},
        )
        for row in rows:
            out[row[0]].append(_fact_from_row(row[1:]))
        return out

    def insert_facts(
        self,
        rows: Sequence[tuple[str, str, Fact]],
        *,
        entities: Mapping[str, Entity] | None = None,
    ) -> None:
        """Insert new versions given as ``(subject id, object id, fact)``.

        A missing endpoint is created: from ``entities[id]`` when given, else named after the
        fact's subject or object with kind ``entity``. A batch of at least
        :data:`COPY_THRESHOLD` versions that a COPY writes faster than logged inserts
        (:data:`WRITE_COSTS`; :attr:`copy_policy`) waits for the end of the transaction, where it
        is copied if the transaction logged nothing else (module docstring); other batches are
        logged inserts (:meth:`_insert_rows`).
        """
        if not rows:
            return
        known = entities or {}
        policy = self.copy_policy
        stored = -1
        if len(rows) >= COPY_THRESHOLD and policy != "never":
            stored = self._stored_versions()
        if stored < 0 or (policy == "auto" and not self._copy_pays(len(rows), stored)):
            self._materialize()
            self._insert_rows(rows, known)
            return
        self._pending_into = self._pending_into or ("copy-empty" if stored == 0 else "copy-append")
        if not self._in_tx:
            with self.transaction():
                self.insert_facts(rows, entities=entities)
            return
        if self._logged:
            self._materialize()
            self._insert_rows(rows, known)
            return
        ends = dict.fromkeys(
            i for s, o, _ in rows for i in (s, o) if i not in self._pending_entities
        )
        unnamed = {i for i in ends if i not in known}  # not said to be new: name it after a fact
        names: dict[str, str] = {}
        for s, o, f in rows if unnamed else ():
            if s in unnamed:
                names.setdefault(s, f.subject)
            if o in unnamed:
                names.setdefault(o, f.object)
        wanted = {i: known[i] if i in known else Entity(id=i, name=names[i]) for i in ends}
        existing = self._names(list(wanted))
        self._pending_entities.update({i: e for i, e in wanted.items() if i not in existing})
        self._pending_facts.extend(rows)

    def _copy_pays(self, n: int, stored: int) -> bool:
        """Whether copying ``n`` versions beats logged inserts (:data:`WRITE_COSTS`).

        ``stored``: the versions in the rel table (a COPY into a non-empty one rewrites it).
        """
        if stored == 0:
            return True  # into an empty table, a big batch always goes as a COPY
        row, fixed, per_stored = WRITE_COSTS[self.engine]
        return fixed + stored * per_stored < n * row

    def _insert_rows(
        self, rows: Sequence[tuple[str, str, Fact]], known: Mapping[str, Entity]
    ) -> None:
        """Insert versions with logged writes: one statement each, or one ``UNWIND``.

        Kuzu and small batches go one prepared statement a row, bigger batches on ladybug one
        ``UNWIND`` (0.09 against 0.13 ms a row).

        No NULL parameters in the per-row statements (module docstring). Endpoints given in
        ``known`` are created first when missing (a plain CREATE; a MERGE inside the insert
        costs about 1 ms more a row); the insert itself MATCHes both ends.
        """
        if self._in_tx:
            self._logged = True
        if self.engine != "kuzu" and len(rows) > SMALL_BATCH:
            self.write_paths["unwind"] += 1
            self._insert_unwind(rows, known)
            return
        self.write_paths["rows"] += 1
        ends = {i for s, o, _ in rows for i in (s, o) if i in known}
        if ends:
            existing = self._names(sorted(ends))
            self._create_entities([known[i] for i in sorted(ends) if i not in existing])
        for s, o, f in rows:
            params = {k: v for k, v in _fact_params(f).items() if v is not None}
            cols = tuple(params)
            params["src"], params["dst"] = s, o
            if self._execute(_insert_query(cols, False), params):
                continue
            # An endpoint is missing (the caller did not say it was new): create it, named
            # after the fact.
            params.update(src_name=f.subject, src_kind="entity", dst_name=f.object)
            params["dst_kind"] = "entity"
            self._execute(_insert_query(cols, True), params)

    def _insert_unwind(
        self, rows: Sequence[tuple[str, str, Fact]], known: Mapping[str, Entity]
    ) -> None:
        """Insert versions with one ``UNWIND`` after creating their missing endpoints.

        A missing endpoint not in ``known`` is named after the fact (as the per-row path does).
        On Kuzu 0.11.3 this shape costs as much as one statement a row (0.45-0.58 ms), on
        ladybug 0.09 ms a row.
        """
        ends = dict.fromkeys(i for s, o, _ in rows for i in (s, o))
        existing = self._names(list(ends))
        missing: dict[str, Entity] = {}
        for s, o, f in rows:
            for i, name in ((s, f.subject), (o, f.object)):
                if i not in existing and i not in missing:
                    missing[i] = known[i] if i in known else Entity(id=i, name=name)
        if missing:
            self._create_entities(list(missing.values()))
        data = []
        for s, o, f in rows:
            params = _fact_params(f)
            params["src"], params["dst"] = s, o
            data.append(params)
        self._q(_UNWIND_INSERT, {"rows": data}, write=True)

    def _create_entities(self, entities: Sequence[Entity]) -> None:
        """Create entities known not to exist (plain CREATE: no lookup)."""
        body = (
            "CREATE (:Entity {{id: {p}id, name: {p}name, kind: {p}kind, "
            "aliases: cast({p}aliases AS STRING[])}})"
        )
        self._write_rows(
            body.format(p="$"),
            "UNWIND $rows AS row " + body.format(p="row."),
            [
                {"id": e.id, "name": e.name, "kind": e.kind, "aliases": list(e.aliases)}
                for e in entities
            ],
        )

    def close_versions(
        self, rows: Sequence[tuple[str, str, str | None, str]], *, at: dt.datetime
    ) -> None:
        """Close versions in system time: rows of ``(subject id, fid, superseded_by, reason)``."""
        if not rows:
            return
        data = [[s, f, b, why] for s, f, b, why in rows]
        if self._holding():
            self._pending_ops.append(("close", data, at.isoformat()))
            return
        self._materialize()
        self._close(data, at.isoformat())

    def _close_pointwise(self, n: int) -> bool:
        """Whether ``n`` closes run one statement each rather than one ``UNWIND``.

        Measured at 1M versions: an ``UNWIND`` close costs Kuzu 0.45-0.65 ms a row and
        ladybug 0.45-0.7 ms, a prepared point close 0.65 ms (Kuzu) and 0.13 ms (ladybug); at
        100k versions the ``UNWIND`` costs both 0.07-0.085 ms a row.
        """
        if n <= SMALL_BATCH:
            return True
        return self.engine != "kuzu" and self._size + self._grown >= 50 * n

    def _close(self, rows: Sequence[Sequence[Any]], at_iso: str | None) -> None:
        at = dt.datetime.fromisoformat(at_iso or "")
        body = (
            "MATCH (a:Entity {{id: {p}s}})-[r:Fact]->() "
            "WITH r{w} WHERE r.fid = {p}f AND r.expired_at IS NULL "
            "SET r.expired_at = $at, r.reason = {p}reason{by}"
        )
        by = ", r.superseded_by = cast({p}by AS STRING)"
        if not self._close_pointwise(len(rows)):
            self._q(
                "UNWIND $rows AS row " + body.format(p="row.", w=", row", by=by.format(p="row.")),
                {
                    "rows": [{"s": s, "f": f, "by": b, "reason": why} for s, f, b, why in rows],
                    "at": to_store(at),
                },
                write=True,
            )
            return
        for s, f, b, why in rows:
            # No NULL parameter (module docstring): a current version has no superseded_by yet,
            # so leaving it out equals setting it to NULL.
            params = {"s": s, "f": f, "reason": why, "at": to_store(at)}
            if b is not None:
                params["by"] = b
            query = body.format(p="$", w="", by="" if b is None else by.format(p="$"))
            self._q(query, params, write=True)

    def settle_versions(self, rows: Sequence[tuple[str, str, str]]) -> None:
        """Set the reason of disputed versions: rows of ``(subject id, fid, reason)``.

        Only a version closed at birth (``expired_at = recorded_at``: a dispute, never part of
        any ``known_at`` answer) is touched (docs/concepts/decisions.md#authority-and-disputes).
        """
        if not rows:
            return
        self._materialize()
        for s, f, why in rows:
            self._q(
                "MATCH (a:Entity {id: $s})-[r:Fact]->() WHERE r.fid = $f "
                "AND r.expired_at = r.recorded_at SET r.reason = $reason",
                {"s": s, "f": f, "reason": why},
                write=True,
            )

    def bump_access(self, rows: Sequence[tuple[str, str, int]], *, at: dt.datetime) -> None:
        """Set access counters: rows of ``(subject id, fid, new access_count)``."""
        if not rows:
            return
        data = [[s, f, n] for s, f, n in rows]
        if self._holding():
            self._pending_ops.append(("bump", data, at.isoformat()))
            return
        self._materialize()
        self._bump(data, at.isoformat())

    def _bump(self, rows: Sequence[Sequence[Any]], at_iso: str | None) -> None:
        at = dt.datetime.fromisoformat(at_iso or "")
        body = (
            "MATCH (a:Entity {{id: {p}s}})-[r:Fact]->() WITH r{w} WHERE r.fid = {p}f "
            "SET r.access_count = {p}n, r.last_accessed_at = $at"
        )
        self._write_rows(
            body.format(p="$", w=""),
            "UNWIND $rows AS row " + body.format(p="row.", w=", row"),
            [{"s": s, "f": f, "n": n} for s, f, n in rows],
            {"at": to_store(at)},
        )

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
        """Return versions matching the filters, ordered by subject, predicate, valid_from.

        ``valid_at`` and ``known_at`` apply the closed-open rules of docs/concepts/time.md#rule-3;
        ``current_only`` keeps versions not closed in system time. ``None`` skips a filter.
        """
        params: dict[str, Any] = {}
        source = "(a:Entity {id: $s})" if subject_id else "(a:Entity)"
        if subject_id:
            params["s"] = subject_id
        # The object node is joined only when filtered on.
        target = "(b:Entity)" if object_id is not None else "()"
        conds: list[str] = []
        if predicate is not None:
            conds.append("r.predicate = $p")
            params["p"] = predicate
        if object_id is not None:
            conds.append("b.id = $o")
            params["o"] = object_id
        if known_at is not None:
            conds.append("r.recorded_at <= $k AND (r.expired_at IS NULL OR $k < r.expired_at)")
            params["k"] = to_store(known_at)
        if current_only:
            conds.append("r.expired_at IS NULL")
        if valid_at is not None:
            conds.append("r.valid_from <= $v AND (r.valid_to IS NULL OR $v < r.valid_to)")
            params["v"] = to_store(valid_at)
        carry = "a, r, b" if object_id is not None else "a, r"
        where = f"WITH {carry} WHERE {' AND '.join(conds)} " if conds else ""
        tail = ""
        if limit is not None:
            tail = " LIMIT $limit"
            params["limit"] = limit
        rows = self._q(
            f"MATCH {source}-[r:Fact]->{target} {where}RETURN {_RETURN} "
            f"ORDER BY subject, r.predicate, r.valid_from, r.recorded_at, r.fid{tail}",
            params,
        )
        return [_fact_from_row(r) for r in rows]

    def get_facts(self, fids: Sequence[str]) -> list[Fact]:
        """Return versions by id (a scan: rel properties have no index)."""
        if not fids:
            return []
        rows = self._q(
            f"MATCH (a:Entity)-[r:Fact]->() WITH a, r WHERE r.fid IN $f RETURN {_RETURN}",
            {"f": list(fids)},
        )
        return [_fact_from_row(r) for r in rows]

    def changed_between(self, since: dt.datetime, until: dt.datetime | None) -> list[Fact]:
        """Return versions recorded or closed in system time within ``[since, until)``."""
        params: dict[str, Any] = {"a0": to_store(since)}
        upper = ""
        if until is not None:
            params["a1"] = to_store(until)
            upper = " AND r.recorded_at < $a1"
            upper_e = " AND r.expired_at < $a1"
        else:
            upper_e = ""
        rows = self._q(
            "MATCH (a:Entity)-[r:Fact]->() WITH a, r WHERE "
            f"(r.recorded_at >= $a0{upper}) OR "
            f"(r.expired_at IS NOT NULL AND r.expired_at >= $a0{upper_e}) "
            f"RETURN {_RETURN} ORDER BY r.recorded_at, r.fid",
            params,
        )
        return [_fact_from_row(r) for r in rows]

    def count_versions(self) -> int:
        """Return how many fact versions are stored (current and closed)."""
        return int(self._q("MATCH ()-[r:Fact]->() RETURN count(r)")[0][0])

    def _stored_versions(self) -> int:
        # Not counting deferred rows (only sizes the COPY decision).
        return int(self._execute("MATCH ()-[r:Fact]->() RETURN count(r)", {})[0][0])

    def max_system_time(self) -> dt.datetime | None:
        """Return the newest system-time instant written (a recorded_at or expired_at)."""
        value = self.get_meta("last_write")
        return dt.datetime.fromisoformat(value) if value else None

    def set_max_system_time(self, at: dt.datetime) -> None:
        """Record the newest system-time instant written (the ``last_write`` marker).

        In a transaction whose bulk versions wait for a COPY-only commit, the marker is written
        right after that commit (module docstring).
        """
        if self._in_tx and self._pending_facts and not self._logged:
            self._pending_marker = at.isoformat()
            return
        self._advance_marker(at.isoformat())

    def _advance_marker(self, value: str) -> None:
        """Set ``last_write`` to ``value`` unless it is later already (it never moves back).

        Markers are ISO-8601 UTC strings, which sort like the instants they name.
        """
        self._q(
            "MERGE (m:Meta {key: 'last_write'}) "
            "SET m.value = CASE WHEN m.value IS NULL OR m.value < $v THEN $v ELSE m.value END",
            {"v": value},
            write=True,
        )
