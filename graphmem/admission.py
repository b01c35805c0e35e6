"""Admission control on writes: importance bands, statement bounds, hourly rate limits.

See docs/concepts/hotness.md#admission.

An :class:`AdmissionPolicy` says what a write may carry; a :class:`RateLimiter` counts writes
per kind in a sliding one-hour window of **system time** (the injected clock), so tests with a
:class:`~graphmem.timeutil.ManualClock` are deterministic. Configure it at open::

    gm.open(path, admission=AdmissionPolicy(rate_limits={"insight": 100}))
    gm.open(path, admission=AdmissionPolicy.unlimited())   # no rate limits (backfills)
    gm.open(path, admission=AdmissionPolicy.off())         # no clamping or limits

What is checked, in order:

1. **Statement length**: a ``statement`` (and the text of ``remember``) must have between
   ``min_statement_chars`` (default 3) and ``max_statement_chars`` (default 10,000, at most
   :data:`~graphmem.normalize.MAX_NAME`) characters once surrounding whitespace is stripped;
   otherwise :class:`~graphmem.errors.InvalidInput`. The size bounds of every other field
   (:mod:`graphmem.normalize`) apply whatever the policy.
2. **Importance** is clamped into its kind's band (identity 7–9, directive 6–10, insight 5–8,
   event 3–7, fact 1–10); ``source_type="user"`` then adds ``user_bonus`` (+1), capped at 10.
   A missing importance starts from 5, so an identity defaults to 7 and an event to 5.
3. **Rate limits**: at most ``rate_limits[kind]`` writes of that kind in any hour (identity 5,
   directive 10, insight 20, event 50, fact unlimited); one more raises
   :class:`~graphmem.errors.RateLimited` and writes nothing. It is a circuit breaker against
   an agent stuck in a loop: a ``noop`` (re-asserting what is known) is not counted, nor is
   ``add_facts`` (bulk imports bypass rate limits; clamping and bounds still apply).

How writes are counted: in memory, per :class:`~graphmem.Memory`, and persisted in the store's
``rate_window`` metadata record (the system instants of the rate-limited writes of the last
hour), written in the same transaction as the write. The first rate-limited write of a
``Memory`` seeds its window from that record (one key read, never a scan of the facts), so a
restart does not reset the window.

>>> policy = AdmissionPolicy()
>>> policy.clamp_importance("identity", 3.0)
7.0
>>> policy.clamp_importance("insight", 8.0, source_type="user")
9.0
>>> policy.rate_limit("insight"), policy.rate_limit("fact")
(20, None)
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType

from pydantic import BaseModel, ConfigDict, Field, model_validator

from graphmem.errors import InvalidInput, RateLimited
from graphmem.normalize import MAX_NAME
from graphmem.timeutil import fmt, to_utc

__all__ = [
    "DEFAULT_RATE_LIMITS",
    "IMPORTANCE_BANDS",
    "SOURCE_TYPES",
    "AdmissionPolicy",
    "RateLimiter",
    "check_source_type",
    "shown",
]

#: Importance band per kind (docs/concepts/hotness.md#admission): a write's importance is
#: clamped into it.
IMPORTANCE_BANDS: Mapping[str, tuple[float, float]] = MappingProxyType(
    {
        "identity": (7.0, 9.0),
        "directive": (6.0, 10.0),
        "insight": (5.0, 8.0),
        "event": (3.0, 7.0),
        "fact": (1.0, 10.0),
    }
)
#: Writes allowed per kind per hour (``None``: unlimited).
DEFAULT_RATE_LIMITS: Mapping[str, int | None] = MappingProxyType(
    {"identity": 5, "directive": 10, "insight": 20, "event": 50, "fact": None}
)
#: Who a write comes from; only ``"user"`` changes anything (the importance bonus).
SOURCE_TYPES: tuple[str, ...] = ("user", "agent", "tool", "system", "import")


def shown(value: object, limit: int = 60) -> str:
    """Return ``repr(value)``, cut to about ``limit`` characters for error messages.

    >>> shown("x" * 100, limit=10)
    "'xxxxxxx…"
    """
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 2] + "…"


class AdmissionPolicy(BaseModel):
    """What a write may carry: importance bands, statement bounds and hourly rate limits.

    Args:
        importance_bands: ``{kind: (low, high)}``; kinds not listed are not clamped.
        user_bonus: added to the clamped importance when ``source_type="user"`` (cap 10).
        min_statement_chars: shortest statement accepted (after stripping whitespace).
        max_statement_chars: longest statement accepted, at most
            :data:`~graphmem.normalize.MAX_NAME` (a note stores its text as the object, and an
            object is bounded by ``MAX_NAME``).
        rate_limits: ``{kind: writes per window}``; ``None`` or a missing kind is unlimited.
        window: the sliding window of the rate limits (system time).
        clamp: ``False`` keeps importance as given (still 0–10).

    Raises:
        pydantic.ValidationError: a malformed policy (negative limits, low > high, ...).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    importance_bands: Mapping[str, tuple[float, float]] = Field(
        default_factory=lambda: dict(IMPORTANCE_BANDS)
    )
    user_bonus: float = Field(default=1.0, ge=0.0, le=10.0)
    min_statement_chars: int = Field(default=3, ge=1)
    max_statement_chars: int = Field(default=10_000, ge=1, le=MAX_NAME)
    rate_limits: Mapping[str, int | None] = Field(default_factory=lambda: dict(DEFAULT_RATE_LIMITS))
    window: dt.timedelta = Field(default=dt.timedelta(hours=1), gt=dt.timedelta(0))
    clamp: bool = True

    @model_validator(mode="after")
    def _check(self) -> AdmissionPolicy:
        for kind, (low, high) in self.importance_bands.items():
            if not 0 <= low <= high <= 10:
                raise ValueError(
                    f"importance band of {kind!r} is ({low}, {high}); need 0 <= low <= high <= 10"
                )
        for kind, limit in self.rate_limits.items():
            if limit is not None and limit < 0:
                raise ValueError(f"rate limit of {kind!r} is {limit}; use >= 0 or None")
        if self.min_statement_chars > self.max_statement_chars:
            raise ValueError(
                f"min_statement_chars={self.min_statement_chars} exceeds "
                f"max_statement_chars={self.max_statement_chars}"
            )
        return self

    @classmethod
    def unlimited(cls) -> AdmissionPolicy:
        """Return the default policy without rate limits (for backfills and benchmarks)."""
        return cls(rate_limits={})

    @classmethod
    def off(cls) -> AdmissionPolicy:
        """Return a policy that admits everything valid: no clamping, no rate limits."""
        return cls(rate_limits={}, clamp=False, min_statement_chars=1, max_statement_chars=MAX_NAME)

    def rate_limit(self, kind: str) -> int | None:
        """Return how many writes of ``kind`` are allowed per window (``None``: unlimited)."""
        return self.rate_limits.get(kind)

    def clamp_importance(
        self, kind: str, importance: float, *, source_type: str | None = None
    ) -> float:
        """Clamp ``importance`` into the band of ``kind``, plus the user bonus.

        Args:
            kind: the fact kind.
            importance: the requested importance (0–10, already validated).
            source_type: who the write comes from; ``"user"`` adds ``user_bonus``.

        Returns:
            The admitted importance, at most 10.

        Examples:
            >>> AdmissionPolicy().clamp_importance("event", 9)
            7.0
            >>> AdmissionPolicy.off().clamp_importance("event", 9)
            9.0
        """
        value = float(importance)
        if not self.clamp:
            return value
        band = self.importance_bands.get(kind)
        if band is not None:
            value = min(max(value, band[0]), band[1])
        if source_type == "user":
            value += self.user_bonus
        return min(value, 10.0)

    def statement_ok(self, text: str) -> bool:
        """Whether a statement's length is within the bounds (see :meth:`check_statement`)."""
        return self.min_statement_chars <= len(text.strip()) <= self.max_statement_chars

    def check_statement(self, text: str, *, name: str = "statement") -> None:
        """Check a statement's length against the bounds.

        Raises:
            InvalidInput: too short or too long; the message gives the length and the bound.
        """
        n = len(text.strip())
        if n < self.min_statement_chars:
            raise InvalidInput(
                f"{name}={shown(text)} has {n} character(s); admission control needs at least "
                f"{self.min_statement_chars}: write a complete statement"
            )
        if n > self.max_statement_chars:
            raise InvalidInput(
                f"{name}={text[:40]!r}... has {n} characters; admission control allows at most "
                f"{self.max_statement_chars}: split it into several memories or raise "
                "AdmissionPolicy(max_statement_chars=...)"
            )


