"""The MCP server (SPEC §6): a real stdio round trip, tool behaviour and error mapping."""

from __future__ import annotations

import os
import sys
from typing import Any

import pytest

import graphmem as gm
from graphmem.timeutil import ManualClock

mcp = pytest.importorskip("mcp")

from graphmem.mcp_server import TOOLS, _sdk, build_server  # noqa: E402


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if hasattr(block, "text"))


def _is_error(result: Any) -> bool:
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


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
        import anyio

        async def call() -> Any:
            return await self.server.call_tool(name, arguments)

        result = anyio.run(call)
        blocks = result[0] if isinstance(result, tuple) else result
        if hasattr(blocks, "content"):
            blocks = blocks.content
        return "\n".join(b.text for b in blocks if hasattr(b, "text"))


@pytest.fixture
def tools(mem: gm.Memory) -> _Tools:
    return _Tools(build_server(mem), _sdk()[1])


def test_tools_in_process(tools: _Tools, mem: gm.Memory, clock: ManualClock) -> None:
    assert tools(
        "remember", subject="Alice", predicate="works_at", object="Acme", valid_from="2020-01-01"
    ).startswith("add: Alice works_at Acme")
    clock.set("2026-03-01")
    out = tools("remember", text="Alice prefers async code reviews", subject="Alice")
    assert out.startswith("add: Alice note Alice prefers async code reviews")
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


def test_missing_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("mcp.server.mcpserver", "mcp.server.fastmcp"):
        monkeypatch.setitem(sys.modules, name, None)  # makes the import fail
    with pytest.raises(gm.ExtraUnavailable, match=r"pip install 'graphmem\[mcp\]'"):
        _sdk()
