"""Lines that ask, plan, suppose, judge or pass on a change (docs/concepts/recall.md#not-stated),
and a remembered fact shown with its sentence (docs/concepts/recall.md#own-words)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.said_ended import ended_values
from graphmem.timeutil import ManualClock
from graphmem.unstated import unstated
from tests import backends
from tests.test_restated import _context_after


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("[10:20] wen: did we move the staging db to Postgres 17 already?", "was asked"),
        ("do we still use Mocha for the unit tests?", "was asked"),
        ("asked the vet whether Rex should switch to Nexgard", "was asked"),
        ("the landlord might move us to the Harbour St flat next spring", "was a plan"),
        ("we're thinking about going with Hetzner for the batch boxes", "was a plan"),
        ("planning to raise max_conn to 400 once the pooler lands", "was a plan"),
        ("If Stripe goes down again we would switch to Adyen for the weekend.", "was an if"),
        ("in case of snow, the match moves to the Dome", "was an if"),
        ("honestly Bun would be nicer than Node for the CLI", "was an opinion"),
        ("imo db.m6.large would probably do", "was an opinion"),
        ("the onboarding wiki still says Jenkins", "was reported"),
        ("got a letter saying our supply moves to Volt Energy from 1 Dec", "was reported"),
        ("the handbook PDF on the intranet says 20 days of leave", "was reported"),
        ("she and Sam are thinking about the flat on Brackett St", "was a plan"),
        ("O2 (exploratory): evaluate Snowflake as our warehouse for H2", "was a plan"),
        ("Sofia R.: is it due the 15th?", "was asked"),
        ("A few of you asked about moving to the Sulzer library room.", "was asked"),
        ("[19:31] <nico_v> proposal: bump min python to 3.10 for 2.3", "was a plan"),
        (
            '{"event": "bot", "text": "Want me to switch your timezone to America/Denver?"}',
            "was asked",
        ),
    ],
)
def test_a_change_only_asked_planned_or_passed_on_is_marked(text: str, kind: str) -> None:
    assert unstated(text) == f"{kind}, not a change"


@pytest.mark.parametrize(
    "text",
    [
        "We moved the staging db to Postgres 17 last night.",
        "invoices are stored in R2 now",
        "the API runs on Go",
        # a request or an offer is how a change is often made
        "can the invoices go to billing@corvid.example from now on?",
        "we'd like to upgrade to the Team plan please",
        # chat without a value: "how are the dogs doing now?"
        "How are your dogs doing now?",
        "Have you tried it yet?",
        "I've been thinking about trying painting",  # "I've" is no quoted value
        "we evaluate models weekly",
        # a full stop: no question
        "Will try. My sister swears by it.",
        # it says a value ended: the line states a change
        "we dropped Zendesk, should we try Intercom?",
        # "planning" as a thing's name, "May" as a month
        "Starting next month, weekly planning moves to Tuesdays at 09:30",
        "starting 1 May the pager moves to incident.io",
    ],
)
def test_a_statement_request_or_chat_is_not_marked(text: str) -> None:
    assert unstated(text) is None


def test_a_line_of_several_pieces_names_the_one_that_asks() -> None:
    mark = unstated(
        "[14:02] Ben: switched my number, new one is 0400 555 019. still on for Sunday at the Wall?"
    )
    assert mark == 'was asked, not a change: "still on for Sunday at the Wall?"'


_PIECES = [
    "did we switch to Vitest?",
    "We moved to Vitest.",
    "might try Espoma next year",
    "the wiki still says Gusto",
    "if it rains the party moves to the Gym",
    "Arch would be nicer",
    "we dropped Jest.",
    "How was your weekend?",
    "see you at 9.",
    "-FROM python:3.10-slim",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=4).map(" ".join))
def test_a_mark_says_how_and_names_a_piece_of_the_line(text: str) -> None:
    mark = unstated(text)
    if mark is None:
        return
    kind, _, quote = mark.partition(", not a change")
    assert kind in {"was asked", "was a plan", "was an if", "was an opinion", "was reported"}
    if quote:  # a line of several pieces names the one: verbatim, or its head
        piece = quote.removeprefix(': "').removesuffix('"').removesuffix("…")
        assert piece in text
        assert not ended_values(piece)


@pytest.mark.parametrize("via", ["add_session", "remember"])
def test_a_plan_for_another_value_is_shown_marked_and_changes_nothing(
    clock: ManualClock, via: str
) -> None:
    with backends.memory(clock=clock) as mem:
        ctx = _context_after(
            mem,
            clock,
            [
                ("2026-03-02", "Our data warehouse is BigQuery."),
                ("2026-05-11", "Q3 idea: we might move the warehouse to Snowflake, no decision."),
            ],
            "which data warehouse do we use?",
            via=via,
        )
        lines = [ln for ln in ctx.splitlines() if "snowflake" in ln.casefold()]
        assert lines, ctx
        assert all("was a plan, not a change" in ln for ln in lines), lines
        assert "BigQuery" in ctx
        assert not any(f.object == "Snowflake" for f in mem.facts())


MELOXICAM = "Reduce meloxicam to 1.6 ml once daily (maintenance)."


@pytest.mark.parametrize(
    ("via", "sessions", "question", "shown", "absent"),
    [
        # the triple loses "once daily": the fact's line carries its sentence
        (
            "remember",
            [("2026-04-16", MELOXICAM)],
            "how much meloxicam now?",
            f'said: "{MELOXICAM}"',
            "",
        ),
        # the sentence says no more than the fact and its change
        (
            "remember",
            [
                ("2026-03-02", "The API runs on Laravel."),
                ("2026-06-10", "We migrated the API to Go."),
            ],
            "what does the API run on?",
            "API runs_on Go",
            "said:",
        ),
        # what the sentence says ended is named
        (
            "remember",
            [("2026-01-07", "The project dropped D1; storage is Turso now, in two regions.")],
            "where does the project keep its storage?",
            "d1 no longer current",
            "",
        ),
        # a session's fact shows its line, not its sentence
        (
            "add_session",
            [("2026-04-16", MELOXICAM)],
            "how much meloxicam now?",
            "[16 Apr 2026] Reduce",
            "said:",
        ),
        # a later question marks no earlier line (docs/concepts/recall.md#not-stated)
        (
            "add_session",
            [
                ("2026-03-02", "Our match is at Riverside Fields on Saturday."),
                ("2026-03-05", "dave: is Saturday's match at Lincoln Park now?? someone said so"),
            ],
            "where is Saturday's match?",
            "Riverside Fields on Saturday.\n",
            "possibly superseded",
        ),
    ],
)
def test_what_a_context_shows_of_a_sentence(
    clock: ManualClock,
    via: str,
    sessions: list[tuple[str, str]],
    question: str,
    shown: str,
    absent: str,
) -> None:
    with backends.memory(clock=clock) as mem:
        ctx = _context_after(mem, clock, sessions, question, via=via) + "\n"
    assert shown in ctx, ctx
    assert not absent or absent not in ctx, ctx
