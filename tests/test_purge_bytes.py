"""Privacy: ``purge`` removes the content from the store files, not only from query answers.

The database directory is searched byte by byte for the purged name and texts after the
purge and a checkpoint (Kuzu keeps deleted strings in its pages until the file is rebuilt).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import graphmem as gm
from graphmem.check import check
from graphmem.store import check as raw
from graphmem.timeutil import ManualClock

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")

pytestmark = pytest.mark.skipif(
    not hasattr(gm.Memory, "purge"), reason="Memory.purge is not available yet"
)

SECRETS = [
    "Qwzx Purgeme",  # the display name
    "qwzx purgeme",  # its normalised key
    "SECRET-TOKEN-998877",  # in a statement
    "SECRET-NUTS-4455",  # in a remembered note (a text entity and a fact)
    "Secretville",  # an object only the purged subject points to
]
KEPT = ["other person 7 works at", "Globex"]


def _files_bytes(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in directory.rglob("*") if p.is_file()}


def _found(directory: Path, needles: list[str]) -> dict[str, list[str]]:
    hits: dict[str, list[str]] = {}
    for name, data in _files_bytes(directory).items():
        for needle in needles:
            for encoded in (needle.encode("utf-8"), needle.encode("utf-16-le")):
                if encoded in data:
                    hits.setdefault(needle, []).append(name)
    return hits


def _build(path: str, clock: ManualClock) -> None:
    with gm.open(path, clock=clock, engine=ENGINE) as mem:
        for i in range(30):
            mem.add_fact(f"Other {i}", "works_at", "Globex", statement=f"other person {i} works at")
        mem.add_fact(
            "Qwzx Purgeme",
            "lives_in",
            "Secretville",
            statement="Qwzx Purgeme has token SECRET-TOKEN-998877",
        )
        clock.advance(days=1)
        mem.add_fact("Qwzx Purgeme", "lives_in", "Paris")  # a closed version too
        mem.remember("Qwzx Purgeme is allergic to SECRET-NUTS-4455", subject="Qwzx Purgeme")
        mem.add_session("met Qwzx Purgeme", started_at=clock(), mentions=["Qwzx Purgeme"])
        mem.context("Qwzx allergic")  # exercise the full-text index on those names


def test_purge_removes_the_bytes(tmp_path: Path) -> None:
    directory = tmp_path / "store"
    directory.mkdir()
    path = str(directory / "mem.kuzu")
    clock = ManualClock("2026-01-01")
    _build(path, clock)
    assert set(_found(directory, SECRETS)) == set(SECRETS)  # the probe sees them before

    with gm.open(path, clock=clock, engine=ENGINE) as mem:
        clock.advance(days=1)
        summary = mem.purge("Qwzx Purgeme", reason="erasure request")
        assert summary.versions >= 3
        raw.checkpoint(mem._store)
        assert not mem.facts(subject="Qwzx Purgeme")
        assert check(mem).ok
        assert len(mem.facts(predicate="works_at")) == 30  # the rest is intact

    hits = _found(directory, SECRETS)
    assert not hits, f"purged content is still in the store files: {hits}"
    assert set(_found(directory, KEPT)) == set(KEPT)
    with gm.open(path, engine=ENGINE, read_only=True) as mem:  # and it still opens
        assert check(mem).ok
        assert len(mem.facts(predicate="works_at")) == 30


def test_purge_in_memory_store(clock: ManualClock) -> None:
    with gm.open(clock=clock, engine=ENGINE) as mem:
        mem.add_fact("Qwzx Purgeme", "lives_in", "Secretville")
        mem.purge("Qwzx Purgeme", reason="erasure request")
        assert not mem.facts(subject="Qwzx Purgeme")
        assert check(mem).ok
