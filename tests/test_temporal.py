"""Table tests of the pure time rules: graphmem.temporal.

See docs/concepts/time.md#rule-4 and #rule-5, docs/concepts/decisions.md#the-decision-rules.
"""

from __future__ import annotations

import datetime as dt

import pytest

from graphmem.models import Decision, Fact
from graphmem.temporal import plan_assert, plan_retract, touches
from graphmem.timeutil import to_utc

NOW = to_utc("2026-01-01")
LATER = to_utc("2026-02-01")


def y(year: int | None) -> dt.datetime | None:
    return None if year is None else dt.datetime(year, 1, 1, tzinfo=dt.timezone.utc)


def fact(
    obj: str,
    start: int,
    end: int | None = None,
    *,
    fid: str | None = None,
    pred: str = "works_at",
    at: dt.datetime = NOW,
    **kw: object,
) -> Fact:
    return Fact(
        id=fid or f"{obj}{start}",
        subject="alice",
        predicate=pred,
        object=obj,
        valid_from=y(start),
        valid_to=y(end),
        recorded_at=at,
        **kw,
    )


def timeline(current: list[Fact], plan) -> list[tuple[str, int, int | None]]:
    closed = {c.fact.id for c in plan.closes}
    live = [f for f in current if f.id not in closed] + plan.inserts
    return sorted(
        (f.object, f.valid_from.year, f.valid_to.year if f.valid_to else None) for f in live
    )


# (case, stored, new, cardinality, decision, timeline after)
CASES = [
    ("first fact", [], ("A", 2010, None), "one", Decision.ADD, [("A", 2010, None)]),
    (
        "before: earlier closed fact untouched",
        [("A", 2000, 2005)],
        ("B", 2010, None),
        "one",
        Decision.ADD,
        [("A", 2000, 2005), ("B", 2010, None)],
    ),
    (
        "overlap: new object ends the old at its start",
        [("A", 2010, None)],
        ("B", 2015, None),
        "one",
        Decision.SUPERSEDE,
        [("A", 2010, 2015), ("B", 2015, None)],
    ),
    (
        "overlap with a closed interval",
        [("A", 2010, 2020)],
        ("B", 2015, None),
        "one",
        Decision.SUPERSEDE,
        [("A", 2010, 2015), ("B", 2015, None)],
    ),
    (
        "adjacent: no overlap, nothing to close",
        [("A", 2010, 2015)],
        ("B", 2015, None),
        "one",
        Decision.ADD,
        [("A", 2010, 2015), ("B", 2015, None)],
    ),
    (
        "out of order: capped by the next stored fact, an add",
        [("B", 2015, None)],
        ("A", 2010, None),
        "one",
        Decision.ADD,
        [("A", 2010, 2015), ("B", 2015, None)],
    ),
    (
        "out of order with a later explicit end: capped",
        [("B", 2015, None)],
        ("A", 2010, 2020),
        "one",
        Decision.ADD,
        [("A", 2010, 2015), ("B", 2015, None)],
    ),
    (
        "out of order with an earlier end: kept",
        [("B", 2015, None)],
        ("A", 2010, 2012),
        "one",
        Decision.ADD,
        [("A", 2010, 2012), ("B", 2015, None)],
    ),
    (
        "equal: exact duplicate is a noop",
        [("A", 2010, None)],
        ("A", 2010, None),
        "one",
        Decision.NOOP,
        [("A", 2010, None)],
    ),
    (
        "contained re-assertion is a noop",
        [("A", 2010, 2020)],
        ("A", 2012, 2015),
        "one",
        Decision.NOOP,
        [("A", 2010, 2020)],
    ),
    (
        "open-ended re-assertion inside an open version is a noop",
        [("A", 2010, None)],
        ("A", 2012, None),
        "one",
        Decision.NOOP,
        [("A", 2010, None)],
    ),
    (
        "re-assertion extending the start: union",
        [("A", 2010, 2020)],
        ("A", 2005, 2012),
        "one",
        Decision.SUPERSEDE,
        [("A", 2005, 2020)],
    ),
    (
        "re-assertion extending the end: union",
        [("A", 2010, 2015)],
        ("A", 2012, 2020),
        "one",
        Decision.SUPERSEDE,
        [("A", 2010, 2020)],
    ),
    (
        "touching re-assertion merges",
        [("A", 2010, 2015)],
        ("A", 2015, 2020),
        "one",
        Decision.SUPERSEDE,
        [("A", 2010, 2020)],
    ),
    (
        "explicit end for an open-ended version applies that end",
        [("A", 2010, None)],
        ("A", 2012, 2016),
        "one",
        Decision.SUPERSEDE,
        [("A", 2010, 2016)],
    ),
    (
        "re-asserting a superseded object opens a new interval",
        [("A", 2010, 2015), ("B", 2015, None)],
        ("A", 2020, None),
        "one",
        Decision.SUPERSEDE,
        [("A", 2010, 2015), ("A", 2020, None), ("B", 2015, 2020)],
    ),
    (
        "correction of the past on the same day: old version closed, not replaced",
        [("A", 2020, None)],
        ("B", 2020, None),
        "one",
        Decision.SUPERSEDE,
        [("B", 2020, None)],
    ),
    (
        "correction in the middle of a timeline",
        [("A", 2010, 2015), ("B", 2015, None)],
        ("C", 2012, None),
        "one",
        Decision.SUPERSEDE,
        [("A", 2010, 2012), ("B", 2015, None), ("C", 2012, 2015)],
    ),
    (
        "many: a second object is an add",
        [("A", 2010, None)],
        ("B", 2015, None),
        "many",
        Decision.ADD,
        [("A", 2010, None), ("B", 2015, None)],
    ),
    (
        "many: duplicate is a noop",
        [("A", 2010, None)],
        ("A", 2011, None),
        "many",
        Decision.NOOP,
        [("A", 2010, None)],
    ),
    (
        "many: overlapping same object merges",
        [("A", 2010, 2015)],
        ("A", 2012, 2018),
        "many",
        Decision.SUPERSEDE,
        [("A", 2010, 2018)],
    ),
]


