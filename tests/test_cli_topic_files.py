"""CLI verbs topic-health, topic-triage (--auto) and topic-audit, through click's CliRunner."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

import graphmem as gm
from graphmem.cli import cli
from graphmem.cli.topic_files import topic_paths
from graphmem.maintenance import read_log
from graphmem.timeutil import ManualClock, to_utc

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
NOW = to_utc("2026-07-01T12:00:00Z")
DAY = dt.timedelta(days=1)


def run(db: str, *args: str) -> Result:
    return CliRunner().invoke(cli, ["--db", db, "--engine", ENGINE, *args])


def _ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def _touch(path: Path, at: dt.datetime) -> None:
    os.utime(path, (at.timestamp(), at.timestamp()))


@pytest.fixture
def memdir(tmp_path: Path) -> Path:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "MEMORY.md").write_text("- [API](api.md)\n- [Gone](gone.md)\n", encoding="utf-8")
    (root / "api.md").write_text("# API\n\nThe API runs on Laravel.\n", encoding="utf-8")
    (root / "legacy-billing.md").write_text("note\n" * 350, encoding="utf-8")
    (root / ".draft.md").write_text("x\n", encoding="utf-8")
    _touch(root / "api.md", NOW - DAY)
    _touch(root / "legacy-billing.md", NOW - 61 * DAY)
    return root


@pytest.fixture
def db(db_path: str) -> str:
    clock = ManualClock("2026-03-01T12:00:00Z")
    with gm.open(db_path, clock=clock, engine=ENGINE) as mem:
        mem.add_session("The API runs on Laravel.", started_at="2026-03-01", session_id="s1")
        clock.set("2026-06-10T12:00:00Z")
        mem.add_session(
            "We migrated the API from Laravel to Go.", started_at="2026-06-10", session_id="s2"
        )
    return db_path


def test_topic_health_json_and_table(db: str, memdir: Path) -> None:
    data = json.loads(
        _ok(run(db, "topic-health", str(memdir), "--now", NOW.isoformat(), "--json")).stdout
    )
    rows = {r["file"]: r for r in data["rows"]}
    assert set(rows) == {"api.md", "legacy-billing.md"}
    assert rows["api.md"]["band"] == "HOT"
    assert rows["legacy-billing.md"]["band"] == "COLD"
    assert set(rows["api.md"]) >= {"file", "keywords", "hits", "weighted_hits", "hotness", "band"}
    assert data["skipped"] == [{"path": ".draft.md", "reason": "hidden file"}]
    out = _ok(
        run(db, "topic-health", str(memdir), "--now", NOW.isoformat(), "--window", "7")
    ).stdout
    assert "legacy-billing.md" in out
    assert "skipped .draft.md: hidden file" in out


def test_topic_triage_json(db: str, memdir: Path) -> None:
    data = json.loads(
        _ok(run(db, "topic-triage", str(memdir), "--now", NOW.isoformat(), "--json")).stdout
    )
    first = data["rows"][0]
    assert (first["file"], first["recommendation"], first["lines"]) == (
        "legacy-billing.md",
        "ARCHIVE",
        350,
    )
    assert {r["file"]: r["routed"] for r in data["rows"]} == {
        "legacy-billing.md": False,
        "api.md": True,
    }
    for key in ("recency", "recurrence", "actionability", "staleness", "composite"):
        assert 0.0 <= first[key] <= 1.0


def test_topic_audit_lists_the_laravel_line(db: str, memdir: Path) -> None:
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in memdir.iterdir()}
    data = json.loads(
        _ok(run(db, "topic-audit", str(memdir), "--now", NOW.isoformat(), "--json")).stdout
    )
    rows = data["rows"]
    stale = [r for r in rows if r["kind"] == "superseded"]
    assert [(r["file"], r["line"], r["text"], r["current_value"], r["session"]) for r in stale] == [
        ("api.md", 3, "The API runs on Laravel.", "Go", "s2")
    ]
    assert [(r["kind"], r["target"]) for r in rows if r["file"] == "MEMORY.md"] == [
        ("missing", "gone.md")
    ]
    out = _ok(run(db, "topic-audit", str(memdir), "--now", NOW.isoformat())).stdout
    assert (
        "api.md:3 'The API runs on Laravel.': Laravel → now Go since 2026-06-10 (session s2)" in out
    )
    assert {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in memdir.iterdir()} == before


def test_errors_are_one_line_and_exit_1(db: str, tmp_path: Path) -> None:
    missing = str(tmp_path / "nope")
    result = run(db, "topic-health", missing)
    assert result.exit_code == 1
    assert result.output.strip().count("\n") == 0
    assert "does not exist" in result.output
    result = run(db, "topic-audit", missing, "--json")
    assert result.exit_code == 1
    err = json.loads(result.stderr)
    assert err["type"] == "NotFound"


def test_topic_triage_auto_dual_threshold_and_log(db: str, memdir: Path) -> None:
    paths = topic_paths(db, str(memdir))
    first = json.loads(
        _ok(
            run(db, "topic-triage", str(memdir), "--auto", "--now", NOW.isoformat(), "--json")
        ).stdout
    )
    assert first["ran"] is True
    assert first["sessions_total"] == 2
    later = (NOW + dt.timedelta(hours=30)).isoformat()
    second = json.loads(
        _ok(run(db, "topic-triage", str(memdir), "--auto", "--now", later, "--json")).stdout
    )
    assert second == {**second, "ran": False, "due": False}  # 30 h, but no new sessions
    with gm.open(db, clock=ManualClock(NOW), engine=ENGINE) as mem:
        gm.sessions.add_sessions(
            mem,
            [
                {"session_id": f"n{i}", "text": "More on the API.", "started_at": NOW}
                for i in range(5)
            ],
        )
    soon = (NOW + dt.timedelta(hours=23)).isoformat()
    third = json.loads(
        _ok(run(db, "topic-triage", str(memdir), "--auto", "--now", soon, "--json")).stdout
    )
    assert third["ran"] is False  # 5 new sessions, but under 24 h
    fourth = _ok(run(db, "topic-triage", str(memdir), "--auto", "--now", later)).stdout
    assert "topic triage (auto)" in fourth
    log = read_log(paths.log)
    assert [r["sessions_total"] for r in log] == [2, 7]
    assert log[0]["suggestions"][0]["file"] == "legacy-billing.md"
    assert paths.state.exists()
    assert not any(p.name.startswith(".") for p in memdir.iterdir() if p.name != ".draft.md")
    assert paths.log.parent == Path(db).parent
