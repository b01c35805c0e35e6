"""Forms of the tenth reader round (docs/concepts/text.md#tenth-round), through the public API.

Settings written as lines without a list marker ("Seats: 40") or in lower case ("replicas: 4"),
a setting's move written with an arrow ("replicas: 4 → 8", "Stage → Proposal"), labels that
name no setting (a commit's "Author:", a page's "Last edited:"), a new job said as "I got the
job at X", and the year of a date said ahead ("I start on April 6").
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.text.dates import find_dates
from graphmem.timeutil import ManualClock
from tests import backends
from tests.test_readers import _current


def _mine(mem: object) -> set[tuple[str, str]]:
    return {(p, o) for s, p, o in _current(mem) if s == mem.owner}  # type: ignore[attr-defined]


def test_lines_of_settings_without_list_markers(clock: ManualClock) -> None:
    # docs/concepts/text.md#cards
    clock.set("2026-02-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("Seats: 40\nMRR: $2,400/mo\nRetention: 30 days", at="2026-02-01")
        assert {("seats", "40"), ("mrr", "$2,400/mo"), ("retention", "30 days")} <= _mine(mem)


def test_a_chat_with_the_same_shape_is_no_card(clock: ManualClock) -> None:
    # one label says a sentence: the labels are people speaking
    clock.set("2026-02-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("Alice: Postgres\nBob: MySQL I think, we moved last year", at="2026-02-01")
        assert not {p for p, _ in _mine(mem)} & {"alice", "bob"}


def test_a_config_in_lower_case_and_its_moves(clock: ManualClock) -> None:
    clock.set("2026-02-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(
            "replicas: 4\nmemory limit: 1Gi\nlogLevel: info  # was debug\n"
            "feature flag provider: LaunchDarkly",
            at="2026-02-01",
        )
        assert {("replicas", "4"), ("memory_limit", "1Gi"), ("loglevel", "info")} <= _mine(mem)
        clock.set("2026-03-02")
        mem.remember(
            "- replicas: 4 → 8, HPA max 16\n- memory limit: 1Gi → 2Gi (OOMKills at p99)\n"
            "- feature flag provider: LaunchDarkly → Unleash (self-hosted)",
            at="2026-03-01",
        )
        now = _mine(mem)
        assert {("replicas", "8"), ("memory_limit", "2Gi")} <= now
        assert ("feature_flag_provider", "Unleash") in now
        assert not {("replicas", "4"), ("memory_limit", "1Gi")} & now
        old = mem.history(mem.owner, "replicas", include_expired=True)
        assert {f.object for f in old if f.valid_to or f.expired_at} == {"4"}


def test_an_arrow_or_an_equals_sign_sets_a_slot(clock: ManualClock) -> None:
    clock.set("2026-02-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("Demo went well.\nStage → Proposal.", at="2026-02-01")
        mem.remember("New champion = Sven Aas.\nStage → Negotiation.", at="2026-02-02")
        now = _mine(mem)
        assert {("stage", "Negotiation"), ("champion", "Sven Aas")} <= now
        assert ("stage", "Proposal") not in now
        mem.remember("ugh new job = new pay", at="2026-02-02")  # no name: the slot stays "new"
        assert "job" not in {p for p, _ in _mine(mem)}


@pytest.mark.parametrize(
    "line",
    [
        "Author: kwame.a <kwame@ledgerline.dev>",
        "Refs: LL-482",
        "Last edited: 2026-02-04 by @hkim",
        "Signed-off-by: Dana Lee",
    ],
)
def test_labels_that_name_no_setting(line: str, clock: ManualClock) -> None:
    clock.set("2026-02-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(f"{line}\nRegion: eu-west-1", at="2026-02-01")
        assert _mine(mem) == {("region", "eu-west-1")}


def test_got_the_job_at_supersedes_the_employer(clock: ManualClock) -> None:
    clock.set("2026-01-08")
    with backends.memory(clock=clock) as mem:
        mem.add_session("User: I work as a UX designer at Brightwell", started_at="2026-01-08")
        clock.set("2026-03-15")
        mem.add_session(
            "User: ok big update!! I got the job at Fernhill Studio 🎉", started_at="2026-03-15"
        )
        assert ("works_at", "Fernhill Studio") in _mine(mem)
        assert ("works_at", "Brightwell") not in _mine(mem)
        mem.add_session("User: I didn't get the job at Lumen", started_at="2026-03-15")
        assert ("works_at", "Lumen") not in _mine(mem)


@pytest.mark.parametrize(
    "sentence",
    ["I accepted the offer from Globex.", "I landed a job at Globex.", "I start at Globex."],
)
def test_other_ways_to_say_a_new_job(sentence: str, clock: ManualClock) -> None:
    clock.set("2026-02-02")
    with backends.memory(clock=clock) as mem:
        mem.add_session(f"User: {sentence}", started_at="2026-02-01")
        assert ("works_at", "Globex") in _mine(mem)


_MONTHS = ["January", "March", "April", "June", "September", "December"]


@given(
    month=st.sampled_from(_MONTHS),
    day=st.integers(1, 28),
    said=st.dates(dt.date(2025, 1, 1), dt.date(2027, 12, 31)),
)
@settings(max_examples=60, deadline=None)
def test_a_date_said_ahead_is_the_nearest_and_one_said_past_never_later(
    month: str, day: int, said: dt.date
) -> None:
    # docs/concepts/text.md#dates
    at = dt.datetime(said.year, said.month, said.day, 12, tzinfo=dt.timezone.utc)
    ahead = [d for d, _, _ in find_dates(f"I start at Fernhill on {month} {day}", at)]
    past = [d for d, _, _ in find_dates(f"I joined Fernhill on {month} {day}", at)]
    assert len(ahead) == len(past) == 1
    assert past[0] <= at
    assert abs(ahead[0] - at) <= dt.timedelta(days=184)
    assert (ahead[0].month, ahead[0].day) == (past[0].month, past[0].day)


@pytest.mark.parametrize(
    ("sentence", "role"),
    [
        ("I'm a pharmacist at Boots in Cardiff.", "pharmacist"),
        ("I'm a nurse at Leeds General.", "nurse"),
    ],
)
def test_a_job_word_before_an_employer_is_a_role(
    sentence: str, role: str, clock: ManualClock
) -> None:
    clock.set("2026-02-02")
    with backends.memory(clock=clock) as mem:
        mem.add_session(f"User: {sentence}", started_at="2026-02-01")
        assert ("role", role) in _mine(mem)
        assert any(p == "works_at" for p, _ in _mine(mem))


@pytest.mark.parametrize("sentence", ["I'm a member at Crux.", "I'm a regular at Joe's Cafe."])
def test_a_word_that_ends_like_a_job_and_names_none(sentence: str, clock: ManualClock) -> None:
    clock.set("2026-02-02")
    with backends.memory(clock=clock) as mem:
        mem.add_session(f"User: {sentence}", started_at="2026-02-01")
        assert not {p for p, _ in _mine(mem)} & {"role", "works_at"}


def test_fields_between_middle_dots(clock: ManualClock) -> None:
    # docs/concepts/text.md#log-formats: "Doors open 7:55 · First bell 8:10" are fields
    clock.set("2024-03-09")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "Doors open 7:55 · First bell 8:10 · Dismissal 2:40", started_at="2024-01-12"
        )
        mem.add_session(
            "Doors open 8:10 · First bell 8:25 · Dismissal 2:55", started_at="2024-03-08"
        )
        mine = _mine(mem)
        assert {("first_bell", "8:25"), ("doors_open", "8:10"), ("dismissal", "2:55")} <= mine
        assert ("first_bell", "8:10") not in mine
        # a name's number is no field, and nothing of the line is lost
        mem.remember(
            "CA 418 · Boeing 737-900 · Departs 9:40 AM · Arrives 12:27 PM", at="2024-03-08"
        )
        assert ("departs", "9:40 AM") in _mine(mem)
        assert not {p for p, _ in _mine(mem)} & {"boeing", "ca"}


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Thursday the 25th will be my last walk", "2024-04-25"),  # said on Monday the 22nd
        ("see you Friday, 3rd", "2024-05-03"),
        ("I'm moving to Denver at the end of the month", "2024-04-30"),
        ("the invoice is due by the end of next month", "2024-05-31"),
    ],
)
def test_a_weekday_with_its_day_and_the_end_of_a_month(text: str, day: str) -> None:
    # docs/concepts/text.md#dates
    said = dt.datetime(2024, 4, 22, 9, tzinfo=dt.timezone.utc)
    assert [d.date().isoformat() for d, _, _ in find_dates(text, said)] == [day]


@settings(max_examples=200, deadline=None)
@given(
    st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1)),
    st.integers(1, 28),
    st.sampled_from(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]),
)
def test_a_weekday_with_its_day_is_that_day_next_to_the_clock(
    at: dt.datetime, day: int, name: str
) -> None:
    said = at.replace(tzinfo=dt.timezone.utc)
    ((when, _, _),) = find_dates(f"{name} the {day}th", said)
    assert when.day == day
    assert abs(when - said) <= dt.timedelta(days=62)
