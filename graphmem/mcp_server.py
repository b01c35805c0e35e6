"""The MCP server: graphmem's memory as tools for agents, over stdio or streamable HTTP.

See docs/concepts/surfaces.md#rule-3 and docs/agents.md.

Run it with ``graphmem --db PATH mcp`` (stdio, one client; needs ``pip install
'graphmem[mcp]'``), or ``graphmem --db PATH mcp --transport http`` (streamable HTTP at
``http://127.0.0.1:8765/mcp``: one server owns the store and any number of agent apps connect
at once; a non-loopback address needs ``--token-file``, and requests without ``Authorization:
Bearer <token>`` get 401). Register the stdio server in an MCP client with the absolute path
of the ``graphmem`` of your virtual environment, e.g. Claude Desktop's
``claude_desktop_config.json`` (docs/agents.md covers Claude Code, Cursor and HTTP)::

    {"mcpServers": {"memory": {"command": "/abs/path/.venv/bin/graphmem",
                               "args": ["--db", "/abs/path/agent.kuzu", "mcp"]}}}

The tools are the functions of :mod:`graphmem.mcp_tools` (:data:`TOOLS`); each returns a short
text for people and a ``structuredContent`` matching its ``outputSchema``
(:mod:`graphmem.mcp_output`).

A :class:`~graphmem.errors.GraphmemError` becomes a tool error (``isError``) carrying the same
message, so the agent can read what was wrong and fix its call; so does an unknown argument (the
error lists the valid ones) and text that is not valid Unicode. This module is the only one that
imports the ``mcp`` SDK (1.x ``FastMCP`` or 2.x ``MCPServer``), and only when a server is built;
uvicorn only when the HTTP transport runs.
The server holds the database (Kuzu allows one writing process), serialises tool calls, and
lends the database to the CLI between calls, so that a person can look at (and write to) the
agent's memory while it runs (docs/concurrency.md).
"""

from __future__ import annotations

import contextlib
import hmac
import importlib
import inspect
import ipaddress
import sys
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from graphmem.errors import ExtraUnavailable, GraphmemError, InvalidInput
from graphmem.mcp_tools import TOOLS as _TOOLS
from graphmem.mcp_tools import Tool
from graphmem.mcp_wire import bad_text, initialize_reply, unmark, wire
from graphmem.scopes import entered

if TYPE_CHECKING:
    from graphmem.memory import Memory
    from graphmem.store.locks import Lender

__all__ = ["DEFAULT_PORT", "TOOLS", "build_server", "is_loopback", "serve"]

#: The tool names, in the order they are registered.
TOOLS = tuple(_TOOLS)
#: The HTTP transport's default port; its path is ``/mcp``.
DEFAULT_PORT = 8765


def _scope_param() -> inspect.Parameter:
    """The argument every tool takes: a scope inside the server's own (concepts/scopes.md)."""
    from pydantic import Field

    about = (
        "Act in this scope, e.g. 'acme/alice/agent-1': inside the server's own scope (narrower, "
        "never wider); reads see it and its ancestors, writes supersede only its facts."
    )
    return inspect.Parameter(
        "scope",
        inspect.Parameter.KEYWORD_ONLY,
        default=None,
        annotation=Annotated[str | None, Field(description=about)],
    )


INSTRUCTIONS = (
    "graphmem is a long-term memory with time: every fact knows when it was true in the world "
    "and when it was learned. Call `context` with the user's question before answering to "
    "recall what is known; call `remember` when you learn something durable (a preference, a "
    "decision, a change such as 'the api now runs on Go'); call `forget` or `retract` when "
    "something stops being true and `correct` when a stored value was wrong; call `add_session` "
    "with a conversation's text when it ends, so that hot topics and recall know it. Superseded "
    "facts are kept as history, never served as current: `history`, `believed` and `why` show "
    "what was believed before."
)

T = TypeVar("T")


def _sdk() -> tuple[Any, type[Exception]]:
    """Return the server class and its ToolError: ``MCPServer`` (mcp 2.x) or ``FastMCP`` (1.x).

    Raises:
        ExtraUnavailable: the SDK is not installed.
    """
    for server_mod, name in (
        ("mcp.server.mcpserver", "MCPServer"),
        ("mcp.server.fastmcp", "FastMCP"),
    ):
        try:
            server = importlib.import_module(server_mod)
            errors = importlib.import_module(f"{server_mod}.exceptions")
        except ImportError:
            continue
        return getattr(server, name), errors.ToolError
    raise ExtraUnavailable(
        "the MCP server needs the official MCP SDK; install it with: pip install 'graphmem[mcp]'"
    )


# -- argument checks shared by every tool ---------------------------------------------------------


