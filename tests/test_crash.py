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
import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import graphmem as gm
from graphmem.admission import AdmissionPolicy
from graphmem.check import check, versions
from graphmem.cli import cli
from graphmem.store import open_store
from graphmem.store.base import Store
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


def kill_rounds(path: str, rounds: int, seed: int, *, past: int = -1) -> dict[str, int]:
    """Run ``rounds`` kill/reopen/verify rounds on ``path``; return counters for the report.

    With ``past``, rounds go on (up to three times as many) until the store holds more than
    ``past`` batches: a busy machine writes less between kills.
    """
    rng = random.Random(seed)
    ref = Reference()
    reported: set[int] = set()
    last = -1
    stats = Counter[str]()
    child = _spawn(path)
    try:
        for r in range(3 * rounds):
            if r >= rounds and last >= past:
                break
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


@pytest.mark.slow
@pytest.mark.long
def test_kill_rounds(db_path: str) -> None:
    stats = kill_rounds(db_path, rounds=30, seed=7, past=crash_child.BIG_EVERY)
    assert stats["rounds"] >= 30
    assert stats["batches"] > crash_child.BIG_EVERY  # real work, a bulk batch included
    _cli_check(db_path)
    print(f"crash: survived {stats}")


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("part", range(4))
def test_kill_rounds_many(db_path: str, part: int) -> None:
    # 140 rounds as four stores of 35: every round compares the whole store with its replay,
    # so four small stores take half the time of one big one, and the parts run in parallel.
    # The seeds change with every run, so the rounds add up across CI runs.
    stats = kill_rounds(db_path, rounds=35, seed=int(time.time()) + part)
    assert stats["rounds"] == 35
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


# -- every public write --------------------------------------------------------------------------

_UNLIMITED = AdmissionPolicy.unlimited()


def _state(mem: gm.Memory, store: Store) -> tuple[Any, ...]:
    """Everything a write may change, without random ids: versions, sessions, ontology,
    entities and audit records (``store``: the one ``mem`` runs on)."""

    sessions = sorted(
        (s["id"], s["started_at"], s["ended_at"], s["title"], s["text"], s["source"])
        + (tuple(sorted(s["mentions"].items())),)
        for s in store.all_sessions()
    )
    predicates = sorted(
        (p["name"], p["cardinality"], tuple(sorted(p["aliases"]))) for p in store.raw_predicates()
    )
    entities = sorted(
        (e["id"], e["name"], e["kind"], tuple(sorted(e["aliases"]))) for e in store.all_entities()
    )
    audit = sorted((a["action"], a["at"]) for a in store.all_audit())
    return (
        tuple(sorted(_canon(versions(mem)).items(), key=repr)),
        tuple(sessions),
        tuple(predicates),
        tuple(entities),
        tuple(audit),
    )


