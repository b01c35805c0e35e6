"""Readers (docs/concepts/text.md#readers): a caller's reader plugs in, and no text is lost."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.cli import cli
from graphmem.sessions import add_sessions
from graphmem.text.claims import Claim
from graphmem.text.logforms import _NOT_RECORDS
from graphmem.text.nlp import _said, sentences
from graphmem.text.readers import BuiltinReader, Reader
from graphmem.timeutil import ManualClock
from tests import backends


class TableReader:
    """A test double for an LLM reader: a fixed table of sentence → claims."""

    def __init__(self, table: dict[str, list[tuple[str, str | None, str | None, bool]]]) -> None:
        self.table = table
        self.calls: list[tuple[str, dt.datetime, str]] = []

    def read(self, text: str, *, at: dt.datetime, owner: str) -> Sequence[Claim]:
        self.calls.append((text, at, owner))
        out = []
        for sentence, rows in self.table.items():
            if sentence in text:
                for s, p, o, polarity in rows:
                    subject = owner if s == "I" else s
                    out.append(Claim(subject, p, o, polarity=polarity, sentence=sentence))
        return out


def test_the_protocol() -> None:
    assert isinstance(BuiltinReader(), Reader)
    assert isinstance(TableReader({}), Reader)


def test_a_callers_claims_go_through_the_time_rules(clock: ManualClock) -> None:
    reader = TableReader(
        {
            "The API is on Laravel.": [("API", "runs_on", "Laravel", True)],
            "We moved the API to Go.": [("API", None, "Go", True)],  # a change: resolved
            "The wiki is stale.": [],
        }
    )
    with backends.memory(clock=clock, reader=reader) as mem:
        mem.remember("The API is on Laravel.", at="2026-01-05")
        clock.set("2026-06-10")
        r = mem.remember("We moved the API to Go. The wiki is stale.", at="2026-06-01")
        assert r.decision is gm.Decision.SUPERSEDE
        assert [(f.predicate, f.object) for f in mem.facts(subject="API")] == [("runs_on", "Go")]
        assert [f.object for f in mem.believed(on="2026-03-01") if f.subject == "API"] == [
            "Laravel"
        ]
        # the sentence the reader made no claim of is kept as a note
        notes = [f.object for f in mem.facts(predicate="note")]
        assert notes == ["The wiki is stale."]
    assert reader.calls[0][2] == "self"


def test_a_reader_that_returns_no_claims_is_refused(clock: ManualClock) -> None:
    class Bad:
        def read(self, text: str, *, at: dt.datetime, owner: str) -> object:
            return "API runs on Go"

    with (
        backends.memory(clock=clock, reader=Bad()) as mem,
        pytest.raises(gm.InvalidInput, match="Claim"),
    ):
        mem.remember("The API runs on Go.")
    with pytest.raises(gm.InvalidInput, match="read"):
        gm.open(reader=object())  # type: ignore[arg-type]


def test_the_builtin_reader_parses_what_the_rules_do_not_read() -> None:
    at = dt.datetime(2026, 6, 10, tzinfo=dt.timezone.utc)
    rules_only = BuiltinReader(parser=False).read("Invoices are stored in S3.", at=at, owner="self")
    both = BuiltinReader().read("Invoices are stored in S3.", at=at, owner="self")
    assert rules_only == []
    if both:  # the trained pipeline is installed (it is a dependency)
        assert [(c.subject, c.predicate, c.object) for c in both] == [
            ("Invoices", "stored in", "S3")
        ]


TEXT = "The API runs on Laravel. Should we move it? Lunch was great. Kim owns the API."


def _stored_text(mem: gm.Memory) -> str:
    """Everything a user can get back: facts' statements and objects, session text."""
    parts = [f"{f.object} {f.statement or ''}" for f in mem.facts()]
    parts += [s.text or "" for s in mem.sessions()]
    return " ".join(parts)


