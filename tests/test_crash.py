"""Crash safety for real: SIGKILL a writing process at random moments, many times.

A child process (tests/crash_child.py) writes deterministic batches, one ``add_facts`` call
each, and prints a batch number only after ``add_facts`` returned. After every kill the store
is reopened and compared, version by version, with a reference memory that replayed exactly
the batches that are in the store: every reported batch must be there, complete, no batch may
be partial, and ``graphmem check`` must pass. Some kills land while the child is still
opening the store (recovering the previous crash's write-ahead log).
"""

from __future__ import annotations

import datetime as dt
import os
import random
import select
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import graphmem as gm
from graphmem.check import check, versions
from graphmem.cli import cli
from graphmem.timeutil import ManualClock

sys.path.insert(0, str(Path(__file__).parent))
import crash_child  # noqa: E402

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs SIGKILL")

CHILD = str(Path(__file__).with_name("crash_child.py"))
ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


def _canon(facts: list[gm.Fact]) -> Counter[tuple[Any, ...]]:
    """Version contents without the random ids (successor links are checked by check())."""
    return Counter(
        (
            f.subject,
            f.predicate,
            f.object,
            f.valid_from,
            f.valid_to,
            f.recorded_at,
            f.expired_at,
            f.source,
            f.statement,
            f.reason,
            f.superseded_by is not None,
        )
        for f in facts
    )


class Reference:
    """An in-memory memory that replays the same batches as the child."""

    def __init__(self) -> None:
        self.clock = ManualClock(crash_child.batch_time(0))
        self.mem = gm.open(clock=self.clock, engine=ENGINE)
        crash_child.setup(self.mem)
        self.done = -1

    def advance(self, n: int) -> None:
        while self.done < n:
            self.done += 1
            self.clock.set(crash_child.batch_time(self.done))
            self.mem.add_facts(crash_child.batch_rows(self.done))


def _spawn(path: str) -> subprocess.Popen[bytes]:
    """Start a child that imports graphmem, then waits for its first batch number."""
    return subprocess.Popen(
        [sys.executable, CHILD, path, "-"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _run_child(proc: subprocess.Popen[bytes], start: int, rng: random.Random) -> list[int]:
    """Let the child write from ``start``, SIGKILL it at a random moment, return its reports."""
    assert proc.stdin is not None
    assert proc.stdout is not None
    try:
        proc.stdin.write(f"{start}\n".encode())
        proc.stdin.flush()
        if rng.random() < 0.3:
            # Kill during start-up: open, write-ahead-log recovery, first batch.
            time.sleep(rng.uniform(0.0, 0.3))
        else:
            ready, _, _ = select.select([proc.stdout], [], [], 30)
            assert ready, "the child did not open the store within 30 s"
            # Mostly short runs; sometimes long enough for a bulk batch to commit.
            time.sleep(rng.uniform(0.0, 0.35) if rng.random() < 0.85 else rng.uniform(0.5, 1.5))
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == -signal.SIGKILL, (
        f"the child exited by itself ({proc.returncode}): {err.decode(errors='replace')}"
    )
    lines = out.decode().split("\n")[:-1]  # only complete lines
    return [int(x) for x in lines if x.isdigit()]


def _last_batch(facts: list[gm.Fact]) -> int:
    if not facts:
        return -1
    return crash_child.batch_number(max(f.recorded_at for f in facts))


def kill_rounds(path: str, rounds: int, seed: int) -> dict[str, int]:
    """Run ``rounds`` kill/reopen/verify rounds on ``path``; return counters for the report."""
    rng = random.Random(seed)
    ref = Reference()
    reported: set[int] = set()
    last = -1
    stats = Counter[str]()
    child = _spawn(path)
    try:
        for r in range(rounds):
            got = _run_child(child, last + 1, rng)
            child = _spawn(path)  # imports while this round is checked
            assert got == list(range(last + 1, last + 1 + len(got))), got
            reported |= set(got)
            read_only = r % 3 == 2 and last >= 0  # also recover through a read-only open
            with gm.open(path, engine=ENGINE, read_only=read_only) as mem:
                stored = versions(mem)
                report = check(mem)
            n = _last_batch(stored)
            top = max(reported, default=-1)
            assert n >= top, f"round {r}: batch {top} was reported but the store ends at {n}"
            assert n <= max(top, last) + 1, f"round {r}: store ends at {n}, never started"
            ref.advance(n)
            want = _canon(versions(ref.mem))
            have = _canon(stored)
            if have != want:
                bad = sorted(
                    {crash_child.batch_number(k[5]) for k in (have - want) + (want - have)}
                )
                pytest.fail(f"round {r}: batches {bad} differ from their replay (partial write)")
            assert report.ok, f"round {r}:\n{report.format()}"
            stats["rounds"] += 1
            stats["committed_not_reported"] += n - top
            stats["startup_kills"] += not got
            last = n
        stats["batches"] = last + 1
        stats["versions"] = len(stored)
    finally:
        child.kill()
        child.communicate()
        ref.mem.close()
    return dict(stats)


def _cli_check(path: str) -> None:
    from click.testing import CliRunner

    result = CliRunner().invoke(cli, ["--db", path, "--engine", ENGINE, "check", "--json"])
    assert result.exit_code == 0, result.output


def test_kill_rounds(db_path: str) -> None:
    stats = kill_rounds(db_path, rounds=30, seed=7)
    assert stats["rounds"] == 30
    assert stats["batches"] > crash_child.BIG_EVERY  # real work, a bulk batch included
    _cli_check(db_path)
    print(f"crash: survived {stats}")


@pytest.mark.slow
def test_kill_rounds_many(db_path: str) -> None:
    stats = kill_rounds(db_path, rounds=200, seed=int(time.time()))
    assert stats["rounds"] == 200
    _cli_check(db_path)
    print(f"crash: survived {stats}")


@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.05, 0.15, 0.4])
def test_kill_mid_bulk_copy(tmp_path: Path, delay: float) -> None:
    """A kill while a bulk (COPY) batch is in flight leaves all of it or none of it."""
    path = str(tmp_path / "bulk.kuzu")
    big = crash_child.BIG_EVERY - 1
    ref = Reference()
    try:
        ref.advance(big - 1)
        clock = ManualClock(crash_child.batch_time(0))
        with gm.open(path, engine=ENGINE, clock=clock) as mem:
            crash_child.setup(mem)
            for n in range(big):
                clock.set(crash_child.batch_time(n))
                mem.add_facts(crash_child.batch_rows(n))
        proc = subprocess.Popen([sys.executable, CHILD, path, str(big)], stdout=subprocess.PIPE)
        assert proc.stdout is not None
        assert proc.stdout.readline() == b"ready\n"
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        with gm.open(path, engine=ENGINE) as mem:
            stored = versions(mem)
            report = check(mem)
        n = _last_batch(stored)
        assert n >= big - 1
        ref.advance(n)
        assert _canon(stored) == _canon(versions(ref.mem))
        assert report.ok, report.format()
    finally:
        ref.mem.close()


def test_batch_times_are_exact() -> None:
    t = crash_child.batch_time(12)
    assert crash_child.batch_number(t) == 12
    assert t.tzinfo is not None
    assert t - crash_child.BASE == dt.timedelta(seconds=12)
