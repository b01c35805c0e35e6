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
import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.admission import SOURCE_TYPES, check_source_type, shown
from graphmem.errors import InvalidInput, NotFound
from graphmem.kernel import kernel_of
from graphmem.models import Decision, Fact, WriteResult
from graphmem.normalize import check_text, entity_key
from graphmem.temporal import Plan, plan_assert, plan_retract
from graphmem.timeutil import TimeLike, fmt, to_utc

if TYPE_CHECKING:
    from graphmem.kernel import Kernel, MemoryLike

__all__ = [
    "DEFAULT_ORDER",
    "DISPUTED",
    "DISPUTED_END",
    "NotDisputed",
    "Trust",
    "disputes",
    "gate",
    "is_disputed",
    "is_open_dispute",
    "resolve_dispute",
]

#: The default order of authority, highest first.
DEFAULT_ORDER: tuple[str, ...] = ("user", "import", "tool", "system", "agent")
#: Reason prefix of an open dispute that would have replaced or shortened the current value.
DISPUTED = "disputed: "
#: Reason prefix of an open dispute that would have ended the current value.
DISPUTED_END = "disputed end: "
_ACCEPTED = "dispute accepted"
_REJECTED = "dispute rejected"
#: The audit action of a settled dispute.
AUDIT_ACTION = "resolve_dispute"


class NotDisputed(InvalidInput):
    """``resolve_dispute`` was given a version that is not an open dispute."""


@dataclass(frozen=True)
class Trust:
    """Who may replace whom (docs/concepts/decisions.md#authority-and-disputes).

    Per open memory: ``gm.open(..., trust=Trust(...))``; not stored with the database.

    Args:
        order: source types, highest authority first; a type left out ranks below every
            listed one. Default ``user > import > tool > system > agent``.
        confidence_floor: a write with a lower confidence never closes a version at or above
            it (default 0.5).

    Raises:
        InvalidInput: an unknown or repeated source type, or a floor outside ``[0, 1]``.

    >>> Trust().outranks("user", "agent"), Trust().outranks("agent", "agent")
    (True, False)
    >>> Trust(order=("agent", "user")).outranks("user", "agent")
    False
    >>> Trust(order=("usr",))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphmem.errors.InvalidInput: Trust(order=...) names 'usr', not a source type; use some of ...
    """

    order: tuple[str, ...] = DEFAULT_ORDER
    confidence_floor: float = 0.5

    def __post_init__(self) -> None:
        order = self.order
        if isinstance(order, str) or not isinstance(order, Sequence):
            raise InvalidInput(
                f"Trust(order={order!r}) must be a sequence of source types, highest first, "
                f"e.g. {DEFAULT_ORDER!r}"
            )
        for name in order:
            if name not in SOURCE_TYPES:
                raise InvalidInput(
                    f"Trust(order=...) names {shown(name)}, not a source type; use some of "
                    f"{list(SOURCE_TYPES)}, highest first"
                )
        if len(set(order)) != len(order):
            raise InvalidInput(f"Trust(order={tuple(order)!r}) names a source type twice")
        object.__setattr__(self, "order", tuple(order))
        floor = self.confidence_floor
        if (
            isinstance(floor, bool)
            or not isinstance(floor, (int, float))
            or not math.isfinite(floor)
            or not 0 <= floor <= 1
        ):
            raise InvalidInput(
                f"Trust(confidence_floor={floor!r}) must be a number from 0 to 1, e.g. 0.5"
            )

    def rank(self, source_type: str | None) -> int | None:
        """Higher is more authority; ``None`` for a version nobody said (not ranked)."""
        if source_type is None:
            return None
        try:
            return len(self.order) - self.order.index(source_type)
        except ValueError:
            return 0

    def outranks(self, current: str | None, new: str | None) -> bool:
        """Whether a version said by ``current`` may not be replaced by ``new``."""
        rc, rn = self.rank(current), self.rank(new)
        return rc is not None and rn is not None and rc > rn

    def protects(self, current: Fact, new: Fact) -> str | None:
        """Why ``current`` stays current against ``new``, or ``None`` when it may be closed."""
        if self.outranks(current.source_type, new.source_type):
            return f"{current.source_type} outranks {new.source_type}"
        floor = self.confidence_floor
        if new.confidence < floor <= current.confidence:
            return f"confidence {new.confidence:g} is below the floor {floor:g}"
        return None


def is_disputed(f: Fact) -> bool:
    """Whether ``f`` is a disputed version, open or settled (closed at birth, dispute reason)."""
    return (
        f.expired_at is not None
        and f.expired_at == f.recorded_at
        and (f.reason or "").startswith(("disputed", "dispute "))
    )


def is_open_dispute(f: Fact) -> bool:
    """Whether ``f`` is a dispute not settled yet."""
    return is_disputed(f) and (f.reason or "").startswith((DISPUTED, DISPUTED_END))


def who(f: Fact) -> str:
    """The source type of a version as words (``"an unnamed source"`` when none)."""
    return f.source_type or "an unnamed source"


def gate(plan: Plan, new: Fact, trust: Trust) -> Plan:
    """Turn ``plan`` into a dispute when it would close a version ``trust`` protects.

    ``new`` is the version the write proposed. A dispute closes nothing: the proposed version
    is inserted closed at birth with a ``disputed`` reason naming the version it disputes.
    """
    if not plan.closes:
        return plan
    for close in plan.closes:
        why = trust.protects(close.fact, new)
        if why is None:
            continue
        cur = close.fact
        ends = plan.decision is Decision.INVALIDATE
        src = f" from session {new.source}" if new.source else ""
        verb = "ends" if ends else "says"
        reason = (
            f"{DISPUTED_END if ends else DISPUTED}{who(new)} {verb} {new.object!r} from "
            f"{fmt(new.valid_from)}, but {cur.object!r} by {who(cur)} stays current "
            f"({why}; version {cur.id}), learned {fmt(new.recorded_at)}{src}"
        )
        disputed = new.model_copy(
            update={"expired_at": new.recorded_at, "reason": reason, "superseded_by": None}
        )
        return Plan(Decision.DISPUTE, disputed, inserts=[disputed])
    return plan


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


def check_trust(value: object) -> Trust:
    """``gm.open(trust=...)``: a :class:`Trust` or ``None`` (the default)."""
    if value is None:
        return Trust()
    if not isinstance(value, Trust):
        raise InvalidInput(
            f"trust={value!r} must be a graphmem.Trust, e.g. Trust(order=('user', 'agent'), "
            "confidence_floor=0.5)"
        )
    return value


def check_filter(source_type: object) -> str | None:
    """A ``source_type`` read filter (``facts(source_type=...)``)."""
    return check_source_type(source_type)


def at_or_now(k: Kernel, value: TimeLike | None, name: str) -> dt.datetime:
    """``value`` as aware UTC, or the memory's now."""
    return k.now() if value is None else to_utc(value, name=name)


#: The metadata key set by the first dispute written: reads skip the dispute lookups until then.
HAS_DISPUTES = "has_disputes"


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
