"""Marks on records people paste: a diff inside a remembered note, a proposed time, a question
passed on, a draft PR, a record's field changed in its history (docs/concepts/recall.md#field-
said-again, #not-stated, #what-changed-a-line, #said-ended)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

import graphmem as gm
from graphmem.restated import Item, diff_pairs, restated
from graphmem.said_ended import ended_values
from graphmem.timeutil import ManualClock
from graphmem.unstated import unstated
from tests import backends
from tests.test_restated import _context_after
from tests.test_said_ended import NoReader

D1 = dt.datetime(2024, 3, 14, 9, tzinfo=dt.UTC)
D2 = dt.datetime(2024, 4, 22, 9, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        (
            'diff --git a/Cargo.toml @@ -1,7 +1,7 @@ name = "tern" -version = "0.7.2" '
            '+version = "0.8.0" edition = "2021"',
            [('version = "0.7.2"', 'version = "0.8.0"')],
        ),
        (
            "require ( - github.com/jackc/pgx/v4 v4.18.1 + github.com/jackc/pgx/v5 v5.5.5 )",
            [("github.com/jackc/pgx/v4 v4.18.1", "github.com/jackc/pgx/v5 v5.5.5")],
        ),
        (
            "- image: postgres:14 + image: postgres:16",
            [("image: postgres:14", "image: postgres:16")],
        ),
        ("pros - cheap + fast", []),  # prose: the words after the signs differ
        ("stages: - lint - test - build", []),  # a list has no added line
        ("-FROM node:18 +FROM node:18", []),  # nothing changed
        ("score 3-1 + extra time", []),
    ],
)
def test_a_diff_inside_one_text_pairs_its_removed_and_added_lines(
    text: str, pairs: list[tuple[str, str]]
) -> None:
    assert diff_pairs(text) == pairs


@given(st.text(alphabet=st.sampled_from("ab -+:=1"), max_size=60))
def test_every_pair_is_a_removed_line_and_a_changed_added_one(text: str) -> None:
    for old, new in diff_pairs(text):
        assert old != new
        assert len(old.split()) == len(new.split()) >= 2
        assert f"-{old}" in text or f"- {old}" in text


def test_a_pasted_diff_marks_its_note_and_the_note_it_changed(
    mem: gm.Memory, clock: ManualClock
) -> None:
    first = (
        "module github.com/acme/ledger\ngo 1.21\nrequire (\n  github.com/jackc/pgx/v4 v4.18.1\n)"
    )
    diff = "-go 1.21\n+go 1.22\n require (\n-  github.com/jackc/pgx/v4 v4.18.1\n"
    diff += "+  github.com/jackc/pgx/v5 v5.5.5\n )"
    text = _context_after(
        mem,
        clock,
        [("2025-02-01", first), ("2025-04-10", diff)],
        "Which pgx version does the ledger use?",
        via="remember",
    )
    old = [ln for ln in text.splitlines() if "v4.18.1" in ln]
    assert len(old) == 2, text
    marked = "github.com/jackc/pgx/v4 v4.18.1 replaced: github.com/jackc/pgx/v5 v5.5.5"
    assert all(marked in ln for ln in old), text
    assert any("per 2025-04-10" in ln for ln in old), text  # the earlier note: when it changed


@pytest.mark.parametrize(
    ("text", "mark"),
    [
        ("Proposed: Tuesday, April 2, 2024 10:00 AM-10:30 AM", "was a plan"),
        ("Current: Tuesday, April 2, 2024 9:00 AM-9:30 AM", None),
        (
            "several of you emailed asking whether the final project could be pushed to Dec 13.",
            "was asked",
        ),
        ('draft PR #318: "chore(docker): bump the base image to node:20-alpine"', "was a plan"),
        ("merged PR #318: bump the base image to node:20-alpine", None),
        ("the vendor's onboarding checklist says we run PostgreSQL 13", "was reported"),
        ("Lena proposed a new time for the sync: Tuesday 10:00", "was a plan"),
        ("The new time is Tuesday 10:00.", None),
    ],
)
def test_proposals_drafts_and_questions_passed_on(text: str, mark: str | None) -> None:
    got = unstated(text)
    assert (got or "").startswith(mark) if mark else got is None, got


def test_a_transfer_from_one_to_another_ends_the_first() -> None:
    said = "Your prescriptions have been transferred from CVS #4471 to CVS #2208."
    assert "cvs #4471" in ended_values(said)


def test_the_line_changing_a_records_field_is_shown(clock: ManualClock) -> None:
    # The question names the record; its field is on the line after the title, and the line
    # that changes the field shares no word with the question.
    first = "ENG-1423 Webhook retries double-charge on 502\nStatus: Todo · Assignee: Priya Raman"
    later = "ENG-1423 Webhook retries double-charge on 502\n"
    later += "Marcus changed status from Todo to In Progress\n"
    later += "Marcus changed assignee from Priya Raman to Tomás Ortega\n"
    later += "GitHub changed status from In Progress to In Review"
    with backends.memory(clock=clock, reader=NoReader()) as mem:
        text = _context_after(
            mem, clock, [("2024-08-05", first), ("2024-08-08", later)], "Who is on ENG-1423 now?"
        )
    assert "Tomás Ortega" in text, text
    assert "priya raman: no longer current" in text.casefold(), text


def test_moving_to_a_version_is_no_move_of_home(mem: gm.Memory) -> None:
    mem.remember("refactor(db): move to pgx v5 (#291)")
    mem.remember("I moved to Lisbon last spring.")
    assert [(f.predicate, f.object) for f in mem.facts() if f.predicate == "lives_in"] == [
        ("lives_in", "Lisbon")
    ]


def test_a_commits_imperative_is_a_word_of_change() -> None:
    first = Item("a", "- still pinned to typescript 5.1.6 in web/", D1)
    later = Item("b", "chore(deps): update dependency typescript to v5.4.5", D2)
    found = restated([first, later], valid_at=D2, query="What TypeScript version are we on?")
    assert found == {"a": ("5.1.6 possibly superseded: 5.4.5", D2)}
