"""A later line that changes a line shown comes right after it.

docs/concepts/recall.md#what-changed-a-line
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import graphmem as gm
from graphmem.text.claims import Claim
from graphmem.timeutil import ManualClock
from tests import backends

QUESTION = "how does the team estimate work?"


class NoReader:
    """Reads nothing: every sentence stays a line of its session."""

    def read(self, text: str, *, at: dt.datetime, owner: str) -> Sequence[Claim]:
        return []


def _story(mem: gm.Memory, clock: ManualClock, later: str) -> None:
    clock.set("2025-02-17T12:00Z")
    mem.add_session(
        "Oskar: do we still estimate in story points?\nMia: yes, Fibonacci, max 13 per ticket",
        started_at="2025-02-17",
    )
    clock.set("2025-03-01T12:00Z")
    mem.add_session("Oskar: the offsite is in Porto this year", started_at="2025-03-01")
    clock.set("2025-05-20T12:00Z")
    mem.add_session(later, started_at="2025-05-20")
    clock.set("2025-05-21T12:00Z")


def test_the_change_of_a_shown_line_follows_it(clock: ManualClock) -> None:
    with backends.memory(clock=clock, reader=NoReader()) as mem:
        _story(mem, clock, "Mia: we stopped using story points, we're just counting tickets")
        lines = str(mem.context(QUESTION)).splitlines()
        first = next(i for i, ln in enumerate(lines) if "in story points?" in ln)
        change = next(i for i, ln in enumerate(lines) if "counting tickets" in ln)
        assert change > first
        assert "no longer current per 20 May 2025" in lines[first]
        # what was known before the change was said is shown as it was
        before = str(mem.context(QUESTION, known_at="2025-05-01"))
        assert "counting tickets" not in before
        assert "no longer" not in before


def test_a_later_line_that_changes_nothing_does_not_follow(clock: ManualClock) -> None:
    with backends.memory(clock=clock, reader=NoReader()) as mem:
        _story(mem, clock, "Mia: story points made the retro long, tickets are fine")
        assert "retro" not in str(mem.context(QUESTION))


def test_a_change_about_other_words_does_not_follow(clock: ManualClock) -> None:
    with backends.memory(clock=clock, reader=NoReader()) as mem:
        _story(mem, clock, "Oskar: we moved the offsite from Porto to Lisbon")
        assert "Lisbon" not in str(mem.context(QUESTION))


def _two(mem: gm.Memory, clock: ManualClock, later: str) -> str:
    clock.set("2025-01-14T12:00Z")
    mem.add_session("k8s version in prod is 1.27", started_at="2025-01-14")
    clock.set("2025-02-04T12:00Z")
    mem.add_session(later, started_at="2025-02-04")
    clock.set("2025-02-05T12:00Z")
    return next(
        ln for ln in str(mem.context("which k8s version is prod on?")).splitlines() if "1.27" in ln
    )


def test_a_value_a_later_line_gives_otherwise_is_marked(clock: ManualClock) -> None:
    with backends.memory(clock=clock, reader=NoReader()) as mem:
        old = _two(mem, clock, "the upgrade to 1.29 went through, prod is on 1.29 now")
        assert "(1.27 possibly superseded: 1.29 per 4 Feb 2025)" in old


def test_a_later_value_without_a_word_of_change_marks_nothing(clock: ManualClock) -> None:
    with backends.memory(clock=clock, reader=NoReader()) as mem:
        assert "superseded" not in _two(mem, clock, "we tried k8s 1.29 in a prod-like sandbox")


def test_a_later_value_about_other_things_marks_nothing(clock: ManualClock) -> None:
    with backends.memory(clock=clock, reader=NoReader()) as mem:
        assert "superseded" not in _two(mem, clock, "the terraform CLI is on 1.9.2 now")
