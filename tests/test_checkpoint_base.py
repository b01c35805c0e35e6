"""The copy taken before each Kuzu checkpoint, and its use after a killed checkpoint.

docs/concepts/storage.md#checkpoint-base. The kill itself is in tests/test_crash.py
(``test_kill_inside_checkpoint``); here the torn state is built deterministically: the data
file of a *finished* checkpoint paired with the write-ahead log it merged holds every key the
log inserts, so replaying the log fails exactly as after a killed checkpoint ("Found duplicated
primary key value ..."), and the file before that checkpoint is the copy.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

import graphmem as gm
from graphmem.check import check
from graphmem.errors import StoreError
from graphmem.store import locks, open_store
from graphmem.store.kuzu import checkpoint
from graphmem.store.kuzu.guard import SEAL_SUFFIX

pytestmark = pytest.mark.skipif(
    os.environ.get("GRAPHMEM_ENGINE", "kuzu") != "kuzu", reason="Kuzu 0.11.3's checkpoint"
)


def _rows(tag: str, n: int = 30) -> list[dict[str, str]]:
    return [
        {"subject": f"{tag}-{i}", "predicate": "tag", "object": f"{tag}-o{i}"} for i in range(n)
    ]


def _torn(path: str) -> tuple[bytes, set[str]]:
    """Leave ``path`` as a killed checkpoint can: merged file + its log + the copy before it.

    Returns the log's bytes and the subjects every open must find.
    """
    with gm.open(path) as mem:
        mem.define_predicate("tag", cardinality="many")
        mem.add_facts(_rows("before"))
    shutil.copyfile(path, path + ".before")  # the file as the checkpoint found it
    with gm.open(path) as mem:
        mem.add_facts(_rows("logged"))  # new entities: logged node inserts, committed
        wal = Path(path + ".wal").read_bytes()
        assert wal, "the commit is in the log"
    # The close checkpointed: the file now holds the logged entities and their keys.
    assert not os.path.exists(path + ".wal")
    Path(path + ".wal").write_bytes(wal)
    os.replace(path + ".before", path + checkpoint.BASE_SUFFIX)
    os.remove(path + SEAL_SUFFIX)
    subjects = {f"before-{i}" for i in range(30)} | {f"logged-{i}" for i in range(30)}
    return wal, subjects


def test_replay_error_is_recognised() -> None:
    msg = (
        "Runtime exception: Found duplicated primary key value logged-0, which violates the\n"
        "uniqueness constraint of the primary key column."
    )
    assert checkpoint.replay_failed(msg)
    assert not checkpoint.replay_failed("Runtime exception: Couldn't replay shadow pages")
    assert not checkpoint.replay_failed("IO exception: Cannot open file db.kuzu")


@pytest.mark.slow
def test_a_killed_checkpoint_is_restored_from_its_copy(tmp_path: Path) -> None:
    path = str(tmp_path / "m.kuzu")
    _, subjects = _torn(path)
    store = open_store(path)
    with gm.open(store=store) as mem:
        note = store.recovered
        assert note is not None
        assert "copy taken before that checkpoint was put back" in note
        stored = {f.subject for f in mem.facts(predicate="tag")}
        report = check(mem)
        mem.add_facts(_rows("after", 3))  # keys of the log's entities are not ghosts
    assert stored == subjects
    assert report.ok, report.format()
    assert [p.code for p in report.problems] == ["checkpoint-restored"]  # info: reported
    # The close checkpointed: the copy is gone, the file is whole and sealed.
    assert not os.path.exists(path + checkpoint.BASE_SUFFIX)
    assert not os.path.exists(path + ".wal")
    store = open_store(path, read_only=True)
    with gm.open(store=store) as mem:
        assert store.recovered is None
        assert len(mem.facts(predicate="tag")) == 63


def test_without_a_copy_the_torn_file_is_refused_and_kept(tmp_path: Path) -> None:
    path = str(tmp_path / "m.kuzu")
    wal, _ = _torn(path)
    os.remove(path + checkpoint.BASE_SUFFIX)
    data = Path(path).read_bytes()
    with pytest.raises(StoreError, match="duplicated primary key"):
        gm.open(path)
    assert Path(path + ".wal").read_bytes() == wal
    assert Path(path).read_bytes() == data


def test_a_copy_with_an_empty_log_is_dropped(tmp_path: Path) -> None:
    path = str(tmp_path / "m.kuzu")
    with gm.open(path) as mem:
        mem.add_fact("a", "likes", "b")
    Path(path + checkpoint.BASE_SUFFIX).write_bytes(b"stale")  # a finished checkpoint's copy
    Path(path + checkpoint.BASE_SUFFIX + ".tmp").write_bytes(b"half")  # a killed copy
    Path(path + ".graphmem-restore.tmp").write_bytes(b"half")  # a killed restore
    store = open_store(path)
    with gm.open(store=store) as mem:
        assert store.recovered is None
        assert len(mem.facts(subject="a")) == 1
    assert not os.path.exists(path + checkpoint.BASE_SUFFIX)
    assert not os.path.exists(path + checkpoint.BASE_SUFFIX + ".tmp")
    assert not os.path.exists(path + ".graphmem-restore.tmp")


def test_each_checkpoint_copies_first_and_drops_the_copy(tmp_path: Path) -> None:
    path = str(tmp_path / "m.kuzu")
    seen: list[bool] = []
    store = open_store(path)
    with gm.open(store=store) as mem:
        mem.add_facts(_rows("x", 5))
        conn = store.executor.conn

        def ckpt() -> None:
            seen.append(os.path.exists(path + checkpoint.BASE_SUFFIX))
            conn.execute("CHECKPOINT")

        assert store.executor._ckpt is not None
        store.executor._ckpt.run(ckpt)
        assert seen == [True]
        assert not os.path.exists(path + checkpoint.BASE_SUFFIX)
        store.executor._ckpt.run(ckpt)  # nothing logged since: no copy needed
        assert seen == [True, False]


def test_a_failed_checkpoint_keeps_its_copy_unrefreshed(tmp_path: Path) -> None:
    path = str(tmp_path / "m.kuzu")
    store = open_store(path)
    with gm.open(store=store) as mem:
        mem.add_facts(_rows("x", 5))
        ckpt = store.executor._ckpt
        assert ckpt is not None
        base = path + checkpoint.BASE_SUFFIX

        def fail() -> None:
            raise RuntimeError("disk full")

        with pytest.raises(RuntimeError):
            ckpt.run(fail)
        assert ckpt.keep
        first = Path(base).read_bytes()
        mem.add_facts(_rows("y", 5))
        with pytest.raises(RuntimeError):
            ckpt.run(fail)
        assert Path(base).read_bytes() == first  # the file may hold part of a checkpoint
    assert not os.path.exists(base)  # the close's checkpoint finished


@pytest.mark.slow
def test_no_restore_while_another_process_holds_the_file(tmp_path: Path) -> None:
    import subprocess
    import sys

    from graphmem.errors import StoreBusy

    path = str(tmp_path / "m.kuzu")
    wal, _ = _torn(path)
    data = Path(path).read_bytes()
    holder = subprocess.Popen(  # a POSIX lock, as Kuzu takes one
        [
            sys.executable,
            "-c",
            "import fcntl, sys; f = open(sys.argv[1], 'rb'); fcntl.lockf(f, fcntl.LOCK_SH); "
            "print('ready', flush=True); sys.stdin.read()",
            path,
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == b"ready\n"
        # Linux: refused before the probe (the lock is seen in /proc/locks); else by the restore.
        with pytest.raises(StoreBusy, match=f"in use by process {holder.pid}|has it open"):
            gm.open(path)
        with pytest.raises(StoreBusy, match="another process has it open"):
            checkpoint.restore_base(path)  # and the restore checks the lock itself
    finally:
        holder.communicate(b"")
    assert Path(path).read_bytes() == data
    assert Path(path + ".wal").read_bytes() == wal
    store = open_store(path)  # once it is free, the copy is put back
    with gm.open(store=store):
        assert store.recovered is not None


# -- the gate (docs/concepts/storage.md#the-gate) ----------------------------------------------


def _gate_free(path: str) -> bool:
    """Whether another open file description could take the gate of ``path`` now."""
    import fcntl

    fd = os.open(path + locks.GATE_SUFFIX, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    finally:
        os.close(fd)
    return True


@pytest.mark.skipif(not hasattr(os, "fork"), reason="flock (POSIX)")
def test_checkpoint_and_close_hold_the_gate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = str(tmp_path / "m.kuzu")
    seen: list[tuple[str, bool]] = []
    run = checkpoint.Checkpointer.run

    def spy(self: checkpoint.Checkpointer, ckpt: Any) -> None:
        seen.append(("checkpoint", _gate_free(path)))
        run(self, ckpt)

    monkeypatch.setattr(checkpoint.Checkpointer, "run", spy)
    store = open_store(path)
    with gm.open(store=store) as mem:
        mem.define_predicate("tag", cardinality="many")
        mem.add_facts(_rows("a"))
        assert _gate_free(path)  # between calls, another process may open (and be refused)
        store.checkpoint()
        mem.add_facts(_rows("b"))
    assert seen == [("checkpoint", False), ("checkpoint", False)]  # explicit, then the close's
    assert _gate_free(path)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="flock (POSIX)")
def test_an_open_waits_for_the_gate(tmp_path: Path) -> None:
    import subprocess
    import sys
    import time

    from graphmem.errors import StoreBusy

    path = str(tmp_path / "m.kuzu")
    with gm.open(path) as mem:
        mem.add_fact("api", "runs_on", "Go")
    holder = subprocess.Popen(  # another process inside its checkpoint, for 1.5 s
        [
            sys.executable,
            "-c",
            "import sys, time; from graphmem.store.locks import Gate\n"
            "with Gate(sys.argv[1]).held():\n"
            "    print('ready', flush=True); time.sleep(1.5)",
            path,
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == b"ready\n"
        gate = locks.Gate(path).held(timeout=0.2)
        with pytest.raises(StoreBusy, match=f"checkpointed by process {holder.pid}"):
            gate.__enter__()
        started = time.monotonic()
        with gm.open(path) as mem:  # waits for the gate, then opens
            assert time.monotonic() - started > 0.5
            assert [f.object for f in mem.facts(subject="api")] == ["Go"]
    finally:
        holder.communicate(timeout=60)
    assert holder.returncode == 0
