"""Provenance and trust: who said a fact decides what it may replace.

See docs/concepts/decisions.md#authority-and-disputes.

Every version records who said it (``source_type``: ``user``, ``agent``, ``tool``, ``system``,
``import``, or ``None`` when nobody said) and how sure they were (``confidence``). A
:class:`Trust` ranks the source types and sets a confidence floor. A write whose plan would close
a current version is checked against each version it closes (:func:`gate`):

- the current version's source type outranks the write's, or
- the write's confidence is below the floor while the current version's is at or above it,

and then closes nothing: the write is stored as a **disputed** version beside the current one.
A write or a version without a source type is not ranked (it neither protects nor is refused
for authority), so memories written before provenance behave as they always did.

**Storage.** A disputed version is inserted *closed at birth*: ``expired_at = recorded_at``, an
empty system interval, so no ``known_at`` answer (``facts``, ``believed``, ``context``, ...)
ever contains it, before or after any later write; its ``reason`` starts with ``disputed:``
(or ``disputed end:`` when the write would have ended the current value). Settling it
(:func:`resolve_dispute`) rewrites only that reason (``dispute accepted ...`` / ``dispute
rejected ...``) and leaves an audit record; accepting writes the disputed value again as an
ordinary supersession. No schema field besides ``Fact.source_type``.

>>> import graphmem as gm
>>> from graphmem.timeutil import ManualClock
>>> clock = ManualClock("2026-01-01")
>>> mem = gm.open(clock=clock)
>>> _ = mem.add_fact("api", "runs_on", "Go", source_type="user")
>>> clock.set("2026-02-01")
>>> r = mem.add_fact("api", "runs_on", "Rust", source_type="agent")
>>> str(r.decision), [f.object for f in mem.facts(subject="api")]
('dispute', ['Go'])
>>> [d.object for d in mem.disputes()]
['Rust']
>>> clock.set("2026-02-02")
>>> str(mem.resolve_dispute(r.fact.id, accept=True).decision)
'supersede'
>>> [f.object for f in mem.facts(subject="api")], mem.disputes()
(['Rust'], [])
>>> mem.close()
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphmem.admission import check_source_type

# The pure rules live in graphmem.authority (a core module, below the kernel); re-exported here.
from graphmem.authority import (
    DEFAULT_ORDER,
    DISPUTED,
    DISPUTED_END,
    HAS_DISPUTES,
    Trust,
    check_trust,
    gate,
    is_disputed,
    is_open_dispute,
    who,
)
from graphmem.errors import InvalidInput, NotFound
from graphmem.kernel import kernel_of
from graphmem.models import Decision, Fact, WriteResult
from graphmem.normalize import check_text, entity_key
from graphmem.scopes import check_own_scope
from graphmem.temporal import plan_assert, plan_retract
from graphmem.timeutil import TimeLike, fmt, to_utc

if TYPE_CHECKING:
    from graphmem.kernel import Kernel, MemoryLike

__all__ = [
    "DEFAULT_ORDER",
    "DISPUTED",
    "DISPUTED_END",
    "HAS_DISPUTES",
    "NotDisputed",
    "Trust",
    "check_trust",
    "disputes",
    "gate",
    "is_disputed",
    "is_open_dispute",
    "resolve_dispute",
    "who",
]

_ACCEPTED = "dispute accepted"
_REJECTED = "dispute rejected"
#: The audit action of a settled dispute.
AUDIT_ACTION = "resolve_dispute"


class NotDisputed(InvalidInput):
    """``resolve_dispute`` was given a version that is not an open dispute."""


def disputes(
    mem: MemoryLike, *, subject: str | None = None, include_settled: bool = False
) -> list[Fact]:
    """The disputed versions, oldest first (docs/concepts/decisions.md#authority-and-disputes).

    Args:
        mem: the memory.
        subject: only disputes about this subject.
        include_settled: also the disputes already accepted or rejected.

    Raises:
        InvalidInput: a bad subject name.
    """
    k = kernel_of(mem)
    keep = is_disputed if include_settled else is_open_dispute
    rows = k.subject_facts(subject) if subject is not None else k.store.query_facts()
    found = [f for f in rows if keep(f)]
    found.sort(key=lambda f: (f.recorded_at, f.subject, f.predicate, f.id))
    return found


def open_at(k: Kernel, versions: Sequence[Fact], at: dt.datetime) -> list[Fact]:
    """Of disputed ``versions``, those recorded by ``at`` and not settled by then.

    Settlement times come from the audit records, so the answer for a past ``at`` never
    changes when a dispute is settled later (docs/concepts/time.md#rule-2).
    """
    cands = [v for v in versions if is_disputed(v) and v.recorded_at <= at]
    if not cands:
        return []
    since = min(v.recorded_at for v in cands)
    settled: set[str] = set()
    until = at + dt.timedelta(microseconds=1)
    for _, _, action, detail in k.store.audit_records(since=since, until=until):
        if action != AUDIT_ACTION:
            continue
        try:
            info = json.loads(detail)
        except ValueError:
            continue
        if isinstance(info, dict) and isinstance(info.get("fact"), str):
            settled.add(info["fact"])
    return [v for v in cands if v.id not in settled]


def resolve_dispute(
    mem: MemoryLike, fact_id: str, *, accept: bool, reason: str | None = None
) -> WriteResult:
    """Settle one dispute in one audited write (docs/concepts/decisions.md#authority-and-disputes).

    ``accept=True``: the disputed value is written again now and supersedes the current one as
    an ordinary write from the disputed version's ``valid_from`` (or ends it, for a disputed
    end); ``accept=False``: the current value stays. Either way the disputed version's reason
    says how it was settled and an audit record (``changes()``: ``resolved``) keeps when.

    Returns:
        Accepted: the write's result. Rejected: ``noop`` with the settled disputed version.

    Raises:
        NotFound: no version has that id.
        NotDisputed: the version is not an open dispute (never disputed, or settled).
        InvalidInput: ``accept`` is not a bool, or a bad reason.
    """
    from graphmem.contradiction import negates_fact
    from graphmem.temporal import new_id
    from graphmem.writes import WriteBatch

    k = kernel_of(mem)
    if not isinstance(accept, bool):
        raise InvalidInput(f"accept={accept!r} must be True (take the disputed value) or False")
    check_text(fact_id, what="fact_id")
    if reason is not None:
        check_text(reason, what="reason")
    with k.uow.write() as w:
        now = w.at
        found = k.store.get_facts([fact_id])
        if not found:
            raise NotFound(
                f"no fact version with id {fact_id!r} in memory {k.where!r}; list open "
                "disputes with mem.disputes() (CLI: graphmem disputes)"
            )
        d = found[0]
        check_own_scope(d, k.scope)
        if not is_open_dispute(d):
            state = "already settled" if is_disputed(d) else "not disputed"
            raise NotDisputed(
                f"fact version {fact_id!r} is {state}; resolve_dispute takes the id of an open "
                "dispute from mem.disputes() (CLI: graphmem disputes)"
            )
        why = f": {reason}" if reason else ""
        dsid = entity_key(d.subject)
        if not accept:
            text = f"{_REJECTED} on {fmt(now)}{why}; was {d.reason}"
            w.changes.settles.append((dsid, d.id, text))
            result = WriteResult(decision=Decision.NOOP, fact=d.model_copy(update={"reason": text}))
            new_fid = None
        else:
            sid = k.entity_id(d.subject, what="subject")
            pred = k.ontology.resolve(d.predicate)
            current = k.store.current_versions([sid])[sid]
            if (d.reason or "").startswith(DISPUTED_END):
                okey = entity_key(d.object)
                plan = plan_retract(
                    [
                        v
                        for v in current
                        if v.predicate == pred.name and entity_key(v.object) == okey
                    ],
                    at=d.valid_from,
                    now=now,
                    reason=f"dispute {d.id} accepted{why} ({who(d)} ended it)",
                )
            else:
                new = d.model_copy(
                    update={
                        "id": new_id(),
                        "recorded_at": now,
                        "expired_at": None,
                        "reason": None,
                        "superseded_by": None,
                        "access_count": 0,
                        "last_accessed_at": None,
                    }
                )
                plan = plan_assert(
                    new,
                    current if new.source_ref else [v for v in current if v.predicate == pred.name],
                    cardinality=pred.cardinality,
                    negate=bool(new.statement)
                    and negates_fact(new.statement or "", subject=new.subject, object=new.object),
                )
            batch = WriteBatch(now, {sid: current})
            result = batch.apply(sid, plan)
            batch.fill(w.changes)
            new_fid = result.fact.id if result.fact is not None else None
            into = f": now version {new_fid}" if new_fid else ""
            w.changes.settles.append(
                (dsid, d.id, f"{_ACCEPTED} on {fmt(now)}{why}{into}; was {d.reason}")
            )
        detail = {"fact": d.id, "accept": accept, "version": new_fid, "reason": reason}
        w.changes.audit.append(("a" + uuid.uuid4().hex[:16], AUDIT_ACTION, json.dumps(detail)))
    return result


def check_filter(source_type: object) -> str | None:
    """A ``source_type`` read filter (``facts(source_type=...)``)."""
    return check_source_type(source_type)


def at_or_now(k: Kernel, value: TimeLike | None, name: str) -> dt.datetime:
    """``value`` as aware UTC, or the memory's now."""
    return k.now() if value is None else to_utc(value, name=name)


def dispute_notes(
    k: Kernel, slots: Sequence[tuple[str, str]], at: dt.datetime
) -> dict[tuple[str, str], str]:
    """``(subject id, predicate)`` -> ``"disputed by agent on D: X"``, for disputes open at ``at``.

    ``context()``'s notes (docs/concepts/decisions.md#authority-and-disputes).

    One query per distinct slot, and none at all in a memory that never stored a dispute.
    """
    wanted = list(dict.fromkeys(slots))
    if not wanted or k.store.get_meta(HAS_DISPUTES) is None:
        return {}
    out: dict[tuple[str, str], str] = {}
    for sid, pred in wanted:
        versions = [
            v
            for v in k.store.query_facts(subject_id=sid, predicate=pred)
            if v.expired_at is not None and v.expired_at == v.recorded_at
        ]
        found = open_at(k, versions, at)
        if found:
            out[(sid, pred)] = "; ".join(
                f"disputed by {who(d)} on {fmt(d.recorded_at)}: {d.object}" for d in found[:2]
            ) + (f"; +{len(found) - 2} more" if len(found) > 2 else "")
    return out


_SPEAKERS = {
    "user": "user",
    "human": "user",
    "me": "user",
    "assistant": "agent",
    "ai": "agent",
    "agent": "agent",
    "bot": "agent",
    "system": "system",
    "tool": "tool",
}


def speaker_source_type(speaker: str | None) -> str | None:
    """The source type of a transcript speaker; ``None`` for anyone else.

    ``user:`` turns are the user's, ``assistant:`` turns the agent's.

    >>> speaker_source_type("User"), speaker_source_type("assistant"), speaker_source_type("Kim")
    ('user', 'agent', None)
    """
    if not speaker:
        return None
    return _SPEAKERS.get(speaker.strip().casefold())
