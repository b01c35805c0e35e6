"""Rewrite a database file from its live rows, so that deleted content leaves the disk.

Kuzu 0.11.3 never overwrites deleted rows: after ``DELETE`` (even after overwriting the values
first) and a ``CHECKPOINT``, the old strings are still in the database file, and the full-text
index keeps their terms (measured for issue #7). A privacy purge that must remove the content
from the files therefore rebuilds the database: ``EXPORT DATABASE`` (live rows only, Parquet)
into a private temporary directory next to it, ``IMPORT DATABASE`` into a fresh file, then an
atomic rename over the old file. A crash before the rename leaves the old file (the purge is
already committed in it) and a temporary directory; after it, the new file.
"""

from __future__ import annotations

import os
import shutil
import tempfile

from graphmem.errors import StoreError
from graphmem.store.kuzu_store import KuzuStore

__all__ = ["compact"]


def _literal(path: str) -> str:
    """Quote a path for a Cypher string literal (EXPORT/IMPORT take no parameters)."""
    if "'" in path or "\\" in path or "\n" in path:
        raise StoreError(f"cannot compact through the path {path!r}; it needs quoting")
    return f"'{path}'"


def compact(store: KuzuStore) -> KuzuStore:
    """Rebuild the database of ``store`` from its live rows; return the reopened store.

    ``store`` is closed (and must not be used afterwards). In-memory stores are returned as
    they are.

    Raises:
        StoreError: the store is read-only or the engine failed; the old file is left intact.
        StoreBusy: another process grabbed the database while it was being swapped.
    """
    if store.path is None:
        return store
    if store.read_only:
        raise StoreError(f"database {store.path!r} is open read-only; cannot compact it")
    path = os.path.abspath(store.path)
    parent = os.path.dirname(path)
    work = tempfile.mkdtemp(prefix=".graphmem-compact-", dir=parent)
    try:
        if "'" in work or "\\" in work:  # an odd directory name: work in the system temp dir
            shutil.rmtree(work)
            work = tempfile.mkdtemp(prefix="graphmem-compact-")
        dump = os.path.join(work, "export")
        fresh = os.path.join(work, "compact.kuzu")
        store.run(f"EXPORT DATABASE {_literal(dump)} (format='parquet')")
        mod = store._mod
        db = mod.Database(fresh)
        conn = mod.Connection(db)
        try:
            conn.execute(f"IMPORT DATABASE {_literal(dump)}")
        except RuntimeError as exc:
            raise StoreError(
                f"compacting {path!r} failed: {exc}; the database is unchanged"
            ) from exc
        finally:
            conn.close()
            db.close()
        engine = store.engine
        store.close()
        if os.path.exists(path + ".wal"):  # a clean close leaves none; never pair a stale one
            os.remove(path + ".wal")
        if os.path.exists(fresh + ".wal"):
            os.remove(fresh + ".wal")
        os.replace(fresh, path)
        return KuzuStore(path, engine=engine)
    finally:
        shutil.rmtree(work, ignore_errors=True)
