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
"""

from __future__ import annotations

import re

__all__ = ["asks_when", "has_time_cue"]

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
    """
    if _WHEN_START.search(question):
        return True
    return _OTHER_START.search(question) is None and _WHEN_ANYWHERE.search(question) is not None


def has_time_cue(text: str) -> bool:
    """Whether a line says when: a relative day, a weekday, a month, a season or a year."""
    return _CUE.search(text) is not None
