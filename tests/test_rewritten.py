"""Lines written again with another value, and lines that only ask, through ``context()``.

docs/concepts/recall.md#restated, #field-said-again, #not-stated and #said-ended: a bill's
line restated with a new figure, a log line with a new repository, a diff's removed line, a
record's field remembered again, a question passed on. Marks on what is shown, never writes.
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.restated import Item, same_template
from graphmem.rewritten import diff_lines, template_moved
from graphmem.said_ended import ended_values
from graphmem.sessions import session_id
from graphmem.timeutil import ManualClock
from graphmem.unstated import unstated
from tests import backends

D1 = dt.datetime(2024, 3, 1, 12, tzinfo=dt.UTC)
D2 = dt.datetime(2024, 5, 15, 12, tzinfo=dt.UTC)


def _line(text: str, session: str, n: int, when: dt.datetime) -> Item:
    return Item(f"{session}:{n}", text, when, (when.isoformat(), session, f"{n:09d}"))


def _context(clock: ManualClock, sessions: list[tuple[str, str]], question: str) -> str:
    with backends.memory(clock=clock) as mem:
        for day, text in sessions:
            clock.set(day)
            mem.add_session(text, started_at=day)
        clock.set("2024-12-01")
        return str(mem.context(question))


def _line_of(ctx: str, words: str) -> str:
    return next(ln for ln in ctx.splitlines() if words in ln)


def test_a_bills_line_restated_with_a_new_figure_marks_the_old_one(clock: ManualClock) -> None:
    ctx = _context(
        clock,
        [
            (
                "2024-01-03",
                "Splitwise\nRecurring: Internet (Xfinity) — $65.00 monthly, split equally",
            ),
            (
                "2024-03-04",
                "Splitwise\nRecurring: Internet (Xfinity) — $80.00 monthly, split equally",
            ),
        ],
        "How much is the internet bill each month?",
    )
    assert "possibly superseded: $80.00" in _line_of(ctx, "$65.00 monthly")
    assert "superseded" not in _line_of(ctx, "$80.00 monthly")


def test_a_log_line_written_again_with_another_repository(clock: ManualClock) -> None:
    ctx = _context(
        clock,
        [
            ("2024-03-01", "Mar 01 02:30:01 nas-01 backup.sh[9120]: using repository s3:bucket-a"),
            ("2024-05-15", "May 15 02:30:01 nas-01 backup.sh[44120]: using repository b2:bucket-b"),
        ],
        "Which repository do the backups go to?",
    )
    assert "s3:bucket-a possibly superseded: b2:bucket-b" in _line_of(ctx, "s3:bucket-a")


def test_a_diffs_removed_line_and_the_line_it_removed(clock: ManualClock) -> None:
    ctx = _context(
        clock,
        [
            ("2024-03-18", "api.example.app {\n\treverse_proxy localhost:8080\n}"),
            (
                "2024-05-09",
                "--- a/Caddyfile\n+++ b/Caddyfile\n@@ -1,3 +1,3 @@\n api.example.app {\n"
                "-\treverse_proxy localhost:8080\n+\treverse_proxy api-v2.internal:9000\n }",
            ),
        ],
        "Where does the proxy send api.example.app traffic?",
    )
    removed = _line_of(ctx, "- reverse_proxy localhost:8080")
    assert "replaced: reverse_proxy api-v2.internal:9000" in removed
    assert "replaced" not in _line_of(ctx, "+ reverse_proxy")


def test_diff_lines_pair_code_lines_only_under_a_hunk() -> None:
    plain = [_line("- flake8 src tests", "s1", 1, D2), _line("+ ruff check src tests", "s1", 2, D2)]
    assert diff_lines(plain) == {}  # a list's dashes and pluses: no diff shown
    hunk = [_line("@@ -2,3 +2,3 @@", "s1", 0, D2), *plain]
    assert diff_lines(hunk) == {"s1:1": ("flake8 src tests replaced: ruff check src tests", None)}
    prose = [_line("@@ -1 +1 @@", "s1", 0, D2), _line("- cheap.", "s1", 1, D2)]
    assert diff_lines([*prose, _line("+ fast and good.", "s1", 2, D2)]) == {}


def test_a_remembered_records_field_said_again(clock: ManualClock) -> None:
    clock.set("2024-08-26")
    with backends.memory(clock=clock) as mem:
        mem.remember(
            "TeamSnap · Rockets U10\nPractice · Tue Aug 27 · 5:30 PM\n"
            "Where: Riverside Park – Field 3 (by the courts)\nNotes: bring shin guards",
            at="2024-08-26",
        )
        clock.set("2024-09-23")
        mem.remember(
            "TeamSnap · Rockets U10\nPractice · Tue Sep 24 · 5:30 PM\n"
            "Where: Lincoln MS turf\nNotes: picture day forms due!",
            at="2024-09-23",
        )
        ctx = str(mem.context("Where is Rockets practice held?"))
    # "Where:" heads a note, not a setting: the note says it again
    # ("Location:" is a field read as a fact, docs/concepts/text.md#notices)
    assert "Where: Riverside Park – Field 3 possibly superseded: Lincoln MS turf" in ctx


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        ("A few of you asked if it's Monday — nope, it's Friday!", "was asked"),
        ("kettle_kid: will you ever move streams to weekends?? i work nights", "was asked"),
        (
            "Catering (backup) | Fig & Thistle | just an idea | only if Rosa's cancels, used them",
            "was an if",
        ),
        ('the "Velden MSA" file in the shared drive says New York law.', "was reported"),
    ],
)
def test_what_only_asks_supposes_or_reports(line: str, kind: str) -> None:
    mark = unstated(line)
    assert mark is not None
    assert mark.startswith(kind)


@pytest.mark.parametrize(
    "line",
    ["will you move the standup to 10?", "we moved the standup to mornings", "have you tried it?"],
)
def test_a_request_or_a_statement_is_not_marked(line: str) -> None:
    assert unstated(line) is None


@pytest.mark.parametrize(
    ("line", "gone"),
    [
        ("PSA: Blue Bottle on 3rd closed for good last week", "blue bottle"),
        ("- Mixpanel project set read-only, contract not renewed", "mixpanel"),
        (
            "We'll be moving the API from AWS us-east-1 (N. Virginia) to us-east-2 (Ohio).",
            "us-east-1",
        ),
        ("Marta moved over to the growth squad last week", "marta"),
    ],
)
def test_what_a_line_says_ended(line: str, gone: str) -> None:
    assert gone in ended_values(line)


_WORDS = st.sampled_from(["repository", "region", "bucket", "plan", "server", "queue"])
_VALUES = st.from_regex(r"[a-z]{2,6}-[0-9]{1,3}", fullmatch=True)


@settings(max_examples=60, deadline=None)
@given(a=_WORDS, b=_WORDS, old=_VALUES, new=_VALUES)
def test_a_template_marks_only_a_changed_value(a: str, b: str, old: str, new: str) -> None:
    """The earlier line is marked exactly when the later one is it with one value changed."""
    earlier = _line(f"backup.sh[1]: using {a} {b} {old}", "s1", 1, D1)
    later = _line(f"backup.sh[2]: using {a} {b} {new}", "s2", 1, D2)
    found = template_moved([earlier, later], valid_at=D2, query=f"which {a} now?")
    assert ("s1:1" in found) == (old != new)
    assert "s2:1" not in found  # the later line is never marked by the earlier one


@settings(max_examples=60, deadline=None)
@given(a=_WORDS, old=st.integers(1, 999), new=st.integers(1, 999))
def test_a_line_restated_with_other_figures(a: str, old: int, new: int) -> None:
    assert same_template(
        f"Recurring: {a} fee ${old} monthly", f"Recurring: {a} fee ${new} monthly"
    ) == (old != new)


def test_session_ids_sort_in_the_order_they_were_made() -> None:
    ids = [session_id() for _ in range(200)]
    assert ids == sorted(ids)
    assert len(set(ids)) == len(ids)


def test_two_sessions_of_one_instant_the_later_added_is_later(clock: ManualClock) -> None:
    """Same day, same clock: the context is the same every run (the session added last wins)."""
    clock.set("2024-06-12")
    seen = set()
    for _ in range(3):
        with backends.memory(clock=clock) as mem:
            mem.add_session("Workspace plan: Starter", started_at="2024-06-12")
            mem.add_session("Workspace plan: Growth", started_at="2024-06-12")
            seen.add(str(mem.context("Which plan is the workspace on?")))
    assert len(seen) == 1
    ctx = seen.pop()
    assert "Growth" in _line_of(ctx, "Workspace plan: Growth").split("(")[0]
    assert "(" not in _line_of(ctx, "Workspace plan: Growth")  # the later one is current
    assert "(" in _line_of(ctx, "Workspace plan: Starter")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            "backup.sh[9120]: snapshot repository saved",
            "backup.sh[44120]: snapshot repository saved",
        ),
        ("02:30:01 backup repository done", "03:31:07 backup repository done"),
    ],
)
def test_a_log_line_said_again_is_no_change(old: str, new: str) -> None:
    items = [_line(old, "s1", 1, D1), _line(new, "s2", 1, D2)]
    assert template_moved(items, valid_at=D2, query="which repository?") == {}
