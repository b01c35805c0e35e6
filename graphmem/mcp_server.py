"""The MCP server (SPEC §6): graphmem's memory as tools for an agent, over stdio.

Run it with ``graphmem --db PATH mcp`` (needs ``pip install 'graphmem[mcp]'``). Register it in an
MCP client, e.g. Claude Desktop's ``claude_desktop_config.json``::

    {"mcpServers": {"memory": {"command": "graphmem", "args": ["--db", "/path/mem.kuzu", "mcp"]}}}

Tools (every time argument takes ``YYYY-MM-DD`` or an ISO datetime with an offset):

``remember``
    Store a fact: structured (``subject``, ``predicate``, ``object``) or free text (``text``).
    Contradictions are resolved as for ``add_fact`` (a new single-valued value supersedes the
    old one, "no longer ..." invalidates).
``context``
    Recall: the facts relevant to a question, as a compact text block (``Memory.context``).
``facts_as_of``
    The facts true at ``valid_at`` as believed at ``known_at``.
``history``
    A subject's timeline, optionally with every superseded version.
``forget``
    Retract: end a fact at a time (history is kept).
``hot_topics``
    Topics ranked by hotness (recent, recurring mentions in sessions).

A :class:`~graphmem.errors.GraphmemError` becomes a tool error (``isError``) carrying the same
message, so the agent can read what was wrong and fix its call. This module is the only one that
imports the ``mcp`` SDK (1.x ``FastMCP`` or 2.x ``MCPServer``), and only when a server is built.
The server holds the database open (Kuzu allows one writing process) and serialises tool calls.
"""

from __future__ import annotations

import functools
import importlib
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from graphmem.errors import ExtraUnavailable, GraphmemError, InvalidInput
from graphmem.models import Fact, WriteResult
from graphmem.timeutil import fmt

if TYPE_CHECKING:
    from graphmem.memory import Memory

__all__ = ["TOOLS", "build_server", "serve"]

#: The tool names, in the order they are registered.
TOOLS = ("remember", "context", "facts_as_of", "history", "forget", "hot_topics")