@pytest.mark.parametrize("path", ["remember", "ingest_text", "add_session", "add_sessions"])
def test_no_sentence_is_lost(path: str, clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        if path == "remember":
            mem.remember(TEXT)
        elif path == "ingest_text":
            mem.ingest_text(TEXT)
        elif path == "add_session":
            mem.add_session(TEXT, started_at="2026-05-01")
        else:
            add_sessions(mem, [{"text": TEXT, "started_at": "2026-05-01"}])
        stored = _stored_text(mem)
        for sentence in ("Should we move it?", "Lunch was great.", "Kim owns the API."):
            assert sentence in stored, (path, sentence)
        hits = mem.search("lunch", limit=5)
        assert any("Lunch was great" in h.text for h in hits), path


def test_no_sentence_is_lost_from_the_cli_and_mcp(tmp_path: Path) -> None:
    db = str(tmp_path / "m.kuzu")
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", db, "remember", TEXT]).exit_code == 0
    transcript = tmp_path / "2026-05-01-standup.md"
    transcript.write_text("Lunch was great.\nThe queue runs on SQS.\n", encoding="utf-8")
    out = runner.invoke(cli, ["--db", db, "ingest", str(transcript)])
    assert out.exit_code == 0, out.output
    out = runner.invoke(cli, ["--db", db, "search", "lunch", "--json"])
    assert out.exit_code == 0, out.output
    assert "Lunch was great" in out.output
    pytest.importorskip("mcp")
    from graphmem.mcp_server import build_server
    from tests.mcp_tools import call_tool

    with gm.open(db) as mem:
        server = build_server(mem)
        call_tool(server, "remember", text="Payroll goes through Deel. Nice weather today.")
        found = json.dumps([h.text for h in mem.search("weather", limit=5)])
        assert "Nice weather today" in found


def _claims(text: str, at: str = "2026-04-10") -> list[tuple[str, str | None, str | None, bool]]:
    when = dt.datetime.fromisoformat(at).replace(tzinfo=dt.timezone.utc)
    return [
        (c.subject, c.predicate, c.object, c.polarity)
        for c in BuiltinReader().read(text, at=when, owner="self")
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The search index is on Voyage.", [("search index", "runs_on", "Voyage", True)]),
        ("fyi staging k8s is on 1.28", [("staging k8s", "version", "1.28", True)]),
        ("queue: SQS", [("self", "queue", "SQS", True)]),
        ("1. analytics events -> Segment", [("self", "analytics events", "Segment", True)]),
        ("Status: done", []),
        ("[09:14] kim: fyi invoices are stored in S3", [("invoices", "stored in", "S3", True)]),
        ("<kim> fyi invoices are stored in S3", [("invoices", "stored in", "S3", True)]),
        ("[09:14] <kim> invoices are stored in S3", [("invoices", "stored in", "S3", True)]),
        ("ci: drop GitLab CI", [("self", None, "GitLab CI", False)]),
        ("Proposal: move billing to Go.", []),
        ("The wiki still says we use Confluence.", []),
        ("my rent is €1,450 a month", [("self", "rent", "€1,450", True)]),
        ("I'm on Eastern Time.", [("self", "timezone", "Eastern Time", True)]),
        ("Sounds like fun!", []),
        ("Evaluated replacing RabbitMQ with NATS for the queue.", []),
        # "plan" the noun is a price list, not an intention
        ("The Team plan costs $20 a seat.", [("Team plan", "costs", "$20", True)]),
        ("Initech is on the Starter plan.", [("Initech", "plan", "Starter plan", True)]),
        ("We plan to move to Rust.", []),
        ("The plan: move to Rust next quarter.", []),
        # a commit that sets something up; one that tends the code says nothing
        (
            "chore(infra): provision the queue on Amazon MQ",
            [("self", "provisions queue on", "Amazon MQ", True)],
        ),
        (
            "build: bundle the web app with webpack",
            [("self", "bundles web app with", "webpack", True)],
        ),
        ("fix: fix typo in README", []),
        # a setting's name is not a speaker; a clipped passive; a last word before no full stop
        ("2. Queue: SQS", [("self", "queue", "SQS", True)]),
        ("1) Auth: Auth0", [("self", "auth", "Auth0", True)]),
        ("• status page: Statuspage", [("self", "status page", "Statuspage", True)]),
        ("Action items: Bob", []),
        ("fix(auth)!: RS256 replaces HS256 for token signing", [("self", None, "RS256", True)]),
        (
            "feat(queue): job queue backed by RabbitMQ",
            [("job queue", "backed by", "RabbitMQ", True)],
        ),
        ("Caroline: I moved to Berlin", [("Caroline", "lives_in", "Berlin", True)]),
        # an agent's note about its user is about the owner
        ("The user's working hours are 9 to 5.", [("self", "working hours", "9 to 5", True)]),
        ("User mentioned they now work at Wise.", [("self", "works_at", "Wise", True)]),
        ("feat(config): default log level is INFO", [("self", "default log level", "INFO", True)]),
        # a name after "a" is a value; a plain noun after "a" is none
        ("I drive a 2015 Golf.", [("self", "drives", "2015 Golf", True)]),
        ("Ivan joined a call.", []),
        # a phrasal light verb in the present, with a name
        ("errors show up in Sentry from now on", [("errors", "shows up in", "Sentry", True)]),
        ("it came up in standup", []),
        # acronyms before a short name are settings, not speakers or commit types
        ("- APM: Datadog", [("self", "apm", "Datadog", True)]),
        ("CI: GitHub Actions", [("self", "ci", "GitHub Actions", True)]),
        ("TODO: Redis", []),
        ("Log level defaults to info.", [("self", "default log level", "info", True)]),
        (
            "The user is a nurse at St. Mary's.",
            [("self", "role", "nurse", True), ("self", "works_at", "St. Mary's", True)],
        ),
        ("User prefers replies in English.", [("self", "prefers", "English", True)]),
        ("I prefer coffee in the morning", [("self", "prefers", "coffee", True)]),
        ("2. My dog is called Biscuit.", [("self", "dog", "Biscuit", True)]),
        # a date that is the value, not when the value became true
        ("My birthday is March 14th.", [("self", "birthday", "March 14th", True)]),
        # a decision record's present-tense change naming both values; a role moved into
        (
            "ADR 027: checkout-service migrates from Redis to PostgreSQL.",
            [("checkout-service", None, "PostgreSQL", True)],
        ),
        (
            "I moved into an engineering manager role.",
            [("self", "role", "engineering manager", True)],
        ),
        (
            "Back on the report: finance moved the deadline up to May 13th.",
            [("deadline", None, "May 13th", True)],
        ),
        # markdown tables: settings, a titled thing's settings, a table of things
        ("| field | value |\n|---|---|\n| queue | SQS |", [("self", "queue", "SQS", True)]),
        (
            "## Service catalog: notifications\n| key | value |\n| - | - |\n| tier | 2 |",
            [("notifications", "tier", "2", True)],
        ),
        (
            "| service | owner |\n| --- | --- |\n| billing | Grace |\n| search | Omar |",
            [("billing", "owner", "Grace", True), ("search", "owner", "Omar", True)],
        ),
        # a cell that is a change gives its new value, never the old one as current
        (
            "| Package | Change |\n|---|---|\n| typescript | `5.1.6` -> `5.4.5` |",
            [("self", "typescript", "5.4.5", True)],
        ),
        (
            "my partner is Dana, she's a teacher",
            [("self", "partner", "Dana", True), ("Dana", "role", "teacher", True)],
        ),
        (
            "Ben: inventory service upgrade done: it's on PostgreSQL 16 now",
            [("inventory service", "runs_on", "PostgreSQL 16", True)],
        ),
        (
            "the billing db is still on Postgres 13.",
            [("billing db", "runs on", "Postgres 13", True)],
        ),
        # a commit body without a verb names what its scope uses; an upkeep body does not
        ("feat(logging): structured logs via logrus", [("logging", "uses", "logrus", True)]),
        ("fix(logging): retries via backoff", []),
        # where a thing comes from is a relation; an ending said with "deleted"
        (
            "Keys come from the AUTH_SECRET env var.",
            [("Keys", "comes from", "AUTH_SECRET", True)],
        ),
        # an identifier named with its kind is the identifier; the team's employer
        (
            "Acme Logistics now uploads to the SFTP bucket partner-inbound.",
            [("Acme Logistics", "uploads to", "partner-inbound", True)],
        ),
        ("It's behind the export_v2 flag.", []),
        (
            "I'm on the platform team at Klarna now, joined last month",
            [("self", "is on", "platform team", True), ("self", "works at", "Klarna", True)],
        ),
        ("and I hate cilantro lol", [("self", "hates", "cilantro", True)]),
        # markdown: bold keys make a card; under a heading that names one thing, its settings
        (
            "- **City**: Valencia\n- **Editor:** VS Code",
            [("self", "city", "Valencia", True), ("self", "editor", "VS Code", True)],
        ),
        (
            "## Service: billing\n- **Owner:** Team Falcon\n- Datastore: Postgres 15",
            [
                ("billing", "owner", "Team Falcon", True),
                ("billing", "datastore", "Postgres 15", True),
            ],
        ),
        ("Good things come from patience.", []),
        # a kin slot with its name: who the person is to the owner, and an age
        (
            "my daughter Emma is 7 and attends Riverside Primary.",
            [
                ("self", "daughter", "Emma", True),
                ("Emma", "age", "7", True),
                ("Emma", "attends", "Riverside Primary", True),
            ],
        ),
        ("My sister Ana is a nurse.", [("self", "sister", "Ana", True)]),
        # "preferred" before a slot is its adjective, not the verb "prefer"
        ("User's preferred editor is VS Code.", [("self", "preferred editor", "VS Code", True)]),
        ("The Memcached cluster is deleted.", [("self", None, "Memcached cluster", False)]),
        # a card's job item is a role and an employer; an aside after it is no part of them
        (
            "- City: Valencia\n- Job: analytics engineer at Mercadona (promoted in May)",
            [
                ("self", "city", "Valencia", True),
                ("self", "role", "analytics engineer", True),
                ("self", "works at", "Mercadona", True),
            ],
        ),
    ],
)
def test_log_formats_and_forms(text: str, expected: list[tuple[object, ...]]) -> None:
    if nlp_missing():
        pytest.skip("no trained English pipeline installed")
    assert _claims(text) == expected


def nlp_missing() -> bool:
    from graphmem.text.nlp import parser_name

    return parser_name() == "blank"


