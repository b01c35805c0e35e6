"""Hypothesis properties of the time rules, through the public API.

See docs/concepts/time.md#the-time-rules.

1. Any ``facts(known_at=K, valid_at=V)`` answer is unchanged by later writes.
2. A single-valued (subject, predicate) never has two objects valid at one instant in current
   knowledge.
3. Ingesting the same single-valued facts in any order yields the same current timeline.
4. Nothing is ever deleted: the number of stored versions never decreases.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import itertools
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.timeutil import ManualClock
from tests import backends

UTC = dt.timezone.utc
SUBJECTS = ["alice", "bob"]
OBJECTS = ["A", "B", "C"]
PREDICATES = ["works_at", "uses"]  # single-valued, multi-valued
YEARS = list(range(2000, 2013))
PROBE_YEARS = [dt.datetime(y, 6, 1, tzinfo=UTC) for y in range(1999, 2015, 2)]

PROPS = settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def year(y: int) -> dt.datetime:
    return dt.datetime(y, 1, 1, tzinfo=UTC)


@st.composite
def interval(draw):
    start = draw(st.sampled_from(YEARS))
    end = draw(st.one_of(st.none(), st.integers(start + 1, YEARS[-1] + 2)))
    return year(start), None if end is None else year(end)


write = st.one_of(
    st.builds(
        lambda s, p, o, iv: ("add", s, p, o, iv, False),
        st.sampled_from(SUBJECTS),
        st.sampled_from(PREDICATES),
        st.sampled_from(OBJECTS),
        interval(),
    ),
    st.builds(
        lambda s, p, o, at: ("retract", s, p, o, at, False),
        st.sampled_from(SUBJECTS),
        st.sampled_from(PREDICATES),
        st.one_of(st.none(), st.sampled_from(OBJECTS)),
        st.sampled_from(YEARS),
    ),
    st.builds(
        lambda s, p, o, iv: ("negate", s, p, o, iv, True),
        st.sampled_from(SUBJECTS),
        st.sampled_from(PREDICATES),
        st.sampled_from(OBJECTS),
        interval(),
    ),
    st.builds(
        lambda batch: ("batch", batch, None, None, None, False),
        st.lists(
            st.tuples(
                st.sampled_from(SUBJECTS),
                st.sampled_from(PREDICATES),
                st.sampled_from(OBJECTS),
                interval(),
            ),
            min_size=1,
            max_size=5,
        ),
    ),
)


def apply(mem: gm.Memory, op) -> None:
    kind, s, p, o, iv, _ = op
    if kind == "add":
        mem.add_fact(s, p, o, valid_from=iv[0], valid_to=iv[1])
    elif kind == "negate":
        mem.add_fact(s, p, o, valid_from=iv[0], statement=f"{s} no longer {p} {o}")
    elif kind == "retract":
        with contextlib.suppress(gm.NotFound):
            mem.retract(s, p, o, at=year(iv))
    else:
        mem.add_facts(
            [
                {"subject": a, "predicate": b, "object": c, "valid_from": v[0], "valid_to": v[1]}
                for a, b, c, v in s
            ]
        )


def snapshot(mem: gm.Memory, known_at: dt.datetime) -> list[tuple]:
    out = []
    for v in PROBE_YEARS:
        out.append(
            tuple(
                sorted(
                    (f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to)
                    for f in mem.facts(valid_at=v, known_at=known_at)
                )
            )
        )
    return out


@PROPS
@given(st.lists(write, min_size=1, max_size=12))
def test_known_at_answers_never_change_and_nothing_is_deleted(ops):
    clock = ManualClock("2026-01-01")
    with backends.memory(clock=clock) as mem:
        seen: dict[dt.datetime, list[tuple]] = {}
        versions = 0
        for op in ops:
            before = clock()
            clock.advance(hours=1)
            apply(mem, op)
            if before in seen:  # the previous instant's answer survives this write
                assert snapshot(mem, before) == seen[before], f"known_at={before} changed"
            # The answer as of now is frozen from here on.
            seen[clock()] = snapshot(mem, clock())
            count = mem.count_versions()
            assert count >= versions, "a version was deleted"
            versions = count
        for k, answer in seen.items():
            assert snapshot(mem, k) == answer, f"answer at known_at={k} changed"


_fresh = itertools.count()


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[gm.Memory, ManualClock]]:
    """One memory for the examples of the per-subject properties below, each with subjects of
    its own (``alice7``, ``bob7``): an example is independent of the others, as in a memory of
    its own, without the cost of opening one (most of a small example's time)."""
    clock = ManualClock("2026-01-01")
    with backends.memory(clock=clock) as mem:
        yield mem, clock


def renamed(op, n: int):
    """``op`` about subjects ``{name}{n}`` instead of ``{name}``."""
    if op[0] == "batch":
        return ("batch", [(f"{a}{n}", *rest) for a, *rest in op[1]], *op[2:])
    return (op[0], f"{op[1]}{n}", *op[2:])


@PROPS
@given(ops=st.lists(write, min_size=1, max_size=12))
def test_single_valued_never_has_two_objects_at_once(shared, ops):
    mem, clock = shared
    n = next(_fresh)
    for op in ops:
        clock.advance(hours=1)
        apply(mem, renamed(op, n))
    for s in (f"{s}{n}" for s in SUBJECTS):
        current = mem.history(s, "works_at")
        for i, a in enumerate(current):
            for b in current[i + 1 :]:
                overlap = a.valid_from < (
                    b.valid_to or dt.datetime.max.replace(tzinfo=UTC)
                ) and b.valid_from < (a.valid_to or dt.datetime.max.replace(tzinfo=UTC))
                assert not overlap, f"{a} overlaps {b}"
        for v in PROBE_YEARS:
            assert len(mem.facts(subject=s, predicate="works_at", valid_at=v)) <= 1


@st.composite
def distinct_facts(draw):
    """Single-valued facts with distinct objects and distinct start years (no ties)."""
    n = draw(st.integers(1, 5))
    starts = draw(st.lists(st.sampled_from(YEARS), min_size=n, max_size=n, unique=True))
    facts = []
    for i, start in enumerate(starts):
        end = draw(st.one_of(st.none(), st.integers(start + 1, YEARS[-1] + 2)))
        facts.append((f"O{i}", year(start), None if end is None else year(end)))
    return facts


def timeline(shared, facts, *, one_batch: bool) -> list[tuple]:
    """The history of a new subject (in the shared memory) given ``facts`` in this order."""
    mem, clock = shared
    subject = f"p{next(_fresh)}"
    rows = [
        {"subject": subject, "predicate": "works_at", "object": o, "valid_from": a, "valid_to": b}
        for o, a, b in facts
    ]
    clock.advance(minutes=1)
    if one_batch:
        mem.add_facts(rows)
    else:
        for row in rows:
            clock.advance(minutes=1)
            mem.add_facts([row])
    return [(f.object, f.valid_from, f.valid_to) for f in mem.history(subject)]


@PROPS
@given(facts=distinct_facts(), rnd=st.randoms(use_true_random=False), one_batch=st.booleans())
def test_any_ingest_order_gives_the_same_timeline(shared, facts, rnd, one_batch):
    shuffled = list(facts)
    rnd.shuffle(shuffled)
    assert timeline(shared, shuffled, one_batch=one_batch) == timeline(
        shared, sorted(facts, key=lambda f: f[1]), one_batch=False
    )
