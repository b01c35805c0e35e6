"""The MCP server over streamable HTTP: several clients, a bearer token, structured results.

See docs/agents.md#one-memory-for-several-apps and docs/agents.md#structured-results.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

mcp = pytest.importorskip("mcp")
jsonschema = pytest.importorskip("jsonschema")

from graphmem.mcp_server import TOOLS  # noqa: E402

# The slow family (.ci/run): each starts an MCP server over HTTP.
pytestmark = pytest.mark.slow

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _command(db: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "graphmem", "--db", db, "--engine", ENGINE, "mcp", *args]


@contextlib.contextmanager
def _server(db: str, *args: str) -> Iterator[str]:
    """Run ``graphmem mcp --transport http`` on a free port; yield its URL."""
    port = _free_port()
    proc = subprocess.Popen(
        _command(db, "--transport", "http", "--port", str(port), *args),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            assert time.monotonic() < deadline, "the HTTP server did not start within 60 s"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        if proc.stderr is not None:
            proc.stderr.close()


@contextlib.asynccontextmanager
async def _client(url: str, headers: dict[str, str] | None = None) -> AsyncIterator[Any]:
    """An initialised official MCP client session on ``url``."""
    from mcp import ClientSession
    from mcp.client import streamable_http

    opener = getattr(streamable_http, "streamable_http_client", None)
    async with contextlib.AsyncExitStack() as stack:
        if opener is not None:  # mcp 2.x
            import httpx2

            http = await stack.enter_async_context(httpx2.AsyncClient(headers=headers or {}))
            streams = await stack.enter_async_context(opener(url, http_client=http))
        else:  # mcp 1.x
            streams = await stack.enter_async_context(
                streamable_http.streamablehttp_client(url, headers=headers)
            )
        session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
        await session.initialize()
        yield session


def _text(result: Any) -> str:
    return "\n".join(b.text for b in result.content if hasattr(b, "text"))


def _structured(result: Any) -> Any:
    return getattr(result, "structured_content", getattr(result, "structuredContent", None))


def _is_error(result: Any) -> bool:
    return bool(getattr(result, "is_error", getattr(result, "isError", False)))


def test_two_apps_share_one_memory_over_http(db_path: str) -> None:
    import anyio

    seen: dict[str, Any] = {}

    async def run(url: str) -> None:
        async with _client(url) as one, _client(url) as two:
            seen["remember"] = await one.call_tool(
                "remember", {"subject": "api", "predicate": "runs_on", "object": "Go"}
            )
            seen["context"] = await two.call_tool("context", {"query": "what does the api run on?"})
            seen["error"] = await two.call_tool(
                "forget", {"subject": "nobody", "predicate": "works_at"}
            )

    with _server(db_path) as url:
        anyio.run(run, url)
    assert _structured(seen["remember"])["fact"]["object"] == "Go"
    assert "api runs_on Go" in _text(seen["context"])
    assert [i["text"] for i in _structured(seen["context"])["items"]][0].startswith("api runs_on")
    assert _is_error(seen["error"])
    assert "no current fact 'nobody' works_at" in _text(seen["error"])


def test_off_loopback_needs_a_token(tmp_path: Path, db_path: str) -> None:
    refused = subprocess.run(
        _command(db_path, "--transport", "http", "--host", "0.0.0.0"),  # noqa: S104
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode == 1
    assert "--host '0.0.0.0' is not a loopback address" in refused.stderr
    assert "--token-file" in refused.stderr
    assert not os.path.exists(db_path)  # refused before the database was opened

    import anyio
    import httpx

    token = tmp_path / "token"
    token.write_text("s3cret-token\n")

    async def authorised(url: str) -> str:
        async with _client(url, {"Authorization": "Bearer s3cret-token"}) as session:
            return _text(await session.call_tool("predicates", {}))

    with _server(db_path, "--host", "0.0.0.0", "--token-file", str(token)) as url:  # noqa: S104
        body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        for headers in ({}, {"Authorization": "Bearer wrong"}):
            answer = httpx.post(url, json=body, headers=headers, timeout=30)
            assert answer.status_code == 401
            assert answer.headers["www-authenticate"].startswith("Bearer")
        assert "works_at" in anyio.run(authorised, url)


def test_every_tool_returns_structured_content_matching_its_schema(db_path: str) -> None:
    import anyio

    results: dict[str, Any] = {}
    schemas: dict[str, Any] = {}

    async def run(url: str) -> None:
        async with _client(url) as s:
            for t in (await s.list_tools()).tools:
                schemas[t.name] = getattr(t, "output_schema", getattr(t, "outputSchema", None))

            async def call(name: str, **arguments: Any) -> Any:
                result = await s.call_tool(name, arguments)
                assert not _is_error(result), (name, _text(result))
                results.setdefault(name, result)
                return _structured(result)

            wrong = await call(
                "remember", subject="carol", predicate="lives_in", object="Oslo",
                valid_from="2026-01-01",
            )  # fmt: skip
            await call("remember", text="Alice works at Acme.", learned_at="now")
            await call("add_session", text="We discussed Kafka with Alice.", title="sync")
            fixed = await call("correct", fact_id=wrong["fact"]["id"], new_object="Bergen")
            await call("context", query="where does carol live?")
            await call("search", query="carol")
            await call("facts_as_of", subject="carol")
            await call("believed", on="today")
            await call("history", subject="carol", include_expired=True)
            await call("get_fact", fact_id=wrong["fact"]["id"])
            await call("why", fact_id=fixed["fact"]["id"])
            await call("changes", since="2000-01-01")
            await call("sessions")
            await call("hot_topics")
            await call("triage")
            await call("predicates")
            await call("retract", fact_id=fixed["fact"]["id"])
            await call("forget", subject="Alice", predicate="works_at")
            await call("remember", subject="Apache Kafka", predicate="uses", object="ZooKeeper")
            await call("merge_entities", keep="Kafka", other="Apache Kafka")
            await call(
                "remember", subject="dana", predicate="lives_in", object="Rome",
                source_type="user",
            )  # fmt: skip
            await call(  # the agent's guess is kept beside the user's word, as a dispute
                "remember", subject="dana", predicate="lives_in", object="Milan",
                source_type="agent",
            )  # fmt: skip
            open_ = await call("disputes", subject="dana")
            assert open_["count"] == 1, open_
            await call("resolve_dispute", fact_id=open_["facts"][0]["id"], accept=False)
            await call("explain", subject="dana", predicate="lives_in", at="today")

    with _server(db_path) as url:
        anyio.run(run, url)
    assert set(results) == set(TOOLS)  # a new tool needs a call above
    for name, result in results.items():
        schema = schemas[name]
        assert schema is not None, name
        assert _text(result), name  # a short text for people too
        jsonschema.validate(_structured(result), schema)
    fact = _structured(results["get_fact"])["facts"][0]
    assert fact["expired_at"] is not None
    assert fact["reason"] == "corrected to 'Bergen'"
    assert {"valid_from", "valid_to", "recorded_at", "expired_at"} <= set(fact)


def test_two_apps_keep_their_scopes_over_http(db_path: str) -> None:
    """docs/concepts/scopes.md over the wire: each app narrows one server to its own scope."""
    import anyio

    seen: dict[str, Any] = {}

    async def run(url: str) -> None:
        async with _client(url) as alice, _client(url) as bob:
            fact = {"subject": "api", "predicate": "runs_on"}
            await alice.call_tool("remember", {**fact, "object": "Go", "scope": "acme"})
            await alice.call_tool("remember", {**fact, "object": "Rust", "scope": "acme/alice"})
            seen["bob"] = await bob.call_tool(
                "remember", {**fact, "object": "Zig", "scope": "acme/bob"}
            )
            seen["alice"] = await alice.call_tool(
                "facts_as_of", {"subject": "api", "scope": "acme/alice"}
            )
            seen["context"] = await bob.call_tool("context", {"query": "api", "scope": "acme/bob"})

    with _server(db_path) as url:
        anyio.run(run, url)
    assert _structured(seen["bob"])["superseded"] == []  # the team's Go stays the team's
    assert [(f["object"], f["scope"]) for f in _structured(seen["alice"])["facts"]] == [
        ("Rust", "acme/alice")
    ]
    assert "Zig" in _text(seen["context"])
    assert "Rust" not in _text(seen["context"])
