"""The MCP server's tools: one function per tool, each on the memory of the call.

See docs/agents.md#tools. Each function takes the memory first (the server passes it; the
agent never sees it), then the tool's arguments, whose names are the Python API's; its
docstring is the tool's description. It returns a :class:`~graphmem.mcp_output.Reply`: a short
text for people and the structured result, whose model (declared with :func:`tool`) becomes
the tool's ``outputSchema``. A :class:`~graphmem.errors.GraphmemError` it raises becomes a tool
error (:mod:`graphmem.mcp_server`). Every time argument takes ``YYYY-MM-DD``, an ISO datetime
with an offset, ``today``, ``yesterday`` or ``now``. No MCP SDK is imported here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from graphmem.errors import InvalidInput
from graphmem.mcp_output import (
    ChangeOut,
    ChangesOut,
    ContextOut,
    ExplainOut,
    FactOut,
    FactsOut,
    ItemOut,
    MergeOut,
    PredicateOut,
    PredicatesOut,
    Reply,
    SearchOut,
    SessionOut,
    SessionsOut,
    SessionWriteOut,
    TopicOut,
    TopicsOut,
    TriageOut,
    TriageRowOut,
    WhyOut,
    WriteOut,
    WriteStep,
    fact_line,
    facts_text,
)
from graphmem.timeutil import fmt

if TYPE_CHECKING:
    from graphmem.memory import Memory

__all__ = ["TOOLS", "Tool", "tool"]


class Tool:
    """A registered tool: its function and the model of its structured result."""

    def __init__(self, fn: Callable[..., Reply], output: type[BaseModel]) -> None:
        self.fn = fn
        self.output = output
        self.name = fn.__name__


#: The tools by name, in the order they are registered.
TOOLS: dict[str, Tool] = {}


def tool(output: type[BaseModel]) -> Callable[[Callable[..., Reply]], Callable[..., Reply]]:
    """Register a tool function whose structured result is an ``output``."""

    def register(fn: Callable[..., Reply]) -> Callable[..., Reply]:
        TOOLS[fn.__name__] = Tool(fn, output)
        return fn

    return register


def _result_text(result: Any) -> str:
    """Describe a write: the decision and fact, the versions it closed, any further results."""
    lines = [str(result.decision)]
    if result.fact is not None:
        lines[0] += f": {fact_line(result.fact)}"
    lines += [f"closed: {fact_line(f)}" for f in result.superseded]
    main_id = None if result.fact is None else result.fact.id
    for extra in getattr(result, "results", None) or ():
        if extra is result or (extra.fact is not None and extra.fact.id == main_id):
            continue
        lines.append(_result_text(extra))
    return "\n".join(lines)


def _write(result: Any) -> Reply:
    return Reply(_result_text(result), WriteOut.of(result))


def _facts(rows: Any, empty: str, note: str = "") -> Reply:
    return Reply(note + facts_text(rows, empty), FactsOut.of(list(rows)))


# -- writes ----------------------------------------------------------------------------------------


@tool(WriteOut)
def remember(
    mem: Memory,
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
    learned_at: str | None = None,
    source_type: str | None = "agent",
    confidence: float = 1.0,
) -> Reply:
    """Remember something durable: a structured fact or a free-text note.

    Either subject + predicate + object (e.g. subject="api", predicate="runs_on",
    object="Go"), or free text in `text`, read as claims: "The API runs on Laravel" stores
    API runs_on Laravel, a later "We migrated the API to Go" replaces it (kept as history),
    "Alice no longer works at Acme" ends that fact; questions and plans change nothing;
    text without a claim is kept as a note. "we"/"our" mean `subject` (default: self).
    valid_from / valid_to: when it is true in the world (YYYY-MM-DD, 'today'; default
    now / open-ended; valid_to only for structured facts). kind: fact | event | insight |
    directive | identity. importance: 0-10. source: the session id; source_ref: your own
    key, remembering again with the same key replaces that fact. learned_at: when memory
    learned it, for importing old notes in date order (default now). source_type: who said
    it: agent (default: your own conclusion), user (the user told you), tool, system, import;
    confidence 0-1 (structured facts). A fact said by a higher authority (the user outranks
    the agent) or more confidently is not replaced: your write is kept as a dispute beside it
    (see `disputes`). Returns the decision (add, noop, supersede, invalidate, dispute) and the
    fact.
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
            learned_at=learned_at,
            source_type=source_type,
            confidence=confidence,
        )
        return _write(result)
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
        learned_at=learned_at,
        source_type=source_type,
    )
    return _write(noted)


