"""The records a store returns: backend-neutral values (times aware UTC, graphmem ids).

Shared by every backend (:mod:`graphmem.store.base`); the in-memory BM25 index over session
lines is :mod:`graphmem.store.lineindex`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from graphmem.errors import StoreError
from graphmem.models import Fact, Predicate, trusted

__all__ = [
    "B",
    "K1",
    "Edge",
    "FactActivity",
    "FactView",
    "LineHit",
    "LineRow",
    "MentionCounts",
    "MentionGroup",
    "SessionClaim",
    "predicate_from_row",
    "predicate_props",
]


def predicate_props(p: Predicate) -> dict[str, Any]:
    """A predicate definition as the properties a store writes."""
    return {
        "name": p.name,
        "cardinality": p.cardinality,
        "aliases": list(p.aliases),
        "inverse": p.inverse,
        "symmetric": p.symmetric,
        "description": p.description,
    }


def predicate_from_row(r: Sequence[Any]) -> Predicate:
    """A stored definition (name, cardinality, aliases, inverse, symmetric, description).

    Built without validation: it was validated when defined (docs/concepts/surfaces.md#startup).
    """
    values = {
        "name": r[0],
        "cardinality": r[1],
        "aliases": tuple(r[2] or ()),
        "inverse": r[3],
        "symmetric": bool(r[4]),
        "description": r[5] or "",
    }
    return trusted(Predicate, values)


#: BM25 parameters (the usual defaults).
K1, B = 1.2, 0.75


@dataclass(frozen=True)
class FactView:
    """The fields of a fact version that retrieval ranks and renders, with endpoint ids.

    ``via`` is the queried entity id the row was found through (its subject for
    :meth:`facts_from`, its object for :meth:`facts_to`).
    """

    via: str
    subject_id: str
    subject: str
    id: str
    predicate: str
    object: str
    valid_from: dt.datetime
    valid_to: dt.datetime | None
    recorded_at: dt.datetime
    statement: str | None
    kind: str
    importance: float
    access_count: int
    pinned: bool
    source: str | None = None
    scope: str = ""

    @classmethod
    def from_row(
        cls, via: str | None, r: Sequence[Any], time: Callable[[Any], dt.datetime | None]
    ) -> FactView:
        """Build a view from one row of a backend's fact-view query.

        The row holds ``subject id, subject, fid, predicate, object, valid_from, valid_to,
        recorded_at, statement, kind, importance, access_count, pinned, source[, scope]``; ``time``
        decodes the backend's stored times; ``via`` ``None`` means the subject.
        """
        vf, vt, rec = time(r[5]), time(r[6]), time(r[7])
        if vf is None or rec is None:  # never: graphmem writes both on every version
            raise StoreError(f"fact version {r[2]!r} has no valid_from or recorded_at")
        return cls(
            via=r[0] if via is None else via,
            subject_id=r[0],
            subject=r[1],
            id=r[2],
            predicate=r[3],
            object=r[4],
            valid_from=vf,
            valid_to=vt,
            recorded_at=rec,
            statement=r[8],
            kind=r[9] or "fact",
            importance=float(r[10] if r[10] is not None else 5.0),
            access_count=int(r[11] or 0),
            pinned=bool(r[12]),
            source=r[13],
            scope=(r[14] if len(r) > 14 else None) or "",
        )

    def valid_at(self, t: dt.datetime) -> bool:
        """Return whether ``valid_from <= t < valid_to``."""
        return self.valid_from <= t and (self.valid_to is None or t < self.valid_to)


@dataclass(frozen=True)
class SessionClaim:
    """A fact version written from a session (``source``) with the sentence it came from."""

    subject_id: str
    id: str
    predicate: str
    object: str
    statement: str
    source: str
    valid_from: dt.datetime
    valid_to: dt.datetime | None


class LineRow(NamedTuple):
    """One stored session line (times aware UTC)."""

    id: str
    session: str
    n: int
    speaker: str | None
    text: str
    started_at: dt.datetime
    recorded_at: dt.datetime


class LineHit(NamedTuple):
    """A line found by :meth:`search_lines` and its BM25 score."""

    line: LineRow
    score: float


class MentionCounts(NamedTuple):
    """One topic's session mentions as of ``now`` (a row of :meth:`mention_counts`).

    Attributes:
        entity_id: the entity's key.
        name: its display name.
        hits: sessions started in ``(start, now]`` that mention it.
        df: sessions started at or before ``now`` that mention it.
        last_mention: start time (aware UTC) of the newest of those sessions.
    """

    entity_id: str
    name: str
    hits: int
    df: int
    last_mention: dt.datetime


class MentionGroup(NamedTuple):
    """The topics mentioned in the window that share their counts (a row of :meth:`mention_groups`).

    Attributes:
        hits: sessions started in ``(start, now]`` that mention each of them (``>= 1``).
        df: sessions started at or before ``now`` that mention each of them.
        n_topics: how many topics have these counts.
    """

    hits: int
    df: int
    n_topics: int


class FactActivity(NamedTuple):
    """One entity's fact versions as of ``now`` (a row of :meth:`fact_activity`).

    Attributes:
        entity_id: the entity's key.
        name: its display name.
        is_subject: whether it is the subject of at least one counted version.
        newest: the newest ``max(recorded_at, valid_from)`` of its versions (aware UTC).
        n_current: versions with the entity as subject or object believed and valid at ``now``.
        statements: the non-empty statements of those current versions (``with_texts`` only).
    """

    entity_id: str
    name: str
    is_subject: bool
    newest: dt.datetime
    n_current: int
    statements: tuple[str, ...]


Edge = tuple[str, str, Fact]
"""``(subject entity id, object entity id, fact version)``."""
