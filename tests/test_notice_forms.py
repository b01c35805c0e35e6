"""Notices, forms and machine logs (docs/concepts/text.md#notices), through the public API.

A notice addressed to its reader ("Your premium is ..."), a bill's or a policy's one-word fields
and two-column figures, a booking notice whose date stands on a line of its own, a tool call's
JSON, a record whose description is long, and what is never read as a change: a shell command,
or the title of a pull request left open or declined.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.timeutil import ManualClock
from tests import backends
from tests.test_readers import _current


def _told(mem, subject: str, slot: str) -> set[str]:  # type: ignore[no-untyped-def]
    return {f.object for f in mem.history(subject, slot)}


Fact = tuple[str, str, str]


def _replaced(clock: ManualClock, sessions: list[tuple[str, str]], old: Fact, new: Fact) -> None:
    """Two dated sessions: ``old`` is current after the first, ``new`` after the second, and
    ``old`` stays in the slot's history."""
    with backends.memory(clock=clock) as mem:
        for (day, text), fact in zip(sessions, (old, new), strict=True):
            clock.set(day)
            mem.add_session(text, started_at=day)
            assert fact in _current(mem)
        assert old not in _current(mem)
        assert old[2] in _told(mem, old[0], old[1])


def test_a_notices_your_is_the_owners_and_a_renewal_replaces_it(clock: ManualClock) -> None:
    _replaced(
        clock,
        [
            ("2023-05-20", "GEICO · Policy Declarations\nPremium for this period: $742.10"),
            (
                "2023-11-02",
                "GEICO · Renewal Notice\nYour renewal premium is $868.40 for this 6-month "
                "period (previous: $742.10).",
            ),
        ],
        ("self", "premium", "$742.10"),
        ("self", "premium", "$868.40"),
    )


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("Rent: $1,910", ("self", "rent", "$1,910")),
        ("Deductible: $500", ("self", "deductible", "$500")),
        ("Your rent is $1,900.", ("self", "rent", "$1,900")),
        ("Pre-tax contribution: 6% of eligible pay", ("self", "pre_tax_contribution", "6% of eligible pay")),  # noqa: E501
        ("Total Tax                               $4,812.36", ("self", "total_tax", "$4,812.36")),
        ("Goal: 1,850   Calorie target: 1,850   Protein: 35%", ("self", "protein", "35%")),
        ("Goal: 10,000 steps", ("self", "goal", "10,000 steps")),  # a figure: a setting
        ("JVM:          17.0.9 (Eclipse Adoptium 17.0.9+9)", ("self", "jvm", "17.0.9")),
        ("Assignment group: Identity & Access Management", ("self", "assignment_group", "Identity & Access Management")),  # noqa: E501
        ("Location: Riverside Park – Field 3 (by the courts)", ("self", "located_in", "Riverside Park – Field 3")),  # noqa: E501
    ],
)  # fmt: skip
def test_a_bills_and_a_forms_fields(
    text: str, fact: tuple[str, str, str], clock: ManualClock
) -> None:
    clock.set("2024-03-01")
    with backends.memory(clock=clock) as mem:
        mem.remember(text)
        assert fact in _current(mem)


@pytest.mark.parametrize(
    "text",
    [
        "Sam: your rent is $1,900",  # whom Sam speaks to is not said
        "Good news — your tickets are valid for the new date.",  # no value
        "Goal: ship the rent calculator by Friday",  # a note's head, not a setting
    ],
)
def test_no_setting_without_a_value_or_an_owner(text: str, clock: ManualClock) -> None:
    clock.set("2024-03-01")
    with backends.memory(clock=clock) as mem:
        mem.remember(text)
        assert not {f for f in _current(mem) if f[1] in ("rent", "tickets", "goal")}


