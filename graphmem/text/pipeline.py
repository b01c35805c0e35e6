"""Text → claims → writes: the one pipeline behind every path that takes text.

``remember(text)``, ``add_session(text)``, ``ingest_text(text)``, the CLI and the MCP tools
all come here. For each text:

1. it is cut into sentences and turns (:mod:`graphmem.text.nlp`, spaCy's blank pipeline);
2. each sentence gives claims (:mod:`graphmem.text.claims`), read in order so that "she" and
   "it" refer back and "we"/"our"/"I" are the memory's owner subject;
3. inside one unit of work (:func:`plan`), the claims are resolved against the current facts
   of their subjects, read there (:mod:`graphmem.text.resolve`): change statements find the
   relation they change, or stay notes;
4. every row is planned by the write rules into that unit of work's change set, with the
   sentence as ``statement`` and the session (if any) as ``source``; every closed version's
   ``reason`` quotes the sentence that closed it. The caller adds what else the write holds (a
   session) and the change set commits at once (docs/concepts/text.md#one-write).

A text with no claim at all is stored as a free-text note (docs/concepts/decisions.md#rule-5),
compared with the subject's current notes. So is a change statement that cannot be resolved to
exactly one fact:
when unsure, graphmem adds. A session's text is not copied into a note: the session keeps it,
line by line, for episodic recall (and a purge redacts it in one place).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInput
from graphmem.kernel import kernel_of
from graphmem.models import Decision, Fact, Predicate, TextResult, WriteResult
from graphmem.normalize import entity_key
from graphmem.temporal import Close, Plan, plan_assert, plan_retract
from graphmem.text.claims import Claim
from graphmem.text.logforms import unmerged
from graphmem.text.readers import BuiltinReader, Reading, group
from graphmem.text.resolve import INCOMING_LIMIT, Action, Resolver
from graphmem.timeutil import fmt
from graphmem.writes import FactRows, open_rows

if TYPE_CHECKING:
    from graphmem.kernel import Kernel, MemoryLike, Write
    from graphmem.similarity import Similarity

__all__ = ["Reading", "Segment", "TextPlan", "plan", "read", "read_texts", "summarize", "write"]

_RANK = {
    Decision.SUPERSEDE: 0,
    Decision.INVALIDATE: 1,
    Decision.DISPUTE: 2,
    Decision.ADD: 3,
    Decision.NOOP: 4,
}


@dataclass(frozen=True)
class Segment:
    """One text to write: what was said, when it speaks from, and its session (``source``)."""

    text: str
    at: dt.datetime
    source: str | None = None
    is_session: bool = False


def read(text: str, *, at: dt.datetime, owner: str = "self") -> Reading:
    """Return ``(sentence, claims)`` for every sentence of a text with the built-in reader.

    No store access.

    Raises:
        InvalidInput: ``text`` is not a string.
    """
    if not isinstance(text, str):
        raise InvalidInput(f"text={text!r} is not a string; pass the text to read")
    return BuiltinReader().readings([(text, at)], owner=owner)[0]


def read_texts(
    kernel: Kernel, texts: Sequence[tuple[str, dt.datetime]], *, owner: str
) -> list[Reading]:
    """The readings of many texts by the memory's reader (the built-in one parses in a batch).

    Raises:
        InvalidInput: a caller's reader returned something other than claims.
    """
    reader = kernel.reader
    if reader is None:
        return BuiltinReader().readings(texts, owner=owner)
    return [group(text, list(reader.read(text, at=at, owner=owner))) for text, at in texts]


def _quote(text: str, limit: int = 120) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def _said(reason: str, claim: Claim) -> str:
    return f"{reason}; said: {_quote(claim.sentence)}"


def summarize(results: Sequence[WriteResult]) -> TextResult:
    """Fold the results of one text into a :class:`~graphmem.models.TextResult`."""
    if not results:
        return TextResult(decision=Decision.NOOP, fact=None, results=())
    main = min(results, key=lambda r: _RANK[r.decision])
    closed = tuple(f for r in results for f in r.superseded)
    return TextResult(
        decision=main.decision, fact=main.fact, superseded=closed, results=tuple(results)
    )


@dataclass
class _Row:
    op: str  # assert | end | note
    claim: Claim | None
    segment: int


def _resolver(kernel: Kernel, owner: str, now: dt.datetime) -> Resolver:

    store = kernel.store

    def key(name: str) -> str:
        try:
            return kernel.entity_id(name)
        except InvalidInput:
            return entity_key(name) if name.strip() else name

    def current(sids: Sequence[str]) -> dict[str, list[Fact]]:
        return store.current_versions(sorted(set(sids)))

    def incoming(oid: str) -> list[Any]:
        return store.facts_to([oid], known_at=now, valid_at=now, limit=INCOMING_LIMIT)

    def lookup(name: str) -> Predicate | None:
        try:
            return kernel.ontology.lookup(name)
        except InvalidInput:  # marks only ("→" in a pasted table) name no relation
            return None

    return Resolver(key=key, current=current, incoming=incoming, lookup=lookup, owner=owner)


@dataclass
class TextPlan:
    """The planned writes of some texts, in the change set of one unit of work (:func:`plan`)."""

    #: The fact rows, planned and put into the change set.
    facts: FactRows
    #: What each write did, per segment, in text order.
    results: list[list[WriteResult]]

    def committed(self) -> None:
        """After the unit of work commits (:meth:`graphmem.writes.FactRows.committed`)."""
        self.facts.committed()


def plan(
    kernel: Kernel,
    w: Write,
    segments: Sequence[Segment],
    readings: Sequence[Reading],
    *,
    owner: str,
    kind: str = "fact",
    note_kind: str = "insight",
    importance: float | None = None,
    source_type: str | None = None,
    similarity: Similarity | None = None,
) -> TextPlan:
    """Resolve and plan the claims of every segment into the change set of the write ``w``.

    The claims are resolved against the current facts of their subjects, read inside ``w``
    (so no other writer changes them before the commit), and planned by the write rules; the
    caller adds what else the write holds (a session) and commits it
    (docs/concepts/text.md#one-write). No store writes.

    Args:
        kernel: the memory's kernel.
        w: the unit of work the plan goes into.
        segments: the texts, in order.
        readings: their claims (:func:`read_texts`), one reading per segment.
        owner: the subject of first-person statements, and of notes.
        kind: the kind of the facts written from claims.
        note_kind: the kind of notes written for texts without claims.
        importance: importance of everything written.
        source_type: who says it (admission control).
        similarity: compares a note with the subject's current notes.

    Raises:
        InvalidInput: a bad value; the write commits nothing.
        RateLimited: a kind's hourly limit is reached; the write commits nothing.
    """
    rows, meta = _resolved(
        kernel, w.at, segments, readings, owner, kind, note_kind, importance, source_type
    )
    facts = open_rows(kernel, w, rows)
    sim = similarity or kernel.similarity
    out: list[list[WriteResult]] = [[] for _ in segments]
    for m, row in zip(meta, facts, strict=True):
        out[m.segment].append(
            facts.apply(row, _plan(m, row.fact, facts.versions(row.subject_id), kernel, sim))
        )
    facts.fill(w.changes)
    return TextPlan(facts, out)


def _says_more(sentence: str, ended: Sequence[Action]) -> bool:
    """Whether a sentence read only for what it said ended names more than that.

    "Marcus Webb has taken over as lead after Sarah Chen moved to the platform team" ends
    Sarah Chen's facts and keeps its text, as a note, for what was not read (the new lead):
    a capitalised word, not the sentence's first, that no ended value holds
    (docs/concepts/text.md#said-ended). "We dropped Zendesk" says no more.
    """
    gone = " ".join(a.object.casefold() for a in ended)
    first = len(sentence) - len(re.sub(r"^\W*", "", sentence))  # where its first word starts
    return any(
        m.start() != first and m.group(0).casefold() not in gone
        for m in re.finditer(r"\b[A-Z][\w.-]+", sentence)
    )


def _resolved(
    kernel: Kernel,
    now: dt.datetime,
    segments: Sequence[Segment],
    readings: Sequence[Reading],
    owner: str,
    kind: str,
    note_kind: str,
    importance: float | None,
    source_type: str | None,
) -> tuple[list[dict[str, Any]], list[_Row]]:
    """The fact rows the claims of the segments resolve to, and each row's origin (reads only).

    A text that gave no fact, or the sentences of a text that gave none, become a note.
    """
    from graphmem.notes import NOTE

    rows: list[dict[str, Any]] = []
    meta: list[_Row] = []
    resolver = _resolver(kernel, owner, now)
    # One store query for the current facts of every subject the claims name.
    resolver.prefetch(
        {c.subject for reading in readings for _, claims in reading for c in claims} | {owner}
    )
    for i, seg in enumerate(segments):
        reading = readings[i]
        said_by = _speakers(seg.text)
        # an open or declined pull request only proposes its changes
        # (docs/concepts/text.md#pull-requests)
        proposed = unmerged(seg.text)
        written = 0
        unread: list[str] = []  # sentences no write came from, in text order
        read_ones: list[str] = []
        for sentence, claims in reading:
            wrote = False
            unresolved: list[Claim] = []
            ended: list[Action] = []
            for claim in claims:
                if proposed and (claim.change or claim.replaces or not claim.polarity):
                    continue
                actions = resolver.resolve(claim, seg.at)
                if actions is None:
                    unresolved.append(claim)
                    continue
                ended += [a for a in actions if a.op == "end"]
                who = said_by(claim.sentence or sentence) or source_type
                for a in actions:
                    rows.append(_row(a, seg, kind, importance, who, kernel))
                    meta.append(_Row(a.op, claim, i))
                    written += 1
                wrote = wrote or bool(actions)
            # what the sentence says ended that its claims did not end
            # (docs/concepts/text.md#said-ended)
            said = (
                []
                if proposed
                else resolver.said_ended(
                    sentence, claims, seg.at, unresolved=unresolved, ended=ended
                )
            )
            for a in said:
                who = said_by(a.claim.sentence or sentence) or source_type
                rows.append(_row(a, seg, kind, importance, who, kernel))
                meta.append(_Row(a.op, a.claim, i))
                written += 1
            if wrote or (said and not _says_more(sentence, said)):
                read_ones.append(sentence)
            elif sentence not in unread:
                unread.append(sentence)
        note_text = None
        if seg.is_session:
            pass  # the session keeps its text (and its indexed lines): no copy as a note
        elif written == 0:
            note_text = seg.text.strip() or None
        elif unread:
            # No text a caller gave is lost (docs/concepts/text.md#notes-and-sessions):
            # the sentences that gave no fact are kept as a note, as the lines that hold them
            # ("[13:02] kim: ty"); a copy of the sentences read would show their values again
            # after a change closed them. Too short even so: the whole text.
            note_text = _unread_lines(seg.text, unread, read_ones)
            if not kernel.admission.statement_ok(note_text):
                note_text = seg.text.strip()
        if note_text:
            rows.append(
                {
                    "subject": owner,
                    "predicate": NOTE,
                    "object": note_text,
                    "statement": note_text,
                    "valid_from": seg.at,
                    "kind": note_kind,
                    "importance": importance,
                    "source": seg.source,
                    "source_type": source_type,
                }
            )
            meta.append(_Row("note", None, i))
    return rows, meta


def _unread_lines(text: str, unread: Sequence[str], read: Sequence[str]) -> str:
    """The lines of ``text`` holding the unread sentences and none read, else the sentences.

    One line each, so a record's fields stay fields (docs/concepts/recall.md#field-said-again).
    """
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    kept: list[str] = []
    for sentence in unread:
        home = next((ln for ln in lines if sentence in ln), None)
        if home is None or any(r in home for r in read):
            home = sentence  # a line that also holds a sentence read: the sentence alone
        if home not in kept:
            kept.append(home)
    return "\n".join(kept)  # a record's lines stay lines (its fields: restated.field_of)


def _speakers(text: str) -> Callable[[str], str | None]:
    """Who said a sentence of ``text``: the source type of its turn's speaker, if known.

    ``user:`` turns are the user's, ``assistant:`` (``ai``, ``agent``, ``bot``) turns the
    agent's; other speakers (named people) and plain text give ``None``
    (docs/concepts/decisions.md#authority-and-disputes).
    """
    from graphmem.text.nlp import _turns
    from graphmem.trust import speaker_source_type

    if ":" not in text:
        return lambda sentence: None
    turns = [(speaker_source_type(who), body) for who, body in _turns(text) if who]
    if not turns:
        return lambda sentence: None

    def said_by(sentence: str) -> str | None:
        probe = " ".join(sentence.split())[:60]
        for kind, body in turns:
            if probe and probe in " ".join(body.split()):
                return kind
        return None

    return said_by


def _plan(m: _Row, fact: Fact, versions: list[Fact], kernel: Kernel, sim: Similarity) -> Plan:
    """The plan of one row of a text: a note, an end or a claim, over its subject's versions."""
    from graphmem.notes import plan_note

    if m.op == "note":
        return plan_note(fact, versions, similarity=sim)
    assert m.claim is not None
    same = [v for v in versions if v.predicate == fact.predicate]
    if m.op == "end":
        okey = entity_key(fact.object)
        targets = [v for v in same if entity_key(v.object) == okey]
        src = f" from session {fact.source}" if fact.source else ""
        return plan_retract(
            targets,
            at=fact.valid_from,
            now=fact.recorded_at,
            reason=f"said {_quote(m.claim.sentence)}, learned {fmt(fact.recorded_at)}{src}",
        )
    pred = kernel.ontology.lookup(fact.predicate)
    many = pred.cardinality == "many" if pred is not None else m.claim.many
    many = many or m.claim.together  # docs/concepts/text.md#open-relations
    planned = plan_assert(fact, same, cardinality="many" if many else "one")
    planned.closes = [
        Close(c.fact, c.superseded_by, _said(c.reason, m.claim)) for c in planned.closes
    ]
    return planned


def write(
    mem: MemoryLike,
    segments: Sequence[Segment],
    *,
    owner: str,
    kind: str = "fact",
    note_kind: str = "insight",
    importance: float | None = None,
    source_type: str | None = None,
    similarity: Similarity | None = None,
) -> list[list[WriteResult]]:
    """Read the segments, plan their claims and commit them as one write; results per segment.

    The straight line of docs/concepts/text.md#one-write: :func:`read_texts`, then one unit of
    work holding :func:`plan`. The arguments are :func:`plan`'s.

    Raises:
        InvalidInput: a bad value; nothing is written.
        RateLimited: a kind's hourly limit is reached; nothing is written.
    """
    kernel = kernel_of(mem)
    with kernel.lock:
        readings = read_texts(kernel, [(seg.text, seg.at) for seg in segments], owner=owner)
        with kernel.uow.write() as w:
            planned = plan(
                kernel,
                w,
                segments,
                readings,
                owner=owner,
                kind=kind,
                note_kind=note_kind,
                importance=importance,
                source_type=source_type,
                similarity=similarity,
            )
        planned.committed()
    return planned.results


def _row(
    a: Action,
    seg: Segment,
    kind: str,
    importance: float | None,
    source_type: str | None,
    kernel: Kernel,
) -> dict[str, Any]:
    row = {
        "subject": a.subject,
        "predicate": a.predicate,
        "object": a.object,
        "valid_from": a.valid_from,
        "valid_to": a.valid_to,
        "statement": a.claim.sentence or None,
        "kind": kind,
        "importance": importance,
        "source": seg.source,
        "source_type": source_type,
    }
    if kernel.ontology.lookup(a.predicate) is None:  # docs/concepts/text.md#open-relations
        row["cardinality"] = "many" if a.claim.many else "one"
    return row
