"""Shared entity-name search: keywords, the scan without an index, and the ranking.

Both backends search entity names through their own full-text index when it answers, and fall
back to :func:`scan_names` (a ``CONTAINS`` scan of every name, fine up to about 100k entities).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from graphmem.store.cypher.dialect import CypherHost
from graphmem.store.records import FactView

__all__ = [
    "KNOWN_AT_K",
    "VALID_AT_V",
    "VIEW",
    "ViewsHost",
    "WORD",
    "facts_from",
    "facts_to",
    "keywords",
    "normalise",
    "rank_names",
    "scan_names",
]

#: The columns of a :class:`FactView` (what context needs: each returned rel column costs
#: about 0.1 ms a query on Kuzu 0.11.3).
VIEW = (
    "a.id, a.name, r.fid, r.predicate, r.object, r.valid_from, r.valid_to, r.recorded_at, "
    "r.statement, r.kind, r.importance, r.access_count, r.pinned, r.source, r.scope"
)
#: Believed at ``$k`` (closed-open in system time).
KNOWN_AT_K = "r.recorded_at <= $k AND (r.expired_at IS NULL OR $k < r.expired_at)"
#: True at ``$v`` (closed-open in valid time).
VALID_AT_V = "r.valid_from <= $v AND (r.valid_to IS NULL OR $v < r.valid_to)"

#: A searchable word: letters only (digits and punctuation are found by id lookups instead).
WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def keywords(words: Iterable[str]) -> list[str]:
    """The searchable words of a query, case-folded, sorted and unique."""
    return sorted({w.casefold() for w in words if WORD.fullmatch(w)})


def rank_names(
    rows: Iterable[Sequence[Any]], words: Sequence[str], limit: int
) -> list[tuple[str, str, float]]:
    """Score ``(id, name)`` rows by the keywords their names hold; the best ``limit``.

    The score is the share of keywords found as whole words or word starts, over a small
    penalty for long names: a short name that matches fully beats a long text that mentions a
    word in passing. Best first, ties by id; names matching no keyword are left out.
    """
    hits = []
    for eid, name in rows:
        tokens = {t.casefold() for t in WORD.findall(name or "")}
        matched = sum(1 for w in words if w in tokens or any(t.startswith(w) for t in tokens))
        if matched:
            hits.append((eid, name, matched / len(words) / (1 + 0.02 * len(tokens))))
    hits.sort(key=lambda h: (-h[2], h[0]))
    return hits[:limit]


def normalise(hits: Sequence[tuple[str, str, float]], limit: int) -> list[tuple[str, str, float]]:
    """Scores relative to the best hit (in ``(0, 1]``), best first, ties by id."""
    if not hits:
        return []
    best = max(score for _, _, score in hits) or 1.0
    ranked = sorted(((i, n, s / best) for i, n, s in hits), key=lambda h: (-h[2], h[0]))
    return ranked[:limit]


def scan_names(self: CypherHost, words: Sequence[str], limit: int) -> list[tuple[str, str, float]]:
    """The fallback without an index: a ``CONTAINS`` scan of entity names, ranked."""
    d = self.dialect
    where = d.where("e", [f"any(w IN $ws WHERE {d.lower}(e.name) CONTAINS w)"])
    rows = self._q(f"MATCH (e:Entity) {where}RETURN e.id, e.name", {"ws": list(words)})
    return rank_names(rows, words, limit)


class ViewsHost(CypherHost, Protocol):
    """A backend that reads fact views per id, its own way."""

    def _views_per_id(
        self, ids: Sequence[str], match: str, conds: Sequence[str], params: dict[str, Any]
    ) -> list[FactView]:
        """At most ``$lim`` views of ``match`` under ``conds`` per id, in the order of ``ids``.

        ``match`` writes the id as ``{i}``; each id's views come newest ``recorded_at`` first,
        then by id.
        """
        ...


def facts_from(
    self: ViewsHost, ids: Sequence[str], *, known_at: dt.datetime, limit: int = 2000
) -> list[FactView]:
    """Return the versions whose subject is one of ``ids``, as believed at ``known_at``.

    Every valid time is returned (the subjects' timelines: the caller picks what is valid at
    its ``valid_at`` and reads replaced values from the rest). At most ``limit`` rows per
    subject, newest ``recorded_at`` first, then id; rows follow the order of ``ids``.
    """
    if limit <= 0:
        return []
    return self._views_per_id(
        ids,
        "MATCH (a:Entity {{id: {i}}})-[r:Fact]->()",
        [KNOWN_AT_K],
        {"k": self.dialect.to_db(known_at), "lim": int(limit)},
    )


def facts_to(
    self: ViewsHost,
    ids: Sequence[str],
    *,
    known_at: dt.datetime,
    valid_at: dt.datetime,
    limit: int = 50,
) -> list[FactView]:
    """Return the versions pointing at ``ids``, valid at ``valid_at`` and known at ``known_at``.

    At most ``limit`` rows per id (newest ``recorded_at`` first, then id), so a hub with a huge
    in-degree costs one bounded query.
    """
    if limit <= 0:
        return []
    d = self.dialect
    return self._views_per_id(
        ids,
        "MATCH (a:Entity)-[r:Fact]->(b:Entity {{id: {i}}})",
        [KNOWN_AT_K, VALID_AT_V],
        {"k": d.to_db(known_at), "v": d.to_db(valid_at), "lim": int(limit)},
    )
