"""The time rules and the structured write decisions, as pure functions.

The rules: docs/concepts/time.md#the-time-rules, docs/concepts/decisions.md#the-decision-rules.

Nothing here touches a store. :func:`plan_assert` and :func:`plan_retract` take the proposed
version and the *current* versions (``expired_at is None``) of the same subject, and return a
:class:`Plan`: which versions to close in system time, which to insert, which to reinforce.
The store applies a plan atomically.

A version is never edited: changing a valid interval closes the old version and inserts a
corrected one (rule 2), so any answer for ``known_at=K`` stays the same after later writes.
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Sequence
from dataclasses import dataclass, field

from graphmem.models import Cardinality, Decision, Fact, trusted
from graphmem.timeutil import fmt

__all__ = ["Close", "Plan", "new_id", "plan_assert", "plan_retract", "shortened", "touches"]


def new_id() -> str:
    """Return a fresh version id (64 random bits, hex)."""
    return "f" + os.urandom(8).hex()  # uuid4().hex[:16] costs 5x more in bulk writes


@dataclass(frozen=True)
class Close:
    """Close ``fact`` in system time, recording who replaced it and why."""

    fact: Fact
    superseded_by: str | None
    reason: str


@dataclass
class Plan:
    """What one write does: the decision, the resulting version and the store operations."""

    decision: Decision
    fact: Fact | None
    closes: list[Close] = field(default_factory=list)
    inserts: list[Fact] = field(default_factory=list)
    reinforce: list[Fact] = field(default_factory=list)


def _end(t: dt.datetime | None) -> dt.datetime:
    return dt.datetime.max.replace(tzinfo=dt.timezone.utc) if t is None else t


def touches(a: Fact, start: dt.datetime, end: dt.datetime | None) -> bool:
    """Return whether ``a``'s valid interval overlaps or touches ``[start, end)``."""
    return a.valid_from <= _end(end) and start <= _end(a.valid_to)


def _contains(outer: Fact, start: dt.datetime, end: dt.datetime | None) -> bool:
    return outer.valid_from <= start and _end(end) <= _end(outer.valid_to)


def _interval(start: dt.datetime, end: dt.datetime | None) -> str:
    return f"[{fmt(start)}, {fmt(end) if end else 'open'})"


def _learned(new: Fact) -> str:
    src = f" from session {new.source}" if new.source else ""
    return f"learned {fmt(new.recorded_at)}{src}"


def shortened(old: Fact, end: dt.datetime, now: dt.datetime) -> Fact:
    """Return a new version of ``old`` valid until ``end``, recorded at ``now``.

    Callers keep ``old.valid_from < end`` (the only check a version's fields need here), so
    the copy is built without a second validation (docs/benchmarks.md#results).
    """
    data = dict(old.__dict__)  # every field, in order
    data.update(
        id=new_id(),
        valid_to=end,
        recorded_at=now,
        expired_at=None,
        superseded_by=None,
        reason=None,
    )
    return trusted(Fact, data)


