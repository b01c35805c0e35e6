"""Tests for graphmem.hotness: the formula, bands, ranking, IDF weighting and as-of scoring."""

from __future__ import annotations

import datetime as dt
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.errors import InvalidInput
from graphmem.hotness import (
    Band,
    Mention,
    MentionRow,
    TopicCounts,
    TopicScore,
    classify,
    hotness_score,
    idf_weight,
    score_counts,
    score_topics,
)

UTC = dt.timezone.utc
NOW = dt.datetime(2026, 6, 30, 12, tzinfo=UTC)


def days(n: float) -> dt.timedelta:
    return dt.timedelta(days=n)


# --- classify ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "band"),
    [
        (1.0, Band.HOT),
        (0.6, Band.HOT),
        (0.6000000000000001, Band.HOT),
        (0.5999999999999999, Band.HOT),  # float noise of an exact 0.6
        (0.5999, Band.WARM),
        (0.3, Band.WARM),
        (0.2999, Band.COLD),
        (0.0, Band.COLD),
        (-0.5, Band.COLD),
        (1.5, Band.HOT),
    ],
)
def test_classify_boundaries(score: float, band: Band) -> None:
    assert classify(score) is band


def test_band_is_a_str_enum() -> None:
    assert isinstance(Band.HOT, str)
    assert [b.value for b in Band] == ["HOT", "WARM", "COLD"]
    assert Band("WARM") is Band.WARM
    assert Band.COLD == "COLD"
    assert str(Band.HOT) == "HOT"
    assert f"{Band.HOT}" == "HOT"


def test_computed_boundary_lands_on_exact_band() -> None:
    # 0.6 * 0.5 + 0.4 * 0.75 is 0.6 exactly on paper.
    assert classify(hotness_score(1, 2, 15)) is Band.HOT
    assert classify(hotness_score(1, 2, 60)) is Band.WARM  # 0.3 exactly


@pytest.mark.parametrize("bad", [float("nan"), "0.6", None])
def test_classify_rejects_non_numbers(bad: object) -> None:
    with pytest.raises(InvalidInput):
        classify(bad)  # type: ignore[arg-type]


# --- hotness_score ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hits", "max_hits", "age", "expected"),
    [
        (10, 10, 0, 1.0),
        (10, 10, 60, 0.6),
        (5, 10, 0, 0.7),
        (0, 10, 0, 0.4),
        (0, 10, 30, 0.2),
        (0, 10, 60, 0.0),
        (0, 10, 600, 0.0),
        (0, 0, 0, 0.4),  # max_hits 0 counts as 1
        (1, 0, 60, 0.6),
        (3, 10, -5, 0.58),  # negative age clamps to 0
        (10, 10, None, 0.6),  # never seen: recency 0
        (20, 10, 0, 1.0),  # clamped to 1
        (2.5, 5.0, 15, 0.6),
    ],
)
def test_hotness_score_table(
    hits: float, max_hits: float, age: float | None, expected: float
) -> None:
    assert hotness_score(hits, max_hits, age) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("hits", "max_hits", "age"),
    [(-1, 5, 0), (1, -5, 0), (float("nan"), 5, 0), (1, 5, float("nan")), ("1", 5, 0)],
)
def test_hotness_score_rejects_bad_input(hits: object, max_hits: object, age: object) -> None:
    with pytest.raises(InvalidInput):
        hotness_score(hits, max_hits, age)  # type: ignore[arg-type]


@given(
    hits=st.integers(min_value=0, max_value=10_000) | st.floats(0, 1e6),
    max_hits=st.integers(min_value=0, max_value=10_000) | st.floats(0, 1e6),
    age=st.none() | st.floats(-1e6, 1e6),
)
def test_hotness_score_within_unit_interval(
    hits: float, max_hits: float, age: float | None
) -> None:
    assert 0.0 <= hotness_score(hits, max_hits, age) <= 1.0


