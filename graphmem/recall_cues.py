"""Time cues of recall: "when" questions and the lines that say when.

See docs/concepts/recall.md#how-lines-are-ranked. A question asking for a time ("When did
Caroline go to the support group?", "What date ...", "How long ago ...") ranks the found lines
that carry a time cue ("yesterday", "last Saturday", "in May", "2022", "two weeks ago") as one
more ranking of the fusion; every shown line carries its session's date, so a line saying
"yesterday" dates the event. Word lists, no model: deterministic and cheap.

>>> asks_when("When did Melanie paint a sunrise?"), asks_when("What does Melanie paint?")
(True, False)
>>> has_time_cue("I went to a support group yesterday."), has_time_cue("I love painting.")
(True, False)

A question naming a date ("What did Maria donate on May 3, 2023?", "... in December 2023?")
ranks the found lines said around it (:func:`named_dates`): from the day (or the month) to a
week after it, when a later session tells of it.
"""

from __future__ import annotations

import datetime as dt
import re

__all__ = ["asks_when", "has_time_cue", "named_dates"]

_TIME_WORD = r"(?:date|day|time|year|month|week|weekend|season)"
#: The question asks for a time from its start ("When ...", "What year ...", "How long ...").
_WHEN_START = re.compile(
    rf"^\W*(?:when\b|since when\b|(?:what|which|in what|in which) {_TIME_WORD}s?\b"
    r"|how long\b|how old\b|what age\b|how many (?:years|months|weeks|days)\b)",
    re.IGNORECASE,
)
#: Another question word first: a "when" later is a clause ("Who helps her when ...").
_OTHER_START = re.compile(r"^\W*(?:who|whom|whose|what|which|where|why|how)\b", re.IGNORECASE)
_WHEN_ANYWHERE = re.compile(rf"\bwhen\b|\b(?:what|which) {_TIME_WORD}\b", re.IGNORECASE)
#: Hours something is open asks for clock times ("What are the visiting hours now?").
_HOURS = re.compile(
    r"\b(?:opening|visiting|office|business|surgery|working|open) hours\b", re.IGNORECASE
)
_DAYS = "monday tuesday wednesday thursday friday saturday sunday"
_MONTHS = "january february march april may june july august september october november december"
_CUE = re.compile(
    r"\b(?:yesterday|today|tonight|tomorrow|ago|recently|lately|last|next|weekend|weeks?"
    r"|months?|years?|days|spring|summer|autumn|winter|(?:19|20)\d\d|"
    + "|".join(f"{w}s?" for w in _DAYS.split())
    + "|"
    + "|".join(w for w in _MONTHS.split() if w != "may")
    + r")\b",
    re.IGNORECASE,
)


def asks_when(question: str) -> bool:
    """Whether a question asks for a time (a date, a day, how long).

    >>> asks_when("Who supports Caroline when she has a negative experience?")
    False
    >>> asks_when("How long have Mel and her husband been married?")
    True
    >>> asks_when("Did she move before or when the school year began?")
    True
    >>> asks_when("What are the visiting hours at Larchwood now?")
    True
    """
    if _WHEN_START.search(question) or _HOURS.search(question):
        return True
    return _OTHER_START.search(question) is None and _WHEN_ANYWHERE.search(question) is not None


def has_time_cue(text: str) -> bool:
    """Whether a line says when: a relative day, a weekday, a month, a season or a year."""
    return _CUE.search(text) is not None


_MONTH_NO = {m: i for i, m in enumerate(_MONTHS.split(), start=1)}
_M = "|".join(_MONTHS.split())
_DATE = re.compile(
    rf"\b(?:(?P<m1>{_M})\s+(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y1>(?:19|20)\d\d)"
    rf"|(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<m2>{_M}),?\s+(?P<y2>(?:19|20)\d\d)"
    rf"|(?P<m3>{_M}),?\s+(?P<y3>(?:19|20)\d\d)"
    r"|(?P<iso>(?:19|20)\d\d-\d\d-\d\d))\b",
    re.IGNORECASE,
)
#: A session up to this long after a named date may tell of it.
TOLD_WITHIN = dt.timedelta(days=7)


def named_dates(question: str) -> list[tuple[dt.datetime, dt.datetime]]:
    """The ``[start, end)`` spans (UTC) of the days and months a question names, widened by a week.

    >>> [(a.date().isoformat(), b.date().isoformat()) for a, b in named_dates(
    ...     "What did Maria do on May 3, 2023 and in December 2023?")]
    [('2023-05-03', '2023-05-11'), ('2023-12-01', '2024-01-08')]
    >>> named_dates("What did she do in 2023 or on Feb 30, 2023?")
    []
    """
    out = []
    for m in _DATE.finditer(question):
        g = {k: v for k, v in m.groupdict().items() if v}
        try:
            if "iso" in g:
                start = dt.datetime.fromisoformat(g["iso"]).replace(tzinfo=dt.timezone.utc)
                end = start + dt.timedelta(days=1)
            elif "m3" in g:
                month, year = _MONTH_NO[g["m3"].lower()], int(g["y3"])
                start = dt.datetime(year, month, 1, tzinfo=dt.timezone.utc)
                end = dt.datetime(year + month // 12, month % 12 + 1, 1, tzinfo=dt.timezone.utc)
            else:
                n = "1" if "m1" in g else "2"
                month, day, year = _MONTH_NO[g[f"m{n}"].lower()], int(g[f"d{n}"]), int(g[f"y{n}"])
                start = dt.datetime(year, month, day, tzinfo=dt.timezone.utc)
                end = start + dt.timedelta(days=1)
        except ValueError:  # no such day
            continue
        out.append((start, end + TOLD_WITHIN))
    return out