def test_a_booking_notices_date_line_and_its_reschedule(clock: ManualClock) -> None:
    clock.set("2024-02-20")
    with backends.memory(clock=clock) as mem:
        mem.remember(
            "Zocdoc\nYour appointment is booked ✔\n\nDr. Priya Raman, MD — Dermatology\n"
            "Tue, Mar 5 · 10:30 AM\nSkin Health Partners of Austin\n"
            "Need to cancel or reschedule? Do so at least 24 hours in advance."
        )
        assert ("self", "appointment", "Tue, Mar 5, 10:30 AM") in _current(mem)
        clock.set("2024-03-01")
        mem.remember(
            "Zocdoc\nYour appointment has been rescheduled\n\nHi Marisol, the office updated "
            "your visit.\n\nThu, Mar 14 · 8:15 AM\nAdd to calendar · Get directions"
        )
        now = _current(mem)
        assert ("self", "appointment", "Thu, Mar 14, 8:15 AM") in now
        assert ("self", "appointment", "Tue, Mar 5, 10:30 AM") not in now
        assert "Tue, Mar 5, 10:30 AM" in _told(mem, "self", "appointment")


def test_an_events_new_date_and_only_the_first_date_line(clock: ManualClock) -> None:
    clock.set("2024-01-22")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "Ticketmaster\nYou Got Tickets To Parlour Ghosts\nOrder #: 14-28813/LAX\n"
            "Sat • Apr 20, 2024 • 8:00 PM\nGreek Theatre, Los Angeles, CA",
            started_at="2024-01-22",
        )
        clock.set("2024-03-28")
        mem.add_session(
            "Ticketmaster\nEvent Update: Parlour Ghosts has been rescheduled\nHi Dev,\n"
            "NEW DATE: Fri • Sep 13, 2024 • 8:00 PM\nVenue: Greek Theatre (no change)\n"
            "Refunds are available through Apr 27, 2024 in My Account.\nSat, May 4, 2024",
            started_at="2024-03-28",
        )
        assert _told(mem, "Parlour Ghosts", "date") == {
            "Sat, Apr 20, 2024, 8:00 PM",
            "Fri, Sep 13, 2024, 8:00 PM",
        }
        assert ("Parlour Ghosts", "date", "Fri, Sep 13, 2024, 8:00 PM") in _current(mem)


@settings(max_examples=15, deadline=None)
@given(days=st.lists(st.integers(min_value=1, max_value=28), min_size=1, max_size=4, unique=True))
def test_the_last_announced_date_is_current_and_every_earlier_one_kept(days: list[int]) -> None:
    clock = ManualClock("2024-01-01T12:00:00Z")
    with backends.memory(clock=clock) as mem:
        for i, day in enumerate(days):
            clock.set(f"2024-0{i + 1}-01T12:00:00Z")
            how = "booked" if i == 0 else "rescheduled"
            mem.remember(f"Your appointment has been {how}\n\nFri, Nov {day} · 9:00 AM")
        dates = {f"Fri, Nov {d}, 9:00 AM" for d in days}
        assert _told(mem, "self", "appointment") == dates
        current = {f[2] for f in _current(mem) if f[:2] == ("self", "appointment")}
        assert current == {f"Fri, Nov {days[-1]}, 9:00 AM"}


def test_a_tool_calls_json_fields_replace_the_profiles(clock: ManualClock) -> None:
    _replaced(
        clock,
        [
            (
                "2024-05-03",
                "***** Response from calling tool (call_Qw81) *****\n"
                '{"name": "Ines Gallagher", "home_airport": "SFO", "seat_pref": "aisle"}',
            ),
            (
                "2024-08-19",
                "***** Suggested tool call (call_Zp03): update_user_profile *****\n"
                'Arguments: {"user_id": "u_48213", "home_airport": "PDX"}',
            ),
        ],
        ("self", "home_airport", "SFO"),
        ("self", "home_airport", "PDX"),
    )


def test_a_chatbots_slot_event_is_a_setting_and_its_question_no_change(
    clock: ManualClock,
) -> None:
    clock.set("2024-04-02")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            '{"event": "slot", "timestamp": 1712063101.4, "name": "timezone", '
            '"value": "America/Chicago"}\n'
            '{"event": "bot", "text": "Want me to switch your default timezone to '
            'America/Denver?"}',
            started_at="2024-04-02",
        )
        now = _current(mem)
        assert ("self", "timezone", "America/Chicago") in now
        assert not {f for f in now if "Denver" in f[2]}


