"""``gm.open(store=...)``: a memory on a store object (docs/api.md#opening-a-memory-on-a-store)."""

from __future__ import annotations

import os
from typing import Any

import pytest

import graphmem as gm
from graphmem.errors import InvalidInput, StoreError
from graphmem.store import open_store
from graphmem.timeutil import ManualClock
from tests.conftest import ENGINE


class CountingStore:
    """A store wrapped to count the change sets it commits (a double a user would write)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.applied = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def apply(self, changes: Any) -> Any:
        self.applied += 1
        return self.inner.apply(changes)


def test_a_memory_runs_on_the_store_it_is_given(db_path: str, clock: ManualClock) -> None:
    store = open_store(db_path, engine=ENGINE)
    with gm.open(store=store, clock=clock) as mem:
        assert mem.path == store.path == db_path
        assert mem.engine == ENGINE
        mem.add_fact("billing", "runs_on", "Laravel", valid_from="2025-01-01")
        mem.add_fact("billing", "runs_on", "Go", valid_from="2025-06-01")
        # Laravel as first believed (closed, kept), Laravel ended at Go's start, and Go
        assert store.count_versions() == 3
        assert [f.object for f in mem.facts(subject="billing")] == ["Go"]
    with gm.open(db_path, clock=clock, engine=ENGINE) as again:  # the store was closed with it
        assert [f.object for f in again.history("billing", "runs_on")] == ["Laravel", "Go"]


def test_every_write_reaches_a_wrapped_store_as_one_change_set(clock: ManualClock) -> None:
    store = CountingStore(open_store(None, engine=ENGINE))
    with gm.open(store=store, clock=clock) as mem:  # type: ignore[arg-type]
        seeded = store.applied  # the default predicates of a new memory: one change set
        mem.add_facts(
            [
                {"subject": "ada", "predicate": p, "object": o, "valid_from": "2024-01-01"}
                for p, o in (("works_at", "Acme"), ("lives_in", "Oslo"))
            ]
        )
        mem.add_fact("ada", "works_at", "Initech", valid_from="2025-01-01")
        assert store.applied == seeded + 2
        assert mem.facts(subject="ada", predicate="works_at")[0].object == "Initech"


def test_closing_the_memory_closes_the_store(clock: ManualClock) -> None:
    store = open_store(None, engine=ENGINE)
    mem = gm.open(store=store, clock=clock)
    mem.close()
    with pytest.raises(StoreError):
        store.count_versions()


def test_a_read_only_store_makes_a_read_only_memory(db_path: str, clock: ManualClock) -> None:
    with gm.open(db_path, clock=clock, engine=ENGINE) as mem:
        mem.add_fact("ada", "works_at", "Acme", valid_from="2024-01-01")
    store = open_store(db_path, engine=ENGINE, read_only=True)
    with gm.open(store=store, clock=clock) as mem:
        assert [f.object for f in mem.facts(subject="ada")] == ["Acme"]
        with pytest.raises(gm.GraphmemError):
            mem.add_fact("ada", "works_at", "Initech", valid_from="2025-01-01")


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"path": "x.kuzu"}, "path='x.kuzu'"),
        ({"engine": "kuzu"}, "engine='kuzu'"),
        ({"read_only": True}, "read_only=True"),
    ],
)
def test_a_store_with_arguments_it_decides_itself_is_refused(
    kwargs: dict[str, Any], named: str, tmp_path: os.PathLike[str]
) -> None:
    store = open_store(None, engine=ENGINE)
    try:
        with pytest.raises(InvalidInput, match=named.replace("(", r"\(")):
            gm.open(store=store, **kwargs)
        assert store.count_versions() == 0  # refused before anything was written or closed
        assert not os.listdir(tmp_path)
    finally:
        store.close()


def test_something_else_than_a_store_is_refused_naming_it() -> None:
    with pytest.raises(InvalidInput, match=r"store='agent\.kuzu' is not a graphmem store"):
        gm.open(store="agent.kuzu")  # type: ignore[arg-type]


def test_one_store_serves_one_open_memory(clock: ManualClock) -> None:
    store = open_store(None, engine=ENGINE)
    first = gm.open(store=store, clock=clock)
    try:
        with pytest.raises(InvalidInput, match="already serves another open Memory"):
            gm.open(store=store, clock=clock)
        first.add_fact("ada", "works_at", "Acme", valid_from="2024-01-01")  # still usable
        assert len(first.facts()) == 1
    finally:
        first.close()


def test_a_memory_runs_on_a_falkordb_store(falkordb_url: str, clock: ManualClock) -> None:
    store = open_store(falkordb_url)
    with gm.open(store=store, clock=clock) as mem:
        assert mem.engine == store.engine == "falkordb"
        mem.add_fact("billing", "runs_on", "Laravel", valid_from="2025-01-01")
        mem.add_fact("billing", "runs_on", "Go", valid_from="2025-06-01")
        assert [f.object for f in mem.facts(subject="billing")] == ["Go"]
        assert store.count_versions() == 3
