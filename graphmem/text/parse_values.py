"""Values a parse names beside a verb's relation: counts and the time a thing is held.

See docs/concepts/text.md#counts and docs/concepts/text.md#schedules.
"""

from __future__ import annotations

from typing import Any

from graphmem.text.parse_words import _CLOCK, _PRESENT, _WEEKDAYS, NOT_PARTS

Token = Any  # a spaCy Token (duck-typed: this module imports no parser)

__all__ = ["count_of", "meeting_time"]


def _children(tok: Token, *deps: str) -> list[Token]:
    return [c for c in tok.children if c.dep_ in deps]


def count_of(verb: Token) -> tuple[str, str] | None:
    """A count of a thing's parts: "has 14 nodes" is the slot ``nodes``, the value "14 nodes".

    Only in the present, of a plural noun with one number and nothing else before it, and
    with no time said on the verb ("I have 3 meetings today" is a day, not a slot)
    (docs/concepts/text.md#counts).
    """
    objs = _children(verb, "dobj")
    if len(objs) != 1 or verb.tag_ not in _PRESENT or _children(verb, "npadvmod", "prep"):
        return None
    obj = objs[0]
    lefts = list(obj.lefts)
    if (
        obj.tag_ != "NNS"
        or obj.lower_ in NOT_PARTS
        or len(lefts) != 1
        or lefts[0].dep_ != "nummod"
        or not lefts[0].like_num
    ):
        return None
    return obj.lower_, f"{lefts[0].text} {obj.text}"


def meeting_time(verb: Token, attrs: list[Token]) -> str | None:
    """When a thing is held: a clock time after "at" (docs/concepts/text.md#schedules)."""
    day = attrs[0] if attrs and attrs[0].lower_.rstrip("s") in _WEEKDAYS else None
    if attrs and day is None:
        return None
    for p in _children(day or verb, "prep"):
        for o in _children(p, "pobj"):
            if p.lower_ == "at" and _CLOCK.fullmatch(o.text) and any(c.isdigit() for c in o.text):
                return f"{day.text} at {o.text}" if day is not None else str(o.text)
    return None
