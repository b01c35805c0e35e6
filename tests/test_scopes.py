"""Scopes (docs/concepts/scopes.md): siblings hidden, ancestors overridden, writes kept apart.

The tests that take ``mem`` (those on ``team`` name it too) run again on a FalkorDB server
(tests/test_falkordb_memory.py).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from old_schema import make_old_schema

import graphmem as gm
from graphmem.scopes import ancestors, check_scope, within
from graphmem.store import open_store
from graphmem.timeutil import ManualClock
from tests import backends


def objects(mem: gm.Memory, **kw: object) -> list[tuple[str, str]]:
    return sorted((f.object, f.scope) for f in mem.facts(**kw))


# -- the scope path -----------------------------------------------------------------------------


def test_a_scope_is_a_path_of_names() -> None:
    assert check_scope("acme/alice/agent-1") == "acme/alice/agent-1"
    assert check_scope("/acme/alice/") == "acme/alice"
    assert check_scope("") == check_scope("/") == ""
    assert ancestors("acme/alice") == ("", "acme", "acme/alice")
    assert within("acme/alice/run-1", "acme/alice")
    assert not within("acme/alicex", "acme/alice")


@pytest.mark.parametrize("bad", ["acme//alice", "a b", "-x", "x/" * 9, "é", 7])
def test_a_bad_scope_names_the_value_and_the_rule(bad: object) -> None:
    with pytest.raises(gm.InvalidInput, match="scope="):
        check_scope(bad)


def test_a_bad_scope_creates_nothing(db_path: str) -> None:
    with pytest.raises(gm.InvalidInput, match="scope="):
        gm.open(db_path, scope="a b")
    assert not os.path.exists(db_path)


# -- reads: rule 1 and rule 2 -------------------------------------------------------------------


@pytest.fixture
def team(mem: gm.Memory) -> gm.Memory:
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
    mem.add_fact("api", "runs_on", "Go", valid_from="2025-01-01", scope="acme")
    mem.add_fact("api", "runs_on", "Rust", valid_from="2025-06-01", scope="acme/alice")
    mem.add_fact("api", "runs_on", "Zig", valid_from="2025-06-01", scope="acme/bob")
    mem.add_fact("api", "uses", "Redis", scope="acme")
    mem.add_fact("api", "uses", "Kafka", scope="acme/alice/agent-1")
    return mem


def test_a_read_sees_its_scope_and_ancestors_never_a_sibling(
    mem: gm.Memory, team: gm.Memory
) -> None:
    assert objects(team, subject="api", scope="acme/alice") == [
        ("Redis", "acme"),
        ("Rust", "acme/alice"),
    ]
    assert objects(team, subject="api", scope="acme/bob") == [
        ("Redis", "acme"),
        ("Zig", "acme/bob"),
    ]
    assert objects(team, subject="api", scope="acme") == [("Go", "acme"), ("Redis", "acme")]
    assert objects(team, subject="api", scope="") == [("Laravel", "")]
    assert objects(team, subject="api", scope="other") == [("Laravel", "")]


def test_the_nearest_value_wins_only_where_it_overlaps(mem: gm.Memory, team: gm.Memory) -> None:
    assert objects(team, subject="api", scope="acme/alice", valid_at="2025-03-01") == [
        ("Go", "acme")
    ]
    assert objects(team, subject="api", scope="acme/alice", valid_at="2024-06-01") == [
        ("Laravel", "")
    ]


def test_a_memory_without_a_scope_reads_every_scope(mem: gm.Memory, team: gm.Memory) -> None:
    assert [o for o, _ in objects(team, subject="api")] == [
        "Go", "Kafka", "Laravel", "Redis", "Rust", "Zig",
    ]  # fmt: skip


def test_writes_supersede_only_their_own_scope(mem: gm.Memory, team: gm.Memory) -> None:
    result = team.add_fact("api", "runs_on", "Elixir", scope="acme/bob")
    assert [f.object for f in result.superseded] == ["Zig"]
    assert result.fact is not None
    assert result.fact.scope == "acme/bob"
    assert objects(team, subject="api", predicate="runs_on", scope="acme/alice") == [
        ("Rust", "acme/alice")
    ]
    root = team.add_fact("api", "runs_on", "PHP")
    assert [f.object for f in root.superseded] == ["Laravel"]
    assert objects(team, subject="api", predicate="runs_on", scope="acme") == [("Go", "acme")]


def test_get_fact_history_and_believed_keep_to_the_scope(mem: gm.Memory, team: gm.Memory) -> None:
    zig = team.facts(subject="api", scope="acme/bob", predicate="runs_on")[0]
    assert team.get_fact(zig.id, scope="acme/bob").object == "Zig"
    with pytest.raises(gm.NotFound):
        team.get_fact(zig.id, scope="acme/alice")
    assert [f.object for f in team.history("api", "runs_on", scope="acme/bob")] == ["Zig"]
    assert [f.object for f in team.believed(on="2026-01-01", subject="api", scope="acme")] == [
        "Go",
        "Redis",
    ]
    assert team.count_versions(scope="acme/alice") == 4  # Laravel, Go, Rust, Redis


def test_graph_views_keep_to_the_scope(mem: gm.Memory, team: gm.Memory) -> None:
    graph = team.to_networkx(scope="acme/bob")
    assert sorted(d["object"] for _, _, d in graph.edges(data=True)) == ["Redis", "Zig"]
    near = team.neighborhood("api", scope="acme/alice")
    assert sorted(d["object"] for _, _, d in near.edges(data=True)) == ["Redis", "Rust"]


def test_context_and_search_keep_to_the_scope(mem: gm.Memory, team: gm.Memory) -> None:
    alice = str(team.context("what does the api run on", scope="acme/alice"))
    bob = str(team.context("what does the api run on", scope="acme/bob"))
    assert "Rust" in alice
    assert "Zig" not in alice
    assert "Laravel" not in alice
    assert "Zig" in bob
    assert "Rust" not in bob
    found = {getattr(i, "text", str(i)) for i in team.search("api", scope="acme/bob")}
    assert any("Zig" in t for t in found)
    assert not any("Rust" in t for t in found)


def test_sessions_and_their_lines_keep_to_the_scope(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_session(
        "alice: the deploy target is Fly.io now", started_at="2025-12-01", scope="acme/alice"
    )
    mem.add_session("bob: we deploy to Heroku", started_at="2025-12-02", scope="acme/bob")
    clock.set("2026-01-02")
    assert [s.scope for s in mem.sessions(scope="acme/alice")] == ["acme/alice"]
    assert len(mem.sessions()) == 2
    alice = str(mem.context("where do we deploy", scope="acme/alice"))
    assert "Fly.io" in alice
    assert "Heroku" not in alice


def test_hot_topics_count_only_visible_sessions(mem: gm.Memory, clock: ManualClock) -> None:
    for day in ("2025-12-01", "2025-12-02", "2025-12-03"):
        mem.add_session("x", started_at=day, mentions={"billing": 1}, scope="acme/alice")
    mem.add_session("y", started_at="2025-12-04", mentions={"search": 1}, scope="acme/bob")
    clock.set("2025-12-10")
    names = {t.topic for t in mem.hot_topics(scope="acme/alice")}
    assert "billing" in names
    assert "search" not in names
    assert {t.topic for t in mem.hot_topics(scope="acme/bob")} == {"search"}
    assert {t.topic for t in mem.hot_topics()} >= {"billing", "search"}
    assert [t.topic for t in mem.triage(scope="acme/bob")] == ["search"]


# -- writes by id, pinned memories: rule 3, rule 4 and rule 5 -----------------------------------


def test_a_write_by_id_reaches_only_its_own_scope(mem: gm.Memory, team: gm.Memory) -> None:
    go = team.facts(subject="api", predicate="runs_on", scope="acme")[0]
    with pytest.raises(gm.ScopeError, match="belongs to scope 'acme'"):
        team.retract(fact_id=go.id, scope="acme/alice")
    with pytest.raises(gm.ScopeError):
        team.correct(go.id, "Java")  # the operator writes in the root
    fixed = team.correct(go.id, "Java", scope="acme")
    assert fixed.fact is not None
    assert fixed.fact.scope == "acme"
    assert objects(team, subject="api", predicate="runs_on", scope="acme") == [("Java", "acme")]


def test_a_pinned_memory_narrows_never_widens(db_path: str, clock: ManualClock) -> None:
    with gm.open(db_path, clock=clock, scope="acme/alice") as alice:
        assert alice.scope == "acme/alice"
        alice.add_fact("editor", "is", "vim")
        alice.add_fact("editor", "is", "helix", scope="acme/alice/agent-1")
        assert objects(alice, subject="editor") == [("vim", "acme/alice")]
        assert objects(alice, subject="editor", scope="acme/alice/agent-1") == [
            ("helix", "acme/alice/agent-1")
        ]
        for wider in ("acme", "", "acme/bob"):
            with pytest.raises(gm.ScopeError, match="outside this memory's scope"):
                alice.facts(subject="editor", scope=wider)
        with pytest.raises(gm.ScopeError, match="every scope"):
            alice.purge("editor", reason="test")
        with pytest.raises(gm.ScopeError, match="every scope"):
            alice.merge_entities("editor", "vim")
    with gm.open(db_path, clock=clock) as operator:
        assert objects(operator, subject="editor") == [
            ("helix", "acme/alice/agent-1"),
            ("vim", "acme/alice"),
        ]


def test_an_export_keeps_the_scopes(
    mem: gm.Memory, team: gm.Memory, tmp_path: os.PathLike[str]
) -> None:
    from graphmem.export import export_memory, import_memory

    path = os.path.join(os.fspath(tmp_path), "team.jsonl")
    export_memory(team, path)
    with backends.memory(clock=ManualClock("2027-01-01")) as copy:
        import_memory(copy, path)
        assert objects(copy, subject="api", scope="acme/alice") == objects(
            team, subject="api", scope="acme/alice"
        )


# -- the property: each scope is a memory of its own, read through the nearest rule -------------

SCOPES = ("", "a", "a/x", "a/y")
SUBJECTS = ("api", "db")
ONE, MANY = "runs_on", "uses"
write = st.tuples(
    st.sampled_from(SCOPES),
    st.sampled_from(SUBJECTS),
    st.sampled_from((ONE, MANY)),
    st.sampled_from(("p", "q", "r")),
    st.integers(0, 3),  # valid_from year offset
    st.booleans(),  # a retraction instead of an assertion
)


def _apply(mem: gm.Memory, w: tuple[str, str, str, str, int, bool], *, scoped: bool) -> bool:
    """Write ``w`` in its scope, or (``scoped`` false) unscoped on a subject of that scope's own.

    Returns whether the write found nothing to retract.
    """
    scope, subject, predicate, obj, year, retract = w
    if not scoped:  # the reference: one subject per scope, so each scope is a memory alone
        subject, scope = f"{subject} in {scope or 'root'}", None
    if not retract:
        mem.add_fact(subject, predicate, obj, valid_from=f"{2020 + year}-01-01", scope=scope)
        return False
    try:
        mem.retract(subject, predicate, obj, at=f"{2021 + year}-06-01", scope=scope)
    except gm.NotFound:
        return True
    return False


# 12 examples of up to 20 writes (about 5 s): the rules are per slot, and four scopes on two
# subjects already give each example several slots shared by three levels.
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(write, min_size=1, max_size=20), st.lists(write, max_size=8))
def test_each_scope_reads_as_its_own_memory_through_the_nearest_rule(
    writes: list[tuple[str, str, str, str, int, bool]],
    later: list[tuple[str, str, str, str, int, bool]],
) -> None:
    clock = ManualClock("2026-01-01")
    with backends.memory(clock=clock) as shared, backends.memory(clock=clock) as alone:
        for w in writes:
            clock.advance(seconds=1)
            assert _apply(shared, w, scoped=True) == _apply(alone, w, scoped=False)
        known = clock()
        times = ["2019-03-01", "2020-03-01", "2021-09-01", "2023-03-01"]

        def answer(scope: str, at: str) -> set[tuple[str, str, str]]:
            return {
                (f.subject, f.predicate, f.object)
                for f in shared.facts(scope=scope, valid_at=at, known_at=known)
            }

        before = {(s, t): answer(s, t) for s in SCOPES for t in times}
        own: dict[tuple[str, str], set[tuple[str, str, str]]] = {
            (s, t): set() for s in SCOPES for t in times
        }
        for t in times:
            for f in alone.facts(valid_at=t):
                subject, _, scope = f.subject.partition(" in ")
                own[("" if scope == "root" else scope, t)].add((subject, f.predicate, f.object))
        for scope in SCOPES:
            for at in times:
                chain = ancestors(scope)
                expected = {row for s in chain for row in own[(s, at)] if row[1] == MANY}
                for subject in SUBJECTS:
                    for nearest in reversed(chain):  # the nearest scope with a value wins
                        ones = {r for r in own[(nearest, at)] if r[:2] == (subject, ONE)}
                        if ones:
                            expected |= ones
                            break
                assert before[(scope, at)] == expected, (scope, at)
        for w in later:  # what was believed at `known` never changes (time rule 3)
            clock.advance(seconds=1)
            _apply(shared, w, scoped=True)
        assert {(s, t): answer(s, t) for s in SCOPES for t in times} == before


# -- the surfaces: the CLI's --scope, the MCP server's pin and its tools' scope argument --------


def test_the_cli_reads_and_writes_in_its_scope(db_path: str) -> None:
    import json

    from click.testing import CliRunner

    from graphmem.cli import cli

    def run(*args: str) -> str:
        result = CliRunner().invoke(cli, ["--db", db_path, *args])
        assert result.exit_code == (1 if "Error" in result.output else 0), result.output
        return result.output

    run("add", "api", "runs_on", "Laravel")
    run("--scope", "acme/alice", "add", "api", "runs_on", "Rust")
    run("--scope", "acme/bob", "add", "api", "runs_on", "Zig")
    rows = json.loads(run("--scope", "acme/alice", "facts", "--subject", "api", "--json"))
    assert [(r["object"], r["scope"]) for r in rows] == [("Rust", "acme/alice")]
    assert "Zig" in run("facts")
    assert "acme/bob" in run("facts")
    assert "not a scope name" in run("--scope", "a b", "facts")


def test_mcp_tools_narrow_the_servers_scope(db_path: str, clock: ManualClock) -> None:
    pytest.importorskip("mcp")
    from mcp_tools import call_tool

    from graphmem.mcp_server import build_server

    with gm.open(db_path, clock=clock, scope="acme") as mem:
        server = build_server(mem)
        call_tool(server, "remember", subject="api", predicate="runs_on", object="Go")
        call_tool(
            server, "remember", subject="api", predicate="runs_on", object="Rust",
            scope="acme/alice",
        )  # fmt: skip
        assert "Go" in call_tool(server, "facts_as_of", subject="api")
        alice = call_tool(server, "facts_as_of", subject="api", scope="acme/alice")
        assert "Rust" in alice
        assert "Go" not in alice
        from graphmem.mcp_server import _sdk

        with pytest.raises(_sdk()[1], match="outside this memory's scope"):
            call_tool(server, "facts_as_of", subject="api", scope="other")
    with gm.open(db_path, clock=clock) as operator:
        assert objects(operator, subject="api") == [("Go", "acme"), ("Rust", "acme/alice")]


def test_a_schema_3_database_is_upgraded_with_its_rows_in_the_root(
    db_path: str, clock: ManualClock, engine: str
) -> None:
    store = open_store(db_path, engine=engine)
    with gm.open(store=store, clock=clock) as mem:
        mem.add_fact("api", "runs_on", "Go")
        mem.add_session("we run the api on Go", started_at="2025-12-01")
        make_old_schema(store, "3")  # no scope columns
    clock.set("2026-02-01")
    store = open_store(db_path, engine=engine)
    with gm.open(store=store, clock=clock) as mem:
        assert store.get_meta("schema_version") == "4"
        assert objects(mem, subject="api") == [("Go", "")]
        assert [s.scope for s in mem.sessions()] == [""]
        mem.add_fact("api", "runs_on", "Rust", scope="acme")
        assert objects(mem, subject="api", scope="acme") == [("Rust", "acme")]
        assert objects(mem, subject="api", scope="") == [("Go", "")]


def test_a_sessions_facts_of_another_scope_stay_hidden(mem: gm.Memory, clock: ManualClock) -> None:
    line = "team: we moved the api to Go"
    mem.add_session(line, started_at="2025-12-01", session_id="s1", scope="acme")
    # Bob files the session's statement as his own version, ended since: his view only.
    mem.add_fact("api", "runs_on", "Go", source="s1", statement=line, valid_from="2025-12-01",
                 valid_to="2025-12-20", scope="acme/bob")  # fmt: skip
    clock.set("2026-01-02")
    bob = str(mem.context("what does the api run on", scope="acme/bob"))
    alice = str(mem.context("what does the api run on", scope="acme/alice"))
    # the line also backs the scope's own reading ("api written_in Go"): the mark names Bob's
    assert f"{line} (runs_on Go no longer true since 20 Dec 2025)" in bob
    assert f"{line}\n" in alice + "\n"
    assert "no longer" not in alice


def test_why_names_the_sessions_with_their_scope(mem: gm.Memory) -> None:
    """``why()`` returns each asserting session as stored, its scope included (every backend)."""
    mem.add_session("The API runs on Go.", started_at="2026-01-01", scope="acme/alice")
    fact = mem.facts(subject="API", scope="acme/alice")[0]
    sessions = mem.why(fact.id, scope="acme/alice").sessions
    assert [s.scope for s in sessions] == ["acme/alice"]
    assert sessions[0].text == "The API runs on Go."