def _argument_error(
    tool: str, arguments: dict[str, Any], valid: Sequence[str], *, marked: bool = False
) -> str | None:
    """Return the tool error for unknown or undecodable arguments, or ``None`` when fine.

    ``marked``: the arguments came through the stdio screen (:mod:`graphmem.mcp_wire`).
    """
    unknown = sorted(str(k) for k in arguments if k not in valid)
    if unknown:
        names = ", ".join(repr(k) for k in unknown)
        return (
            f"unknown argument{'s' if len(unknown) > 1 else ''} {names} for tool {tool!r}; "
            f"valid arguments: {', '.join(valid)}"
        )
    for name, value in arguments.items():
        if (problem := bad_text(name, value, marked=marked)) is not None:
            return problem
    return None


def _strict(
    server_cls: Any,
    tool_error: type[Exception],
    valid: dict[str, tuple[str, ...]],
    *,
    marked: bool = False,
) -> Any:
    """Subclass the SDK's server so that a call with an unknown argument is a tool error.

    The SDK validates arguments with a pydantic model that ignores unknown keys (they never
    reach the tool); checking them here, before the SDK, covers mcp 1.x and 2.x alike. With
    ``marked``, the arguments came through the stdio screen: text that is not valid Unicode is
    a tool error, the rest reaches the tool as the client sent it (:mod:`graphmem.mcp_wire`).
    """

    class StrictServer(server_cls):  # type: ignore[misc]
        async def call_tool(self, name: str, arguments: Any, *args: Any, **kwargs: Any) -> Any:
            if name in valid and isinstance(arguments, dict):
                problem = _argument_error(name, arguments, valid[name], marked=marked)
                if problem is not None:
                    raise tool_error(problem)
                if marked:
                    arguments = unmark(arguments)
            return await super().call_tool(name, arguments, *args, **kwargs)

    return StrictServer


# -- the server ------------------------------------------------------------------------------------


def build_server(mem: Memory | Lender[Memory], *, marked: bool = False) -> Any:
    """Return an MCP server (not yet running) whose tools act on ``mem``.

    ``mem`` is a memory, or a :class:`~graphmem.store.locks.Lender` that holds one and lends
    it to other processes between tool calls (what :func:`serve` uses). ``marked``: requests
    come through the stdio screen of :func:`graphmem.mcp_wire.wire` (what :func:`serve` uses
    over stdio).

    Raises:
        ExtraUnavailable: the ``mcp`` extra is not installed.
    """
    import graphmem
    from graphmem.store.locks import Lender

    server_cls, tool_error = _sdk()
    result_cls = importlib.import_module("mcp.types").CallToolResult
    valid: dict[str, tuple[str, ...]] = {}
    server = _strict(server_cls, tool_error, valid, marked=marked)(
        name="graphmem",
        instructions=INSTRUCTIONS,
        version=graphmem.__version__,
        log_level="WARNING",
    )
    lock = threading.Lock()  # the SDK runs sync tools in worker threads; one store connection
    use: Callable[[], AbstractContextManager[Memory]] = (
        mem.use if isinstance(mem, Lender) else lambda: contextlib.nullcontext(mem)
    )

    scope_param = _scope_param()

    def register(t: Tool) -> None:
        sig = inspect.signature(t.fn, eval_str=True, locals={"Memory": Any})
        params = list(sig.parameters.values())[1:]  # the memory is the server's, not the agent's
        # Every tool narrows the server's scope with ``scope`` (docs/concepts/scopes.md).
        params.append(scope_param)

        def wrapper(**kwargs: Any) -> Any:
            asked = kwargs.pop("scope", None)
            with lock:
                try:
                    with use() as current, entered(asked, current.scope):
                        reply = t.fn(current, **kwargs)
                except GraphmemError as exc:
                    raise tool_error(str(exc)) from exc
            return result_cls.model_validate(
                {
                    "content": [{"type": "text", "text": reply.text}],
                    "structuredContent": reply.data.model_dump(mode="json"),
                }
            )

        wrapper.__name__ = wrapper.__qualname__ = t.name
        wrapper.__doc__ = t.fn.__doc__
        # The SDK reads the arguments and the outputSchema (the model) from this signature.
        wrapper.__signature__ = sig.replace(  # type: ignore[attr-defined]
            parameters=params, return_annotation=Annotated[result_cls, t.output]
        )
        valid[t.name] = tuple(p.name for p in params)
        server.add_tool(wrapper, name=t.name, description=t.fn.__doc__)

    for t in _TOOLS.values():
        register(t)
    return server


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address (``localhost``, ``127.0.0.0/8``, ``::1``)."""
    if host.strip().lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_http(host: str, token: str | None) -> None:
    """Refuse to serve HTTP off loopback without a bearer token.

    Raises:
        InvalidInput: ``host`` is not a loopback address and there is no token.
    """
    if token is not None and not token.strip():
        raise InvalidInput("the bearer token is empty; put a long random secret in the token file")
    if token is None and not is_loopback(host):
        raise InvalidInput(
            f"host={host!r} is not a loopback address: anyone who reaches it could read and "
            "write this memory; pass a bearer token (graphmem mcp --transport http --token-file "
            "PATH, a file holding a long random secret) or bind 127.0.0.1"
        )


class _Bearer:
    """ASGI middleware: a request without ``Authorization: Bearer <token>`` gets 401."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token.strip()}".encode()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            sent = dict(scope.get("headers") or ()).get(b"authorization", b"")
            if not hmac.compare_digest(sent, self.expected):
                body = b'{"error": "unauthorized: send the header Authorization: Bearer <token>"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            (b"www-authenticate", b'Bearer realm="graphmem"'),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def _run(server: Any, transport: str, host: str, port: int, token: str | None) -> None:
    """Run ``server`` on stdio (through the screen of :mod:`graphmem.mcp_wire`) or HTTP."""
    if transport == "stdio":  # inside the wire (serve)
        server.run("stdio")
        return
    import uvicorn

    try:
        app = server.streamable_http_app(streamable_http_path="/mcp", host=host)
    except TypeError:  # mcp 1.x: the path and host are settings
        app = server.streamable_http_app()
    if token is not None:
        app = _Bearer(app, token)
    shown = f"[{host}]" if ":" in host else host
    print(f"graphmem MCP server on http://{shown}:{port}/mcp", file=sys.stderr, flush=True)
    uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning")).run()


