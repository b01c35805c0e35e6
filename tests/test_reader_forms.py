"""Forms of the ninth reader round (docs/concepts/text.md#ninth-round), through the public API.

Fields written on one line of a record, the roles in a list of who was there, the software a
thing runs written as "X is PostgreSQL 14", a role with its team and employer, and a setting of
the owner's that moved with nothing stored before.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.timeutil import ManualClock
from tests import backends
from tests.test_readers import _current


def test_a_records_fields_on_one_line_are_each_the_records(clock: ManualClock) -> None:
    # docs/concepts/text.md#records
    clock.set("2026-02-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(
            "OPS-311: Document on-call escalation path\n"
            "Status: Open | Priority: P3 | Assignee: hamid.s\nReporter: li.na",
            at="2026-02-01",
        )
        assert {
            ("OPS-311", "status", "Open"),
            ("OPS-311", "priority", "P3"),
            ("OPS-311", "assignee", "hamid.s"),
        } <= _current(mem)
        clock.set("2026-02-10")
        mem.remember(
            "OPS-311: Document on-call escalation path\nStatus: In Progress | Assignee: hamid.s",
            at="2026-02-09",
        )
        now = _current(mem)
        assert ("OPS-311", "status", "In Progress") in now
        assert ("OPS-311", "status", "Open") not in now
    with backends.memory(clock=clock) as mem:
        mem.remember(
            "INCIDENT INC-2026-017 — Search latency degradation\n"
            "Severity: SEV2 | Incident commander: Olu",
            at="2026-02-09",
        )
        assert {
            ("INC-2026-017", "severity", "SEV2"),
            ("INC-2026-017", "incident_commander", "Olu"),
        } <= _current(mem)


@pytest.mark.parametrize(
    "line",
    [
        "| name | value |",  # a table row, not fields
        "Deploys: Argo | we still babysit them",  # one part is no field
        "a | b | c",
    ],
)
def test_pipes_that_are_not_fields_stay_one_line(line: str, clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        mem.remember(line, at="2026-01-01")
        assert not any(p in ("deploys", "name") for _, p, _ in _current(mem))


def test_the_roles_in_a_list_of_who_was_there(clock: ManualClock) -> None:
    clock.set("2026-01-06")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "Garden club minutes — 5 Jan\n"
            "Present: Helen (chair), Walt (treasurer), Aiko (secretary), Bernard\n"
            "- Dues stay as they are",
            started_at="2026-01-05",
        )
        roles = {(s, o) for s, p, o in _current(mem) if p == "role"}
        assert roles == {("Helen", "chair"), ("Walt", "treasurer"), ("Aiko", "secretary")}


def test_a_standups_day_labels_are_no_settings(clock: ManualClock) -> None:
    clock.set("2026-01-21")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "Daily standup\nWei (team lead):\n- y: reviewed refund PRs\n- t: sprint planning prep",
            started_at="2026-01-20",
        )
        assert not any(p in ("y", "t") for _, p, _ in _current(mem))


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("orders-db is PostgreSQL 14.", ("orders-db", "runs", "PostgreSQL 14")),
        (
            "orders-db is PostgreSQL 14, primary in eu-west-1, replica in eu-central-1",
            ("orders-db", "runs", "PostgreSQL 14"),
        ),
        ("users-mongo is MongoDB 5.0, 3-node replica set", ("users-mongo", "runs", "MongoDB 5.0")),
        ("api-gw is Kong 3.4.", ("api-gw", "runs", "Kong 3.4")),
    ],
)
def test_a_thing_that_is_a_product_and_version_runs_it(
    sentence: str, fact: tuple[str, str, str], clock: ManualClock
) -> None:
    # docs/concepts/text.md#versions
    with backends.memory(clock=clock) as mem:
        mem.remember(sentence, at="2026-01-01")
        assert fact in _current(mem)


@pytest.mark.parametrize(
    "sentence", ["the plan is Pro 2.", "Alice is Bob 2.", "it is Postgres 14."]
)
def test_a_name_with_a_number_is_no_software(sentence: str, clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        mem.remember(sentence, at="2026-01-01")
        assert not any(p == "runs" for _, p, _ in _current(mem))


def test_a_role_with_its_team_and_employer(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        mem.remember("I'm the tech lead for the checkout team at Verdant.", at="2026-01-01")
        assert {
            ("self", "role", "tech lead for the checkout team"),
            ("self", "works_at", "Verdant"),
        } <= _current(mem)
        # "the new team lead" is still the owner's team lead, not a role of Carmen's
        clock.set("2026-01-03")
        mem.remember("Carmen is the new team lead.", at="2026-01-02")
        assert ("self", "team_lead", "Carmen") in _current(mem)


def test_a_setting_that_moved_with_nothing_stored_is_the_owners(clock: ManualClock) -> None:
    clock.set("2026-03-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("we moved the default region to eu-central-1 as of today.", at="2026-03-01")
        mem.remember("we switched the email provider to Postmark.", at="2026-03-01")
        mem.remember("we moved the billing service to AWS.", at="2026-03-01")
        assert {
            ("self", "default_region", "eu-central-1"),
            ("self", "email_provider", "Postmark"),
            ("billing service", "hosted_on", "AWS"),
        } <= _current(mem)


_FIELDS = ["Status", "Priority", "Assignee", "Severity", "Owner"]
_VALUES = ["Open", "P2", "dana", "SEV3", "In Review", "Closed", "kim.l", "P1"]


@given(
    rounds=st.lists(
        st.dictionaries(st.sampled_from(_FIELDS), st.sampled_from(_VALUES), min_size=2),
        min_size=1,
        max_size=3,
    )
)
@settings(max_examples=15, deadline=None)
def test_the_last_value_of_each_inline_field_is_current(rounds: list[dict[str, str]]) -> None:
    # docs/concepts/text.md#records: one line of fields, written again as the ticket moves
    clock = ManualClock("2026-01-01T12:00:00Z")
    last: dict[str, str] = {}
    with backends.memory(clock=clock) as mem:
        for i, fields in enumerate(rounds):
            clock.set(f"2026-01-{i + 2:02d}T12:00:00Z")
            line = " | ".join(f"{k}: {v}" for k, v in fields.items())
            mem.remember(f"OPS-742: Rotate keys\n{line}", at=f"2026-01-{i + 2:02d}")
            last.update(fields)
            now = {(p, o) for s, p, o in _current(mem) if s == "OPS-742"}
            assert now == {(k.casefold(), v) for k, v in last.items()}


def test_an_audit_trails_field_change_replaces_the_field(clock: ManualClock) -> None:
    # docs/concepts/text.md#log-formats
    clock.set("2023-09-14")
    with backends.memory(clock=clock) as mem:
        mem.remember("Primary Contact: Priya Anand · priya.anand@quarryhill.com")
        assert ("self", "primary_contact", "Priya Anand") in _current(mem)
        clock.set("2023-10-19")
        mem.remember("Primary Contact changed: Priya Anand → Tom Gallagher (tg@quarryhill.com)")
        now = _current(mem)
        assert ("self", "primary_contact", "Tom Gallagher") in now
        assert ("self", "primary_contact", "Priya Anand") not in now
        mem.remember("Dario changed the billing contact from Ana Ruiz to Li Wei")
        assert ("self", "billing_contact", "Li Wei") in _current(mem)
        # who changed something names no field: "Sam" is no slot
        mem.remember("Sam changed from Java to Go")
        assert not [f for f in mem.facts() if f.predicate == "sam"]


def test_old_and_new_fields_end_the_old_value(clock: ManualClock) -> None:
    clock.set("2023-12-05")
    with backends.memory(clock=clock) as mem:
        mem.remember("Rate plan: Standard Residential (flat 13.9¢/kWh)")
        clock.set("2024-02-27")
        mem.remember("Old plan: Standard Residential\nNew plan: Peak Reduction (Time-of-Use)")
        now = _current(mem)
        assert ("self", "plan", "Peak Reduction") in now
        assert not [o for _, _, o in now if o == "Standard Residential"]
        # ended, not deleted: what was believed before stays
        before = mem.facts(known_at="2024-01-01")
        assert [f.object for f in before if f.predicate == "rate_plan"] == ["Standard Residential"]


def test_git_log_lines_are_commits_and_a_pin_sets_a_version(clock: ManualClock) -> None:
    clock.set("2023-11-06")
    with backends.memory(clock=clock) as mem:
        mem.remember(
            "$ git log --oneline -3 origin/main\n"
            "a91c2e4 (HEAD -> main, origin/main) chore: pin node 18.18.2 in .nvmrc and engines\n"
            "5f0b7d1 fix(auth): refresh token race on tab focus\n"
        )
        assert ("node", "version", "18.18.2") in _current(mem)
        # a repair sets nothing up
        assert not [p for _, p, _ in _current(mem) if "race" in p]
        clock.set("2024-04-15")
        mem.add_session(
            "71d0f5c chore: bump node to 20.12.1 (.nvmrc, engines, Dockerfile)",
            started_at="2024-04-15",
        )
        now = _current(mem)
        assert ("node", "version", "20.12.1") in now
        assert ("node", "version", "18.18.2") not in now


@pytest.mark.parametrize(
    ("sentence", "value"),
    [
        ("We've signed with Saffron & Smoke for the catering.", "Saffron & Smoke"),
        ("Our accountant is Kelp & Co.", "Kelp & Co"),
    ],
)
def test_a_name_with_an_ampersand_is_one_value(
    sentence: str, value: str, clock: ManualClock
) -> None:
    clock.set("2025-03-10")
    with backends.memory(clock=clock) as mem:
        mem.remember(sentence)
        assert value in {o for _, _, o in _current(mem)}


@pytest.mark.parametrize(
    "text",
    [
        "Sam: they moved Noor over to Dr. Whitfield, same office.",  # to a doctor
        "Sam: Noor's checkup is tomorrow.\nSam: yeah bring the card, it's in the blue folder",
    ],
)
def test_a_doctor_or_a_things_place_is_no_home(text: str, clock: ManualClock) -> None:
    clock.set("2024-02-19")
    with backends.memory(clock=clock) as mem:
        mem.add_session(text, started_at="2024-02-19")
        assert not [f for f in mem.facts() if f.predicate == "lives_in"]


def test_a_nested_yaml_setting_is_named_with_its_parent(clock: ManualClock) -> None:
    # docs/concepts/text.md#log-formats: in a values file and in a diff of it
    clock.set("2024-05-14")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "# values-prod.yaml\nreplicaCount: 4\nresources:\n  requests:\n    memory: 384Mi\n"
            "  limits:\n    memory: 512Mi\nselector:\n  app: payments",
            started_at="2024-05-14",
        )
        now = _current(mem)
        assert {("self", "requests_memory", "384Mi"), ("self", "limits_memory", "512Mi")} <= now
        assert ("self", "replicacount", "4") in now  # no "4 selector"
        clock.set("2024-06-02")
        mem.add_session(
            "diff --git a/values-prod.yaml b/values-prod.yaml\n@@ -6,8 +6,8 @@\n resources:\n"
            "   requests:\n-    memory: 384Mi\n+    memory: 768Mi\n   limits:\n"
            "-    memory: 512Mi\n+    memory: 1Gi",
            started_at="2024-06-02",
        )
        now = _current(mem)
        assert {("self", "requests_memory", "768Mi"), ("self", "limits_memory", "1Gi")} <= now
        assert ("self", "limits_memory", "512Mi") not in now


def test_a_toml_diffs_setting_changes_and_its_neighbours_stay_lines(clock: ManualClock) -> None:
    # a diff's "-key = ..." / "+key = ..." is one change; the context line after it is a line
    # of its own, never the changed value continued (docs/concepts/text.md#log-formats)
    clock.set("2024-02-11")
    with backends.memory(clock=clock) as mem:
        mem.remember('[package]\nname = "tern"\nrust-version = "1.70"\nlicense = "Apache-2.0"')
        clock.set("2024-09-03")
        mem.remember(
            'diff --git a/Cargo.toml b/Cargo.toml\n@@ -1,4 +1,4 @@\n [package]\n name = "tern"\n'
            '-rust-version = "1.70"\n+rust-version = "1.74"\n license = "Apache-2.0"'
        )
        now = _current(mem)
        assert ("self", "rust_version", "1.74") in now
        assert ("self", "license", "Apache-2.0") in now
        assert ("self", "rust_version", "1.70") not in now
