"""When a one-off thing happens (docs/concepts/text.md#event-dates).

"The dinner is Saturday 30th, 6pm", "the install got moved to Monday the 15th".

A date right after the verb is the thing's value, not the time the sentence became true. The
slot is the thing ("dinner", "checkup"), held by its owner as in "our Z is O": "Noor's checkup
is booked for Oct 12" is Noor's ``checkup``; "the", "our" and "your" are the memory owner's. A
move ("moved", "rescheduled", "pushed back to") replaces the value the slot held. A booking
notice gives the date on a line of its own, after the line that announces the thing
(:func:`booked_date`, docs/concepts/text.md#notices).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING

from graphmem.text.claims import Claim
from graphmem.text.dates import find_dates
from graphmem.text.rules.copular import SCHEDULE

if TYPE_CHECKING:
    from graphmem.text.reader import Reader

__all__ = ["date_is_value", "date_value", "event_date", "event_date_claims"]

_MOVED = r"moved|rescheduled|pushed|postponed|bumped|shifted|changed|brought forward|moved up"
_HOW = (
    rf"(?:scheduled|booked|set|planned|confirmed|pencill?ed in|{_MOVED})"
    r"(?:\s+(?:back|out|up|forward))?"
)
_EVENT = re.compile(
    r"^(?:(?P<own>the|our|my|your|his|her|their)\s+|(?P<poss>[A-Z][\w.&-]*(?:\s+[A-Z][\w.&-]*)?)"
    r"['’]s\s+)?(?P<z>(?!(?:it|this|that|we|i|they|he|she|you|there|which|who|what|when)\b)"
    r"(?:[a-z]|\d+[a-z])[\w-]*(?:\s+[a-z][\w-]*){0,3}?)\s+"
    # "your colonoscopy with Dr. Iyer is on ...": whom it is with is no part of its name
    r"(?:with\s+(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?\s+)?"
    r"(?:(?P<be>is|are|was|were|will be|has been|have been|had been|got|gets)\s+"
    r"(?:(?:now|still|officially|tentatively|currently|all)\s+)*(?:(?P<how>" + _HOW + r"),?\s+)?"
    r"|(?P<moved>" + _HOW + r")\s+)"
    r"(?P<prep>(?:for|to|until|till|on)\s+)?",
    re.IGNORECASE,
)
_WEEKDAY = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\.?,?\s+"
_ORDINAL = re.compile(
    r"(?i)(?:the\s+)?\d{1,2}(?:st|nd|rd|th)\b(?:\s+of\s+(?:each|every|the)\s+month)?"
)
_TIME = re.compile(
    r"(?i)(?:\s*(?:,|at|@|from|-|–)?\s*\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)"
    r"|\s*(?:,|at|@)\s*\d{1,2}[:.]\d{2})(?:\s*[-–]\s*\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)?)?"
)
#: Words no thing's name holds: "as of now it's still Saturday" names no thing.
_NOT_SLOT = frozenset(
    "it this that we i they he she you there as of if so but and or now then when who which "  # noqa: SIM905
    "what here".split()
)
_NOT_THINGS = frozenset(
    "price cost rate fee rent salary budget address email phone number plan version region "  # noqa: SIM905
    "office team lead manager owner".split()
)


def date_value(rest: str, at: dt.datetime) -> str | None:
    """The date (and its time) ``rest`` starts with, or ``None``.

    >>> date_value("Friday, June 14, 2024 · Arrival 8-9 AM", dt.datetime(2024, 4, 1))
    'Friday, June 14, 2024'
    """
    lead = re.match(rf"(?i){_WEEKDAY}(?=\w)", rest)
    offset = lead.end() if lead else 0
    spans = [span for _, _, span in find_dates(rest, at)]
    ordinal = _ORDINAL.match(rest, offset)
    if ordinal and not (spans and spans[0][0] == offset):
        spans = [ordinal.span()]  # "moved to the 21st": a day of the month
    if not spans or spans[0][0] != offset:
        return None
    end = spans[0][1]
    for start, stop in spans[1:]:  # "Tuesday, October 22", "Saturday, September 13, 2025"
        if re.fullmatch(r"[\s,]*", rest[end:start]):
            end = stop
    clock = _TIME.match(rest, end)
    if clock:
        end = clock.end()
    value = re.sub(r"(?i)^(?:on|in|at|to|by|until|till)\s+", "", rest[:end].strip(" ,"))
    return value or None


def _moved(m: re.Match[str]) -> bool:
    how = m.group("how") or m.group("moved") or ""
    return bool(re.match(rf"(?i)(?:{_MOVED})\b", how))


def event_date(clause: str, at: dt.datetime) -> tuple[re.Match[str], str] | None:
    """The match and the date value of a clause that gives a thing's date, else ``None``."""
    m = _EVENT.match(clause)
    if m is None:
        return None
    words = m.group("z").casefold().split()
    if words[-1] in _NOT_THINGS or not _NOT_SLOT.isdisjoint(words):
        return None  # "the price is $20 from June": a value that starts then
    if (m.group("be") or "").casefold() in ("was", "were") and not m.group("how"):
        return None  # "last charge was May 17": a thing done, said among other clauses
    moved = _moved(m)
    prep = (m.group("prep") or "").strip().casefold()
    if moved and prep not in ("to", "until", "till"):
        return None  # "Anna moved in March": when, not where to
    value = date_value(clause[m.end() :], at)
    return (m, value) if value else None


