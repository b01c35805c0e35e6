"""Tests for graphmem.maintenance: due rule, atomic state file, run log, path convention."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import graphmem as gm
from graphmem.errors import InvalidInput
from graphmem.maintenance import (
    MIN_INTERVAL,
    MIN_NEW_SESSIONS,
    ConsolidateState,
    MaintenancePaths,
    append_log,
    maintenance_paths,
    read_log,
)

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 6, 10, 9, 30, tzinfo=UTC)
H = dt.timedelta(hours=1)


# --- is_due -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("elapsed", "sessions_now", "due"),
    [
        (dt.timedelta(hours=23, minutes=59), 20, False),  # 10 new sessions, 1 minute short
        (24 * H, 14, False),  # 4 new sessions
        (24 * H, 15, True),  # 5 new sessions
        (24 * H + dt.timedelta(microseconds=1), 15, True),
        (24 * H - dt.timedelta(microseconds=1), 15, False),
        (100 * H, 16, True),
        (100 * H, 10, False),  # no new sessions
        (100 * H, 3, False),  # fewer sessions than at the last run
        (-1 * H, 100, False),  # clock moved back
    ],
)
def test_is_due_needs_both_time_and_sessions(
    elapsed: dt.timedelta, sessions_now: int, due: bool
) -> None:
    state = ConsolidateState(T0, 10)
    assert state.is_due(now=T0 + elapsed, session_count=sessions_now) is due


@pytest.mark.parametrize("sessions", [0, 1, 4, 5, 50])
def test_never_ran_is_due_whatever_the_session_count(sessions: int) -> None:
    # Synthesis: a state that never ran is due; the thresholds apply from the first run on.
    assert ConsolidateState().is_due(now=T0, session_count=sessions)
    assert ConsolidateState().is_due(
        now=T0, session_count=sessions, min_interval=1000 * H, min_new_sessions=1000
    )


def test_the_first_run_starts_the_thresholds() -> None:
    assert ConsolidateState().is_due(now=T0, session_count=2)
    after = ConsolidateState(T0, 2)  # what maintain --auto saves after that run
    assert not after.is_due(now=T0 + 48 * H, session_count=6)  # 4 new sessions
    assert after.is_due(now=T0 + 48 * H, session_count=7)


def test_thresholds_are_configurable() -> None:
    state = ConsolidateState(T0, 0)
    assert MIN_INTERVAL == 24 * H
    assert MIN_NEW_SESSIONS == 5
    assert state.is_due(now=T0 + H, session_count=1, min_interval=H, min_new_sessions=1)
    assert not state.is_due(now=T0 + H, session_count=1, min_interval=2 * H, min_new_sessions=1)


def test_is_due_compares_instants_across_timezones() -> None:
    tokyo = dt.timezone(dt.timedelta(hours=9))
    state = ConsolidateState(T0.astimezone(tokyo), 0)
    assert state.last_run_at == T0
    assert state.last_run_at is not None
    assert state.last_run_at.tzinfo is UTC
    assert state.is_due(now=T0 + 24 * H, session_count=5)


@pytest.mark.parametrize(
    "make",
    [
        lambda: ConsolidateState(dt.datetime(2026, 6, 10), 0),  # naive
        lambda: ConsolidateState(T0, -1),
        lambda: ConsolidateState(T0, True),  # a bool is not a count
        lambda: ConsolidateState().is_due(now=dt.datetime(2026, 6, 10), session_count=5),
        lambda: ConsolidateState().is_due(now=T0, session_count=-5),
    ],
)
def test_bad_values_raise_invalid_input(make: object) -> None:
    with pytest.raises(InvalidInput):
        make()  # type: ignore[operator]


@given(
    last=st.integers(0, 10_000).map(lambda m: T0 + dt.timedelta(minutes=m)),
    elapsed=st.integers(-10_000, 10_000).map(lambda m: dt.timedelta(minutes=m)),
    base=st.integers(0, 100),
    new=st.integers(-10, 100),
)
def test_is_due_is_exactly_the_dual_threshold(
    last: dt.datetime, elapsed: dt.timedelta, base: int, new: int
) -> None:
    count = max(base + new, 0)
    due = ConsolidateState(last, base).is_due(now=last + elapsed, session_count=count)
    assert due is (elapsed >= MIN_INTERVAL and count - base >= MIN_NEW_SESSIONS)


def test_state_is_frozen() -> None:
    state = ConsolidateState(T0, 3)
    with pytest.raises(AttributeError):
        state.session_count = 4  # type: ignore[misc]
    assert state == ConsolidateState(last_run_at=T0, session_count=3)
    assert not state.never_ran
    assert ConsolidateState().never_ran


# --- load / save ------------------------------------------------------------------------------


def test_save_then_load_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "agent.kuzu.maintain.json"
    state = ConsolidateState(T0, 42)
    state.save(path)
    assert ConsolidateState.load(path) == state
    assert json.loads(path.read_text()) == {
        "version": 1,
        "last_run_at": "2026-06-10T09:30:00+00:00",
        "session_count": 42,
    }
    ConsolidateState().save(str(path))  # str paths too; overwrite
    assert ConsolidateState.load(str(path)) == ConsolidateState()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temp file left


def test_missing_file_means_never_ran(tmp_path: Path) -> None:
    assert ConsolidateState.load(tmp_path / "nope.json") == ConsolidateState()


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"{",
        b"\xff\xfe garbage",
        b"null",
        b"[]",
        b'{"last_run_at": "2026-06-10T09:30:00+00:00", "session_count": 3}',  # no version
        b'{"version": 2, "last_run_at": null, "session_count": 3}',
        b'{"version": 1, "last_run_at": "yesterday", "session_count": 3}',
        b'{"version": 1, "last_run_at": "2026-06-10T09:30:00", "session_count": 3}',  # naive
        b'{"version": 1, "last_run_at": 12, "session_count": 3}',
        b'{"version": 1, "last_run_at": null, "session_count": -3}',
        b'{"version": 1, "last_run_at": null, "session_count": "3"}',
        b'{"version": 1, "last_run_at": null, "session_count": true}',
        b'{"version": 1, "last_run_at": null}',
    ],
)
def test_corrupt_file_means_never_ran(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "state.json"
    path.write_bytes(content)
    assert ConsolidateState.load(path) == ConsolidateState()
    # ... and a state that never ran is due, even with no session at all.
    assert ConsolidateState.load(path).is_due(now=T0, session_count=0)


def test_a_missing_state_file_is_due(tmp_path: Path) -> None:
    assert ConsolidateState.load(tmp_path / "nope.json").is_due(now=T0, session_count=0)


def test_crash_before_rename_leaves_old_state_intact(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    old = ConsolidateState(T0, 7)
    old.save(path)
    before = path.read_bytes()
    seen: list[str] = []

    def crash(src: str, dst: str) -> None:
        # The temp file is complete and next to the target when the rename would happen.
        seen.append(src)
        assert Path(src).parent == tmp_path
        assert ConsolidateState.load(src) == ConsolidateState(T0 + 48 * H, 20)
        raise OSError("simulated crash before rename")

    with pytest.raises(OSError, match="simulated crash"):
        ConsolidateState(T0 + 48 * H, 20).save(path, replace=crash)

    assert path.read_bytes() == before
    assert ConsolidateState.load(path) == old
    assert seen
    assert not Path(seen[0]).exists()  # temp file cleaned up
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_crash_on_first_save_leaves_no_state(tmp_path: Path) -> None:
    path = tmp_path / "state.json"

    def crash(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        ConsolidateState(T0, 5).save(path, replace=crash)
    assert list(tmp_path.iterdir()) == []
    assert ConsolidateState.load(path).never_ran


def test_save_uses_the_replace_seam(tmp_path: Path) -> None:
    calls: list[tuple[str, str]] = []

    def recording_replace(src: str, dst: str) -> None:
        calls.append((src, dst))
        os.replace(src, dst)

    path = tmp_path / "state.json"
    ConsolidateState(T0, 1).save(path, replace=recording_replace)
    assert calls == [(calls[0][0], str(path))]
    assert ConsolidateState.load(path) == ConsolidateState(T0, 1)


def test_save_into_missing_directory_raises(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        ConsolidateState(T0, 1).save(tmp_path / "missing" / "state.json")


# --- log --------------------------------------------------------------------------------------


def test_append_log_writes_one_json_line_per_run(tmp_path: Path) -> None:
    log = tmp_path / "m.log.jsonl"
    append_log(log, {"ran_at": T0, "topics": 3, "note": "two\nlines"})
    append_log(str(log), {"ran_at": T0 + H, "skipped": True, "paths": {tmp_path}})
    lines = log.read_text().splitlines()
    assert len(lines) == 2
    assert json.loads(lines[0]) == {
        "note": "two\nlines",
        "ran_at": "2026-06-10T09:30:00+00:00",
        "topics": 3,
    }
    assert read_log(log)[1] == {
        "paths": [str(tmp_path)],
        "ran_at": "2026-06-10T10:30:00+00:00",
        "skipped": True,
    }


def test_append_log_after_a_torn_line_starts_a_new_line(tmp_path: Path) -> None:
    log = tmp_path / "m.log.jsonl"
    append_log(log, {"run": 1})
    with log.open("ab") as fh:
        fh.write(b'{"run": 2, "cut sh')  # a crash mid-write
    append_log(log, {"run": 3})
    assert read_log(log) == [{"run": 1}, {"run": 3}]


@pytest.mark.parametrize("record", [{"x": object()}, {"x": float("nan")}, ["not", "a", "mapping"]])
def test_append_log_rejects_unserialisable_records(tmp_path: Path, record: object) -> None:
    log = tmp_path / "m.log.jsonl"
    with pytest.raises(InvalidInput):
        append_log(log, record)  # type: ignore[arg-type]
    assert not log.exists()


def test_read_log_of_missing_file_is_empty(tmp_path: Path) -> None:
    assert read_log(tmp_path / "none.jsonl") == []


# --- paths ------------------------------------------------------------------------------------


def test_paths_sit_next_to_the_database(tmp_path: Path) -> None:
    db = tmp_path / "agent.kuzu"
    paths = maintenance_paths(db)
    assert paths == MaintenancePaths(
        state=tmp_path / "agent.kuzu.maintain.json",
        log=tmp_path / "agent.kuzu.maintain.log.jsonl",
    )
    assert maintenance_paths(str(db) + os.sep) == paths  # a directory database
    assert maintenance_paths("agent.kuzu").state == Path("agent.kuzu.maintain.json")


@pytest.mark.parametrize("db", ["", ":memory:"])
def test_in_memory_database_needs_explicit_paths(db: str) -> None:
    with pytest.raises(InvalidInput, match="in-memory"):
        maintenance_paths(db)


def test_a_run_killed_after_its_log_line_still_counts(tmp_path) -> None:
    import json

    from graphmem.maintenance import ConsolidateState, append_log

    state, log = tmp_path / "m.json", tmp_path / "m.log.jsonl"
    ConsolidateState(gm.to_utc("2026-01-01"), 5).save(state)
    append_log(log, {"at": gm.to_utc("2026-02-01"), "sessions_total": 9})
    with open(log, "ab") as f:
        f.write(b'{"at": "2026-03-01T00:00:0')  # a later run killed mid-line
    got = ConsolidateState.load(state).recovered(log)
    assert (got.last_run_at, got.session_count) == (gm.to_utc("2026-02-01"), 9)
    # an older log line never rolls the state back; no log at all changes nothing
    ConsolidateState(gm.to_utc("2026-04-01"), 12).save(state)
    assert ConsolidateState.load(state).recovered(log).session_count == 12
    assert ConsolidateState.load(state).recovered(tmp_path / "none.jsonl").session_count == 12
    assert json.loads(log.read_text().splitlines()[0])["sessions_total"] == 9


def test_a_run_whose_log_line_is_longer_than_the_read_window_is_still_recovered(
    tmp_path: Path,
) -> None:
    """A run killed after its log line (the commit point) counts, however long the line."""
    from graphmem.maintenance import ConsolidateState, append_log

    log = tmp_path / "m.log.jsonl"
    for day in (1, 2):
        at = dt.datetime(2030, 1, day, tzinfo=dt.timezone.utc)
        append_log(log, {"at": at, "sessions_total": day, "suggestions": ["x" * 200_000]})
    with log.open("ab") as fh:
        fh.write(b'{"at": "2030-01-03')  # the next run's line, cut short by a kill
    state = ConsolidateState(dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc), 1)
    got = state.recovered(log)
    assert got.last_run_at == dt.datetime(2030, 1, 2, tzinfo=dt.timezone.utc)
    assert got.session_count == 2
