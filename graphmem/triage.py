"""Topic triage: which topics need attention. Advisory only, never changes data.

See docs/concepts/hotness.md#triage.

Pure functions over plain numbers; :func:`triage_topics` takes one row per topic (as a store
query would return it) and lists the topics a user should look at first.

Component scores, each in ``[0, 1]``:

- ``recency``: 1.0 if the last mention is at most 7 days old, 0.7 if at most 14, 0.4 if at most
  30, else 0.1 (never mentioned: 0.1);
- ``recurrence = min(sessions / 3, 1)``, ``sessions`` being the distinct sessions that mention
  the topic inside the lookback window (default 30 days), as Synthesis counts it: a topic worked
  on heavily long ago and not since has recurrence 0;
- ``actionability``: 1.0 if the topic's facts contain a prescriptive cue (always, never, must,
  instead of, before, critical, warning, important; whole words, any case), else 0.0;
- ``staleness = min(age_days / 60, 1)``, age of the topic's newest fact;
- ``composite = 0.30 * recency + 0.25 * recurrence + 0.25 * actionability
  + 0.20 * (1 - staleness)``.

The recommendation is the first rule that matches: ARCHIVE if staleness > 0.8 and recurrence
< 0.2; PRUNE if more than 300 current facts and recurrence < 0.4; UPDATE if recency < 0.4 and
recurrence > 0.6; else KEEP.

>>> recommend(recency=0.1, recurrence=0.0, staleness=1.0, n_facts=4)
<Recommendation.ARCHIVE: 'ARCHIVE'>
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from enum import Enum
from typing import NamedTuple, Union

from pydantic import BaseModel, ConfigDict, Field

from graphmem.errors import InvalidInput

__all__ = [
    "PRESCRIPTIVE_CUES",
    "PRUNE_MIN_FACTS",
    "Recommendation",
    "TopicTriage",
    "TriageRow",
    "actionability_score",
    "composite_score",
    "recency_score",
    "recommend",
    "recurrence_score",
    "staleness_score",
    "triage_topics",
]

PRESCRIPTIVE_CUES: tuple[str, ...] = (
    "always",
    "never",
    "must",
    "instead of",
    "before",
    "critical",
    "warning",
    "important",
)
PRUNE_MIN_FACTS = 300
"""PRUNE applies to topics with strictly more current facts than this."""

_CUE_RE = re.compile(
    r"\b(?:" + "|".join(r"\s+".join(map(re.escape, c.split())) for c in PRESCRIPTIVE_CUES) + r")\b",
    re.IGNORECASE,
)
_STALE_DAYS = 60.0
_RECURRENCE_SESSIONS = 3.0
_PLACES = 12

TextsOrFlag = Union[str, Iterable[str], bool]


class Recommendation(str, Enum):
    """What triage advises for a topic; values equal names."""

    ARCHIVE = "ARCHIVE"
    PRUNE = "PRUNE"
    UPDATE = "UPDATE"
    KEEP = "KEEP"

    def __str__(self) -> str:
        return self.value


class TriageRow(NamedTuple):
    """Per-topic input to :func:`triage_topics` (a plain tuple in this order works too).

    Attributes:
        topic: the topic or entity name.
        days_since_last: days since the topic was last mentioned in a session, ``None`` if never.
        n_sessions: distinct sessions mentioning the topic inside the lookback window (default
            30 days), not over all history.
        texts: the statements of its current facts (a string or an iterable of strings), or
            an already computed actionability flag (``True``/``False``).
        age_days: age in days of the topic's newest fact, ``None`` if it has none.
        n_facts: number of current facts about the topic.
    """

    topic: str
    days_since_last: float | None
    n_sessions: int
    texts: TextsOrFlag
    age_days: float | None
    n_facts: int


class TopicTriage(BaseModel):
    """The triage of one topic: recommendation, component scores and a one-line reason."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    topic: str
    recommendation: Recommendation
    composite: float = Field(ge=0.0, le=1.0)
    recency: float = Field(ge=0.0, le=1.0)
    recurrence: float = Field(ge=0.0, le=1.0)
    actionability: float = Field(ge=0.0, le=1.0)
    staleness: float = Field(ge=0.0, le=1.0)
    days_since_last: float | None
    n_sessions: int = Field(ge=0)
    age_days: float | None
    n_facts: int = Field(ge=0)
    reason: str

    @property
    def needs_attention(self) -> bool:
        """Whether the recommendation is anything but KEEP."""
        return self.recommendation is not Recommendation.KEEP

    def __str__(self) -> str:
        from graphmem.display import triage_text

        return triage_text(self)

    def _repr_html_(self) -> str:  # Jupyter's table view
        from graphmem.display import ResultList

        return ResultList([self])._repr_html_()


