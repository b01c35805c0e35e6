"""Storage engines: the only package that imports Kuzu, ladybug or FalkorDB.

``open_store(path, engine=...)`` returns a store for an embedded Kuzu-family engine. Paths are
files or ``None`` (in memory).
"""

from __future__ import annotations

from graphmem.errors import InvalidInput
from graphmem.store.kuzu_store import ENGINES, KuzuStore

__all__ = ["ENGINES", "KuzuStore", "open_store"]


def open_store(path: str | None, *, engine: str = "kuzu", read_only: bool = False) -> KuzuStore:
    """Open (creating when missing) a graphmem store.

    Raises:
        InvalidInput: unknown engine name.
        StoreBusy: another process holds the database.
        SchemaVersionError: the database was written by another schema version.
    """
    if engine not in ENGINES:
        raise InvalidInput(f"engine={engine!r} is unknown; use one of {sorted(ENGINES)}")
    return KuzuStore(path, engine=engine, read_only=read_only)