@tool(WriteOut)
def forget(
    mem: Memory,
    subject: str,
    predicate: str,
    object: str | None = None,  # noqa: A002 - the fact's field name
    at: str | None = None,
    reason: str | None = None,
) -> Reply:
    """Record that a fact stopped being true (retract it; history is kept).

    Ends subject + predicate (+ object, if given) at `at` (YYYY-MM-DD, default now).
    Nothing is deleted; history keeps the old value and
    the `reason`. Fails if no such fact is currently true. (`retract` does the same by id.)
    """
    return _write(mem.retract(subject, predicate, object, at=at, reason=reason))


@tool(WriteOut)
def retract(
    mem: Memory,
    fact_id: str | None = None,
    subject: str | None = None,
    predicate: str | None = None,
    object: str | None = None,  # noqa: A002 - the fact's field name
    at: str | None = None,
    reason: str | None = None,
) -> Reply:
    """End a fact that stopped being true: by `fact_id` (from facts_as_of, search, context).

    Or by subject + predicate (+ object), as `forget`. The fact's valid interval ends at `at`
    (YYYY-MM-DD, default now); nothing is deleted, history keeps it with the `reason`. For a
    value that was never true, use `correct` instead.
    """
    return _write(mem.retract(subject, predicate, object, fact_id=fact_id, at=at, reason=reason))


@tool(WriteOut)
def correct(
    mem: Memory,
    fact_id: str,
    new_object: str,
    reason: str | None = None,
    learned_at: str | None = None,
) -> Reply:
    """Correct a wrong fact: `new_object` replaces fact `fact_id`'s value from its start.

    Use it when the old value was never true (a mistake, a typo), not when it changed: then
    `remember` the new value. The wrong version is kept in history as corrected (what was
    believed before stays answerable); the correction has the same subject, predicate and
    dates. Returns the decision (supersede), the new fact and the version it closed.
    """
    return _write(mem.correct(fact_id, new_object, reason=reason, learned_at=learned_at))


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


@tool(SessionWriteOut)
def add_session(
    mem: Memory,
    text: str,
    started_at: str | None = None,
    title: str | None = None,
    session_id: str | None = None,
    learned_at: str | None = None,
) -> Reply:
    """Log a session (a conversation or work episode) so hot topics and recall know it.

    `text` is the transcript or a summary. The entities and topics it mentions are
    recorded (they drive hot_topics), and its facts are extracted and remembered with this
    session as their source. started_at: when it happened (YYYY-MM-DD or ISO datetime,
    'today'; default now). session_id: your id for it (logging again with the same id
    replaces the session); title: a short name. learned_at: when memory learned it, for
    importing old transcripts oldest first (e.g. learned_at = started_at; default now).
    Returns the session, its mentions and the decision for each fact.
    """
    written = mem.add_session(
        text,
        started_at=(mem.now() if learned_at is None else learned_at)
        if started_at is None
        else started_at,
        session_id=session_id,
        title=title,
        learned_at=learned_at,
    )
    data = SessionWriteOut(
        session=SessionOut.of(written.session),
        results=[WriteStep.of(r) for r in written.results],
    )
    return Reply(_session_text(written), data)


@tool(MergeOut)
def merge_entities(mem: Memory, keep: str, other: str) -> Reply:
    """Merge two names for one thing: `other` into `keep` (e.g. "PostgreSQL" into "Postgres").

    Every current fact about `other` (as subject or object) moves to `keep`; the old
    versions are closed, not edited, so history and what was believed before stay. From
    now on `other` resolves to `keep`. If both had a value of a single-valued relation,
    the one that started later stays current and the other ends there; two starting at
    the same time are refused (forget the wrong one first). Returns what moved.
    """
    merged = mem.merge_entities(keep, other)
    data = MergeOut(
        keep=merged.keep,
        other=merged.other,
        at=merged.at.isoformat(),
        moved=merged.moved,
        closed=list(merged.closed),
        inserted=list(merged.inserted),
        conflicts=[str(c) for c in merged.conflicts],
        aliases=list(merged.aliases),
    )
    return Reply(str(merged), data)


# -- reads -----------------------------------------------------------------------------------------


