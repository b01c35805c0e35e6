"""Values a parse names beside a verb's relation: counts, the time a thing is held, software.

See docs/concepts/text.md#counts, docs/concepts/text.md#schedules and
docs/concepts/text.md#versions.
"""

from __future__ import annotations

import re
from typing import Any

from graphmem.text.lexicon import category
from graphmem.text.parse_words import _CLOCK, _PRESENT, _PRONOUNS, _WEEKDAYS, NOT_PARTS

Token = Any  # a spaCy Token (duck-typed: this module imports no parser)

__all__ = ["count_of", "meeting_time", "runs_software"]


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


#: A product and its version: "PostgreSQL 14", "Kong 3.4", "Elasticsearch 7.10", "Node v20".
_PRODUCT_VERSION = re.compile(r"([A-Za-z][\w.+-]*) (v?\d+(?:\.\d+){0,2})")


def runs_software(subj: Token, value: str) -> bool:
    """Whether "<subj> is <value>" names the software a thing runs.

    The value is a known product with a version ("PostgreSQL 14") or a capitalised name with a
    dotted one ("Kong 3.4"); the subject a thing written in lower case ("orders-db",
    "users-mongo"), never a person's name ("the plan is Pro 2" stays the plan's value).
    """
    found = _PRODUCT_VERSION.fullmatch(value)
    if found is None or not subj.text.islower() or subj.lower_ in _PRONOUNS:
        return False
    name, version = found.groups()
    return category(name) is not None or ("." in version and name[:1].isupper())
