"""The records a store returns: backend-neutral values (times aware UTC, graphmem ids).

Shared by every backend (:mod:`graphmem.store.base`); the in-memory BM25 index over session
lines (:class:`LineIndex`) serves backends without a full-text index and the Kuzu fallback.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from graphmem.errors import StoreError
from graphmem.models import Fact

__all__ = [
    "B",
    "K1",
    "Edge",
    "FactActivity",
    "FactView",
    "LineDelta",
    "LineHit",
    "LineIndex",
    "LineRow",
    "MentionCounts",
    "MentionGroup",
    "SessionClaim",
]

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

    @classmethod
    def from_row(
        cls, via: str | None, r: Sequence[Any], time: Callable[[Any], dt.datetime | None]
    ) -> FactView:
        """Build a view from one row of a backend's fact-view query.

        The row holds ``subject id, subject, fid, predicate, object, valid_from, valid_to,
        recorded_at, statement, kind, importance, access_count, pinned, source``; ``time``
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


@dataclass
class LineDelta:
    """One line write, as the in-memory index follows it.

    Generation ``base`` became ``gen`` by removing the lines of the sessions in ``removed`` and
    adding ``added`` (rows with their indexed terms).
    """

    base: str | None
    gen: str | None
    removed: frozenset[str]
    added: list[tuple[LineRow, str]]


@dataclass
class LineIndex:
    """An in-memory BM25 index of the session lines (module docstring)."""

    gen: str | None
    rows: list[LineRow] = field(default_factory=list)
    pos: dict[str, int] = field(default_factory=dict)
    postings: dict[str, tuple[list[int], list[int]]] = field(default_factory=dict)
    lengths: list[int] = field(default_factory=list)
    recorded: list[float] = field(default_factory=list)
    alive: list[bool] = field(default_factory=list)
    by_session: dict[str, list[int]] = field(default_factory=dict)
    n_alive: int = 0
    total_len: int = 0
    _arrays: dict[str, Any] = field(default_factory=dict)

    def add(self, row: LineRow, doc_terms: str) -> None:
        """Index one line."""
        old = self.pos.get(row.id)
        if old is not None:
            self._kill(old)
        doc = len(self.rows)
        self.rows.append(row)
        self.pos[row.id] = doc
        words = doc_terms.split()
        self.lengths.append(len(words))
        self.recorded.append(row.recorded_at.timestamp())
        self.alive.append(True)
        self.by_session.setdefault(row.session, []).append(doc)
        self.n_alive += 1
        self.total_len += len(words)
        counts: dict[str, int] = {}
        for w in words:
            counts[w] = counts.get(w, 0) + 1
        for w, tf in counts.items():
            docs, tfs = self.postings.setdefault(w, ([], []))
            docs.append(doc)
            tfs.append(tf)
        self._arrays.clear()

    def _kill(self, doc: int) -> None:
        if self.alive[doc]:
            self.alive[doc] = False
            self.n_alive -= 1
            self.total_len -= self.lengths[doc]
            self.pos.pop(self.rows[doc].id, None)
            self._arrays.clear()

    def remove_sessions(self, sessions: Iterable[str]) -> None:
        """Forget the lines of these sessions."""
        for sid in sessions:
            for doc in self.by_session.pop(sid, []):
                self._kill(doc)

    def search(
        self, words: Sequence[str], *, limit: int, known_at: dt.datetime | None = None
    ) -> list[LineHit]:
        """Return the best ``limit`` lines for the query words (BM25), best first, ties by id."""
        import numpy as np

        if not self.n_alive or limit <= 0:
            return []
        n = self.n_alive
        avgdl = self.total_len / n if n else 1.0
        alive = self._array("alive", lambda: np.array(self.alive, dtype=bool))
        norm = self._array(
            "norm",
            lambda: K1 * (1 - B + B * np.array(self.lengths, dtype=np.float64) / (avgdl or 1.0)),
        )
        scores = np.zeros(len(self.rows), dtype=np.float64)
        for w in sorted(set(words)):
            post = self.postings.get(w)
            if post is None:
                continue
            docs = self._array("d:" + w, lambda p=post: np.array(p[0], dtype=np.int64))
            tfs = self._array("t:" + w, lambda p=post: np.array(p[1], dtype=np.float64))
            live = alive[docs]
            df = int(live.sum())
            if not df:
                continue
            idf = math.log10((n - df + 0.5) / (df + 0.5) + 1)
            d, t = docs[live], tfs[live]
            scores[d] += idf * t * (K1 + 1) / (t + norm[d])
        hit = np.flatnonzero(scores > 0)
        if known_at is not None and len(hit):
            recorded = self._array("rec", lambda: np.array(self.recorded, dtype=np.float64))
            hit = hit[recorded[hit] <= known_at.timestamp()]
        if not len(hit):
            return []
        top = hit
        if len(hit) > limit:
            # Every line scoring at least the limit-th best: ties at the cut are decided by id.
            kth = np.partition(scores[hit], len(hit) - limit)[len(hit) - limit]
            top = hit[scores[hit] >= kth]
        ranked = sorted(
            (LineHit(self.rows[d], float(scores[d])) for d in top),
            key=lambda h: (-h.score, h.line.id),
        )
        return ranked[:limit]

    def refresh(self, deltas: Iterable[LineDelta], gen: str | None) -> bool:
        """Bring the index to generation ``gen`` with ``deltas``; ``False`` when they cannot.

        ``deltas`` are the line writes this process made, oldest first: those leading from the
        index's generation to ``gen`` are applied. A generation reached without a delta (another
        process wrote) means the index must be rebuilt.
        """
        chain: list[LineDelta] = []
        at = self.gen
        for delta in deltas:
            if delta.base == at:
                chain.append(delta)
                at = delta.gen
        if at != gen:
            return False
        for delta in chain:
            self.remove_sessions(delta.removed | {r.session for r, _ in delta.added})
            for row, words in delta.added:
                self.add(row, words)
            self.gen = delta.gen
        return True

    def neighbours(self, row: LineRow) -> tuple[LineRow | None, LineRow | None]:
        """Return the lines before and after ``row`` in its session."""
        before = self.pos.get(f"{row.session}#{row.n - 1}")
        after = self.pos.get(f"{row.session}#{row.n + 1}")
        return (
            None if before is None else self.rows[before],
            None if after is None else self.rows[after],
        )

    def _array(self, key: str, make: Any) -> Any:
        found = self._arrays.get(key)
        if found is None:
            found = self._arrays[key] = make()
        return found


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
