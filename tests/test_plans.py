"""A subscription plan or tier, however it is said, is one ``plan``.

docs/concepts/text.md#plans
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.text.lexicon import plan_tier
from graphmem.timeutil import ManualClock
from tests import backends
from tests.test_readers import _current


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("Acme Corp signed up on the free plan.", ("Acme Corp", "plan", "free plan")),
        ("Acme Corp upgraded to the pro plan.", ("Acme Corp", "plan", "pro plan")),
        ("We're on the Team plan.", ("self", "plan", "Team plan")),
        ("Our account moved to the Business tier.", ("self", "plan", "Business tier")),
        ("We upgraded Figma to the Organization plan.", ("Figma", "plan", "Organization plan")),
        ("Vandelay is on Enterprise.", ("Vandelay", "plan", "Enterprise")),
    ],
)
def test_a_plan_said_any_way_is_the_plan(
    sentence: str, fact: tuple[str, str, str], clock: ManualClock
) -> None:
    with backends.memory(clock=clock) as mem:
        mem.remember(sentence)
        assert fact in _current(mem)


@pytest.mark.parametrize(
    "sentence",
    [
        "We're thinking about upgrading to the Pro plan.",  # a plan, not a change
        "Should we move to the Business tier?",  # a question
        "Acme Corp might upgrade to the enterprise plan next year.",
    ],
)
def test_a_plan_only_considered_writes_no_plan(sentence: str, clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        mem.remember(sentence)
        assert not {f for f in _current(mem) if f[1] == "plan"}


def test_each_change_of_plan_closes_the_one_before(clock: ManualClock) -> None:
    clock.set("2025-03-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("Acme Corp signed up on the free plan.", at="2025-03-01")
        clock.set("2025-06-02")
        mem.remember("Acme Corp upgraded to the pro plan.", at="2025-06-01")
        clock.set("2026-01-02")
        mem.remember("Acme Corp downgraded to the starter plan.", at="2026-01-01")
        assert [f.object for f in mem.facts(subject="Acme Corp")] == ["starter plan"]
        history = [f.object for f in mem.history("Acme Corp", "plan")]
        assert history == ["free plan", "pro plan", "starter plan"]
        then = mem.facts(subject="Acme Corp", valid_at=dt.datetime(2025, 7, 1, tzinfo=dt.UTC))
        assert [f.object for f in then] == ["pro plan"]


@pytest.mark.parametrize(
    "value",
    ["the meal plan", "a migration plan", "business plan", "the new plan", "plan", "tier one"],
)
def test_a_plan_that_is_no_subscription(value: str) -> None:
    assert not plan_tier(value)


_TIERS = st.sampled_from(["Free", "Starter", "Pro", "Team", "Business", "Enterprise", "Plus"])


@settings(max_examples=15, deadline=None)
@given(tiers=st.lists(_TIERS, min_size=2, max_size=5), word=st.sampled_from(["plan", "tier"]))
def test_what_was_believed_of_a_plan_stays(tiers: list[str], word: str) -> None:
    """The plan is the last one named; what was believed before each change stays."""
    clock = ManualClock(dt.datetime(2025, 1, 1, tzinfo=dt.UTC))
    with backends.memory(clock=clock) as mem:
        believed = []
        for i, tier in enumerate(tiers):
            clock.set(dt.datetime(2025, 1, 1 + 2 * i, tzinfo=dt.UTC))
            verb = "is on" if i == 0 else "moved to"
            mem.remember(f"Globex {verb} the {tier} {word}.")
            known = clock()
            believed.append((known, [f.object for f in mem.facts(subject="Globex")]))
        assert [f.object for f in mem.facts(subject="Globex")] == [f"{tiers[-1]} {word}"]
        for known, objects in believed:
            assert [f.object for f in mem.facts(subject="Globex", known_at=known)] == objects