def test_a_records_long_description_keeps_its_fields(clock: ManualClock) -> None:
    clock.set("2024-08-13")
    with backends.memory(clock=clock) as mem:
        for day, group in (("2024-08-13", "Network Operations"), ("2024-08-14", "Platform")):
            clock.set(day)
            mem.remember(
                "ServiceNow · Incident INC0081234\n"
                "Short description: Users in Lisbon office cannot connect to VPN (GlobalProtect)\n"
                "Caller: Inês Carvalho        Category: Network   Subcategory: VPN\n"
                f"State: In Progress\nAssignment group: {group}"
            )
        now = _current(mem)  # the incident the title names is the fields' subject
        assert ("INC0081234", "assignment_group", "Platform") in now
        assert ("INC0081234", "assignment_group", "Network Operations") not in now
        assert ("INC0081234", "subcategory", "VPN") in now


@pytest.mark.parametrize(
    "title", ["Harbor Dental Group — opp #OPP-5521", "OPP-5521 · Harbor Dental Group"]
)
def test_a_deal_titled_with_its_customer_is_the_customers(title: str, clock: ManualClock) -> None:
    clock.set("2026-02-09")
    with backends.memory(clock=clock) as mem:
        mem.remember(f"{title}\nOwner: ben.t\nStage: Discovery.")
        assert ("Harbor Dental Group", "stage", "Discovery") in _current(mem)


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("> git checkout -f c41b97f0 # Merge pull request #1187 from ops/jdk17", "checkout"),
        ("+ ./gradlew clean build -x integrationTest", "integrationTest"),
        ("$ docker compose up -d", "compose"),
    ],
)  # fmt: skip
def test_a_shell_command_in_a_log_is_not_read(line: str, word: str, clock: ManualClock) -> None:
    clock.set("2024-02-27")
    with backends.memory(clock=clock) as mem:
        mem.add_session(line, started_at="2024-02-27")
        assert _current(mem) == set()
        assert mem.search(word)  # the line is kept all the same


@pytest.mark.parametrize(
    ("state", "current"),
    [
        ("· OPEN", "Laravel"),
        ("· DECLINED", "Laravel"),
        ("Leaving this open until the freeze.", "Laravel"),
        ("· MERGED", "Go"),
    ],
)
def test_only_a_merged_pull_requests_title_changes_the_fact(
    state: str, current: str, clock: ManualClock
) -> None:
    clock.set("2024-04-10")
    with backends.memory(clock=clock) as mem:
        mem.add_session("The billing service runs on Laravel.", started_at="2024-04-10")
        clock.set("2024-04-24")
        mem.add_session(
            "Bitbucket · acme/billing · Pull request #231\n"
            "refactor(billing): migrate the billing service from Laravel to Go\n"
            f"Tomás Reyes wants to merge spike/go into develop {state}",
            started_at="2024-04-24",
        )
        objects = {f[2] for f in _current(mem)}
        assert objects & {"Laravel", "Go"} == {current}


def test_a_forms_place_answers_where_and_keeps_the_old_one(clock: ManualClock) -> None:
    clock.set("2024-08-26")
    with backends.memory(clock=clock) as mem:
        mem.remember("TeamSnap · Rockets U10\nLocation: Riverside Park – Field 3 (by the courts)")
        then = {"valid_at": "2024-09-30", "known_at": "2024-08-27"}
        before = str(mem.context("Where is Rockets practice held?", **then))
        clock.set("2024-09-23")
        mem.remember("TeamSnap · Rockets U10\nLocation: Lincoln MS turf")
        ctx = str(mem.context("Where is Rockets practice held?"))
        assert "located_in Lincoln MS turf" in ctx
        assert "was Riverside Park – Field 3" in ctx
        # what was believed then is what was answered then (docs/concepts/time.md)
        assert str(mem.context("Where is Rockets practice held?", **then)) == before


def test_a_documents_own_number_adds_and_never_replaces(clock: ManualClock) -> None:
    clock.set("2024-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("PayPal receipt\nTransaction ID: 7KJ28841GP\nTotal: $29.00")
        clock.set("2024-02-02")
        mem.remember("PayPal receipt\nTransaction ID: 9XX11QQ\nTotal: $31.00")
        ids = {f[2] for f in _current(mem) if f[1] == "transaction_id"}
        assert ids == {"7KJ28841GP", "9XX11QQ"}
