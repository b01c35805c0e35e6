"""Tests for graphmem.triage: scores, composite, rules, ranking; recurrence inside the window."""

from __future__ import annotations

import datetime as dt
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

import graphmem as gm
from graphmem.errors import InvalidInput
from graphmem.timeutil import ManualClock
from graphmem.triage import (
    PRESCRIPTIVE_CUES,
    Recommendation,
    TopicTriage,
    TriageRow,
    actionability_score,
    composite_score,
    recency_score,
    recommend,
    recurrence_score,
    staleness_score,
    triage_topics,
)
from tests import backends

UNIT = st.floats(min_value=0.0, max_value=1.0)
ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


@pytest.mark.parametrize(
    ("days", "expected"),
    [
        (-3, 1.0),
        (0, 1.0),
        (7, 1.0),
        (7.01, 0.7),
        (14, 0.7),
        (14.01, 0.4),
        (30, 0.4),
        (30.01, 0.1),
        (365, 0.1),
        (float("inf"), 0.1),
        (None, 0.1),
    ],
)
def test_recency_score_steps(days: float | None, expected: float) -> None:
    assert recency_score(days) == expected


@pytest.mark.parametrize(
    ("n", "expected"),
    [(0, 0.0), (1, 1 / 3), (2, 2 / 3), (3, 1.0), (4, 1.0), (1000, 1.0)],
)
def test_recurrence_score(n: int, expected: float) -> None:
    assert recurrence_score(n) == pytest.approx(expected)


def test_recurrence_reaches_one_at_exactly_three_sessions() -> None:
    assert recurrence_score(2) < 1.0
    assert recurrence_score(3) == 1.0


@pytest.mark.parametrize("cue", PRESCRIPTIVE_CUES)
def test_every_cue_is_actionable_in_any_case(cue: str) -> None:
    assert actionability_score(f"You {cue} do this.") == 1.0
    assert actionability_score(f"You {cue.upper()} do this.") == 1.0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Alice lives in Paris.", 0.0),
        ("", 0.0),
        ("Importantly, nothing here.", 0.0),  # not the whole word "important"
        ("Two warnings were logged.", 0.0),
        ("musty smell; forever young", 0.0),
        ("beforehand", 0.0),
        ("Use uv instead\nof pip", 1.0),
        ("Never deploy on Fridays", 1.0),
        ("CRITICAL: rotate keys", 1.0),
        ("run tests (before merging)", 1.0),
    ],
)
def test_actionability_whole_words(text: str, expected: float) -> None:
    assert actionability_score(text) == expected


@pytest.mark.parametrize(
    ("age", "expected"),
    [(-1, 0.0), (0, 0.0), (30, 0.5), (48, 0.8), (60, 1.0), (61, 1.0), (None, 1.0)],
)
def test_staleness_score(age: float | None, expected: float) -> None:
    assert staleness_score(age) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((1.0, 1.0, 1.0, 0.0), 1.0),
        ((0.0, 0.0, 0.0, 1.0), 0.0),
        ((1.0, 0.0, 0.0, 1.0), 0.30),
        ((0.0, 1.0, 0.0, 1.0), 0.25),
        ((0.0, 0.0, 1.0, 1.0), 0.25),
        ((0.0, 0.0, 0.0, 0.0), 0.20),
        ((0.4, 2 / 3, 0.0, 0.5), 0.12 + 1 / 6 + 0.1),
    ],
)
def test_composite_weights(args: tuple[float, float, float, float], expected: float) -> None:
    assert composite_score(*args) == pytest.approx(expected, abs=1e-12)


@given(UNIT, UNIT, UNIT, UNIT)
def test_composite_within_unit_interval(a: float, b: float, c: float, d: float) -> None:
    assert 0.0 <= composite_score(a, b, c, d) <= 1.0


@given(
    days=st.none() | st.floats(-100, 1e6),
    n=st.integers(0, 10_000),
    text=st.text(max_size=40),
    age=st.none() | st.floats(-100, 1e6),
)
def test_components_within_unit_interval(
    days: float | None, n: int, text: str, age: float | None
) -> None:
    parts = (
        recency_score(days),
        recurrence_score(n),
        actionability_score(text),
        staleness_score(age),
    )
    assert all(0.0 <= p <= 1.0 for p in parts)
    assert 0.0 <= composite_score(*parts) <= 1.0


@given(st.floats(-100, 1e4), st.floats(0, 1e4))
def test_recency_monotone_non_increasing(days: float, more: float) -> None:
    assert recency_score(days + more) <= recency_score(days)


@pytest.mark.parametrize(
    ("bad_call"),
    [
        lambda: composite_score(1.1, 0, 0, 0),
        lambda: composite_score(0, -0.1, 0, 0),
        lambda: composite_score(0, 0, float("nan"), 0),
        lambda: recurrence_score(-1),
        lambda: recurrence_score(1.5),  # type: ignore[arg-type]
        lambda: recency_score(float("nan")),
        lambda: staleness_score("10"),  # type: ignore[arg-type]
        lambda: actionability_score(None),  # type: ignore[arg-type]
        lambda: recommend(recency=1, recurrence=1, staleness=0, n_facts=-1),
        lambda: recommend(recency=2, recurrence=1, staleness=0, n_facts=1),
    ],
)
def test_bad_inputs_raise_invalid_input(bad_call: object) -> None:
    with pytest.raises(InvalidInput):
        bad_call()  # type: ignore[operator]


