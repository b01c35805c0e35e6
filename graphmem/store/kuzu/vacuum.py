"""Rewrite a database file from its live rows, so that deleted content leaves the disk.

Kuzu 0.11.3 never overwrites deleted rows: after ``DELETE`` (even after overwriting the values
first) and a ``CHECKPOINT``, the old strings are still in the database file, and the full-text
index keeps their terms (measured, docs/concepts/storage.md#purge). A privacy purge that must remove
the content from the files therefore rebuilds the database: ``EXPORT DATABASE`` (live rows only,
Parquet) into a private work directory next to the file, ``IMPORT DATABASE`` into a fresh file
there, then a rename over the old file.

**Crash safety** (docs/concepts/storage.md#purge). The purge itself commits first, in the old
file, with its audit record; the rebuild follows. What makes a killed rebuild harmless:

- **The rename is the commit point.** Until it, the old file (purge committed, purged strings
  still in its pages) is the database; after it, the rebuilt one. Both are complete databases.
- **A pending rebuild is found from the data, not from files.** The rebuilt file records, in
  its ``compacted_purges`` metadata, how many purge audit records it was rebuilt after. Every
  writable open compares that with the purge records it holds (one small query): more purges
  than compacted ones means a rebuild was cut short (or never started: a kill right after the
  purge's commit), and the open rebuilds the file before it returns. So the purged strings
  are gone from the file once any writable open has succeeded. A read-only open cannot
  rebuild; it leaves the file as it is.
- **Work directories do not pile up.** They are named ``.graphmem-compact-<file name>.<random>``
  in the directory of the real file; a rebuild removes its own when it ends (success or
  failure), and a writable open removes those a killed process left behind (it holds the
  database's lock, so no other process is rebuilding it).
- **A symbolic link is resolved first.** The rename replaces the file the link points to, so
  the link and its target stay one database.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import tempfile
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

from graphmem.errors import StoreError
from graphmem.fileio import fsync_dir
from graphmem.store.kuzu.checkpoint import BASE_SUFFIX
from graphmem.store.kuzu.connection import KuzuConnection


class KuzuStore(Protocol):
    """What a rebuild needs of the store (:class:`graphmem.store.kuzu.engine.KuzuStore`)."""

    executor: KuzuConnection

    @property
    def path(self) -> str | None:
        """The database file (``None``: in memory)."""
        ...

    @property
    def read_only(self) -> bool:
        """Whether the store was opened read-only."""
        ...

    def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Run one query."""
        ...

    def get_meta(self, key: str) -> str | None:
        """Return a metadata value."""
        ...

    def file_swap(self) -> AbstractContextManager[None]:
        """Close the handles, let the caller replace the file, reopen them."""
        ...

    def save_marker(self) -> None:
        """Write the ``last_write`` marker the store kept in memory."""
        ...


_S = TypeVar("_S", bound=KuzuStore)

__all__ = ["PURGES_KEY", "WORK_PREFIX", "compact", "finish_interrupted", "rebuild_pending"]

#: Metadata key: how many purge audit records the file was last rebuilt after.
PURGES_KEY = "compacted_purges"
#: Work directories start with this, then the database file's name.
WORK_PREFIX = ".graphmem-compact-"


def _literal(path: str) -> str:
    """Quote a path for a Cypher string literal (EXPORT/IMPORT take no parameters)."""
    if "'" in path or "\\" in path or "\n" in path:
        raise StoreError(f"cannot compact through the path {path!r}; it needs quoting")
    return f"'{path}'"


def _purges(store: KuzuStore) -> int:
    rows = store.run("MATCH (a:Audit) WHERE a.action = 'purge' RETURN count(a)")
    return int(rows[0][0]) if rows else 0


def rebuild_pending(store: KuzuStore) -> bool:
    """Return whether a purge committed in ``store`` still waits for its file rebuild."""
    if store.path is None:
        return False
    done = store.get_meta(PURGES_KEY)
    try:
        compacted = int(done) if done is not None else 0
    except ValueError:
        compacted = 0
    return _purges(store) > compacted