@pytest.mark.parametrize(
    ("case", "stored", "new", "card", "decision", "after"), CASES, ids=[c[0] for c in CASES]
)
def test_interval_cases(case, stored, new, card, decision, after):
    current = [fact(o, s, e) for o, s, e in stored]
    n = fact(new[0], new[1], new[2], fid="new", at=LATER)
    plan = plan_assert(n, current, cardinality=card)
    assert plan.decision is decision, case
    assert timeline(current, plan) == sorted(after), case


def test_closed_versions_name_their_successor_and_reason():
    current = [fact("Laravel", 2024, pred="runs_on")]
    plan = plan_assert(
        fact("Go", 2026, fid="go", pred="runs_on", at=LATER, source="s-42"),
        current,
        cardinality="one",
    )
    (close,) = plan.closes
    shorter = next(f for f in plan.inserts if f.object == "Laravel")
    assert close.superseded_by == shorter.id
    assert "superseded by 'Go'" in close.reason
    assert "runs_on is single-valued" in close.reason
    assert "session s-42" in close.reason
    assert shorter.recorded_at == LATER
    assert shorter.valid_to == y(2026)


def test_other_predicates_and_subjects_are_never_candidates():
    current = [fact("A", 2010, pred="lives_in"), fact("A", 2010, pred="works_at", fid="w")]
    plan = plan_assert(fact("B", 2015, fid="n", at=LATER), current, cardinality="one")
    assert [c.fact.id for c in plan.closes] == ["w"]


def test_identity_source_ref_supersedes_exactly_that_fact():
    current = [
        fact("v1 notes", 2020, pred="note", source_ref="release-1", fid="r1"),
        fact("other", 2020, pred="note", fid="o"),
    ]
    plan = plan_assert(
        fact("v2 notes", 2021, pred="note", source_ref="release-1", fid="r2", at=LATER),
        current,
        cardinality="many",
    )
    assert plan.decision is Decision.SUPERSEDE
    assert [c.fact.id for c in plan.closes] == ["r1"]
    assert plan.closes[0].superseded_by == "r2"


def test_identity_same_content_is_noop():
    current = [fact("A", 2020, source_ref="k")]
    plan = plan_assert(
        fact("A", 2020, source_ref="k", fid="x", at=LATER), current, cardinality="one"
    )
    assert plan.decision is Decision.NOOP
    assert plan.reinforce


def test_negation_invalidates_matching_object_only():
    current = [fact("Acme", 2010), fact("X", 2000, 2005, pred="lives_in")]
    plan = plan_assert(
        fact("Acme", 2020, fid="neg", at=LATER, statement="no longer at Acme"),
        current,
        cardinality="one",
        negate=True,
    )
    assert plan.decision is Decision.INVALIDATE
    assert timeline(current, plan) == [("Acme", 2010, 2020), ("X", 2000, 2005)]


def test_negation_with_nothing_to_invalidate_is_noop_without_fact():
    plan = plan_assert(
        fact("Acme", 2020, fid="neg", at=LATER),
        [fact("Other", 2010)],
        cardinality="one",
        negate=True,
    )
    assert plan.decision is Decision.NOOP
    assert plan.fact is None
    assert not plan.closes


@pytest.mark.parametrize(
    ("at", "expected"),
    [
        (2015, [("A", 2010, 2015)]),  # ends at `at`
        (2010, []),  # empty interval: closed, not replaced
        (2005, [("A", 2010, None)]),  # not valid at `at`: untouched
    ],
)
def test_retract(at, expected):
    current = [fact("A", 2010)]
    plan = plan_retract(current, at=y(at), now=LATER, reason="test")
    assert timeline(current, plan) == expected
    assert plan.decision is (
        Decision.INVALIDATE if expected != [("A", 2010, None)] else Decision.NOOP
    )


def test_touches_is_closed_open():
    f = fact("A", 2010, 2015)
    assert touches(f, y(2015), None)  # adjacent at the end
    assert touches(f, y(2000), y(2010))  # adjacent at the start
    assert not touches(f, y(2016), None)


def test_identity_close_onto_an_existing_version_names_no_successor() -> None:
    """An identity key moving onto a value already stated closes the old version without a
    successor: the new version is never written, so no superseded_by may name it (a dangling
    superseded_by broke export and import)."""
    kafka = fact("Kafka", 2018, fid="k", pred="uses", source_ref="dave-stack")
    go = fact("Go", 2023, fid="g", pred="uses")
    new = fact("Go", 2025, fid="new", pred="uses", at=LATER, source_ref="dave-stack")
    plan = plan_assert(new, [kafka, go], cardinality="many")
    assert plan.decision is Decision.SUPERSEDE
    assert plan.fact.id == "g"
    assert [(c.fact.id, c.superseded_by) for c in plan.closes] == [("k", None)]
    assert plan.inserts == []