def _number(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise InvalidInput(f"{name}={value!r} is not a number; pass an int or a finite float")
    return float(value)


def _count(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(f"{name}={value!r} must be a non-negative int")
    return value


def _unit(name: str, value: float) -> float:
    v = _number(name, value)
    if not 0.0 <= v <= 1.0:
        raise InvalidInput(f"{name}={value!r} is outside [0, 1]; pass a component score")
    return v


def recency_score(days_since_last: float | None) -> float:
    """Score how recently a topic was mentioned, in steps.

    Args:
        days_since_last: days since the last mention (a negative value counts as 0);
            ``None`` means never mentioned.

    Returns:
        1.0 if ``<= 7`` days, 0.7 if ``<= 14``, 0.4 if ``<= 30``, else (and for ``None``) 0.1.

    Raises:
        InvalidInput: ``days_since_last`` is NaN or not a number.

    Examples:
        >>> [recency_score(d) for d in (0, 7, 7.01, 14, 30, 30.01, None)]
        [1.0, 1.0, 0.7, 0.7, 0.4, 0.1, 0.1]
    """
    if days_since_last is None:
        return 0.1
    days = _number("days_since_last", days_since_last)
    if days <= 7:
        return 1.0
    if days <= 14:
        return 0.7
    if days <= 30:
        return 0.4
    return 0.1


def recurrence_score(n_sessions: int) -> float:
    """Score how many sessions mention a topic: ``min(n_sessions / 3, 1)``.

    Args:
        n_sessions: distinct sessions mentioning the topic inside the lookback window
            ("three or more sessions in the lookback window = 1.0").

    Returns:
        The score in ``[0, 1]``; 3 or more sessions give 1.0.

    Raises:
        InvalidInput: ``n_sessions`` is negative or not an int.

    Examples:
        >>> [round(recurrence_score(n), 4) for n in (0, 1, 2, 3, 10)]
        [0.0, 0.3333, 0.6667, 1.0, 1.0]
    """
    return min(_count("n_sessions", n_sessions) / _RECURRENCE_SESSIONS, 1.0)


def actionability_score(text: str) -> float:
    """Score whether a text is prescriptive: 1.0 if it contains a cue word, else 0.0.

    The cues (:data:`PRESCRIPTIVE_CUES`) match as whole words in any case; "instead of" may span
    any whitespace. "Importantly" or "warnings" do not match.

    Args:
        text: a fact statement, or several joined.

    Returns:
        1.0 or 0.0.

    Raises:
        InvalidInput: ``text`` is not a string.

    Examples:
        >>> actionability_score("Always run migrations before deploying.")
        1.0
        >>> actionability_score("Use uv INSTEAD  OF pip")
        1.0
        >>> actionability_score("Alice lives in Paris; importantly, she likes tea.")
        0.0
    """
    if not isinstance(text, str):
        raise InvalidInput(f"text={text!r} is not a string; pass the fact statements as str")
    return 1.0 if _CUE_RE.search(text) else 0.0


def staleness_score(age_days: float | None) -> float:
    """Score how old a topic's newest fact is: ``min(age_days / 60, 1)``.

    Args:
        age_days: age in days of the newest fact (a negative value counts as 0); ``None``
            (no facts at all) counts as fully stale.

    Returns:
        The score in ``[0, 1]``.

    Raises:
        InvalidInput: ``age_days`` is NaN or not a number.

    Examples:
        >>> [staleness_score(d) for d in (-1, 0, 30, 60, 400, None)]
        [0.0, 0.0, 0.5, 1.0, 1.0, 1.0]
    """
    if age_days is None:
        return 1.0
    age = max(_number("age_days", age_days), 0.0)
    return min(age / _STALE_DAYS, 1.0)


def composite_score(
    recency: float, recurrence: float, actionability: float, staleness: float
) -> float:
    """Combine component scores: ``0.30*rec + 0.25*recur + 0.25*act + 0.20*(1 - stale)``.

    Args:
        recency: from :func:`recency_score`.
        recurrence: from :func:`recurrence_score`.
        actionability: from :func:`actionability_score`.
        staleness: from :func:`staleness_score`.

    Returns:
        The composite in ``[0, 1]``, rounded to 12 places; higher means healthier.

    Raises:
        InvalidInput: a component outside ``[0, 1]`` or not a number.

    Examples:
        >>> composite_score(1.0, 1.0, 1.0, 0.0)
        1.0
        >>> composite_score(0.1, 0.0, 0.0, 1.0)
        0.03
    """
    raw = (
        0.30 * _unit("recency", recency)
        + 0.25 * _unit("recurrence", recurrence)
        + 0.25 * _unit("actionability", actionability)
        + 0.20 * (1.0 - _unit("staleness", staleness))
    )
    return min(max(round(raw, _PLACES), 0.0), 1.0)


def recommend(
    *, recency: float, recurrence: float, staleness: float, n_facts: int
) -> Recommendation:
    """Recommend what to do with a topic; the first matching rule wins.

    1. ARCHIVE if ``staleness > 0.8`` and ``recurrence < 0.2``;
    2. PRUNE if ``n_facts > 300`` and ``recurrence < 0.4``;
    3. UPDATE if ``recency < 0.4`` and ``recurrence > 0.6``;
    4. KEEP otherwise.

    Args:
        recency: from :func:`recency_score`.
        recurrence: from :func:`recurrence_score`.
        staleness: from :func:`staleness_score`.
        n_facts: current facts about the topic.

    Returns:
        The :class:`Recommendation`.

    Raises:
        InvalidInput: a score outside ``[0, 1]`` or ``n_facts`` negative.

    Examples:
        >>> recommend(recency=1.0, recurrence=1 / 3, staleness=0.0, n_facts=301)
        <Recommendation.PRUNE: 'PRUNE'>
        >>> recommend(recency=1.0, recurrence=1 / 3, staleness=0.0, n_facts=300)
        <Recommendation.KEEP: 'KEEP'>
        >>> recommend(recency=0.1, recurrence=1.0, staleness=0.5, n_facts=3)
        <Recommendation.UPDATE: 'UPDATE'>
    """
    recency = _unit("recency", recency)
    recurrence = _unit("recurrence", recurrence)
    staleness = _unit("staleness", staleness)
    n_facts = _count("n_facts", n_facts)
    if staleness > 0.8 and recurrence < 0.2:
        return Recommendation.ARCHIVE
    if n_facts > PRUNE_MIN_FACTS and recurrence < 0.4:
        return Recommendation.PRUNE
    if recency < 0.4 and recurrence > 0.6:
        return Recommendation.UPDATE
    return Recommendation.KEEP


def _actionability(texts: TextsOrFlag) -> float:
    if isinstance(texts, bool):
        return 1.0 if texts else 0.0
    if isinstance(texts, str):
        return actionability_score(texts)
    return max((actionability_score(t) for t in texts), default=0.0)


def _days(value: float | None) -> str:
    if value is None:
        return "never"
    days = max(value, 0.0)
    shown = f"{days:.0f}" if days >= 1 or days == 0 else f"{days:.1f}"
    return f"{shown} day{'' if shown == '1' else 's'} ago"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _reason(rec: Recommendation, row: TriageRow) -> str:
    sessions = _plural(row.n_sessions, "session") + " in the window"
    if rec is Recommendation.ARCHIVE:
        newest = "no facts" if row.age_days is None else f"newest fact {_days(row.age_days)}"
        return f"stale ({newest}) and mentioned in only {sessions}; consider archiving"
    if rec is Recommendation.PRUNE:
        return (
            f"{_plural(row.n_facts, 'current fact')} but mentioned in only {sessions}; "
            "consider pruning the least important"
        )
    if rec is Recommendation.UPDATE:
        return (
            f"recurring ({sessions}) but last mentioned {_days(row.days_since_last)}; "
            "check its facts are still true"
        )
    return f"mentioned in {sessions}, last {_days(row.days_since_last)}; no action needed"


def triage_topics(
    rows: Iterable[TriageRow | tuple[str, float | None, int, TextsOrFlag, float | None, int]],
    *,
    limit: int | None = None,
    attention_only: bool = False,
) -> list[TopicTriage]:
    """Triage topics and list the ones most in need of attention first.

    Order: topics with a recommendation other than KEEP first, then the lowest composite
    score, then topic name. Advisory only: nothing is changed.

    Args:
        rows: one :class:`TriageRow` (or plain 6-tuple in the same order) per topic.
        limit: keep only the first ``limit`` results; ``None`` keeps all.
        attention_only: drop topics whose recommendation is KEEP.

    Returns:
        One :class:`TopicTriage` per kept topic, worst first.

    Raises:
        InvalidInput: a malformed row, a bad value in a row, or a negative ``limit``.

    Examples:
        >>> rows = [
        ...     ("kuzu", 2, 5, ["Always pin kuzu."], 2, 12),
        ...     ("old-job", None, 0, False, 90, 3),
        ... ]
        >>> for t in triage_topics(rows):
        ...     print(t.topic, t.recommendation, t.composite, "-", t.reason)
        old-job ARCHIVE 0.03 - stale (newest fact 90 days ago) and mentioned in only 0 sessions in the window; consider archiving
        kuzu KEEP 0.993333333333 - mentioned in 5 sessions in the window, last 2 days ago; no action needed
    """  # noqa: E501
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise InvalidInput(f"limit={limit!r} must be a non-negative int or None")
    results: list[TopicTriage] = []
    for raw in rows:
        try:
            row = TriageRow(*raw)
        except TypeError as exc:
            raise InvalidInput(
                f"triage row {raw!r} is malformed; pass (topic, days_since_last, n_sessions, "
                "texts, age_days, n_facts)"
            ) from exc
        recency = recency_score(row.days_since_last)
        recurrence = recurrence_score(row.n_sessions)
        actionability = _actionability(row.texts)
        staleness = staleness_score(row.age_days)
        rec = recommend(
            recency=recency, recurrence=recurrence, staleness=staleness, n_facts=row.n_facts
        )
        if attention_only and rec is Recommendation.KEEP:
            continue
        results.append(
            TopicTriage(
                topic=row.topic,
                recommendation=rec,
                composite=composite_score(recency, recurrence, actionability, staleness),
                recency=recency,
                recurrence=recurrence,
                actionability=actionability,
                staleness=staleness,
                days_since_last=row.days_since_last,
                n_sessions=row.n_sessions,
                age_days=row.age_days,
                n_facts=row.n_facts,
                reason=_reason(rec, row),
            )
        )
    results.sort(key=lambda t: (not t.needs_attention, t.composite, t.topic))
    return results if limit is None else results[:limit]
