"""When a one-off thing happens (docs/concepts/text.md#event-dates), through the public API.

A date right after the verb is the thing's value ("the dinner is Saturday 30th, 6pm"), and a
move ("got moved to", "rescheduled to") replaces it; a date said of anything else stays the
time the sentence became true.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.timeutil import ManualClock
from tests import backends
from tests.test_readers import _current


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        (
            "The family dinner is Saturday 30th at ours, 6pm.",
            ("self", "family_dinner", "Saturday 30th"),
        ),
        (
            "Your appointment is on Tuesday, October 22 at 8:30 AM.",
            ("self", "appointment", "Tuesday, October 22 at 8:30 AM"),
        ),
        (
            "Noor's checkup is booked for Thu Oct 12 at 9:40 with Dr. Feldman.",
            ("Noor", "checkup", "Thu Oct 12 at 9:40"),
        ),
        (
            "Our wedding date is Saturday, September 13, 2025.",
            ("self", "wedding_date", "Saturday, September 13, 2025"),
        ),
        (
            "The install is Monday the 15th between eight and ten.",
            ("self", "install", "Monday the 15th"),
        ),
        ("The payment is the 3rd of each month.", ("self", "payment", "the 3rd of each month")),
        # a field named by a thing and "date" holds the whole date
        (
            "Move date: Friday, June 14, 2024 · Arrival window 8–9 AM",
            ("self", "move_date", "Friday, June 14, 2024"),
        ),
        ("Due date: Nov 22, 2024", ("self", "due_date", "Nov 22, 2024")),
        # whom a thing is with is no part of its name (docs/concepts/text.md#notices)
        (
            "Your colonoscopy with Dr. Iyer is on Tuesday, October 29, 2024 (arrive 7:15 AM).",
            ("self", "colonoscopy", "Tuesday, October 29, 2024"),
        ),
        ("the call with Acme is Tuesday at 3pm", ("self", "call", "Tuesday at 3pm")),
    ],
)
def test_a_date_after_the_verb_is_the_things_value(
    sentence: str, fact: tuple[str, str, str], clock: ManualClock
) -> None:
    clock.set("2024-09-10")
    with backends.memory(clock=clock) as mem:
        mem.remember(sentence)
        assert fact in _current(mem)


@pytest.mark.parametrize(
    "sentence",
    [
        "Anna moved in March.",  # when she moved, not a date of hers
        "The price is $20 from June.",  # a price that starts then
        "but as of now it's still Saturday 6pm",  # which thing is not said
        "membership cancelled, last charge was May 17, access ends 6/16.",  # a thing done
        "The dinner is not on Saturday.",
    ],
)
def test_dates_said_of_nothing_are_no_values(sentence: str, clock: ManualClock) -> None:
    clock.set("2024-09-10")
    with backends.memory(clock=clock) as mem:
        mem.remember(sentence)
        dated = {
            (s, p, o)
            for s, p, o in _current(mem)
            if p != "note" and any(d in o for d in ("March", "June", "Saturday", "May 17"))
        }
        assert not dated


def _believed(mem: object, known_at: str) -> set[tuple[object, ...]]:
    facts = mem.facts(subject="self", known_at=known_at)  # type: ignore[attr-defined]
    return {(f.predicate, f.object, f.valid_from, f.valid_to) for f in facts}


def test_a_move_replaces_the_date_and_keeps_the_old_one_in_the_past(clock: ManualClock) -> None:
    clock.set("2024-04-29")
    with backends.memory(clock=clock) as mem:
        mem.remember("The move date is Friday, June 14, 2024.")
        clock.set("2024-05-20")
        before = _believed(mem, "2024-05-01")
        mem.remember("Our move date got moved to Friday, June 21, 2024.")
        now = _current(mem)
        assert ("self", "move_date", "Friday, June 21, 2024") in now
        assert ("self", "move_date", "Friday, June 14, 2024") not in now
        # what was believed before the move is as it was
        assert _believed(mem, "2024-05-01") == before
        assert "June 21" in str(mem.context("When is the move?"))


def test_a_question_naming_the_things_head_finds_the_owners_slot(clock: ManualClock) -> None:
    # docs/concepts/recall.md: "the family dinner" names thanksgiving_dinner
    clock.set("2024-11-20")
    with backends.memory(clock=clock) as mem:
        mem.remember("Thanksgiving dinner is Saturday 30th at ours, 6pm.")
        mem.remember("Vera works at Globex.")
        assert "Saturday 30th" in str(mem.context("When is the family dinner at Mum's?"))


_THINGS = ["dinner", "checkup", "install", "recital", "closing", "dentist appointment"]
_DAYS = ["Monday", "Tuesday", "Friday", "Saturday", "Sunday"]
_MONTHS = ["June", "July", "October"]
_dates = st.tuples(st.sampled_from(_DAYS), st.sampled_from(_MONTHS), st.integers(1, 28)).map(
    lambda d: f"{d[0]}, {d[1]} {d[2]}"
)


@given(
    thing=st.sampled_from(_THINGS),
    dates=st.lists(_dates, min_size=1, max_size=4, unique=True),
    moved=st.sampled_from(["got moved to", "was rescheduled to", "has been pushed back to"]),
)
@settings(max_examples=15, deadline=None)
def test_the_last_date_said_is_the_one_current(thing: str, dates: list[str], moved: str) -> None:
    clock = ManualClock("2024-03-01")
    with backends.memory(clock=clock) as mem:
        mem.remember(f"The {thing} is {dates[0]}.")
        for i, date in enumerate(dates[1:], start=1):
            clock.set(f"2024-03-{1 + i:02d}")
            mem.remember(f"The {thing} {moved} {date}.")
        slot = thing.replace(" ", "_")
        values = [o for s, p, o in _current(mem) if (s, p) == ("self", slot)]
        assert values == [dates[-1]]
        # every earlier date is kept, closed, in the slot's history
        told = {f.object for f in mem.history("self", slot)}
        assert set(dates) <= told


@pytest.mark.parametrize(
    "line", ["Statement date: 01 Feb 2024", "Invoice date: March 3, 2024", "Date: Tue, 3 Sep 2024"]
)
def test_a_documents_own_date_is_no_field(line: str, clock: ManualClock) -> None:
    clock.set("2024-09-10")
    with backends.memory(clock=clock) as mem:
        mem.remember(line)
        assert not _current(mem)