def plan_assert(
    new: Fact,
    current: Sequence[Fact],
    *,
    cardinality: Cardinality,
    negate: bool = False,
) -> Plan:
    """Decide what asserting ``new`` does to the current versions of its subject.

    Args:
        new: the proposed version (its ``recorded_at`` is the write's system time).
        current: current versions (not closed in system time) of the same subject; versions of
            other predicates only matter for the ``source_ref`` identity rule.
        cardinality: the predicate's cardinality.
        negate: ``new`` is a negation ("no longer ..."): invalidate instead of asserting.

    Returns:
        The plan. Decision order (docs/concepts/decisions.md#the-decision-rules): identity
        (``source_ref``), negation, duplicate or
        re-assertion (rule 5), single-valued supersession (rule 4), otherwise add.
    """
    now = new.recorded_at
    closes: list[Close] = []
    inserts: list[Fact] = []
    live = list(current)

    # 1. Identity: a source_ref that matches a current fact supersedes exactly that fact.
    if new.source_ref:
        same_ref = [v for v in live if v.source_ref == new.source_ref]
        for v in same_ref:
            if (v.predicate, v.object, v.valid_from, v.valid_to, v.statement) == (
                new.predicate,
                new.object,
                new.valid_from,
                new.valid_to,
                new.statement,
            ) and not negate:
                return Plan(Decision.NOOP, v, reinforce=[v])
        for v in same_ref:
            closes.append(
                Close(
                    v,
                    new.id,
                    f"replaced by {new.object!r} through source_ref "
                    f"{new.source_ref!r}, {_learned(new)}",
                )
            )
        live = [v for v in live if v not in same_ref]

    rows = [v for v in live if v.predicate == new.predicate]

    # 3. Negation is checked before the duplicate rule.
    if negate:
        plan = plan_retract(
            [v for v in rows if v.object == new.object],
            at=new.valid_from,
            now=now,
            reason=f"negated by {new.statement or 'a retraction'!r}, {_learned(new)}",
        )
        if closes:
            # A negation inserts no version, so it cannot be the successor of what it closes
            # through source_ref (a dangling superseded_by, found by graphmem check).
            plan.closes[:0] = [Close(c.fact, None, c.reason) for c in closes]
            plan.decision = Decision.INVALIDATE
        return plan

    start, end = new.valid_from, new.valid_to
    same = [v for v in rows if v.object == new.object]
    other = [v for v in rows if v.object != new.object]

    # 4. Single-valued: the new object ends every other version valid at its start, and is
    # itself capped by the next stored version that starts later (out-of-order arrival).
    cut: list[Fact] = []
    if cardinality == "one":
        for v in other:
            if v.valid_at(start):
                cut.append(v)
                reason = (
                    f"superseded by {new.object!r} from {fmt(start)} ({new.predicate} is "
                    f"single-valued), {_learned(new)}"
                )
                if v.valid_from < start:
                    shorter = shortened(v, start, now)
                    inserts.append(shorter)
                    closes.append(Close(v, shorter.id, reason))
                else:  # the interval became empty: close, do not replace
                    closes.append(Close(v, new.id, reason))
        later = [v.valid_from for v in other if v.valid_from > start]
        if later and min(later) < _end(end):
            end = min(later)

    # 5. Duplicate or re-assertion of the same object.
    touching = [v for v in same if touches(v, start, end)]
    if touching:
        explicit_end_news = new.valid_to is not None and any(v.valid_to is None for v in touching)
        if len(touching) == 1 and _contains(touching[0], start, end) and not explicit_end_news:
            kept = touching[0]
            if closes:
                # The new version is not written (an existing one says it already), so it
                # cannot be the successor of what it closes: no superseded_by there, as for a
                # negation (never a dangling one, docs/concepts/time.md#the-time-rules).
                closes = [
                    Close(c.fact, None if c.superseded_by == new.id else c.superseded_by, c.reason)
                    for c in closes
                ]
                return Plan(Decision.SUPERSEDE, kept, closes, inserts, [kept])
            return Plan(Decision.NOOP, kept, reinforce=[kept])
        m_start = min([start] + [v.valid_from for v in touching])
        if explicit_end_news:
            m_end: dt.datetime | None = end
        elif end is None or any(v.valid_to is None for v in touching):
            m_end = None
        else:
            m_end = max([end] + [v.valid_to for v in touching if v.valid_to is not None])
        if cardinality == "one":
            later = [v.valid_from for v in other if v.valid_from > m_start and v not in cut]
            if later and min(later) < _end(m_end):
                m_end = min(later)
        if (
            len(touching) == 1
            and (m_start, m_end) == (touching[0].valid_from, touching[0].valid_to)
            and not closes
        ):
            return Plan(Decision.NOOP, touching[0], reinforce=[touching[0]])
        merged = new.model_copy(
            update={
                "valid_from": m_start,
                "valid_to": m_end,
                "access_count": max(v.access_count for v in touching),
                "pinned": new.pinned or any(v.pinned for v in touching),
            }
        )
        for v in touching:
            closes.append(
                Close(
                    v,
                    merged.id,
                    f"valid interval corrected from "
                    f"{_interval(v.valid_from, v.valid_to)} to "
                    f"{_interval(m_start, m_end)}, {_learned(new)}",
                )
            )
        inserts.append(merged)
        return Plan(Decision.SUPERSEDE, merged, closes, inserts)

    fact = new if end == new.valid_to else new.model_copy(update={"valid_to": end})
    inserts.append(fact)
    # A fact only capped on arrival (rule 4, out of order) is an add.
    decision = Decision.SUPERSEDE if closes else Decision.ADD
    return Plan(decision, fact, closes, inserts)


def plan_retract(
    targets: Sequence[Fact], *, at: dt.datetime, now: dt.datetime, reason: str
) -> Plan:
    """End every target version valid at ``at``: its ``valid_to`` becomes ``at``.

    See docs/concepts/decisions.md#rule-3.

    A version whose interval becomes empty (it starts at or after ``at``) is closed and not
    replaced. Versions not valid at ``at`` are left alone.

    Returns:
        A plan with decision ``invalidate`` (``fact`` is the first shortened version, or
        ``None``), or ``noop`` with ``fact=None`` when no target is valid at ``at``.
    """
    plan = Plan(Decision.INVALIDATE, None)
    for v in targets:
        if not v.valid_at(at):
            continue
        if v.valid_from < at:
            shorter = shortened(v, at, now)
            plan.inserts.append(shorter)
            plan.closes.append(Close(v, shorter.id, f"ended at {fmt(at)}: {reason}"))
            plan.fact = plan.fact or shorter
        else:
            plan.closes.append(Close(v, None, f"retracted from {fmt(at)}: {reason}"))
    if not plan.closes:
        return Plan(Decision.NOOP, None)
    return plan
