"""The predicate ontology: shipped relations, aliases resolved everywhere, the user's words win."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

import pytest
from click.testing import CliRunner

import graphmem as gm
from graphmem.cli import cli
from graphmem.ontology import Ontology, choose_ontology, default_predicates, read_predicates
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")

D = gm.Decision

# The general agent-memory relations the shipped ontology must hold (the text pipeline relies
# on them), with their cardinality.
EXPECTED = {
    "works_at": "one",
    "lives_in": "one",
    "located_in": "one",
    "runs_on": "one",
    "deploys_with": "one",
    "hosted_on": "one",
    "team_lead": "one",
    "plan": "one",
    "owner": "one",
    "version": "one",
    "role": "one",
    "status": "one",
    "prefers": "one",
    "email": "one",
    "phone": "one",
    "reports_to": "one",
    "timezone": "one",
    "birthday": "one",
    "born_in": "one",
    "married_to": "one",
    "written_in": "one",
    "port": "one",
    "uses": "many",
    "knows": "many",
    "member_of": "many",
    "depends_on": "many",
    "likes": "many",
    "dislikes": "many",
    "created": "many",
    "graduated_from": "many",
    "owns": "many",
    "works_on": "many",
    "has_skill": "many",
    "speaks": "many",
    "note": "many",
}

# Data-set vocabulary (Wikidata property labels, YAGO relation names) that must not ship: each
# of these is a user's own predicate name, never silently mapped onto a shipped one.
DATASET_WORDS = [
    "employer",
    "spouse",
    "member of political party",
    "member of sports team",
    "residence",
    "award received",
    "position held",
    "educated at",
    "head of government",
    "place of birth",
    "place of death",
    "date of birth",
    "nominated for",
    "is_affiliated_to",
    "isAffiliatedTo",
    "is_married_to",
    "isMarriedTo",
    "was_born_in",
    "wasBornIn",
    "head_of_government",
    "has_won_prize",
    "nominated_for",
    "position_held",
    "affiliated_to",
    "plays_for",
    "died_in",
]


def test_default_ontology_file_is_well_formed():
    raw = resources.files("graphmem").joinpath("data/ontology.json").read_text("utf-8")
    doc = json.loads(raw)
    assert doc["version"] == 1
    names = [p["name"] for p in doc["predicates"]]
    assert len(names) == len(set(names))
    onto = Ontology(default_predicates())  # raises on alias clashes
    # built without validation (docs/concepts/surfaces.md#startup): the same as validated
    assert default_predicates() == [gm.Predicate.model_validate(p) for p in doc["predicates"]]
    assert {p.name: p.cardinality for p in onto} == EXPECTED
    for p in doc["predicates"]:
        assert p["aliases"] == sorted(p["aliases"]), p["name"]
        assert p["description"], p["name"]


@pytest.mark.parametrize("word", DATASET_WORDS)
def test_the_shipped_ontology_holds_no_data_set_vocabulary(word):
    assert Ontology.default().lookup(word) is None


@pytest.mark.parametrize(
    ("alias", "canonical"),
    [
        ("works for", "works_at"),
        ("Works At", "works_at"),
        ("employed by", "works_at"),
        ("lives in", "lives_in"),
        ("resides in", "lives_in"),
        ("runs on", "runs_on"),
        ("deploys with", "deploys_with"),
        ("team lead", "team_lead"),
        ("owned by", "owner"),
        ("current version", "version"),
        ("manager", "reports_to"),
        ("reports to", "reports_to"),
        ("married to", "married_to"),
        ("using", "uses"),
        ("friend of", "knows"),
        ("working on", "works_on"),
        ("written in", "written_in"),
        ("is written in", "written_in"),
        ("programming language", "written_in"),
        ("listens on port", "port"),
        ("listens on", "port"),
        ("port number", "port"),
    ],
)
def test_aliases_resolve(mem, alias, canonical):
    assert mem.ontology.resolve(alias).name == canonical


def test_aliases_resolve_before_the_decision(mem, clock):
    mem.add_fact("Alice", "works_at", "Acme", valid_from="2020-01-01")
    clock.advance(days=1)
    r = mem.add_fact("Alice", "employed by", "Globex", valid_from="2022-01-01")
    assert r.decision is D.SUPERSEDE
    assert r.fact.predicate == "works_at"
    clock.advance(days=1)
    r = mem.add_fact("Alice", "works for", "Initech", valid_from="2024-01-01")
    assert r.decision is D.SUPERSEDE
    assert r.superseded[0].object == "Globex"
    assert [f.object for f in mem.facts(subject="Alice", predicate="Employed By")] == ["Initech"]
    assert [f.object for f in mem.history("Alice", "works for")] == ["Acme", "Globex", "Initech"]
    # Re-asserting through another alias is a duplicate, not a new fact.
    r = mem.add_fact("Alice", "Works At", "Initech", valid_from="2024-01-01")
    assert r.decision is D.NOOP
    clock.advance(days=1)
    r = mem.retract("Alice", "employed by")
    assert r.decision is D.INVALIDATE
    assert mem.facts(subject="Alice") == []


def test_an_alias_resolves_everywhere_in_python(mem, clock):
    mem.add_fact("api", "runs on", "Laravel", valid_from="2024-01-01")
    clock.set("2026-06-01")
    mem.add_fact("api", "built with", "Go", valid_from="2026-06-01")
    for spelling in ("runs_on", "runs on", "Built With", "powered by"):
        assert [f.object for f in mem.facts(subject="api", predicate=spelling)] == ["Go"]
        assert [
            f.object for f in mem.believed(on="2026-01-01", subject="api", predicate=spelling)
        ] == ["Laravel"]
        assert [f.object for f in mem.history("api", spelling)] == ["Laravel", "Go"]
    clock.advance(days=1)
    assert mem.retract("api", "powered by", "Go").decision is D.INVALIDATE
    assert mem.facts(subject="api", predicate="runs on") == []


def test_an_alias_resolves_in_the_cli(db_path, clock):
    runner = CliRunner()
    base = ["--engine", ENGINE, "--db", db_path]
    r = runner.invoke(
        cli, [*base, "add", "api", "runs on", "Laravel", "--valid-from", "2024-01-01"]
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, [*base, "add", "api", "built with", "Go", "--valid-from", "2025-01-01"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(
        cli, [*base, "facts", "--subject", "api", "--predicate", "powered by", "--json"]
    )
    assert r.exit_code == 0, r.output
    assert [(f["predicate"], f["object"]) for f in json.loads(r.output)] == [("runs_on", "Go")]
    r = runner.invoke(cli, [*base, "history", "api", "Runs On", "--json"])
    assert r.exit_code == 0, r.output
    assert [f["object"] for f in json.loads(r.output)] == ["Laravel", "Go"]
    r = runner.invoke(cli, [*base, "retract", "api", "built with"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, [*base, "facts", "--subject", "api", "--json"])
    assert json.loads(r.output) == []


def test_an_alias_resolves_over_mcp(mem, clock):
    pytest.importorskip("mcp")
    import anyio

    from graphmem.mcp_server import build_server

    server = build_server(mem)

    def call(tool: str, **args: object) -> str:
        async def run() -> object:
            return await server.call_tool(tool, args)

        result = anyio.run(run)
        blocks = result[0] if isinstance(result, tuple) else result
        blocks = getattr(blocks, "content", blocks)
        return "\n".join(b.text for b in blocks if hasattr(b, "text"))

    call("remember", subject="api", predicate="runs on", object="Laravel", valid_from="2024-01-01")
    clock.set("2026-06-01")
    call("remember", subject="api", predicate="built with", object="Go", valid_from="2026-06-01")
    now = call("facts_as_of", subject="api", predicate="powered by")
    assert "runs_on Go" in now
    assert "Laravel" not in now
    then = call("facts_as_of", subject="api", predicate="runs on", valid_at="2025-01-01")
    assert "runs_on Laravel" in then
    assert "Go" not in then
    timeline = call("history", subject="api", predicate="Built With")
    assert "Laravel" in timeline
    assert "Go" in timeline
    clock.advance(days=1)
    call("forget", subject="api", predicate="powered by")
    assert mem.facts(subject="api") == []


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


# -- the user's vocabulary wins -------------------------------------------------------------------


def test_a_shipped_alias_becomes_the_users_own_predicate(db_path, clock):
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        mem.add_fact("Alice", "works for", "Acme", valid_from="2020-01-01")  # stored as works_at
        clock.advance(days=1)
        p = mem.define_predicate("works for", cardinality="many")
        assert (p.name, p.cardinality) == ("works_for", "many")
        assert "works_for" not in mem.ontology.lookup("works_at").aliases
        # Facts already stored keep their predicate; new ones go to the user's predicate.
        assert [f.predicate for f in mem.facts(subject="Alice")] == ["works_at"]
        mem.add_fact("Alice", "works for", "Globex")
        r = mem.add_fact("Alice", "works for", "Initech")
        assert r.decision is D.ADD  # many-valued: no supersession
        assert sorted(f.object for f in mem.facts(subject="Alice", predicate="works for")) == [
            "Globex",
            "Initech",
        ]
        assert [f.object for f in mem.facts(subject="Alice", predicate="works_at")] == ["Acme"]
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:  # both definitions persisted
        assert mem.ontology.resolve("works for").name == "works_for"
        assert mem.ontology.resolve("works for").cardinality == "many"
        assert "works_for" not in mem.ontology.lookup("works_at").aliases
        assert mem.ontology.resolve("employed by").name == "works_at"


def test_aliases_given_move_from_the_predicate_that_had_them(mem, clock):
    p = mem.define_predicate("boss", aliases=["manager", "managed by"])
    assert p.aliases == ("managed_by", "manager")
    assert mem.ontology.lookup("reports_to").aliases == ()  # both moved away
    assert mem.ontology.resolve("manager").name == "boss"
    assert mem.ontology.resolve("reports to").name == "reports_to"
    (change,) = mem.changes(since="2025-01-01")
    assert change.action == "defined"
    assert change.predicate == p
    assert "took 'managed_by' from reports_to" in change.detail
    assert "took 'manager' from reports_to" in change.detail


def test_redefinition_is_recorded_in_changes(mem, clock):
    mem.add_fact("Ann", "likes", "tea")
    clock.advance(days=1)
    mem.define_predicate("employer", cardinality="one")
    clock.advance(days=1)
    mem.define_predicate("employer", aliases=["boss"], description="Who pays a person.")
    clock.advance(days=1)
    mem.define_predicate("spouse", cardinality="one", symmetric=True)
    got = [(c.action, c.fact is None, str(c)) for c in mem.changes(since="2026-01-01")]
    assert got == [
        ("learned", False, "2026-01-01 learned: Ann likes 'tea' [2026-01-01, open)"),
        ("defined", True, "2026-01-02 defined: employer [one]"),
        (
            "redefined",
            True,
            "2026-01-03 redefined: employer [one]; aliases boss; description '' -> "
            "'Who pays a person.'",
        ),
        ("defined", True, "2026-01-04 defined: spouse [one]"),
    ]
    # The window applies: only the last one from 2026-01-04 on.
    assert [c.action for c in mem.changes(since="2026-01-04")] == ["defined"]


def test_define_predicate_is_idempotent(mem, mem_store, clock):
    first = mem.define_predicate("employer", cardinality="one", aliases=["boss"])
    versions, last_write = mem.count_versions(), mem_store.max_system_time()
    clock.advance(days=1)
    assert mem.define_predicate("employer", cardinality="one", aliases=["boss"]) == first
    assert mem.define_predicate("employer") == first  # nothing given: nothing changes
    assert mem.define_predicate("boss") != first  # a name of its own now: a change
    clock.advance(days=1)
    for _ in range(3):
        mem.define_predicate("works_at", cardinality="one")  # already so: no record, no write
    assert [c.action for c in mem.changes(since="2026-01-01")] == ["defined", "defined"]
    assert mem.count_versions() == versions
    assert mem_store.max_system_time() > last_write  # only the one real change wrote


def test_an_unchanged_definition_does_not_write(db_path, clock):
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        mem.define_predicate("spouse", cardinality="one")
    with gm.open(db_path, engine=ENGINE, clock=clock, read_only=True) as mem:
        # A definition already in force needs no write access.
        assert mem.define_predicate("spouse", cardinality="one").name == "spouse"
        with pytest.raises(gm.StoreError, match="read-only"):
            mem.define_predicate("spouse", cardinality="many")


def test_redefining_changes_cardinality_before_any_fact(mem):
    mem.define_predicate("prefers", cardinality="many")
    mem.add_fact("Ann", "prefers", "tea")
    assert mem.add_fact("Ann", "prefers", "coffee").decision is D.ADD
    assert len(mem.facts(subject="Ann")) == 2


def test_a_cardinality_change_with_stored_facts_needs_force(mem, clock):
    mem.add_fact("Ann", "prefers", "tea")
    clock.advance(days=1)
    before = mem.predicates()
    with pytest.raises(gm.InvalidInput, match=r"1 stored fact version.*force=True.*--force"):
        mem.define_predicate("prefers", cardinality="many")
    assert mem.predicates() == before
    assert [c.action for c in mem.changes(since="2026-01-02")] == []
    p = mem.define_predicate("prefers", cardinality="many", force=True)
    assert p.cardinality == "many"
    (change,) = mem.changes(since="2026-01-02")
    assert (change.action, change.detail) == ("redefined", "prefers [many] (was one)")
    # Going forward: stored versions are untouched, the next write follows the new cardinality.
    assert mem.add_fact("Ann", "prefers", "coffee").decision is D.ADD
    assert sorted(f.object for f in mem.facts(subject="Ann")) == ["coffee", "tea"]


def test_a_many_to_one_change_applies_to_the_next_write(mem, clock):
    mem.add_fact("api", "uses", "Redis")
    mem.add_fact("api", "uses", "Postgres")
    clock.advance(days=1)
    mem.define_predicate("uses", cardinality="one", force=True)
    assert len(mem.facts(subject="api")) == 2  # stored versions are not rewritten
    clock.advance(days=1)
    r = mem.add_fact("api", "uses", "SQLite")
    assert r.decision is D.SUPERSEDE
    assert [f.object for f in mem.facts(subject="api")] == ["SQLite"]


def test_a_name_that_is_a_predicates_own_name_cannot_become_an_alias(mem):
    before = mem.predicates()
    with pytest.raises(gm.InvalidInput, match="is the name of predicate 'works_at'"):
        mem.define_predicate("boss", aliases=["works_at"])
    assert mem.predicates() == before


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"name": "boss", "cardinality": "two"}, "cardinality='two'"),
        ({"name": "!!"}, "no letters or digits"),
        ({"name": "boss", "aliases": ["??"]}, "no letters or digits"),
        ({"name": "boss", "symmetric": "yes"}, "symmetric='yes'"),
        ({"name": "boss", "force": 1}, "force=1"),
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


def test_cli_define_predicate_takes_a_shipped_alias_and_forces(db_path):
    runner = CliRunner()
    base = ["--engine", ENGINE, "--db", db_path]
    r = runner.invoke(cli, [*base, "define-predicate", "works for", "--many", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["name"] == "works_for"
    r = runner.invoke(cli, [*base, "define-predicate", "uses"])  # keeps 'many'
    assert r.exit_code == 0, r.output
    assert "uses [many]" in r.output
    assert runner.invoke(cli, [*base, "add", "Ann", "prefers", "tea"]).exit_code == 0
    r = runner.invoke(cli, [*base, "define-predicate", "prefers", "--many"])
    assert r.exit_code == 1
    assert "--force" in r.output
    r = runner.invoke(cli, [*base, "define-predicate", "prefers", "--many", "--force"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, [*base, "changes", "--since", "2000-01-01", "--json"])
    assert r.exit_code == 0, r.output
    actions = [c["action"] for c in json.loads(r.output)]
    assert actions.count("defined") == 1
    assert actions.count("redefined") == 1


# -- gm.open(ontology=...) ------------------------------------------------------------------------


def _write_ontology(path: Path, predicates: list[dict[str, object]]) -> str:
    path.write_text(json.dumps({"version": 1, "predicates": predicates}), encoding="utf-8")
    return str(path)


def test_open_with_no_ontology(clock):
    with backends.memory(clock=clock, ontology=None) as mem:
        assert mem.predicates() == []
        mem.add_fact("Ann", "works for", "Acme")
        assert [p.name for p in mem.predicates()] == ["works_for"]


def test_open_with_the_default_ontology(clock):
    with backends.memory(clock=clock, ontology="default") as mem:
        assert {p.name for p in mem.predicates()} == set(EXPECTED)


def test_open_with_an_ontology_file(tmp_path, clock):
    path = _write_ontology(
        tmp_path / "onto.json",
        [
            {"name": "Employer", "cardinality": "one", "aliases": ["works for", "boss"]},
            {"name": "award received", "cardinality": "many"},
        ],
    )
    with backends.memory(clock=clock, ontology=path) as mem:
        assert [(p.name, p.cardinality, p.aliases) for p in mem.predicates()] == [
            ("award_received", "many", ()),
            ("employer", "one", ("boss", "works_for")),
        ]
        mem.add_fact("Ann", "award received", "A")
        assert mem.add_fact("Ann", "award_received", "B").decision is D.ADD
        mem.add_fact("Ann", "works for", "Acme")
        assert mem.add_fact("Ann", "boss", "Globex").decision is D.SUPERSEDE


def test_an_existing_store_keeps_its_predicates_and_merges_a_file(db_path, tmp_path, clock):
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:  # seeded with the default
        mem.define_predicate("mentor_of", cardinality="many")
        mem.add_fact("Ann", "prefers", "tea")
    stored = None
    for choice in (None, "default"):  # neither changes a store that has predicates
        with gm.open(db_path, engine=ENGINE, clock=clock, ontology=choice) as mem:
            stored = stored or mem.predicates()
            assert mem.predicates() == stored
            assert mem.ontology.resolve("mentor of").cardinality == "many"
    clock.advance(days=1)
    path = _write_ontology(
        tmp_path / "mine.json",
        [
            {"name": "employer", "aliases": ["works for"]},  # takes a shipped alias
            {"name": "mentor_of", "description": "Who mentors whom."},  # fields not given: kept
        ],
    )
    with gm.open(db_path, engine=ENGINE, clock=clock, ontology=path) as mem:
        assert mem.ontology.resolve("works for").name == "employer"
        mentor = mem.ontology.lookup("mentor_of")
        assert (mentor.cardinality, mentor.description) == ("many", "Who mentors whom.")
        assert [c.action for c in mem.changes(since="2026-01-02")] == ["defined", "redefined"]
    clock.advance(days=1)
    with gm.open(db_path, engine=ENGINE, clock=clock, ontology=path) as mem:  # idempotent
        assert mem.changes(since="2026-01-03") == []
        assert mem.ontology.resolve("works for").name == "employer"
    # A file that changes the cardinality of a predicate with facts is refused, store unchanged.
    bad = _write_ontology(tmp_path / "bad.json", [{"name": "prefers", "cardinality": "many"}])
    with pytest.raises(gm.InvalidInput, match="force=True"):
        gm.open(db_path, engine=ENGINE, clock=clock, ontology=bad)
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:  # the failed open released it
        assert mem.ontology.lookup("prefers").cardinality == "one"


def test_a_read_only_open_applies_a_file_without_writing(db_path, tmp_path, clock):
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        mem.add_fact("Ann", "works for", "Acme")
    path = _write_ontology(tmp_path / "mine.json", [{"name": "works for", "cardinality": "many"}])
    with gm.open(db_path, engine=ENGINE, clock=clock, read_only=True, ontology=path) as mem:
        assert mem.ontology.resolve("works for").name == "works_for"
        assert [f.predicate for f in mem.facts(subject="Ann")] == ["works_at"]
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        assert mem.ontology.resolve("works for").name == "works_at"  # nothing was written


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (None, "no such file"),
        ("{not json", "not valid JSON"),
        ('{"predicates": []}', '"version": 1'),
        ('{"version": 1, "predicates": {}}', '"version": 1'),
        ('{"version": 1, "predicates": [{"cardinality": "one"}]}', r"predicates\[0\].*'name'"),
        ('{"version": 1, "predicates": [{"name": "x", "cardinality": "2"}]}', "cardinality"),
        ('{"version": 1, "predicates": [{"name": "x", "colour": "red"}]}', "colour"),
        ('{"version": 1, "predicates": [{"name": "!!"}]}', "no letters or digits"),
        ('{"version": 1, "predicates": [{"name": "x", "aliases": "y"}]}', "list of strings"),
        ('{"version": 1, "predicates": [{"name": "x"}, {"name": "X"}]}', "defines 'x' twice"),
        (
            '{"version": 1, "predicates": [{"name": "a", "aliases": ["c"]}, '
            '{"name": "b", "aliases": ["c"]}]}',
            "already names predicate 'a'",
        ),
    ],
)
def test_a_bad_ontology_file_is_refused_before_anything_is_created(tmp_path, content, match):
    path = tmp_path / "onto.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    db = tmp_path / "never.kuzu"
    with pytest.raises(gm.InvalidInput, match=match) as info:
        gm.open(db, engine=ENGINE, ontology=str(path))
    assert str(path) in str(info.value)
    assert not db.exists()


@pytest.mark.parametrize("value", ["", 42, b"default", ["default"]])
def test_a_bad_ontology_value_is_refused(value):
    with pytest.raises(gm.InvalidInput, match="ontology="):
        choose_ontology(value)


def test_the_cli_ontology_option(db_path, tmp_path):
    runner = CliRunner()
    r = runner.invoke(
        cli, ["--engine", ENGINE, "--db", db_path, "--ontology", "none", "predicates"]
    )
    assert r.exit_code == 1  # read-only command on a database that does not exist yet
    r = runner.invoke(
        cli, ["--engine", ENGINE, "--db", db_path, "--ontology", "none", "add", "a", "uses", "b"]
    )
    assert r.exit_code == 0, r.output
    r = runner.invoke(cli, ["--engine", ENGINE, "--db", db_path, "predicates", "--json"])
    assert [p["name"] for p in json.loads(r.output)] == ["uses"]
    path = _write_ontology(tmp_path / "mine.json", [{"name": "uses", "aliases": ["relies on"]}])
    r = runner.invoke(
        cli, ["--engine", ENGINE, "--db", db_path, "--ontology", path, "predicates", "--json"]
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)[0]["aliases"] == ["relies_on"]
    r = runner.invoke(cli, ["--db", db_path, "--ontology", str(tmp_path / "nope.json"), "facts"])
    assert r.exit_code == 1
    assert "nope.json" in r.output
    assert "'default', 'none'" in r.output
    r = runner.invoke(cli, ["--db", db_path, "--ontology", str(tmp_path), "facts"])
    assert r.exit_code == 1


def test_read_predicates_reads_the_shipped_file():
    path = resources.files("graphmem").joinpath("data/ontology.json")
    got = sorted(read_predicates(str(path)), key=lambda p: p.name)
    assert got == Ontology.default().predicates()
