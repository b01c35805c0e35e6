"""Shared reads of session lines (docs/concepts/recall.md#how-lines-are-ranked).

A session's text is also stored line by line (``SessionLine``: id ``session#n``, speaker, text,
the session's start and when the line was recorded). Both backends keep an in-memory index of
the lines (:class:`~graphmem.store.lineindex.LineIndex`), fresh while its generation is the
store's ``lines_gen``; these reads use it when it is warm, and the engine when it is not.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from graphmem.errors import StoreError
from graphmem.normalize import TERMS_VERSION
from graphmem.store.cypher.dialect import CypherHost, Dialect
from graphmem.store.lineindex import LineIndex
from graphmem.store.records import LineHit, LineRow
from graphmem.store.textlines import TERMS_KEY

__all__ = [
    "LINE_RETURN",
    "LinesHost",
    "has_lines",
    "line_counts",
    "line_row",
    "neighbours",
    "search_lines",
    "session_lines",
    "terms_current",
    "warm_index",
]

#: The ``RETURN`` items of a line (``l``), as :func:`line_row` reads them.
LINE_RETURN = "l.id, l.session, l.n, l.speaker, l.text, l.started_at, l.recorded_at"


class LinesHost(CypherHost, Protocol):
    """A backend with session lines: its warm index and its point reads of lines."""

    _warm_lines: LineIndex | None
    #: The stored terms are another :func:`~graphmem.store.textlines.terms` version's (a
    #: read-only open): searches use an in-memory index built from the texts.
    _stale_terms: bool

    @property
    def read_only(self) -> bool:
        """Whether the store was opened read-only."""
        ...

    def has_lines(self) -> bool:
        """Whether any session line is stored."""
        ...

    def _search_lines(
        self,
        words: Sequence[str],
        *,
        limit: int,
        known_at: dt.datetime | None,
        use_index: bool | None,
        common: float | None,
    ) -> list[LineHit]:
        """The backend's ranking of non-empty ``words`` (:func:`search_lines`)."""
        ...

    def get_meta(self, key: str) -> str | None:
        """A metadata value, or ``None``."""
        ...

    def get_lines(self, ids: Iterable[str]) -> dict[str, LineRow]:
        """``{id: line}`` for those line ids that exist."""
        ...


def line_row(d: Dialect, r: Sequence[Any]) -> LineRow:
    """A :class:`LineRow` from a row of :data:`LINE_RETURN` (a line recorded with its session).

    Raises:
        StoreError: the line has no start (a damaged row).
    """
    started = d.from_db(r[5])
    if started is None:
        raise StoreError(f"session line {r[0]!r} has no started_at; run 'graphmem check'")
    return LineRow(r[0], r[1], int(r[2]), r[3], r[4] or "", started, d.from_db(r[6]) or started)


def has_lines(self: CypherHost) -> bool:
    """Return whether any session line is stored."""
    return bool(self._q("MATCH (l:SessionLine) RETURN l.id LIMIT 1"))


def warm_index(self: LinesHost) -> LineIndex | None:
    """Return the in-memory index when it is built and fresh, else ``None`` (one meta read)."""
    index = self._warm_lines
    if index is not None and index.gen == self.get_meta("lines_gen"):
        return index
    return None


def neighbours(
    self: LinesHost, row: LineRow, *, index: LineIndex | None = None
) -> tuple[LineRow | None, LineRow | None]:
    """Return the lines before and after ``row`` in its session.

    ``index``: a fresh in-memory index (:func:`warm_index`); without one, point lookups.
    """
    if index is not None:
        return index.neighbours(row)
    before, after = f"{row.session}#{row.n - 1}", f"{row.session}#{row.n + 1}"
    found = self.get_lines([before, after])
    return found.get(before), found.get(after)


def session_lines(self: LinesHost, session_id: str) -> list[LineRow]:
    """Return the lines of one session in order (from the warm index, else one query)."""
    index = warm_index(self)
    if index is not None:
        return index.session_rows(session_id)
    d = self.dialect
    where = d.where("l", ["l.session = $s"])
    rows = self._q(f"MATCH (l:SessionLine) {where}RETURN {LINE_RETURN}", {"s": session_id})
    return sorted((line_row(d, r) for r in rows), key=lambda r: r.n)


def line_counts(self: CypherHost) -> Mapping[str, int]:
    """Return ``{session id: number of lines}`` (a scan; for checks and tests)."""
    rows = self._q("MATCH (l:SessionLine) RETURN l.session, count(l)")
    return {r[0]: int(r[1]) for r in rows}


def terms_current(self: LinesHost) -> bool:
    """Whether nothing is left to do about the stored line terms' version.

    The version is the ``line_terms`` meta key (:data:`graphmem.normalize.TERMS_VERSION`;
    stores written before it have none). A read-only store of another version is left as it is
    and flagged, so its searches use an in-memory index built from the texts
    (docs/concepts/recall.md#how-lines-are-ranked); ``False`` means a writable store must
    rewrite its terms.
    """
    if self.get_meta(TERMS_KEY) == TERMS_VERSION:
        return True
    if self.read_only:
        self._stale_terms = self.has_lines()
        return True
    return False


def search_lines(
    self: LinesHost,
    words: Sequence[str],
    *,
    limit: int = 50,
    known_at: dt.datetime | None = None,
    use_index: bool | None = None,
    common: float | None = None,
) -> list[LineHit]:
    """BM25 search over the session lines; the best ``limit`` lines recorded by ``known_at``.

    Args:
        self: the store (a method of both backends).
        words: query words normalised by :func:`graphmem.store.textlines.terms`.
        limit: at most this many hits.
        known_at: only lines recorded at or before it.
        use_index: ``True``: the engine's full-text index where it can answer; ``False``: the
            in-memory index; ``None``: the backend chooses. The same hits and scores either way.
        common: leave out words found in more than this share of the lines (the in-memory
            index then answers).

    Returns:
        Hits best first, ties by line id.

    Raises:
        StoreError: the engine failed.
    """
    words = [w for w in words if w]
    if not words or limit <= 0:
        return []
    if self._stale_terms or common is not None:  # the in-memory index answers those
        use_index = False
    return self._search_lines(
        words, limit=limit, known_at=known_at, use_index=use_index, common=common
    )
