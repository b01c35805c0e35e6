"""Change statements resolved against the graph (graphmem.text.resolve): pure table tests."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence

import pytest

from graphmem.models import Fact, Predicate
from graphmem.normalize import entity_key
from graphmem.ontology import Ontology
from graphmem.text.claims import Claim
from graphmem.text.resolve import Resolver, compatible

T0 = dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc)
AT = dt.datetime(2026, 6, 10, tzinfo=dt.timezone.utc)
ONTOLOGY = Ontology.default()


def fact(s: str, p: str, o: str, start: dt.datetime = T0) -> Fact:
    return Fact(
        id=f"f-{s}-{p}-{o}", subject=s, predicate=p, object=o, valid_from=start, recorded_at=T0
    )


def resolver(facts: Sequence[Fact], owner: str = "self") -> Resolver:
    by_subject: dict[str, list[Fact]] = {}
    for f in facts:
        by_subject.setdefault(entity_key(f.subject), []).append(f)

    def current(ids: Sequence[str]) -> Mapping[str, Sequence[Fact]]:
        return {i: by_subject.get(i, []) for i in ids}

    def incoming(oid: str) -> list[Fact]:
        return [f for f in facts if entity_key(f.object) == oid]

    def lookup(name: str) -> Predicate | None:
        return ONTOLOGY.lookup(name)

    return Resolver(key=entity_key, current=current, incoming=incoming, lookup=lookup, owner=owner)


def writes(facts: Sequence[Fact], *claims: Claim) -> list[tuple[str, str, str, str]] | None:
    r = resolver(facts)
    out: list[tuple[str, str, str, str]] = []
    for c in claims:
        actions = r.resolve(c, AT)
        if actions is None:
            return None
        out += [(a.op, a.subject, a.predicate, a.object) for a in actions]
    return out


@pytest.mark.parametrize(
    ("facts", "claim", "want"),
    [
        # the only slot of a compatible family: Go replaces Laravel, not the port
        (
            [fact("API", "runs_on", "Laravel"), fact("API", "port", "8080")],
            Claim("API", None, "Go", change=True),
            [("assert", "API", "runs_on", "Go")],
        ),
        # two slots of the stack family: unsure, so no write (the caller keeps a note)
        (
            [fact("API", "runs_on", "Laravel"), fact("API", "written_in", "PHP")],
            Claim("API", None, "Go", change=True),
            None,
        ),
        # ... unless the verb says which ("ported" means the language)
        (
            [fact("API", "runs_on", "Laravel"), fact("API", "written_in", "PHP")],
            Claim("API", None, "Go", change=True, hint="written_in"),
            [("assert", "API", "written_in", "Go")],
        ),
        # the replaced value names the slot
        (
            [fact("self", "uses", "Jenkins"), fact("self", "uses", "Redis")],
            Claim("self", None, "GitHub Actions", replaces="Jenkins", change=True),
            [("end", "self", "uses", "Jenkins"), ("assert", "self", "uses", "GitHub Actions")],
        ),
        # "we" replaced a value held by one of our things: the facts pointing at the value
        (
            [fact("CI", "runs_on", "Jenkins")],
            Claim("self", None, "GitHub Actions", replaces="Jenkins", change=True),
            [("assert", "CI", "runs_on", "GitHub Actions")],
        ),
        # a named subject never borrows another subject's fact
        (
            [fact("Billing", "owner", "Grace")],
            Claim("Payments", None, "Heidi", replaces="Grace", change=True),
            None,
        ),
        # a technical change never fills a people slot
        (
            [fact("CRM", "runs_on", "Salesforce"), fact("CRM", "owner", "Omar")],
            Claim("CRM", None, "HubSpot", change=True),
            [("assert", "CRM", "runs_on", "HubSpot")],
        ),
        # "took over billing from Grace": the people slot holding Grace
        (
            [fact("billing", "owner", "Grace"), fact("billing", "runs_on", "Stripe")],
            Claim("billing", None, "Heidi", replaces="Grace", change=True, hint="owner"),
            [("assert", "billing", "owner", "Heidi")],
        ),
        # nothing known, a hint: the hinted slot
        (
            [],
            Claim("Alice", None, "Berlin", change=True, hint="lives_in"),
            [("assert", "Alice", "lives_in", "Berlin")],
        ),
        # nothing stored, no hint: the relation Go's family implies (text.md, resolution rule 3)
        ([], Claim("API", None, "Go", change=True), [("assert", "API", "written_in", "Go")]),
        # a number never replaces a name
        ([fact("API", "runs_on", "Laravel")], Claim("API", None, "9090", change=True), None),
        # nothing stored and a value of no family: no write
        ([], Claim("API", None, "Northwind", change=True), None),
        # "replaced Kong with Envoy" names "Kong 3.4" too
        (
            [fact("gateway", "runs_on", "Kong 3.4")],
            Claim("gateway", None, "Envoy", replaces="Kong", change=True),
            [("assert", "gateway", "runs_on", "Envoy")],
        ),
    ],
)
def test_change_statements(
    facts: list[Fact], claim: Claim, want: list[tuple[str, str, str, str]] | None
) -> None:
    assert writes(facts, claim) == want


def test_also_never_supersedes_a_single_value() -> None:
    facts = [fact("Alice", "works_at", "Acme")]
    assert writes(facts, Claim("Alice", "works_at", "Globex", also=True)) is None
    # "Dan works at Acme too" (like Carol): no other value, so nothing to supersede
    assert writes([], Claim("Dan", "works_at", "Acme", also=True)) == [
        ("assert", "Dan", "works_at", "Acme")
    ]
    # a change verb with "also" is still a change ("and he also moved to Nairobi")
    assert writes(
        [fact("Olu", "lives_in", "Lagos")],
        Claim("Olu", "lives_in", "Nairobi", also=True, change=True),
    ) == [("assert", "Olu", "lives_in", "Nairobi")]


def test_ends_and_the_value_that_takes_their_place() -> None:
    facts = [fact("self", "deploys_with", "Docker Compose")]
    # "We no longer deploy with X. We use Y now.": Y takes X's slot
    assert writes(
        facts,
        Claim("self", "deploys_with", "Docker Compose", polarity=False),
        Claim("self", "uses", "Kubernetes", now=True),
    ) == [
        ("end", "self", "deploys_with", "Docker Compose"),
        ("assert", "self", "deploys_with", "Kubernetes"),
    ]
    # "The worker isn't on Node.js anymore, we moved it to Deno": the slot just ended
    assert writes(
        [fact("worker", "runs_on", "Node.js")],
        Claim("worker", "runs_on", "Node.js", polarity=False),
        Claim("worker", None, "Deno", change=True),
    ) == [("end", "worker", "runs_on", "Node.js"), ("assert", "worker", "runs_on", "Deno")]
    # "dropped Redis": whatever the subject's facts hold about it
    assert writes(
        [fact("self", "uses", "Redis")], Claim("self", None, "Redis", polarity=False)
    ) == [("end", "self", "uses", "Redis")]
    # nothing to end: nothing to write
    assert writes([], Claim("Bob", "works_at", "Acme", polarity=False)) == []


def test_correction_replaces_from_the_old_start() -> None:
    r = resolver([fact("Kenji", "lives_in", "Osaka", start=T0)])
    [action] = r.resolve(Claim("Kenji", "lives_in", "Kyoto", correction=True), AT) or []
    assert (action.predicate, action.object, action.valid_from) == ("lives_in", "Kyoto", T0)


def test_slot_words_map_to_general_relations_unless_the_user_defined_them() -> None:
    assert writes([], Claim("Zoe", "employer", "Globex")) == [
        ("assert", "Zoe", "works_at", "Globex")
    ]
    assert writes([], Claim("self", "embeddings provider", "OpenAI")) == [
        ("assert", "self", "embeddings_provider", "OpenAI")
    ]
    # "the platform team lead is Kenji": the platform team's team_lead
    assert writes(
        [fact("platform team", "team_lead", "Ines")], Claim("self", "platform team lead", "Kenji")
    ) == [("assert", "platform team", "team_lead", "Kenji")]


def test_an_end_before_the_start_is_dropped() -> None:
    [action] = (
        resolver([]).resolve(Claim("API", "runs_on", "Go", valid_to=AT - dt.timedelta(days=30)), AT)
        or []
    )
    assert action.valid_to is None


def test_compatible() -> None:
    assert compatible("Postgres 16", "Postgres 13")
    assert compatible("Fly.io", "Vercel")
    assert not compatible("Go", "Postgres")
    assert not compatible("8080", "Laravel")
    assert not compatible("a@b.io", "Acme")