def test_a_scheduled_change_keeps_the_old_value_until_then(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        mem.add_session("Payroll is run by Deel.", started_at="2026-03-02")
        clock.set("2026-03-27T12:00:00Z")
        mem.add_session("Starting 1 April payroll will be run by Remote.", started_at="2026-03-27")
        assert [f.object for f in mem.facts(subject="payroll")] == ["Deel"]
        assert [f.object for f in mem.facts(subject="payroll", valid_at="2026-04-02")] == ["Remote"]


def test_a_correction_without_the_word_replaces_from_the_old_start(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        mem.remember("Our password manager is 1Password.", at="2026-06-16")
        clock.set("2026-06-17T12:00:00Z")
        mem.remember("I was wrong, our password manager is Bitwarden.", at="2026-06-17")
        (now,) = mem.facts(subject="self")
        assert (now.object, now.valid_from.date().isoformat()) == ("Bitwarden", "2026-06-16")
        believed = mem.believed(on="2026-06-16T18:00:00Z")
        assert [f.object for f in believed if f.subject == "self"] == ["1Password"]


def test_a_team_we_in_a_named_turn_is_the_owner(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        mem.add_session("user: we use Jenkins for CI", started_at="2026-01-05")
        clock.set("2026-03-01T12:00:00Z")
        mem.add_session("Sam: We replaced Jenkins with GitHub Actions", started_at="2026-03-01")
        assert [f.object for f in mem.facts(subject="self", predicate="uses")] == ["GitHub Actions"]


def test_aliases_and_head_nouns_find_the_thing(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        mem.remember("Prod Kubernetes is on version 1.27.", at="2026-02-10")
        mem.remember("The billing service runs on Laravel.", at="2026-02-10")
        clock.set("2026-07-01T12:00:00Z")
        mem.remember("We upgraded prod k8s to 1.29 yesterday.")
        mem.remember("We migrated billing from Laravel to Go.")
        assert [f.object for f in mem.facts(subject="Prod Kubernetes")] == ["1.29"]
        assert [f.object for f in mem.facts(subject="billing service")] == ["Go"]


def test_a_statement_negates_only_what_it_names(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        r = mem.add_fact(
            "alice",
            "works_at",
            "Globex",
            statement="Alice works at Globex. The standup note was wrong.",
        )
        assert r.decision is gm.Decision.ADD
        r = mem.add_fact(
            "alice", "works_at", "Globex", statement="Alice no longer works at Globex."
        )
        assert r.decision is gm.Decision.INVALIDATE


@pytest.mark.parametrize("words", ["what do I use for CI?", "what does the user use for CI?"])
def test_first_person_questions_reach_the_owner(words: str, clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        mem.add_fact("self", "uses", "Buildkite")
        assert "Buildkite" in str(mem.context(words))
        assert any(h.kind == "fact" and "Buildkite" in h.text for h in mem.search(words))


def test_a_change_naming_the_old_value_finds_the_one_fact_holding_it(clock: ManualClock) -> None:
    # "for vector tiles" is no thing we know: the one fact holding Leaflet is the one replaced
    clock.set("2026-06-10")
    with backends.memory(clock=clock) as mem:
        mem.remember("v5.1 — Maps are rendered with Leaflet.", at="2026-01-21")
        mem.remember(
            "v6.0 — Leaflet was swapped for MapLibre GL for vector tiles.", at="2026-05-12"
        )
        assert [(f.subject, f.object) for f in mem.facts(object="Leaflet")] == []
        assert [f.object for f in mem.facts(subject="Maps")] == ["MapLibre GL"]


def test_a_change_naming_a_value_two_things_hold_adds_nothing_it_cannot_place(
    clock: ManualClock,
) -> None:
    # two unrelated things run on Jenkins and the change names neither: nothing is closed
    clock.set("2026-06-10")
    with backends.memory(clock=clock) as mem:
        mem.remember("Cron jobs are scheduled by Jenkins.", at="2026-01-05")
        mem.remember("Releases are built by Jenkins.", at="2026-01-06")
        mem.remember("Replaced Jenkins with Argo for the nightly data pulls.", at="2026-03-01")
        assert sorted(f.subject for f in mem.facts(object="Jenkins")) == ["Cron jobs", "Releases"]


def test_a_change_of_a_thing_the_owners_relation_names(clock: ManualClock) -> None:
    # "we run CI on Jenkins" holds CI in its relation; the move of CI is that relation's
    clock.set("2026-06-10")
    with backends.memory(clock=clock) as mem:
        mem.remember("We run CI on Jenkins.", at="2026-01-05")
        mem.remember("We moved CI to GitHub Actions.", at="2026-03-01")
        assert [f.object for f in mem.facts(subject="self")] == ["GitHub Actions"]
        held = mem.facts(subject="self", valid_at="2026-02-01")
        assert [f.object for f in held] == ["Jenkins"]


def test_a_change_two_of_the_owners_relations_name_places_nothing(clock: ManualClock) -> None:
    clock.set("2026-06-10")
    with backends.memory(clock=clock) as mem:
        mem.remember("We run CI on Jenkins.", at="2026-01-05")
        mem.remember("We cache CI artifacts in S3.", at="2026-01-06")
        mem.remember("We moved CI to GitHub Actions.", at="2026-03-01")
        held = [f.object for f in mem.facts(subject="self") if f.predicate != "note"]
        assert sorted(held) == ["Jenkins", "S3"]


def test_a_dated_correction_replaces_a_value_learned_after_its_date(clock: ManualClock) -> None:
    # "User clarified: not quite — ..." corrects; the same change without the correction is
    # history that ended when the later value began
    clock.set("2026-05-04")
    with backends.memory(clock=clock) as mem:
        mem.remember("User's preferred editor is VS Code.")
        clock.set("2026-05-20")
        mem.remember("I switched to Neovim two years ago.")
        assert [f.object for f in mem.facts(predicate="preferred_editor")] == ["VS Code"]
        clock.set("2026-06-01")
        mem.remember("User clarified: not quite — they switched to Neovim two years ago.")
        assert [f.object for f in mem.facts(predicate="preferred_editor")] == ["Neovim"]
        before = mem.facts(predicate="preferred_editor", known_at="2026-05-25")
        assert [f.object for f in before] == ["VS Code"]


def test_a_product_ended_by_the_part_that_ran_it(clock: ManualClock) -> None:
    # "the Memcached cluster is deleted": what held Memcached ends; a part of no product
    # ("the staging cluster") ends nothing
    clock.set("2026-06-10")
    with backends.memory(clock=clock) as mem:
        mem.remember("The identity service stores sessions in Memcached.", at="2026-01-05")
        mem.remember("The staging cluster is deleted.", at="2026-02-01")
        assert [f.object for f in mem.facts(subject="identity service")] == ["Memcached"]
        mem.remember("Done, the Memcached cluster is deleted.", at="2026-03-01")
        assert mem.facts(subject="identity service") == []
        held = mem.facts(subject="identity service", valid_at="2026-02-15")
        assert [f.object for f in held] == ["Memcached"]


def test_a_version_that_went_from_a_to_b_is_the_things_version(clock: ManualClock) -> None:
    # "postgres went from 13 to 15" after "db: Postgres 13"; "1.Python" is item 1, Python
    clock.set("2025-10-01")
    with backends.memory(clock=clock) as mem:
        mem.add_session("Standup\n1. db: Postgres 13\n2.lint: ruff", started_at="2025-02-03")
        mem.add_session(
            "Standup\n1. postgres went from 13 to 15 on saturday", started_at="2025-05-05"
        )
        mem.add_session("Standup\n1.Python: 3.10 everywhere", started_at="2025-05-26")
        mem.add_session(
            "Standup\n1.Python bumped to 3.12 across all services", started_at="2025-09-22"
        )
        now = {(f.predicate, f.object) for f in mem.facts(subject=mem.owner)}
        assert {("db", "Postgres 15"), ("lint", "ruff"), ("python", "3.12")} <= now
        assert ("db", "Postgres 13") not in now


def test_a_company_named_short_and_a_ticket_key_without_a_colon(clock: ManualClock) -> None:
    clock.set("2026-03-01")
    with backends.memory(clock=clock) as mem:
        mem.add_session("CS-808: Vandelay Industries is on the Pro plan.", started_at="2025-11-12")
        mem.add_session("CS-808: not quite: Vandelay is on Enterprise.", started_at="2025-11-13")
        mem.add_session(
            "PLAT-221 the platform team owns the service mesh.", started_at="2025-11-03"
        )
        mem.add_session(
            "PLAT-305 Since February the SRE team owns the service mesh.", started_at="2026-02-20"
        )
        assert [f.object for f in mem.facts(subject="Vandelay Industries")] == ["Enterprise"]
        (mesh,) = mem.facts(subject="service mesh")
        assert (mesh.object, mesh.valid_from.date().isoformat()) == ("SRE team", "2026-02-01")


def test_one_sentences_values_of_one_slot_hold_together(clock: ManualClock) -> None:
    clock.set("2025-04-01")
    with backends.memory(clock=clock) as mem:
        mem.remember("The API is built on FastAPI and runs on Uvicorn.", at="2025-03-31")
        assert {f.object for f in mem.facts(subject="API")} == {"FastAPI", "Uvicorn"}


def test_an_emoji_between_statements_and_a_clipped_passive(clock: ManualClock) -> None:
    clock.set("2026-06-01")
    with backends.memory(clock=clock) as mem:
        mem.add_session("ingress controller: ingress-nginx", started_at="2025-01-14")
        mem.add_session("- ingress-nginx replaced with Traefik", started_at="2025-02-04")
        mem.add_session("reminder: error tracking is Rollbar", started_at="2026-02-05")
        mem.add_session(
            "Rollbar is gone as of today 🎉 errors show up in Sentry from now on",
            started_at="2026-05-26",
        )
        now = {f.object for f in mem.facts() if f.predicate != "note"}
        assert {"Traefik", "Sentry"} <= now
        assert not {"ingress-nginx", "Rollbar"} & now


def test_the_users_they_in_an_agents_notes_is_the_owner(clock: ManualClock) -> None:
    clock.set("2025-04-01")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "Notes: The user is a backend engineer at Zalando. Their manager is Keiko Tanaka.",
            started_at="2025-01-20",
        )
        mem.add_session(
            "Notes: The user went through a reorg last week; their manager is now Felipe Ortega.",
            started_at="2025-03-03",
        )
        now = {f.object for f in mem.facts(subject=mem.owner)}
        assert {"Zalando", "Felipe Ortega"} <= now
        assert "Keiko Tanaka" not in now


def test_the_owners_change_for_a_slot_changes_that_slot(clock: ManualClock) -> None:
    clock.set("2025-11-01")
    with backends.memory(clock=clock) as mem:
        mem.remember("User's personal email is on Gmail.", at="2025-03-30")
        mem.remember("User switched to Fastmail for personal email last month.", at="2025-10-12")
        assert [f.object for f in mem.facts(subject="personal email")] == ["Fastmail"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(
            st.one_of(
                st.from_regex(r"[A-Za-z0-9][A-Za-z0-9 ._@-]{0,12}", fullmatch=True), st.just("-")
            ),
            min_size=2,
            max_size=3,
        ),
        min_size=1,
        max_size=4,
    )
)
def test_a_tables_cells_all_reach_the_reader(rows: list[list[str]]) -> None:
    """Every cell of a markdown table is in what the reader reads (no text is lost)."""
    from graphmem.text.nlp import _tables

    width = len(rows[0])
    rows = [r[:width] + ["x"] * (width - len(r)) for r in rows]
    header = ["field", "value", "note"][:width]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    read = " ".join(_tables(lines))
    assert all(cell.strip() in read for r in rows for cell in r)


def test_a_card_of_key_value_items_is_settings_not_speakers(clock: ManualClock) -> None:
    card = "Profile\n- City: Valencia\n- Diet: vegetarian\n- Editor: VS Code\n- APM: Datadog"
    with backends.memory(clock=clock) as mem:
        mem.remember(card)
        held = {f.object for f in mem.facts(subject="self")}
        assert {"Valencia", "vegetarian", "VS Code", "Datadog"} <= held
        assert not mem.facts(subject="City")  # "City" is a key, not a speaker


@pytest.mark.parametrize(
    "chat",
    [
        "- Tom: we moved the API to Go\n- Ana: ok",  # a reply: who speaks
        "- Tom: the API runs on Go\n- Tom: and billing on Rust",  # a speaker comes back
        "- Tom: the reporting API runs on Heroku, same dyno setup as last year\n- Ana: thanks",
    ],
)
def test_a_chat_in_list_items_keeps_its_speakers(chat: str) -> None:

    assert {s.speaker for s in sentences(chat)} <= {"Tom", "Ana"}
    assert all(s.speaker for s in sentences(chat))


_KEYS = st.sampled_from(["City", "Diet", "Editor", "Role", "Timezone", "Team", "Queue", "Stack"])
_VALUES = st.from_regex(r"[A-Z][a-z]{2,8}( [A-Z0-9][a-z0-9]{0,5}){0,2}", fullmatch=True).filter(
    lambda v: not _said(v)  # "Thanks", "Yes": a reply, which makes the list a chat
)


def test_a_diffs_removed_and_added_setting_read_as_one_change() -> None:
    text = "Diff:\n- * Build host: ci-02.corp\n+ * Build host: ci-07.corp\n- milk\n- eggs: 12"
    got = " ".join(s.text for s in sentences(text)).casefold()
    assert "build host: ci-02.corp → ci-07.corp" in got
    assert "eggs: 12" in got  # no "+ eggs" line: a list item, no diff


def test_a_diff_in_a_config_review_changes_the_setting(clock: ManualClock) -> None:
    clock.set("2026-03-01")
    with backends.memory(clock=clock) as mem:
        mem.remember("Config review\nreplicas: 6\nowner: Theo", at="2026-02-18")
        mem.remember(
            "Config review round 2\n```diff\n- replicas: 6\n+ replicas: 10\n```", at="2026-03-01"
        )
        assert [f.object for f in mem.facts(predicate="replicas")] == ["10"]


def test_a_chat_exports_header_line_says_who_wrote_the_lines_under_it() -> None:
    text = (
        "#help\nbexley — 02/20/2026 9:12 PM\nwhat version does nimbus need?\n"
        "kai_mtnr — 02/20/2026 9:15 PM\nPG 14 minimum rn. image tag is nimbus:1.9\n\n"
        "Verity Lane — Today at 6:04 PM\ndoes the docs site say that yet?"
    )
    got = [(s.speaker, s.text) for s in sentences(text)]
    assert ("kai_mtnr", "PG 14 minimum rn.") in got
    assert ("Verity Lane", "does the docs site say that yet?") in got
    assert not any("PM" in t for _, t in got)  # a header is no sentence


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, min_size=2, max_size=6))
def test_a_cards_items_lose_no_value_and_name_no_speaker(card: dict[str, str]) -> None:
    """Each item of a card reaches the reader whole, under its key, with no speaker."""

    text = "\n".join(f"- {k}: {v}" for k, v in card.items())
    got = sentences(text)
    assert all(s.speaker is None for s in got)
    said = " ".join(s.text for s in got)
    assert all(f"{k.casefold()}: {v}" in said for k, v in card.items())


@pytest.mark.parametrize(
    "turn",
    [
        "Bob: Your love for your kids is so awesome.",
        "Bob: What a day.",
        "Ann: It feels good to use my skills to make a difference.",
        "Bob: Absolutely, you should frame it.",
        "Ann: These are my lucky running shoes.",
        "Bob: Wow, it was amazing how nature calms you down.",
    ],
)
def test_chit_chat_names_no_thing(turn: str, clock: ManualClock) -> None:
    # docs/concepts/text.md#subjects: a pronoun, a question word or an interjection is no name
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.add_session(f"Ann: I moved to Oslo last year.\n{turn}", started_at="2026-01-01")
        assert {(f.subject, f.object) for f in mem.facts()} == {("Ann", "Oslo")}
        assert turn.split(": ", 1)[1] in (mem.sessions()[0].text or "")  # the text is kept


def test_a_time_said_after_a_value_is_no_part_of_it(clock: ManualClock) -> None:
    # docs/concepts/text.md#log-formats: "last weekend", "two weeks ago" date the move
    clock.set("2026-02-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("I live in Ghent.", at="2026-01-10")
        mem.remember("We finally moved to Antwerp last weekend.", at="2026-02-02")
        assert [f.object for f in mem.facts(subject="self")] == ["Antwerp"]


def test_a_standup_turn_and_an_aside_are_no_settings(clock: ManualClock) -> None:
    # docs/concepts/text.md#log-formats: "raj: Yesterday: ..." is raj's turn; "by the way"
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "ana: Yesterday: fixed the export. Today: tests. Blockers: none.\n"
            "raj: Yesterday: on-call handover. Today: the PDF bug. Blockers: none.\n"
            "Greta: the printer is fixed, by the way.",
            started_at="2026-01-01",
        )
        assert mem.facts() == []


def _current(mem: gm.Memory) -> set[tuple[str, str, str]]:
    return {(f.subject, f.predicate, f.object) for f in mem.facts() if f.predicate != "note"}


def test_a_tickets_fields_are_the_tickets_and_a_change_moves_them(clock: ManualClock) -> None:
    # docs/concepts/text.md#records
    clock.set("2026-01-01")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "SUP-4412 — Login failures\nReporter: support-bot\nAssignee: Jonas\nPriority: P2\n"
            "Description: Customer reports SSO login loops since this morning. Affects 30 users.",
            started_at="2026-01-01",
        )
        assert {("SUP-4412", "assignee", "Jonas"), ("SUP-4412", "priority", "P2")} <= _current(mem)
        assert not any(s == "self" for s, _, _ in _current(mem))
        clock.set("2026-01-03")
        mem.add_session(
            "SUP-4412 — comment by Lea\nReassigned to Mei since Jonas is on leave. "
            "Bumping priority to P1, the whole customer is locked out now.",
            started_at="2026-01-03",
        )
        now = _current(mem)
        assert {("SUP-4412", "assignee", "Mei"), ("SUP-4412", "priority", "P1")} <= now
        assert ("SUP-4412", "assignee", "Jonas") not in now
        believed = mem.facts(subject="SUP-4412", known_at="2026-01-02")
        assert {(f.predicate, f.object) for f in believed} >= {("assignee", "Jonas")}


def test_a_crm_record_named_by_a_label_owns_its_fields(clock: ManualClock) -> None:
    clock.set("2026-01-01")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "Opp: Halcyon Foods — platform license\nOwner: Rick Tan\nStage: Discovery",
            started_at="2026-01-01",
        )
        assert _current(mem) == {
            ("Halcyon Foods", "owner", "Rick Tan"),
            ("Halcyon Foods", "stage", "Discovery"),
        }
        clock.set("2026-02-01")
        mem.add_session("Opp: Halcyon Foods\nStage moved to Negotiation.", started_at="2026-02-01")
        assert ("Halcyon Foods", "stage", "Negotiation") in _current(mem)
        assert ("Halcyon Foods", "stage", "Discovery") not in _current(mem)


