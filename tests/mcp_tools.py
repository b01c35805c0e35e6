"""Call an MCP server's tools in process, as the SDK would, or over stdio (the MCP tests)."""

from __future__ import annotations

import json
import select
import subprocess
import sys
from typing import Any


def call_tool(server: Any, name: str, **arguments: Any) -> str:
    """Run one tool call on ``server`` and return the text of its reply."""
    import anyio

    async def call() -> Any:
        return await server.call_tool(name, arguments)

    result = anyio.run(call)
    blocks = result[0] if isinstance(result, tuple) else result
    if hasattr(blocks, "content"):
        blocks = blocks.content
    return "\n".join(b.text for b in blocks if hasattr(b, "text"))


class RawServer:
    """A ``graphmem mcp`` subprocess spoken to line by line."""

    def __init__(self, db: str, engine: str = "kuzu") -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "graphmem", "--db", db, "--engine", engine, "mcp"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self.next_id = 100

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def reply(self, wait: float = 30) -> dict[str, Any]:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], wait)
        assert ready, f"no reply within {wait} s"
        line = self.proc.stdout.readline()
        assert line, "the server exited"
        answer: dict[str, Any] = json.loads(line)
        return answer

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        self.send(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                              "params": params}).encode())  # fmt: skip
        answer = self.reply()
        assert answer["id"] == self.next_id
        return answer

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result: dict[str, Any] = self.request("tools/call", {"name": tool, "arguments": arguments})[
            "result"
        ]
        return result

    def start(self) -> RawServer:
        info = self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        )
        assert "result" in info
        self.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())
        return self

    def close(self) -> None:
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)
        self.proc.stdout.close()
