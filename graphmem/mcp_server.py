"""The MCP server: graphmem's memory as tools for an agent, over stdio.

See docs/concepts/surfaces.md#rule-3.

Run it with ``graphmem --db PATH mcp`` (needs ``pip install 'graphmem[mcp]'``). Register it in an
MCP client with the absolute path of the ``graphmem`` of your virtual environment, e.g. Claude
Desktop's ``claude_desktop_config.json`` (docs/agents.md covers Claude Code and Cursor too)::

    {"mcpServers": {"memory": {"command": "/abs/path/.venv/bin/graphmem",
                               "args": ["--db", "/abs/path/agent.kuzu", "mcp"]}}}

Tools (every time argument takes ``YYYY-MM-DD``, an ISO datetime with an offset, ``today``,
``yesterday`` or ``now``):

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
``add_session``
    Log a session's text: its mentions feed ``hot_topics``, its facts are remembered.

A :class:`~graphmem.errors.GraphmemError` becomes a tool error (``isError``) carrying the same
message, so the agent can read what was wrong and fix its call; so does an unknown argument (the
error lists the valid ones) and text that is not valid Unicode. This module is the only one that
imports the ``mcp`` SDK (1.x ``FastMCP`` or 2.x ``MCPServer``), and only when a server is built.
The server holds the database (Kuzu allows one writing process), serialises tool calls, and
lends the database to the CLI between calls, so that a person can look at (and write to) the
agent's memory while it runs (docs/concurrency.md).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, TypeVar

from graphmem.errors import ExtraUnavailable, GraphmemError, InvalidInput
from graphmem.mcp_wire import bad_text, unmark, wire
from graphmem.models import Fact
from graphmem.timeutil import fmt

if TYPE_CHECKING:
    from graphmem.memory import Memory
    from graphmem.store.locks import Lender

__all__ = ["TOOLS", "build_server", "serve"]

#: The tool names, in the order they are registered.
TOOLS = (
    "remember",
    "context",
    "facts_as_of",
    "history",
    "forget",
    "hot_topics",
    "add_session",
    "merge_entities",
    "disputes",
    "resolve_dispute",
    "explain",
)

INSTRUCTIONS = (
    "graphmem is a long-term memory with time: every fact knows when it was true in the world "
    "and when it was learned. Call `context` with the user's question before answering to "
    "recall what is known; call `remember` when you learn something durable (a preference, a "
    "decision, a change such as 'the api now runs on Go'); call `forget` when something stops "
    "being true; call `add_session` with a conversation's text when it ends, so that hot topics "
    "and recall know it. Superseded facts are kept as history, never served as current."
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
    # who said it (docs/concepts/decisions.md#authority-and-disputes)
    said = [f"by {f.source_type}"] if f.source_type else []
    if f.confidence != 1.0:
        said.append(f"confidence {f.confidence:g}")
    if f.source:
        said.append(f"session {f.source}")
    if said:
        line += f" [{', '.join(said)}]"
    if f.expired_at is not None and f.expired_at == f.recorded_at and f.reason:
        line += f" [{f.reason}]"
    elif f.expired_at is not None:
        line += f" [superseded {fmt(f.expired_at)}: {f.reason or 'closed'}]"
    if f.kind != "fact":
        line += f" [{f.kind}]"
    return f"{line} (id {f.id})"


def _facts_text(facts: Sequence[Fact], empty: str) -> str:
    if not facts:
        return empty
    return "\n".join(f"- {_fact_line(f)}" for f in facts)


def _result_text(result: Any) -> str:
    """Describe a write: the decision and fact, the versions it closed, any further results."""
    lines = [str(result.decision)]
    if result.fact is not None:
        lines[0] += f": {_fact_line(result.fact)}"
    lines += [f"closed: {_fact_line(f)}" for f in result.superseded]
    main_id = None if result.fact is None else result.fact.id
    for extra in getattr(result, "results", None) or ():
        if extra is result or (extra.fact is not None and extra.fact.id == main_id):
            continue
        lines.append(_result_text(extra))
    return "\n".join(lines)


def _session_text(written: Any) -> str:
    """Describe a logged session: id, date, mentions, and the decisions on its facts."""
    session = getattr(written, "session", written)
    mentions = ", ".join(
        f"{name}×{n}" if n > 1 else name
        for name, n in sorted(session.mentions.items(), key=lambda kv: (-kv[1], kv[0]))
    )
    head = f"session {session.id} logged ({fmt(session.started_at)})"
    if session.title:
        head += f": {session.title}"
    lines = [head, f"mentions: {mentions or '(none)'}"]
    results = list(getattr(written, "results", None) or ())
    lines += [_result_text(r) for r in results]
    if not results:
        lines.append("no facts extracted")
    return "\n".join(lines)


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


class _Current:
    """The memory of the tool call being served (tool calls run one at a time)."""

    mem: Memory


def build_server(mem: Memory | Lender[Memory], *, marked: bool = False) -> Any:
    """Return an MCP server (not yet running) whose tools act on ``mem``.

    ``mem`` is a memory, or a :class:`~graphmem.store.locks.Lender` that holds one and lends
    it to other processes between tool calls (what :func:`serve` uses). ``marked``: requests
    come through the stdio screen of :func:`graphmem.mcp_wire.wire` (what :func:`serve` uses).

    Raises:
        ExtraUnavailable: the ``mcp`` extra is not installed.
    """
    import graphmem
    from graphmem.store.locks import Lender

    server_cls, tool_error = _sdk()
    valid: dict[str, tuple[str, ...]] = {}
    server = _strict(server_cls, tool_error, valid, marked=marked)(
        name="graphmem",
        instructions=INSTRUCTIONS,
        version=graphmem.__version__,
        log_level="WARNING",
    )
    lock = threading.Lock()  # the SDK runs sync tools in worker threads; one store connection
    current = _Current()
    use: Callable[[], AbstractContextManager[Memory]] = (
        mem.use if isinstance(mem, Lender) else lambda: contextlib.nullcontext(mem)
    )

    def tool(fn: Callable[..., str]) -> Callable[..., str]:
        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> str:
            with lock:
                try:
                    with use() as current.mem:
                        return fn(*args, **kwargs)
                except GraphmemError as exc:
                    raise tool_error(str(exc)) from exc

        valid[fn.__name__] = tuple(inspect.signature(fn).parameters)
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
        source_type: str | None = "agent",
        confidence: float = 1.0,
    ) -> str:
        """Remember something durable: a structured fact or a free-text note.

        Either subject + predicate + object (e.g. subject="api", predicate="runs_on",
        object="Go"), or free text in `text`, read as claims: "The API runs on Laravel" stores
        API runs_on Laravel, a later "We migrated the API to Go" replaces it (kept as history),
        "Alice no longer works at Acme" ends that fact; questions and plans change nothing;
        text without a claim is kept as a note. "we"/"our" mean `subject` (default: self).
        valid_from / valid_to: when it is true in the world (YYYY-MM-DD, 'today'; default
        now / open-ended; valid_to only for structured facts). kind: fact | event | insight |
        directive | identity. importance: 0-10. source: the session id; source_ref: your own
        key, remembering again with the same key replaces that fact. source_type: who said
        it: agent (default: your own conclusion), user (the user told you), tool, system,
        import; confidence 0-1 (structured facts). A fact said by a higher authority (the user
        outranks the agent) or more confidently is not replaced: your write is kept as a
        dispute beside it (see `disputes`). Returns the decision (add, noop, supersede,
        invalidate, dispute) and the fact.
        """
        mem = current.mem
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
                source_type=source_type,
                confidence=confidence,
            )
            return _result_text(result)
        if not text or not text.strip():
            raise InvalidInput("nothing to remember: pass text, or subject + predicate + object")
        if valid_to is not None:
            raise InvalidInput(
                "valid_to applies to structured facts; a note ends when you forget it or "
                "remember a text that negates it"
            )
        noted = mem.remember(
            text,
            subject=subject,
            at=valid_from,
            kind=kind or "insight",
            source=source,
            source_ref=source_ref,
            importance=importance,
            source_type=source_type,
        )
        return _result_text(noted)

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
        return str(
            current.mem.context(
                query, budget_tokens=budget_tokens, valid_at=valid_at, known_at=known_at
            )
        )

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
        rows = current.mem.facts(
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
        subject: str,
        predicate: str | None = None,
        include_expired: bool = False,
        include_superseded: bool | None = None,
    ) -> str:
        """Show the timeline of a subject: every value it had and when, oldest first.

        Optionally only one `predicate`. include_expired=true also shows versions that were
        corrected or replaced, with the reason — the audit view. (include_superseded is the
        deprecated old name of include_expired.)
        """
        note = ""
        if include_superseded is not None:
            include_expired = include_expired or include_superseded
            note = "note: include_superseded is deprecated; use include_expired\n"
        rows = current.mem.history(subject, predicate, include_expired=include_expired)
        return note + _facts_text(rows, f"No history for {subject!r}.")

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
        return _result_text(current.mem.retract(subject, predicate, object, at=at, reason=reason))

    @tool
    def hot_topics(limit: int = 10, window_days: float = 30, now: str | None = None) -> str:
        """List the hottest topics: entities mentioned in many recent sessions.

        Each line gives the topic, its hotness score (0-1), band (HOT >= 0.6, WARM >= 0.3,
        COLD) and the number of sessions in the window (default 30 days) that mention it.
        `now` (YYYY-MM-DD) asks as of a past date.
        """
        topics = current.mem.hot_topics(now=now, window_days=window_days, limit=limit)
        if not topics:
            return "No topics yet: log sessions with add_session; their mentions make topics."
        return "\n".join(
            f"- {t.topic}: {t.score:.2f} {getattr(t.band, 'value', t.band)} ({t.hits} sessions)"
            for t in topics
        )

    @tool
    def add_session(
        text: str,
        started_at: str | None = None,
        title: str | None = None,
        session_id: str | None = None,
    ) -> str:
        """Log a session (a conversation or work episode) so hot topics and recall know it.

        `text` is the transcript or a summary. The entities and topics it mentions are
        recorded (they drive hot_topics), and its facts are extracted and remembered with this
        session as their source. started_at: when it happened (YYYY-MM-DD or ISO datetime,
        'today'; default now). session_id: your id for it (logging again with the same id
        replaces the session); title: a short name. Returns the session, its mentions and the
        decision for each fact.
        """
        mem = current.mem
        written = mem.add_session(
            text,
            started_at=mem.now() if started_at is None else started_at,
            session_id=session_id,
            title=title,
        )
        return _session_text(written)

    @tool
    def merge_entities(keep: str, other: str) -> str:
        """Merge two names for one thing: `other` into `keep` (e.g. "PostgreSQL" into "Postgres").

        Every current fact about `other` (as subject or object) moves to `keep`; the old
        versions are closed, not edited, so history and what was believed before stay. From
        now on `other` resolves to `keep`. If both had a value of a single-valued relation,
        the one that started later stays current and the other ends there; two starting at
        the same time are refused (forget the wrong one first). Returns what moved.
        """
        return str(current.mem.merge_entities(keep, other))

    @tool
    def disputes(subject: str | None = None) -> str:
        """List open disputes: writes kept beside a current fact they may not replace.

        A dispute was said by a lower authority, or below the confidence floor. Never served
        as current; one line per dispute with its id, who said it and why it is disputed.
        """
        rows = current.mem.disputes(subject=subject)
        return _facts_text(rows, "No open disputes.")

    @tool
    def resolve_dispute(fact_id: str, accept: bool, reason: str | None = None) -> str:
        """Settle one dispute (an id from `disputes`) once the user decided.

        accept=true lets the disputed value replace the current one from its valid_from;
        accept=false keeps the current value. Returns what the write did.
        """
        return _result_text(current.mem.resolve_dispute(fact_id, accept=accept, reason=reason))

    @tool
    def explain(subject: str, predicate: str, at: str) -> str:
        """Three readings of a subject's predicate at a date `at` (YYYY-MM-DD).

        What is true now, what we now know was true at `at`, and what we believed at `at` —
        each with who said it (source type, confidence, session).
        """
        return str(current.mem.explain(subject, predicate, at=at))

    return server


def serve(
    path: str | None,
    *,
    engine: str = "kuzu",
    clock: Callable[[], Any] | None = None,
    ontology: str | None = "default",
    wait: float | None = None,
) -> None:
    """Open the memory at ``path`` and serve it over stdio until the client disconnects.

    ``ontology`` is :func:`graphmem.open`'s (``"default"``, ``None`` or a file). Between tool
    calls the database is lent to other processes that ask for it (the CLI does): see
    :class:`~graphmem.store.locks.Lender`; a tool call waits up to ``wait`` seconds (default
    :data:`~graphmem.store.locks.LEND_TIMEOUT`) for such a loan to end.

    Raises:
        ExtraUnavailable: the ``mcp`` extra is not installed.
        StoreBusy: another process holds the database.
    """
    from graphmem.context import prepare
    from graphmem.memory import Memory
    from graphmem.store import is_url
    from graphmem.store.locks import LEND_TIMEOUT, Lender

    _sdk()  # fail before opening the database

    def opener() -> Memory:
        mem = Memory(path, engine=engine, clock=clock, ontology=ontology)
        try:
            # Build the full-text index now (once per database; ~1 s per 100k entities)
            # rather than in the agent's first `context` call.
            prepare(mem)
        except BaseException:
            mem.close()
            raise
        return mem

    if path is None or is_url(path):
        # In memory, or a server that takes any number of clients: nothing to lend.
        with opener() as mem, wire():
            build_server(mem, marked=True).run("stdio")
        return
    lender = Lender(path, opener, wait=LEND_TIMEOUT if wait is None else wait)
    lender.start()
    try:
        with wire():
            build_server(lender, marked=True).run("stdio")
    finally:
        lender.close()