def parse_window(text: str | None, since: dt.datetime) -> list[tuple[str, dt.datetime]]:
    """Read a persisted rate window (see :meth:`RateLimiter.dumps`); corrupt data counts as empty.

    >>> parse_window('{"identity": ["2026-01-01T00:30:00+00:00"]}', to_utc("2026-01-01"))
    [('identity', datetime.datetime(2026, 1, 1, 0, 30, tzinfo=datetime.timezone.utc))]
    >>> parse_window("not json", to_utc("2026-01-01"))
    []
    """
    try:
        data = json.loads(text or "{}")
        rows = [
            (str(k), to_utc(dt.datetime.fromisoformat(t))) for k, ts in data.items() for t in ts
        ]
    except (ValueError, TypeError, AttributeError):
        return []
    return [(k, t) for k, t in rows if t > since]


def check_source_type(value: object, *, name: str = "source_type") -> str | None:
    """Return a valid ``source_type`` (or ``None``).

    Raises:
        InvalidInput: not one of :data:`SOURCE_TYPES`.
    """
    if value is None or value in SOURCE_TYPES:
        return None if value is None else str(value)
    raise InvalidInput(f"{name}={shown(value)} is invalid; use one of {list(SOURCE_TYPES)} or None")


#: Called once, on the first rate-limited write: ``since -> [(kind, system instant)]``.
Seed = Callable[[dt.datetime], Iterable[tuple[str, dt.datetime]]]