# --- recommend --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("recency", "recurrence", "staleness", "n_facts", "expected"),
    [
        # ARCHIVE: staleness > 0.8 and recurrence < 0.2
        (0.1, 0.0, 0.81, 10, "ARCHIVE"),
        (0.1, 0.0, 0.8, 10, "KEEP"),
        (0.1, 0.2, 1.0, 10, "KEEP"),
        (0.1, 0.0, 1.0, 1000, "ARCHIVE"),  # ARCHIVE wins over PRUNE
        # PRUNE: n_facts > 300 and recurrence < 0.4
        (1.0, 1 / 3, 0.0, 301, "PRUNE"),
        (1.0, 1 / 3, 0.0, 300, "KEEP"),
        (1.0, 0.4, 0.0, 301, "KEEP"),
        (1.0, 0.0, 0.5, 301, "PRUNE"),
        # UPDATE: recency < 0.4 and recurrence > 0.6
        (0.1, 2 / 3, 0.5, 10, "UPDATE"),
        (0.4, 1.0, 0.5, 10, "KEEP"),
        (0.1, 0.6, 0.5, 10, "KEEP"),
        (0.1, 1.0, 1.0, 10, "UPDATE"),
        # KEEP
        (1.0, 1.0, 0.0, 5, "KEEP"),
    ],
)
def test_recommend_rules_in_order(
    recency: float, recurrence: float, staleness: float, n_facts: int, expected: str
) -> None:
    rec = recommend(recency=recency, recurrence=recurrence, staleness=staleness, n_facts=n_facts)
    assert rec is Recommendation(expected)


def test_prune_at_300_vs_301_facts_from_raw_inputs() -> None:
    one_session = recurrence_score(1)
    kwargs = {"recency": recency_score(2), "recurrence": one_session, "staleness": 0.0}
    assert recommend(**kwargs, n_facts=300) is Recommendation.KEEP
    assert recommend(**kwargs, n_facts=301) is Recommendation.PRUNE


def test_recommendation_is_a_str_enum() -> None:
    assert [r.value for r in Recommendation] == [r.name for r in Recommendation]
    assert set(Recommendation) == {"ARCHIVE", "PRUNE", "UPDATE", "KEEP"}
    assert str(Recommendation.PRUNE) == "PRUNE"


def test_recommend_is_keyword_only() -> None:
    with pytest.raises(TypeError):
        recommend(0.1, 0.0, 1.0, 3)  # type: ignore[call-arg]


# --- triage_topics ----------------------------------------------------------------------------


ROWS = [
    TriageRow("healthy", 1, 6, ["Always pin versions."], 1, 40),
    TriageRow("old-job", None, 0, ["Alice worked at Initech."], 90, 3),
    TriageRow("logs", 3, 1, False, 2, 450),
    TriageRow("python", 45, 4, True, 45, 20),
    TriageRow("quiet", 20, 1, "nothing prescriptive", 10, 2),
]


def test_triage_lists_worst_first_with_reasons() -> None:
    result = triage_topics(ROWS)
    assert [(t.topic, t.recommendation.value) for t in result] == [
        ("old-job", "ARCHIVE"),
        ("logs", "PRUNE"),
        ("python", "UPDATE"),
        ("quiet", "KEEP"),
        ("healthy", "KEEP"),
    ]
    attention = [t for t in result if t.needs_attention]
    assert [t.composite for t in attention] == sorted(t.composite for t in attention)
    by = {t.topic: t for t in result}
    assert "archiv" in by["old-job"].reason
    assert "450 current facts" in by["logs"].reason
    assert "45 days ago" in by["python"].reason
    assert "no action" in by["healthy"].reason
    assert all("\n" not in t.reason for t in result)


def test_triage_components_match_the_scoring_functions() -> None:
    [python] = [t for t in triage_topics(ROWS) if t.topic == "python"]
    assert python.recency == recency_score(45)
    assert python.recurrence == 1.0
    assert python.actionability == 1.0
    assert python.staleness == staleness_score(45)
    assert python.composite == composite_score(0.1, 1.0, 1.0, 0.75)
    assert isinstance(python, TopicTriage)


def test_triage_actionability_from_texts_or_flag() -> None:
    rows: list[TriageRow] = [
        TriageRow("a", 1, 3, ["plain", "you must test"], 1, 1),
        TriageRow("b", 1, 3, [], 1, 1),
        TriageRow("c", 1, 3, "Never again", 1, 1),
        TriageRow("d", 1, 3, True, 1, 1),
    ]
    got = {t.topic: t.actionability for t in triage_topics(rows)}
    assert got == {"a": 1.0, "b": 0.0, "c": 1.0, "d": 1.0}


