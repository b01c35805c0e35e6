"""The predicate ontology: defaults, aliases resolved before decisions, user extensions."""

from __future__ import annotations

import json
import os
from importlib import resources

import pytest

import graphmem as gm
from graphmem.ontology import Ontology, default_predicates

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")

D = gm.Decision

# The relations issue 3 names, with their cardinality.
EXPECTED = {
    "works_at": "one",
    "lives_in": "one",
    "runs_on": "one",
    "deploys_with": "one",
    "team_lead": "one",
    "owner": "one",
    "version": "one",
    "reports_to": "one",
    "uses": "many",
    "knows": "many",
    "works_on": "many",
    "note": "many",
}


def test_default_ontology_file_is_well_formed():
    raw = resources.files("graphmem").joinpath("data/ontology.json").read_text("utf-8")
    doc = json.loads(raw)
    assert doc["version"] == 1
    names = [p["name"] for p in doc["predicates"]]
    assert len(names) == len(set(names))
    onto = Ontology(default_predicates())  # raises on alias clashes
    for name, cardinality in EXPECTED.items():
        assert onto.resolve(name).cardinality == cardinality, name
    for p in doc["predicates"]:
        assert p["aliases"] == sorted(p["aliases"]), p["name"]
        assert p["description"], p["name"]


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("employer", "works_at"),
        ("works for", "works_at"),
        ("Works At", "works_at"),
        ("employed by", "works_at"),
        ("lives in", "lives_in"),
        ("residence", "lives_in"),
        ("runs on", "runs_on"),
        ("deploys with", "deploys_with"),
        ("team lead", "team_lead"),
        ("owned by", "owner"),
        ("current version", "version"),
        ("manager", "reports_to"),
        ("using", "uses"),
        ("friend of", "knows"),
        ("working on", "works_on"),
    ],
)
def test_aliases_resolve(mem, alias, canonical):
    assert mem.ontology.resolve(alias).name == canonical


def test_aliases_resolve_before_the_decision(mem, clock):
    mem.add_fact("Alice", "works_at", "Acme", valid_from="2020-01-01")
    clock.advance(days=1)
    r = mem.add_fact("Alice", "employer", "Globex", valid_from="2022-01-01")
    assert r.decision is D.SUPERSEDE
    assert r.fact.predicate == "works_at"
    clock.advance(days=1)
    r = mem.add_fact("Alice", "works for", "Initech", valid_from="2024-01-01")
    assert r.decision is D.SUPERSEDE
    assert r.superseded[0].object == "Globex"
    assert [f.object for f in mem.facts(subject="Alice", predicate="Employer")] == ["Initech"]
    assert [f.object for f in mem.history("Alice", "works for")] == ["Acme", "Globex", "Initech"]
    # Re-asserting through another alias is a duplicate, not a new fact.
    r = mem.add_fact("Alice", "Works At", "Initech", valid_from="2024-01-01")
    assert r.decision is D.NOOP
    clock.advance(days=1)
    r = mem.retract("Alice", "employed by")
    assert r.decision is D.INVALIDATE
    assert mem.facts(subject="Alice") == []


def test_many_valued_relations_accumulate(mem):
    mem.add_fact("api", "uses", "Redis")
    r = mem.add_fact("api", "using", "Postgres")
    assert r.decision is D.ADD
    assert sorted(f.object for f in mem.facts(subject="api", predicate="uses")) == [
        "Postgres",
        "Redis",
    ]


def test_define_predicate_extends_and_persists(db_path, clock):
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        p = mem.define_predicate("Mentor Of", cardinality="many", aliases=["mentors", "coaches"])
        assert (p.name, p.cardinality, p.aliases) == ("mentor_of", "many", ("coaches", "mentors"))
        mem.define_predicate("on call", aliases=["pager duty"])
        mem.add_fact("Ann", "mentors", "Bob")
        mem.add_fact("Ann", "coaches", "Cid")
        mem.add_fact("ops", "pager duty", "Ann")
        r = mem.add_fact("ops", "on_call", "Bob")
        assert r.decision is D.SUPERSEDE
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        assert mem.ontology.resolve("coaches").name == "mentor_of"
        assert sorted(f.object for f in mem.facts(subject="Ann")) == ["Bob", "Cid"]
        assert [f.object for f in mem.facts(subject="ops", predicate="pager duty")] == ["Bob"]
        names = [p.name for p in mem.predicates()]
        assert "mentor_of" in names
        assert "works_at" in names
        assert names == sorted(names)


def test_redefining_changes_cardinality(mem):
    mem.define_predicate("prefers", cardinality="many")
    mem.add_fact("Ann", "prefers", "tea")
    assert mem.add_fact("Ann", "prefers", "coffee").decision is D.ADD
    assert len(mem.facts(subject="Ann")) == 2


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"name": "boss", "aliases": ["employer"]}, "already names predicate 'works_at'"),
        ({"name": "employer"}, "already an alias of 'works_at'"),
        ({"name": "boss", "cardinality": "two"}, "cardinality='two'"),
        ({"name": "!!"}, "no letters or digits"),
    ],
)
def test_bad_definitions_are_refused(mem, kwargs, match):
    before = mem.predicates()
    with pytest.raises(gm.InvalidInput, match=match):
        mem.define_predicate(**kwargs)
    assert mem.predicates() == before


def test_unknown_predicates_default_to_single_valued(mem):
    mem.add_fact("api", "favourite colour", "blue")
    r = mem.add_fact("api", "favourite_colour", "green")
    assert r.decision is D.SUPERSEDE
    assert mem.ontology.resolve("favourite colour").cardinality == "one"