@given(st.floats(allow_nan=False), st.floats(allow_nan=False))
def test_classify_is_monotone(a: float, b: float) -> None:
    order = {Band.COLD: 0, Band.WARM: 1, Band.HOT: 2}
    lo, hi = sorted((a, b))
    assert order[classify(lo)] <= order[classify(hi)]


@given(
    st.integers(0, 100),
    st.integers(1, 100),
    st.floats(0, 100),
    st.floats(0, 100),
)
def test_hotness_monotone_in_hits_and_age(hits: int, extra: int, age: float, older: float) -> None:
    max_hits = hits + extra
    assert hotness_score(hits, max_hits, age) <= hotness_score(hits + extra, max_hits, age)
    assert hotness_score(hits, max_hits, age + older) <= hotness_score(hits, max_hits, age)


# --- idf_weight -------------------------------------------------------------------------------


def test_idf_weight() -> None:
    assert idf_weight(10, 10) == 0.0
    assert idf_weight(0, 0) == 0.0
    assert idf_weight(0, 10) == pytest.approx(math.log(11))
    assert idf_weight(1, 10) > idf_weight(5, 10) > idf_weight(10, 10)
    with pytest.raises(InvalidInput):
        idf_weight(11, 10)
    with pytest.raises(InvalidInput):
        idf_weight(-1, 10)


# --- score_topics -----------------------------------------------------------------------------


def by_topic(scores: list[TopicScore]) -> dict[str, TopicScore]:
    return {s.topic: s for s in scores}


def test_window_is_open_at_start_and_closed_at_now() -> None:
    rows: list[MentionRow] = [
        ("t", "at-now", NOW, 1),
        ("t", "inside", NOW - days(30) + dt.timedelta(seconds=1), 1),
        ("t", "at-start", NOW - days(30), 1),
        ("t", "future", NOW + dt.timedelta(seconds=1), 1),
    ]
    [score] = score_topics(rows, now=NOW)
    assert score.hits == 2
    assert score.age_days == 0.0


def test_custom_window() -> None:
    rows = [("t", "a", NOW - days(5), 1), ("t", "b", NOW - days(10), 1)]
    assert score_topics(rows, now=NOW, window_days=7)[0].hits == 1
    assert score_topics(rows, now=NOW, window_days=10.5)[0].hits == 2


def test_hits_count_distinct_sessions_not_mentions() -> None:
    rows = [
        Mention("kuzu", "s1", NOW, 9),
        Mention("kuzu", "s1", NOW, 3),
        Mention("kuzu", "s2", NOW - days(1)),
        Mention("ghost", "s3", NOW, 0),  # zero count: not a mention
    ]
    scores = by_topic(score_topics(rows, now=NOW))
    assert scores["kuzu"].hits == 2
    assert "ghost" not in scores


def test_age_uses_newest_of_fact_and_mention() -> None:
    rows = [("a", "s1", NOW - days(20), 1), ("b", "s1", NOW - days(20), 1)]
    last_seen = {"a": NOW - days(5), "b": NOW - days(40)}
    scores = by_topic(score_topics(rows, now=NOW, last_seen=last_seen))
    assert scores["a"].age_days == pytest.approx(5)
    assert scores["b"].age_days == pytest.approx(20)
    assert scores["a"].recency == pytest.approx(1 - 5 / 60)


def test_last_seen_after_now_is_ignored_and_pairs_are_accepted() -> None:
    rows = [("a", "s1", NOW - days(20), 1)]
    pairs = [("a", NOW + days(1)), ("a", NOW - days(10)), ("a", NOW - days(50))]
    [score] = score_topics(rows, now=NOW, last_seen=pairs)
    assert score.age_days == pytest.approx(10)


def test_topic_with_facts_but_no_mentions_is_scored_on_recency() -> None:
    scores = by_topic(
        score_topics([("a", "s1", NOW, 1)], now=NOW, last_seen={"quiet": NOW - days(30)})
    )
    assert scores["quiet"].hits == 0
    assert scores["quiet"].score == pytest.approx(0.2)
    assert scores["quiet"].band is Band.COLD


