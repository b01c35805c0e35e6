"""The dependency reader (graphmem.text.parse) over the trained pipeline (graphmem.text.nlp)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.text import nlp
from graphmem.text.parse import Open, third_person
from graphmem.text.parse_joined import open_claims
from graphmem.text.readers import BuiltinReader

pytestmark = pytest.mark.skipif(
    nlp.parser_name() == "blank", reason="no trained English pipeline installed"
)


def read(sentence: str) -> list[tuple[object, ...]]:
    docs = nlp.parse([sentence])
    assert docs is not None
    return [
        (o.subject, o.relation, o.object, o.polarity, o.replaces, o.change)
        for o in open_claims(docs[0])
    ]


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("Invoices are stored in S3.", ("Invoices", "stored in", "S3", True, None, False)),
        ("Alerts go out through PagerDuty.", ("Alerts", "goes through", "PagerDuty")),
        ("The mobile app talks to the gateway.", ("The mobile app", "talks to", "the gateway")),
        ("Support tickets are handled by Zendesk.", ("Support tickets", "handled by", "Zendesk")),
        ("The Team plan costs $20 a seat.", ("The Team plan", "costs", "$20")),
        ("Staging runs on Fly.io.", ("Staging", "runs on", "Fly.io")),
        ("The webhook posts to hooks.example.com.", ("webhook", "posts to", "hooks.example.com")),
        ("support is in Intercom now", ("support", "is in", "Intercom")),
        ("Acme Corp is one of our customers.", ("our", "customer", "Acme Corp")),
        ("Payments no longer go through Stripe.", ("Payments", "goes through", "Stripe", False)),
    ],
)
def test_open_relations(sentence: str, expected: tuple[object, ...]) -> None:
    got = read(sentence)
    assert got, sentence
    assert got[0][: len(expected)] == expected


@pytest.mark.parametrize(
    ("sentence", "thing", "new", "old"),
    [
        ("We migrated billing from Laravel to Go.", "billing", "Go", "Laravel"),
        ("migrate the billing service from Laravel to Go", "the billing service", "Go", "Laravel"),
        ("heads up, invoices moved from S3 to R2 this morning", "invoices", "R2", "S3"),
        ("The node version went from 14 to 16.", "The node version", "16", "14"),
        ("Jenkins was swapped for Buildkite.", None, "Buildkite", "Jenkins"),
        ("We upgraded prod k8s to 1.29 yesterday.", "prod k8s", "1.29", None),
        ("We moved everything to GCP.", "We", "GCP", None),
    ],
)
def test_changes(sentence: str, thing: str | None, new: str, old: str | None) -> None:
    assert read(sentence) == [(thing, None, new, True, old, True)]


def test_endings() -> None:
    [o] = open_claims(nlp.parse(["Redis is gone."])[0])  # type: ignore[index]
    assert o == Open(None, None, "Redis", polarity=False, object_is_subject=True)


@pytest.mark.parametrize(
    "sentence",
    [
        "Should we move the API to Rust?",
        "We might move to GCP next year.",
        "If we switch to Go, billing gets faster.",
        "We want to migrate to Postgres.",
        "We plan to move invoices to R2.",
        "Ana worked at Acme.",  # history, not a statement about now
        "The wiki still says we use Confluence.",
        "I think the gateway talks to Redis.",
    ],
)
def test_not_statements(sentence: str) -> None:
    assert read(sentence) == []


def test_names_survive_the_tagger() -> None:
    """Identifiers stay whole and "to Go" is a preposition and a name (docs/concepts/text.md)."""
    [doc] = nlp.parse(["Our default region is ap-south-1 and we moved billing to Go."])  # type: ignore[misc]
    words = [t.text for t in doc]
    assert "ap-south-1" in words
    go = next(t for t in doc if t.text == "Go")
    assert go.pos_ in ("PROPN", "NOUN")


def test_third_person() -> None:
    assert [third_person(v) for v in ("talk", "go", "push", "carry", "pay")] == [
        "talks",
        "goes",
        "pushes",
        "carries",
        "pays",
    ]


def test_model_files_are_checked(tmp_path: object) -> None:
    """A re-upload whose files differ from the pinned model is not used."""
    from pathlib import Path

    root = Path(str(tmp_path))
    for name in nlp.MODEL_HASHES:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(b"not the model")
    assert nlp._verify(root) is False


WORDS = [
    "we",
    "the",
    "api",
    "runs",
    "on",
    "moved",
    "to",
    "from",
    "Go",
    "billing",
    "is",
    "was",
    "not",
    "no",
    "longer",
    "Redis",
    "invoices",
    "stored",
    "in",
    "S3",
    ";",
    "-",
    ",",
    ".",
    "?",
    "Alice",
    "it",
    "they",
    "k8s",
    "1.29",
    "$20",
    "a",
    "one",
    "of",
    "our",
    "customers",
    "handled",
    "by",
    "gone",
    "swapped",
    "for",
    "everything",
    "prod",
    "starting",
    "1",
    "May",
    "will",
    "be",
    "if",
    "should",
    "I",
    "my",
    "team",
    "alerts",
    "go",
    "out",
    "through",
]


@given(st.lists(st.sampled_from(WORDS), min_size=1, max_size=14))
@settings(max_examples=150, deadline=None)
def test_any_word_salad_reads_without_error(words: list[str]) -> None:
    """The parse reader never raises, whatever the parser makes of a sentence."""
    at = dt.datetime(2026, 6, 10, tzinfo=dt.timezone.utc)
    for c in BuiltinReader().read(" ".join(words), at=at, owner="self"):
        assert c.subject
        assert c.object is None or c.object.strip()


def test_a_participle_joined_to_a_passive_is_passive_too() -> None:
    got = [g[:3] for g in read("Images are built by GH Actions and pushed to GHCR.")]
    assert got == [("Images", "built by", "GH Actions"), ("Images", "pushed to", "GHCR")]
    # an active verb after "and" keeps its own reading
    got = [g[:3] for g in read("The worker reads from Kafka and writes to S3.")]
    assert ("The worker", "writes to", "S3") in got


def test_a_subject_before_a_verb_taken_for_a_noun_keeps_its_modifiers() -> None:
    # "talks" tagged a noun: the subject is the whole "billing service", not "service"
    got = [g[:3] for g in read("the billing service talks to Stripe for card payments")]
    # beside a value, "for" and no name is a purpose, not a second value
    assert got == [("billing service", "talks to", "Stripe")]


def test_a_gapped_second_subject_and_value_take_the_verb() -> None:
    got = [g[:3] for g in read("our metrics are in Prometheus, dashboards in Grafana")]
    assert got == [("our metrics", "is in", "Prometheus"), ("dashboards", "is in", "Grafana")]
    got = [g[:3] for g in read("Invoices are stored in S3, receipts in GCS")]
    assert ("receipts", "stored in", "GCS") in got


def test_nouns_joined_by_and_share_the_claim() -> None:
    # docs/concepts/text.md#coordinated-subjects
    got = {g[:3] for g in read("Purchase orders and vendor onboarding are handled by Rafael.")}
    assert got == {
        ("Purchase orders", "handled by", "Rafael"),
        ("vendor onboarding", "handled by", "Rafael"),
    }
    got = {g[:3] for g in read("Invoices, receipts and contracts are stored in S3.")}
    assert {s for s, _, _ in got} == {"Invoices", "receipts", "contracts"}
    got = {g[:3] for g in read("Alerts go to Slack and PagerDuty.")}
    assert got == {("Alerts", "goes to", "Slack"), ("Alerts", "goes to", "PagerDuty")}


@pytest.mark.parametrize(
    "sentence",
    [
        "Our corporate cards are issued by Brex instead of Chase.",
        "Alerts go to Slack or PagerDuty.",
        "Tom and I live in Paris.",
    ],
)
def test_only_and_joins_values_that_all_hold(sentence: str) -> None:
    # "instead of" and "or" name one value; a pronoun joined is read by its own rule
    values = {g[2] for g in read(sentence)}
    subjects = {g[0] for g in read(sentence)}
    assert not values & {"Chase", "PagerDuty"}
    assert "I" not in subjects
