"""Values placed by the slots a subject has, and the parts of a line that ended.

docs/concepts/text.md#resolution-against-the-graph, docs/concepts/recall.md#how-lines-are-ranked
"""

from __future__ import annotations

import datetime as dt

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.text.claims import read_sentence
from graphmem.text.pipeline import read
from graphmem.timeutil import ManualClock
from tests import backends

AT = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)


def _context(mem: gm.Memory, question: str) -> list[str]:
    return str(mem.context(question)).casefold().splitlines()


def test_a_bare_value_names_no_relation_and_actually_corrects() -> None:
    [claim] = read_sentence("Emma is actually 8.", at=AT)
    assert (claim.subject, claim.predicate, claim.object) == ("Emma", None, "8")
    assert claim.correction
    [claim] = read_sentence("actually it's 10.20.0.15, the .5 one is the old NAT box", at=AT)
    assert (claim.subject, claim.predicate, claim.object) == ("self", None, "10.20.0.15")


def test_the_parse_reading_comes_before_a_bare_value() -> None:
    # "Tier is 1": the parse reads a slot of ours; the bare form is only a fallback
    [(_, claims)] = read("Tier is 1, not 2.", at=AT)
    assert (claims[0].predicate, claims[0].object) == ("tier", "1")


def test_software_named_like_a_job_is_no_role() -> None:
    [claim] = read_sentence("our password manager is Bitwarden", at=AT)
    assert (claim.predicate, claim.object) == ("password manager", "Bitwarden")
    [claim] = read_sentence("The release manager is Bob.", at=AT)
    assert (claim.subject, claim.predicate) == ("Bob", "role")


