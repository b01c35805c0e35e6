"""Call an MCP server's tools in process, as the SDK would (shared by the MCP tests)."""

from __future__ import annotations

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