@tool(ContextOut)
def context(
    mem: Memory,
    query: str,
    budget_tokens: int = 800,
    valid_at: str | None = None,
    known_at: str | None = None,
) -> Reply:
    """Recall what memory knows about a question or topic, as compact text for your prompt.

    `query` is a question or topic, e.g. "what does the api run on?". Returns the current
    facts about the entities it names, their
    neighbours and notes matching its words, best first, as compact lines such as
    "api runs_on Go (since 2026-06-01; was Laravel)". Fits in budget_tokens (~4 chars per
    token). valid_at / known_at (YYYY-MM-DD) ask what was true then / what was believed
    then; both default to now. Superseded facts are never presented as current.
    """
    found = mem.context(query, budget_tokens=budget_tokens, valid_at=valid_at, known_at=known_at)
    text = str(found)
    items = [ItemOut.of(i) for i in getattr(found, "items", ())]
    return Reply(text, ContextOut(query=query, text=text, items=items))


@tool(SearchOut)
def search(
    mem: Memory,
    query: str,
    limit: int = 20,
    valid_at: str | None = None,
    known_at: str | None = None,
) -> Reply:
    """Search memory: scored current facts and session lines for a query, best first.

    Each item has its kind (fact or line), id (a fact id works with why, retract and
    correct), text, score, date and session. valid_at / known_at as for context.
    """
    found = mem.search(query, limit=limit, valid_at=valid_at, known_at=known_at)
    text = "\n".join(f"- {i}" for i in found) or "Nothing matches."
    return Reply(text, SearchOut(query=query, items=[ItemOut.of(i) for i in found]))


@tool(FactsOut)
def facts_as_of(
    mem: Memory,
    subject: str | None = None,
    predicate: str | None = None,
    object: str | None = None,  # noqa: A002 - the fact's field name
    valid_at: str | None = None,
    known_at: str | None = None,
    limit: int = 100,
) -> Reply:
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
    return _facts(rows, "No facts match.")


@tool(FactsOut)
def believed(
    mem: Memory, on: str, subject: str | None = None, predicate: str | None = None
) -> Reply:
    """What memory believed on date `on` was true then (valid_at = known_at = on).

    Answers "what did we think on March 3rd?": later corrections and facts learned after
    `on` are left out. Filter by subject and/or predicate.
    """
    rows = mem.believed(on=on, subject=subject, predicate=predicate)
    return _facts(rows, f"Nothing was believed on {on}.")


@tool(FactsOut)
def history(
    mem: Memory,
    subject: str,
    predicate: str | None = None,
    include_expired: bool = False,
    include_superseded: bool | None = None,
) -> Reply:
    """Show the timeline of a subject: every value it had and when, oldest first.

    Optionally only one `predicate`. include_expired=true also shows versions that were
    corrected or replaced, with the reason — the audit view. (include_superseded is the
    deprecated old name of include_expired.)
    """
    note = ""
    if include_superseded is not None:
        include_expired = include_expired or include_superseded
        note = "note: include_superseded is deprecated; use include_expired\n"
    rows = mem.history(subject, predicate, include_expired=include_expired)
    return _facts(rows, f"No history for {subject!r}.", note)


@tool(FactsOut)
def get_fact(mem: Memory, fact_id: str) -> Reply:
    """Return one fact version by id, current or closed, with both time axes."""
    found = mem.get_fact(fact_id)
    return _facts([found], "")


@tool(WhyOut)
def why(mem: Memory, fact_id: str) -> Reply:
    """Explain a fact: every version of it in the order memory learned them, and its sources.

    Shows what it replaced, what replaced or corrected it (with reasons) and the sessions
    that said it.
    """
    found = mem.why(fact_id)
    data = WhyOut(
        fact=FactOut.of(found.fact),
        chain=[FactOut.of(f) for f in found.chain],
        sessions=[SessionOut.of(s) for s in found.sessions],
        sources=list(found.sources),
    )
    return Reply(found.describe(), data)


@tool(ChangesOut)
def changes(mem: Memory, since: str, until: str | None = None) -> Reply:
    """List what memory learned, superseded, corrected, retracted or merged in a window.

    `since` / `until` are system time (when memory changed its mind), e.g. since="yesterday".
    """
    found = mem.changes(since=since, until=until)
    data = ChangesOut(
        changes=[
            ChangeOut(
                at=c.at.isoformat(),
                action=str(c.action),
                fact=None if c.fact is None else FactOut.of(c.fact),
                replaced_by=None if c.replaced_by is None else FactOut.of(c.replaced_by),
                reason=c.reason,
                detail=c.detail,
            )
            for c in found
        ]
    )
    return Reply("\n".join(f"- {c}" for c in found) or "No changes.", data)


