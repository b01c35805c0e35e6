"""The MCP server: a real stdio round trip, tool behaviour and error mapping.

See docs/concepts/surfaces.md#rule-3.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import pytest
from mcp_tools import call_tool

import graphmem as gm
from graphmem.timeutil import ManualClock

mcp = pytest.importorskip("mcp")

from graphmem.mcp_server import TOOLS, _sdk, build_server  # noqa: E402


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if hasattr(block, "text"))


def _is_error(result: Any) -> bool:
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


@pytest.mark.slow  # a long test: CI's slow family runs it
def test_stdio_server_round_trip(db_path: str, engine: str) -> None:
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphmem", "--db", db_path, "--engine", engine, "mcp"],
        env={"PYTHONWARNINGS": "ignore"},
    )
    seen: dict[str, Any] = {}

    async def session() -> None:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                seen["tools"] = sorted(t.name for t in (await client.list_tools()).tools)
                seen["remember"] = await client.call_tool(
                    "remember",
                    {
                        "subject": "api",
                        "predicate": "runs_on",
                        "object": "Laravel",
                        "valid_from": "2024-01-01",
                    },
                )
                seen["again"] = await client.call_tool(
                    "remember", {"subject": "api", "predicate": "runs_on", "object": "Go"}
                )
                seen["context"] = await client.call_tool(
                    "context", {"query": "What does the api run on?"}
                )
                seen["error"] = await client.call_tool(
                    "forget", {"subject": "nobody", "predicate": "works_at"}
                )

    anyio.run(session)
    assert seen["tools"] == sorted(TOOLS)
    assert _text(seen["remember"]).startswith("add: api runs_on Laravel [valid 2024-01-01")
    assert _text(seen["again"]).startswith("supersede: api runs_on Go")
    context = _text(seen["context"])
    assert "- api runs_on Go (since " in context
    assert "; was Laravel)" in context
    assert _is_error(seen["error"])
    assert "no current fact 'nobody' works_at" in _text(seen["error"])
    with gm.open(db_path, engine=engine, read_only=True) as mem:
        assert [f.object for f in mem.facts(subject="api")] == ["Go"]


class _Tools:
    """Call the server's tools in process, as the SDK would."""

    def __init__(self, server: Any, tool_error: type[Exception]) -> None:
        self.server = server
        self.tool_error = tool_error

    def __call__(self, name: str, **arguments: Any) -> str:
        return call_tool(self.server, name, **arguments)


@pytest.fixture
def tools(mem: gm.Memory) -> _Tools:
    return _Tools(build_server(mem), _sdk()[1])


def test_tools_in_process(tools: _Tools, mem: gm.Memory, clock: ManualClock) -> None:
    assert tools(
        "remember", subject="Alice", predicate="works_at", object="Acme", valid_from="2020-01-01"
    ).startswith("add: Alice works_at Acme")
    clock.set("2026-03-01")
    out = tools("remember", text="Alice prefers async code reviews", subject="Alice")
    assert out.startswith("add: Alice ")  # a note, or the claim the text pipeline reads in it
    assert "prefers async code reviews" in out
    assert tools("facts_as_of", subject="Alice", predicate="works_at").startswith(
        "- Alice works_at Acme [valid 2020-01-01 → open]"
    )
    assert "prefers async" in tools("context", query="how does Alice like reviews?")
    out = tools(
        "forget", subject="Alice", predicate="works_at", at="2026-02-01", reason="left the company"
    )
    assert out.startswith("invalidate: Alice works_at Acme [valid 2020-01-01 → 2026-02-01]")
    assert tools("facts_as_of", subject="Alice", predicate="works_at") == "No facts match."
    assert tools(
        "facts_as_of",
        subject="Alice",
        predicate="works_at",
        valid_at="2025-01-01",
        known_at="2026-01-15",
    ).startswith("- Alice works_at Acme [valid 2020-01-01 → open]")
    audit = tools("history", subject="Alice", predicate="works_at", include_superseded=True)
    assert "[superseded 2026-03-01: ended at 2026-02-01: reason: left the company]" in audit
    mem.add_session("we discussed the Kafka migration", started_at="2026-02-20", mentions=["Kafka"])
    assert tools("hot_topics").startswith("- Kafka: ")


