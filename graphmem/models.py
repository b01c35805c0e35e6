"""The data model: pydantic v2 models, frozen, ``extra="forbid"``, no I/O.

See docs/concepts/model.md#rule-1.

All datetimes are timezone-aware UTC; naive ones are rejected. Intervals are closed-open
``[from, to)`` with ``None`` as an open end.
"""

from __future__ import annotations

import datetime as dt
import math
from enum import Enum
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "Cardinality",
    "Decision",
    "Entity",
    "Fact",
    "FactKind",
    "Predicate",
    "Session",
    "SourceType",
    "TextResult",
    "WriteResult",
    "significant",
    "trusted",
]

FactKind = Literal["fact", "event", "insight", "directive", "identity"]
#: Who said a fact (docs/concepts/decisions.md#authority-and-disputes).
SourceType = Literal["user", "agent", "tool", "system", "import"]
Cardinality = Literal["one", "many"]


def _aware_utc(value: dt.datetime) -> dt.datetime:
    if value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(
            f"naive datetime {value!r}: pass a timezone-aware datetime, e.g. with "
            "tzinfo=datetime.timezone.utc"
        )
    return value.astimezone(dt.timezone.utc)


def significant(value: float) -> float:
    """``value`` kept to 15 significant digits: what every store reads back exactly.

    FalkorDB replies with 15 significant digits of a double; 15 digits (``DBL_DIG``) survive
    a round trip through a double, so a number written reads back equal on every backend
    (docs/api.md#numbers).

    >>> significant(0.1 + 0.2)
    0.3
    """
    return float(f"{value:.15g}")


def _finite(value: float) -> float:
    if math.isnan(value) or math.isinf(value):
        raise ValueError(f"{value!r} is not a finite number")
    return significant(value)


UTCDateTime = Annotated[dt.datetime, AfterValidator(_aware_utc)]
Finite = Annotated[float, AfterValidator(_finite)]


class Decision(str, Enum):
    """What a write did (docs/concepts/decisions.md#the-decision-rules)."""

    ADD = "add"
    NOOP = "noop"
    SUPERSEDE = "supersede"
    INVALIDATE = "invalidate"
    #: stored beside the current version as a disputed claim, which stays current
    #: (docs/concepts/decisions.md#authority-and-disputes)
    DISPUTE = "dispute"

    def __str__(self) -> str:
        return self.value