def test_old_mentions_count_for_age_but_not_hits() -> None:
    [score] = score_topics([("a", "s1", NOW - days(45), 1)], now=NOW)
    assert score.hits == 0
    assert score.age_days == pytest.approx(45)
    assert score.score == pytest.approx(0.4 * 15 / 60)


def test_order_is_score_desc_then_topic_name() -> None:
    rows = [
        ("zeta", "s1", NOW, 1),
        ("alpha", "s1", NOW, 1),
        ("mid", "s2", NOW, 1),
        ("mid", "s1", NOW, 1),
    ]
    assert [s.topic for s in score_topics(rows, now=NOW)] == ["mid", "alpha", "zeta"]
    assert [s.topic for s in score_topics(rows, now=NOW, limit=2)] == ["mid", "alpha"]
    assert score_topics(rows, now=NOW, limit=0) == []


def test_empty_input() -> None:
    assert score_topics([], now=NOW) == []


def test_now_in_another_timezone_is_the_same_instant() -> None:
    rows = [("a", "s1", NOW - days(1), 1)]
    other = NOW.astimezone(dt.timezone(dt.timedelta(hours=5)))
    assert score_topics(rows, now=other) == score_topics(rows, now=NOW)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"now": dt.datetime(2026, 6, 30)},  # naive
        {"now": NOW, "window_days": 0},
        {"now": NOW, "window_days": -1},
        {"now": NOW, "window_days": float("inf")},
        {"now": NOW, "weighting": "tfidf"},
        {"now": NOW, "limit": -1},
    ],
)
def test_score_topics_rejects_bad_arguments(kwargs: dict[str, object]) -> None:
    with pytest.raises(InvalidInput):
        score_topics([("a", "s1", NOW, 1)], **kwargs)  # type: ignore[arg-type]


def test_score_topics_rejects_naive_and_malformed_rows() -> None:
    with pytest.raises(InvalidInput, match="naive"):
        score_topics([("a", "s1", dt.datetime(2026, 6, 1), 1)], now=NOW)
    with pytest.raises(InvalidInput, match="malformed"):
        score_topics([("a", "s1", NOW)], now=NOW)  # type: ignore[list-item]


# --- IDF weighting ----------------------------------------------------------------------------


def false_hot_rows() -> list[MentionRow]:
    """A common word in every session, and a specific topic in a burst of recent sessions."""
    rows: list[MentionRow] = []
    for i in range(20):  # one session a day for 20 days, the newest at NOW
        session, at = f"s{i:02d}", NOW - days(19 - i)
        rows.append(("thing", session, at, 4))  # "thing" is named in every session
        if i >= 13:  # "kuzu" only in the last 7 sessions
            rows.append(("kuzu", session, at, 1))
    # 5 older sessions, outside the window, also say "thing"
    rows.extend(("thing", f"old{i}", NOW - days(40 + i), 1) for i in range(5))
    return rows


def test_idf_stops_a_common_word_from_being_falsely_hot() -> None:
    rows = false_hot_rows()
    plain = score_topics(rows, now=NOW)
    idf = score_topics(rows, now=NOW, weighting="idf")

    assert [s.topic for s in plain] == ["thing", "kuzu"]
    assert [s.topic for s in idf] == ["kuzu", "thing"]

    p, w = by_topic(plain), by_topic(idf)
    assert (p["thing"].hits, p["kuzu"].hits) == (20, 7)
    assert w["thing"].idf == 0.0  # df == N == 25 sessions
    assert w["kuzu"].idf == pytest.approx(math.log(26 / 8))
    assert w["kuzu"].weighted_hits > w["thing"].weighted_hits
    # Plain and IDF scores are reported side by side under both weightings.
    for topic in ("thing", "kuzu"):
        assert p[topic].plain_score == w[topic].plain_score == p[topic].score
        assert p[topic].idf_score == w[topic].idf_score == w[topic].score
    assert p["thing"].band is Band.HOT
    assert w["kuzu"].band is Band.HOT
    assert w["thing"].band is Band.WARM  # recency alone: not falsely hot
    assert w["thing"].idf_score == pytest.approx(0.4)
    assert (w["kuzu"].weighting, p["kuzu"].weighting) == ("idf", "plain")


