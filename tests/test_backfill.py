"""Backfills (learned_at) and by-id writes (correct, retract(fact_id=)) in Python and the CLI.

See docs/concepts/time.md#backfilling-history and docs/concepts/decisions.md#correcting-the-past.
"""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

import graphmem as gm
from graphmem.cli import cli
from graphmem.timeutil import ManualClock, fmt

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


def test_learned_at_records_the_write_then(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-06-01")
    mem.add_fact("api", "runs_on", "Laravel", learned_at="2025-01-10")
    mem.add_facts(
        [{"subject": "api", "predicate": "runs_on", "object": "Go"}], learned_at="2025-03-01"
    )
    mem.remember("Alice prefers async reviews", subject="Alice", learned_at="2025-04-01")
    mem.add_session("Bob works at Acme.", started_at="2025-05-01", learned_at="2025-05-01")
    mem.add_sessions(
        [{"text": "Bob works at Globex.", "started_at": "2025-05-20"}], learned_at="2025-05-20"
    )
    assert [f.object for f in mem.believed(on="2025-02-01", subject="api")] == ["Laravel"]
    assert [f.object for f in mem.believed(on="2025-03-02", subject="api")] == ["Go"]
    [laravel] = mem.facts(subject="api", valid_at="2025-01-10", known_at="2025-02-01")
    # default valid_from is the learned time: "now" inside the backfill
    assert (fmt(laravel.valid_from), fmt(laravel.recorded_at)) == ("2025-01-10", "2025-01-10")
    assert [f.object for f in mem.believed(on="2025-05-10", subject="Bob")] == ["Acme"]
    assert [f.object for f in mem.believed(on="2025-05-21", subject="Bob")] == ["Globex"]
    assert mem.check().problems == ()
    # after the backfill, ordinary writes take the clock again
    assert fmt(mem.add_fact("x", "y", "z").fact.recorded_at) == "2026-06-01"


def test_learned_at_never_goes_back(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-06-01")
    first = mem.add_fact("api", "runs_on", "Go", learned_at="2025-03-01").fact
    before = mem.count_versions()
    with pytest.raises(gm.BackfillOrderError, match=r"learned_at=2025-01-01.*date order.*fresh"):
        mem.add_session("Alice works at Acme.", started_at="2025-01-01", learned_at="2025-01-01")
    assert isinstance(gm.BackfillOrderError("x"), gm.ClockError)
    with pytest.raises(gm.InvalidInput, match=r"learned_at=2027.*later than now"):
        mem.add_fact("a", "b", "c", learned_at="2027-01-01")
    with pytest.raises(gm.InvalidInput, match="learned_at='soon' is not a date"):
        mem.add_fact("a", "b", "c", learned_at="soon")
    assert mem.count_versions() == before
    # the same instant as the newest write is ordered just after it
    again = mem.add_fact("web", "runs_on", "Rust", learned_at="2025-03-01")
    assert first is not None
    assert again.fact is not None
    assert again.fact.recorded_at - first.recorded_at == dt.timedelta(microseconds=1)


def test_correct_replaces_a_version_from_its_start(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-01-10")
    wrong = mem.add_fact("carol", "lives_in", "Oslo", valid_from="2026-01-01").fact
    mem.add_fact("carol", "likes", "tea", valid_from="2026-01-01")
    assert wrong is not None
    clock.set("2026-01-12")
    fixed = mem.correct(wrong.id, "Bergen", reason="misheard")
    assert fixed.decision is gm.Decision.SUPERSEDE
    assert fixed.fact is not None
    assert (fixed.fact.object, fixed.fact.valid_from) == ("Bergen", wrong.valid_from)
    [closed] = fixed.superseded
    assert closed.id == wrong.id
    assert closed.reason == "corrected to 'Bergen': misheard"
    assert closed.valid_to == wrong.valid_to  # the valid interval is untouched
    assert [f.object for f in mem.facts(subject="carol", predicate="lives_in")] == ["Bergen"]
    assert [f.object for f in mem.believed(on="2026-01-11", subject="carol")] == ["tea", "Oslo"]
    chain = mem.why(fixed.fact.id).chain
    assert [f.object for f in chain] == ["Oslo", "Bergen"]
    with pytest.raises(gm.NotFound, match="is closed already"):
        mem.correct(wrong.id, "Paris")
    with pytest.raises(gm.InvalidInput, match="is the value of fact"):
        mem.correct(fixed.fact.id, "bergen")
    with pytest.raises(gm.NotFound, match="no fact version with id 'nope'"):
        mem.correct("nope", "Paris")
    assert mem.check().problems == ()


def test_retract_by_id(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-01-10")
    tea = mem.add_fact("carol", "likes", "tea", valid_from="2026-01-01").fact
    mem.add_fact("carol", "likes", "coffee", valid_from="2026-01-01")
    assert tea is not None
    clock.set("2026-01-12")
    ended = mem.retract(fact_id=tea.id, at="2026-01-11", reason="switched")
    assert ended.decision is gm.Decision.INVALIDATE
    assert ended.fact is not None
    assert fmt(ended.fact.valid_to) == "2026-01-11"
    assert [f.object for f in mem.facts(subject="carol")] == ["coffee"]
    with pytest.raises(gm.InvalidInput, match="takes no subject"):
        mem.retract("carol", fact_id=tea.id)
    with pytest.raises(gm.InvalidInput, match="needs subject and predicate"):
        mem.retract("carol")
    [coffee] = mem.facts(subject="carol")
    with pytest.raises(gm.NotFound, match="not valid at 2025"):
        mem.retract(fact_id=coffee.id, at="2025-01-01")


# -- the CLI ---------------------------------------------------------------------------------------


def _run(db: str, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--db", db, "--engine", ENGINE, *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_cli_ingest_backfill_answers_what_had_been_said(tmp_path: Path, db_path: str) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    # written out of date order: --learned-at session ingests oldest first
    (folder / "2025-03-01-c.md").write_text("Alice moved to Berlin.\n")
    (folder / "2025-01-01-a.md").write_text("Alice works at Acme.\n")
    (folder / "2025-02-01-b.md").write_text("Alice left Acme and joined Globex.\n")
    _run(db_path, "ingest", str(folder), "--learned-at", "session")

    def believed(on: str) -> list[tuple[str, str]]:
        rows = json.loads(_run(db_path, "believed", "--on", on, "--subject", "Alice", "--json"))
        return sorted((r["predicate"], r["object"]) for r in rows)

    assert believed("2025-01-15") == [("works_at", "Acme")]
    assert believed("2025-02-15") == [("works_at", "Globex")]
    assert ("lives_in", "Berlin") in believed("2025-03-15")
    assert ("works_at", "Globex") in believed("2025-03-15")
    # a transcript older than what is recorded: refused, nothing written
    (tmp_path / "old").mkdir()
    (tmp_path / "old" / "2024-12-01-z.md").write_text("Alice works at Initech.\n")
    result = CliRunner().invoke(
        cli,
        ["--db", db_path, "--engine", ENGINE, "ingest", str(tmp_path / "old"), "--learned-at",
         "session"],
    )  # fmt: skip
    assert result.exit_code == 1
    assert "BackfillOrderError" in result.stderr
    assert "fresh memory" in result.stderr


def test_cli_correct_retract_by_id_and_learned_at(db_path: str) -> None:
    out = json.loads(
        _run(db_path, "add", "carol", "lives_in", "Oslo", "--learned-at", "2025-01-01", "--json")
    )
    assert out["fact"]["recorded_at"].startswith("2025-01-01")
    fact_id = out["fact"]["id"]
    fixed = json.loads(_run(db_path, "correct", fact_id, "Bergen", "--reason", "typo", "--json"))
    assert fixed["decision"] == "supersede"
    assert fixed["fact"]["object"] == "Bergen"
    assert fixed["superseded"][0]["reason"] == "corrected to 'Bergen': typo"
    ended = json.loads(_run(db_path, "retract", "--id", fixed["fact"]["id"], "--json"))
    assert ended["decision"] == "invalidate"
    assert json.loads(_run(db_path, "facts", "--subject", "carol", "--json")) == []
    result = CliRunner().invoke(cli, ["--db", db_path, "--engine", ENGINE, "retract"])
    assert result.exit_code != 0
    assert "--id FACT_ID" in result.output