class RateLimiter:
    """Count writes per kind in a sliding window of system time; refuse the one too many.

    Args:
        policy: the admission policy (its ``rate_limits`` and ``window``).
        seed: returns ``(kind, instant)`` of the writes already stored since a time; called
            lazily on the first check of a rate-limited kind.

    >>> t = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    >>> rl = RateLimiter(AdmissionPolicy(rate_limits={"identity": 1}), seed=lambda since: [])
    >>> rl.check(["identity"], now=t); rl.record(["identity"], now=t)
    >>> rl.check(["identity"], now=t + dt.timedelta(minutes=5))
    Traceback (most recent call last):
    ...
    graphmem.errors.RateLimited: admission control: 1 'identity' write(s) in the hour before ...
    """

    def __init__(self, policy: AdmissionPolicy, *, seed: Seed) -> None:
        self.policy = policy
        self._seed = seed
        self._seeded = False
        self._log: dict[str, list[dt.datetime]] = {}

    def _recent(self, kind: str, now: dt.datetime) -> list[dt.datetime]:
        start = now - self.policy.window
        kept = [t for t in self._log.get(kind, []) if t > start]
        self._log[kind] = kept
        return kept

    def check(self, kinds: Sequence[str], *, now: dt.datetime) -> None:
        """Refuse the writes of ``kinds`` (one entry per write) if a limit would be exceeded.

        Raises:
            RateLimited: a kind already has its limit of writes within the window.
        """
        wanted: dict[str, int] = {}
        for kind in kinds:
            if self.policy.rate_limit(kind) is not None:
                wanted[kind] = wanted.get(kind, 0) + 1
        if not wanted:
            return
        if not self._seeded:
            self._seeded = True
            for kind, at in self._seed(now - self.policy.window):
                self._log.setdefault(kind, []).append(at)
            for log in self._log.values():
                log.sort()
        for kind, n in sorted(wanted.items()):
            limit = self.policy.rate_limit(kind)
            assert limit is not None
            recent = self._recent(kind, now)
            if limit == 0:
                raise RateLimited(
                    f"admission control: {kind!r} writes are disabled (rate limit 0); allow "
                    f"them with graphmem.open(admission=AdmissionPolicy(rate_limits="
                    f"{{{kind!r}: N}}))"
                )
            if len(recent) + n > limit:
                hours = self.policy.window / dt.timedelta(hours=1)
                span = "hour" if hours == 1 else f"{hours:g} hours"
                expire = len(recent) + n - limit  # how many recent writes must age out
                free = recent[expire - 1] + self.policy.window if expire <= len(recent) else now
                raise RateLimited(
                    f"admission control: {len(recent)} {kind!r} write(s) in the {span} before "
                    f"{fmt(now)} reach the limit of {limit} per {span}; the next is allowed "
                    f"after {fmt(free)}. Raise or lift it with graphmem.open(admission="
                    f"AdmissionPolicy(rate_limits={{{kind!r}: N}})) (None = unlimited), or "
                    "use add_facts for bulk imports"
                )

    def dumps(self, kinds: Sequence[str], *, now: dt.datetime) -> str:
        """Return the window with ``kinds`` counted at ``now``, as JSON for the store."""
        log = {k: [t.isoformat() for t in self._recent(k, now)] for k in sorted(self._log)}
        for kind in kinds:
            if self.policy.rate_limit(kind) is not None:
                log.setdefault(kind, []).append(now.isoformat())
        return json.dumps({k: v for k, v in log.items() if v}, sort_keys=True)

    def record(self, kinds: Sequence[str], *, now: dt.datetime) -> None:
        """Count admitted writes of ``kinds`` at system time ``now``."""
        for kind in kinds:
            if self.policy.rate_limit(kind) is not None:
                self._log.setdefault(kind, []).append(now)