def _spawn_op(kind: str, path: str, work: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, CHILD, "op", kind, path, work],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _kill_after(
    proc: subprocess.Popen[bytes], start: int, window: float, rng: random.Random
) -> list[int]:
    """Start the child at operation ``start``, SIGKILL it within ``window`` s, return its acks."""
    assert proc.stdin is not None
    try:
        proc.stdin.write(f"{start}\n".encode())
        proc.stdin.flush()
        time.sleep(rng.uniform(0.05, 0.5) if rng.random() < 0.2 else rng.uniform(0.4, 0.6 + window))
        proc.send_signal(signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == -signal.SIGKILL, (
        f"the child exited by itself ({proc.returncode}): {err.decode(errors='replace')[-3000:]}"
    )
    return [int(x) for x in out.decode().split("\n")[:-1] if x.isdigit()]


def _files_hold(folder: str, needle: bytes) -> bool:
    for root, _, files in os.walk(folder):
        for name in files:
            with open(os.path.join(root, name), "rb") as fh:
                if needle in fh.read():
                    return True
    return False


class _StoreKind:
    """Verify a store-state kind: the store must equal the reference after ``top`` or ``top+1``."""

    def __init__(self, kind: str, path: str) -> None:
        self.kind = kind
        self.clock = ManualClock(crash_child.op_time(0))
        self.ref_store = open_store(None, engine=ENGINE)
        self.ref = gm.open(store=self.ref_store, clock=self.clock, admission=_UNLIMITED)
        crash_child.prepare(self.ref, kind)
        self.at = -1  # the reference has applied operations 0..at
        self.snapshot = _state(self.ref, self.ref_store)

    def _advance(self, n: int) -> None:
        while self.at < n:
            self.at += 1
            self.clock.set(crash_child.op_time(self.at))
            crash_child.apply(self.ref, self.kind, self.at, "")
        self.snapshot = _state(self.ref, self.ref_store)

    def verify(self, path: str, top: int, folder: str) -> str:
        """Return ``whole`` (the acked state), ``extra`` (one more op), or ``torn``."""
        store = open_store(path, engine=ENGINE)  # writable: recovery runs, as a user's would
        with gm.open(store=store) as mem:
            have = _state(mem, store)
            report = check(mem)
        assert report.ok, report.format()
        self._advance(top)
        if have == self.snapshot:
            verdict = "whole"
        else:
            self._advance(top + 1)
            verdict = "extra" if have == self.snapshot else "torn"
        if self.kind == "purge":
            for n in range(self.at + 1):
                token = f"secret-purge-{n}-token".encode()
                assert not _files_hold(folder, token), f"purged {token!r} is still on disk"
        return verdict

    def close(self) -> None:
        self.ref.close()


def _export_state(path: str) -> tuple[Any, ...]:
    store = open_store(None, engine=ENGINE)
    with gm.open(store=store) as mem:
        from graphmem.export import import_memory

        import_memory(mem, path)
        return _state(mem, store)


def _file_verdict(kind: str, path: str, work: str, top: int, want: Any, first: int) -> str:
    """Judge a file kind's round (``first``: the first import database no round judged yet;
    the child never touches an earlier one again)."""
    if kind == "export":
        target = os.path.join(work, "export.jsonl")
        if not os.path.exists(target):
            return "whole" if top < 0 else "lost"
        return "whole" if _export_state(target) == want else "torn"
    if kind == "import":
        for n in range(first, top + 1):
            store = open_store(os.path.join(work, f"import-{n}.kuzu"), engine=ENGINE)
            with gm.open(store=store) as mem:
                if _state(mem, store) != want:
                    return "lost"
        nxt = os.path.join(work, f"import-{top + 1}.kuzu")
        if not os.path.exists(nxt):
            return "whole"
        store = open_store(nxt, engine=ENGINE)
        with gm.open(store=store) as mem:
            have = _state(mem, store)
            if mem.count_versions() == 0 and not have[1]:
                shutil.rmtree(nxt, ignore_errors=True) if os.path.isdir(nxt) else os.remove(nxt)
                return "whole"
        return "extra" if have == want else "torn"
    # maintain: the log line is the commit point, the state file is saved after it, and a run
    # reads the state as the log's last whole line brings it forward (``recovered``): a run
    # killed between the two counts. Read the state the same way.
    from graphmem.maintenance import ConsolidateState, maintenance_paths, read_log

    paths = maintenance_paths(path)
    state = ConsolidateState.load(paths.state).recovered(paths.log)
    runs = [dt.datetime.fromisoformat(r["at"]) for r in read_log(paths.log)]
    raw_lines = paths.log.read_bytes().splitlines() if paths.log.exists() else []
    # A kill inside the append can cut its line short (a large write is not one step); the
    # next append starts on a new line and readers skip the cut one (docs/concepts/storage.md).
    cut = [ln for ln in raw_lines if not _parses(ln)]
    assert all(ln.startswith(b'{"') for ln in cut), f"a log line is no record cut short: {cut}"
    assert len(raw_lines) - len(cut) == len(runs), "a whole log line was not read"
    days = [(t - crash_child.BASE).days for t in runs]
    assert days == sorted(days)
    last = -1 if state.last_run_at is None else (state.last_run_at - crash_child.BASE).days
    if last < top:
        print(f"lost: top={top} state={last} days={days[-6:]} cut={len(cut)}")
        return "lost"
    if last > top + 1:
        return "torn"
    # Every run the state records has its log line; at most one more line (a run killed after
    # its line and before its state) may follow.
    if days[: last + 1] != list(range(last + 1)) or len(days) > last + 2:
        return "torn"
    if len(days) == last + 2:
        return "log-ahead"
    return "whole" if last == top else "extra"


def _parses(line: bytes) -> bool:
    try:
        return isinstance(json.loads(line.decode("utf-8")), dict)
    except ValueError:
        return False


def kill_every_write(
    kind: str, folder: str, rounds: int, seed: int, max_window: float = 60.0
) -> Counter[str]:
    """Kill a child running operations of ``kind`` ``rounds`` times; count the verdicts.

    The kill lands within the kind's window (:data:`crash_child.KINDS`), at most
    ``max_window`` seconds after the child was told to start.
    """
    rng = random.Random(seed)
    path = os.path.join(folder, "mem.kuzu")
    work = os.path.join(folder, "work")
    os.makedirs(work, exist_ok=True)
    store = open_store(path, engine=ENGINE)
    with gm.open(store=store, clock=ManualClock(crash_child.BASE), admission=_UNLIMITED) as mem:
        crash_child.prepare(mem, kind)
        want = _state(mem, store)
        if kind == "import":
            from graphmem.export import export_memory

            export_memory(mem, os.path.join(work, "source.jsonl"))
    verifier = None if kind in crash_child.FILE_KINDS else _StoreKind(kind, path)
    stats: Counter[str] = Counter()
    last = -1
    child = _spawn_op(kind, path, work)
    try:
        for _ in range(rounds):
            got = _kill_after(child, last + 1, min(crash_child.KINDS[kind], max_window), rng)
            child = _spawn_op(kind, path, work)  # imports while this round is checked
            assert got == list(range(last + 1, last + 1 + len(got))), got
            top = got[-1] if got else last
            stats["acknowledged"] += len(got)
            stats["rounds"] += 1
            if verifier is not None:
                verdict = verifier.verify(path, top, folder)
            else:
                verdict = _file_verdict(kind, path, work, top, want, last + 1)
            stats[verdict] += 1
            if verdict in ("lost", "torn"):
                break
            last = top + 1 if verdict in ("extra", "log-ahead") else top
    finally:
        child.kill()
        child.communicate()
        if verifier is not None:
            verifier.close()
    return stats


def _report(kind: str, stats: Counter[str]) -> None:
    print(
        f"crash {kind}: {stats['rounds']} kill rounds, {stats['acknowledged']} acknowledged, "
        f"{stats['lost']} lost, {stats['torn']} torn, {stats['extra']} applied unacknowledged, "
        f"{stats['log-ahead']} log line ahead of its state"
    )


#: A killed version COPY can leave a version with no properties: rare (under one in 60 kill
#: rounds), open (docs/concepts/storage.md#known-copy-defect). The other failure of this path,
#: a kill inside the checkpoint before the COPY, is fixed (#checkpoint-base, and
#: test_kill_inside_checkpoint below).
_COPY_DEFECT = pytest.mark.xfail(
    reason="a kill inside Kuzu's version COPY can leave a property-less version edge (rare)",
    strict=False,
)


def _kinds() -> list[object]:
    return [
        pytest.param(k, marks=_COPY_DEFECT) if k == "add_facts_bulk" else k
        for k in sorted(crash_child.KINDS)
    ]


@pytest.mark.slow
@pytest.mark.parametrize("kind", _kinds())
def test_kill_every_public_write(kind: str, tmp_path: Path) -> None:
    stats = kill_every_write(kind, str(tmp_path), rounds=2, seed=16, max_window=1.5)
    _report(kind, stats)
    assert stats["lost"] == 0, dict(stats)
    assert stats["torn"] == 0, dict(stats)
    assert stats["rounds"] == 2


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("kind", _kinds())
def test_kill_every_public_write_many(kind: str, tmp_path: Path) -> None:
    # 12 rounds of each kind per run; seeded by the clock, so the rounds add up across runs
    stats = kill_every_write(kind, str(tmp_path), rounds=12, seed=int(time.time()))
    _report(kind, stats)
    assert stats["lost"] == 0, dict(stats)
    assert stats["torn"] == 0, dict(stats)


# -- a kill inside a checkpoint (docs/concepts/storage.md#checkpoint-base) ---------------------


def _line(proc: subprocess.Popen[bytes], prefix: str) -> tuple[float, str]:
    """Read the child's lines up to the next one starting with ``prefix``; return its time."""
    assert proc.stdout is not None
    while True:
        line = proc.stdout.readline().decode()
        if not line:
            err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
            pytest.fail(f"the child stopped before {prefix!r}: {err[-3000:]}")
        if line.startswith(prefix):
            return time.monotonic(), line


def kill_inside_checkpoint(
    folder: str, rounds: int, seed: int, env: dict[str, str] | None = None
) -> Counter[str]:
    """Kill a child inside the checkpoint that follows a commit of new entities, ``rounds`` times.

    The child (``crash_child.py checkpoint``) commits a batch of new entities, acknowledges
    it, then checkpoints. Each round times one checkpoint, then kills the child at a random
    moment of the next one; the store must open, pass ``graphmem check`` and hold every
    acknowledged batch whole (and at most the one after it).
    """
    rng = random.Random(seed)
    path = os.path.join(folder, "ckpt.kuzu")
    size = crash_child.CKPT_ENTITIES
    stats: Counter[str] = Counter()
    done = 0  # batches in the store
    for r in range(rounds):
        proc = subprocess.Popen(
            [sys.executable, CHILD, "checkpoint", path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=None if env is None else {**os.environ, **env},
        )
        try:
            assert proc.stdin is not None
            proc.stdin.write(f"{done}\n".encode())
            proc.stdin.flush()
            acked, _ = _line(proc, "c ")
            took = _line(proc, "k ")[0] - acked
            _line(proc, "c ")
            time.sleep(rng.uniform(0.0, 1.2 * took))
            proc.send_signal(signal.SIGKILL)
            out, _ = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
        top = done + 2 + sum(1 for x in out.decode().split("\n")[:-1] if x.startswith("c "))
        store = open_store(path, engine=ENGINE)
        with gm.open(store=store) as mem:
            stored = mem.count_versions()
            report = check(mem)
            recovered = store.recovered
            subjects = Counter(f.subject for f in versions(mem))
        assert report.ok, f"round {r}:\n{report.format()}"
        assert stored % size == 0, f"round {r}: {stored} versions, a batch is partial"
        batches = stored // size
        assert top <= batches <= top + 1, f"round {r}: {batches} batches, {top} acknowledged"
        want = Counter(f"ck{b}-{i}" for b in range(batches) for i in range(size))
        assert subjects == want, f"round {r}: the batches are not whole"
        stats["rounds"] += 1
        stats["recovered"] += recovered is not None
        stats["applied unacknowledged"] += batches - top
        done = batches
    return stats


@pytest.mark.slow  # 4 rounds, about 10 s; CI's slow step runs it beside the 15-round one
@pytest.mark.skipif(ENGINE != "kuzu", reason="Kuzu 0.11.3's checkpoint")
def test_kill_inside_checkpoint(tmp_path: Path) -> None:
    stats = kill_inside_checkpoint(str(tmp_path), rounds=4, seed=11)
    print(f"crash checkpoint: {dict(stats)}")
    assert stats["rounds"] == 4


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.skipif(ENGINE != "kuzu", reason="Kuzu 0.11.3's checkpoint")
def test_kill_inside_checkpoint_many(tmp_path: Path) -> None:
    stats = kill_inside_checkpoint(str(tmp_path), rounds=15, seed=int(time.time()))
    print(f"crash checkpoint: {dict(stats)}")
    assert stats["rounds"] == 15
