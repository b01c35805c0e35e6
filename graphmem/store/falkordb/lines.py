"""Session lines on FalkorDB: episodic search and the full-text index helpers.

:class:`FalkorLines` is the line half of :class:`~graphmem.store.falkordb.search.FalkorSearch`
(which adds entities and fact views); reads only, through ``self._q``, plus the DDL of the
full-text indexes. Results equal those of the Kuzu reference (:mod:`graphmem.store.kuzu.lines`).

Episodic search (:meth:`FalkorLines.search_lines`)
    Ranking is graphmem's BM25 (``k1 = 1.2``, ``b = 0.75``, ``idf = log10((N - df + 0.5) /
    (df + 0.5) + 1)``) over each line's ``terms``, ties by line id, ``known_at`` applied after
    scoring: the scores of :class:`~graphmem.store.records.LineIndex`, bit for bit. FalkorDB's
    full-text index (RediSearch) scores otherwise (TF-IDF, 2.0 for every hit seen here), so it
    only finds *candidates*. Two ways, measured at 50,000 lines of 5-20 terms (8,000-word
    Zipf vocabulary) on 2 cores, quiet / under a load average of 10 (other test runs):

    - the in-memory :class:`LineIndex`: built in bulk from every line
      (:meth:`LineIndex.bulk`), 2.2 s / 8 s (reading 50,000 rows is most of it; measured
      with the line-by-line build before it), once per process and after a write of another
      process; then
      0.1-1 ms a query (6-12 ms for words in 70% of the lines) and 6-56 ms to follow a write
      of this process (a delta, below);
    - full text: the ids and ``terms`` of the lines holding any query word (``w1|w2``; the
      index has no stemming and no stop words, so a word matches exactly its own term), the
      corpus size (``count`` and total ``terms`` length: one 55-120 ms scan), BM25 computed in
      Python with ``LineIndex``'s float operations in the same order, then the full rows of the
      hits only: 60-300 ms for rare words, 0.5 s / 2.6-3.5 s for words in 70% of the lines
      (35,000 candidates), on every query.

    So the first search of a process on a store of at least :data:`COLD_FTS_MIN` lines uses
    the full text (a one-shot CLI call answers without the build; as Kuzu, which also creates
    the index then on a writable store) and every later search the in-memory index. The
    index is fresh while its generation equals the ``lines_gen`` Meta value, which every line
    write replaces in its query; the store's writer reports its line changes and the
    generation it replaced (read in the same query) to :meth:`FalkorLines._note_lines`,
    applied as a delta; any other change (another client, a staged import) rebuilds it. The
    full-text path is taken only for ASCII words of at most 64 characters, when the index
    has no stop words and is ``OPERATIONAL`` (an index created over existing lines is filled
    in the background and answers from part of them until then): :meth:`_line_index_exact`.
    ``use_index=True`` therefore means "full text when usable"; the answer is the same.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import re
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphmem.errors import StoreError
from graphmem.normalize import TERMS_VERSION
from graphmem.store.cypher import lines as shared_lines
from graphmem.store.cypher.lines import LINE_RETURN
from graphmem.store.falkordb.codec import FALKOR, from_db
from graphmem.store.falkordb.connection import FalkorBase
from graphmem.store.lineindex import LineDelta, LineIndex
from graphmem.store.records import K1, B, LineHit, LineRow
from graphmem.store.textlines import LINES_READ, TERMS_KEY, changed_terms, doc_terms

__all__ = ["COLD_FTS_MIN", "LINE_INDEX_DDL", "TERMS_KEY", "FalkorLines"]

#: Stores with at least this many lines answer a process's first search through the full-text
#: index (module docstring).
COLD_FTS_MIN = 20_000
#: The full-text index over ``SessionLine.terms``: ``terms`` is normalised already, so no
#: stemming and no stop words (a query word then matches exactly its term).
LINE_INDEX_DDL = (
    "CALL db.idx.fulltext.createNodeIndex({label: 'SessionLine', stopwords: [], "
    "language: 'english'}, {field: 'terms', nostem: true})"
)
_FT_WORD = re.compile(r"[a-z0-9]{1,64}")
_MAX_DELTAS = 64


def _row(r: Sequence[Any]) -> LineRow:
    return shared_lines.line_row(FALKOR, r)


@dataclass
class _FullText:
    fields: list[str]
    stopwords: list[str]
    ready: bool  # OPERATIONAL: built over every node (else still indexing existing ones)


class FalkorLines(FalkorBase):
    """The session-line half of :class:`~graphmem.store.base.SearchStore` (module docstring)."""

    _warm_lines: LineIndex | None = None
    _line_deltas: list[LineDelta] | None = None
    _line_cold: int = 0
    _stale_terms: bool = False

    if TYPE_CHECKING:

        def get_meta(self, key: str) -> str | None:
            """FactStore's (FalkorFacts)."""

    # -- full-text indexes ---------------------------------------------------------------------

    def _fulltext(self, label: str) -> _FullText | None:
        """The full-text index of ``label`` (``db.indexes()``), or ``None``."""
        rows = self._q(
            "CALL db.indexes() YIELD label, types, entitytype, stopwords, status "
            "RETURN label, types, entitytype, stopwords, status"
        )
        for lab, types, kind, stopwords, status in rows:
            if lab == label and kind == "NODE":
                fields = [p for p, t in (types or {}).items() if "FULLTEXT" in (t or ())]
                if fields:
                    return _FullText(fields, list(stopwords or ()), status == "OPERATIONAL")
        return None

    def _ensure_fulltext(self, label: str, field: str, ddl: str) -> bool:
        found = self._fulltext(label)
        if found is not None and field in found.fields:
            return True
        if self.read_only or found is not None:  # another full-text index holds the label
            return False
        self._w(ddl)
        return True

    def _drop_fulltext(self, label: str, field: str) -> bool:
        found = self._fulltext(label)
        if found is None or field not in found.fields:
            return False
        # A full-text index not yet activated can survive a drop (fixed in FalkorDB 4.20):
        # drop again while it is listed, for up to about 2 s on a busy server.
        for attempt in range(40):
            self._w("CALL db.idx.fulltext.drop($label)", {"label": label})
            found = self._fulltext(label)
            if found is None or field not in found.fields:
                break
            if attempt >= 2:
                time.sleep(0.05)
        return True

    def line_index_exists(self) -> bool:
        """Return whether the full-text index over ``SessionLine.terms`` exists."""
        found = self._fulltext("SessionLine")
        return found is not None and "terms" in found.fields

    def ensure_line_index(self) -> bool:
        """Create the line full-text index (:data:`LINE_INDEX_DDL`) when missing.

        Returns whether it can be queried (``False`` on a read-only store without it).
        """
        return self._ensure_fulltext("SessionLine", "terms", LINE_INDEX_DDL)

    def drop_line_index(self) -> bool:
        """Drop the line full-text index; return whether one was dropped."""
        return self._drop_fulltext("SessionLine", "terms")

    def _line_index_exact(self) -> bool:
        """Whether the line index finds every line holding a word: no stop words, built.

        (Without stemming a word matches exactly its term; a stemmed index matches a superset,
        which the rescoring makes exact too.) An index created over existing lines is built in
        the background and answers with part of them until its status is ``OPERATIONAL``.
        """
        found = self._fulltext("SessionLine")
        return found is not None and "terms" in found.fields and not found.stopwords and found.ready

    # -- session lines -------------------------------------------------------------------------

    def _note_lines(
        self,
        base: str | None,
        gen: str | None,
        removed: Iterable[str],
        added: Sequence[tuple[LineRow, str]],
    ) -> None:
        """Record a committed line write of this process (``FalkorStore.apply`` passes it on).

        ``base`` is the ``lines_gen`` it replaced and ``gen`` the one it wrote, ``removed`` the
        sessions whose lines it deleted, ``added`` the lines ``(row, terms)`` it created. Lets
        the in-memory index follow without a rebuild.
        """
        deltas = self._line_deltas
        if deltas is None:
            deltas = self._line_deltas = []
        deltas.append(LineDelta(base, gen, frozenset(removed), list(added)))
        del deltas[:-_MAX_DELTAS]

    def _check_terms(self) -> None:
        """Recompute the stored ``terms`` when another :func:`terms` version wrote them.

        As on Kuzu (``KuzuLines._check_terms``): the ``line_terms`` Meta key names the
        version; a writable open rewrites the changed terms (of lines whose text is still the
        one read), the key and ``lines_gen`` in one query (all of it or nothing); a read-only
        open searches an in-memory index built from the texts
        (docs/concepts/recall.md#how-lines-are-ranked).
        """
        if shared_lines.terms_current(self):
            return
        changed = changed_terms(self._q(LINES_READ))
        query = "MERGE (m:Meta {key: $k}) SET m.value = $v"
        if changed:  # the terms, the key and the line generation in one query
            query = (
                "UNWIND $rows AS row MATCH (l:SessionLine {id: row.id}) WHERE l.text = row.text "
                "SET l.terms = row.terms WITH count(*) AS n "
                "MERGE (g:Meta {key: 'lines_gen'}) SET g.value = $gen WITH n " + query
            )
        self._w(
            query, {"rows": changed, "k": TERMS_KEY, "v": TERMS_VERSION, "gen": uuid.uuid4().hex}
        )

    def _build_lines(self, gen: str | None) -> LineIndex:
        rows = self._q(f"MATCH (l:SessionLine) RETURN {LINE_RETURN}, l.terms")
        lines = [_row(r) for r in rows]
        return LineIndex.bulk(
            gen,
            [x.id for x in lines],
            # a read-only store of another terms version: recomputed (_check_terms)
            [doc_terms(x.speaker, x.text) for x in lines]
            if self._stale_terms
            else [r[7] for r in rows],
            [x.recorded_at.timestamp() for x in lines],
            lines.__getitem__,
        )

    def _refresh_lines(self, index: LineIndex, gen: str | None) -> LineIndex | None:
        return index if index.refresh(self._line_deltas or (), gen) else None

    def line_index(self) -> LineIndex:
        """Return the in-memory line index, built or refreshed as needed."""
        gen = self.get_meta("lines_gen")
        index = self._warm_lines
        if index is not None and index.gen != gen:
            index = self._refresh_lines(index, gen)
        if index is None:
            index = self._build_lines(gen)
        self._warm_lines = index
        return index

    def get_lines(self, ids: Iterable[str]) -> dict[str, LineRow]:
        """Return ``{id: line}`` for those line ids that exist (from the warm index if any)."""
        wanted = sorted(set(ids))
        index = self.warm_index()
        if index is not None:
            return {i: index.row(index.pos[i]) for i in wanted if i in index.pos}
        if not wanted:
            return {}
        rows = self._q(
            f"UNWIND $ids AS i MATCH (l:SessionLine {{id: i}}) RETURN {LINE_RETURN}",
            {"ids": wanted},
        )
        found = {r[0]: _row(r) for r in rows}
        return {i: found[i] for i in wanted if i in found}

    def _search_lines(
        self,
        words: Sequence[str],
        *,
        limit: int,
        known_at: dt.datetime | None,
        use_index: bool | None,
        common: float | None,
    ) -> list[LineHit]:
        """Full-text candidates, rescored exactly, when the index answers for every line.

        ``use_index=None`` chooses: the first search of a process without a warm index uses
        the index when the store has :data:`COLD_FTS_MIN` lines or more (and creates it in
        the background when missing); later ones use the in-memory index.
        """
        cold_checked = False
        if use_index is None:
            use_index = False
            if self._warm_lines is None:
                cold, self._line_cold = self._line_cold, self._line_cold + 1
                if cold == 0:
                    n = int(self._q("MATCH (l:SessionLine) RETURN count(l)")[0][0])
                    if n >= COLD_FTS_MIN and not self.read_only:
                        with contextlib.suppress(StoreError):  # for the next process
                            self.ensure_line_index()  # (filled in the background)
                    use_index = cold_checked = n >= COLD_FTS_MIN and self._line_index_exact()
        if (
            use_index
            and all(_FT_WORD.fullmatch(w) for w in words)
            and (cold_checked or self._line_index_exact())
        ):
            return self._fulltext_search(words, limit=limit, known_at=known_at)
        return self.line_index().search(words, limit=limit, known_at=known_at, common=common)

    def _fulltext_search(
        self, words: Sequence[str], *, limit: int, known_at: dt.datetime | None
    ) -> list[LineHit]:
        """BM25 over the full-text candidates, with :meth:`LineIndex.search`'s float steps."""
        query = sorted(set(words))
        stats = self._q(
            "MATCH (l:SessionLine) RETURN count(l), sum(CASE WHEN l.terms IS NULL OR "
            "l.terms = '' THEN 0 ELSE size(split(l.terms, ' ')) END)"
        )
        n, total = int(stats[0][0]), int(stats[0][1] or 0)
        if not n:
            return []
        rows = self._q(
            "CALL db.idx.fulltext.queryNodes('SessionLine', $q) YIELD node AS l "
            "RETURN l.id, l.terms, coalesce(l.recorded_at, l.started_at)",
            {"q": "|".join(query)},
        )
        avgdl = total / n
        docs = []
        for r in rows:
            terms = (r[1] or "").split()
            counts: dict[str, int] = {}
            for w in terms:
                counts[w] = counts.get(w, 0) + 1
            norm = K1 * (1 - B + B * float(len(terms)) / (avgdl or 1.0))
            docs.append((r, counts, norm))
        scores = [0.0] * len(docs)
        for w in query:
            df = sum(1 for _, counts, _ in docs if w in counts)
            if not df:
                continue
            idf = math.log10((n - df + 0.5) / (df + 0.5) + 1)
            for j, (_, counts, norm) in enumerate(docs):
                tf = counts.get(w)
                if tf:
                    t = float(tf)
                    scores[j] += idf * t * (K1 + 1) / (t + norm)
        cut = None if known_at is None else known_at.timestamp()
        ranked = []
        for (r, _, _), score in zip(docs, scores, strict=True):
            recorded = from_db(r[2])
            if score > 0 and (
                cut is None or (recorded is not None and recorded.timestamp() <= cut)
            ):
                ranked.append((-score, r[0]))
        ranked.sort()
        top = ranked[:limit]
        # Only the hits' rows are read in full (a common word has thousands of candidates).
        rows = self._q(
            f"UNWIND $ids AS i MATCH (l:SessionLine {{id: i}}) RETURN {LINE_RETURN}",
            {"ids": [i for _, i in top]},
        )
        found = {r[0]: _row(r) for r in rows}
        return [LineHit(found[i], -neg) for neg, i in top if i in found]
