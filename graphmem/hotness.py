"""Topic hotness: how much a topic is being talked about right now.

See docs/concepts/hotness.md#hotness.

Pure functions over plain rows; no store access. :func:`score_topics` takes
``(topic, session_id, at, count)`` mention rows and, optionally, the times of the topics' facts;
:func:`score_counts` takes the same information already aggregated per topic
(:class:`TopicCounts`), which is what the facade feeds it (the store counts sessions in its
query engine, one row per topic instead of one per mention).

The formula, for a topic at time ``now``:

- ``hits`` = distinct sessions in the window ``(now - window_days, now]`` that mention it;
- ``engagement = hits / max_hits``, ``max_hits`` taken over all topics (0 counts as 1);
- ``recency = 1 - min(age_days, 60) / 60``, age = days since the topic's newest fact or mention;
- ``hotness = 0.6 * engagement + 0.4 * recency``, clamped to ``[0, 1]``;
- bands: HOT ``>= 0.6``, WARM ``>= 0.3``, COLD below; a topic with no hits in the window is
  COLD whatever its recency (docs/concepts/hotness.md#hotness).

Beyond the anchor, ``weighting="idf"`` weights hits by inverse document frequency so a topic
named by a common word (one that shows up in nearly every session) does not look falsely hot.
Both scores are always reported side by side (:class:`TopicScore`).

>>> hotness_score(3, 3, 0)
1.0
>>> classify(hotness_score(1, 2, 30))
<Band.WARM: 'WARM'>
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable, Mapping
from enum import Enum
from typing import Literal, NamedTuple, Union

from pydantic import BaseModel, ConfigDict, Field

from graphmem.errors import InvalidInput
from graphmem.timeutil import to_utc

__all__ = [
    "ENGAGEMENT_WEIGHT",
    "HOT_THRESHOLD",
    "RECENCY_HORIZON_DAYS",
    "RECENCY_WEIGHT",
    "WARM_THRESHOLD",
    "WINDOW_DAYS",
    "Band",
    "Mention",
    "MentionRow",
    "TopicCounts",
    "TopicScore",
    "Weighting",
    "classify",
    "hotness_score",
    "idf_weight",
    "score_counts",
    "score_topics",
]

ENGAGEMENT_WEIGHT = 0.6
RECENCY_WEIGHT = 0.4
RECENCY_HORIZON_DAYS = 60.0
WINDOW_DAYS = 30.0
HOT_THRESHOLD = 0.6
WARM_THRESHOLD = 0.3

# Scores are rounded to this many places so that float noise (0.6000000000000001) neither shows
# up in reports nor changes a sort order; classify() compares at coarser precision (below).
_SCORE_PLACES = 12
_BAND_PLACES = 9
_SECONDS_PER_DAY = 86_400.0

Weighting = Literal["plain", "idf"]
MentionRow = tuple[str, str, dt.datetime, int]
"""A plain mention row: ``(topic, session_id, at, count)``; ``at`` is the session's time."""

LastSeen = Union[Mapping[str, dt.datetime], Iterable[tuple[str, dt.datetime]]]


class Band(str, Enum):
    """Hotness band of a score: HOT ``>= 0.6``, WARM ``>= 0.3``, COLD below."""

    HOT = "HOT"
    WARM = "WARM"
    COLD = "COLD"

    def __str__(self) -> str:
        return self.value


class Mention(NamedTuple):
    """One topic mentioned in one session (a :data:`MentionRow` with names).

    Attributes:
        topic: the topic or entity name.
        session_id: the session that mentions it; hits count distinct sessions.
        at: when the session happened (aware datetime).
        n_mentions: how many times the session mentions the topic; rows with
            ``n_mentions <= 0`` are ignored, otherwise it does not change hits (sessions are
            counted, not words).
    """

    topic: str
    session_id: str
    at: dt.datetime
    n_mentions: int = 1


