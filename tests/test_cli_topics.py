"""CLI verbs sessions, hot, triage and maintain (graphmem.cli.topics), through click's CliRunner."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import graphmem as gm
from graphmem.cli import cli
from graphmem.maintenance import ConsolidateState, maintenance_paths, read_log
from graphmem.sessions import add_sessions
from graphmem.timeutil import ManualClock, to_utc

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
NOW = to_utc("2026-03-01")


def run(db: str, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--db", db, "--engine", ENGINE, *args])


def add(db: str, clock_at: str, sessions: list[tuple[str, list[str]]]) -> None:
    """Record sessions ``(started_at, mentions)`` in the database at ``db`` and close it."""
    with gm.open(db, clock=ManualClock(clock_at), engine=ENGINE) as mem:
        add_sessions(mem, [{"started_at": t, "mentions": m} for t, m in sessions])


@pytest.fixture
def db(db_path: str) -> str:
    with gm.open(db_path, clock=ManualClock("2026-01-01"), engine=ENGINE) as mem:
        mem.add_fact("old project", "status", "shipped")
        mem.add_session(
            "kuzu all day", started_at="2026-02-27", session_id="s-kuzu", mentions=["kuzu", "thing"]
        )
        mem.add_fact("kuzu", "version", "0.11.3", source="s-kuzu", statement="Always pin kuzu")
        add_sessions(
            mem, [{"started_at": f"2026-02-{d:02d}", "mentions": ["thing"]} for d in range(1, 26)]
        )
    return db_path


def test_sessions_lists_and_shows_one(db: str) -> None:
    listed = run(db, "sessions", "--limit", "2")
    assert listed.exit_code == 0, listed.output
    assert "s-kuzu" in listed.output
    assert "2 session(s)" in listed.output
    data = json.loads(run(db, "sessions", "--json").stdout)
    assert len(data) == 26
    assert data[-1]["id"] == "s-kuzu"
    assert data[-1]["mentions"] == {"kuzu": 1, "thing": 1}
    assert len(json.loads(run(db, "sessions", "--since", "2026-02-20", "--json").stdout)) == 7
    one = run(db, "sessions", "s-kuzu")
    assert one.exit_code == 0, one.output
    assert "0.11.3" in one.output
    shown = json.loads(run(db, "sessions", "s-kuzu", "--json").stdout)
    assert shown["session"]["id"] == "s-kuzu"
    assert [f["object"] for f in shown["facts"]] == ["0.11.3"]


def test_hot_shows_plain_and_idf_side_by_side(db: str) -> None:
    table = run(db, "hot", "--now", "2026-02-28")
    assert table.exit_code == 0, table.output
    for column in ("plain", "idf score", "idf band", "thing", "kuzu"):
        assert column in table.output
    plain = json.loads(run(db, "hot", "--now", "2026-02-28", "--json").stdout)
    idf = json.loads(run(db, "hot", "--now", "2026-02-28", "--idf", "--json").stdout)
    assert [t["topic"] for t in plain][:2] == ["thing", "kuzu"]
    assert [t["topic"] for t in idf][:2] == ["kuzu", "thing"]
    assert {t["weighting"] for t in idf} == {"idf"}
    assert all({"plain_score", "idf_score", "hits", "band"} <= set(t) for t in plain)
    limited = json.loads(run(db, "hot", "--now", "2026-02-28", "--limit", "1", "--json").stdout)
    assert len(limited) == 1
    narrow = json.loads(run(db, "hot", "--now", "2026-02-28", "--window", "2", "--json").stdout)
    assert {t["topic"]: t["hits"] for t in narrow}["thing"] == 1


def test_triage_table_and_json(db: str) -> None:
    table = run(db, "triage", "--now", "2026-03-01")
    assert table.exit_code == 0, table.output
    assert "ARCHIVE" in table.output
    data = json.loads(run(db, "triage", "--now", "2026-03-01", "--json").stdout)
    got = {t["topic"]: t for t in data}
    assert got["old project"]["recommendation"] == "ARCHIVE"
    assert got["kuzu"]["recommendation"] == "KEEP"
    assert got["kuzu"]["actionability"] == 1.0
    assert len(json.loads(run(db, "triage", "--limit", "1", "--json").stdout)) == 1


def test_bad_input_is_one_line_and_exit_1(db: str, tmp_path: Path) -> None:
    for args in (
        ["hot", "--now", "sometime last week"],
        ["sessions", "nope"],
        ["triage", "--now", "x"],
    ):
        result = run(db, *args)
        assert result.exit_code == 1, (args, result.output)
        assert "Traceback" not in result.output
        assert len(result.output.strip().splitlines()) == 1
        assert result.output.startswith("Error: ")
    missing = run(str(tmp_path / "none.kuzu"), "maintain")
    assert missing.exit_code == 1
    bad_window = run(db, "hot", "--window", "0")  # click rejects it before graphmem
    assert bad_window.exit_code == 1
    assert "window" in bad_window.output


def log_of(db: str) -> list[dict[str, object]]:
    return read_log(maintenance_paths(db).log)


def test_maintain_auto_runs_only_when_due(db: str) -> None:
    paths = maintenance_paths(db)
    first = json.loads(run(db, "maintain", "--auto", "--now", "2026-03-01", "--json").stdout)
    assert first["ran"] is True  # never ran and 26 sessions: due
    assert first["trigger"] == "auto"
    assert first["sessions_since_last_run"] == 26
    assert first["topics_scanned"] == 3
    [archive] = first["suggestions"]
    assert archive["topic"] == "old project"
    assert archive["recommendation"] == "ARCHIVE"
    assert {"composite", "recency", "recurrence", "actionability", "staleness"} <= set(archive)
    assert ConsolidateState.load(paths.state) == ConsolidateState(NOW, 26)
    [record] = log_of(db)
    assert record["trigger"] == "auto"
    assert record["sessions_since_last_run"] == 26
    assert record["suggestions"] == first["suggestions"]

    # Neither 24 h nor 5 new sessions: not due, nothing logged, state untouched.
    later = run(db, "maintain", "--auto", "--now", "2026-03-01T12:00:00Z")
    assert later.exit_code == 0, later.output
    assert later.output.startswith("not due: 0 new session(s)")
    # 24 h but only 4 new sessions: still not due.
    add(db, "2026-03-02", [(f"2026-03-01T0{h}:00:00Z", ["thing"]) for h in range(1, 5)])
    not_yet = json.loads(run(db, "maintain", "--auto", "--now", "2026-03-02", "--json").stdout)
    assert (not_yet["ran"], not_yet["sessions_since_last_run"]) == (False, 4)
    assert len(log_of(db)) == 1
    assert ConsolidateState.load(paths.state) == ConsolidateState(NOW, 26)
    # The fifth session makes it due.
    add(db, "2026-03-02", [("2026-03-01T06:00:00Z", ["kuzu"])])
    due = run(db, "maintain", "--auto", "--now", "2026-03-02")
    assert due.exit_code == 0, due.output
    assert "maintenance (auto)" in due.output
    assert "ARCHIVE" in due.output  # the suggestions table
    assert [r["sessions_since_last_run"] for r in log_of(db)] == [26, 5]
    assert ConsolidateState.load(paths.state) == ConsolidateState(to_utc("2026-03-02"), 31)


def test_maintain_without_auto_always_runs_and_never_goes_back(db: str) -> None:
    assert run(db, "maintain", "--now", "2026-03-01").exit_code == 0
    again = json.loads(run(db, "maintain", "--now", "2026-03-01T01:00:00Z", "--json").stdout)
    assert (again["ran"], again["trigger"], again["due"]) == (True, "manual", False)
    assert [r["trigger"] for r in log_of(db)] == ["manual", "manual"]
    back = run(db, "maintain", "--now", "2026-02-01")
    assert back.exit_code == 1
    assert "never moves backwards" in back.output
    assert len(log_of(db)) == 2


def test_maintain_treats_a_corrupt_state_as_never_ran(db: str) -> None:
    paths = maintenance_paths(db)
    paths.state.write_text("{not json")
    result = json.loads(run(db, "maintain", "--auto", "--now", "2026-03-01", "--json").stdout)
    assert result["ran"] is True
    assert ConsolidateState.load(paths.state).last_run_at == NOW


def test_maintain_uses_the_clock_when_now_is_not_given(db: str) -> None:
    result = json.loads(run(db, "maintain", "--json").stdout)
    ran_at = dt.datetime.fromisoformat(result["at"])
    assert abs(ran_at - dt.datetime.now(dt.timezone.utc)) < dt.timedelta(minutes=5)
