"""Readers (docs/concepts/text.md#readers): a caller's reader plugs in, and no text is lost."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

import graphmem as gm
from graphmem.cli import cli
from graphmem.sessions import add_sessions
from graphmem.text.claims import Claim
from graphmem.text.readers import BuiltinReader, Reader
from graphmem.timeutil import ManualClock


class TableReader:
    """A test double for an LLM reader: a fixed table of sentence → claims."""

    def __init__(self, table: dict[str, list[tuple[str, str | None, str | None, bool]]]) -> None:
        self.table = table
        self.calls: list[tuple[str, dt.datetime, str]] = []

    def read(self, text: str, *, at: dt.datetime, owner: str) -> Sequence[Claim]:
        self.calls.append((text, at, owner))
        out = []
        for sentence, rows in self.table.items():
            if sentence in text:
                for s, p, o, polarity in rows:
                    subject = owner if s == "I" else s
                    out.append(Claim(subject, p, o, polarity=polarity, sentence=sentence))
        return out


def test_the_protocol() -> None:
    assert isinstance(BuiltinReader(), Reader)
    assert isinstance(TableReader({}), Reader)


def test_a_callers_claims_go_through_the_time_rules(clock: ManualClock) -> None:
    reader = TableReader(
        {
            "The API is on Laravel.": [("API", "runs_on", "Laravel", True)],
            "We moved the API to Go.": [("API", None, "Go", True)],  # a change: resolved
            "The wiki is stale.": [],
        }
    )
    with gm.open(clock=clock, reader=reader) as mem:
        mem.remember("The API is on Laravel.", at="2026-01-05")
        clock.set("2026-06-10")
        r = mem.remember("We moved the API to Go. The wiki is stale.", at="2026-06-01")
        assert r.decision is gm.Decision.SUPERSEDE
        assert [(f.predicate, f.object) for f in mem.facts(subject="API")] == [("runs_on", "Go")]
        assert [f.object for f in mem.believed(on="2026-03-01") if f.subject == "API"] == [
            "Laravel"
        ]
        # the sentence the reader made no claim of is kept as a note
        notes = [f.object for f in mem.facts(predicate="note")]
        assert notes == ["The wiki is stale."]
    assert reader.calls[0][2] == "self"


def test_a_reader_that_returns_no_claims_is_refused(clock: ManualClock) -> None:
    class Bad:
        def read(self, text: str, *, at: dt.datetime, owner: str) -> object:
            return "API runs on Go"

    with gm.open(clock=clock, reader=Bad()) as mem, pytest.raises(gm.InvalidInput, match="Claim"):
        mem.remember("The API runs on Go.")
    with pytest.raises(gm.InvalidInput, match="read"):
        gm.open(reader=object())  # type: ignore[arg-type]


def test_the_builtin_reader_parses_what_the_rules_do_not_read() -> None:
    at = dt.datetime(2026, 6, 10, tzinfo=dt.timezone.utc)
    rules_only = BuiltinReader(parser=False).read("Invoices are stored in S3.", at=at, owner="self")
    both = BuiltinReader().read("Invoices are stored in S3.", at=at, owner="self")
    assert rules_only == []
    if both:  # the trained pipeline is installed (it is a dependency)
        assert [(c.subject, c.predicate, c.object) for c in both] == [
            ("Invoices", "stored in", "S3")
        ]


TEXT = "The API runs on Laravel. Should we move it? Lunch was great. Kim owns the API."


def _stored_text(mem: gm.Memory) -> str:
    """Everything a user can get back: facts' statements and objects, session text."""
    parts = [f"{f.object} {f.statement or ''}" for f in mem.facts()]
    parts += [s.text or "" for s in mem.sessions()]
    return " ".join(parts)


@pytest.mark.parametrize("path", ["remember", "ingest_text", "add_session", "add_sessions"])
def test_no_sentence_is_lost(path: str, clock: ManualClock) -> None:
    with gm.open(clock=clock) as mem:
        if path == "remember":
            mem.remember(TEXT)
        elif path == "ingest_text":
            mem.ingest_text(TEXT)
        elif path == "add_session":
            mem.add_session(TEXT, started_at="2026-05-01")
        else:
            add_sessions(mem, [{"text": TEXT, "started_at": "2026-05-01"}])
        stored = _stored_text(mem)
        for sentence in ("Should we move it?", "Lunch was great.", "Kim owns the API."):
            assert sentence in stored, (path, sentence)
        hits = mem.search("lunch", limit=5)
        assert any("Lunch was great" in h.text for h in hits), path


def test_no_sentence_is_lost_from_the_cli_and_mcp(tmp_path: Path) -> None:
    db = str(tmp_path / "m.kuzu")
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", db, "remember", TEXT]).exit_code == 0
    transcript = tmp_path / "2026-05-01-standup.md"
    transcript.write_text("Lunch was great.\nThe queue runs on SQS.\n", encoding="utf-8")
    out = runner.invoke(cli, ["--db", db, "ingest", str(transcript)])
    assert out.exit_code == 0, out.output
    out = runner.invoke(cli, ["--db", db, "search", "lunch", "--json"])
    assert out.exit_code == 0, out.output
    assert "Lunch was great" in out.output
    pytest.importorskip("mcp")
    from graphmem.mcp_server import build_server
    from tests.mcp_tools import call_tool

    with gm.open(db) as mem:
        server = build_server(mem)
        call_tool(server, "remember", text="Payroll goes through Deel. Nice weather today.")
        found = json.dumps([h.text for h in mem.search("weather", limit=5)])
        assert "Nice weather today" in found
