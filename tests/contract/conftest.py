"""Fixtures of the store contract suite: one ``store`` per backend, and a reference to compare.

Every test of ``tests/contract`` runs once per backend (``embedded``: ``open_store(None)`` on
``$GRAPHMEM_ENGINE``, else ``kuzu``; ``falkordb``: ``open_store(falkordb_url)``). Tests build
data only through ``store.apply(ChangeSet(...))`` and read only through the protocol; they
branch on ``store.capabilities``, never on engine names.

``pair`` wraps the store under test with a reference embedded store: every change set goes to
both, and :meth:`~tests.contract.helpers.Pair.ask` asserts both answer alike (for the embedded
backend the reference is the store itself, so the answers are only returned).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem.store import open_store

from .helpers import Pair

ENGINE = os.environ.get("GRAPHMEM_ENGINE") or "kuzu"
BACKENDS = ("embedded", "falkordb")


def _unavailable(exc: BaseException) -> bool:
    """Whether opening failed because the backend is not there yet (not because it is wrong)."""
    return isinstance(exc, (ImportError, NotImplementedError))


def _open(where: str | None, read_only: bool = False) -> Any:
    try:
        return open_store(where, engine=ENGINE, read_only=read_only)
    except Exception as exc:
        if _unavailable(exc):
            pytest.skip(f"this backend cannot open a store here: {type(exc).__name__}: {exc}")
        raise


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture
def location(backend: str, request: pytest.FixtureRequest) -> str | None:
    """Where the store lives: ``None`` (in memory) or a FalkorDB URL of a graph of its own."""
    if backend == "falkordb":
        url: str = request.getfixturevalue("falkordb_url")
        return url
    return None


@pytest.fixture
def durable_location(backend: str, request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A location that survives ``close()``: a file for the embedded store, a graph otherwise."""
    if backend == "falkordb":
        url: str = request.getfixturevalue("falkordb_url")
        return url
    return str(tmp_path / "c.kuzu")


@pytest.fixture
def opener() -> Iterator[Callable[..., Any]]:
    """``opener(where, read_only=False)``: open a store (closed at teardown); skips when the
    backend cannot open yet."""
    opened: list[Any] = []

    def open_(where: str | None, read_only: bool = False) -> Any:
        s = _open(where, read_only)
        opened.append(s)
        return s

    yield open_
    for s in reversed(opened):
        with contextlib.suppress(Exception):  # closed already by the test
            s.close()


@pytest.fixture
def store(location: str | None, opener: Callable[[str | None], Any]) -> Any:
    return opener(location)


@pytest.fixture
def pair(backend: str, store: Any, opener: Callable[[str | None], Any]) -> Pair:
    if backend == "embedded":
        return Pair(store, None)
    return Pair(store, opener(None))