@pytest.mark.parametrize(
    "text",
    [
        "GPT-4 notes\nRegion: eu-west-1",  # one digit: a model's name, no record
        "Standup\nRegion: eu-west-1",
    ],
)
def test_a_text_that_opens_no_record_keeps_the_owners_settings(
    text: str, clock: ManualClock
) -> None:
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.add_session(text, started_at="2026-01-01")
        assert _current(mem) == {("self", "region", "eu-west-1")}


def test_a_person_in_a_ticket_still_speaks() -> None:
    got = sentences("SUP-12 — printer\nJonas: looking into it\nMei: done")
    assert [(s.speaker, s.text) for s in got][1:] == [("Jonas", "looking into it"), ("Mei", "done")]


@given(
    # keys that name a standard or a version ("ISO-8601", "WIN-10") open no record by rule
    # (docs/concepts/text.md#records), so the property is over the others
    key=st.from_regex(r"[A-Z]{2,5}-[0-9]{2,5}", fullmatch=True).filter(
        lambda k: k.split("-")[0].casefold() not in _NOT_RECORDS
    ),
    field=st.sampled_from(["Assignee", "Priority", "Severity", "Root cause", "Owner", "Stage"]),
    value=st.sampled_from(["Jonas", "P2", "SEV3", "Mei Tan", "Discovery"]),
)
@settings(max_examples=40, deadline=None)
def test_any_records_field_is_the_records(key: str, field: str, value: str) -> None:
    from graphmem.text.reader import Reader

    reader = Reader(at=dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc))
    got = []
    for s in sentences(f"{key} — something broke\n{field}: {value}"):
        got += reader.read(s.text, s.speaker)
    assert [(c.subject, c.predicate, c.object) for c in got] == [(key, field.casefold(), value)]


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        ("The staging cluster has 14 nodes.", ("staging cluster", "nodes", "14 nodes")),
        ("We have 40 engineers.", ("self", "engineers", "40 engineers")),
        ("They use Dentrix for scheduling.", ("Acme Dental", "uses", "Dentrix")),
    ],
)
def test_counts_and_a_named_value_before_a_purpose(
    sentence: str, fact: tuple[str, str, str], clock: ManualClock
) -> None:
    # docs/concepts/text.md#counts
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(f"Acme Dental is a client. {sentence}", at="2026-01-01")
        assert fact in _current(mem)


