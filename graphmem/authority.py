"""The authority rules: who said a version decides what it may replace (pure functions).

See docs/concepts/decisions.md#authority-and-disputes. A :class:`Trust` ranks the source types
and sets a confidence floor; :func:`gate` turns a plan that would close a version the trust
protects into a **dispute** (the proposed version inserted closed at birth, with a
``disputed`` reason). The reads and the settling of disputes, which run on a kernel, are
:mod:`graphmem.trust`'s; it re-exports every name here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.admission import SOURCE_TYPES, shown
from graphmem.errors import InvalidInput
from graphmem.models import Decision, Fact
from graphmem.temporal import Plan
from graphmem.timeutil import fmt

__all__ = [
    "DEFAULT_ORDER",
    "DISPUTED",
    "DISPUTED_END",
    "HAS_DISPUTES",
    "Trust",
    "check_trust",
    "gate",
    "is_disputed",
    "is_open_dispute",
    "who",
]

#: The default order of authority, highest first.
DEFAULT_ORDER: tuple[str, ...] = ("user", "import", "tool", "system", "agent")
#: Reason prefix of an open dispute that would have replaced or shortened the current value.
DISPUTED = "disputed: "
#: Reason prefix of an open dispute that would have ended the current value.
DISPUTED_END = "disputed end: "
#: The metadata key set by the first dispute written: reads skip the dispute lookups until then.
HAS_DISPUTES = "has_disputes"


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
