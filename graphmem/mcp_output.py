"""The MCP tools' structured results: one typed model per kind of answer, and short texts.

See docs/agents.md#structured-results. Every tool of :mod:`graphmem.mcp_tools` returns a
:class:`Reply`: a short text for people (the ``content`` block) and one of the models below (the
``structuredContent``, validated against the tool's ``outputSchema``, which the SDK derives
from the model). The field names are the Python API's (``valid_from`` / ``valid_to`` is world
time, ``recorded_at`` / ``expired_at`` system time, when memory believed it); times are ISO-8601
strings in UTC. This module imports no MCP SDK: a new tool only adds a model here (or reuses
one) and a function there.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field

from graphmem.models import Fact
from graphmem.timeutil import fmt

__all__ = [
    "ChangeOut",
    "ChangesOut",
    "ContextOut",
    "ExplainOut",
    "FactOut",
    "FactsOut",
    "ItemOut",
    "MergeOut",
    "PredicateOut",
    "PredicatesOut",
    "Reply",
    "SearchOut",
    "SessionOut",
    "SessionWriteOut",
    "SessionsOut",
    "TopicOut",
    "TopicsOut",
    "TriageOut",
    "TriageRowOut",
    "WhyOut",
    "WriteOut",
    "WriteStep",
    "fact_line",
    "facts_text",
    "iso",
]


def iso(value: dt.datetime | None) -> str | None:
    """A time as an ISO-8601 string (UTC), or ``None``."""
    return None if value is None else value.isoformat()


class _Out(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class FactOut(_Out):
    """One fact version with both time axes."""

    id: str
    subject: str
    predicate: str
    object: str
    kind: str
    valid_from: str = Field(description="When it became true in the world (ISO-8601, UTC).")
    valid_to: str | None = Field(description="When it stopped being true; null: open-ended.")
    recorded_at: str = Field(description="When memory learned it (system time).")
    expired_at: str | None = Field(description="When memory stopped believing it; null: current.")
    superseded_by: str | None = None
    reason: str | None = None
    statement: str | None = None
    source: str | None = Field(default=None, description="The session it came from.")
    source_type: str | None = Field(
        default=None, description="Who said it: user, import, tool, system or agent."
    )
    source_ref: str | None = None
    importance: float
    confidence: float
    scope: str = Field(default="", description="The scope it was written in; '': the root.")

    @classmethod
    def of(cls, f: Fact) -> FactOut:
        """The model of a fact version."""
        return cls(
            id=f.id,
            subject=f.subject,
            predicate=f.predicate,
            object=f.object,
            kind=f.kind,
            valid_from=f.valid_from.isoformat(),
            valid_to=iso(f.valid_to),
            recorded_at=f.recorded_at.isoformat(),
            expired_at=iso(f.expired_at),
            superseded_by=f.superseded_by,
            reason=f.reason,
            statement=f.statement,
            source=f.source,
            source_type=f.source_type,
            source_ref=f.source_ref,
            importance=f.importance,
            confidence=f.confidence,
            scope=f.scope,
        )


def _facts(rows: Iterable[Fact]) -> list[FactOut]:
    return [FactOut.of(f) for f in rows]


class FactsOut(_Out):
    """A list of fact versions (``facts_as_of``, ``believed``, ``history``, ``get_fact``)."""

    facts: list[FactOut]
    count: int

    @classmethod
    def of(cls, rows: Sequence[Fact]) -> FactsOut:
        """The model of a list of versions."""
        return cls(facts=_facts(rows), count=len(rows))


class ExplainOut(_Out):
    """The three readings of a slot at a date (``explain``), each a list of versions."""

    subject: str
    predicate: str
    at: str
    asked_at: str
    now: list[FactOut] = Field(description="True now, as known now.")
    then: list[FactOut] = Field(description="True at `at`, as known now.")
    believed: list[FactOut] = Field(description="True at `at`, as believed at `at`.")
    disputed: list[FactOut] = Field(description="Open disputes about the slot (never current).")


class WriteStep(_Out):
    """What one write did: the decision, the version written and the versions it closed."""

    decision: str = Field(description="add, noop, supersede or invalidate.")
    fact: FactOut | None
    superseded: list[FactOut]

    @classmethod
    def of(cls, result: Any) -> WriteStep:
        """The model of a :class:`~graphmem.models.WriteResult`."""
        return cls(
            decision=str(result.decision),
            fact=None if result.fact is None else FactOut.of(result.fact),
            superseded=_facts(result.superseded),
        )


def _steps(result: Any) -> list[Any]:
    """Every write of a result, the main one first, without repeats."""
    out = [result]
    main_id = None if result.fact is None else result.fact.id
    for extra in getattr(result, "results", None) or ():
        if extra is result or (extra.fact is not None and extra.fact.id == main_id):
            continue
        out.append(extra)
    return out


class WriteOut(_Out):
    """A write (``remember``, ``forget``, ``retract``, ``correct``): its first step and all."""

    decision: str = Field(description="The decision of the main write.")
    fact: FactOut | None
    superseded: list[FactOut]
    results: list[WriteStep] = Field(description="Every write it made, the main one first.")

    @classmethod
    def of(cls, result: Any) -> WriteOut:
        """The model of a WriteResult or a TextResult."""
        steps = [WriteStep.of(r) for r in _steps(result)]
        return cls(
            decision=steps[0].decision,
            fact=steps[0].fact,
            superseded=steps[0].superseded,
            results=steps,
        )


class ItemOut(_Out):
    """One scored recall item: a current fact or a session line."""

    kind: str = Field(description="fact or line.")
    id: str = Field(description="The fact version's id, or '<session id>#<n>' for a line.")
    text: str
    score: float
    date: str = Field(description="A fact's valid_from; a line's session start.")
    session: str | None = None
    superseded: str | None = None

    @classmethod
    def of(cls, item: Any) -> ItemOut:
        """The model of a :class:`~graphmem.episodic.SearchItem`."""
        return cls(
            kind=item.kind,
            id=item.id,
            text=item.text,
            score=float(item.score),
            date=item.date.isoformat(),
            session=item.session,
            superseded=item.superseded,
        )


class ContextOut(_Out):
    """``context``: the text block for a prompt and the items in it, best first."""

    query: str
    text: str
    items: list[ItemOut]


class SearchOut(_Out):
    """``search``: scored facts and session lines, best first."""

    query: str
    items: list[ItemOut]


class TopicOut(_Out):
    """One hot topic."""

    topic: str
    score: float
    band: str = Field(description="HOT (>= 0.6), WARM (>= 0.3) or COLD.")
    hits: int = Field(description="Sessions in the window that mention it.")


class TopicsOut(_Out):
    """``hot_topics``."""

    topics: list[TopicOut]


class SessionOut(_Out):
    """One recorded session (without its text)."""

    id: str
    started_at: str
    ended_at: str | None
    title: str | None
    source: str | None
    mentions: dict[str, int]

    @classmethod
    def of(cls, s: Any) -> SessionOut:
        """The model of a :class:`~graphmem.models.Session`."""
        return cls(
            id=s.id,
            started_at=s.started_at.isoformat(),
            ended_at=iso(s.ended_at),
            title=s.title,
            source=s.source,
            mentions=dict(s.mentions),
        )


class SessionWriteOut(_Out):
    """``add_session``: the session logged and the decision on each fact its text stated."""

    session: SessionOut
    results: list[WriteStep]


class SessionsOut(_Out):
    """``sessions``: recorded sessions, oldest first."""

    sessions: list[SessionOut]


class WhyOut(_Out):
    """``why``: a version, its whole chain in system time and the sessions that asserted it."""

    fact: FactOut
    chain: list[FactOut]
    sessions: list[SessionOut]
    sources: list[str]


class ChangeOut(_Out):
    """One change of knowledge in system time."""

    at: str
    action: str = Field(
        description="learned, superseded, corrected, retracted, merged, purged, defined, redefined."
    )
    fact: FactOut | None
    replaced_by: FactOut | None
    reason: str | None
    detail: str | None


class ChangesOut(_Out):
    """``changes``: what memory learned or stopped believing in a window."""

    changes: list[ChangeOut]


class TriageRowOut(_Out):
    """The triage of one topic."""

    topic: str
    recommendation: str
    composite: float
    days_since_last: float | None
    n_sessions: int
    n_facts: int
    reason: str


class TriageOut(_Out):
    """``triage``: the topics most in need of attention."""

    topics: list[TriageRowOut]


class PredicateOut(_Out):
    """One predicate of the ontology."""

    name: str
    cardinality: str = Field(description="one (a new value supersedes) or many.")
    aliases: list[str]
    inverse: str | None
    symmetric: bool
    description: str


class PredicatesOut(_Out):
    """``predicates``: the ontology."""

    predicates: list[PredicateOut]


class MergeOut(_Out):
    """``merge_entities``: what moved from ``other`` to ``keep``."""

    keep: str
    other: str
    at: str
    moved: int
    closed: list[str]
    inserted: list[str]
    conflicts: list[str]
    aliases: list[str]


class Reply(NamedTuple):
    """What a tool returns: a short text for people and the structured result."""

    text: str
    data: BaseModel


# -- short texts -----------------------------------------------------------------------------------


def fact_line(f: Fact) -> str:
    """One line for a version: triple, valid interval, who said it, closing, kind, id."""
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
        line += f" [{f.reason}]"  # a dispute: kept beside the current version, never current
    elif f.expired_at is not None:
        line += f" [superseded {fmt(f.expired_at)}: {f.reason or 'closed'}]"
    if f.kind != "fact":
        line += f" [{f.kind}]"
    return f"{line} (id {f.id})"


def facts_text(facts: Sequence[Fact], empty: str) -> str:
    """A bulleted list of versions, or ``empty``."""
    if not facts:
        return empty
    return "\n".join(f"- {fact_line(f)}" for f in facts)