def test_no_count_of_a_day_and_a_new_count_takes_the_place(clock: ManualClock) -> None:
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("I have 3 meetings today.", at="2026-01-01")
        assert _current(mem) == set()
        mem.remember("The staging cluster has 14 nodes.", at="2026-01-01")
        clock.set("2026-01-05")
        mem.remember("The staging cluster now has 16 nodes.", at="2026-01-05")
        assert _current(mem) == {("staging cluster", "nodes", "16 nodes")}


@given(
    slot=st.sampled_from(["budget", "limit", "deposit", "fee", "rent"]),
    other=st.sampled_from(["team plan price", "gym membership", "day rate"]),
    old=st.integers(1, 999),
    new=st.integers(1, 999),
)
@settings(max_examples=15, deadline=None)
def test_a_slot_the_sentence_names_never_takes_another(
    slot: str, other: str, old: int, new: int
) -> None:
    # docs/concepts/text.md#a-change-names-another-relation: "the budget was revised to $2"
    # names its own slot; the one other amount slot stays
    clock = ManualClock(dt.datetime(2026, 1, 1, 12, tzinfo=dt.timezone.utc))
    with backends.memory(clock=clock) as mem:
        mem.remember(f"Our {other} is ${old}.", at="2026-01-01")
        clock.set("2026-01-05")
        mem.remember(f"The {slot} was revised to ${new}.", at="2026-01-05")
        assert (f"${old}", True) in {(f.object, f.valid_to is None) for f in mem.facts()}