@tool(SessionsOut)
def sessions(mem: Memory, since: str | None = None, until: str | None = None) -> Reply:
    """List the recorded sessions started in [since, until], oldest first, with mentions."""
    found = mem.sessions(since=since, until=until)
    text = "\n".join(
        f"- {s.id} ({fmt(s.started_at)}){': ' + s.title if s.title else ''}" for s in found
    )
    return Reply(text or "No sessions.", SessionsOut(sessions=[SessionOut.of(s) for s in found]))


@tool(TopicsOut)
def hot_topics(
    mem: Memory, limit: int = 10, window_days: float = 30, now: str | None = None
) -> Reply:
    """List the hottest topics: entities mentioned in many recent sessions.

    Each line gives the topic, its hotness score (0-1), band (HOT >= 0.6, WARM >= 0.3,
    COLD) and the number of sessions in the window (default 30 days) that mention it.
    `now` (YYYY-MM-DD) asks as of a past date.
    """
    found = mem.hot_topics(now=now, window_days=window_days, limit=limit)
    topics = [
        TopicOut(
            topic=t.topic, score=t.score, band=str(getattr(t.band, "value", t.band)), hits=t.hits
        )
        for t in found
    ]
    if not topics:
        text = "No topics yet: log sessions with add_session; their mentions make topics."
    else:
        text = "\n".join(f"- {t.topic}: {t.score:.2f} {t.band} ({t.hits} sessions)" for t in topics)
    return Reply(text, TopicsOut(topics=topics))


@tool(TriageOut)
def triage(mem: Memory, limit: int = 5, window_days: float = 30, now: str | None = None) -> Reply:
    """The topics most in need of attention: what to revisit, refresh or let go, with why."""
    found = mem.triage(now=now, limit=limit, window_days=window_days)
    rows = [
        TriageRowOut(
            topic=t.topic,
            recommendation=str(getattr(t.recommendation, "value", t.recommendation)),
            composite=t.composite,
            days_since_last=t.days_since_last,
            n_sessions=t.n_sessions,
            n_facts=t.n_facts,
            reason=t.reason,
        )
        for t in found
    ]
    text = "\n".join(f"- {r.topic}: {r.recommendation} ({r.reason})" for r in rows)
    return Reply(text or "No topics to triage.", TriageOut(topics=rows))


@tool(PredicatesOut)
def predicates(mem: Memory) -> Reply:
    """List the predicates memory knows, with their cardinality and aliases.

    Cardinality one: a new value replaces the old; many: values add up. Use these names (or
    their aliases) in remember.
    """
    found = mem.predicates()
    data = PredicatesOut(
        predicates=[
            PredicateOut(
                name=p.name,
                cardinality=p.cardinality,
                aliases=list(p.aliases),
                inverse=p.inverse,
                symmetric=p.symmetric,
                description=p.description,
            )
            for p in found
        ]
    )
    text = "\n".join(
        f"- {p.name} [{p.cardinality}]" + (f" (also: {', '.join(p.aliases)})" if p.aliases else "")
        for p in found
    )
    return Reply(text, data)


# -- provenance (docs/concepts/decisions.md#authority-and-disputes) --------------------------------


@tool(FactsOut)
def disputes(mem: Memory, subject: str | None = None) -> Reply:
    """List open disputes: writes kept beside a current fact they may not replace.

    A dispute was said by a lower authority, or below the confidence floor. Never served as
    current; one line per dispute with its id, who said it and why it is disputed.
    """
    return _facts(mem.disputes(subject=subject), "No open disputes.")


@tool(WriteOut)
def resolve_dispute(mem: Memory, fact_id: str, accept: bool, reason: str | None = None) -> Reply:
    """Settle one dispute (an id from `disputes`) once the user decided.

    accept=true lets the disputed value replace the current one from its valid_from;
    accept=false keeps the current value. Returns what the write did.
    """
    return _write(mem.resolve_dispute(fact_id, accept=accept, reason=reason))


@tool(ExplainOut)
def explain(mem: Memory, subject: str, predicate: str, at: str) -> Reply:
    """Three readings of a subject's predicate at a date `at` (YYYY-MM-DD).

    What is true now, what we now know was true at `at`, and what we believed at `at` — each
    with who said it (source type, confidence, session).
    """
    r = mem.explain(subject, predicate, at=at)
    data = ExplainOut(
        subject=r.subject,
        predicate=r.predicate,
        at=r.at.isoformat(),
        asked_at=r.asked_at.isoformat(),
        now=[FactOut.of(f) for f in r.now],
        then=[FactOut.of(f) for f in r.then],
        believed=[FactOut.of(f) for f in r.believed],
        disputed=[FactOut.of(f) for f in r.disputed],
    )
    return Reply(str(r), data)