class _Model(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class Entity(_Model):
    """A node: a person, organisation, topic, tool or literal value."""

    id: str = Field(min_length=1, description="Normalised key of the canonical name.")
    name: str = Field(min_length=1, description="Display name.")
    kind: str = Field(default="entity", description="person, org, topic, tool, text, ...")
    aliases: tuple[str, ...] = ()


class Predicate(_Model):
    """An ontology entry: how a relation behaves over time."""

    name: str = Field(min_length=1, pattern=r"^[a-z0-9_]+$")
    cardinality: Cardinality = "one"
    aliases: tuple[str, ...] = ()
    inverse: str | None = None
    symmetric: bool = False
    description: str = ""


class Fact(_Model):
    """One stored version of a fact: an edge ``subject -predicate-> object`` on two time axes."""

    id: str = Field(min_length=1)
    subject: str = Field(min_length=1)
    predicate: str = Field(min_length=1)
    object: str = Field(min_length=1)
    valid_from: UTCDateTime
    valid_to: UTCDateTime | None = None
    recorded_at: UTCDateTime
    expired_at: UTCDateTime | None = None
    statement: str | None = None
    kind: FactKind = "fact"
    importance: Finite = Field(default=5.0, ge=0.0, le=10.0)
    confidence: Finite = Field(default=1.0, ge=0.0, le=1.0)
    source: str | None = None
    source_ref: str | None = None
    superseded_by: str | None = None
    reason: str | None = None
    access_count: int = Field(default=0, ge=0)
    last_accessed_at: UTCDateTime | None = None
    pinned: bool = False
    source_type: SourceType | None = None
    #: The scope the version was written in; ``""`` is the root (docs/concepts/scopes.md).
    scope: str = ""

    @model_validator(mode="after")
    def _intervals(self) -> Fact:
        if self.valid_to is not None and self.valid_to <= self.valid_from:
            raise ValueError(
                f"valid_to {self.valid_to.isoformat()} must be after valid_from "
                f"{self.valid_from.isoformat()} (intervals are [from, to))"
            )
        if self.expired_at is not None and self.expired_at < self.recorded_at:
            raise ValueError(
                f"expired_at {self.expired_at.isoformat()} is before recorded_at "
                f"{self.recorded_at.isoformat()}"
            )
        return self

    def valid_at(self, t: dt.datetime) -> bool:
        """Return whether ``valid_from <= t < valid_to``."""
        return self.valid_from <= t and (self.valid_to is None or t < self.valid_to)

    def known_at(self, t: dt.datetime) -> bool:
        """Return whether ``recorded_at <= t < expired_at``."""
        return self.recorded_at <= t and (self.expired_at is None or t < self.expired_at)

    @property
    def is_current(self) -> bool:
        """Whether this version is part of current knowledge (not closed in system time)."""
        return self.expired_at is None

    def __str__(self) -> str:
        from graphmem.display import fact_text

        return fact_text(self)

    def _repr_html_(self) -> str:  # Jupyter's table view
        from graphmem.display import fact_html

        return fact_html(self)


class Session(_Model):
    """An episode the agent lived through: provenance of facts, source of topic mentions."""

    id: str = Field(min_length=1)
    started_at: UTCDateTime
    ended_at: UTCDateTime | None = None
    title: str | None = None
    text: str | None = None
    summary: str | None = None
    source: str | None = None
    mentions: dict[str, int] = Field(default_factory=dict)
    #: The scope the session was logged in; ``""`` is the root (docs/concepts/scopes.md).
    scope: str = ""


class WriteResult(_Model):
    """The outcome of one write (docs/concepts/decisions.md#the-decision-rules).

    ``fact`` is the version written (``add``/``supersede``), the reinforced version (``noop``) or
    the shortened version left by an invalidation (``None`` when the interval became empty).
    ``superseded`` lists the versions this write closed in system time.
    """

    decision: Decision
    fact: Fact | None
    superseded: tuple[Fact, ...] = ()


class TextResult(_Model):
    """The outcome of writing one text (``remember``): every write its claims made.

    ``decision`` and ``fact`` are those of the weightiest write (supersede, then invalidate,
    add, noop), so a caller that treats it as a :class:`WriteResult` sees what changed;
    ``superseded`` lists every version closed; ``results`` holds one WriteResult per write.
    """

    decision: Decision
    fact: Fact | None
    superseded: tuple[Fact, ...] = ()
    results: tuple[WriteResult, ...] = ()


_M = TypeVar("_M", bound=BaseModel)
_FIELDS_SET: dict[type[BaseModel], set[str]] = {}
_set = object.__setattr__


def trusted(cls: type[_M], values: dict[str, Any]) -> _M:
    """Build a model from ``values`` already checked by the caller, without validation.

    The write path's hot loop: a bulk write validates every input field itself (naming the
    row and the fix), then builds versions here at 0.6 µs each instead of 3.7-7 µs through
    ``model_validate``, and 550 instead of 1,280 bytes, because every instance shares one
    fields-set (docs/benchmarks.md#results). ``values`` must hold every field of ``cls`` in
    declaration order, with valid values; this is what ``model_construct`` does, minus its per-field
    default lookup.
    """
    fields_set = _FIELDS_SET.get(cls)
    if fields_set is None:
        fields_set = _FIELDS_SET[cls] = set(cls.model_fields)
    obj = cls.__new__(cls)
    _set(obj, "__dict__", values)
    _set(obj, "__pydantic_fields_set__", fields_set)  # copied by model_copy before any update
    _set(obj, "__pydantic_extra__", None)
    _set(obj, "__pydantic_private__", None)
    return obj