def test_a_slot_named_more_fully_takes_the_slot_it_names(clock: ManualClock) -> None:
    # "Northwind rate adjusted to $175" is the rate's value (a past amendment, in history)
    clock.set("2026-02-01")
    with backends.memory(clock=clock) as mem:
        mem.remember("Consulting agreement with Northwind: rate is $150 per hour.", at="2024-03-01")
        mem.remember("Northwind rate adjusted to $175 per hour.", at="2025-02-20")
        assert _current(mem) == {("self", "rate", "$175")}


def test_an_agents_note_in_semicolons_reads_every_part(clock: ManualClock) -> None:
    # docs/concepts/text.md#open-relations: a value of its slot's own kind, colon or none
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(
            "Note to self (agent): user is vegetarian; prefers recipes under 30 minutes; "
            "timezone Europe/Berlin.",
            at="2026-01-01",
        )
        assert {("self", "diet", "vegetarian"), ("self", "timezone", "Europe/Berlin")} <= (
            _current(mem)
        )


@pytest.mark.parametrize("clause", ["ship it", "team Falcon", "timezone maybe", "diet Coke"])
def test_a_word_before_a_value_of_another_kind_is_no_setting(clause: str) -> None:
    from graphmem.text.clauses import unlabelled

    assert unlabelled(clause) is None


@pytest.mark.parametrize(
    "text",
    ["Derek confirmed they're still on Samsara.", "We met Globex. They're on Globex now."],
)
def test_no_thing_is_its_own_value(text: str, clock: ManualClock) -> None:
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(text, at="2026-01-01")
        assert all(f.subject != f.object for f in mem.facts())


@pytest.mark.parametrize(
    ("sentence", "objects"),
    [
        ("The standup is at 09:15.", {"09:15"}),
        ("Weekly planning is Mondays at 10:00.", {"Mondays at 10:00"}),
        ("We are planning to move to Rust.", set()),
    ],
)
def test_when_a_thing_is_held(sentence: str, objects: set[str], clock: ManualClock) -> None:
    # docs/concepts/text.md#schedules
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(sentence, at="2026-01-01")
        assert {o for _, _, o in _current(mem)} == objects


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        (
            "Call with Hannah Okafor (VP Ops, Brightline Logistics).",
            {
                ("Hannah Okafor", "role", "VP Ops"),
                ("Hannah Okafor", "works_at", "Brightline Logistics"),
            },
        ),
        ("Met Priya Nair, CTO of Acme, at the summit.", {("Priya Nair", "role", "CTO")}),
        ("Notes: CTO Imogen Price is our champion.", {("Imogen Price", "role", "CTO")}),
        ("We shipped it with Bob Marsh (finally).", set()),
        ("Lisbon, Porto and Faro are lovely in May.", set()),
    ],
)
def test_a_person_named_with_a_title(
    text: str, facts: set[tuple[str, str, str]], clock: ManualClock
) -> None:
    # docs/concepts/text.md#titles
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(text, at="2026-01-01")
        assert facts <= _current(mem)
        assert {s for s, p, _ in _current(mem) if p == "role"} <= {s for s, _, _ in facts}


def test_the_account_is_the_record_and_a_hand_over_moves_its_owner(clock: ManualClock) -> None:
    # docs/concepts/text.md#records
    clock.set("2026-01-01")
    with backends.memory(clock=clock) as mem:
        mem.add_session("Opp: Halcyon Foods — license\nOwner: Rick Tan", started_at="2026-01-01")
        clock.set("2026-01-03")
        mem.add_session(
            "Opp: Halcyon Foods\nRick handed the account to Zoe Ames (territory realignment).",
            started_at="2026-01-03",
        )
        assert _current(mem) == {("Halcyon Foods", "owner", "Zoe Ames")}
        mem.remember("Jonas owns the hiring pipeline.", at="2026-01-03")
        clock.set("2026-01-05")
        mem.remember("Jonas hands the hiring pipeline to Elif, effective today.", at="2026-01-05")
        assert ("hiring pipeline", "owner", "Elif") in _current(mem)
        assert ("hiring pipeline", "owner", "Jonas") not in _current(mem)


@pytest.mark.parametrize(
    ("first", "then", "now"),
    [
        (
            "The nightly backup job fires at 02:00 UTC.",
            "ci: shift nightly backup to 03:30 UTC",
            ("nightly backup job", "fires_at", "03:30 UTC"),
        ),
        (
            "the orders db is on Postgres 13",
            "orders database upgraded to PostgreSQL 16 last night :tada: MERGE away",
            ("orders db", "runs_on", "PostgreSQL 16"),
        ),
    ],
)
def test_a_change_finds_its_thing_under_another_head_noun(
    first: str, then: str, now: tuple[str, str, str], clock: ManualClock
) -> None:
    # docs/concepts/text.md#names: "nightly backup" is the nightly backup job we know,
    # "orders database" the orders db; ":tada:" is an emoji between statements
    clock.set("2026-01-01")
    with backends.memory(clock=clock) as mem:
        mem.remember(first, at="2026-01-01")
        clock.set("2026-01-03")
        mem.remember(then, at="2026-01-03")
        assert _current(mem) == {now}


@pytest.mark.parametrize("end", ["", "."])
def test_a_value_written_without_spaces_is_one_word(end: str, clock: ManualClock) -> None:
    # docs/concepts/text.md#open-relations
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("The rate limit is 100 req/s.", at="2026-01-01")
        mem.remember(f"We raised the rate limit to 250 req/s{end}", at="2026-01-02")
        assert {o for _, _, o in _current(mem)} == {"250 req/s"}


def test_a_phrase_that_opens_with_i_or_we_is_no_name(clock: ManualClock) -> None:
    # docs/concepts/text.md#subjects
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(
            "I cancelled Spotify last month, we only use YouTube Music now.", at="2026-01-01"
        )
        assert {s for s, _, _ in _current(mem)} == {"self"}


def test_an_ordinal_is_no_slot(clock: ManualClock) -> None:
    # "B is the Z of T" names T's slot Z, but "the 25th of each month" is a date
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("Payday is the 25th of each month.", at="2026-01-01")
        assert not any(s == "each month" or p == "25th" for s, p, _ in _current(mem))


def test_whoever_raises_it_the_raised_thing_takes_the_value(clock: ManualClock) -> None:
    # docs/concepts/text.md#open-relations: "they're raising my membership to £39"
    clock.set("2026-01-01")
    with backends.memory(clock=clock) as mem:
        mem.remember("My membership is £35 a month.", at="2026-01-01")
        clock.set("2026-02-01")
        mem.remember("PureGym emailed: they're raising my membership to £39.", at="2026-02-01")
        assert _current(mem) == {("self", "membership", "£39")}


def test_a_ticket_field_after_a_title_and_a_day_that_is_no_host(clock: ManualClock) -> None:
    # docs/concepts/text.md#records: "reporter: kim" is a line of its own, not the title's
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "REL-77 Deploy policy\nreporter: kim\n"
            "kim: Reminder: no deploys on Fridays after 14:00. Hotfixes go through Lucas.\n"
            "lucas: ack, I will keep an eye on it",
            started_at="2026-01-01",
        )
        now = _current(mem)
        assert ("REL-77", "reporter", "kim") in now
        assert not any(o == "Fridays" or p == "deploy_policy_reporter" for _, p, o in now)


