"""``hot_topics(limit=k)`` skips the whole-graph fact scan when a bound decides the top ``k``.

The fast path (:func:`graphmem.topics._top_mentioned`) must give exactly the first ``k`` rows
of the full ranking (``limit=None``) for every input, or give up (``None``) so the full
computation runs: both are checked here, on hand-built cases that exercise each branch and on
random small stores.
"""

from __future__ import annotations

import datetime as dt
import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.hotness import RECENCY_WEIGHT, TopicScore, hotness_score
from graphmem.kernel import kernel_of
from graphmem.sessions import add_sessions
from graphmem.timeutil import ManualClock, to_utc
from graphmem.topics import _NO_HITS_MAX, _top_mentioned
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
NOW = to_utc("2026-03-01")


def day(n: float) -> dt.datetime:
    return NOW + dt.timedelta(days=n)


def fast(
    mem: gm.Memory, k: int, *, now: dt.datetime = NOW, window: float = 30, weighting: str = "plain"
) -> list[TopicScore] | None:
    """The fast path alone: the top ``k`` or ``None`` (undecided)."""
    start = now - dt.timedelta(days=window)
    return _top_mentioned(kernel_of(mem), at=now, start=start, k=k, weighting=weighting)


def full(
    mem: gm.Memory, *, now: dt.datetime = NOW, window: float = 30, weighting: str = "plain"
) -> list[TopicScore]:
    """The full ranking (no limit: the whole-graph computation)."""
    return mem.hot_topics(now=now, window_days=window, weighting=weighting)  # type: ignore[no-any-return]


def sessions(mem: gm.Memory, spec: list[tuple[float, list[str]]]) -> None:
    add_sessions(mem, [{"started_at": day(d), "mentions": names} for d, names in spec])


def test_no_hits_bound_is_the_recency_weight() -> None:
    assert _NO_HITS_MAX == RECENCY_WEIGHT == 0.4
    assert max(hotness_score(0, m, a) for m in (0, 1, 7.5) for a in (0.0, 1e-9, 3)) == 0.4


def test_ties_at_the_cut_follow_name_order(mem: gm.Memory, clock: ManualClock) -> None:
    sessions(mem, [(-1, ["c", "b", "a"])])
    clock.set(day(0))
    mem.add_fact("aa", "status", "fresh")  # unmentioned, recency 1.0: scores 0.4
    got = fast(mem, 2)
    assert got is not None
    assert [t.topic for t in got] == ["a", "b"]
    assert got == full(mem)[:2] == mem.hot_topics(now=NOW, limit=2)


@pytest.mark.parametrize(
    ("x_age", "expected"),
    [
        (10, "x"),  # x: 0.6 + 0.4 * 50/60 = 0.933 beats b's group bound (0.7): one round
        (45, "b"),  # x: 0.7, a tie with b's bound and with b itself; b wins by name
        (59, "b"),  # x: 0.607, below b (0.7)
    ],
)
def test_a_fresh_fact_lifts_a_topic_with_fewer_hits_past_the_first_guess(
    mem: gm.Memory, clock: ManualClock, x_age: int, expected: str
) -> None:
    # x: 2 hits, no facts. b: 1 hit, but a fact recorded now (recency 1.0, score 0.7). The
    # first guess fetches x's group alone (old sessions raise N so that x also has the largest
    # IDF-weighted hits); b's group bound (0.7) decides whether b must be looked at.
    sessions(mem, [(-x_age, ["x", "b"]), (-x_age, ["x"])] + [(-70, ["other"])] * 8)
    clock.set(day(0))
    mem.add_fact("b", "status", "revived")
    got = fast(mem, 1, window=60)
    assert got is not None
    assert [t.topic for t in got] == [expected]
    assert got == full(mem, window=60)[:1]


def test_side_by_side_idf_score_keeps_its_normaliser(mem: gm.Memory) -> None:
    # plain ranks "common" first; the largest IDF-weighted hits belong to "rare", which the
    # plain bound alone would not fetch, yet common's idf_score is normalised by it.
    spec: list[tuple[float, list[str]]] = [(-d, ["common", "filler"]) for d in range(1, 5)]
    spec += [(-5, ["common", "rare"]), (-6, ["common", "rare"]), (-40, ["filler"])]
    sessions(mem, spec)
    for weighting in ("plain", "idf"):
        got = fast(mem, 1, weighting=weighting)
        assert got is not None
        assert got == full(mem, weighting=weighting)[:1]
    assert fast(mem, 1)[0].idf_score == full(mem)[0].idf_score  # type: ignore[index]


