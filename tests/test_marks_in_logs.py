"""Marks on change logs as people paste them: diffs, reply quotes, time spans, "Removed:" labels
and remembered sentences (docs/concepts/recall.md#restated, #said-ended, #own-words,
#not-stated)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.normalize import terms
from graphmem.recall_cues import asks_when
from graphmem.restated import Item, field_said_again, quoted, restated, typed_values
from graphmem.said_ended import ended_values
from graphmem.timeutil import ManualClock
from graphmem.unstated import unstated
from tests import backends
from tests.test_restated import _context_after
from tests.test_said_ended import NoReader

D1 = dt.datetime(2025, 2, 3, 9, tzinfo=dt.UTC)
D2 = dt.datetime(2025, 3, 3, 9, tzinfo=dt.UTC)
LATER = dt.datetime(2025, 4, 1, tzinfo=dt.UTC)


# -- kinds of values ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("visiting is 2-4pm every day", "time", {"14:00-16:00": "2-4pm"}),
        ("they've moved it to 10:30-12", "time", {"10:30-12:00": "10:30-12"}),
        ("Weekly on Monday, 11:00 – 11:30 (CET)", "time", {"11:00-11:30": "11:00 – 11:30"}),
        ("# nightly backup 02:30", "time", {"02:30": "02:30"}),
        ("the daily scrum moves to 10:00", "time", {"10:00": "10:00"}),
        ("Weekly on Monday, 11:00 – 11:30 (CET)", "weekday", {"mon": "Monday"}),
        ("When: Wednesday, 15:00", "weekday", {"wed": "Wednesday"}),
    ],
)
def test_spans_clock_times_and_weekdays(text: str, kind: str, value: dict[str, str]) -> None:
    assert typed_values(text)[kind] == value


@pytest.mark.parametrize(
    "text",
    [
        "12/01/2025, 18:02 - Helen: morning all",  # a chat export's stamp
        "[09:12] <marek> hi",
        "09:31 Sanne: hi",
        "We're back by 11:30",  # a deadline, not a schedule
        "season 2024-2025 ended 3-1",  # no colon and no am/pm: no span of clock times
        "visiting hours are 10 to 6",
    ],
)
def test_stamps_deadlines_and_scores_are_no_clock_times(text: str) -> None:
    assert "time" not in typed_values(text)


_STAMPS = st.tuples(st.integers(0, 23), st.integers(0, 59)).map(lambda t: f"{t[0]:02d}:{t[1]:02d}")


@settings(max_examples=100, deadline=None)
@given(
    _STAMPS,
    st.sampled_from(["[{}] kim: ", "{} - Kim: ", "03/03/2025, {} - Kim: ", "{} kim: "]),
    st.sampled_from(["hi all", "the API runs on Go", "lunch?"]),
)
def test_a_line_stamp_is_never_a_value(stamp: str, form: str, text: str) -> None:
    assert "time" not in typed_values(form.format(stamp) + text)


def test_questions_about_opening_hours_ask_when() -> None:
    assert asks_when("What are the visiting hours for Nan now?")
    assert not asks_when("Where does Nan live now?")


def test_a_span_moved_marks_the_earlier_span() -> None:
    items = [
        Item("a", "Nan's settled in at Larchwood, visiting is 2-4pm every day", D1),
        Item("b", "Larchwood emailed. they've moved it to 10:30-12", D2),
    ]
    found = restated(items, valid_at=LATER, query="What are the visiting hours at Larchwood?")
    assert found == {"a": ("2-4pm possibly superseded: 10:30-12", D2)}


# -- a diff's removed field -----------------------------------------------------------------


def test_a_diffs_removed_field_is_replaced_by_its_added_one() -> None:
    items = [
        Item("old", "image: postgres:14.11", D1),
        Item("minus", "- image: postgres:14.11", D2, order=("1",)),
        Item("plus", "+ image: postgres:16.3", D2, order=("2",)),
    ]
    found = field_said_again(items, valid_at=LATER, query="Which PostgreSQL version?")
    assert found == {
        "minus": ("image: postgres:14.11 replaced: postgres:16.3", D2),
        "old": ("image: postgres:14.11 possibly superseded: postgres:16.3", D2),
    }


def test_a_list_item_without_an_added_line_is_a_field() -> None:
    items = [Item("a", "- guests: 18", D1), Item("b", "- guests: 26", D2)]
    found = field_said_again(items, valid_at=LATER, query="how many guests?")
    assert found == {"a": ("guests: 18 possibly superseded: 26", D2)}


# -- a reply's quote ------------------------------------------------------------------------


def test_a_quote_carries_the_mark_of_the_line_it_quotes() -> None:
    items = [
        Item("first", "Total due: €4,280, terms 30 days.", D1),
        Item("quote", "> Total due: €4,280, terms 30 days.", D2),
        Item("other", "> Hope the launch went well!", D2),
    ]
    marks = {"first": "€4,280 possibly superseded: €4,820 per 11 Mar 2025"}
    assert quoted(items, marks, skip=frozenset(), weak="said ") == {"quote": marks["first"]}
    assert quoted(items, marks, skip=frozenset({"quote"}), weak="said ") == {}
    own = marks | {"quote": "terms: no longer current per 12 Mar 2025"}
    assert quoted(items, own, skip=frozenset(), weak="said ") == {}  # it keeps its own
    weak = marks | {"quote": "said 2×, 3 Feb 2025–3 Mar 2025"}
    assert quoted(items, weak, skip=frozenset(), weak="said ") == {"quote": marks["first"]}


_TEXTS = st.sampled_from(["a: 1", "> a: 1", "b: 2", "> b: 2", ">   a:  1", "c"])


@settings(max_examples=100, deadline=None)
@given(st.lists(_TEXTS, min_size=1, max_size=6), st.sets(st.integers(0, 5)))
def test_a_quote_gets_only_the_mark_of_a_line_it_repeats(texts: list[str], marked) -> None:
    items = [Item(str(k), t, D1) for k, t in enumerate(texts)]
    marks = {str(k): f"mark {k}" for k in marked if k < len(texts)}
    for qid, mark in quoted(items, marks, skip=frozenset(), weak="said ").items():
        quote = items[int(qid)].text
        source = [i for i in items if marks.get(i.id) == mark]
        assert quote.startswith(">")
        assert [" ".join(i.text.split()) for i in source] == [" ".join(quote[1:].split())]


# -- what a line says ended, what only proposes ----------------------------------------------


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("✂ Removed: Hotel Carris Porto Ribeira (cancelled)", ["hotel carris porto ribeira"]),
        ("### Removed - Dropped Python 3.8 and 3.9.", ["python 3.8", "python", "3.8"]),
        ("just so you know Ms Hale has moved to our Salford branch.", ["ms hale", "hale"]),
        ("Seats left: 3", []),
        ("memcached retired — Redis gives us more", ["memcached"]),
    ],
)
def test_labels_and_a_verb_after_a_dash_say_what_ended(text: str, ended: list[str]) -> None:
    assert ended_values(text) == ended


@pytest.mark.parametrize(
    ("text", "mark"),
    [
        ("Proposal: bump timeout to 90s to stop the false negatives.", "was a plan"),
        ("TODO: switch billing to Stripe", "was a plan"),
        ("- Consider migrating design docs from Confluence to Notion", "was a plan"),
        ("Plan: Business (annual)", None),  # a subscription's plan, no proposal
        ("we moved billing to Stripe", None),
    ],
)
def test_a_proposal_is_a_plan(text: str, mark: str | None) -> None:
    assert unstated(text) == (f"{mark}, not a change" if mark else None)


def test_spellings_of_one_technology_are_one_search_word() -> None:
    assert terms("PostgreSQL on k8s in prod") == terms("postgres on kubernetes in production")


# -- through the public API -----------------------------------------------------------------


def test_a_diff_marks_the_config_line_it_changed(clock: ManualClock) -> None:
    first = "# docker-compose.yml\nservices:\n  db:\n    image: postgres:14.11\n"
    diff = "--- a/docker-compose.yml\n+++ b/docker-compose.yml\n   db:\n"
    diff += "-    image: postgres:14.11\n+    image: postgres:16.3\n"
    with backends.memory(clock=clock, reader=NoReader()) as mem:  # the lines alone
        text = _context_after(
            mem, clock, [("2025-02-20", first), ("2025-05-06", diff)], "Which PostgreSQL version?"
        )
    lines = [ln for ln in text.splitlines() if "postgres:14.11" in ln]
    assert len(lines) == 2, text
    assert "(image: postgres:14.11 replaced: postgres:16.3 per 6 May 2025)" in lines[0], text
    assert "possibly superseded: postgres:16.3 per 6 May 2025" in lines[1], text


def test_a_remembered_sentence_keeps_the_value_its_fact_lost(
    mem: gm.Memory, clock: ManualClock
) -> None:
    said = "Elm Grove's general rubbish is collected on Monday mornings; bins out by 7am."
    text = _context_after(
        mem, clock, [("2025-05-03", said)], "Which day is rubbish collected?", via="remember"
    )
    assert "Monday" in text, text


def test_a_remembered_ending_marks_an_earlier_note(mem: gm.Memory, clock: ManualClock) -> None:
    subs = "Monthly subs\n- Spotify £11.99\n- Gym: PureGym Camden £24.99/mo"
    change = "Cancelled PureGym and joined The Gym Group on Kentish Town Rd instead."
    text = _context_after(
        mem,
        clock,
        [("2025-01-03", subs), ("2025-03-30", change)],
        "Which gym am I a member of?",
        via="remember",
    )
    old = [ln for ln in text.splitlines() if "PureGym Camden" in ln]
    assert old, text
    assert all("a later line (2025-03-30) says it was replaced" in ln for ln in old), text
    # known before the change was said, the note reads as it did
    before = str(mem.context("Which gym am I a member of?", known_at="2025-02-01"))
    assert "replaced" not in before