def test_idf_and_plain_agree_when_topics_are_equally_rare() -> None:
    rows = [("a", "s0", NOW, 1), ("a", "s1", NOW, 1), ("b", "s2", NOW, 1), ("b", "s3", NOW, 1)]
    scores = score_topics(rows, now=NOW, weighting="idf")
    assert [s.idf_score for s in scores] == [s.plain_score for s in scores] == [1.0, 1.0]


def test_idf_without_contrast_rests_on_recency() -> None:
    # One session: every topic is in every session, so IDF carries no signal.
    scores = score_topics([("a", "s0", NOW, 1), ("b", "s0", NOW, 1)], now=NOW, weighting="idf")
    assert [(s.topic, s.idf_score, s.plain_score) for s in scores] == [
        ("a", 0.4, 1.0),
        ("b", 0.4, 1.0),
    ]


# --- as-of scoring ----------------------------------------------------------------------------


def test_hotness_as_of_past_date_ignores_later_data() -> None:
    past = NOW - days(10)
    rows = false_hot_rows()
    last_seen = [("kuzu", NOW - days(1)), ("kuzu", past - days(3)), ("paris", NOW)]
    known_then = [r for r in rows if r[2] <= past]
    seen_then = [p for p in last_seen if p[1] <= past]
    for weighting in ("plain", "idf"):
        asked = score_topics(rows, now=past, last_seen=last_seen, weighting=weighting)
        computed = score_topics(known_then, now=past, last_seen=seen_then, weighting=weighting)
        assert asked == computed
    assert "paris" not in by_topic(score_topics(rows, now=past, last_seen=last_seen))


TOPICS = st.sampled_from(["a", "b", "c", "d"])
SESSIONS = st.sampled_from([f"s{i}" for i in range(8)])
HOURS = st.integers(min_value=0, max_value=24 * 120)
BASE = dt.datetime(2026, 1, 1, tzinfo=UTC)


@st.composite
def mention_rows(draw: st.DrawFn) -> list[MentionRow]:
    # A session has one time, as in the store.
    times = {s: BASE + dt.timedelta(hours=draw(HOURS)) for s in (f"s{i}" for i in range(8))}
    pairs = draw(st.lists(st.tuples(TOPICS, SESSIONS, st.integers(0, 3)), max_size=30))
    return [(t, s, times[s], c) for t, s, c in pairs]


@given(
    rows=mention_rows(),
    facts=st.lists(st.tuples(TOPICS, HOURS.map(lambda h: BASE + dt.timedelta(hours=h)))),
    at=HOURS.map(lambda h: BASE + dt.timedelta(hours=h)),
    weighting=st.sampled_from(["plain", "idf"]),
)
def test_as_of_equals_scoring_with_data_known_then(
    rows: list[MentionRow],
    facts: list[tuple[str, dt.datetime]],
    at: dt.datetime,
    weighting: str,
) -> None:
    asked = score_topics(rows, now=at, last_seen=facts, weighting=weighting)  # type: ignore[arg-type]
    known = score_topics(
        [r for r in rows if r[2] <= at],
        now=at,
        last_seen=[f for f in facts if f[1] <= at],
        weighting=weighting,  # type: ignore[arg-type]
    )
    assert asked == known


@given(rows=mention_rows(), at=HOURS.map(lambda h: BASE + dt.timedelta(hours=h)))
def test_topic_scores_are_bounded_and_sorted(rows: list[MentionRow], at: dt.datetime) -> None:
    for weighting in ("plain", "idf"):
        scores = score_topics(rows, now=at, weighting=weighting)
        for s in scores:
            assert 0.0 <= s.plain_score <= 1.0
            assert 0.0 <= s.idf_score <= 1.0
            assert 0.0 <= s.engagement <= 1.0
            assert s.band is classify(s.score, hits=s.hits)
            if s.hits == 0:  # docs/concepts/hotness.md#hotness: no hits, never WARM or HOT
                assert s.band is Band.COLD
        keys = [(-s.score, s.topic) for s in scores]
        assert keys == sorted(keys)
        if any(s.weighted_hits if weighting == "idf" else s.hits for s in scores):
            assert max(s.engagement for s in scores) == 1.0


