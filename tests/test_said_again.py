"""A question's topic said again later, with a change (docs/concepts/recall.md#said-again)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_restated import _context_after

import graphmem as gm
from graphmem.restated import Item, said_again
from graphmem.timeutil import ManualClock

T0 = dt.datetime(2026, 1, 5, tzinfo=dt.timezone.utc)
LATER = dt.datetime(2026, 3, 1, tzinfo=dt.timezone.utc)
FAR = dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)


def _again(old: str, new: str, query: str, *, new_at: dt.datetime = LATER) -> bool:
    items = [Item("a", old, T0), Item("b", new, new_at)]
    return "a" in said_again(items, valid_at=FAR, query=query)


@pytest.mark.parametrize(
    ("old", "new", "query"),
    [
        (
            "user's favourite tea: genmaicha, drinks it in the afternoon",
            "favourite tea is hojicha now",
            "What's the user's favourite tea?",
        ),
        (
            "Main warehouse is in Rotterdam (Waalhaven), ~14k pallet positions",
            "main warehouse moved to Antwerp this week",
            "Where is the main warehouse?",
        ),
        (
            "we deploy prod with jenkins still, the big ugly pipeline",
            "prod deploys run on gh actions now",
            "What do we run prod deploys on now?",
        ),
        (
            "Leo's dentist is Dr. Okafor at Bright Smiles",
            "Leo has a new dentist, Dr. Haddad",
            "Who is Leo's dentist?",
        ),
    ],
)
def test_an_earlier_statement_of_the_topic_is_marked(old: str, new: str, query: str) -> None:
    assert _again(old, new, query)


@pytest.mark.parametrize(
    ("old", "new", "query"),
    [
        # no word of change in the later line
        (
            "main warehouse is in Rotterdam",
            "the main warehouse in Antwerp",
            "Where is the main warehouse?",
        ),
        # the later line says the same again
        (
            "main warehouse is in Rotterdam",
            "main warehouse is in Rotterdam now",
            "Where is the main warehouse?",
        ),
        # one topic word of two ("tier" and "cost"; "month" is also one)
        ("Pro plan is $29", "new plan costs more", "How much does the Pro tier cost?"),
        # the earlier line is about another name than the question's
        (
            "Mia's dentist is Dr. Okafor",
            "Leo has a new dentist, Dr. Haddad",
            "Who is Leo's dentist?",
        ),
        # the later line drops the name the earlier one holds
        ("Leo's dentist is Dr. Okafor", "our new dentist is Dr. Haddad", "Who is Leo's dentist?"),
        # an identifier in the question is a name, not the topic
        (
            "orders-db owner is the Billing team",
            "orders-db upgrade done, now on PG 16",
            "Which region is the orders-db read replica in?",
        ),
        # a document, not a statement: more than 25 words
        (
            "main warehouse notes: " + " ".join(f"word{i}" for i in range(30)),
            "main warehouse moved to Antwerp",
            "Where is the main warehouse?",
        ),
        # a question of fillers names no topic
        ("we use Redis", "we use Valkey now", "What do we use?"),
    ],
)
def test_no_mark(old: str, new: str, query: str) -> None:
    assert not _again(old, new, query)


def test_a_later_line_said_after_valid_at_or_before_marks_nothing() -> None:
    old, new, q = (
        "main warehouse is in Rotterdam",
        "main warehouse moved to Antwerp",
        "Where is the main warehouse?",
    )
    items = [Item("a", old, T0), Item("b", new, LATER)]
    assert not said_again(items, valid_at=LATER - dt.timedelta(days=1), query=q)
    assert not said_again([Item("a", old, LATER), Item("b", new, T0)], valid_at=FAR, query=q)
    assert not said_again(items, valid_at=FAR, query=q, skip=frozenset({"a"}))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                "main warehouse is in Rotterdam",
                "main warehouse moved to Antwerp",
                "the warehouse team is new",
                "main warehouse now in Ghent",
                "lunch is at noon now",
            ]
        ),
        min_size=1,
        max_size=6,
    ),
    st.randoms(use_true_random=False),
)
def test_only_earlier_items_are_marked_in_any_input_order(texts: list[str], rnd) -> None:
    items = [Item(str(i), t, T0 + dt.timedelta(days=i)) for i, t in enumerate(texts)]
    shuffled = items[:]
    rnd.shuffle(shuffled)
    q = "Where is the main warehouse?"
    found = said_again(items, valid_at=FAR, query=q)
    assert found == said_again(shuffled, valid_at=FAR, query=q)
    by_id = {i.id: i for i in items}
    for iid, when in found.items():
        assert when > by_id[iid].when  # a mark points to a later item
    assert str(len(items) - 1) not in found or len({i.when for i in items}) < len(items)


def test_a_chat_line_is_marked_in_context(mem: gm.Memory, clock: ManualClock) -> None:
    sessions = [
        ("2025-02-01", "mo: lol we deploy prod w jenkins still, the big ugly pipeline"),
        ("2025-05-01", "mo: prod deploys run on gh actions now, jenkins box is getting wiped"),
    ]
    ctx = _context_after(mem, clock, sessions, "What do we run prod deploys on now?")
    line = next(ln for ln in ctx.splitlines() if "big ugly pipeline" in ln)
    assert "possibly superseded per 1 May 2025" in line
    assert "gh actions" in ctx


def test_a_remembered_note_is_marked_in_context(mem: gm.Memory, clock: ManualClock) -> None:
    sessions = [
        ("2025-06-04", "user's favourite tea: genmaicha, drinks it in the afternoon."),
        ("2025-09-10", "favourite tea is hojicha now, genmaicha tastes flat to them."),
    ]
    ctx = _context_after(mem, clock, sessions, "What's the user's favourite tea?", via="remember")
    old = [ln for ln in ctx.splitlines() if "genmaicha" in ln and "afternoon" in ln]
    assert old, ctx
    assert all("superseded" in ln for ln in old), ctx


def test_an_answer_known_at_k_is_the_same_after_a_later_line(
    mem: gm.Memory, clock: ManualClock
) -> None:
    clock.set("2025-02-01T09:00:00Z")
    mem.add_session("main warehouse is in Rotterdam", started_at="2025-02-01")
    k = "2025-02-02T00:00:00Z"
    clock.set("2025-02-03T09:00:00Z")
    before = str(mem.context("Where is the main warehouse?", known_at=k, valid_at=k))
    mem.add_session("main warehouse moved to Antwerp", started_at="2025-02-03")
    after = str(mem.context("Where is the main warehouse?", known_at=k, valid_at=k))
    assert before == after
    assert "superseded" not in after
