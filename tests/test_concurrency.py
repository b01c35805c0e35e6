"""Two processes on one store: it works, or the second gets a clear StoreBusy. Never a hang.

Real subprocesses with timeouts (docs/concurrency.md describes the behaviour). Kuzu 0.11.3
allows one process that writes, or any number that only read, not both; inside one process a
second handle on a path that is open for writing is refused too (it would lose writes).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from click.testing import CliRunner

import graphmem as gm
from graphmem.check import check
from graphmem.cli import cli
from graphmem.errors import StoreBusy

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
CHILD = str(Path(__file__).with_name("crash_child.py"))
TIMEOUT = 60  # seconds; a hang fails the test instead of blocking the run

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX process tests"),
    pytest.mark.skipif(ENGINE != "kuzu", reason="ladybug 0.22 lets readers join a writer"),
]


@contextmanager
def holder(path: str, mode: str) -> Iterator[subprocess.Popen[bytes]]:
    """Run a process that holds ``path`` open (``write`` or ``read``) until the block ends."""
    proc = subprocess.Popen(
        [sys.executable, CHILD, "hold", path, mode],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line == b"ready\n", proc.stderr.read() if proc.stderr else line
        yield proc
    finally:
        proc.communicate(timeout=TIMEOUT)  # closes stdin: the holder closes the store and exits
        assert proc.returncode in (0, -signal.SIGKILL)


def graphmem(path: str, *args: str) -> subprocess.CompletedProcess[str]:
    """Run the real CLI in a subprocess (with a timeout: no hang)."""
    return subprocess.run(
        [sys.executable, "-m", "graphmem", "--db", path, *args],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def _assert_busy(result: subprocess.CompletedProcess[str], path: str, pid: int) -> None:
    assert result.returncode == 1, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr  # one line, no traceback
    assert lines[0].startswith("Error: StoreBusy: ")
    assert path in lines[0]
    assert f"process {pid}" in lines[0]  # names the holder
    assert "read_only" in lines[0] or "--read-only" in lines[0]  # and what to do


def _make_store(path: str) -> None:
    with gm.open(path, engine=ENGINE) as mem:
        mem.add_fact("api", "runs_on", "Go")


@pytest.mark.slow
def test_cli_while_another_process_writes(db_path: str) -> None:
    _make_store(db_path)
    with holder(db_path, "write") as proc:
        _assert_busy(graphmem(db_path, "add", "api", "runs_on", "Rust"), db_path, proc.pid)
        busy = graphmem(db_path, "facts")  # reads open read-only: still refused
        _assert_busy(busy, db_path, proc.pid)
        as_json = json.loads(graphmem(db_path, "facts", "--json").stderr)  # errors as JSON
        assert as_json["type"] == "StoreBusy"
        assert f"process {proc.pid}" in as_json["error"]
        assert "writing" in busy.stderr
        _assert_busy(graphmem(db_path, "--read-only", "check"), db_path, proc.pid)
    # The holder closed: everything works again, nothing was lost or corrupted.
    done = graphmem(db_path, "add", "api", "runs_on", "Rust", "--json")
    assert done.returncode == 0, done.stderr
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        assert [f.object for f in mem.facts(subject="api")] == ["Rust"]
        assert mem.facts(subject="holder")
        assert check(mem).ok


def test_readers_share_and_a_writer_is_refused(db_path: str) -> None:
    _make_store(db_path)
    with holder(db_path, "read") as proc:
        listed = graphmem(db_path, "--read-only", "facts", "--json")
        assert listed.returncode == 0, listed.stderr
        assert [f["object"] for f in json.loads(listed.stdout)] == ["Go"]
        assert graphmem(db_path, "check").returncode == 0  # check opens read-only
        with gm.open(db_path, engine=ENGINE, read_only=True) as mem:  # a reader in this process
            assert len(mem.facts()) == 1
        refused = graphmem(db_path, "add", "api", "runs_on", "Rust")
        _assert_busy(refused, db_path, proc.pid)
        assert "reading" in refused.stderr
        with pytest.raises(StoreBusy, match=f"process {proc.pid}"):
            gm.open(db_path, engine=ENGINE)


@pytest.mark.slow
def test_two_writers_take_turns(db_path: str) -> None:
    _make_store(db_path)
    procs = [
        subprocess.Popen(
            [sys.executable, CHILD, "writer", db_path, name, "5"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for name in ("w1", "w2")
    ]
    outs = [p.communicate(timeout=TIMEOUT * 2) for p in procs]
    for p, (out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err
        assert out.startswith("done ")
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        for name in ("w1", "w2"):
            assert sorted(f.object for f in mem.facts(subject=name)) == sorted(
                f"{name}-{i}" for i in range(5)
            )
        assert check(mem).ok


@pytest.mark.slow
def test_lock_dies_with_a_killed_holder(db_path: str) -> None:
    _make_store(db_path)
    with holder(db_path, "write") as proc:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=TIMEOUT)
    with gm.open(db_path, engine=ENGINE) as mem:
        mem.add_fact("api", "runs_on", "Rust")
        assert mem.facts(subject="holder")  # the holder's committed write survived
        assert check(mem).ok


def test_second_handle_in_one_process_is_refused(db_path: str) -> None:
    # Kuzu's file lock does not stop a second Database in the same process; the two handles
    # then lose each other's writes. graphmem refuses the second handle.
    with gm.open(db_path, engine=ENGINE) as mem:
        mem.add_fact("api", "runs_on", "Go")
        with pytest.raises(StoreBusy, match="already open for writing in this process"):
            gm.open(db_path, engine=ENGINE)
        with pytest.raises(StoreBusy):
            gm.open(db_path, engine=ENGINE, read_only=True)
        result = CliRunner().invoke(cli, ["--db", db_path, "add", "api", "runs_on", "Rust"])
        assert result.exit_code == 1
        assert "StoreBusy" in result.output
        assert result.output.count("\n") == 1
    with (
        gm.open(db_path, engine=ENGINE, read_only=True) as a,
        gm.open(db_path, engine=ENGINE, read_only=True) as b,
    ):
        assert a.facts() == b.facts()
        with pytest.raises(StoreBusy, match="read-only"):
            gm.open(db_path, engine=ENGINE)
    with gm.open(db_path, engine=ENGINE) as mem:  # every handle closed: open again
        assert [f.object for f in mem.facts()] == ["Go"]


def test_read_only_refuses_writes_clearly(db_path: str) -> None:
    _make_store(db_path)
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        with pytest.raises(gm.StoreError, match="read-only"):
            mem.add_fact("api", "runs_on", "Rust")
        with pytest.raises(gm.StoreError, match="read-only"):
            mem.retract("api", "runs_on")
    result = graphmem(db_path, "--read-only", "add", "api", "runs_on", "Rust")
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0
    assert "read-only" in result.stderr


def test_unclosed_handle_is_released_when_collected(db_path: str) -> None:
    import gc

    mem = gm.open(db_path, engine=ENGINE)
    mem.add_fact("api", "runs_on", "Go")
    del mem
    gc.collect()
    with gm.open(db_path, engine=ENGINE) as again:
        assert again.facts()