def test_topic_score_is_frozen() -> None:
    [score] = score_topics([("a", "s1", NOW, 1)], now=NOW)
    with pytest.raises(ValueError, match="frozen"):
        score.score = 0.0
    assert score.model_dump(mode="json")["band"] == "HOT"


# --- score_counts: the same scoring from per-topic counts -----------------------------------


def _counts_of(
    rows: list[MentionRow],
    at: dt.datetime,
    facts: list[tuple[str, dt.datetime]],
    window: float = 30.0,
) -> tuple[list[TopicCounts], int]:
    """Aggregate raw rows the way a store query does (the oracle for score_counts)."""
    known = [r for r in rows if r[3] > 0 and r[2] <= at]
    sessions = {r[1] for r in known}
    topics = {r[0] for r in known} | {t for t, when in facts if when <= at}
    counts = []
    for topic in topics:
        mine = [r for r in known if r[0] == topic]
        hits = len({r[1] for r in mine if r[2] > at - days(window)})
        times = [r[2] for r in mine] + [w for t, w in facts if t == topic and w <= at]
        counts.append(TopicCounts(topic, hits, len({r[1] for r in mine}), max(times)))
    return counts, len(sessions)


@given(
    rows=mention_rows(),
    facts=st.lists(st.tuples(TOPICS, HOURS.map(lambda h: BASE + dt.timedelta(hours=h)))),
    at=HOURS.map(lambda h: BASE + dt.timedelta(hours=h)),
    weighting=st.sampled_from(["plain", "idf"]),
)
def test_score_counts_equals_score_topics(
    rows: list[MentionRow],
    facts: list[tuple[str, dt.datetime]],
    at: dt.datetime,
    weighting: str,
) -> None:
    counts, n = _counts_of(rows, at, facts)
    expected = score_topics(rows, now=at, last_seen=facts, weighting=weighting)  # type: ignore[arg-type]
    assert score_counts(counts, now=at, n_sessions=n, weighting=weighting) == expected  # type: ignore[arg-type]


def test_score_counts_accepts_plain_tuples_and_limit() -> None:
    rows = [("a", 3, 3, NOW), ("b", 1, 2, NOW - days(1)), ("c", 0, 0, NOW - days(90))]
    scores = score_counts(rows, now=NOW, n_sessions=4, limit=2)
    assert [(s.topic, s.hits) for s in scores] == [("a", 3), ("b", 1)]
    assert score_counts([], now=NOW, n_sessions=0) == []


@pytest.mark.parametrize(
    ("rows", "kwargs", "match"),
    [
        ([("a", 2, 1, NOW)], {}, "larger than df"),
        ([("a", 1, 1, NOW + days(1))], {}, "after now"),
        ([("a", 1, 1, NOW), ("a", 1, 1, NOW)], {}, "twice"),
        ([("a", 1, 1)], {}, "malformed"),
        ([("a", -1, 1, NOW)], {}, "negative"),
        ([("a", 1, 5, NOW)], {}, "larger than n_sessions"),
        ([("a", 1, 1, dt.datetime(2026, 1, 1))], {}, "naive"),
        ([], {"weighting": "bm25"}, "weighting"),
        ([], {"limit": -1}, "limit"),
        ([], {"n_sessions": -1}, "n_sessions"),
    ],
)
def test_score_counts_rejects_bad_rows(
    rows: list[tuple[object, ...]], kwargs: dict[str, object], match: str
) -> None:
    args: dict[str, object] = {"now": NOW, "n_sessions": 2, **kwargs}
    with pytest.raises(InvalidInput, match=match):
        score_counts(rows, **args)  # type: ignore[arg-type]
