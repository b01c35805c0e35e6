"""Episodic recall: session lines in search() and context().

See docs/concepts/recall.md#rule-6.
"""

from __future__ import annotations

import importlib
import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.context import CHARS_PER_TOKEN, estimate_tokens
from graphmem.episodic import Context, SearchItem
from graphmem.store import open_store
from graphmem.store.base import Store
from graphmem.store.textlines import MAX_LINE, split_lines, terms
from graphmem.timeutil import ManualClock
from tests import backends

CHAT_1 = """Caroline: I went to a LGBTQ support group yesterday and it was so powerful.
Melanie: Wow, that's cool, Caroline! What happened that was so awesome?
Caroline: The transgender stories were so inspiring! I was so happy and thankful.
Melanie: I painted a lake sunrise last year, it's special to me."""

CHAT_2 = """Melanie: We took the kids camping in the mountains last weekend.
Caroline: That sounds lovely. I am researching adoption agencies now.
Melanie: Adoption is a big step, Caroline!"""


def _chats(mem: gm.Memory, clock: ManualClock, *, extract: bool = False) -> None:
    """Two dialogues; ``extract=False``: the text pipeline's facts stay out of these tests."""
    clock.set("2023-05-08T13:56:00Z")
    mem.add_session(CHAT_1, started_at="2023-05-08T13:56:00Z", session_id="conv-1", extract=extract)
    clock.set("2023-06-20")
    mem.add_session(CHAT_2, started_at="2023-06-20", session_id="conv-2", extract=extract)


def _api_sessions(mem: gm.Memory, clock: ManualClock) -> None:
    """A value said in one session and replaced in a later one, written as facts directly."""
    clock.set("2026-03-02")
    mem.add_session("The API runs on Laravel.", started_at="2026-03-02", session_id="s-1")
    mem.add_fact(
        "api",
        "runs_on",
        "Laravel",
        valid_from="2026-03-02",
        source="s-1",
        statement="The API runs on Laravel.",
    )
    clock.set("2026-06-10")
    mem.add_session("We migrated the API to Go.", started_at="2026-06-10", session_id="s-2")
    mem.add_fact(
        "api",
        "runs_on",
        "Go",
        valid_from="2026-06-10",
        source="s-2",
        statement="We migrated the API to Go.",
    )


def test_split_lines_speakers_and_long_lines() -> None:
    text = "Bob: hi there\n\n   \nno speaker here\nhttp://x.y: not a speaker?\n" + (
        "Ann: " + "A sentence that goes on. " * 40
    )
    rows = split_lines(text)
    assert rows[:2] == [("Bob", "hi there"), (None, "no speaker here")]
    assert rows[2] == (None, "http://x.y: not a speaker?")
    long = [r for r in rows if r[0] == "Ann"]
    assert len(long) == 2
    assert all(len(t) <= MAX_LINE for _, t in long)
    assert " ".join(t for _, t in long) == " ".join(("A sentence that goes on. " * 40).split())
    assert split_lines(None) == []


def test_lines_are_shown_with_their_session_date(mem: gm.Memory, clock: ManualClock) -> None:
    _chats(mem, clock, extract=True)  # with the facts the text pipeline reads in them
    ctx = mem.context("When did Caroline go to the support group?")
    assert isinstance(ctx, Context)
    assert isinstance(ctx, str)
    assert str(ctx) == ctx.text
    assert type(ctx.text) is str
    assert (
        "- [8 May 2023] Caroline: I went to a LGBTQ support group yesterday and it was so "
        "powerful." in ctx
    )
    first = next(i for i in ctx.items if i.kind == "line")
    assert isinstance(first, SearchItem)
    assert (first.kind, first.id, first.session) == ("line", "conv-1#1", "conv-1")
    assert first.date == gm.to_utc("2023-05-08T13:56:00Z")
    assert first.score > 0
    assert all(item.id in {i.id for i in ctx.items} for item in ctx.items)
    items = mem.search("what did Melanie paint?", kinds=("line",))
    assert items[0].id == "conv-1#4"
    assert items[0].text == "Melanie: I painted a lake sunrise last year, it's special to me."