#: A thing whose value is a date: "My birthday is March 14th", "the deadline moved up to".
_DATE_IS_VALUE = re.compile(
    r"(?i)\b(?:birthday|anniversary|deadline|due date|date|day|launch|go-live|cutoff)"
    r"(?:\s+(?:is|was|is now|now is))?(?:\s+(?:up|back|out))?(?:\s+to)?$"
)


def date_is_value(undated: str, dated: str, at: dt.datetime) -> bool:
    """Whether a clause's date is its value, not when it became true.

    "My birthday is March 14th", "moved the deadline up to May 13th", "dnd is every other
    Friday", "the dinner is Saturday 30th": the reader keeps the date in the clause.
    """
    return bool(
        (_DATE_IS_VALUE.search(undated) and not _DATE_IS_VALUE.search(dated))
        or (SCHEDULE.match(dated) and not SCHEDULE.match(undated))
        or event_date(dated, at) is not None
    )


def event_date_claims(
    r: Reader, c: str, neg: bool, prev: str | None, spk: str | None
) -> list[Claim] | None:
    """A thing's date: "the dinner is Saturday 30th, 6pm", "moved to Monday the 15th"."""
    found = event_date(c, r.at)
    if found is None:
        return None
    m, value = found
    if neg:
        return []  # "the dinner is not on Saturday": which day it is, is not said
    own = (m.group("own") or "").casefold()
    if m.group("poss"):
        subject = r.subject(m.group("poss"), spk)
    elif own == "my":
        subject = r.first_person(spk)
    elif own in ("his", "her", "their"):
        subject = r.last_person
    else:
        subject = r.owner  # "the dinner", "our flight", "your appointment": the owner's
    if subject is None:
        return []
    moved = _moved(m)
    slot = " ".join(m.group("z").casefold().split())
    return [Claim(subject, slot, value, change=moved)]


#: A notice's line that announces a booked thing without its date: "Your appointment is
#: booked ✔", "Your appointment has been rescheduled", "Event Update: Parlour Ghosts has been
#: rescheduled", "You Got Tickets To Parlour Ghosts" (docs/concepts/text.md#notices).
_BOOKED = re.compile(
    r"^(?:(?i:your|our|the)\s+(?P<z>[a-z]+(?:\s+[a-z]+)?)\s+(?i:is|are|has\s+been|have\s+been)\s+"
    r"(?:(?i:now)\s+)?(?P<how>(?i:booked|confirmed|scheduled|rescheduled|postponed|moved|changed))"
    r"|(?P<name>[A-Z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*){0,3})\s+(?i:is|are|has\s+been|have\s+been)\s+"
    r"(?P<moved>(?i:rescheduled|postponed|moved))"
    r"|(?i:you\s+got\s+tickets?\s+(?:to|for))\s+(?P<show>[A-Z][\w&'.-]*(?:\s+[\w&'.-]+){0,4}?))"
    r"[\s!.✔✓✅]*$"
)
#: What a date line may open with: "NEW DATE:", "Date:", "When:", "Date & time:".
_DATE_LABEL = re.compile(r"(?i)^(?:new\s+)?(?:date|when|date\s*(?:&|and)\s*time|time)\s*:\s*")
#: How many lines after the notice's announcement its date may come.
_BOOKED_LINES = 8


def booked_date(r: Reader, line: str) -> list[Claim] | None:
    """The date of the thing a notice announced, from the first line that only gives a date.

    "Your appointment is booked ✔" then "Tue, Mar 5 · 10:30 AM": the owner's ``appointment``
    is on Tue, Mar 5, 10:30 AM; "Parlour Ghosts has been rescheduled" then "NEW DATE: Fri •
    Sep 13, 2024 • 8:00 PM": the ``date`` of Parlour Ghosts moved. ``None`` for any other
    line (docs/concepts/text.md#notices).
    """
    text = line.strip()
    m = _BOOKED.match(re.sub(r"(?i)^[a-z][\w ]{0,24}:\s+", "", text))  # "Event Update: X has ..."
    if m is not None:
        name = m.group("name") or m.group("show")
        slot = "date" if name else " ".join(m.group("z").casefold().split())
        if not (set(slot.split()) & (_NOT_SLOT | _NOT_THINGS)):
            moved = bool(m.group("moved") or re.match(rf"(?i)(?:{_MOVED})", m.group("how") or ""))
            r.booked = (name or r.owner, slot, moved, _BOOKED_LINES)
        return None
    if r.booked is None:
        return None
    subject, slot, moved, left = r.booked
    r.booked = (subject, slot, moved, left - 1) if left > 1 else None
    labelled = _DATE_LABEL.match(text)
    rest = re.sub(r"\s*[·•|]\s*", ", ", text[labelled.end() :] if labelled else text)
    value = date_value(rest, r.at)
    if value is None or not (labelled or not rest[len(value) :].strip(" ,.")):
        return None
    r.booked = None
    return [Claim(subject, slot, value, change=moved, sentence=line)]
