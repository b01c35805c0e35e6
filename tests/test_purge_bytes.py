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
from graphmem.store import open_store
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


@pytest.mark.slow  # a long test: CI's slow family runs it
def test_purge_removes_the_bytes(tmp_path: Path) -> None:
    directory = tmp_path / "store"
    directory.mkdir()
    path = str(directory / "mem.kuzu")
    clock = ManualClock("2026-01-01")
    _build(path, clock)
    assert set(_found(directory, SECRETS)) == set(SECRETS)  # the probe sees them before

    store = open_store(path, engine=ENGINE)
    with gm.open(store=store, clock=clock) as mem:
        clock.advance(days=1)
        summary = mem.purge("Qwzx Purgeme", reason="erasure request")
        assert summary.versions >= 3
        store.checkpoint()
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


# -- a symlinked --db, a killed rebuild, no piles of work directories ------------------------

_PURGE_CHILD = """
import os, signal, sys
import graphmem as gm
from graphmem.audit import purge
from graphmem.timeutil import ManualClock
clock = ManualClock("2026-01-05")
mem = gm.open(sys.argv[1], clock=clock)
print("purging", flush=True)
if sys.argv[2] == "after-commit":
    # The purge commits, then the process dies before the file rebuild starts.
    purge(mem, "Qwzx Purgeme", reason="erasure request")
    os.kill(os.getpid(), signal.SIGKILL)
mem.purge("Qwzx Purgeme", reason="erasure request")
print("done", flush=True)
mem.close()
"""


def _build_facts(path: str, clock: ManualClock) -> None:
    """The store of :func:`_build` without its session (the purge of session text is tested
    above; these tests are about the file swap)."""
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
        mem.add_fact("Qwzx Purgeme", "lives_in", "Paris")
        mem.remember("Qwzx Purgeme is allergic to SECRET-NUTS-4455", subject="Qwzx Purgeme")


def _work_dirs(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith(".graphmem-compact-"))


@pytest.mark.slow  # a long test: CI's slow family runs it
def test_purge_through_a_symlink_rewrites_the_real_file(tmp_path: Path) -> None:
    real_dir = tmp_path / "real"
    real_dir.mkdir()
    link_dir = tmp_path / "links"
    link_dir.mkdir()
    real = real_dir / "mem.kuzu"
    link = link_dir / "mem.kuzu"
    clock = ManualClock("2026-01-01")
    _build_facts(str(real), clock)
    os.symlink(real, link)
    with gm.open(str(link), clock=clock, engine=ENGINE) as mem:
        clock.advance(days=1)
        mem.purge("Qwzx Purgeme", reason="erasure request")
        assert len(mem.facts(predicate="works_at")) == 30  # the reopened store works
    assert link.is_symlink()
    assert os.path.realpath(link) == str(real)
    hits = _found(real_dir, SECRETS)
    assert not hits, f"purged content is still in the real file: {hits}"
    assert _work_dirs(real_dir) == []
    assert _work_dirs(link_dir) == []
    with gm.open(str(real), engine=ENGINE, read_only=True) as a:
        assert not a.facts(subject="Qwzx Purgeme")
        assert len(a.facts(predicate="works_at")) == 30


@pytest.mark.slow
@pytest.mark.parametrize("kill", ["after-commit", 0.1, 0.2, 0.3, 0.6])
def test_a_killed_purge_leaves_no_purged_bytes_after_the_next_open(
    tmp_path: Path, kill: str | float
) -> None:
    import shutil
    import signal
    import subprocess
    import sys
    import time

    if sys.platform == "win32":
        pytest.skip("needs SIGKILL")
    template = tmp_path / "template"
    template.mkdir()
    _build_facts(str(template / "mem.kuzu"), ManualClock("2026-01-01"))
    directory = tmp_path / "store"
    shutil.copytree(template, directory)
    path = str(directory / "mem.kuzu")
    env = {**os.environ, "GRAPHMEM_ENGINE": ENGINE}
    mode = kill if isinstance(kill, str) else "purge"
    proc = subprocess.Popen(
        [sys.executable, "-c", _PURGE_CHILD, path, mode], stdout=subprocess.PIPE, env=env
    )
    assert proc.stdout is not None
    assert proc.stdout.readline() == b"purging\n"
    if isinstance(kill, float):
        time.sleep(kill)
        proc.send_signal(signal.SIGKILL)
    out, _ = proc.communicate(timeout=60)
    finished = b"done" in out
    # a kill can land after the child said "done" and before it exited (a loaded machine)
    assert proc.returncode in ((0, -signal.SIGKILL) if finished else (-signal.SIGKILL,))
    if mode == "after-commit":
        # The dangerous state: the purge is committed, its strings are still in the file.
        with gm.open(path, engine=ENGINE, read_only=True) as mem:
            assert not mem.facts(subject="Qwzx Purgeme")
        assert _found(directory, SECRETS)
    # The next writable open finishes (or redoes) the rebuild before it returns.
    with gm.open(path, engine=ENGINE, clock=ManualClock("2026-01-06")) as mem:
        purged = not mem.facts(subject="Qwzx Purgeme")
        assert len(mem.facts(predicate="works_at")) == 30
        assert check(mem).ok
    assert purged or not finished
    if purged:
        hits = _found(directory, SECRETS)
        assert not hits, f"purged content is still in the store files: {hits}"
    assert _work_dirs(directory) == []