def test_graphmem_errors_become_tool_errors(tools: _Tools) -> None:
    with pytest.raises(tools.tool_error, match=r"valid_to=.* is not after valid_from"):
        tools(
            "remember",
            subject="a",
            predicate="p",
            object="b",
            valid_from="2026-01-02",
            valid_to="2026-01-01",
        )
    with pytest.raises(tools.tool_error, match="needs subject, predicate and object"):
        tools("remember", subject="a", predicate="p")
    with pytest.raises(tools.tool_error, match="nothing to remember"):
        tools("remember")
    with pytest.raises(tools.tool_error, match="valid_to applies to structured facts"):
        tools("remember", text="we deploy on Fridays", valid_to="2027-01-01")
    with pytest.raises(tools.tool_error, match="query"):
        tools("context", query=" ")
    with pytest.raises(tools.tool_error, match=r"text=' \\n' is blank: .*pass the text"):
        tools("add_session", text=" \n")


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("mcp.server.mcpserver", "mcp.server.fastmcp"):
        monkeypatch.setitem(sys.modules, name, None)  # makes the import fail
    with pytest.raises(gm.ExtraUnavailable, match=r"pip install 'graphmem\[mcp\]'"):
        _sdk()


# -- sessions, strict arguments, version, and the CLI next to a running server -------------------


def _graphmem(db: str, engine: str, *args: str, stdin: str | None = None) -> Any:
    import subprocess

    return subprocess.run(
        [sys.executable, "-m", "graphmem", "--db", db, "--engine", engine, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.slow
def test_cli_reads_and_writes_while_the_server_runs(db_path: str, engine: str) -> None:
    # The server lends the database between tool calls: no StoreBusy for the CLI, and each
    # side sees the other's writes (docs/concurrency.md).
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphmem", "--db", db_path, "--engine", engine, "mcp"],
        env={"PYTHONWARNINGS": "ignore"},
    )
    seen: dict[str, Any] = {}

    async def session() -> None:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                info = await client.initialize()
                seen["version"] = info.server_info.version
                await client.call_tool(
                    "remember",
                    {
                        "subject": "api",
                        "predicate": "runs_on",
                        "object": "Laravel",
                        "valid_from": "2024-01-01",
                    },
                )
                seen["logged"] = await client.call_tool(
                    "add_session",
                    {
                        "text": "We talked about Kafka and the api.",
                        "started_at": "today",
                        "title": "standup",
                        "session_id": "s1",
                    },
                )
                seen["history"] = _graphmem(db_path, engine, "history", "api", "--json")
                seen["add"] = _graphmem(db_path, engine, "add", "api", "runs_on", "Go")
                seen["sessions"] = _graphmem(db_path, engine, "sessions", "--json")
                seen["context"] = await client.call_tool("context", {"query": "api"})
                seen["hot"] = await client.call_tool("hot_topics", {})
                seen["unknown"] = await client.call_tool("context", {"query": "x", "budget": 5})

    anyio.run(session)
    import graphmem

    assert seen["version"] == graphmem.__version__
    assert _text(seen["logged"]).startswith("session s1 logged (")
    assert "Kafka" in _text(seen["logged"])
    for step in ("history", "add", "sessions"):
        assert seen[step].returncode == 0, seen[step].stderr
    assert [f["object"] for f in json.loads(seen["history"].stdout)] == ["Laravel"]
    assert [s["id"] for s in json.loads(seen["sessions"].stdout)] == ["s1"]
    assert "api runs_on Go" in _text(seen["context"])  # the CLI's write, seen by the server
    assert "Kafka" in _text(seen["hot"])
    assert _is_error(seen["unknown"])
    assert "unknown argument 'budget' for tool 'context'" in _text(seen["unknown"])
    assert "valid arguments: query, budget_tokens, valid_at, known_at" in _text(seen["unknown"])


@pytest.mark.slow
def test_lone_surrogate_gets_a_tool_error_reply(db_path: str, engine: str) -> None:
    # Raw JSON-RPC: the official client cannot even send "\ud800"; other clients do, and the
    # SDK's parser dropped such a request without a reply.
    import select
    import subprocess

    proc = subprocess.Popen(
        [sys.executable, "-m", "graphmem", "--db", db_path, "--engine", engine, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None

    def send(line: str) -> None:
        proc.stdin.write(line.encode() + b"\n")  # type: ignore[union-attr]
        proc.stdin.flush()  # type: ignore[union-attr]

    def reply() -> dict[str, Any]:
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        assert ready, "no reply within 30 s"
        return json.loads(proc.stdout.readline())  # type: ignore[union-attr]

    try:
        send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "raw", "version": "0"},
                    },
                }
            )
        )
        assert reply()["id"] == 1
        send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        for i, tool in enumerate(("remember", "add_session"), start=2):
            send(
                f'{{"jsonrpc": "2.0", "id": {i}, "method": "tools/call", "params": {{"name": '
                f'"{tool}", "arguments": {{"text": "bad \\ud800 text"}}}}}}'
            )
            answer = reply()
            assert answer["id"] == i
            assert answer["result"]["isError"] is True
            text = answer["result"]["content"][0]["text"]
            assert "argument 'text' holds '\\ud800' at position 4" in text
        send(
            json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 9,
                    "method": "tools/call",
                    "params": {"name": "context", "arguments": {"query": "x"}},
                }
            )
        )
        assert reply()["result"]["isError"] is False  # still serving
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
        proc.stdout.close()