INSTRUCTIONS = (
    "graphmem is a long-term memory with time: every fact knows when it was true in the world "
    "and when it was learned. Call `context` with the user's question before answering to "
    "recall what is known; call `remember` when you learn something durable (a preference, a "
    "decision, a change such as 'the api now runs on Go'); call `forget` when something stops "
    "being true. Superseded facts are kept as history, never served as current."
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


def _fact_line(f: Fact) -> str:
    valid = f"{fmt(f.valid_from)} → {fmt(f.valid_to) if f.valid_to else 'open'}"
    line = f"{f.subject} {f.predicate} {f.object} [valid {valid}]"
    if f.expired_at is not None:
        line += f" [superseded {fmt(f.expired_at)}: {f.reason or 'closed'}]"
    if f.kind != "fact":
        line += f" [{f.kind}]"
    return f"{line} (id {f.id})"


def _facts_text(facts: Sequence[Fact], empty: str) -> str:
    if not facts:
        return empty
    return "\n".join(f"- {_fact_line(f)}" for f in facts)


def _result_text(result: WriteResult) -> str:
    lines = [str(result.decision)]
    if result.fact is not None:
        lines[0] += f": {_fact_line(result.fact)}"
    lines += [f"closed: {_fact_line(f)}" for f in result.superseded]
    return "\n".join(lines)


def build_server(mem: Memory) -> Any:
    """Return an MCP server (not yet running) whose tools act on ``mem``.

    Raises:
        ExtraUnavailable: the ``mcp`` extra is not installed.
    """
    server_cls, tool_error = _sdk()
    server = server_cls(name="graphmem", instructions=INSTRUCTIONS, log_level="WARNING")
    lock = threading.Lock()  # the SDK runs sync tools in worker threads; one store connection

    def tool(fn: Callable[..., str]) -> Callable[..., str]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> str:
            with lock:
                try:
                    return fn(*args, **kwargs)
                except GraphmemError as exc:
                    raise tool_error(str(exc)) from exc

        server.add_tool(wrapper, name=fn.__name__, description=fn.__doc__)
        return wrapper

    @tool
    def remember(
        text: str | None = None,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,  # noqa: A002 - the fact's field name
        valid_from: str | None = None,
        valid_to: str | None = None,
        kind: str | None = None,
        importance: float | None = None,
        source: str | None = None,
        source_ref: str | None = None,
    ) -> str:
        """Remember something durable: a structured fact or a free-text note.

        Either subject + predicate + object (e.g. subject="api", predicate="runs_on",
        object="Go"), or free text in `text` (e.g. "we deploy with Docker Compose"), optionally
        about a `subject`. A new value of a single-valued predicate (works_at, lives_in,
        runs_on, ...) replaces the old one, which is kept as history; text such as "Alice no
        longer works at Acme" ends the matching fact. valid_from / valid_to: when it is true in
        the world (YYYY-MM-DD; default now / open-ended; valid_to only for structured facts).
        kind: fact | event | insight | directive | identity. importance: 0-10. source: the
        session id; source_ref: your own key, remembering again with the same key replaces
        that fact. Returns the decision (add, noop, supersede, invalidate) and the fact.
        """
        if predicate is not None or object is not None:
            if subject is None or predicate is None or object is None:
                raise InvalidInput(
                    "a structured fact needs subject, predicate and object; for free text pass "
                    "only text (and optionally subject)"
                )
            result = mem.add_fact(
                subject,
                predicate,
                object,
                valid_from=valid_from,
                valid_to=valid_to,
                kind=kind or "fact",
                importance=importance,
                source=source,
                source_ref=source_ref,
                statement=text,
            )
            return _result_text(result)
        if not text or not text.strip():
            raise InvalidInput("nothing to remember: pass text, or subject + predicate + object")
        if valid_to is not None:
            raise InvalidInput(
                "valid_to applies to structured facts; a note ends when you forget it or "
                "remember a text that negates it"
            )
        result = mem.remember(
            text,
            subject=subject,
            at=valid_from,
            kind=kind or "insight",
            source=source,
            source_ref=source_ref,
            importance=importance,
        )
        return _result_text(result)

    @tool
    def context(
        query: str,
        budget_tokens: int = 800,
        valid_at: str | None = None,
        known_at: str | None = None,
    ) -> str:
        """Recall what memory knows about a question or topic, as compact text for your prompt.

        `query` is a question or topic, e.g. "what does the api run on?". Returns the current
        facts about the entities it names, their
        neighbours and notes matching its words, best first, as compact lines such as
        "api runs_on Go (since 2026-06-01; was Laravel)". Fits in budget_tokens (~4 chars per
        token). valid_at / known_at (YYYY-MM-DD) ask what was true then / what was believed
        then; both default to now. Superseded facts are never presented as current.
        """
        return mem.context(query, budget_tokens=budget_tokens, valid_at=valid_at, known_at=known_at)

    @tool
    def facts_as_of(
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,  # noqa: A002 - the fact's field name
        valid_at: str | None = None,
        known_at: str | None = None,
        limit: int = 100,
    ) -> str:
        """List the facts true at a date as believed at a date (bi-temporal query).

        `valid_at` is world time, `known_at` what memory knew then; both YYYY-MM-DD and
        defaulting to now. Filter by subject, predicate and/or
        object. "What did we believe on D?" is valid_at=D, known_at=D. One line per fact with
        its validity interval and id.
        """
        rows = mem.facts(
            subject=subject,
            predicate=predicate,
            object=object,
            valid_at=valid_at,
            known_at=known_at,
            limit=limit,
        )
        return _facts_text(rows, "No facts match.")

    @tool
    def history(
        subject: str, predicate: str | None = None, include_superseded: bool = False
    ) -> str:
        """Show the timeline of a subject: every value it had and when, oldest first.

        Optionally only one `predicate`. include_superseded=true also shows versions that were
        corrected or
        replaced, with the reason — the audit view.
        """
        rows = mem.history(subject, predicate, include_expired=include_superseded)
        return _facts_text(rows, f"No history for {subject!r}.")

    @tool
    def forget(
        subject: str,
        predicate: str,
        object: str | None = None,  # noqa: A002 - the fact's field name
        at: str | None = None,
        reason: str | None = None,
    ) -> str:
        """Record that a fact stopped being true (retract it; history is kept).

        Ends subject + predicate (+ object, if given) at `at` (YYYY-MM-DD, default now).
        Nothing is deleted; history keeps the old value and
        the `reason`. Fails if no such fact is currently true.
        """
        return _result_text(mem.retract(subject, predicate, object, at=at, reason=reason))

    @tool
    def hot_topics(limit: int = 10, window_days: float = 30, now: str | None = None) -> str:
        """List the hottest topics: entities mentioned in many recent sessions.

        Each line gives the topic, its hotness score (0-1), band (HOT >= 0.6, WARM >= 0.3,
        COLD) and the number of sessions in the window (default 30 days) that mention it.
        `now` (YYYY-MM-DD) asks as of a past date.
        """
        topics = mem.hot_topics(now=now, window_days=window_days, limit=limit)
        if not topics:
            return "No topics yet: topics come from the mentions recorded with sessions."
        return "\n".join(
            f"- {t.topic}: {t.score:.2f} {getattr(t.band, 'value', t.band)} ({t.hits} sessions)"
            for t in topics
        )

    return server


def serve(
    path: str | None, *, engine: str = "kuzu", clock: Callable[[], Any] | None = None
) -> None:
    """Open the memory at ``path`` and serve it over stdio until the client disconnects.

    Raises:
        ExtraUnavailable: the ``mcp`` extra is not installed.
        StoreBusy: another process holds the database.
    """
    from graphmem.memory import Memory
    from graphmem.store.search import ensure_entity_index

    _sdk()  # fail before opening the database
    with Memory(path, engine=engine, clock=clock) as mem:
        # Build the full-text index now (once per database; ~1 s per 100k entities) rather
        # than in the agent's first `context` call.
        ensure_entity_index(mem._store)
        build_server(mem).run("stdio")
