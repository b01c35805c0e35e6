"""Storage engines: the only package that imports Kuzu, ladybug or FalkorDB.

``open_store(path, engine=...)`` returns a store for an embedded Kuzu-family engine. Paths are
files or ``None`` (in memory). The engine defaults to ``$GRAPHMEM_ENGINE``, else ``kuzu``.
"""

from __future__ import annotations

import os

from graphmem.errors import InvalidInput
from graphmem.store.kuzu_store import ENGINES, KuzuStore

__all__ = ["ENGINES", "KuzuStore", "open_store"]


def open_store(
    path: str | None, *, engine: str | None = None, read_only: bool = False
) -> KuzuStore:
    """Open (creating when missing) a graphmem store on ``engine`` (``None``: $GRAPHMEM_ENGINE).

    Raises:
        InvalidInput: unknown engine name.
        StoreBusy: another process holds the database.
        SchemaVersionError: the database was written by another schema version.
    """
    if engine is None:
        engine = os.environ.get("GRAPHMEM_ENGINE") or "kuzu"
    if engine not in ENGINES:
        raise InvalidInput(f"engine={engine!r} is unknown; use one of {sorted(ENGINES)}")
    return KuzuStore(path, engine=engine, read_only=read_only)