def test_unknown_arguments_are_tool_errors(tools: _Tools) -> None:
    with pytest.raises(tools.tool_error, match=r"unknown argument 'valid_at' for tool 'remember'"):
        tools("remember", text="x", valid_at="2026-01-01")
    with pytest.raises(tools.tool_error, match=r"unknown arguments 'a', 'b'.*valid arguments: "):
        tools("hot_topics", a=1, b=2)
    with pytest.raises(tools.tool_error, match=r"holds '\\ud800' at position 1"):
        tools("context", query="x\ud800")


def test_add_session_tool_and_deprecated_history_name(
    tools: _Tools, mem: gm.Memory, clock: ManualClock
) -> None:
    clock.set("2026-03-01")
    out = tools(
        "add_session",
        text="Alice joined Globex. We discussed the Kafka migration.",
        started_at="2026-02-20",
        title="planning",
        session_id="p1",
    )
    assert out.startswith("session p1 logged (2026-02-20): planning")
    assert "Kafka" in out.splitlines()[1]
    [session] = mem.sessions()
    assert session.id == "p1"
    assert "Kafka" in session.mentions
    assert tools("hot_topics").startswith("- ")
    assert "Kafka" in tools("hot_topics")
    tools("remember", subject="api", predicate="runs_on", object="Laravel", valid_from="2024-01-01")
    tools("remember", subject="api", predicate="runs_on", object="Go")
    new = tools("history", subject="api", include_expired=True)
    old = tools("history", subject="api", include_superseded=True)
    assert old == "note: include_superseded is deprecated; use include_expired\n" + new
    assert "superseded" in new
    # Logged without a date: now.
    assert tools("add_session", text="short chat about Rust").startswith("session s")


def test_documented_client_configs_start_this_server() -> None:
    # docs/agents.md: the Claude Desktop / Cursor JSON and the Claude Code command must name
    # the real `graphmem mcp` invocation, with an absolute path to the venv's graphmem.
    import shlex
    from pathlib import Path

    from graphmem.cli import cli

    examples = Path(__file__).resolve().parents[1] / "docs" / "examples"
    invocations = []
    for name in ("mcp_claude_desktop.json", "mcp_cursor.json"):
        [server] = json.loads((examples / name).read_text(encoding="utf-8"))["mcpServers"].values()
        invocations.append([server["command"], *server["args"]])
    claude = shlex.split((examples / "mcp_claude_code.sh").read_text(encoding="utf-8"))
    assert claude[:3] == ["claude", "mcp", "add"]
    invocations.append(claude[claude.index("--") + 1 :])
    for argv in invocations:
        assert argv[0].startswith("/")
        assert argv[0].endswith("/.venv/bin/graphmem")
        ctx = cli.make_context("graphmem", argv[1:], resilient_parsing=True)
        assert cli.resolve_command(ctx, ["mcp"])[0] == "mcp"
        assert argv[1:] == ["--db", ctx.params["db"], "mcp"]
        assert ctx.params["db"].startswith("/")


@pytest.mark.slow
def test_stdio_server_on_a_falkordb_url(falkordb_url: str) -> None:
    """The MCP server serves a server memory by URL (no lending: a server takes many clients)."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphmem", "--db", falkordb_url, "mcp"],
        env={"PYTHONWARNINGS": "ignore"},
    )
    seen: dict[str, Any] = {}

    async def session() -> None:
        with open(os.devnull, "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                await client.call_tool("remember", {"text": "The API runs on Laravel."})
                await client.call_tool("remember", {"text": "We migrated the API to Go."})
                seen["context"] = await client.call_tool(
                    "context", {"query": "What does the API run on?"}
                )

    anyio.run(session)
    text = _text(seen["context"])
    assert "API runs_on Go" in text, text
    assert "was Laravel" in text, text
    with gm.open(falkordb_url) as mem:  # another client of the same server sees it
        assert [f.object for f in mem.facts(subject="API", predicate="runs_on")] == ["Go"]