def test_neighbouring_lines_merge_into_one_passage(mem: gm.Memory, clock: ManualClock) -> None:
    _chats(mem, clock)
    out = mem.context("Caroline support group transgender stories")
    block = out.splitlines()
    i = block.index(
        "- [8 May 2023] Caroline: I went to a LGBTQ support group yesterday and it was so powerful."
    )
    # The next line of the same session follows without a date, indented.
    assert block[i + 1].startswith("  Melanie: Wow, that's cool")
    assert block[i + 2].startswith("  Caroline: The transgender stories")
    assert out.count("[8 May 2023]") == 1


def test_duplicate_lines_are_shown_once(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_session("Ops: the backup job failed again", started_at="2025-01-01", session_id="a")
    mem.add_session("Ops: the backup job failed again", started_at="2025-01-02", session_id="b")
    out = mem.context("backup job failed")
    assert out.count("the backup job failed again") == 1
    assert "again (said 2×, 1 Jan 2025–2 Jan 2025)" in out  # echo folding
    assert len([i for i in mem.search("backup job", kinds=("line",))]) == 1


def test_readding_a_session_replaces_its_lines(
    mem: gm.Memory, mem_store: Store, clock: ManualClock
) -> None:
    mem.add_session("We talked about kayaks.", started_at="2025-01-01", session_id="x")
    assert mem.search("kayaks", kinds=("line",))[0].id == "x#1"
    mem.add_session("We talked about bicycles.", started_at="2025-01-01", session_id="x")
    assert mem.search("kayaks", kinds=("line",)) == []
    assert [i.id for i in mem.search("bicycles", kinds=("line",))] == ["x#1"]
    assert mem_store.line_counts() == {"x": 1}


def test_bulk_sessions_write_lines(mem: gm.Memory, mem_store: Store) -> None:
    from graphmem.sessions import add_sessions

    mem.add_session("old words about zebras", started_at="2025-01-01", session_id="b0")
    rows = [
        {"session_id": f"b{i}", "started_at": "2025-02-01", "text": f"topic{i} alpha\nbeta {i}"}
        for i in range(80)
    ]
    add_sessions(mem, rows, extract=False)
    counts = mem_store.line_counts()
    assert len(counts) == 80
    assert set(counts.values()) == {2}
    assert mem.search("zebras", kinds=("line",)) == []
    assert mem.search("topic7", kinds=("line",))[0].id == "b7#1"


def test_superseded_line_is_marked_never_current(mem: gm.Memory, clock: ManualClock) -> None:
    _api_sessions(mem, clock)
    out = mem.context("What does the API run on?")
    assert "- [2 Mar 2026] The API runs on Laravel. (superseded 10 Jun 2026: runs_on Go)" in out
    assert "- [10 Jun 2026] We migrated the API to Go." in out
    for line in out.splitlines():
        if "Laravel" in line and line.startswith("- [2 Mar 2026]"):
            assert "superseded" in line
    [stale] = [i for i in out.items if i.id == "s-1#1"]
    assert stale.superseded == "superseded 10 Jun 2026: runs_on Go"
    # Before the change was recorded, the same line is what we believed: not marked.
    before = mem.context("What does the API run on?", known_at="2026-04-01")
    assert "- [2 Mar 2026] The API runs on Laravel.\n" in before + "\n"
    assert "Go" not in before
    # Asked about a world time before the change, it was still true.
    then = mem.context("What does the API run on?", valid_at="2026-05-01")
    assert "The API runs on Laravel. (superseded" not in then


def test_ended_line_without_successor(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-01-10")
    mem.add_session("Dana: I live in Lisbon.", started_at="2026-01-10", session_id="d1")
    mem.add_fact(
        "Dana",
        "lives_in",
        "Lisbon",
        valid_from="2026-01-10",
        source="d1",
        statement="I live in Lisbon.",
    )
    clock.set("2026-02-01")
    mem.retract("Dana", "lives_in", at="2026-01-20")
    out = mem.context("where does Dana live?")
    assert "- [10 Jan 2026] Dana: I live in Lisbon. (no longer true since 20 Jan 2026)" in out


def test_known_at_uses_only_sessions_recorded_by_then(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-05-01")
    # Recorded on 1 May, about a meeting on 1 March: invisible to a known_at before 1 May.
    mem.add_session("Zed: the quarterly budget was approved.", started_at="2026-03-01")
    assert "quarterly budget" in mem.context("quarterly budget")
    assert "Zed:" not in mem.context("quarterly budget", known_at="2026-04-01")
    assert mem.search("quarterly budget", known_at="2026-04-01") == []
    assert mem.search("quarterly budget", known_at="2026-05-01")[0].kind == "line"


def test_we_anchors_the_owner_and_predicate_words_rank(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-01-01")
    mem.add_fact("self", "deploys_with", "Kubernetes", valid_from="2025-01-01")
    mem.add_fact("self", "uses", "Redis", valid_from="2025-01-01")
    mem.define_predicate("embeddings_provider", cardinality="one")
    mem.add_fact("self", "embeddings_provider", "OpenAI", valid_from="2025-01-01")
    clock.set("2026-02-01")
    mem.add_fact("self", "embeddings_provider", "Cohere", valid_from="2026-02-01")
    deploy = mem.context("how do we deploy?")
    assert deploy.splitlines()[1] == "- self deploys_with Kubernetes (since 2025-01-01)"
    emb = mem.context("which embeddings provider do we use?")
    assert emb.splitlines()[1] == "- self embeddings_provider Cohere (since 2026-02-01; was OpenAI)"
    assert "OpenAI (since" not in emb
    assert mem.search("what do our services use?")[0].kind == "fact"
    assert "self uses Redis" in mem.context("what do our services use?")


def test_aliases_expand_the_line_query(mem: gm.Memory, clock: ManualClock) -> None:
    mem.define_entity("Alice", kind="person", aliases=["Ali"])
    mem.add_session("Alice: I started learning the cello.", started_at="2025-01-01")
    assert "Alice: I started learning the cello." in mem.context("what is Ali learning?")


def test_purge_removes_its_lines_from_the_index(
    mem: gm.Memory, mem_store: Store, clock: ManualClock
) -> None:
    mem.add_fact("Qwzx Person", "works_at", "Acme")
    mem.add_session(
        "Qwzx Person said the deadline moved.",
        started_at="2025-01-01",
        session_id="p",
        extract=False,  # a note of "self" naming Qwzx is not the purge's (audit.purge docs)
    )
    mem.add_session("Nothing personal here, deadline talk.", started_at="2025-01-02")
    assert mem.search("qwzx", kinds=("line",))  # warm in-memory index
    mem.purge("Qwzx Person", reason="erasure request")
    assert mem.search("qwzx", kinds=("line",)) == []
    assert "Qwzx" not in mem.context("deadline moved")
    texts = [r[0] for r in mem_store.run("MATCH (l:SessionLine) RETURN l.text + ' ' + l.terms")]
    assert texts
    assert not any("qwzx" in t.casefold() for t in texts)
    # The sentence naming the subject goes whole (docs/concepts/time.md#rule-1), not only the name.
    assert "said the deadline moved" not in mem.context("deadline moved")
    assert [s.text for s in mem.sessions() if s.id == "p"] == ["[purged]"]


def test_purge_on_disk_leaves_no_line_text(db_path: str, engine: str) -> None:
    clock = ManualClock("2026-01-01")
    with gm.open(db_path, clock=clock, engine=engine) as mem:
        mem.add_fact("Zorblax Quine", "lives_in", "Paris")
        mem.add_session("Zorblax Quine moved to Paris.", started_at="2025-01-01")
        mem.context("where did Zorblax move?")
        mem.purge("Zorblax Quine", reason="erasure")
    with gm.open(db_path, clock=clock, engine=engine) as mem:
        assert mem.search("zorblax") == []
        # The sentence naming the subject went whole, and Paris, which only it named.
        assert "No facts or session lines" in str(mem.context("who moved to Paris?"))
        assert [s.text for s in mem.sessions()] == ["[purged]"]


FTS_SYNTAX = [
    '"quoted phrase"',
    "a AND b OR NOT c",
    "term*",
    "*",
    "\\",
    "back\\slash \\' \\\"",
    "'single' \"double",
    "(unbalanced",
    "field:value ~fuzzy^2 -minus +plus",
    "}{][%$#@!",
    "naïve café 日本",
    "'); DROP TABLE SessionLine; --",
]


@pytest.mark.parametrize("query", FTS_SYNTAX)
def test_query_syntax_never_raises(
    mem: gm.Memory, mem_store: Store, clock: ManualClock, query: str
) -> None:
    _chats(mem, clock)
    mem.add_fact("api", "runs_on", "Go")
    ctx = mem.context(query)
    assert isinstance(ctx, str)
    assert isinstance(mem.search(query), list)
    store = mem_store
    words = terms(query)
    assert isinstance(store.search_lines(words, use_index=False), list)
    if store.ensure_line_index():
        assert isinstance(store.search_lines(words, use_index=True), list)


def test_full_text_index_and_in_memory_index_agree(
    mem: gm.Memory, mem_store: Store, clock: ManualClock
) -> None:
    _chats(mem, clock)
    for i in range(30):
        mem.add_session(
            f"Sam: the garden needs water {i}\nLee: tomatoes and beans grow in garden {i % 3}",
            started_at=f"2024-01-{i % 28 + 1:02d}",
            session_id=f"g{i}",
            extract=False,
        )
    store = mem_store
    if not store.ensure_line_index():
        pytest.skip("no full-text extension in this engine (ladybug offline)")
    for query in ("garden tomatoes", "Caroline adoption", "water beans sunrise", "kids camping"):
        words = terms(query)
        fts = store.search_lines(words, limit=15, use_index=True)
        mine = store.search_lines(words, limit=15, use_index=False)
        assert [h.line.id for h in fts] == [h.line.id for h in mine]
        assert [h.score for h in fts] == pytest.approx([h.score for h in mine], rel=1e-9)
    assert store.drop_line_index()


def test_in_memory_index_follows_writes(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_session("first note about herons", started_at="2025-01-01", session_id="h1")
    assert [i.id for i in mem.search("herons", kinds=("line",))] == ["h1#1"]
    mem.add_session("second note about herons and egrets", started_at="2025-01-02")
    assert len(mem.search("herons", kinds=("line",))) == 2
    mem.add_session("now about owls", started_at="2025-01-01", session_id="h1")
    assert len(mem.search("herons", kinds=("line",))) == 1
    assert mem.search("owls", kinds=("line",))[0].id == "h1#1"


def test_ranking_is_deterministic(engine: str) -> None:
    outs = []
    for _ in range(2):
        clock = ManualClock("2023-01-01")
        with backends.memory(clock=clock) as mem:
            _chats(mem, clock)
            _api_sessions(mem, clock)
            ctx = mem.context("Caroline Melanie api run group", budget_tokens=120)
            found = mem.search("Caroline Melanie api run group")
            # Fact ids are random; line ids and everything else are not.
            outs.append((str(ctx), [(i.kind, i.text, i.score) for i in ctx.items], found))
    assert outs[0][0] == outs[1][0]
    assert outs[0][1] == outs[1][1]
    assert [(i.kind, i.score, i.text) for i in outs[0][2]] == [
        (i.kind, i.score, i.text) for i in outs[1][2]
    ]
    assert [i.id for i in outs[0][2] if i.kind == "line"] == [
        i.id for i in outs[1][2] if i.kind == "line"
    ]
    scores = [i.score for i in outs[0][2]]
    assert scores == sorted(scores, reverse=True)


_BIG: dict[str, Any] = {}


def _big_memory(engine: str) -> gm.Memory:
    if "mem" not in _BIG:
        clock = ManualClock("2025-01-01")
        mem = backends.memory(clock=clock)
        for i in range(12):
            text = "\n".join(
                f"{('Ann', 'Bo')[j % 2]}: talk {j} about gardens, budgets and release {i} "
                + "word " * (j * 7 % 40)
                for j in range(15)
            )
            mem.add_session(
                text, started_at=f"2024-0{i % 9 + 1}-01", session_id=f"t{i}", extract=False
            )
        for i in range(25):
            mem.add_fact(f"svc{i % 5}", "uses", f"library number {i} for gardens")
        _BIG["mem"] = mem
    return _BIG["mem"]  # type: ignore[no-any-return]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    budget=st.integers(min_value=1, max_value=700),
    query=st.sampled_from(
        ["gardens", "budgets release 3", "what does svc1 use?", "Ann talk", "word", "nothing"]
    ),
)
def test_budget_is_never_exceeded(engine: str, budget: int, query: str) -> None:
    mem = _big_memory(engine)
    out = mem.context(query, budget_tokens=budget)
    assert len(out) <= budget * CHARS_PER_TOKEN
    assert estimate_tokens(out) <= budget
    shown = {i.id for i in out.items}
    assert len(shown) == len(out.items)  # no item twice
    for item in out.items:
        if item.kind == "line":
            # Every line item is in the text, dated directly or within its passage.
            assert item.text in out
    if budget >= 300 and query != "nothing":
        assert out.items


def test_cli_search_and_context_match_python(db_path: str, engine: str) -> None:
    from click.testing import CliRunner

    from graphmem.cli import cli

    clock = ManualClock("2023-01-01")
    with gm.open(db_path, clock=clock, engine=engine) as mem:
        _chats(mem, clock)
        _api_sessions(mem, clock)
    runner = CliRunner()
    base = ["--db", db_path, "--engine", engine, "--read-only"]
    query = "What does the API run on?"
    result = runner.invoke(cli, [*base, "search", query, "--json"])
    assert result.exit_code == 0, result.output
    cli_items = json.loads(result.output)
    text = runner.invoke(cli, [*base, "context", query])
    assert text.exit_code == 0, text.output
    as_json = json.loads(runner.invoke(cli, [*base, "context", query, "--json"]).output)
    with gm.open(db_path, engine=engine, read_only=True) as ro:
        items = ro.search(query)
        ctx = ro.context(query)
    assert [(i["kind"], i["id"], i["score"]) for i in cli_items] == [
        (i.kind, i.id, i.score) for i in items
    ]
    assert text.output.rstrip("\n") == str(ctx)
    assert as_json["context"] == str(ctx)
    assert [i["id"] for i in as_json["items"]] == [i.id for i in ctx.items]
    plain = runner.invoke(cli, [*base, "search", "laravel", "--kinds", "line"])
    assert plain.output.startswith("line s-1#1 ")
    assert "(superseded 10 Jun 2026: runs_on Go)" in plain.output


def test_mcp_context_tool_matches(mem: gm.Memory, clock: ManualClock) -> None:
    pytest.importorskip("mcp")
    import anyio

    from graphmem.mcp_server import build_server

    _api_sessions(mem, clock)
    server = build_server(mem)

    async def call() -> Any:
        return await server.call_tool("context", {"query": "What does the API run on?"})

    result = anyio.run(call)
    blocks = result[0] if isinstance(result, tuple) else result
    text = "\n".join(b.text for b in getattr(blocks, "content", blocks) if hasattr(b, "text"))
    assert "(superseded 10 Jun 2026: runs_on Go)" in text
    assert text == str(mem.context("What does the API run on?"))


def test_export_import_rebuilds_lines(mem: gm.Memory, mem_store: Store, clock: ManualClock) -> None:
    from graphmem.export import from_records, to_records

    _chats(mem, clock)
    _api_sessions(mem, clock)
    copy_store = backends.store()
    with gm.open(store=copy_store, clock=ManualClock("2026-06-10")) as copy:
        from_records(copy, to_records(mem))
        assert copy_store.line_counts() == mem_store.line_counts()
        assert [(i.id, i.score) for i in copy.search("support group")] == [
            (i.id, i.score) for i in mem.search("support group")
        ]
        assert "(superseded 10 Jun 2026: runs_on Go)" in copy.context("api laravel")
        # System time survived: nothing of s-2 was known in April.
        assert "Go" not in copy.context("api", known_at="2026-04-01")


def test_schema_1_database_is_upgraded(db_path: str, engine: str) -> None:
    """A store written by schema 1 (no SessionLine, no Session.recorded_at) opens, upgraded."""
    from graphmem.store.kuzu.schema import DDL

    mod = importlib.import_module(engine)
    db = mod.Database(db_path)
    conn = mod.Connection(db)
    for stmt in DDL:
        if "SessionLine" in stmt:
            continue
        stmt = stmt.replace(", scope STRING)", ")")  # schema 4's Fact and Session columns
        stmt = stmt.replace(", source_type STRING)", ")")  # schema 3's Fact column
        conn.execute(stmt.replace(", recorded_at TIMESTAMP)", ")") if "Session(" in stmt else stmt)
    conn.execute("CREATE (:Meta {key: 'schema_version', value: '1'})")
    conn.execute(
        "CREATE (:Session {id: 'old', started_at: timestamp('2022-02-02 00:00:00'), "
        "text: 'Kim: the boiler was repaired on Tuesday.'})"
    )
    conn.close()
    db.close()
    with pytest.raises(gm.SchemaVersionError, match="without read_only"):
        gm.open(db_path, engine=engine, read_only=True)
    store = open_store(db_path, engine=engine)
    with gm.open(store=store, clock=ManualClock("2026-01-01")) as mem:
        assert store.get_meta("schema_version") == "4"
        assert "- [2 Feb 2022] Kim: the boiler was repaired on Tuesday." in mem.context("boiler")
        assert mem.search("boiler", known_at="2022-02-02")[0].id == "old#1"
    with gm.open(db_path, engine=engine, read_only=True) as ro:
        assert ro.search("boiler")[0].id == "old#1"


def test_bad_search_input(mem: gm.Memory) -> None:
    for bad in ("", "  ", None):
        with pytest.raises(gm.InvalidInput, match="query"):
            mem.search(bad)  # type: ignore[arg-type]
    for limit in (0, -1, True, 1.5):
        with pytest.raises(gm.InvalidInput, match="limit"):
            mem.search("x", limit=limit)  # type: ignore[arg-type]
    for kinds in ((), ("facts",), ("fact", "session")):
        with pytest.raises(gm.InvalidInput, match="kinds"):
            mem.search("x", kinds=kinds)
    with pytest.raises(gm.InvalidInput, match="known_at"):
        mem.search("x", known_at="2026-01-01T10:00:00")


def test_empty_and_unmatched_messages(mem: gm.Memory) -> None:
    assert mem.context("anything") == "Memory is empty: no facts stored yet."
    mem.add_session("hello world", started_at="2025-01-01")
    assert mem.context("zebra") == 'No facts or session lines in memory match "zebra".'
    assert re.match(r'Memory relevant to "hello" \(1 session line\):', mem.context("hello"))


def test_lines_of_equal_rank_come_the_newest_first() -> None:
    # Sessions named by no caller get random ids: a tie broken by id changed the context from
    # one run to the next. Equal lines of three sessions, told out of order, in six memories.
    seen = set()
    for _ in range(6):
        clock = ManualClock("2026-01-01")
        with backends.memory(clock=clock) as mem:
            for n, (day, tool) in enumerate((("05", "Vitest"), ("02", "Jest"), ("09", "Mocha"))):
                clock.set(f"2026-01-09T1{n}:00Z")
                mem.add_session(
                    f"the web tests run on {tool}", started_at=f"2026-01-{day}", extract=False
                )
            clock.set("2026-01-10")
            seen.add(str(mem.context("what do the web tests run on?", budget_tokens=200)))
    assert len(seen) == 1, seen
    lines = seen.pop().splitlines()[1:]
    tools = [ln.split(" (")[0].rsplit(" ", 1)[-1] for ln in lines]
    assert tools == ["Mocha", "Vitest", "Jest"]
    # each earlier line is the later one written again with another tool
    assert lines[1].endswith("(Vitest possibly superseded: Mocha per 9 Jan 2026)")
