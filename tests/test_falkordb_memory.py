"""The memory-level suites on a FalkorDB server: the same tests, ``mem`` opened by URL.

The tests of the modules below that take the ``mem`` fixture (and no database path) are
collected here again with ``mem`` opened on a store of its own on the server (``mem_store``,
``open_store(falkordb_url)``, passed in with ``gm.open(store=...)``): the bi-temporal
scenarios, sessions, the audit trail, episodic recall and context give the same answers on
a server as on the embedded store.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Iterator

import pytest

import graphmem as gm
from graphmem.store import open_store
from graphmem.store.base import Store
from graphmem.timeutil import ManualClock

# The slow family (.ci/run): they run on a FalkorDB server.
pytestmark = pytest.mark.slow

SUITES = (
    "test_memory", "test_sessions", "test_audit", "test_episodic", "test_context", "test_admission",
    "test_export", "test_ontology", "test_properties", "test_remember", "test_writes",
    "test_write_paths", "test_extract", "test_reliability", "test_merge_entities", "test_scopes",
)  # fmt: skip
# Not here: test_check (it damages rows with Kuzu Cypher through the store) and hypothesis
# tests (their examples would share one graph; the store-level properties are in
# test_falkordb_store).
#: Fixtures that tie a test to an embedded file or engine: such tests are not repeated here.
_EMBEDDED = {"db_path", "tmp_path", "engine", "monkeypatch"}


@pytest.fixture
def mem_and_store(clock: ManualClock, falkordb_url: str) -> Iterator[tuple[gm.Memory, Store]]:
    """Overrides conftest's: ``mem`` and ``mem_store`` are a graph of this test's own."""
    store = open_store(falkordb_url)
    with gm.open(store=store, clock=clock) as m:
        yield m, store


def _skipper(reason: str) -> object:
    def test() -> None:
        pytest.skip(reason)

    return test


def _collect() -> dict[str, object]:
    found: dict[str, object] = {}
    for suite in SUITES:
        try:
            module = importlib.import_module(suite)
        except ImportError as exc:  # a suite that cannot load here: say so, don't hide it
            found[f"test_suite_loads__{suite[5:]}"] = _skipper(f"{suite} does not import: {exc}")
            continue
        for name, fn in vars(module).items():
            if name != "mem" and "fixture" in type(fn).__name__.lower():
                found.setdefault(name, fn)  # the suite's own fixtures (e.g. test data)
                continue
            if not name.startswith("test_") or not inspect.isfunction(fn):
                continue
            params = set(inspect.signature(fn).parameters)
            if getattr(fn, "is_hypothesis_test", False):
                continue
            if "mem" in params and not params & _EMBEDDED:
                found[f"{name}__{suite[5:]}"] = fn
    return found


globals().update(_collect())