def test_a_correction_of_a_number_replaces_it_from_its_start(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        clock.set("2026-07-01T12:00Z")
        mem.add_session(
            "User's daughter Emma is 7 and attends Riverside Primary.", started_at="2026-07-01"
        )
        clock.set("2026-07-02T12:00Z")
        mem.add_session("User says Emma is actually 8.", started_at="2026-07-02")
        clock.set("2026-07-03T12:00Z")
        [age] = mem.facts(subject="Emma", predicate="age")
        assert age.object == "8"
        assert age.valid_from == dt.datetime(2026, 7, 1, tzinfo=dt.timezone.utc)
        # what was believed before the correction stays as it was
        [before] = mem.facts(subject="Emma", predicate="age", known_at="2026-07-01T18:00Z")
        assert before.object == "7"
        # the first line still holds true statements: the mark names the part that was wrong
        old = next(ln for ln in _context(mem, "how old is Emma?") if "is 7" in ln)
        assert "(age 7 was wrong; corrected to 8)" in old


def test_a_bare_value_with_no_slot_of_its_kind_changes_nothing(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        clock.set("2026-03-01T12:00Z")
        mem.remember("Nora works at Acme.", at="2026-03-01")
        clock.set("2026-03-02T12:00Z")
        result = mem.remember("Nora is 41.", at="2026-03-02")
        assert not result.superseded
        assert [(f.predicate, f.object) for f in mem.facts(subject="Nora")] == [
            ("works_at", "Acme")
        ]
        # the text is kept
        assert any("Nora is 41" in f.object for f in mem.facts(predicate="note"))


def test_a_bare_value_with_two_slots_of_its_kind_adds_instead_of_guessing(
    clock: ManualClock,
) -> None:
    with backends.memory(clock=clock) as mem:
        clock.set("2026-03-01T12:00Z")
        mem.add_fact("Nora", "age", "40", valid_from="2026-03-01")
        mem.add_fact("Nora", "shoe_size", "39", valid_from="2026-03-01")
        clock.set("2026-03-02T12:00Z")
        result = mem.remember("Nora is 41.", at="2026-03-02")
        assert not result.superseded
        assert {(f.predicate, f.object) for f in mem.facts(subject="Nora")} == {
            ("age", "40"),
            ("shoe_size", "39"),
        }


def test_a_line_shows_which_of_its_statements_ended(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        clock.set("2026-01-20T12:00Z")
        mem.add_session(
            "Notes: The user is a backend engineer at Zalando. Their manager is Keiko Tanaka.",
            started_at="2026-01-20",
        )
        clock.set("2026-03-03T12:00Z")
        mem.add_session(
            "Notes: The user went through a reorg; their manager is now Felipe Ortega.",
            started_at="2026-03-03",
        )
        clock.set("2026-03-04T12:00Z")
        lines = _context(mem, "who is the user's manager?")
        old = next(ln for ln in lines if "manager is keiko" in ln)
        assert "reports_to keiko tanaka superseded" in old
        assert "by felipe ortega" in old


def test_remember_keeps_only_the_lines_it_did_not_read(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        clock.set("2025-10-20T12:00Z")
        mem.remember(
            "[13:01] ade: the staging bastion IP is 10.20.0.5\n[13:02] kim: ty", at="2025-10-20"
        )
        notes = [f.object for f in mem.facts(predicate="note")]
        assert notes == ["[13:02] kim: ty"]
        clock.set("2025-10-21T12:00Z")
        mem.remember("[08:47] ade: actually it's 10.20.0.15, the .5 one is the old NAT box")
        assert [f.object for f in mem.facts(predicate="staging_bastion_ip")] == ["10.20.0.15"]
        assert not any("10.20.0.5 " in ln for ln in _context(mem, "staging bastion IP"))


NAMES = st.sampled_from(["Nora", "Emma", "Priya", "Tom", "Kai"])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(NAMES, st.integers(0, 120), st.sampled_from(["", "actually ", "now "]))
def test_a_first_bare_value_never_closes_a_fact(name: str, n: int, adverb: str) -> None:
    # a bare "S is V" can only take the place of a value of V's kind S already has
    clock = ManualClock(dt.datetime(2026, 1, 1, 12, tzinfo=dt.timezone.utc))
    with backends.memory(clock=clock) as mem:
        mem.add_fact(name, "lives_in", "Lisbon", valid_from="2026-01-01")
        mem.add_fact("self", "timeout_seconds", "30", valid_from="2026-01-01")
        clock.set("2026-01-02T12:00Z")
        result = mem.remember(f"{name} is {adverb}{n}.", at="2026-01-02")
        assert not result.superseded
        facts = {(f.subject, f.predicate, f.object) for f in mem.facts() if f.predicate != "note"}
        assert facts == {
            (name, "lives_in", "Lisbon"),
            ("self", "timeout_seconds", "30"),
        }


def test_a_bare_number_after_at_is_a_time_not_a_version() -> None:
    [(_, claims)] = read("The standup is at 9.", at=AT)
    assert not any(c.predicate == "version" for c in claims)
    [(_, claims)] = read("Prod is on 1.29 now.", at=AT)
    assert [(c.predicate, c.object) for c in claims] == [("version", "1.29")]
    [(_, claims)] = read("The SDK is on v1.27.", at=AT)
    assert [(c.predicate, c.object) for c in claims] == [("version", "1.27")]


def _hours(sentence: str) -> list[tuple[str, str | None, str | None]]:
    return [(c.subject, c.predicate, c.object) for c in read_sentence(sentence, at=AT)]


def test_hours_said_with_clock_times_are_a_value() -> None:
    # a colon or a dash between numbers is a clock time or a range, not a label
    assert _hours("User's working hours are 9:00–17:00 London time.") == [
        ("self", "working hours", "9:00–17:00")
    ]
    assert _hours("The deploy window is 22:00-23:00 UTC.") == [
        ("self", "deploy window", "22:00-23:00 UTC")
    ]


def test_hours_said_with_a_verb_fill_the_working_hours() -> None:
    assert _hours("I usually work 8 to 4, so meetings after 4 are a no-go") == [
        ("self", "working hours", "8 to 4")
    ]
    assert _hours("also i'm usually online 7-15 cet") == [("self", "working hours", "7-15 cet")]
    assert _hours("Dana works 10am-6pm") == [("Dana", "working hours", "10am-6pm")]
    [claim] = read_sentence("starting 4 May I'm on 10 to 6, daycare drop-off moved.", at=AT)
    assert (claim.predicate, claim.object) == ("working hours", "10 to 6")
    assert claim.valid_from == dt.datetime(2026, 5, 4, tzinfo=dt.timezone.utc)
    # other readings of "work" and "on" are untouched
    assert _hours("I work at Acme") == [("self", "works_at", "Acme")]
    assert all(c[1] != "working hours" for c in _hours("The API is on Postgres 16"))


def test_new_hours_with_a_start_date_close_the_old_ones(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        clock.set("2026-09-01T12:00Z")
        mem.remember("User's working hours are 9:00–17:00 London time.", at="2026-09-01")
        clock.set("2026-09-20T12:00Z")
        mem.remember("From 1 October the user works 10:00–18:00 London time.", at="2026-09-20")
        [now] = mem.facts(subject=mem.owner, predicate="working_hours")
        assert now.object == "9:00–17:00"  # not yet
        clock.set("2026-10-02T12:00Z")
        [now] = mem.facts(subject=mem.owner, predicate="working_hours")
        assert now.object == "10:00–18:00"


def test_an_announcing_header_makes_no_plan_of_what_follows() -> None:
    [claim] = read_sentence("heads up for future planning: we use Go now", at=AT)
    assert (claim.predicate, claim.object) == ("uses", "Go")
    assert read_sentence("Heads up for the plan: we use Go now", at=AT) == []
    assert read_sentence("Proposal: we move to Rust", at=AT) == []


def test_a_thousands_comma_stays_in_a_bare_value(clock: ManualClock) -> None:
    [claim] = read_sentence("landlord raised the rent, it's €1,520 from january", at=AT)
    assert (claim.subject, claim.object) == ("self", "€1,520")
    with backends.memory(clock=clock) as mem:
        clock.set("2025-10-01T12:00Z")
        mem.remember("my rent is €1,450 a month", at="2025-10-01")
        clock.set("2026-01-02T12:00Z")
        mem.remember("landlord raised the rent, it's €1,520 from january", at="2026-01-02")
        [rent] = mem.facts(subject=mem.owner, predicate="rent")
        assert rent.object == "€1,520"


def _portal_on_heroku(mem: gm.Memory, clock: ManualClock, *, failover: bool = False) -> None:
    clock.set("2026-03-01T12:00Z")
    mem.remember("The portal is hosted on Heroku.", at="2026-03-01")
    if failover:
        mem.add_fact("portal", "fails_over_to", "Fly.io", valid_from="2026-03-01")
    clock.set("2026-03-02T12:00Z")


def test_a_change_cue_under_another_relation_takes_the_one_slot_of_its_kind(
    clock: ManualClock,
) -> None:
    # docs/concepts/text.md#a-change-names-another-relation
    with backends.memory(clock=clock) as mem:
        _portal_on_heroku(mem, clock)
        result = mem.remember("The portal now runs on Render.", at="2026-03-02")
        assert result.superseded
        facts = mem.facts(subject="portal")
        assert [f.object for f in facts if f.predicate != "note"] == ["Render"]
        # the old value is closed, not deleted: it was believed until the change
        [old] = [f for f in mem.history(subject="portal") if f.object == "Heroku"]
        assert old.valid_to is not None


def test_another_relation_without_a_cue_or_with_two_candidates_closes_nothing(
    clock: ManualClock,
) -> None:
    with backends.memory(clock=clock) as mem:
        _portal_on_heroku(mem, clock)
        result = mem.remember("The portal runs on Render.", at="2026-03-02")
        assert not result.superseded
        # "now also": an addition, never a supersession
        result = mem.remember("The portal now also runs on Vercel.", at="2026-03-02")
        assert not result.superseded
    with backends.memory(clock=clock) as mem:
        _portal_on_heroku(mem, clock, failover=True)
        result = mem.remember("The portal now runs on Render.", at="2026-03-02")
        assert not result.superseded
        live = {f.object for f in mem.facts(subject="portal") if f.predicate != "note"}
        assert live == {"Heroku", "Fly.io", "Render"}


@given(st.sampled_from(["Render", "Vercel"]), st.sampled_from(["", "now "]), st.booleans())
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_no_cue_or_two_slots_of_the_kind_never_close_another_relation(
    new: str, cue: str, two: bool
) -> None:
    # without a change cue a different relation is just another fact; with two slots whose
    # values are of the new value's kind, a change adds instead of guessing
    clock = ManualClock(dt.datetime(2026, 1, 1, 12, tzinfo=dt.timezone.utc))
    with backends.memory(clock=clock) as mem:
        mem.add_fact("portal", "hosted_on", "Heroku", valid_from="2026-01-01")
        if two:
            mem.add_fact("portal", "fails_over_to", "Fly.io", valid_from="2026-01-01")
        clock.set("2026-01-02T12:00Z")
        result = mem.remember(f"The portal {cue}runs on {new}.", at="2026-01-02")
        assert bool(result.superseded) == (cue != "" and not two)
