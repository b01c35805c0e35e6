"""Time values: parse what callers pass into timezone-aware UTC datetimes.

See docs/concepts/time.md#rule-7.

>>> to_utc("2026-06-10")
datetime.datetime(2026, 6, 10, 0, 0, tzinfo=datetime.timezone.utc)
>>> to_utc("2026-06-10T12:00:00+02:00")
datetime.datetime(2026, 6, 10, 10, 0, tzinfo=datetime.timezone.utc)
>>> to_utc("1490")
datetime.datetime(1490, 1, 1, 0, 0, tzinfo=datetime.timezone.utc)

The words ``now``, ``today``, ``yesterday`` and ``tomorrow``, and relative dates such as
``next tuesday``, ``last friday`` or ``3 days ago``, are read against a clock: the UTC wall clock
unless one is passed (a day is 00:00 UTC; docs/concepts/time.md#writing-times):

>>> clock = ManualClock("2026-06-10T15:30:00Z")  # a Wednesday
>>> fmt(to_utc("yesterday", clock=clock)), fmt(to_utc("Today", clock=clock))
('2026-06-09', '2026-06-10')
>>> fmt(to_utc("now", clock=clock))
'2026-06-10T15:30:00Z'
>>> fmt(to_utc("next Tuesday", clock=clock)), fmt(to_utc("last friday", clock=clock))
('2026-06-16', '2026-06-05')
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from typing import Union

from graphmem.errors import InvalidInput

__all__ = [
    "Clock",
    "ManualClock",
    "TimeLike",
    "fmt",
    "from_store",
    "system_clock",
    "to_store",
    "to_utc",
]

UTC = dt.timezone.utc
TimeLike = Union[dt.datetime, dt.date, str]
Clock = Callable[[], dt.datetime]

_YEAR = re.compile(r"^(\d{4})$")
_YEAR_MONTH = re.compile(r"^(\d{4})-(\d{2})$")
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_HAS_OFFSET = re.compile(r"(Z|[+-]\d{2}:?\d{2})$")
#: A string of words ("next tuesday", "3 days ago"), not an ISO date or datetime.
_WORDS = re.compile(r"^(?!\d{4})(?=.*[^\W\d_])")
#: What a time string may be, for messages.
ACCEPTED = (
    "use 'YYYY-MM-DD', an ISO-8601 datetime with an offset such as '2026-06-10T12:00:00Z', "
    "now, today, yesterday, tomorrow, or a relative date such as 'next tuesday', "
    "'last friday', 'last week' or '3 days ago'"
)


def system_clock() -> dt.datetime:
    """Return the current time as an aware UTC datetime (the default clock)."""
    return dt.datetime.now(UTC)


#: Date words and their offset in days from the clock's date (``now`` is the clock's reading).
DATE_WORDS = {"yesterday": -1, "today": 0, "tomorrow": 1}


def to_utc(value: TimeLike, *, name: str = "time", clock: Clock | None = None) -> dt.datetime:
    """Normalise a datetime, date or ISO string to an aware UTC datetime.

    Args:
        value: an aware ``datetime``, a ``date`` (00:00 UTC), ``"YYYY"``, ``"YYYY-MM"``,
            ``"YYYY-MM-DD"``, an ISO-8601 datetime string with an offset, one of the words
            ``now``, ``today``, ``yesterday``, ``tomorrow`` (any case), or a relative date
            (``next tuesday``, ``last friday``, ``last week``, ``3 days ago``: the forms of
            :mod:`graphmem.text.dates`, whole).
        name: the argument's name, used in error messages.
        clock: what the words and relative dates are relative to; default the UTC wall clock.

    Returns:
        The same instant as an aware datetime in UTC.

    Raises:
        InvalidInput: naive datetimes, strings without an offset, unparseable or out-of-range
            values; the message names the value and the fix.
    """
    if isinstance(value, dt.datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            raise InvalidInput(
                f"{name}={value!r} is a naive datetime; pass an aware one, "
                f"e.g. {value.replace(tzinfo=UTC)!r} (datetime.timezone.utc)"
            )
        try:
            return value.astimezone(UTC)
        except OverflowError as exc:
            raise InvalidInput(
                f"{name}={value!r} is out of range once converted to UTC; use years 1 to 9999"
            ) from exc
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, str):
        word = value.strip().lower()
        if word == "now" or word in DATE_WORDS:
            return _from_word(word, name, clock or system_clock)
        if _WORDS.match(word):
            return _relative(value, name, clock or system_clock)
        return _parse_string(value, name)
    raise InvalidInput(
        f"{name}={value!r} ({type(value).__name__}) is not a time; pass an aware datetime, "
        "a date, an ISO string such as '2026-06-10' or '2026-06-10T12:00:00Z', or 'today'"
    )


def _relative(text: str, name: str, clock: Clock) -> dt.datetime:
    """A relative date ("next tuesday") as 00:00 UTC of its day, read against ``clock``.

    The whole string must be one date expression of :mod:`graphmem.text.dates` (the reader's
    dates, so a date argument and a date in a sentence mean the same day).
    """
    from graphmem.text.dates import find_dates

    now = _from_word("now", name, clock)
    s = " ".join(text.split())
    found = list(find_dates(s, now)) if len(s) <= 60 else []
    if len(found) == 1 and found[0][2] == (0, len(s)):
        when = found[0][0]
        return dt.datetime(when.year, when.month, when.day, tzinfo=UTC)
    shown = repr(text) if len(text) <= 60 else repr(text[:50] + "...")
    raise InvalidInput(f"{name}={shown} is not a date; {ACCEPTED}")


def _from_word(word: str, name: str, clock: Clock) -> dt.datetime:
    reading = clock()
    if not isinstance(reading, dt.datetime):
        raise InvalidInput(f"clock() returned {reading!r}; it must return an aware datetime")
    now = to_utc(reading, name="clock()")
    if word == "now":
        return now
    try:
        day = now.date() + dt.timedelta(days=DATE_WORDS[word])
    except OverflowError as exc:
        raise InvalidInput(f"{name}={word!r} is out of range for the clock's date {now}") from exc
    return dt.datetime(day.year, day.month, day.day, tzinfo=UTC)


def _parse_string(text: str, name: str) -> dt.datetime:
    s = text.strip()
    try:
        if m := _YEAR.match(s):
            return dt.datetime(int(m.group(1)), 1, 1, tzinfo=UTC)
        if m := _YEAR_MONTH.match(s):
            return dt.datetime(int(m.group(1)), int(m.group(2)), 1, tzinfo=UTC)
        if _DATE.match(s):
            d = dt.date.fromisoformat(s)
            return dt.datetime(d.year, d.month, d.day, tzinfo=UTC)
    except ValueError as exc:
        raise InvalidInput(f"{name}={text!r} is not a valid date: {exc}; use 'YYYY-MM-DD'") from exc
    if "T" in s or " " in s:
        if not _HAS_OFFSET.search(s):
            raise InvalidInput(
                f"{name}={text!r} has no timezone offset; add 'Z' or an offset such as '+02:00'"
            )
        try:
            parsed = dt.datetime.fromisoformat(s.replace("Z", "+00:00"))
        except ValueError as exc:
            raise InvalidInput(
                f"{name}={text!r} is not an ISO-8601 datetime; use e.g. '2026-06-10T12:00:00Z'"
            ) from exc
        return to_utc(parsed, name=name)
    raise InvalidInput(f"{name}={text!r} is not a date; {ACCEPTED}")


def to_store(value: dt.datetime | None) -> dt.datetime | None:
    """Convert an aware UTC datetime to the naive UTC value the store keeps.

    Kuzu drops tzinfo without converting (docs/concepts/storage.md#naive-utc), so the store
    only sees naive UTC.
    """
    if value is None:
        return None
    return value.astimezone(UTC).replace(tzinfo=None)


def from_store(value: dt.datetime | None) -> dt.datetime | None:
    """Convert a naive UTC datetime read from the store back to an aware UTC datetime."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def fmt(value: dt.datetime | None) -> str:
    """Format an instant compactly: a date when it is midnight UTC, else ISO with ``Z``.

    >>> fmt(to_utc("2026-06-10"))
    '2026-06-10'
    >>> fmt(None)
    '…'
    """
    if value is None:
        return "…"
    v = value.astimezone(UTC)
    if (v.hour, v.minute, v.second, v.microsecond) == (0, 0, 0, 0):
        return v.date().isoformat()
    return v.replace(tzinfo=None).isoformat() + "Z"


class ManualClock:
    """A clock you set by hand, for backfills and tests: ``gm.open(clock=ManualClock(t))``.

    >>> clock = ManualClock("2020-01-01")
    >>> clock.set("2021-06-01"); fmt(clock())
    '2021-06-01'
    >>> clock.advance(days=1); fmt(clock())
    '2021-06-02'
    """

    def __init__(self, start: TimeLike) -> None:
        self._now = to_utc(start, name="start")

    def __call__(self) -> dt.datetime:
        """Return the time last set."""
        return self._now

    def set(self, value: TimeLike) -> None:
        """Set the time (it may move backwards; graphmem refuses such writes)."""
        self._now = to_utc(value, name="clock time")

    def advance(self, **delta: float) -> None:
        """Move forward by a ``timedelta(**delta)``, e.g. ``advance(days=1)``."""
        self._now = self._now + dt.timedelta(**delta)
