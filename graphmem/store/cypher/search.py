"""Shared entity-name search: keywords, the scan without an index, and the ranking.

Both backends search entity names through their own full-text index when it answers, and fall
back to :func:`scan_names` (a ``CONTAINS`` scan of every name, fine up to about 100k entities).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from graphmem.store.cypher.dialect import CypherHost

__all__ = ["WORD", "keywords", "normalise", "rank_names", "scan_names"]

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
