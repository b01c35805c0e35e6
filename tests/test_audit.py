"""The audit trail: ``why``, ``changes``, ``purge`` and their CLI verbs."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

import graphmem as gm
from graphmem.audit import Change, Explanation, PurgeSummary, classify_close
from graphmem.cli import cli
from graphmem.similarity import text_similarity

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")

D = gm.Decision


@pytest.fixture
def three_supersessions(mem, clock):
    """api runs_on Laravel -> Go -> Rust -> Elixir, each learned in its own session."""
    ids = []
    for i, (obj, start) in enumerate(
        [
            ("Laravel", "2023-01-01"),
            ("Go", "2024-01-01"),
            ("Rust", "2025-01-01"),
            ("Elixir", "2026-01-01"),
        ]
    ):
        clock.set(f"2026-0{i + 1}-15")
        r = mem.add_fact("api", "runs_on", obj, valid_from=start, source=f"s-{i}")
        ids.append(r.fact.id)
    return ids


def test_why_chains_after_three_supersessions(mem, three_supersessions):
    mem.add_session(
        "We moved the API from Laravel to Go.",
        started_at="2026-02-15",
        session_id="s-1",
        title="migration retro",
    )
    first, *_, last = three_supersessions
    for fid in (first, last):
        e = mem.why(fid)
        assert isinstance(e, Explanation)
        assert e.fact.id == fid
        # Oldest to newest in system time: each original, then its shortened copy next to
        # the version that replaced it.
        assert [(f.object, f.valid_to is None) for f in e.chain] == [
            ("Laravel", True),
            ("Laravel", False),
            ("Go", True),
            ("Go", False),
            ("Rust", True),
            ("Rust", False),
            ("Elixir", True),
        ]
        assert [f.recorded_at for f in e.chain] == sorted(f.recorded_at for f in e.chain)
        closed = [f for f in e.chain if f.expired_at is not None]
        assert len(closed) == 3
        assert all(f.superseded_by and f.reason for f in closed)
        assert closed[0].reason.startswith(
            "superseded by 'Go' from 2024-01-01 (runs_on is "
            "single-valued), learned 2026-02-15 from session s-1"
        )
        assert e.sources == ("s-0", "s-1", "s-2", "s-3")
        # Sessions that exist as nodes come back whole; the others are named in sources.
        assert [(s.id, s.title) for s in e.sessions] == [("s-1", "migration retro")]
    text = mem.why(last).describe()
    assert "superseded by 'Rust'" in text
    assert "s-1 (2026-02-15 'migration retro')" in text
    assert "s-0 (not recorded)" in text


def test_why_of_a_multi_valued_fact_stays_on_its_object(mem, clock):
    mem.add_fact("api", "uses", "Redis")
    r = mem.add_fact("api", "uses", "Postgres")
    clock.advance(days=1)
    mem.retract("api", "uses", "Postgres")
    e = mem.why(r.fact.id)
    assert [(f.object, f.valid_to) for f in e.chain] == [("Postgres", None), ("Postgres", clock())]
    assert e.chain[0].reason == "ended at 2026-01-02: retracted"


def test_why_follows_note_supersessions(mem, clock):
    a = mem.remember(
        "the weekly demo happens after lunch",
        subject="api",
        similarity=text_similarity,
        source="s-1",
    )
    clock.advance(days=1)
    b = mem.remember(
        "the weekly demo happened after lunch",
        subject="api",
        similarity=text_similarity,
        source="s-2",
    )
    clock.advance(days=1)
    c = mem.remember(
        "the weekly demo no longer happens after lunch", subject="api", similarity=text_similarity
    )
    assert (b.decision, c.decision) == (D.SUPERSEDE, D.INVALIDATE)
    e = mem.why(a.fact.id)
    texts = [f.statement for f in e.chain]
    assert texts[0] == "the weekly demo happens after lunch"
    assert "the weekly demo happened after lunch" in texts
    assert e.chain[0].superseded_by == b.fact.id
    assert mem.why(b.fact.id).chain == e.chain
    unrelated = mem.remember("Lunch is at noon", subject="api", similarity=text_similarity)
    assert mem.why(unrelated.fact.id).chain == (unrelated.fact,)


def test_why_unknown_id(mem):
    with pytest.raises(gm.NotFound, match="no fact version with id 'nope'"):
        mem.why("nope")
    with pytest.raises(gm.InvalidInput):
        mem.why("")


def test_changes_lists_each_kind_of_change_in_system_time(mem, clock):
    clock.set("2026-01-01")
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
    mem.add_fact("api", "uses", "Redis", valid_from="2024-01-01")
    clock.set("2026-02-01")
    mem.add_fact("api", "runs_on", "Go", valid_from="2026-01-15", source="s-9")
    clock.set("2026-03-01")
    mem.add_fact("api", "uses", "Redis", valid_from="2023-01-01")  # earlier start: correction
    clock.set("2026-04-01")
    mem.retract("api", "uses", "Redis", reason="moved to Valkey")
    mem.add_fact("api", "runs_on", "Go", valid_from="2026-01-15")  # a noop: not a change

    every = mem.changes(since="2026-01-01")
    assert all(isinstance(c, Change) for c in every)
    assert [(c.at.month, c.action, c.fact.object) for c in every] == [
        (1, "learned", "Laravel"),
        (1, "learned", "Redis"),
        (2, "learned", "Go"),
        (2, "superseded", "Laravel"),
        (3, "corrected", "Redis"),
        (4, "retracted", "Redis"),
    ]
    superseded = every[3]
    assert superseded.replaced_by is not None
    assert superseded.replaced_by.object == "Laravel"
    assert "superseded by 'Go'" in superseded.reason
    assert "session s-9" in superseded.reason
    assert "moved to Valkey" in every[5].reason
    window = mem.changes(since="2026-02-01", until="2026-03-01")
    assert [c.action for c in window] == ["learned", "superseded"]
    assert mem.changes(since="2027-01-01") == []
    assert "superseded: api runs_on 'Laravel'" in str(superseded)
    with pytest.raises(gm.InvalidInput, match="not after since"):
        mem.changes(since="2026-03-01", until="2026-02-01")
    with pytest.raises(gm.InvalidInput, match="since"):
        mem.changes(since="a while ago")


def test_changes_of_notes(mem, clock):
    mem.remember("the weekly demo happens after lunch", subject="api", similarity=text_similarity)
    clock.advance(days=1)
    mem.remember("the weekly demo happened after lunch", subject="api", similarity=text_similarity)
    clock.advance(days=1)
    mem.remember(
        "the weekly demo no longer happens after lunch", subject="api", similarity=text_similarity
    )
    assert [c.action for c in mem.changes(since="2026-01-01")] == [
        "learned",
        "learned",
        "superseded",
        "retracted",
    ]


@pytest.mark.parametrize(
    ("reason", "by", "action"),
    [
        ("superseded by 'Go' from 2026-01-01 (runs_on is single-valued)", "f1", "superseded"),
        ("replaced by 'x' through source_ref 'r', learned 2026-01-01", "f1", "superseded"),
        ("superseded by note 'we deployed' (similarity 0.96)", "f1", "superseded"),
        ("valid interval corrected from [2020, open) to [2019, open)", "f1", "corrected"),
        ("ended at 2026-01-01: reason: moved", "f1", "retracted"),
        ("retracted from 2026-01-01: retracted", None, "retracted"),
        ("something else", "f1", "superseded"),
        (None, None, "retracted"),
    ],
)
def test_classify_close(reason, by, action):
    assert classify_close(reason, by) == action


# -- purge --------------------------------------------------------------------------------------


def _everything(mem, store) -> str:
    """Every answer a user can get, as one string."""
    parts = [mem.facts(), mem.facts(valid_at="2020-01-01"), mem.changes(since="0001-01-01")]
    for s in ("bob", "acme", "self"):
        parts.append(mem.history(s, include_expired=True))
    parts.append(mem.sessions())
    parts.append([e for e in (store.get_entity(k) for k in ("bob", "acme"))])
    text = json.dumps(
        [
            [p.model_dump(mode="json") if hasattr(p, "model_dump") else p for p in part]
            for part in parts
        ],
        default=str,
    )
    from graphmem.export import to_records

    text += json.dumps(list(to_records(mem)), default=str)
    return text.casefold()


def test_purge_leaves_no_trace_of_the_content(mem, mem_store, clock):
    mem.define_entity("Alice Liddell", kind="person", aliases=["Ally"])
    mem.add_fact("Alice Liddell", "works_at", "Acme", valid_from="2020-01-01", source="s-1")
    mem.add_fact("Alice Liddell", "email", "alice.liddell@example.com")
    mem.add_fact("Bob", "knows", "ally")
    mem.add_fact("Bob", "works_at", "Acme")
    mem.remember("Alice Liddell is allergic to hazelnuts", subject="Alice Liddell")
    mem.add_session(
        "Met Alice Liddell and Bob at Acme.",
        started_at="2026-01-01",
        session_id="s-1",
        mentions={"Alice Liddell": 1, "Bob": 1},
    )
    clock.advance(days=1)
    mem.add_fact("Alice Liddell", "works_at", "Globex")
    before = mem.count_versions()
    assert "liddell" in _everything(mem, mem_store)
    gone = [f.id for f in mem.history("Alice Liddell", include_expired=True)]

    clock.advance(days=1)
    summary = mem.purge("Ally", reason="erasure request #12")
    assert isinstance(summary, PurgeSummary)
    assert summary.versions == before - 1  # all but Bob works_at Acme (Bob knows her: gone)
    assert summary.mentions == 1
    assert summary.sessions_redacted == 1
    assert mem.count_versions() == 1
    text = _everything(mem, mem_store)
    for needle in ("liddell", "ally", "hazelnut", "alice.liddell@example.com", "globex"):
        assert needle not in text, needle
    assert "[purged]" in text
    assert "erasure request #12" in text
    assert [f.object for f in mem.facts(subject="bob")] == ["Acme"]  # Bob stays
    for fid in gone:
        with pytest.raises(gm.NotFound):
            mem.why(fid)
    with pytest.raises(gm.NotFound):
        mem.purge("Alice Liddell", reason="again")
    # The name is free again and does not resolve through the old alias.
    mem.add_fact("Ally", "likes", "tea")
    assert mem.facts(subject="alice liddell") == []
    (record,) = [c for c in mem.changes(since="2026-01-02") if c.action == "purged"]
    assert record.fact is None
    assert record.reason == "erasure request #12"
    assert summary.subject_sha256[:16] in record.detail
    assert str(summary.versions) in record.detail


def test_purge_persists_and_is_audited(db_path, clock):
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        mem.add_fact("Carol", "lives_in", "Oslo")
        clock.advance(days=1)
        mem.purge("carol", reason="user asked")
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        assert mem.facts() == []
        assert mem.count_versions() == 0
        (record,) = mem.changes(since="2026-01-01")
        assert record.action == "purged"
        assert "1 version," in record.detail
        assert "oslo" not in record.detail.casefold()


def test_purge_validates(mem):
    mem.add_fact("Carol", "lives_in", "Oslo")
    with pytest.raises(gm.InvalidInput, match="reason"):
        mem.purge("Carol", reason=" ")
    with pytest.raises(gm.NotFound, match="no entity named 'Dave'"):
        mem.purge("Dave", reason="x")
    assert mem.count_versions() == 1


# -- CLI ----------------------------------------------------------------------------------------


def test_cli_remember_why_changes_purge(db_path):
    runner = CliRunner()

    def run(*args):
        result = runner.invoke(
            cli, ["--engine", ENGINE, "--db", db_path, *args], catch_exceptions=False
        )
        return result

    r = run("remember", "the weekly demo happens after lunch", "--subject", "api", "--json")
    assert r.exit_code == 0, r.output
    fid = json.loads(r.output)["fact"]["id"]
    r = run("remember", "the weekly demo happened after lunch", "--subject", "api")
    assert r.exit_code == 0
    assert r.output.startswith("supersede")
    r = run("why", fid)
    assert r.exit_code == 0
    assert "superseded by note" in r.output
    r = run("why", fid, "--json")
    assert len(json.loads(r.output)["chain"]) == 3  # with the shortened copy (wall clock)
    r = run("changes", "--since", "2000-01-01", "--json")
    assert [c["action"] for c in json.loads(r.output)] == ["learned", "learned", "superseded"]
    r = run("changes", "--since", "2000-01-01")
    assert "superseded: api note" in r.output
    r = run("why", "nope")
    assert r.exit_code == 1
    assert "NotFound" in r.output
    assert "Traceback" not in r.output
    r = run("purge", "api", "--reason", "test", "--yes")
    assert r.exit_code == 0
    assert "purged 3 version(s)" in r.output
    r = run("purge", "api", "--reason", "test", "--yes")
    assert r.exit_code == 1
    r = run("changes", "--since", "2000-01-01")
    assert "purged" in r.output
    assert "docker" not in r.output.casefold()
    r = run("remember", "  ")
    assert r.exit_code == 1
    assert "InvalidInput" in r.output


def test_cli_predicates(db_path):
    runner = CliRunner()
    r = runner.invoke(
        cli,
        [
            "--engine",
            ENGINE,
            "--db",
            db_path,
            "define-predicate",
            "Mentor Of",
            "--many",
            "--alias",
            "mentors",
            "--alias",
            "coaches",
        ],
    )
    assert r.exit_code == 0
    assert "defined mentor_of [many]" in r.output
    r = runner.invoke(cli, ["--engine", ENGINE, "--db", db_path, "predicates"])
    assert "mentor_of [many]  (aliases: coaches, mentors)" in r.output
    assert "works_at [one]" in r.output
    r = runner.invoke(cli, ["--engine", ENGINE, "--db", db_path, "predicates", "--json"])
    assert any(p["name"] == "mentor_of" for p in json.loads(r.output))
    r = runner.invoke(
        cli,
        ["--engine", ENGINE, "--db", db_path, "define-predicate", "boss", "--alias", "works_at"],
    )
    assert r.exit_code == 1
    assert "is the name of predicate 'works_at'" in r.output


def test_purge_of_an_entity_with_a_self_loop_removes_every_edge(mem):
    # Found by the FalkorDB read-side property: Kuzu's DETACH DELETE left an edge behind.
    mem.add_fact("alice", "knows", "alice")
    mem.add_fact("bob", "knows", "alice")
    mem.add_fact("bob", "works_at", "acme")
    summary = mem.purge("alice", reason="erasure request")
    assert summary.versions == 2
    assert mem.count_versions() == 1
    assert [f.object for f in mem.history("bob")] == ["acme"]


def test_purge_erases_every_string_that_names_the_subject(mem: gm.Memory, clock) -> None:
    # Purge left the subject's own session text, title, lines, topics and other facts'
    # statements, and context() served them (docs/concepts/time.md#rule-1).
    from graphmem.export import to_records

    clock.set("2026-03-01")
    mem.add_session(
        "Alice is allergic to peanuts. The API runs on Go.\nBob: I saw Alice at the Peanut Gala.",
        started_at="2026-03-01",
        title="Alice health notes",
        session_id="s1",
    )
    mem.add_fact("Alice", "diagnosis", "peanut allergy")
    mem.add_fact("Bob", "attended", "Gala", statement="Bob took Alice to the Gala.")
    clock.set("2026-03-05")
    mem.purge("Alice", reason="erasure request")
    [session] = mem.sessions()
    assert session.title == "[purged]"
    assert session.text == "[purged] The API runs on Go.\nBob: [purged]"
    assert "Peanut Gala" not in session.mentions
    # the vocabulary stays (a relation the reader named, "allergic_to", names nobody)
    records = [r for r in to_records(mem) if r.get("type") != "predicate"]
    dumped = json.dumps(records, ensure_ascii=False).casefold()
    for word in ("alice", "peanut", "allergic"):
        assert word not in dumped, word
    for query in ("peanut allergy", "who has an allergy?", "Peanut Gala"):
        text = str(mem.context(query)).casefold()
        assert "peanut" not in text.replace(query.casefold(), "")
        assert "allergic" not in text
    [gala] = mem.facts(subject="Bob")
    assert gala.statement == "[purged]"