def _work_dirs(path: str) -> list[str]:
    pattern = os.path.join(
        glob.escape(os.path.dirname(path)), glob.escape(WORK_PREFIX + os.path.basename(path)) + ".*"
    )
    return sorted(glob.glob(pattern))


def finish_interrupted(store: KuzuStore) -> None:
    """Clean up after a rebuild a crash cut short; redo it if a purge is still in the file.

    Called by every writable open of a file database (the store holds the database's lock).

    Raises:
        StoreError: the rebuild failed; the database is unchanged.
    """
    if store.path is None or store.read_only:
        return
    path = os.path.realpath(store.path)
    for work in _work_dirs(path):
        shutil.rmtree(work, ignore_errors=True)
    if rebuild_pending(store):
        _rebuild(store, path)


def compact(store: _S) -> _S:
    """Rebuild the database of ``store`` from its live rows; return the store, reopened.

    The store object is reopened in place on the rebuilt file (the one returned). In-memory
    stores are returned as they are.

    Raises:
        StoreError: the store is read-only or the engine failed; the old file is left intact
            (and the next writable open retries the rebuild).
        StoreBusy: another process grabbed the database while it was being swapped.
    """
    if store.path is None:
        return store
    if store.read_only:
        raise StoreError(f"database {store.path!r} is open read-only; cannot compact it")
    _rebuild(store, os.path.realpath(store.path))
    return store


def _rebuild(store: KuzuStore, path: str) -> None:
    """Export, import into a fresh file, rename it over ``path`` (the real file), reopen."""
    parent = os.path.dirname(path)
    work = tempfile.mkdtemp(prefix=WORK_PREFIX + os.path.basename(path) + ".", dir=parent)
    try:
        if "'" in work or "\\" in work:  # an odd directory name: work in the system temp dir
            shutil.rmtree(work)
            work = tempfile.mkdtemp(prefix="graphmem-compact-")
        dump = os.path.join(work, "export")
        fresh = os.path.join(work, "compact.kuzu")
        purges = _purges(store)
        store.save_marker()  # the copy holds the marker (storage.md#lazy-marker)
        store.run(f"EXPORT DATABASE {_literal(dump)} (format='parquet')")
        mod = store.executor.engine_module
        db = mod.Database(fresh)
        conn = mod.Connection(db)
        try:
            conn.execute(f"IMPORT DATABASE {_literal(dump)}")
            conn.execute(
                "MERGE (m:Meta {key: $k}) SET m.value = $v", {"k": PURGES_KEY, "v": str(purges)}
            )
            conn.execute("CHECKPOINT")
        except RuntimeError as exc:
            raise StoreError(
                f"compacting {path!r} failed: {exc}; the database is unchanged (the next "
                "writable open retries)"
            ) from exc
        finally:
            conn.close()
            db.close()
        if os.path.exists(fresh + ".wal"):
            if os.path.getsize(fresh + ".wal"):
                raise StoreError(
                    f"compacting {path!r} failed: the rebuilt file kept a write-ahead log; the "
                    "database is unchanged"
                )
            os.remove(fresh + ".wal")
        with open(fresh, "rb+") as fh:  # the rebuilt file is on disk before it becomes the db
            os.fsync(fh.fileno())
        # No other process opens the file while it is swapped (storage.md#the-gate).
        with store.file_swap():
            if os.path.exists(path + ".wal"):  # a clean close leaves none; never pair a stale one
                os.remove(path + ".wal")
            if os.path.exists(path + BASE_SUFFIX):  # the copy of the old file (checkpoint.py)
                os.remove(path + BASE_SUFFIX)
            os.replace(fresh, path)  # the commit point
            fsync_dir(parent)
    finally:
        with contextlib.suppress(OSError):
            shutil.rmtree(work)
