"""The eleventh reader round's forms (docs/concepts/text.md#eleventh-round), through the API.

Cloud regions as a kind of value, "cut over to" as a change, a migration that replaces a value
in every relation of its subject holding it, endings said as "retired in July", "not going back
to X", "we're out of X" and "Okta contract ended", a config diff of ``KEY=value`` lines, and the
marks a context gives a fact or a line from the lines around it.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.said_ended import ended_values
from graphmem.text.lexicon import category
from graphmem.text.resolve import compatible
from graphmem.timeutil import ManualClock
from tests import backends
from tests.test_readers import _current
from tests.test_restated import _context_after

REGIONS = ["eu-west-1", "us-east-1", "ap-southeast-2", "us-central1", "europe-west4", "eastus2"]
OTHERS = ["AWS", "Frankfurt", "Postgres 16", "8080", "Acme", "v2.1"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(REGIONS), st.sampled_from(REGIONS + OTHERS))
def test_a_region_replaces_only_a_region(region: str, other: str) -> None:
    # docs/concepts/text.md#resolution-against-the-graph: a typed kind never replaces another
    assert category(region) == "region"
    assert compatible(region, other) == (other in REGIONS)
    assert compatible(other, region) == (other in REGIONS)


def test_a_thing_moved_to_a_region_changes_where_it_is_hosted(clock: ManualClock) -> None:
    clock.set("2025-09-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("Project Atlas is deployed to us-east-1.", at="2025-09-01")
        clock.set("2026-03-11")
        mem.remember("Project Atlas moved to eu-west-1 on 1 March.", at="2026-03-10")
        now = _current(mem)
        assert ("Project Atlas", "hosted_on", "eu-west-1") in now
        assert ("Project Atlas", "hosted_on", "us-east-1") not in now
        assert not any(p == "lives_in" for _, p, _ in now)


def test_a_region_does_not_replace_a_cloud(clock: ManualClock) -> None:
    clock.set("2025-09-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("Project Kite is hosted on AWS.", at="2025-09-01")
        clock.set("2026-03-11")
        mem.remember("Project Kite moved to eu-west-1.", at="2026-03-10")
        assert ("Project Kite", "hosted_on", "AWS") in _current(mem)


def test_cut_over_to_is_a_change(clock: ManualClock) -> None:
    clock.set("2024-11-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("RFC 12: auth-service authenticates callers with API keys.", at="2024-11-01")
        clock.set("2026-02-25")
        mem.remember("RFC 31: auth-service cut over to OAuth 2.0 on 10 February.", at="2026-02-24")
        now = _current(mem)
        assert ("auth-service", "authenticates_callers_with", "OAuth 2.0") in now
        assert ("auth-service", "authenticates_callers_with", "API keys") not in now


def test_a_failover_without_a_subject_changes_nothing(clock: ManualClock) -> None:
    clock.set("2025-07-02")
    with backends.memory(clock=clock) as mem:
        mem.add_session("Backups: nightly base backup", started_at="2025-07-01")
        before = _current(mem)
        clock.set("2025-07-15")
        mem.add_session("02:55 decision: fail over to the replica", started_at="2025-07-14")
        assert before <= _current(mem)


def test_a_migration_replaces_the_value_in_every_relation_of_its_subject(
    clock: ManualClock,
) -> None:
    clock.set("2025-01-11")
    with backends.memory(clock=clock) as mem:
        mem.remember("ADR 009: billing-service stores invoices in MySQL.", at="2025-01-10")
        clock.set("2025-04-03")
        mem.remember("billing-service is on MySQL, as noted during the incident.", at="2025-04-02")
        clock.set("2026-05-06")
        mem.remember("ADR 041: billing-service migrates from MySQL to PostgreSQL.", at="2026-05-05")
        now = _current(mem)
        assert ("billing-service", "stores_invoices_in", "PostgreSQL") in now
        assert ("billing-service", "runs_on", "PostgreSQL") in now
        assert not any(o == "MySQL" for s, _, o in now if s == "billing-service")


def test_a_migration_of_a_value_two_subjects_hold_changes_neither(clock: ManualClock) -> None:
    # the same value in relations of two subjects: which one moved is not said
    clock.set("2025-01-11")
    with backends.memory(clock=clock) as mem:
        mem.remember("The billing service runs on MySQL.", at="2025-01-10")
        mem.remember("The ledger service runs on MySQL.", at="2025-01-10")
        clock.set("2026-05-06")
        mem.remember("We migrated from MySQL to PostgreSQL.", at="2026-05-05")
        now = _current(mem)
        assert ("billing service", "runs_on", "MySQL") in now
        assert ("ledger service", "runs_on", "MySQL") in now


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("NOTE: Okafor retired in July -> user now sees Dr. Lindqvist.", "okafor"),
        ("note to self, not going back to Joe's Garage, they overcharged", "joe's garage"),
        ("As of today we're officially out of Harbor Street.", "harbor street"),
        ("Comment: Okta contract ended Oct 31. Every app federates through Entra ID.", "okta"),
        ("# memcached retired — Redis gives us persistence + pub/sub", "memcached"),
        ("cutover done, ingest workers are off RabbitMQ and consuming from NATS now", "rabbitmq"),
        ("- sold the Honda Fit; now drives a used 2019 Mazda CX-5", "honda fit"),
        ("Sep 26 — last day at Brightwave, cake + awkward speeches.", "brightwave"),
        ("Greenleaf is closing — my prescriptions moved to Harbor Drug", "greenleaf"),
        ("1. Lucía: Nagios is off as of Friday. All paging comes from Alertmanager", "nagios"),
        ("switched internet to Sonic fiber; Xfinity cancelled and modem returned.", "xfinity"),
        ("2. Priya took over the cert rotation from Tomas (he's on leave)", "tomas"),
    ],
)
def test_forms_that_say_a_thing_ended(text: str, ended: str) -> None:
    assert ended in ended_values(text)


@pytest.mark.parametrize(
    "text",
    [
        "I might not be going back to Rome",
        "we are going to move out of the loft",
        "the lease ended",
        "Bob is off Monday",
        "we are off to Paris",
        "she is off sick",
        "my son is 5 years old today",
        "an old friend visited",  # "the old X" says nothing ended: LoCoMo's chat is full of it
        "which means Dr. Ramirez is out of network, so I picked Dr. Nguyen",
    ],
)
def test_forms_that_end_nothing(text: str) -> None:
    assert ended_values(text) == []


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("# memcached retired — Redis gives us persistence + pub/sub", "redis"),
        ("let's swap — I'll take Wednesdays, you take Fridays?", "wednesdays"),
    ],
)
def test_what_follows_a_dash_is_not_what_ended(text: str, kept: str) -> None:
    assert not any(kept in v for v in ended_values(text))


def test_a_fact_whose_value_a_note_says_retired_is_marked(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        texts = [
            ("2025-01-10", "NOTE: user's dentist is Dr. Amara Okafor (Elm St)."),
            ("2025-08-22", "NOTE: Okafor retired in July -> user now sees Dr. Henrik Lindqvist."),
        ]
        ctx = _context_after(mem, clock, texts, "Who's my dentist now?", via="remember")
        line = next(x for x in ctx.splitlines() if "Amara Okafor" in x)
        assert "replaced" in line or "no longer" in line


def test_a_fact_is_marked_by_a_later_line_that_gives_its_value_otherwise(
    clock: ManualClock,
) -> None:
    with backends.memory(clock=clock) as mem:
        sessions = [
            (
                "2025-07-01",
                "# Runbook: orders-db\n- Primary: pg-orders-02\n- Replica: pg-orders-03",
            ),
            (
                "2025-07-14",
                "INC-4471 orders-db degraded\n02:41 alert: replication lag on orders-db\n"
                "03:02 pg-orders-03 promoted, it is now the PRIMARY\n03:30 resolved",
            ),
        ]
        ctx = _context_after(mem, clock, sessions, "Which host is the orders database primary now?")
        line = next(x for x in ctx.splitlines() if x.startswith("- orders-db primary"))
        assert "pg-orders-02 possibly superseded: pg-orders-03" in line


def test_a_config_diff_of_key_value_lines_is_a_change(clock: ManualClock) -> None:
    clock.set("2025-02-21")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "# .env.production\nAPP_ENV=production\nMAIL_DRIVER=sendgrid\nLOG_LEVEL=warn",
            started_at="2025-02-20",
        )
        clock.set("2025-10-02")
        mem.add_session(
            "diff --git a/.env.production b/.env.production\n-MAIL_DRIVER=sendgrid\n"
            "+MAIL_DRIVER=postmark\n LOG_LEVEL=warn",
            started_at="2025-10-01",
        )
        now = _current(mem)
        assert ("self", "mail_driver", "postmark") in now
        assert ("self", "mail_driver", "sendgrid") not in now
        clock.set("2025-10-03")
        ctx = str(mem.context("Which mail driver does production use?"))
        removed = next(x for x in ctx.splitlines() if "-MAIL_DRIVER=sendgrid" in x)
        assert "sendgrid replaced by postmark" in removed


def test_a_quoted_setting_with_a_comment_in_a_diff(clock: ManualClock) -> None:
    clock.set("2025-06-24")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            'PR #441: move primary region\n-  region = "eu-west-1"   # Ireland\n'
            '+  region = "eu-central-1"   # Frankfurt',
            started_at="2025-06-23",
        )
        assert ("self", "region", "eu-central-1") in _current(mem)


def test_a_clock_time_stays_with_the_value(clock: ManualClock) -> None:
    # never lose text a user gave: "at 7:00" is part of what the user prefers
    clock.set("2025-06-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("User prefers morning reminders at 7:00.", at="2025-06-01")
        clock.set("2025-10-01")
        mem.remember(
            "User prefers reminders at 6:30 now (new job starts earlier).", at="2025-09-30"
        )
        now = _current(mem)
        assert ("self", "prefers", "reminders at 6:30") in now
        assert ("self", "prefers", "morning reminders at 7:00") not in now
    with backends.memory(clock=clock) as mem:
        mem.remember("Alice works at 3M.", at="2025-09-30")
        assert ("Alice", "works_at", "3M") in _current(mem)


def test_everyones_been_migrated_is_a_change_of_the_owners(clock: ManualClock) -> None:
    clock.set("2025-06-17")
    with backends.memory(clock=clock) as mem:
        mem.remember("IT note: company password manager is 1Password (Teams).", at="2025-06-16")
        clock.set("2025-09-02")
        mem.remember(
            "IT note: everyone's been migrated from 1Password to Bitwarden Enterprise.",
            at="2025-09-01",
        )
        now = _current(mem)
        assert ("self", "company_password_manager", "Bitwarden Enterprise") in now
        assert not any(p == "been" for _, p, _ in now)


def test_temperatures_and_clock_times_are_values_a_later_note_restates(
    clock: ManualClock,
) -> None:
    with backends.memory(clock=clock) as mem:
        texts = [
            ("2025-02-12", "LN p.41: PCR annealing 55 °C, 30 cycles, template 2 µL."),
            ("2025-02-19", "LN p.47: bands smeary, raised annealing to 58°C. Same Taq."),
        ]
        question = "What annealing temperature do I run the PCR at?"
        ctx = _context_after(mem, clock, texts, question, via="remember")
        line = next(x for x in ctx.splitlines() if "55 °C" in x)
        assert "possibly superseded: 58°C" in line


def test_a_renamed_channel_says_its_old_name_ended() -> None:
    text = "[16:45] slackbot: amara renamed the channel from #data-eng-help to #data-platform"
    assert ended_values(text) == ["#data-eng-help"]


def test_a_value_a_session_says_ended_is_marked_on_its_other_lines(clock: ManualClock) -> None:
    # docs/concepts/recall.md#said-ended: a session is one document; its lines share a thing
    with backends.memory(clock=clock) as mem:
        sessions = [
            (
                "2025-04-02",
                "PR #412: Use SendGrid for transactional email\n"
                "Wires up password reset + receipts through SendGrid. API key in SENDGRID_KEY.",
            ),
            (
                "2025-09-15",
                "PR #488: Replace SendGrid with Postmark for transactional mail\n"
                "Deliverability to Outlook was bad. Templates ported, SendGrid key removed.",
            ),
        ]
        ctx = _context_after(mem, clock, sessions, "Which service sends our transactional emails?")
        for line in ctx.splitlines():
            if "sendgrid" in line.casefold():  # "SendGrid key removed." names its own
                assert re.search(r"sendgrid( key)?: no longer current", line), line


def test_a_weekday_a_later_note_gives_otherwise_is_marked_on_a_when_question(
    clock: ManualClock,
) -> None:
    with backends.memory(clock=clock) as mem:
        texts = [
            ("2025-04-01", "recurring: 1:1 Jess / Alex — Thu 15:00–15:30, room Birch"),
            ("2025-06-02", "1:1 Jess / Alex moved to Mon 09:30 from next week."),
        ]
        ctx = _context_after(mem, clock, texts, "When is the Jess/Alex 1:1 now?", via="remember")
        line = next(x for x in ctx.splitlines() if "Thu 15:00" in x)
        assert "Thu possibly superseded: Mon" in line
        # a question that does not ask when compares no weekdays
        ctx = str(mem.context("Which room is the Jess/Alex 1:1 in?"))
        assert "superseded: Mon" not in ctx


def test_a_weekday_value_is_a_weekly_day() -> None:
    from graphmem.restated import typed_values

    assert "weekday" not in typed_values("I sat down on the sun deck at 9")
    assert "weekday" not in typed_values("last Friday I went hiking at 3pm")  # one day
    assert typed_values("pickup Mondays")["weekday"] == {"mon": "Mondays"}
    assert typed_values("game night is every Thursday")["weekday"] == {"thu": "every Thursday"}
    assert typed_values("1:1 — Thu 15:00, room Birch")["weekday"] == {"thu": "Thu"}


def test_a_thing_moved_to_a_host_is_no_place_it_lives(clock: ManualClock) -> None:
    clock.set("2025-03-04")
    with backends.memory(clock=clock) as mem:
        mem.remember("staging DB: db-stg-01.internal:5432 (Postgres 15)", at="2025-03-03")
        clock.set("2025-05-30")
        mem.remember("staging DB moved to db-stg-02.internal, same port 5432.", at="2025-05-29")
        now = _current(mem)
        assert ("self", "staging_db", "db-stg-02.internal") in now
        assert not any(p == "lives_in" for _, p, _ in now)
