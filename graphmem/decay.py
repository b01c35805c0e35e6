"""Importance decay (docs/concepts/hotness.md#decay): for ranking only, never for invalidation.

A fact's effective importance halves every ``half_life`` days and grows slowly with use:

``base * exp(-ln2 * age_days / half_life) * (1 + 0.15 * ln(1 + access_count))``

Half-lives by kind (:data:`HALF_LIVES`): event 30 days, insight 180, directive 365, fact 365;
identity never decays (``None``). A pinned fact never decays either (rare but critical
knowledge) but still gets the access boost.

>>> effective_importance(8.0, kind="event", age_days=30)
4.0
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from types import MappingProxyType

from graphmem.errors import InvalidInput
from graphmem.models import FactKind

__all__ = ["ACCESS_BOOST", "HALF_LIVES", "effective_importance"]

HALF_LIVES: Mapping[str, float | None] = MappingProxyType(
    {
        "event": 30.0,
        "insight": 180.0,
        "directive": 365.0,
        "fact": 365.0,
        "identity": None,
    }
)
"""Half-life in days per fact kind; ``None`` means the kind never decays. Read-only."""

ACCESS_BOOST = 0.15
"""Weight of the logarithmic access boost ``1 + 0.15 * ln(1 + access_count)``."""


def _finite(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InvalidInput(f"{name}={value!r} is not a finite number")
    return float(value)


def effective_importance(
    base: float,
    *,
    kind: FactKind | str,
    age_days: float,
    access_count: int = 0,
    pinned: bool = False,
) -> float:
    """Return a fact's importance after decay and access boost, for ranking.

    Args:
        base: the stored importance (``>= 0``, normally 0 to 10).
        kind: the fact kind, a key of :data:`HALF_LIVES`.
        age_days: days since the fact was recorded or last confirmed; a negative age counts
            as 0 (never boosts above ``base``).
        access_count: how many times the fact was retrieved (``>= 0``).
        pinned: a pinned fact never decays.

    Returns:
        ``base * decay * boost``, where ``decay = exp(-ln2 * age_days / half_life)`` (1 for
        identity and pinned facts) and ``boost = 1 + 0.15 * ln(1 + access_count)``.

    Raises:
        InvalidInput: an unknown ``kind``, a negative or non-finite ``base``, a NaN ``age_days``
            or a negative ``access_count``.

    Examples:
        >>> effective_importance(5.0, kind="fact", age_days=365)
        2.5
        >>> effective_importance(5.0, kind="identity", age_days=10_000)
        5.0
        >>> effective_importance(5.0, kind="event", age_days=300, pinned=True)
        5.0
        >>> round(effective_importance(5.0, kind="fact", age_days=0, access_count=9), 4)
        6.7269
    """
    base = _finite("base", base)
    if base < 0:
        raise InvalidInput(f"base={base!r} is negative; importance is >= 0")
    if kind not in HALF_LIVES:
        known = ", ".join(sorted(HALF_LIVES))
        raise InvalidInput(f"kind={kind!r} is unknown; use one of {known}")
    if isinstance(age_days, bool) or not isinstance(age_days, (int, float)):
        raise InvalidInput(f"age_days={age_days!r} is not a number")
    if math.isnan(age_days):
        raise InvalidInput("age_days=nan is not a number; pass the age in days")
    if isinstance(access_count, bool) or not isinstance(access_count, int) or access_count < 0:
        raise InvalidInput(f"access_count={access_count!r} must be a non-negative int")

    boost = 1.0 + ACCESS_BOOST * math.log1p(access_count)
    half_life = HALF_LIVES[kind]
    if pinned or half_life is None:
        return base * boost
    decay = math.exp(-math.log(2) * max(float(age_days), 0.0) / half_life)
    return base * decay * boost