def serve(
    path: str | None,
    *,
    engine: str = "kuzu",
    clock: Callable[[], Any] | None = None,
    ontology: str | None = "default",
    wait: float | None = None,
    transport: str = "stdio",
    host: str = "127.0.0.1",
    port: int = DEFAULT_PORT,
    token: str | None = None,
    scope: str | None = None,
) -> None:
    """Open the memory at ``path`` and serve it until the client disconnects (or Ctrl-C).

    ``transport``: ``"stdio"`` (one client) or ``"http"`` (streamable HTTP on ``host:port``,
    path ``/mcp``, any number of clients; off loopback only with a bearer ``token``).

    ``ontology`` is :func:`graphmem.open`'s (``"default"``, ``None`` or a file). Between tool
    calls the database is lent to other processes that ask for it (the CLI does): see
    :class:`~graphmem.store.locks.Lender`; a tool call waits up to ``wait`` seconds (default
    :data:`~graphmem.store.locks.LEND_TIMEOUT`) for such a loan to end. ``scope`` pins the
    server to a scope: every tool reads and writes there, and a call's ``scope`` argument may
    narrow it, never widen it (docs/concepts/scopes.md).

    Raises:
        ExtraUnavailable: the ``mcp`` extra is not installed.
        StoreBusy: another process holds the database.
        InvalidInput: an unknown transport, or HTTP off loopback without a token.
    """
    if transport not in ("stdio", "http"):
        raise InvalidInput(f"transport={transport!r} is not one of 'stdio', 'http'")
    if transport == "http":
        check_http(host, token)
    with contextlib.ExitStack() as stack:
        if transport == "stdio":
            # The wire first: it answers initialize while the SDK loads (docs/agents.md#start-up).
            stack.enter_context(wire(early=_early_reply()))
        _serve(path, engine, clock, ontology, wait, transport, host, port, token, scope)


def _early_reply() -> Callable[[Any], tuple[Any, bytes] | None]:
    """The early ``initialize`` answer of the installed SDK (:func:`initialize_reply`)."""
    import functools
    from importlib.metadata import PackageNotFoundError, version

    import graphmem

    try:
        sdk: str | None = version("mcp")
    except PackageNotFoundError:
        sdk = None
    return functools.partial(
        initialize_reply,
        sdk=sdk,
        name="graphmem",
        version=graphmem.__version__,
        instructions=INSTRUCTIONS,
    )


def _serve(
    path: str | None,
    engine: str,
    clock: Callable[[], Any] | None,
    ontology: str | None,
    wait: float | None,
    transport: str,
    host: str,
    port: int,
    token: str | None,
    scope: str | None,
) -> None:
    """:func:`serve` once the stdio wire is in place."""
    from graphmem.context import prepare
    from graphmem.memory import Memory
    from graphmem.store import is_url
    from graphmem.store.locks import LEND_TIMEOUT, Lender

    _sdk()  # fail before opening the database

    def opener() -> Memory:
        mem = Memory(path, engine=engine, clock=clock, ontology=ontology, scope=scope)
        try:
            # Build the full-text index now (once per database; ~1 s per 100k entities)
            # rather than in the agent's first `context` call.
            prepare(mem)
        except BaseException:
            mem.close()
            raise
        return mem

    marked = transport == "stdio"  # requests come through the stdio screen
    if path is None or is_url(path):
        # In memory, or a server that takes any number of clients: nothing to lend.
        with opener() as mem:
            _run(build_server(mem, marked=marked), transport, host, port, token)
        return
    lender = Lender(path, opener, wait=LEND_TIMEOUT if wait is None else wait)
    lender.start()
    try:
        _run(build_server(lender, marked=marked), transport, host, port, token)
    finally:
        lender.close()