class TopicCounts(NamedTuple):
    """One topic's counts as of a time ``now``: the input row of :func:`score_counts`.

    Attributes:
        topic: the topic or entity name.
        hits: distinct sessions dated in the window ``(now - window_days, now]`` that mention it.
        df: distinct sessions dated ``<= now`` that mention it (all history; ``>= hits``).
        last_seen: the newest of its mention and fact times ``<= now`` (aware datetime).
    """

    topic: str
    hits: int
    df: int
    last_seen: dt.datetime


class TopicScore(BaseModel):
    """The hotness of one topic at ``now``, with the plain and IDF-weighted scores side by side.

    ``score``, ``engagement`` and ``band`` follow the requested ``weighting``; ``plain_score``
    and ``idf_score`` are both always present so callers can compare them.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    topic: str
    hits: int = Field(ge=0, description="Distinct sessions in the window mentioning the topic.")
    idf: float = Field(ge=0.0, description="Inverse document frequency of the topic.")
    weighted_hits: float = Field(ge=0.0, description="hits * idf.")
    engagement: float = Field(ge=0.0, le=1.0, description="Engagement under `weighting`.")
    recency: float = Field(ge=0.0, le=1.0)
    age_days: float = Field(ge=0.0, description="Days since the newest fact or mention.")
    plain_score: float = Field(ge=0.0, le=1.0)
    idf_score: float = Field(ge=0.0, le=1.0)
    score: float = Field(ge=0.0, le=1.0, description="The score under `weighting`.")
    band: Band
    weighting: Weighting

    def __str__(self) -> str:
        from graphmem.display import score_text

        return score_text(self)

    def _repr_html_(self) -> str:  # Jupyter's table view
        from graphmem.display import ResultList

        return ResultList([self])._repr_html_()


def _check_number(name: str, value: float, *, minimum: float | None = 0.0) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidInput(f"{name}={value!r} is not a number; pass an int or a float")
    if math.isnan(value):
        raise InvalidInput(f"{name}=nan is not a number; pass a finite value")
    if minimum is not None and value < minimum:
        raise InvalidInput(f"{name}={value!r} is negative; pass a value >= {minimum:g}")


def _recency(age_days: float | None) -> float:
    if age_days is None:
        return 0.0
    _check_number("age_days", age_days, minimum=None)
    age = min(max(age_days, 0.0), RECENCY_HORIZON_DAYS)
    return 1.0 - age / RECENCY_HORIZON_DAYS


def _clamp01(value: float) -> float:
    return min(max(value, 0.0), 1.0)


def hotness_score(hits: float, max_hits: float, age_days: float | None) -> float:
    """Compute the hotness of one topic from its hits and age.

    ``hotness = 0.6 * hits / max_hits + 0.4 * (1 - min(age_days, 60) / 60)``, clamped to
    ``[0, 1]`` and rounded to 12 decimal places.

    Args:
        hits: distinct sessions in the window mentioning the topic (a float is accepted for
            IDF-weighted hits).
        max_hits: the largest ``hits`` over all topics; 0 counts as 1.
        age_days: days since the topic's newest fact or mention; a negative age counts as 0
            and ``None`` (never seen) gives a recency of 0.

    Returns:
        The hotness score in ``[0, 1]``.

    Raises:
        InvalidInput: ``hits`` or ``max_hits`` negative or not a number, or ``age_days`` NaN.

    Examples:
        >>> hotness_score(5, 10, 0)
        0.7
        >>> hotness_score(10, 10, 60)
        0.6
        >>> hotness_score(0, 0, 30)
        0.2
        >>> hotness_score(2, 4, None)
        0.3
    """
    _check_number("hits", hits)
    _check_number("max_hits", max_hits)
    engagement = hits / (max_hits if max_hits > 0 else 1)
    raw = ENGAGEMENT_WEIGHT * engagement + RECENCY_WEIGHT * _recency(age_days)
    return _clamp01(round(raw, _SCORE_PLACES))


def classify(score: float, *, hits: float | None = None) -> Band:
    """Return the band of a hotness score: HOT ``>= 0.6``, WARM ``>= 0.3``, else COLD.

    The score is compared at 9 decimal places, so float noise such as ``0.5999999999999999``
    (from ``0.6 * 0.5 + 0.4 * 0.75``) lands in the band its exact value belongs to. The rounding
    is monotone, so a higher score never gets a lower band. A topic with no hits in the window
    is COLD: its score is recency alone (at most 0.4), and a topic nobody talked about lately
    is not warm because a fact about it is new (docs/concepts/hotness.md#hotness).

    Args:
        score: a hotness score, normally in ``[0, 1]``.
        hits: the topic's hits in the window, when known (``0``: COLD).

    Returns:
        :attr:`Band.HOT`, :attr:`Band.WARM` or :attr:`Band.COLD`.

    Raises:
        InvalidInput: ``score`` is NaN or not a number.

    Examples:
        >>> classify(0.6), classify(0.5999), classify(0.3), classify(0.2999)
        (<Band.HOT: 'HOT'>, <Band.WARM: 'WARM'>, <Band.WARM: 'WARM'>, <Band.COLD: 'COLD'>)
        >>> str(classify(0.95)), str(classify(0.4, hits=0))
        ('HOT', 'COLD')
    """
    _check_number("score", score, minimum=None)
    if hits is not None:
        _check_number("hits", hits)
        if hits == 0:
            return Band.COLD
    rounded = round(score, _BAND_PLACES)
    if rounded >= HOT_THRESHOLD:
        return Band.HOT
    if rounded >= WARM_THRESHOLD:
        return Band.WARM
    return Band.COLD


def idf_weight(df: int, n_sessions: int) -> float:
    """Return the inverse document frequency ``ln((1 + N) / (1 + df))`` of a topic.

    ``N`` is the number of sessions (documents) and ``df`` the number of them that mention the
    topic. A topic named in every session gets 0: it says nothing about what is hot *now*. The
    weight grows as the topic gets rarer, up to ``ln(1 + N)``; the ``+1`` terms keep it finite
    for ``df = 0`` and never negative.

    Args:
        df: sessions mentioning the topic.
        n_sessions: all sessions, ``>= df``.

    Returns:
        The weight, ``>= 0``.

    Raises:
        InvalidInput: a negative count, or ``df > n_sessions``.

    Examples:
        >>> idf_weight(10, 10)
        0.0
        >>> round(idf_weight(1, 10), 4)
        1.7047
    """
    _check_number("df", df)
    _check_number("n_sessions", n_sessions)
    if df > n_sessions:
        raise InvalidInput(
            f"df={df} is larger than n_sessions={n_sessions}; a topic cannot appear in more "
            "sessions than there are"
        )
    return math.log((1 + n_sessions) / (1 + df))


def _last_seen_pairs(last_seen: LastSeen | None) -> Iterable[tuple[str, dt.datetime]]:
    if last_seen is None:
        return ()
    if isinstance(last_seen, Mapping):
        return last_seen.items()
    return last_seen


def score_topics(
    mentions: Iterable[MentionRow],
    *,
    now: dt.datetime,
    window_days: float = WINDOW_DAYS,
    last_seen: LastSeen | None = None,
    weighting: Weighting = "plain",
    limit: int | None = None,
) -> list[TopicScore]:
    """Rank topics by hotness as of ``now``.

    Everything dated after ``now`` is ignored, so hotness asked as of a past date equals the
    hotness computed then from what was known then. A topic is scored when it has a mention or
    a ``last_seen`` time at or before ``now``.

    - ``hits``: distinct sessions dated in ``(now - window_days, now]`` that mention the topic.
    - age: days from the topic's newest mention or ``last_seen`` time (both ``<= now``) to
      ``now``; mentions older than the window still count for age.
    - IDF: with ``N`` the distinct sessions dated ``<= now`` (all history, not just the window)
      and ``df`` those mentioning the topic, ``idf = ln((1 + N) / (1 + df))``
      (:func:`idf_weight`), ``weighted_hits = hits * idf``, and the IDF engagement is
      ``weighted_hits / max(weighted_hits)`` (0 for every topic when all weights are 0). A word
      named in every session gets ``idf = 0``, so its IDF score rests on recency alone (at most
      0.4, WARM) and a specific, recently busy topic outranks it. Counting ``N`` and ``df`` over
      all history keeps a topic that is new and suddenly everywhere hot.

    Args:
        mentions: ``(topic, session_id, at, count)`` rows (or :class:`Mention`); rows with
            ``count <= 0`` are ignored.
        now: the aware time to score at.
        window_days: the length of the hits window, in days (> 0).
        last_seen: the times of each topic's facts, as a mapping ``topic -> newest fact time``
            or as ``(topic, time)`` pairs (several per topic allowed); times after ``now`` are
            ignored, so for an as-of query pass pairs or the newest time known by ``now``.
        weighting: ``"plain"`` or ``"idf"``; decides ``score``, ``engagement``, ``band`` and
            the order. Both scores are always reported.
        limit: keep only the first ``limit`` topics; ``None`` keeps all.

    Returns:
        Topic scores sorted by ``score`` descending, then topic name ascending.

    Raises:
        InvalidInput: a naive ``now`` or row time, a malformed row, ``window_days <= 0``, an
            unknown ``weighting`` or a negative ``limit``.

    Examples:
        >>> import datetime as dt
        >>> now = dt.datetime(2026, 6, 30, tzinfo=dt.timezone.utc)
        >>> rows = [
        ...     ("kuzu", "s1", now - dt.timedelta(days=2), 3),
        ...     ("kuzu", "s2", now, 1),
        ...     ("paris", "s2", now, 1),
        ...     ("later", "s3", now + dt.timedelta(days=1), 1),
        ... ]
        >>> [(t.topic, t.hits, t.score, str(t.band)) for t in score_topics(rows, now=now)]
        [('kuzu', 2, 1.0, 'HOT'), ('paris', 1, 0.7, 'HOT')]
    """
    now = to_utc(now, name="now")
    _check_number("window_days", window_days)
    if window_days <= 0 or math.isinf(window_days):
        raise InvalidInput(f"window_days={window_days!r} must be a positive, finite number of days")
    _check_options(weighting, limit)
    start = now - dt.timedelta(days=window_days)

    sessions: set[str] = set()
    df_sessions: dict[str, set[str]] = {}
    window_sessions: dict[str, set[str]] = {}
    newest: dict[str, dt.datetime] = {}

    for row in mentions:
        try:
            topic, session_id, at, count = row
        except (TypeError, ValueError) as exc:
            raise InvalidInput(
                f"mention row {row!r} is malformed; pass (topic, session_id, at, count)"
            ) from exc
        if count <= 0:
            continue
        at = to_utc(at, name=f"time of mention {topic!r} in session {session_id!r}")
        if at > now:
            continue
        sessions.add(session_id)
        df_sessions.setdefault(topic, set()).add(session_id)
        if at > start:
            window_sessions.setdefault(topic, set()).add(session_id)
        if topic not in newest or at > newest[topic]:
            newest[topic] = at

    for topic, seen in _last_seen_pairs(last_seen):
        seen = to_utc(seen, name=f"last_seen[{topic!r}]")
        if seen <= now and (topic not in newest or seen > newest[topic]):
            newest[topic] = seen

    counts = [
        TopicCounts(
            topic,
            len(window_sessions.get(topic, ())),
            len(df_sessions.get(topic, ())),
            seen,
        )
        for topic, seen in newest.items()
    ]
    return score_counts(counts, now=now, n_sessions=len(sessions), weighting=weighting, limit=limit)


def _check_options(weighting: str, limit: int | None) -> None:
    if weighting not in ("plain", "idf"):
        raise InvalidInput(f"weighting={weighting!r} is unknown; use 'plain' or 'idf'")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise InvalidInput(f"limit={limit!r} must be a non-negative int or None")


def score_counts(
    counts: Iterable[TopicCounts | tuple[str, int, int, dt.datetime]],
    *,
    now: dt.datetime,
    n_sessions: int,
    weighting: Weighting = "plain",
    limit: int | None = None,
) -> list[TopicScore]:
    """Rank topics by hotness from per-topic counts that a store aggregated already.

    This is the second half of :func:`score_topics` (which aggregates raw mention rows and
    calls it): a store that counts sessions in its query engine feeds it one row per topic
    instead of one row per mention, and gets exactly the same scores.

    Args:
        counts: one :class:`TopicCounts` (or plain ``(topic, hits, df, last_seen)`` tuple) per
            topic, all computed as of ``now``; topics must be distinct.
        now: the aware time to score at; ``last_seen`` times must not be after it.
        n_sessions: ``N`` for the IDF: distinct sessions dated ``<= now`` that mention any
            topic.
        weighting: ``"plain"`` or ``"idf"``, as in :func:`score_topics`.
        limit: keep only the first ``limit`` topics; ``None`` keeps all.

    Returns:
        Topic scores sorted by ``score`` descending, then topic name ascending.

    Raises:
        InvalidInput: a naive time, a malformed row, a count that is negative or inconsistent
            (``hits > df``, ``df > n_sessions``), a ``last_seen`` after ``now``, a repeated
            topic, an unknown ``weighting`` or a negative ``limit``.

    Examples:
        >>> import datetime as dt
        >>> now = dt.datetime(2026, 6, 30, tzinfo=dt.timezone.utc)
        >>> rows = [TopicCounts("kuzu", 2, 2, now), TopicCounts("paris", 1, 1, now)]
        >>> [(t.topic, t.score, str(t.band)) for t in score_counts(rows, now=now, n_sessions=2)]
        [('kuzu', 1.0, 'HOT'), ('paris', 0.7, 'HOT')]
    """
    now = to_utc(now, name="now")
    _check_options(weighting, limit)
    _check_number("n_sessions", n_sessions)

    rows: dict[str, TopicCounts] = {}
    for raw in counts:
        try:
            row = TopicCounts(*raw)
        except TypeError as exc:
            raise InvalidInput(
                f"topic counts {raw!r} are malformed; pass (topic, hits, df, last_seen)"
            ) from exc
        _check_number(f"hits of {row.topic!r}", row.hits)
        if row.hits > row.df:
            raise InvalidInput(
                f"hits={row.hits} of {row.topic!r} is larger than df={row.df}; the sessions in "
                "the window are a subset of all sessions mentioning the topic"
            )
        seen = to_utc(row.last_seen, name=f"last_seen of {row.topic!r}")
        if seen > now:
            raise InvalidInput(
                f"last_seen={seen.isoformat()} of {row.topic!r} is after now={now.isoformat()}; "
                "count only what is dated at or before now"
            )
        if row.topic in rows:
            raise InvalidInput(f"topic {row.topic!r} appears twice; pass one row per topic")
        rows[row.topic] = row._replace(last_seen=seen)

    hits = {topic: row.hits for topic, row in rows.items()}
    idf = {topic: idf_weight(row.df, n_sessions) for topic, row in rows.items()}
    weighted = {topic: hits[topic] * idf[topic] for topic in rows}
    max_hits = max(hits.values(), default=0)
    max_weighted = max(weighted.values(), default=0.0)

    scores: list[TopicScore] = []
    for topic, row in rows.items():
        age_days = max((now - row.last_seen).total_seconds() / _SECONDS_PER_DAY, 0.0)
        plain = hotness_score(hits[topic], max_hits, age_days)
        weighted_score = hotness_score(weighted[topic], max_weighted, age_days)
        if weighting == "idf":
            engagement = weighted[topic] / (max_weighted if max_weighted > 0 else 1)
            score = weighted_score
        else:
            engagement = hits[topic] / (max_hits if max_hits > 0 else 1)
            score = plain
        scores.append(
            TopicScore(
                topic=topic,
                hits=hits[topic],
                idf=round(idf[topic], _SCORE_PLACES),
                weighted_hits=round(weighted[topic], _SCORE_PLACES),
                engagement=_clamp01(round(engagement, _SCORE_PLACES)),
                recency=round(_recency(age_days), _SCORE_PLACES),
                age_days=age_days,
                plain_score=plain,
                idf_score=weighted_score,
                score=score,
                band=classify(score, hits=hits[topic]),
                weighting=weighting,
            )
        )
    scores.sort(key=lambda s: (-s.score, s.topic))
    return scores if limit is None else scores[:limit]
