"""Claims from text (graphmem.extract / graphmem.text) on the blank spaCy pipeline."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.extract import extract, ingest_text
from graphmem.text.cleanup import clean, denegate
from graphmem.text.modality import sentence_skipped, skipped
from graphmem.timeutil import ManualClock

AT = "2026-06-10"


def _claims(text: str, **kw: object) -> list[tuple[str, str | None, str | None, bool]]:
    return [(c.subject, c.predicate, c.object, c.polarity) for c in extract(text, at=AT, **kw)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # the ontology's verbs
        ("Alice works at Acme Corp.", [("Alice", "works_at", "Acme Corp", True)]),
        ("Alice joined Globex in March 2024.", [("Alice", "works_at", "Globex", True)]),
        ("Bob moved to Berlin.", [("Bob", "lives_in", "Berlin", True)]),
        ("Heidi lives in New York City.", [("Heidi", "lives_in", "New York City", True)]),
        ("Since 2024-05-01, the api runs on Go.", [("api", "runs_on", "Go", True)]),
        ("The web app is written in Python.", [("web app", "written_in", "Python", True)]),
        ("The blog is hosted on Netlify.", [("blog", "hosted_on", "Netlify", True)]),
        (
            "The api is deployed with Docker Compose.",
            [("api", "deploys_with", "Docker Compose", True)],
        ),
        (
            "We deploy the billing service with Kubernetes.",
            [("billing service", "deploys_with", "Kubernetes", True)],
        ),
        ("Alice reports to Dana.", [("Alice", "reports_to", "Dana", True)]),
        ("Grace owns billing.", [("billing", "owner", "Grace", True)]),
        ("Bob leads the platform team.", [("platform team", "team_lead", "Bob", True)]),
        ("Alice prefers tea over coffee.", [("Alice", "prefers", "tea", True)]),
        ("The storefront is built with Remix.", [("storefront", "runs_on", "Remix", True)]),
        ("The API listens on port 8080.", [("API", "port", "8080", True)]),
        (
            "The frontend uses React and TypeScript.",
            [("frontend", "uses", "React", True), ("frontend", "uses", "TypeScript", True)],
        ),
        # copular and possessive
        ("Our embeddings provider is OpenAI.", [("self", "embeddings provider", "OpenAI", True)]),
        ("The team lead is Bob.", [("self", "team lead", "Bob", True)]),
        ("Zoe's email is zoe@example.com.", [("Zoe", "email", "zoe@example.com", True)]),
        ("The API's database is Postgres.", [("API", "database", "Postgres", True)]),
        ("Dave is the CTO.", [("Dave", "role", "CTO", True)]),
        (
            "Erin works as a senior data scientist at Pied Piper.",
            [
                ("Erin", "role", "senior data scientist", True),
                ("Erin", "works_at", "Pied Piper", True),
            ],
        ),
        (
            "Frank was promoted to head of engineering.",
            [("Frank", "role", "head of engineering", True)],
        ),
        ("Bob is the VP of Sales.", [("Bob", "role", "VP of Sales", True)]),
        # change statements: the relation is resolved against the graph when written (None)
        ("We migrated the API to Go.", [("API", None, "Go", True)]),
        (
            "We switched our embeddings provider to Cohere.",
            [("self", "embeddings provider", "Cohere", True)],
        ),
        ("Carol is the new team lead.", [("self", "team lead", "Carol", True)]),
        ("Heidi took over billing from Grace.", [("billing", None, "Heidi", True)]),
        (
            "Ownership of the billing service moved to Heidi.",
            [("billing service", "owner", "Heidi", True)],
        ),
        (
            "Alice left Acme and joined Globex.",
            [("Alice", None, "Acme", False), ("Alice", "works_at", "Globex", True)],
        ),
        # negation and correction
        ("Alice no longer works at Acme.", [("Alice", "works_at", "Acme", False)]),
        ("Alice doesn't work at Acme anymore.", [("Alice", "works_at", "Acme", False)]),
        ("The api stopped using Redis.", [("api", "uses", "Redis", False)]),
        ("We stopped using Jenkins.", [("self", "uses", "Jenkins", False)]),
        (
            "Correction: Alice works at Globex, not Acme.",
            [("Alice", "works_at", "Globex", True), ("Alice", "works_at", "Acme", False)],
        ),
        # chat style and transcripts
        ("fyi the staging db is on postgres 13", [("staging db", "runs_on", "postgres 13", True)]),
        ("user: I work at Monzo.\nassistant: Noted.", [("self", "works_at", "Monzo", True)]),
        # never a claim: questions, plans, conditionals, history, non-names
        ("Does Alice work at Acme?", []),
        ("Should we move the API to Rust? We decided not to.", []),
        ("If Alice joins Acme, she will move to Boston.", []),
        ("Grace might move to Paris.", []),
        ("We plan to move the API to AWS next quarter.", []),
        ("He used to work at Oracle before IBM.", []),
        ("Ivan joined the call late.", []),
        ("Alice worked at Acme.", []),  # past, but until when?
        ("The weather is nice today.", []),
        ("Lunch is at noon.", []),
    ],
)
def test_sentence_rules(text: str, want: list[tuple[str, str | None, str | None, bool]]) -> None:
    assert _claims(text) == want


def test_pronouns_coordination_and_dates() -> None:
    found = extract(
        "Bob moved to Berlin in 2023 and joined Initech on 2024-02-01. He is a staff engineer. "
        "Alice worked at Acme from 2019 to 2021. Last week she joined Globex.",
        at="2026-06-10",
    )
    assert [(c.subject, c.predicate, c.object) for c in found] == [
        ("Bob", "lives_in", "Berlin"),
        ("Bob", "works_at", "Initech"),
        ("Bob", "role", "staff engineer"),
        ("Alice", "works_at", "Acme"),
        ("Alice", "works_at", "Globex"),
    ]
    assert [(c.valid_from, c.valid_to) for c in found] == [
        (gm.to_utc("2023"), None),
        (gm.to_utc("2024-02-01"), None),
        (None, None),
        (gm.to_utc("2019"), gm.to_utc("2021")),
        (gm.to_utc("2026-06-03"), None),
    ]
    assert found[0].sentence.startswith("Bob moved to Berlin in 2023")


def test_owner_is_configurable() -> None:
    assert _claims("We deploy with Helm.", owner="team") == [("team", "deploys_with", "Helm", True)]


def test_clean_skipped_and_denegate() -> None:
    assert clean("user: btw we're on Go now") == ("we are on Go now", "user", False)
    assert sentence_skipped("what if we moved to Rust") == "conditional"
    assert sentence_skipped("should we move to Rust") == "question"
    assert sentence_skipped("Kwame left Deloitte, not sure what is next") is None
    assert skipped("we are thinking about moving to Rust") == "hypothetical"
    assert skipped("she was once at IBM") == "history"
    assert denegate("the api is not on Laravel any more") == ("the api is on Laravel", True)


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=200))
def test_any_text_reads_without_error_and_deterministically(text: str) -> None:
    assert extract(text, at=AT) == extract(text, at=AT)


@pytest.mark.parametrize("text", ['he said "no"', "*** /* \\ ??", "a: b: c:", "—", "user:"])
def test_odd_text_never_raises(text: str) -> None:
    extract(text, at=AT)


def test_ingest_text_applies_the_contradiction_rules(mem: gm.Memory, clock: ManualClock) -> None:
    first = ingest_text(
        mem,
        "Alice works at Acme. The api runs on Laravel and uses Redis.",
        at="2024-01-01",
        source="s1",
    )
    assert [r.decision.value for r in first] == ["add", "add", "add"]
    assert {f.source for f in mem.facts()} == {"s1"}
    clock.set("2026-06-10")
    later = mem.ingest_text(
        "Alice joined Globex in May 2026. We migrated the api to Go on 2026-06-01. "
        "The api stopped using Redis. Bob no longer lives in Paris.",
        source="s2",
    )
    # the sentence with nothing to end is kept as a note: no text is lost
    assert [r.decision.value for r in later] == ["supersede", "supersede", "invalidate", "add"]
    assert later[-1].fact.object == "Bob no longer lives in Paris."
    now = {(f.subject, f.predicate): f.object for f in mem.facts() if f.predicate != "note"}
    assert now == {("Alice", "works_at"): "Globex", ("api", "runs_on"): "Go"}
    assert [f.object for f in mem.facts(subject="api", valid_at="2025-01-01")] == [
        "Laravel",
        "Redis",
    ]
    (old,) = [f for f in later[1].superseded if f.object == "Laravel"]
    assert "We migrated the api to Go on 2026-06-01" in old.reason
    assert "from session s2" in old.reason


def test_unresolvable_change_stays_a_note(mem: gm.Memory) -> None:
    mem.add_fact("api", "runs_on", "Laravel")
    mem.add_fact("api", "written_in", "PHP")
    [result] = mem.ingest_text("We migrated the api to Go.")  # runs_on or written_in? unsure
    assert result.decision is gm.Decision.ADD
    assert result.fact is not None
    assert result.fact.predicate == "note"
    assert {f.object for f in mem.facts(subject="api")} == {"Laravel", "PHP"}


def test_empty_and_bad_input(mem: gm.Memory) -> None:
    assert ingest_text(mem, "   ") == []
    with pytest.raises(gm.InvalidInput, match="not a string"):
        ingest_text(mem, b"Alice works at Acme")  # type: ignore[arg-type]
    with pytest.raises(gm.InvalidInput, match="at="):
        ingest_text(mem, "Alice works at Acme", at="2026-01-01T10:00")
    with pytest.raises(gm.InvalidInput, match="not a string"):
        extract(42)  # type: ignore[arg-type]
    assert mem.count_versions() == 0


@pytest.mark.bench
def test_extraction_speed() -> None:
    """Short session lines per second on the blank pipeline (run with -m bench -s)."""
    lines = [
        "Alice moved to Berlin in 2023 and joined Globex.",
        "The api runs on Go since 2026-06-01.",
        "Bob no longer works at Acme.",
        "We talked about the roadmap for an hour.",
    ] * 500
    extract(lines[0])
    started = time.perf_counter()
    extract("\n".join(lines), at=AT)
    rate = len(lines) / (time.perf_counter() - started)
    print(f"\nextract: {rate:.0f} sentences/s (one text)")


def test_cli_ingest_text(db_path: str, engine: str) -> None:
    import json

    from click.testing import CliRunner

    from graphmem.cli import cli

    runner = CliRunner()
    base = ["--db", db_path, "--engine", engine]
    text = "Alice works at Acme since 2020. Alice no longer works at Acme."
    dry = runner.invoke(cli, [*base, "ingest-text", "-", "--dry-run"], input=text)
    assert dry.exit_code == 0, dry.output
    assert "Alice works_at Acme\nNOT Alice works_at Acme" in dry.output
    result = runner.invoke(
        cli, [*base, "ingest-text", "-", "--at", "2026-01-01", "--json"], input=text.split(". ")[0]
    )
    assert result.exit_code == 0, result.output
    [written] = json.loads(result.output)["results"]
    assert (written["decision"], written["fact"]["valid_from"]) == ("add", "2020-01-01T00:00:00Z")
    with gm.open(db_path, engine=engine, read_only=True) as mem:
        assert [f.object for f in mem.facts(subject="Alice")] == ["Acme"]


@pytest.mark.parametrize(
    "text",
    [
        "DNS moved to Cloudflare a while back.",
        "We moved DNS to Cloudflare a while ago.",
        "DNS moved to Cloudflare recently.",
    ],
)
def test_a_time_back_after_the_value_is_no_part_of_it(text: str) -> None:
    # "a while back" is a time, not a clause joined by "while"
    assert [c[2] for c in _claims(text)] == ["Cloudflare"]


def test_while_still_joins_two_clauses() -> None:
    assert _claims("Alice works at Acme while Bob works at Globex.") == [
        ("Alice", "works_at", "Acme", True),
        ("Bob", "works_at", "Globex", True),
    ]


def test_she_after_a_lower_case_name_that_left_is_that_person() -> None:
    # lower-case chat has no capitals to tell a person: leaving a place tells it
    assert _claims("priya left stripe in august, she's at adyen now") == [
        ("priya", None, "stripe", False),
        ("priya", "works_at", "adyen", True),
    ]
    # a thing that leaves something is no person for "she"
    assert ("billing", "works_at", "adyen", True) not in _claims(
        "billing left the monolith, she's at adyen now"
    )


def test_a_mention_before_a_subject_addresses_someone() -> None:
    assert _claims("heads up @dana nightly exports go to Azure Blob now") == [
        ("nightly exports", "goes to", "Azure Blob", True)
    ]
    assert _claims("@dana works at Acme") == [("dana", "works_at", "Acme", True)]


def test_a_relative_clause_after_a_thing_says_a_fact_of_it() -> None:
    got = _claims("They build the warehouse routing engine, which runs on JVM 21.")
    assert got == [("warehouse routing engine", "runs_on", "JVM 21", True)]
    assert ("Acme", "lives_in", "Paris", True) in _claims(
        "Alice joined Acme, which is based in Paris."
    )
    # "which" with its own subject is no fact of the thing
    assert _claims("The API runs on Go, which we like.") == [("API", "runs_on", "Go", True)]
