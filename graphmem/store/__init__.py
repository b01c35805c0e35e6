"""Storage backends: the only package that imports Kuzu, ladybug or FalkorDB.

The interface is :mod:`graphmem.store.base`; the embedded backend :mod:`graphmem.store.kuzu`,
the server backend :mod:`graphmem.store.falkordb`. ``open_store(path, engine=...)`` returns a
store for an embedded Kuzu-family engine. Paths are files or ``None`` (in memory). The engine
defaults to ``$GRAPHMEM_ENGINE``, else ``kuzu``. A ``falkordb://host:port/graph`` URL opens a
:class:`~graphmem.store.falkordb.FalkorStore` (imported only then); any other ``scheme://`` is
refused.

The engine modules load on first use (``open_store``, or reading ``KuzuBackend``,
``KuzuStore`` or ``ENGINES``), so the CLI starts without them
(docs/api.md#importing-graphmem).
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInput, StoreError

if TYPE_CHECKING:
    from graphmem.store.base import Store
    from graphmem.store.kuzu.backend import KuzuBackend
    from graphmem.store.kuzu.engine import ENGINES, KuzuStore

__all__ = [
    "DEFAULT_ENGINE",
    "DEFAULT_FILE",
    "EMBEDDED_ENGINES",
    "ENGINES",
    "SCHEMES",
    "KuzuBackend",
    "KuzuStore",
    "is_url",
    "open_store",
]

#: The embedded engine used when none is named (``GRAPHMEM_ENGINE`` unset).
DEFAULT_ENGINE = "kuzu"
#: The names of the embedded engines: the keys of ``ENGINES``, known without importing it
#: (the CLI's ``--engine`` choices; a test keeps the two in step).
EMBEDDED_ENGINES = ("kuzu", "ladybug")
#: The file name of a memory nobody named (the CLI's ``~/.graphmem/<DEFAULT_FILE>``).
DEFAULT_FILE = "memory.kuzu"
#: URL schemes of server stores.
SCHEMES = ("falkordb",)
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.\-]*)://")


def is_url(path: object) -> bool:
    """Whether ``path`` is a ``scheme://`` store URL rather than a file path."""
    return isinstance(path, str) and _URL.match(path) is not None


def open_store(path: str | None, *, engine: str | None = None, read_only: bool = False) -> Store:
    """Open (creating when missing) a graphmem store on ``engine`` (``None``: $GRAPHMEM_ENGINE).

    Raises:
        InvalidInput: unknown engine name.
        StoreBusy: another process holds the database.
        SchemaVersionError: the database was written by another schema version.
        StoreError: a URL of an unknown scheme, or the server failed (FalkorDB).
    """
    if isinstance(path, str) and (m := _URL.match(path)):
        scheme = m.group(1).lower()
        if scheme != "falkordb":
            raise StoreError(
                f"store URL scheme {scheme + '://'!r} is unknown; graphmem knows "
                f"{', '.join(s + '://' for s in SCHEMES)} (e.g. falkordb://host:6379/graph) and "
                "file paths for the embedded engines"
            )
        # ``engine`` names an embedded engine (the CLI always passes one): a URL ignores it.
        from graphmem.store.falkordb import FalkorStore

        return FalkorStore(path, read_only=read_only)
    if engine is None:
        engine = os.environ.get("GRAPHMEM_ENGINE") or DEFAULT_ENGINE
    if engine not in EMBEDDED_ENGINES:
        raise InvalidInput(f"engine={engine!r} is unknown; use one of {sorted(EMBEDDED_ENGINES)}")
    from graphmem.store.kuzu.backend import KuzuBackend

    return KuzuBackend(path, engine=engine, read_only=read_only)


_LAZY = {
    "ENGINES": "graphmem.store.kuzu.engine",
    "KuzuBackend": "graphmem.store.kuzu.backend",
    "KuzuStore": "graphmem.store.kuzu.engine",
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:  # a submodule (``from graphmem.store import locks``) is imported
        raise AttributeError(f"module 'graphmem.store' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name]), name)
    globals()[name] = value
    return value