def test_a_move_to_a_team_is_the_persons_one_team(clock: ManualClock) -> None:
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.add_session("Raj: btw I moved to the platform team last week", started_at="2026-01-01")
        mem.remember("We moved to Berlin.", at="2026-01-02")
        clock.set("2026-03-02")
        mem.add_session("Raj: I moved to the data team this month", started_at="2026-03-01")
        assert ("Raj", "team", "data team") in _current(mem)
        assert ("Raj", "team", "platform team") not in _current(mem)
        assert ("self", "lives_in", "Berlin") in _current(mem)


@given(
    thing=st.sampled_from(["billing service", "search api", "orders worker", "reports app"]),
    value=st.sampled_from(["Go", "Rust", "AWS", "GCP", "Postgres 16", "Kubernetes"]),
    verb=st.sampled_from(["migrated", "moved", "switched", "ported"]),
)
@settings(max_examples=25, deadline=None)
def test_a_migration_with_nothing_stored_touches_no_other_thing(
    thing: str, value: str, verb: str
) -> None:
    # docs/concepts/text.md#resolution-against-the-graph: rule 3 writes the new fact only
    clock = ManualClock(dt.datetime(2026, 1, 1, 12, tzinfo=dt.timezone.utc))
    with backends.memory(clock=clock) as mem:
        mem.remember("The gateway runs on Laravel. We host the gateway on Heroku.", at="2026-01-01")
        before = _current(mem)
        clock.set("2026-02-01")
        mem.remember(f"We {verb} the {thing} to {value}.", at="2026-02-01")
        now = _current(mem)
        assert before <= now
        assert {s for s, _, _ in now - before} <= {thing}


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        # "X handles Y", a value raised without a subject (docs/concepts/text.md#open-relations)
        ("Dana handles on-call this week.", ("on-call", "owner", "Dana")),
        ("We handle refunds manually.", ("refunds", "owner", "self")),
        ("Raised the limit to 250 req/s per key.", ("self", "limit", "250 req/s")),
        ("We raised the limit to 250 req/s per key.", ("self", "limit", "250 req/s")),
        # a capitalised thing without "the" before a name (docs/concepts/text.md#log-formats)
        ("CFO is Nadia Brennan", ("Nadia Brennan", "role", "CFO")),
        ("Team lead is Bob Marsh", ("self", "team_lead", "Bob Marsh")),
        # a migration with nothing stored (docs/concepts/text.md#resolution-against-the-graph)
        (
            "We migrated the billing service to Go last week.",
            ("billing service", "written_in", "Go"),
        ),
        ("We moved the API to AWS.", ("API", "hosted_on", "AWS")),
        ("I moved to Berlin.", ("self", "lives_in", "Berlin")),
        ("We moved everything to AWS over the weekend.", ("self", "hosted_on", "AWS")),
        # a person "still at" a company works there (docs/concepts/text.md#log-formats)
        ("Gustavo is still at Embraer.", ("Gustavo", "works_at", "Embraer")),
    ],
)
def test_a_sentence_reads_as_one_fact(
    sentence: str, fact: tuple[str, str, str], clock: ManualClock
) -> None:
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(sentence, at="2026-01-01")
        assert _current(mem) == {fact}


@pytest.mark.parametrize(
    ("chat", "written"),
    [
        ("Ana works at Acme. shes at Globex now", "Ana works at Acme. She's at Globex now"),
        ("Omar uses Vim. hes on Emacs now", "Omar uses Vim. He's on Emacs now"),
        (
            "The mobile team is on Jira. theyre on Linear now",
            "The mobile team is on Jira. They're on Linear now",
        ),
        ("Ana doesnt work at Acme", "Ana doesn't work at Acme"),
    ],
)
def test_chat_without_apostrophes_reads_as_with_them(chat: str, written: str) -> None:
    # docs/concepts/text.md#log-formats
    at = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)

    def read(text: str) -> list[tuple[str, str | None, str | None, bool]]:
        return [
            (c.subject, c.predicate, c.object, c.polarity)
            for c in BuiltinReader().read(text, at=at, owner="self")
        ]

    assert read(chat) == read(written)
    assert read(chat)


def test_were_is_no_contraction(clock: ManualClock) -> None:
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("We were on Heroku.", at="2026-01-01")
        assert ("self", "runs_on", "Heroku") not in _current(mem)


def test_a_port_read_by_the_parse_is_its_number(clock: ManualClock) -> None:
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(
            "The webhook relay is written in Elixir and listens on port 4000.", at="2026-01-01"
        )
        assert _current(mem) == {
            ("webhook relay", "written_in", "Elixir"),
            ("webhook relay", "port", "4000"),
        }


def test_a_move_of_an_unread_it_writes_no_family(clock: ManualClock) -> None:
    # docs/concepts/text.md#resolution-against-the-graph: rule 3 needs the thing that moved
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("no, we moved it to Fly.io two weeks ago", at="2026-01-01")
        mem.remember("We replaced it with Fly.io.", at="2026-01-01")
        assert _current(mem) == set()
        assert [f.statement for f in mem.facts()]  # the text is kept as a note


def test_last_nite_is_last_night(clock: ManualClock) -> None:
    clock.set("2026-01-10")
    with backends.memory(clock=clock) as mem:
        mem.remember("The analytics replica was bumped to MySQL 8.0 last nite.", at="2026-01-10")
        (fact,) = [f for f in mem.facts() if f.predicate != "note"]
        assert fact.valid_from == dt.datetime(2026, 1, 9, tzinfo=dt.timezone.utc)


def test_an_emails_body_is_its_senders(clock: ManualClock) -> None:
    # docs/concepts/text.md#log-formats
    clock.set("2026-01-02")
    mail = (
        "From: Hendrik Bos <h.bos@example.nl>\nTo: Purchasing\nSubject: Your account manager\n\n"
        "Good morning,\n\nI work at NordFreight. I live in Rotterdam.\n\nKind regards,\nHendrik"
    )
    with backends.memory(clock=clock) as mem:
        mem.add_session(mail, started_at="2026-01-01")
        facts = _current(mem)
        assert ("Hendrik Bos", "works_at", "NordFreight") in facts
        assert ("Hendrik Bos", "lives_in", "Rotterdam") in facts
        assert not any(s == "self" for s, _, _ in facts)


@pytest.mark.parametrize(
    ("text", "who"),
    [
        ("From: Harriet\nI work at Acme.", "Harriet"),
        ("Subject: launch\nI work at Acme.", "self"),  # no sender: the owner's
        ("From: the ops team\nI work at Acme.", "self"),  # no name
    ],
)
def test_a_mail_without_a_named_sender_is_the_owners(
    text: str, who: str, clock: ManualClock
) -> None:
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.add_session(text, started_at="2026-01-01")
        assert (who, "works_at", "Acme") in _current(mem)


@pytest.mark.parametrize(
    ("before", "after", "fact"),
    [
        ("I'm vegetarian.", "I went fully vegan last week.", ("self", "diet", "vegan")),
        ("Sam is vegetarian.", "Sam became vegan.", ("Sam", "diet", "vegan")),
        ("Rent is $2,400.", "Our rent went up to $2,550.", ("self", "rent", "$2,550")),
        ("Rent is $2,400.", "The rent rose to $2,550.", ("self", "rent", "$2,550")),
        (
            "The Team plan costs $20 a seat.",
            "The Team plan went up to $25 a seat.",
            ("Team plan", "costs", "$25"),
        ),
        (
            "The rate limit is 20 attempts/min.",
            "The rate limit was lowered to 5 attempts/min.",
            ("self", "rate_limit", "5 attempts/min"),
        ),
        (
            "Ingrid Sørensen's monthly gift is $50.",
            "Ingrid Sørensen phoned in. Raising her monthly gift to $75.",
            ("Ingrid Sørensen", "monthly_gift", "$75"),
        ),
    ],
)
def test_a_value_that_moved_replaces_the_old_one(
    before: str, after: str, fact: tuple[str, str, str], clock: ManualClock
) -> None:
    # docs/concepts/text.md#amounts
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(before, at="2026-01-01")
        clock.set("2026-04-02")
        mem.remember(after, at="2026-04-01")
        now = _current(mem)
        assert fact in now
        assert len([f for f in now if f[:2] == fact[:2]]) == 1