def test_gives_up_when_the_bound_cannot_decide(mem: gm.Memory, clock: ManualClock) -> None:
    sessions(mem, [(-1, ["a"]), (-2, ["a", "b"]), (-50, ["old"])])
    assert fast(mem, 2) is not None
    assert fast(mem, 3) is None  # only two topics have hits in the window
    assert mem.hot_topics(now=NOW, limit=3) == full(mem)[:3]


def test_a_kth_score_of_exactly_0_4_is_undecided(mem: gm.Memory, clock: ManualClock) -> None:
    # A word said in every session has idf 0, so its IDF score is recency alone: 0.4 when it
    # was said just now. So is the score of "a", never mentioned but with a fact recorded now,
    # and "a" comes first by name: the bound must not decide on a tie at 0.4.
    sessions(mem, [(0, ["word"]), (-3, ["word"])])
    clock.set(day(0))
    mem.add_fact("a", "status", "fresh")
    assert fast(mem, 1, weighting="idf") is None
    assert [t.topic for t in full(mem, weighting="idf")] == ["a", "word"]
    assert mem.hot_topics(now=NOW, limit=1, weighting="idf") == full(mem, weighting="idf")[:1]
    assert fast(mem, 1) == full(mem)[:1]  # plain: "word" has hits, 1.0


def test_as_of_a_past_date(mem: gm.Memory, clock: ManualClock) -> None:
    sessions(mem, [(-20, ["a"]), (-19, ["b"]), (-1, ["a", "b", "c"])])
    clock.set(day(-19))
    mem.add_fact("b", "status", "s1")
    clock.set(day(-1))
    mem.add_fact("a", "status", "s2")  # not yet known 10 days ago
    at = day(-10)
    got = fast(mem, 1, now=at)
    assert got is not None
    assert [t.topic for t in got] == ["b"]
    assert got == full(mem, now=at)[:1]


# -- random small stores --------------------------------------------------------------------

TOPICS = ["a", "b", "c", "d", "e"]
BASE = to_utc("2026-01-01")

session_ev = st.tuples(
    st.just("session"),
    st.integers(0, 10),  # days the session happened before it was recorded
    st.lists(st.sampled_from(TOPICS), min_size=1, max_size=3),
)
fact_ev = st.tuples(
    st.just("fact"),
    st.integers(-10, 10),  # valid_from in days relative to the write
    st.tuples(st.sampled_from([*TOPICS, "z"]), st.sampled_from([*TOPICS, "lit", "z"])),
)


@pytest.mark.slow  # a long property: CI's slow family runs it
@settings(max_examples=40, deadline=None)
@given(
    events=st.lists(
        st.tuples(st.integers(0, 3), st.one_of(session_ev, fact_ev)), min_size=1, max_size=14
    ),
    cut=st.integers(0, 60),
    window=st.sampled_from([1, 7, 30, 90]),
)
def test_limit_equals_the_head_of_the_full_ranking(
    events: list[tuple[int, Any]], cut: int, window: int
) -> None:
    """Whole days only, so ties in hits and recency are common; facts may be self-loops."""
    clock = ManualClock(BASE)
    with backends.memory(clock=clock) as mem:
        at = BASE
        for gap, (kind, offset, payload) in events:
            at += dt.timedelta(days=gap)
            clock.set(at)
            if kind == "session":
                mem.add_session(started_at=at - dt.timedelta(days=offset), mentions=payload)
            else:
                subject, obj = payload
                mem.add_fact(subject, "status", obj, valid_from=at + dt.timedelta(days=offset))
        now = BASE + dt.timedelta(days=cut)
        for weighting in ("plain", "idf"):
            ranking = full(mem, now=now, window=window, weighting=weighting)
            for k in range(1, len(ranking) + 2):
                got = fast(mem, k, now=now, window=window, weighting=weighting)
                assert got is None or got == ranking[:k], (k, weighting)
                limited = mem.hot_topics(now=now, window_days=window, limit=k, weighting=weighting)
                assert limited == ranking[:k], (k, weighting)
            assert mem.hot_topics(now=now, window_days=window, weighting=weighting) == ranking


@pytest.mark.parametrize("limit", [0, None])
def test_limit_zero_and_none_take_the_full_path(mem: gm.Memory, limit: int | None) -> None:
    sessions(mem, [(-1, ["a"])])
    assert mem.hot_topics(now=NOW, limit=limit) == full(mem)[:limit]
