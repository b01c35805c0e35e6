"""Time arguments in words: now, today, relative dates; anything else is not a date.

See docs/concepts/time.md#writing-times.
"""

from __future__ import annotations

import datetime as dt
import os

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

import graphmem as gm
from graphmem.cli import cli
from graphmem.text.dates import find_dates
from graphmem.timeutil import ManualClock, to_utc

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
WEDNESDAY = "2026-06-10T15:30:00Z"
UTC = dt.timezone.utc
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("next tuesday", "2026-06-16"),
        ("Next  Tuesday ", "2026-06-16"),
        ("last friday", "2026-06-05"),
        ("tuesday", "2026-06-09"),
        ("next wednesday", "2026-06-17"),
        ("last wednesday", "2026-06-03"),
        ("tomorrow", "2026-06-11"),
        ("3 days ago", "2026-06-07"),
        ("a week ago", "2026-06-03"),
        ("last week", "2026-06-03"),
        ("next month", "2026-07-01"),
        ("next year", "2027-01-01"),
        ("Q3 2025", "2025-07-01"),
    ],
)
def test_relative_dates_are_read_against_the_clock(text: str, day: str) -> None:
    assert to_utc(text, clock=ManualClock(WEDNESDAY)) == to_utc(day)


@pytest.mark.parametrize(
    "text", ["soon", "the other day", "recently", "next blursday", "tuesday 5pm", "é"]
)
def test_words_that_are_not_a_date_are_refused_with_the_accepted_forms(text: str) -> None:
    with pytest.raises(
        gm.InvalidInput, match=r"valid_from=.* is not a date; use 'YYYY-MM-DD'"
    ) as e:
        to_utc(text, name="valid_from", clock=ManualClock(WEDNESDAY))
    assert "next tuesday" in str(e.value)
    assert "timezone" not in str(e.value)


def test_a_datetime_without_offset_still_asks_for_one() -> None:
    with pytest.raises(gm.InvalidInput, match="has no timezone offset"):
        to_utc("2026-06-10 12:00")


@given(
    which=st.sampled_from(["last", "next", ""]),
    day=st.sampled_from(WEEKDAYS),
    at=st.datetimes(min_value=dt.datetime(1900, 1, 8), max_value=dt.datetime(9990, 1, 1)),
)
def test_a_weekday_is_that_weekday_within_a_week_of_the_clock(
    which: str, day: str, at: dt.datetime
) -> None:
    now = at.replace(tzinfo=UTC)
    when = to_utc(f"{which} {day}".strip(), clock=lambda: now)
    assert when.weekday() == WEEKDAYS.index(day)
    assert (when.hour, when.minute, when.second, when.microsecond) == (0, 0, 0, 0)
    delta = (when.date() - now.date()).days
    assert 1 <= delta <= 7 if which == "next" else -7 <= delta <= -1
    # the same day the text reader gives the words in a sentence said at that moment (but
    # "next tuesday" said on a Tuesday, which the reader reads as that day)
    [(read, _, _)] = find_dates(f"{which} {day}".strip(), now)
    if not (which == "next" and read.date() == now.date()):
        assert read.date() == when.date()


def test_the_cli_reads_next_tuesday_and_refuses_soon(tmp_path: object) -> None:
    db = os.path.join(str(tmp_path), "m.kuzu")
    runner = CliRunner()
    base = ["--db", db, "--engine", ENGINE]
    ok = runner.invoke(cli, [*base, "add", "api", "runs_on", "Go", "--valid-from", "next tuesday"])
    assert ok.exit_code == 0, ok.output
    today = dt.datetime.now(UTC).date()
    with gm.open(db, engine=ENGINE, read_only=True) as mem:
        (fact,) = mem.history("api")
    assert fact.valid_from.weekday() == 1
    assert 1 <= (fact.valid_from.date() - today).days <= 8  # the wall clock may pass midnight
    bad = runner.invoke(cli, [*base, "facts", "--valid-at", "soon"])
    assert bad.exit_code == 1
    assert "--valid-at 'soon' is not a date; use 'YYYY-MM-DD'" in bad.stderr
    assert "timezone" not in bad.stderr
