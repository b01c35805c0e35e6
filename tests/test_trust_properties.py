"""Hypothesis properties of authority, confidence and disputes, through the public API.

See docs/concepts/decisions.md#authority-and-disputes and docs/concepts/time.md#rule-2.

1. A write of lower authority that contradicts a current version never changes the current
   value.
2. Any ``facts(known_at=K, valid_at=V)`` answer is unchanged by later writes, disputes and
   ``resolve_dispute`` included.
3. A claim below the confidence floor never closes a version at or above it.
4. ``context(q, known_at=K, valid_at=K)`` is byte-identical before and after later writes and
   reads.
"""

from __future__ import annotations

import datetime as dt
import itertools
import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.timeutil import ManualClock
from graphmem.trust import Trust
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
UTC = dt.timezone.utc
SUBJECTS = ["alice", "bob"]
OBJECTS = ["Acme", "Globex", "Initech"]
SOURCES = ["user", "tool", "agent", None]
CONFIDENCES = [1.0, 0.9, 0.5, 0.3]
YEARS = list(range(2000, 2010))
PROBES = [dt.datetime(y, 6, 1, tzinfo=UTC) for y in range(1999, 2012, 2)]
TRUST = Trust()

PROPS = settings(
    max_examples=int(os.environ.get("GRAPHMEM_TRUST_EXAMPLES", "25")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

add = st.builds(
    lambda s, p, o, y, src, c: ("add", s, p, o, y, src, c),
    st.sampled_from(SUBJECTS),
    st.sampled_from(["works_at", "uses"]),  # single-valued, multi-valued
    st.sampled_from(OBJECTS),
    st.sampled_from(YEARS),
    st.sampled_from(SOURCES),
    st.sampled_from(CONFIDENCES),
)
resolve = st.builds(lambda i, ok: ("resolve", i, ok), st.integers(0, 5), st.booleans())
steps = st.lists(st.one_of(add, add, add, resolve), min_size=1, max_size=12)


def year(y: int) -> dt.datetime:
    return dt.datetime(y, 1, 1, tzinfo=UTC)


def apply(mem: gm.Memory, step: tuple, n: int | None = None) -> gm.WriteResult | None:
    """Run ``step``; with ``n``, on subjects ``alice{n}`` and ``bob{n}`` (:func:`shared`)."""
    if step[0] == "add":
        _, s, p, o, y, src, c = step
        s = s if n is None else f"{s}{n}"
        return mem.add_fact(s, p, o, valid_from=year(y), source_type=src, confidence=c)
    if n is None:
        open_ = mem.disputes()
    else:
        open_ = [d for s in SUBJECTS for d in mem.disputes(subject=f"{s}{n}")]
    if not open_:
        return None
    return mem.resolve_dispute(open_[step[1] % len(open_)].id, accept=step[2])


def current(mem: gm.Memory, n: int) -> set[tuple]:
    return {
        (f.subject, f.predicate, f.object, f.valid_from, f.valid_to)
        for f in mem.history(f"alice{n}") + mem.history(f"bob{n}")
    }


_fresh = itertools.count()


@pytest.fixture(scope="module")
def shared() -> Iterator[tuple[gm.Memory, ManualClock]]:
    """One memory for the examples of the per-subject properties, each with subjects (and so
    disputes) of its own, ``alice7`` and ``bob7``: an example is independent of the others, as
    in a memory of its own, without the cost of opening one (most of an example's time)."""
    clock = ManualClock("2026-01-01")
    with backends.memory(clock=clock) as mem:
        yield mem, clock


@PROPS
@given(history=steps)
def test_lower_authority_never_changes_the_current_value(shared, history: list[tuple]) -> None:
    mem, clock = shared
    n = next(_fresh)
    for step in history:
        clock.advance(days=1)
        before = mem.history(f"{step[1]}{n}", "works_at") if step[0] == "add" else []
        protected = step[0] == "add" and any(
            TRUST.outranks(v.source_type, step[5])
            and v.object != step[3]
            and v.valid_at(year(step[4]))
            for v in before
        )
        snapshot = current(mem, n)
        result = apply(mem, step, n)
        if protected and step[2] == "works_at":
            assert result is not None
            assert result.decision is gm.Decision.DISPUTE
            assert current(mem, n) == snapshot


@PROPS
@given(steps, steps)
def test_known_at_answers_survive_disputes_and_resolutions(
    first: list[tuple], later: list[tuple]
) -> None:
    clock = ManualClock("2026-01-01")
    with backends.memory(clock=clock) as mem:
        answers: dict[tuple, list] = {}
        for step in first + later:
            clock.advance(days=1)
            apply(mem, step)
            k = mem.now()
            for v in PROBES:
                answers[(k, v)] = [(f.id, f.object) for f in mem.facts(valid_at=v, known_at=k)]
        for (k, v), seen in answers.items():
            assert [(f.id, f.object) for f in mem.facts(valid_at=v, known_at=k)] == seen
        for k in {k for k, _ in answers}:  # once a known_at, not once a (known_at, valid_at)
            assert all(f.reason is None or f.expired_at is not None for f in mem.facts(known_at=k))


@PROPS
@given(history=steps)
def test_a_low_confidence_claim_never_closes_a_confident_one(shared, history: list[tuple]) -> None:
    mem, clock = shared
    n = next(_fresh)
    for step in history:
        clock.advance(days=1)
        result = apply(mem, step, n)
        if step[0] != "add" or result is None or step[6] >= TRUST.confidence_floor:
            continue
        assert all(f.confidence < TRUST.confidence_floor for f in result.superseded)


QUERIES = ["where does alice work?", "what does bob use?", "Acme"]
TEXTS = [
    "user: Alice works at Globex now.\nassistant: Noted, Alice moved to Globex.",
    "assistant: Bob uses Acme tooling every day.",
    "The Acme offsite is in June; Alice and Bob both go.",
]
later_op = st.one_of(
    add,
    resolve,
    st.builds(lambda q: ("read", q), st.sampled_from(QUERIES)),
    st.builds(lambda q: ("search", q), st.sampled_from(QUERIES)),
    st.builds(lambda t: ("session", t), st.sampled_from(TEXTS)),
)


@PROPS
@given(steps, st.lists(later_op, min_size=1, max_size=10), st.sampled_from(QUERIES))
def test_context_as_of_k_is_byte_identical(
    first: list[tuple], later: list[tuple], query: str
) -> None:
    clock = ManualClock("2026-01-01")
    with backends.memory(clock=clock) as mem:
        for i, step in enumerate(first):
            clock.advance(days=1)
            apply(mem, step)
            mem.context(query)  # reads bump counters
            if i == 0:
                mem.add_session(TEXTS[2], started_at=mem.now())
        k = mem.now()
        told = str(mem.context(query, known_at=k, valid_at=k))
        for op in later:
            clock.advance(days=1)
            if op[0] == "read":
                mem.context(op[1])
            elif op[0] == "search":
                mem.search(op[1])
            elif op[0] == "session":
                mem.add_session(op[1], started_at=mem.now())
            else:
                apply(mem, op)
            assert str(mem.context(query, known_at=k, valid_at=k)) == told
