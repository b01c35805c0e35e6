"""Dates in text, resolved against the time the text speaks from (pure, standard library only).

A session dated 2026-06-10 that says "last week" means 2026-06-03; "in August" means the most
recent August 1 that is not after the session (2025-08-01); "this spring" means the start of the
most recent spring (2026-03-01); "since 2019" means 2019-01-01. Every date is 00:00 UTC.

>>> import datetime as dt
>>> at = dt.datetime(2026, 6, 10, 12, tzinfo=dt.timezone.utc)
>>> [d.date().isoformat() for d, _, _ in find_dates("We moved last week, not yesterday.", at)]
['2026-06-03', '2026-06-09']
>>> [(d.date().isoformat(), role) for d, role, _ in find_dates("in August until 2027-01-31", at)]
[('2025-08-01', 'start'), ('2027-01-31', 'end')]
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterator

__all__ = ["DATE_PATTERN", "find_dates", "strip_dates"]

_MONTHS = {
    name: i + 1
    for i, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ]
    )
    for name in names
}
_SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_UNITS = {"day": 1, "week": 7, "month": 30, "year": 365}
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "a couple of": 2,
    "a few": 3,
    "several": 3,
}

_MONTH = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"  # noqa: E501
_NUM = r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few|several)"
_PREP = r"(?:(?:since|from|starting(?: on| from| in)?|as of|effective|beginning|on|in|at|during|until|till|til|through|to|by|before|after)\s+)?"  # noqa: E501
#: Every date expression this module understands, with an optional preposition in front.
DATE_PATTERN = re.compile(
    r"\b"
    + _PREP
    + r"(?P<date>"
    + r"\d{4}-\d{2}-\d{2}"
    + rf"|{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}"
    + rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?,?\s+\d{{4}}"
    + rf"|(?:early|mid|late)[- ]{_MONTH}(?:\s+\d{{4}})?"
    + r"|(?:early|mid|late)[- ]\d{4}"
    + rf"|{_MONTH}\.?\s+\d{{4}}"
    + rf"|{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?"
    + rf"|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}"
    + r"|q[1-4](?:\s+(?:of\s+)?\d{4})?"
    + rf"|(?:last|this|next)\s+(?:week|month|year|quarter|{'|'.join(_SEASONS)}|{'|'.join(_WEEKDAYS)}|{_MONTH})"  # noqa: E501
    + rf"|{_NUM}\s+(?:day|week|month|year)s?\s+ago"
    + r"|yesterday|today|toni(?:ght|te)|last ni(?:ght|te)|this morning|this afternoon"
    + r"|this evening"
    + r"|earlier today"
    + r"|the day before yesterday|the other day|recently"
    + rf"|(?:{'|'.join(_SEASONS)})(?:\s+(?:of\s+)?\d{{4}})?"
    + rf"|(?:{'|'.join(_WEEKDAYS)}),?\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)"
    + r"|(?:the\s+)?end\s+of\s+(?:the|this|next)\s+month"
    + rf"|{'|'.join(_WEEKDAYS)}"
    + rf"|{_MONTH}"
    + r"|(?:1[0-9]|20)\d{2}"
    + r")\b",
    re.IGNORECASE,
)
_START_PREPS = ("since", "from", "starting", "as of", "effective", "beginning")
_END_PREPS = ("until", "till", "til", "through", "to", "by")


def _day(year: int, month: int, day: int = 1) -> dt.datetime:
    return dt.datetime(year, month, day, tzinfo=dt.timezone.utc)


def _midnight(t: dt.datetime) -> dt.datetime:
    return _day(t.year, t.month, t.day)


def _past_month(month: int, at: dt.datetime) -> dt.datetime:
    """The most recent first of ``month`` that is not after ``at``."""
    when = _day(at.year, month)
    return when if when <= at else _day(at.year - 1, month)


def _season(name: str, at: dt.datetime, year: int | None = None) -> dt.datetime:
    month = _SEASONS[name]
    if year is not None:
        return _day(year, month)
    when = _day(at.year, month)
    return when if when <= at else _day(at.year - 1, month)


def _resolve(expr: str, at: dt.datetime) -> dt.datetime | None:  # noqa: C901 - one table
    low = " ".join(expr.casefold().replace(",", " ").replace(".", " ").split())
    low = low.replace("nite", "night")  # chat's spelling: "last nite"
    today = _midnight(at)
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", low):
            y, m, d = (int(x) for x in low.split("-"))
            return _day(y, m, d)
        if low in ("today", "tonight", "this morning", "this afternoon", "this evening") or (
            low == "earlier today"
        ):
            return today
        if low in ("yesterday", "last night"):
            return today - dt.timedelta(days=1)
        if low == "the day before yesterday":
            return today - dt.timedelta(days=2)
        if low in ("the other day", "recently"):
            return None  # too vague: the session date stands
        words = low.split()
        if words[-1] == "ago":
            n = _NUMBERS.get(" ".join(words[:-2])) or int(words[0])
            return today - dt.timedelta(days=n * _UNITS[words[-2].rstrip("s")])
        if words[0] in ("last", "this", "next") and len(words) == 2:
            return _relative(words[0], words[1], at, today)
        if words[0] in ("early", "mid", "late") or "-" in words[0]:
            parts = low.replace("-", " ").split()
            if parts[1].isdigit():
                return _day(int(parts[1]), {"early": 1, "mid": 6, "late": 10}[parts[0]])
            month = _MONTHS[parts[1]]
            if len(parts) == 3:
                return _day(int(parts[2]), month)
            return _past_month(month, at)
        if words[0] in _SEASONS:
            year = int(words[-1]) if words[-1].isdigit() else None
            return _season(words[0], at, year)
        if words[0] in _WEEKDAYS and len(words) > 1:
            return _weekday_dated(words[0], int(words[-1].rstrip("stndrh")), today)
        if words[0] in _WEEKDAYS:
            return _weekday(words[0], today, back=True)
        if "end" in words and words[-1] == "month":  # "at the end of the month": its last day
            first = _day(today.year, today.month)
            if words[-2] == "next":
                first = (first + dt.timedelta(days=32)).replace(day=1)
            return (first + dt.timedelta(days=32)).replace(day=1) - dt.timedelta(days=1)
        if re.fullmatch(r"q[1-4]", words[0]):
            start = (int(words[0][1]) - 1) * 3 + 1
            if words[-1].isdigit() and len(words[-1]) == 4:
                return _day(int(words[-1]), start)
            return _nearest(_day(at.year, start), at)
        nums = [w.rstrip("stndrh") for w in words if w.rstrip("stndrh").isdigit()]
        months = [_MONTHS[w] for w in words if w in _MONTHS]
        if not months:
            return _day(int(nums[0]), 1) if len(nums) == 1 and len(nums[0]) == 4 else None
        if not nums:
            return _past_month(months[0], at)
        if len(nums) == 2:
            year = int(next(n for n in nums if len(n) == 4))
            day = int(next(n for n in nums if len(n) != 4))
            return _day(year, months[0], day)
        if len(nums[0]) == 4:
            return _day(int(nums[0]), months[0])
        when = _day(at.year, months[0], int(nums[0]))  # "March 5": the most recent one
        return when if when <= at else _day(at.year - 1, months[0], int(nums[0]))
    except (ValueError, KeyError, IndexError, StopIteration, OverflowError):
        return None


def _nearest(when: dt.datetime, at: dt.datetime) -> dt.datetime:
    """The occurrence of a yearly date (``when`` in ``at``'s year) nearest to ``at``.

    "Starting May 1" said on April 10 is the coming May 1; said on June 10, the May 1 just
    past (docs/concepts/text.md#dates).
    """
    options = []
    for year in (when.year - 1, when.year, when.year + 1):
        try:
            options.append(when.replace(year=year))
        except ValueError:  # February 29
            continue
    return min(options, key=lambda d: (abs(d - at), d))


def _weekday_dated(name: str, day: int, today: dt.datetime) -> dt.datetime | None:
    """The day ``day`` of a month next to ``today``'s, on weekday ``name``: "Thursday the 25th".

    The nearest such day to ``today``; without one on the weekday, the nearest day ``day``.

    >>> mon = dt.datetime(2024, 4, 22, tzinfo=dt.timezone.utc)
    >>> _weekday_dated("thursday", 25, mon).date()
    datetime.date(2024, 4, 25)
    """
    options = []
    for shift in (-1, 0, 1):
        month = (today.month - 1 + shift) % 12 + 1
        year = today.year + (today.month - 1 + shift) // 12
        try:
            options.append(_day(year, month, day))
        except ValueError:
            continue
    if not options:
        return None
    named = [d for d in options if d.weekday() == _WEEKDAYS.index(name)]
    return min(named or options, key=lambda d: (abs(d - today), d))


def _weekday(name: str, today: dt.datetime, *, back: bool) -> dt.datetime:
    """The named weekday before ``today`` (``back``) or after it, never ``today`` itself.

    >>> tue = dt.datetime(2026, 12, 1)  # a Tuesday
    >>> [_weekday("tuesday", tue, back=b).day for b in (True, False)]
    [24, 8]
    """
    target = _WEEKDAYS.index(name)
    if back:
        return today - dt.timedelta(days=(today.weekday() - target) % 7 or 7)
    return today + dt.timedelta(days=(target - today.weekday()) % 7 or 7)


def _relative(which: str, unit: str, at: dt.datetime, today: dt.datetime) -> dt.datetime:
    step = {"last": -1, "this": 0, "next": 1}[which]
    if unit == "week":
        return today + dt.timedelta(days=7 * step)
    if unit == "month":
        month = at.month - 1 + step
        return _day(at.year + month // 12, month % 12 + 1)
    if unit == "year":
        return _day(at.year + step, 1)
    if unit == "quarter":
        q = (at.month - 1) // 3 + step
        return _day(at.year + q // 4, (q % 4) * 3 + 1)
    if unit in _SEASONS:
        return _season(unit, at).replace(year=_season(unit, at).year + step)
    if unit in _WEEKDAYS:  # "last Tuesday", "this Tuesday": the most recent one
        return _weekday(unit, today, back=which != "next")
    month = _MONTHS[unit]
    if which == "this":
        return _day(at.year, month)
    if which == "last":
        when = _past_month(month, at)
        return when if when.month != at.month else _day(at.year - 1, month)
    when = _day(at.year, month)
    return when if when > at else _day(at.year + 1, month)


def find_dates(text: str, at: dt.datetime) -> Iterator[tuple[dt.datetime, str, tuple[int, int]]]:
    """Yield ``(date, role, span)`` for the date expressions in ``text``.

    ``role`` is ``"end"`` after until / till / through / to / by, ``"start"`` otherwise;
    ``span`` covers the expression and its preposition. Vague expressions ("recently") and
    bare years without a preposition that could be numbers ("2000 users") are left out.
    """
    # A sentence is looked at several times (whole, per clause, undated): the dates of a text
    # are kept for the instant and zone it speaks from (docs/concepts/text.md#speed).
    try:
        return iter(_found(text, at.replace(tzinfo=None), at.tzinfo, at.fold))
    except TypeError:  # a time zone that cannot be hashed
        return _scan(text, at)


@functools.lru_cache(maxsize=8192)
def _found(
    text: str, wall: dt.datetime, zone: dt.tzinfo | None, fold: int
) -> tuple[tuple[dt.datetime, str, tuple[int, int]], ...]:
    return tuple(_scan(text, wall.replace(tzinfo=zone, fold=fold)))


#: Words before a date that say it is ahead or near, not past: "I start at Fernhill on April
#: 6", "she will join on May 1" (docs/concepts/text.md#dates).
_FORWARD = re.compile(
    r"(?i)\b(?:will|'ll|shall|going to|gonna|start|starts|begin|begins|join|joins|moving|"
    r"move in)\b"
)


def _scan(text: str, at: dt.datetime) -> Iterator[tuple[dt.datetime, str, tuple[int, int]]]:
    for m in DATE_PATTERN.finditer(text):
        expr = m.group("date")
        prep = text[m.start() : m.start("date")].strip().casefold()
        if re.fullmatch(r"\d{4}", expr) and not prep:
            continue  # "port 8080", "2000 users": a bare number is not a date
        bare = re.fullmatch(rf"{_MONTH}|{'|'.join(_SEASONS)}", expr, re.IGNORECASE)
        if bare and (not prep or prep.split()[0] in ("on", "at", "to")):
            continue  # "may" the verb, "May" the name, "runs on Spring Boot"
        role = "end" if prep.split(" ")[0] in _END_PREPS and prep not in _START_PREPS else "start"
        when = _resolve(expr, at)
        if when is None:
            continue
        if (
            prep.split(" ")[0] in ("starting", "effective", "beginning", "from")
            or prep == "as of"
            or _FORWARD.search(text[: m.start()])
        ) and re.fullmatch(
            rf"(?:{_MONTH}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?"
            rf"{_MONTH}|{_MONTH})",
            expr,
            re.IGNORECASE,
        ):
            # "starting 1 May", "from July": a start, so the occurrence nearest the text
            when = _nearest(when, at)
        if (
            role == "end"
            and when <= at
            and re.fullmatch(rf"{_MONTH}|{'|'.join(_WEEKDAYS)}", expr, re.I)
        ):
            # "until June" said in January: the coming June
            ahead = _resolve(f"next {expr}", at)
            when = ahead if ahead is not None else when
        yield when, role, (m.start(), m.end())


def strip_dates(text: str, at: dt.datetime) -> str:
    """Return ``text`` without its date expressions (and their prepositions).

    >>> import datetime as dt
    >>> at = dt.datetime(2026, 6, 10, tzinfo=dt.timezone.utc)
    >>> strip_dates("Alice joined Globex last week", at)
    'Alice joined Globex'
    """
    spans = [span for _, _, span in find_dates(text, at)]
    for start, end in reversed(spans):
        text = text[:start] + text[end:]
    return " ".join(text.split())
