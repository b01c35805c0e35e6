"""The MCP server on the wire: raw JSON-RPC lines a client may send, and the CLI beside it.

Malformed requests (nested 100k deep, truncated, invalid UTF-8) get a JSON-RPC error, never
silence; text that only looks like graphmem's internal marker is stored as given; ``migrate``
reads a database that ``graphmem mcp`` serves (it borrows it, as every command does).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("mcp")

from mcp_tools import RawServer  # noqa: E402

# The slow family (.ci/run): each starts an MCP server process.
pytestmark = pytest.mark.slow

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


@pytest.fixture
def server(db_path: str) -> Iterator[RawServer]:
    raw = RawServer(db_path, ENGINE).start()
    try:
        yield raw
    finally:
        raw.close()


def _text(result: dict[str, Any]) -> str:
    return "\n".join(c.get("text", "") for c in result["content"])


def test_malformed_requests_get_a_json_rpc_error(server: RawServer) -> None:
    deep = b'{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": ' + b"[" * 100_000
    deep += b"]" * 100_000 + b"}"
    server.send(deep)
    answer = server.reply()
    assert answer["id"] == 7
    assert answer["error"]["code"] == -32700
    assert "nested" in answer["error"]["message"]
    server.send(b'{"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {"na')
    answer = server.reply()
    assert answer["id"] == 8  # read from the truncated line
    assert answer["error"]["code"] == -32700
    server.send(b"\x00\xff not json at all")
    answer = server.reply()
    assert answer["id"] is None
    assert answer["error"]["code"] == -32700
    assert server.call("context", query="x")["isError"] is False  # still serving


def test_invalid_utf8_is_refused_and_marker_lookalikes_are_stored(server: RawServer) -> None:
    line = json.dumps(
        {"jsonrpc": "2.0", "id": 9, "method": "tools/call",
         "params": {"name": "remember", "arguments": {"text": "bad XX text"}}}
    ).encode().replace(b"XX", b"\xff\xfe")  # fmt: skip
    server.send(line)
    answer = server.reply()
    assert answer["id"] == 9
    assert answer["result"]["isError"] is True
    assert "not valid UTF-8" in _text(answer["result"])
    assert "\ufffd" not in json.dumps(server.call("facts_as_of"), ensure_ascii=False)
    # Valid text that reads like the marker of a lone surrogate: stored exactly.
    value = "x \ufdd0d800\ufdd1 y"
    result = server.call("remember", subject="s", predicate="tag", object=value)
    assert result["isError"] is False, _text(result)
    assert value in _text(server.call("facts_as_of", subject="s"))
    escaped = '{"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name": '
    escaped += '"remember", "arguments": {"subject": "t", "predicate": "tag", "object": '
    escaped += '"\\ufdd0d800\\ufdd1 and \\ud800"}}}'
    server.send(escaped.encode())
    answer = server.reply()
    assert answer["result"]["isError"] is True
    assert "holds '\\ud800' at position 11" in _text(answer["result"])


def test_migrate_from_a_database_the_server_serves(server: RawServer, db_path: str) -> None:
    server.call("remember", subject="api", predicate="runs_on", object="Go")
    target = db_path + ".copy.kuzu"
    result = subprocess.run(
        [sys.executable, "-m", "graphmem", "--engine", ENGINE, "migrate", "--from", db_path,
         "--to", target, "--json"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["facts"] >= 1
    facts = subprocess.run(
        [sys.executable, "-m", "graphmem", "--db", target, "--engine", ENGINE, "facts", "--json"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert [f["object"] for f in json.loads(facts.stdout)] == ["Go"]
    assert "api runs_on Go" in _text(server.call("context", query="api"))


# -- the initialize answer, given while the SDK loads (docs/agents.md#start-up) ----------------

SDK_ONLY = (
    "import sys, graphmem.mcp_wire as w; w.KNOWN_SDKS.clear(); "
    "from graphmem.cli import main; sys.exit(main(sys.argv[1:]))"
)


def _initialize(db: str, version: str, *, early: bool = True) -> tuple[dict[str, Any], RawServer]:
    raw = RawServer.__new__(RawServer)
    command = ["-m", "graphmem"] if early else ["-c", SDK_ONLY]
    raw.proc = subprocess.Popen(
        [sys.executable, *command, "--db", db, "--engine", ENGINE, "mcp"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    raw.next_id = 0
    params = {
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    }
    return raw.request("initialize", params), raw


@pytest.mark.parametrize("version", ["2025-06-18", "2024-11-05", "1999-01-01"])
def test_the_early_initialize_answer_is_the_sdks(tmp_path: Any, version: str) -> None:
    from importlib.metadata import version as installed

    from graphmem.mcp_wire import KNOWN_SDKS

    if installed("mcp") not in KNOWN_SDKS:
        pytest.skip(f"mcp {installed('mcp')} is not in KNOWN_SDKS: the SDK answers itself")
    answers = []
    for early in (True, False):
        answer, raw = _initialize(str(tmp_path / f"{early}.kuzu"), version, early=early)
        # The session goes on: one answer to initialize, then the tools.
        raw.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())
        tools = raw.request("tools/list", {})
        assert {t["name"] for t in tools["result"]["tools"]} >= {"remember", "context"}
        assert "add: a b c" in _text(raw.call("remember", subject="a", predicate="b", object="c"))
        raw.close()
        answers.append(answer)
    assert answers[0] == answers[1]


def test_the_sdk_answers_what_the_wire_cannot() -> None:
    from graphmem.mcp_wire import initialize_reply

    good = {
        "jsonrpc": "2.0",
        "id": "a",
        "method": "initialize",
        "params": {
            "protocolVersion": "x",
            "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"},
        },
    }
    kw = {"name": "g", "version": "0", "instructions": "i"}
    assert initialize_reply(good, sdk="2.3.0", **kw) is not None
    assert initialize_reply(good, sdk="0.0.1", **kw) is None  # an SDK it was not checked against
    assert initialize_reply(good, sdk=None, **kw) is None
    for bad in (
        {**good, "method": "ping"},
        {**good, "id": True},
        {**good, "id": None},
        {**good, "params": []},
        {**good, "params": {**good["params"], "clientInfo": {"name": "c"}}},
        {**good, "params": {**good["params"], "protocolVersion": 3}},
        {**good, "params": {**good["params"], "capabilities": None}},
    ):
        assert initialize_reply(bad, sdk="2.3.0", **kw) is None, bad


@given(requested=st.one_of(st.sampled_from(["2024-11-05", "2025-11-25"]), st.text(max_size=12)))
def test_the_early_answer_agrees_to_a_known_version_or_the_latest(requested: str) -> None:
    from graphmem.mcp_wire import KNOWN_SDKS, initialize_reply

    for sdk, (versions, _) in KNOWN_SDKS.items():
        params = {
            "protocolVersion": requested,
            "capabilities": {},
            "clientInfo": {"name": "c", "version": "1"},
        }
        found = initialize_reply(
            {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": params},
            sdk=sdk,
            name="g",
            version="0",
            instructions="",
        )
        assert found is not None
        ident, line = found
        agreed = json.loads(line)["result"]["protocolVersion"]
        assert ident == 7
        assert agreed == (requested if requested in versions else versions[-1])


def test_only_the_sdks_result_for_the_early_id_is_dropped() -> None:
    from graphmem.mcp_wire import _answers

    assert _answers(b'{"jsonrpc":"2.0","id":1,"result":{}}\n', 1)
    assert not _answers(b'{"jsonrpc":"2.0","id":1,"error":{"code":-32602}}\n', 1)  # read it
    assert not _answers(b'{"jsonrpc":"2.0","id":2,"result":{}}\n', 1)
    assert not _answers(b'{"jsonrpc":"2.0","method":"notifications/message"}\n', 1)
    assert not _answers(b"not json\n", 1)