def test_triage_limit_and_attention_only() -> None:
    assert [t.topic for t in triage_topics(ROWS, limit=2)] == ["old-job", "logs"]
    assert [t.topic for t in triage_topics(ROWS, attention_only=True)] == [
        "old-job",
        "logs",
        "python",
    ]
    assert triage_topics([]) == []


def test_triage_is_advisory_and_does_not_touch_inputs() -> None:
    texts = ["Always pin versions."]
    rows = [TriageRow("t", 1, 1, texts, 1, 1)]
    triage_topics(rows)
    assert texts == ["Always pin versions."]
    assert rows == [TriageRow("t", 1, 1, texts, 1, 1)]


@pytest.mark.parametrize(
    "bad",
    [
        [("too", "short")],
        [("t", 1, -1, False, 1, 1)],
        [("t", 1, 1, False, 1, -5)],
    ],
)
def test_triage_rejects_bad_rows(bad: list[tuple[object, ...]]) -> None:
    with pytest.raises(InvalidInput):
        triage_topics(bad)  # type: ignore[arg-type]


def test_triage_rejects_negative_limit() -> None:
    with pytest.raises(InvalidInput):
        triage_topics(ROWS, limit=-1)


@given(
    st.lists(
        st.tuples(
            st.text(min_size=1, max_size=5),
            st.none() | st.floats(0, 400),
            st.integers(0, 20),
            st.booleans(),
            st.none() | st.floats(0, 400),
            st.integers(0, 1000),
        ),
        max_size=15,
    )
)
def test_triage_order_property(
    rows: list[tuple[str, float | None, int, bool, float | None, int]],
) -> None:
    result = triage_topics(rows)
    assert len(result) == len(rows)
    keys = [(not t.needs_attention, t.composite, t.topic) for t in result]
    assert keys == sorted(keys)
    for t in result:
        assert 0.0 <= t.composite <= 1.0
        assert t.reason


# -- recurrence inside the lookback window, through the public API --------------------------------


def _memory_with_a_topic_that_went_cold() -> tuple[gm.Memory, dt.datetime]:
    """The "lib-pcb" case: worked on in 5 sessions 72-80 days ago, never since; plus a live one."""
    now = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)
    clock = ManualClock(now - dt.timedelta(days=81))
    mem = backends.memory(clock=clock)
    mem.add_fact("lib-pcb", "written_in", "Rust", statement="lib-pcb is written in Rust")
    for days_ago in (80, 78, 76, 74, 72):
        when = now - dt.timedelta(days=days_ago)
        clock.set(when)
        mem.add_session(started_at=when, mentions=["lib-pcb"], title=f"lib-pcb {days_ago}")
    clock.set(now - dt.timedelta(days=72))
    mem.add_fact("lib-pcb", "status", "routing works")
    for days_ago in (20, 9, 2):
        when = now - dt.timedelta(days=days_ago)
        clock.set(when)
        mem.add_session(started_at=when, mentions=["graphmem"])
    mem.add_fact("graphmem", "runs_on", "kuzu")
    clock.set(now)
    return mem, now


def test_a_topic_that_went_cold_is_archive_not_update() -> None:
    mem, now = _memory_with_a_topic_that_went_cold()
    with mem:
        got = {t.topic: t for t in mem.triage(now=now, limit=None)}
        cold = got["lib-pcb"]
        assert cold.n_sessions == 0  # five sessions, all before the 30-day window
        assert cold.recurrence == 0.0
        assert cold.days_since_last == pytest.approx(72)
        assert cold.recency == 0.1
        assert cold.staleness == 1.0  # newest fact 72 days old
        assert cold.recommendation is Recommendation.ARCHIVE
        assert "0 sessions in the window" in cold.reason
        live = got["graphmem"]
        assert (live.n_sessions, live.recurrence) == (3, 1.0)
        assert live.recommendation is Recommendation.KEEP
        # Counted over a window that holds them, the same sessions recur: then it is UPDATE.
        wide = {t.topic: t for t in mem.triage(now=now, limit=None, window_days=90)}
        assert wide["lib-pcb"].n_sessions == 5
        assert wide["lib-pcb"].recommendation is Recommendation.UPDATE


def test_the_lookback_window_bounds_are_half_open() -> None:
    now = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)
    clock = ManualClock(now - dt.timedelta(days=40))
    with backends.memory(clock=clock) as mem:
        for days_ago in (30, 29.99, 0):  # exactly 30 days ago is outside (now - 30 d, now]
            when = now - dt.timedelta(days=days_ago)
            clock.set(when)
            mem.add_session(started_at=when, mentions=["edge"])
        (t,) = mem.triage(now=now, limit=None)
        assert t.n_sessions == 2
        assert mem.triage(now=now, limit=None, window_days=31)[0].n_sessions == 3


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), True, "30"])
def test_triage_rejects_a_bad_window(bad: object) -> None:
    with backends.memory() as mem, pytest.raises(InvalidInput, match="window_days"):
        mem.triage(window_days=bad)  # type: ignore[arg-type]