@pytest.mark.parametrize(
    "sentence",
    ["Sam went to Paris.", "Traffic went up to 5 and then down to 3.", "I went to the gym."],
)
def test_a_move_without_a_quantity_or_one_value_is_no_amount(
    sentence: str, clock: ManualClock
) -> None:
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(sentence, at="2026-01-01")
        assert _current(mem) == set()


@pytest.mark.parametrize(
    ("sentence", "fact"),
    [
        # docs/concepts/text.md#schedules: days a thing recurs on
        ("PE is on Mondays and Thursdays.", ("PE", "schedule", "Mondays and Thursdays")),
        ("Pickups are Tuesdays, Wednesdays and Fridays.", None),
        (
            "dnd is every other friday at 7, at Sam's",
            ("dnd", "schedule", "every other friday at 7"),
        ),
        ("Breakfast is served Tuesdays & Thursdays at 9:00 on level 5", None),
        ("Crit happens every Tuesday 14:00 in the Atlas room", ("Crit", "schedule", None)),
    ],
)
def test_a_schedule_is_the_days_a_thing_recurs_on(
    sentence: str, fact: tuple[str, str, str | None] | None, clock: ManualClock
) -> None:
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(sentence, at="2026-01-01")
        (got,) = _current(mem)
        assert got[1] == "schedule"
        if fact is not None:
            assert got[0] == fact[0]
            assert fact[2] is None or got[2] == fact[2]
        assert "day" in got[2].casefold()


@pytest.mark.parametrize(
    "sentence",
    ["The release is on Friday.", "We are on Mondays.", "so it's Tuesdays and Fridays now"],
)
def test_a_weekday_alone_or_no_thing_is_no_schedule(sentence: str, clock: ManualClock) -> None:
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember(sentence, at="2026-01-01")
        assert not any(p == "schedule" for _, p, _ in _current(mem))


def test_a_schedule_that_moves_replaces_the_old_days(clock: ManualClock) -> None:
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("PE is on Mondays and Thursdays.", at="2026-01-01")
        clock.set("2026-03-02")
        mem.remember("PE moves to Tuesdays and Thursdays because of the refit.", at="2026-03-01")
        assert _current(mem) == {("PE", "schedule", "Tuesdays and Thursdays")}
        clock.set("2026-05-02")
        mem.remember("Standups are on Mondays.", at="2026-04-01")
        mem.remember("Standups moved to Tuesdays last week.", at="2026-05-01")
        assert ("Standups", "schedule", "Tuesdays") in _current(mem)
        assert not any(p == "lives_in" for _, p, _ in _current(mem))


def test_a_clock_time_is_no_place_and_no_timezone(clock: ManualClock) -> None:
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("The nightly ETL schedule is 02:00 UTC.", at="2026-01-01")
        clock.set("2026-03-02")
        mem.remember("nightly ETL moves to 00:30 UTC for more buffer", at="2026-03-01")
        assert _current(mem) == {("self", "nightly_etl_schedule", "00:30 UTC")}
    with backends.memory(clock=clock) as mem:
        mem.remember("dashboards SLA is 07:00 UTC.", at="2026-03-01")
        assert not any(p == "timezone" for _, p, _ in _current(mem))


def test_a_records_fields_in_cards_tickets_and_later_comments(clock: ManualClock) -> None:
    # docs/concepts/text.md#records
    clock.set("2026-01-02")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "JIRA PAY-2213\nAssignee: Devraj\nAffected version: 3.8.1", started_at="2026-01-01"
        )
        assert ("PAY-2213", "assignee", "Devraj") in _current(mem)
        clock.set("2026-01-03")
        mem.add_session(
            "PAY-2213 — comment by Devraj:\nrepro'd locally. Correction to the ticket fields: "
            "affected version is 3.7.4, not 3.8.1.",
            started_at="2026-01-02",
        )
        clock.set("2026-01-05")
        mem.add_session(
            "PAY-2213 — activity\nAssignee: Devraj → Hannah (Devraj out on leave)\n"
            "Status: In Review (PR open)",
            started_at="2026-01-04",
        )
        now = _current(mem)
        assert {
            ("PAY-2213", "affected_version", "3.7.4"),
            ("PAY-2213", "assignee", "Hannah"),
            ("PAY-2213", "status", "In Review"),
        } <= now
        assert not any(s == "self" for s, _, _ in now)
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "Contact: Ravi Menon — Menon & Sons\nPhone: 0412 338 905\n"
            "Email: ravi@menonhardware.example",
            started_at="2026-01-01",
        )
        assert _current(mem) == {
            ("Ravi Menon", "phone", "0412 338 905"),
            ("Ravi Menon", "email", "ravi@menonhardware.example"),
        }


_PLURAL_DAYS = ["Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays", "Saturdays"]


@given(
    thing=st.sampled_from(["PE", "Choir practice", "Swimming lessons", "Pickups", "dnd"]),
    lists=st.lists(
        st.lists(st.sampled_from(_PLURAL_DAYS), min_size=1, max_size=3, unique=True),
        min_size=1,
        max_size=4,
    ),
    rent=st.lists(st.integers(min_value=100, max_value=9_999), min_size=1, max_size=4),
)
@settings(max_examples=20, deadline=None)
def test_the_last_schedule_and_amount_said_are_the_one_current(
    thing: str, lists: list[list[str]], rent: list[int]
) -> None:
    # docs/concepts/text.md#schedules and #amounts: each change replaces the one before
    clock = ManualClock(dt.datetime(2026, 1, 1, 12, tzinfo=dt.timezone.utc))
    with backends.memory(clock=clock) as mem:
        mem.remember("Our rent is $50.", at="2026-01-01")
        for i, (days, amount) in enumerate(zip(lists, rent + rent[-1:] * len(lists), strict=False)):
            said = days[0] if len(days) == 1 else f"{', '.join(days[:-1])} and {days[-1]}"
            verb = "is on" if i == 0 else "moves to"
            clock.set(f"2026-{i + 2:02d}-01")
            mem.remember(f"{thing} {verb} {said}.", at=f"2026-{i + 2:02d}-01")
            mem.remember(f"Our rent went up to ${amount:,}.", at=f"2026-{i + 2:02d}-01")
            now = _current(mem)
            assert {f for f in now if f[1] == "schedule"} == {(thing, "schedule", said)}
            assert {f for f in now if f[1] == "rent"} == {("self", "rent", f"${amount:,}")}


def test_a_commit_whose_body_starts_with_a_plural_thing(clock: ManualClock) -> None:
    # docs/concepts/text.md#log-formats: "uploads go to GCS" is no imperative "upload"
    clock.set("2026-01-28")
    with backends.memory(clock=clock) as mem:
        mem.remember("feat(storage): uploads go to GCS bucket user-uploads-prod")
        clock.set("2026-02-25")
        mem.remember("feat(storage): migrate uploads from GCS to Cloudflare R2")
        assert ("uploads", "goes_to", "Cloudflare R2") in _current(mem)
        assert "Cloudflare R2" in mem.context("Where are uploads stored?")
