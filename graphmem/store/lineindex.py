"""The in-memory BM25 index over session lines (docs/concepts/recall.md#line-index).

Every backend ranks lines with it (:mod:`graphmem.store.kuzu.lines`,
:mod:`graphmem.store.falkordb.lines`); :meth:`LineIndex.search` is graphmem's BM25
(``k1 = 1.2``, ``b = 0.75``, ``idf = log10((N - df + 0.5) / (df + 0.5) + 1)``, Kuzu's FTS
formula) over each line's stored ``terms``, ties by line id, ``known_at`` applied after scoring.

Two parts, one ranking:

- **the bulk part** (:meth:`LineIndex.bulk`): every stored line at build time, in columns. The
  terms (joined by single spaces) are tokenised on the Arrow buffers with NumPy and
  dictionary-encoded by Arrow: a term id and a line per token. A search reads its words'
  lines with one pass over the token array until the tokens are grouped by term (two 16-bit
  radix sorts) into compressed postings (term offsets, line numbers, term counts): the second
  search starts that in one background thread (NumPy only: no store access, no shared state
  written; not the first, whose own call it would slow), and searches use the postings once
  it is done. No per-line object is made: a line's :class:`LineRow`
  is read from the backend's columns when a hit, a neighbour or a session's lines need it
  (``row_at``).
- **the added part** (:meth:`LineIndex.add`): lines written after the build (a delta of this
  process, :meth:`LineIndex.refresh`), or every line of an index built one line at a time
  (the tests' reference), as lists.

A removed line (its session re-written or purged) is marked dead in either part; its postings
stay and are skipped. Scores are summed word by word in sorted word order with the same
float64 operations whichever part a posting is in, so a bulk build and a line-by-line build
of the same lines give the same scores, bit for bit (``tests/test_line_index.py``).
"""

from __future__ import annotations

import datetime as dt
import heapq
import math
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphmem.store.records import K1, B, LineHit, LineRow

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

__all__ = ["LineDelta", "LineIndex"]

#: The one background thread that groups bulk-built postings by term (started on first use).
_GROUPER: tuple[int, ThreadPoolExecutor] | None = None


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


def _runs(docs: Any) -> tuple[Any, Any]:
    """The distinct lines of an ascending array of a term's occurrences, and its count in each."""
    import numpy as np

    first = np.empty(len(docs), dtype=bool)
    first[:1] = True
    np.not_equal(docs[1:], docs[:-1], out=first[1:])
    starts = np.flatnonzero(first)
    return docs[starts], np.diff(starts, append=len(docs)).astype(np.int32)


def _postings(tid: Any, doc: Any, n_terms: int) -> tuple[Any, Any, Any]:
    """Group token occurrences ``(term id, line)`` (in line order) by term.

    Returns ``(offsets, lines, counts)``: the lines holding term ``t`` are
    ``lines[offsets[t]:offsets[t + 1]]`` (ascending), each with its term count.
    """
    import numpy as np

    # A stable sort by term keeps the lines ascending within a term: two 16-bit radix passes
    # (NumPy's stable sort is a radix sort for 16-bit keys: linear, not n log n).
    order = np.argsort(tid.astype(np.uint16), kind="stable")  # the low 16 bits
    if n_terms > 0xFFFF:
        order = order[np.argsort((tid[order] >> 16).astype(np.uint16), kind="stable")]
    st, sd = tid[order], doc[order]
    first = np.empty(len(st), dtype=bool)
    first[:1] = True
    np.not_equal(st[1:], st[:-1], out=first[1:])
    first[1:] |= sd[1:] != sd[:-1]
    starts = np.flatnonzero(first)
    counts = np.diff(starts, append=len(st)).astype(np.int32)
    offsets = np.zeros(n_terms + 1, dtype=np.int64)
    np.cumsum(np.bincount(st[starts], minlength=n_terms), out=offsets[1:])
    return offsets, sd[starts], counts


#: A word of fewer lines than this is never left out as common (:meth:`LineIndex.search`): in
#: a small memory every word is in a large share of the lines.
COMMON_MIN = 20
#: Whitespace other than the space, as Python's ``str.split`` sees it (RE2 syntax).
_OTHER_SPACE = (
    r"[\t\n\x0b\x0c\r\x1c-\x1f\x85\xa0\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}"
    r"\x{202f}\x{205f}\x{3000}]"
)


def _tokens_joined(terms: Any) -> tuple[list[str], Any, Any] | None:
    """Tokens of terms joined by single spaces, found in the Arrow buffers with NumPy.

    Returns ``(vocabulary, term id per token, line per token)`` (tokens in line order), or
    ``None`` when a line has another shape (a leading, trailing or double space, or other
    whitespace): :func:`_tokens_split` reads those as ``str.split`` does.
    """
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    n = len(terms)
    if n == 0 or terms.null_count:
        return None
    _, offsets_buf, data_buf = terms.buffers()
    so = np.frombuffer(offsets_buf, dtype=np.int32)[terms.offset : terms.offset + n + 1]
    data = np.frombuffer(data_buf, dtype=np.uint8)[: so[-1]] if data_buf else np.zeros(0, np.uint8)
    lo, hi = int(so[0]), int(so[-1])
    space = np.flatnonzero(data[lo:hi] == 32) + lo
    full = so[1:] > so[:-1]
    if (
        len(space)
        and (
            np.any(np.diff(space) == 1)  # a double space
            or np.any(data[so[:-1][full]] == 32)  # leading
            or np.any(data[so[1:][full] - 1] == 32)  # trailing
        )
    ):
        return None
    # Other whitespace is a control byte or not ASCII: ASCII words without control bytes need
    # no regex (a fifth of the tokenising at 200k lines)
    text = data[lo:hi]
    if (np.any(text < 0x20) or np.any(text >= 0x80)) and pc.any(
        pc.match_substring_regex(terms, _OTHER_SPACE)
    ).as_py():
        return None
    # A token runs from its start to the next token's start: the space after it included
    # ("word " and "word" are one term, merged below).
    mark = np.zeros(hi + 1, dtype=bool)
    mark[space + 1] = True
    mark[so[:-1][full]] = True
    starts = np.flatnonzero(mark[:hi]).astype(np.int32)
    bounds = np.append(starts, np.int32(hi))
    tokens = pa.StringArray.from_buffers(len(starts), pa.py_buffer(bounds), data_buf)
    encoded = pc.dictionary_encode(tokens)
    raw = encoded.dictionary.to_pylist()
    vocab = list(dict.fromkeys(w.rstrip(" ") for w in raw))
    at = {w: i for i, w in enumerate(vocab)}
    remap = np.array([at[w.rstrip(" ")] for w in raw], dtype=np.int32)
    tid = remap[encoded.indices.to_numpy()] if len(raw) else np.zeros(0, np.int32)
    per_line = np.diff(np.searchsorted(space, so)) + full  # spaces + 1 in a non-empty line
    doc = np.repeat(np.arange(n, dtype=np.int32), per_line)
    return vocab, tid, doc


def _tokens_split(terms: Any) -> tuple[list[str], Any, Any]:
    """:func:`_tokens_joined` for any text: ``str.split``'s words, split by Arrow."""
    import numpy as np
    import pyarrow.compute as pc

    # Every whitespace str.split knows becomes a space first: Arrow's own whitespace split keeps
    # \x1c-\x1f inside words and, after a word, a run of U+3000 as a word.
    words = pc.split_pattern(pc.replace_substring_regex(terms, _OTHER_SPACE, " "), " ")
    flat = pc.list_flatten(words)
    doc = pc.list_parent_indices(words).to_numpy().astype(np.int32)  # (int64 in Arrow)
    keep = pc.not_equal(flat, "")
    if not pc.all(keep).as_py():
        flat, doc = flat.filter(keep), doc[keep.to_numpy(zero_copy_only=False)]
    encoded = pc.dictionary_encode(flat)
    return encoded.dictionary.to_pylist(), encoded.indices.to_numpy(), doc


class LineIndex:
    """An in-memory BM25 index of the session lines (module docstring).

    ``gen`` is the store's ``lines_gen`` the index reflects; ``n_alive`` and ``total_len``
    count the live lines and their terms.
    """

    def __init__(self, gen: str | None) -> None:
        self.gen = gen
        self.n_alive = 0
        self.total_len = 0
        self.pos: dict[str, int] = {}  # live line id -> line number
        self._ids: list[str] = []  # every line number's id
        # the bulk part: lines 0 .. n_bulk - 1
        self._n_bulk = 0
        self._row_at: Callable[[int], LineRow] | None = None
        self._vocab: dict[str, int] = {}
        self._offsets: Any = None
        self._lines: Any = None
        self._counts: Any = None
        self._tokens: tuple[Any, Any] | None = None  # (term ids, lines) until the postings exist
        self._grouping: Future[tuple[Any, Any, Any]] | None = None
        self._grouped_in = 0  # the process that started the grouping
        self._searched = False
        self._bulk_len: Any = None
        self._bulk_rec: Any = None
        self._bulk_alive: Any = None
        # the added part: lines n_bulk ..
        self._rows: list[LineRow] = []
        self._len: list[int] = []
        self._rec: list[float] = []
        self._alive: list[bool] = []
        self._added: dict[str, tuple[list[int], list[int]]] = {}
        self._arrays: dict[str, Any] = {}

    @classmethod
    def bulk(
        cls,
        gen: str | None,
        ids: Sequence[str],
        terms: Any,
        recorded: Any,
        row_at: Callable[[int], LineRow],
    ) -> LineIndex:
        """Build the index of ``len(ids)`` lines from columns (module docstring).

        Args:
            gen: the store's ``lines_gen``.
            ids: the lines' ids (unique).
            terms: their stored terms (space-separated; ``None`` for none): a sequence of
                strings or an Arrow string array.
            recorded: their ``recorded_at`` as POSIX seconds (float64 array-like).
            row_at: the :class:`LineRow` of line ``i`` (read when needed).
        """
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        index = cls(gen)
        n = len(ids)
        if isinstance(terms, pa.ChunkedArray):
            terms = terms.combine_chunks()
        if not isinstance(terms, pa.Array):
            terms = pa.array(terms, type=pa.string())
        terms = pc.fill_null(terms.cast(pa.string()), "")
        found = _tokens_joined(terms)
        if found is None:
            found = _tokens_split(terms)
        vocab, tid, doc = found
        index._vocab = dict(zip(vocab, range(len(vocab)), strict=True))
        index._tokens = (tid, doc)  # grouped by term from the second search (module docstring)
        index._bulk_len = np.bincount(doc, minlength=n)
        index._bulk_rec = np.asarray(recorded, dtype=np.float64)
        index._bulk_alive = np.ones(n, dtype=bool)
        index._n_bulk = n
        index._row_at = row_at
        index._ids = list(ids)
        index.pos = dict(zip(index._ids, range(n), strict=True))
        index.n_alive = n
        index.total_len = int(index._bulk_len.sum())
        if len(index.pos) != n:  # a repeated id: the last one stands, as with add()
            index.pos = {}
            for d, i in enumerate(index._ids):
                if i in index.pos:
                    index._kill(index.pos[i])
                index.pos[i] = d
        return index

    def state(self) -> tuple[list[str], dict[str, Any]] | None:
        """The vocabulary and arrays :meth:`from_state` rebuilds this index from, for a file.

        ``None`` unless every line is a live line of the bulk part (no line written since the
        build, none removed, no id repeated): then the file holds nothing but the stored lines
        (docs/concepts/recall.md#line-index-file). Groups the postings first (:meth:`wait`).
        """
        if self._rows or not self._n_bulk or self.n_alive != self._n_bulk:
            return None
        self.wait()
        arrays = {
            "offsets": self._offsets,
            "lines": self._lines,
            "counts": self._counts,
            "len": self._bulk_len,
            "rec": self._bulk_rec,
        }
        return list(self._vocab), arrays

    @classmethod
    def from_state(
        cls,
        gen: str | None,
        ids: Sequence[str],
        vocab: Sequence[str],
        arrays: dict[str, Any],
        row_at: Callable[[int], LineRow],
    ) -> LineIndex:
        """The index :meth:`state` was taken from (its lines' ids and rows given again)."""
        import numpy as np

        index = cls(gen)
        n = len(ids)
        index._vocab = dict(zip(vocab, range(len(vocab)), strict=True))
        index._offsets, index._lines, index._counts = (
            arrays["offsets"],
            arrays["lines"],
            arrays["counts"],
        )
        index._bulk_len = arrays["len"]
        index._bulk_rec = arrays["rec"]
        index._bulk_alive = np.ones(n, dtype=bool)
        index._n_bulk = n
        index._row_at = row_at
        index._ids = list(ids)
        index.pos = dict(zip(index._ids, range(n), strict=True))
        if (
            len(index.pos) != n
            or len(index._bulk_len) != n
            or len(index._bulk_rec) != n
            or len(index._offsets) != len(vocab) + 1
            or len(index._lines) != len(index._counts)
            or int(index._offsets[-1]) != len(index._lines)
        ):
            raise ValueError("line index state does not match its lines")
        index.n_alive = n
        index.total_len = int(index._bulk_len.sum())
        return index

    @property
    def row_at(self) -> Callable[[int], LineRow] | None:
        """How the bulk part's rows are read (``None`` for an index built line by line)."""
        return self._row_at

    # -- lines ---------------------------------------------------------------------------------

    def __len__(self) -> int:
        return self._n_bulk + len(self._rows)

    def row(self, doc: int) -> LineRow:
        """The line numbered ``doc``."""
        if doc < self._n_bulk:
            assert self._row_at is not None
            return self._row_at(doc)
        return self._rows[doc - self._n_bulk]

    def get(self, line_id: str) -> LineRow | None:
        """The live line with this id, or ``None``."""
        doc = self.pos.get(line_id)
        return None if doc is None else self.row(doc)

    def session_rows(self, session: str) -> list[LineRow]:
        """The live lines of a session, in order.

        A session's lines are numbered ``1 .. N`` (every write replaces all of them:
        :func:`graphmem.store.textlines.split_lines`), so they are read by id until one is
        missing.
        """
        out = []
        n = 1
        while (row := self.get(f"{session}#{n}")) is not None:
            out.append(row)
            n += 1
        return out

    def neighbours(self, row: LineRow) -> tuple[LineRow | None, LineRow | None]:
        """Return the lines before and after ``row`` in its session."""
        return self.get(f"{row.session}#{row.n - 1}"), self.get(f"{row.session}#{row.n + 1}")

    # -- writes --------------------------------------------------------------------------------

    def add(self, row: LineRow, doc_terms: str) -> None:
        """Index one line (replacing a live line with its id)."""
        old = self.pos.get(row.id)
        if old is not None:
            self._kill(old)
        doc = len(self)
        self._rows.append(row)
        self._ids.append(row.id)
        self.pos[row.id] = doc
        words = doc_terms.split()
        self._len.append(len(words))
        self._rec.append(row.recorded_at.timestamp())
        self._alive.append(True)
        self.n_alive += 1
        self.total_len += len(words)
        counts: dict[str, int] = {}
        for w in words:
            counts[w] = counts.get(w, 0) + 1
        for w, tf in counts.items():
            docs, tfs = self._added.setdefault(w, ([], []))
            docs.append(doc)
            tfs.append(tf)
        self._arrays.clear()

    def _kill(self, doc: int) -> None:
        if doc < self._n_bulk:
            if not self._bulk_alive[doc]:
                return
            self._bulk_alive[doc] = False
            length = int(self._bulk_len[doc])
        else:
            if not self._alive[doc - self._n_bulk]:
                return
            self._alive[doc - self._n_bulk] = False
            length = self._len[doc - self._n_bulk]
        self.n_alive -= 1
        self.total_len -= length
        if self.pos.get(self._ids[doc]) == doc:
            del self.pos[self._ids[doc]]
        self._arrays.clear()

    def remove_sessions(self, sessions: Iterable[str]) -> None:
        """Forget the lines of these sessions."""
        for sid in sessions:
            n = 1
            while (doc := self.pos.get(f"{sid}#{n}")) is not None:
                self._kill(doc)
                n += 1

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

    # -- search --------------------------------------------------------------------------------

    def _array(self, key: str, make: Callable[[], Any]) -> Any:
        found = self._arrays.get(key)
        if found is None:
            found = self._arrays[key] = make()
        return found

    def _column(self, key: str, bulk: Any, added: list[Any], dtype: Any) -> Any:
        import numpy as np

        def make() -> Any:
            tail = np.array(added, dtype=dtype)
            return tail if bulk is None else np.concatenate([bulk.astype(dtype), tail])

        return self._array(key, make)

    def _word(self, w: str) -> tuple[Any, Any] | None:
        """The lines holding ``w`` and its counts there (float64), both parts."""
        import numpy as np

        parts = []
        t = self._vocab.get(w)
        if t is not None and self._tokens is not None:  # not grouped yet: one pass over tokens
            tid, doc = self._tokens
            parts.append(_runs(doc[tid == t]))
        elif t is not None:
            a, b = int(self._offsets[t]), int(self._offsets[t + 1])
            parts.append((self._lines[a:b], self._counts[a:b]))
        added = self._added.get(w)
        if added is not None:
            parts.append(
                self._array(
                    "w:" + w,
                    lambda: (np.array(added[0], dtype=np.int64), np.array(added[1], np.int64)),
                )
            )
        if not parts:
            return None
        if len(parts) == 1:
            return parts[0][0], parts[0][1].astype(np.float64)
        docs = np.concatenate([p[0].astype(np.int64) for p in parts])
        return docs, np.concatenate([p[1].astype(np.float64) for p in parts])

    def search(
        self,
        words: Sequence[str],
        *,
        limit: int,
        known_at: dt.datetime | None = None,
        common: float | None = None,
    ) -> list[LineHit]:
        """Return the best ``limit`` lines for the query words (BM25), best first, ties by id.

        ``common``: words found in more than this share of the live lines, and in more than
        :data:`COMMON_MIN` of them, are left out (they tie nothing together, and scoring them
        scores nearly every line).
        """
        import numpy as np

        if not self.n_alive or limit <= 0:
            return []
        grouping = self._grouping
        if grouping is not None and grouping.done():
            self._offsets, self._lines, self._counts = grouping.result()
            self._tokens = self._grouping = None
        elif grouping is not None and self._grouped_in != os.getpid():
            self._grouping = None  # forked while grouping: the thread is not in this process
        n = self.n_alive
        avgdl = self.total_len / n if n else 1.0
        alive = self._column("alive", self._bulk_alive, self._alive, bool)
        norm = self._array(
            "norm",
            lambda: (
                K1
                * (
                    1
                    - B
                    + B
                    * self._column("len", self._bulk_len, self._len, np.float64)
                    / (avgdl or 1.0)
                )
            ),
        )
        scores = np.zeros(len(self), dtype=np.float64)
        for w in sorted(set(words)):
            post = self._word(w)
            if post is None:
                continue
            docs, tfs = post
            live = alive[docs]
            df = int(live.sum())
            if not df or (common is not None and df > max(common * n, COMMON_MIN)):
                continue
            idf = math.log10((n - df + 0.5) / (df + 0.5) + 1)
            d, t = docs[live], tfs[live]
            scores[d] += idf * t * (K1 + 1) / (t + norm[d])
        if self._searched:  # (the first search's call goes on without a thread beside it)
            self._group()
        self._searched = True
        hit = np.flatnonzero(scores > 0)
        if known_at is not None and len(hit):
            recorded = self._column("rec", self._bulk_rec, self._rec, np.float64)
            hit = hit[recorded[hit] <= known_at.timestamp()]
        if not len(hit):
            return []
        if len(hit) > limit:
            # Every line scoring above the limit-th best, then the ties at the cut by id. The
            # cut is taken from the negated scores with a small k: numpy's partition near the
            # end of 200k scores of a few distinct values (a common word matches every line)
            # took 26 ms, against 1 ms this way (docs/benchmarks.md#episodic-recall).
            found = scores[hit]
            kth = -np.partition(-found, limit - 1)[limit - 1]
            above = hit[found > kth].tolist()
            tied = hit[found == kth].tolist()
            ids = self._ids
            top = above + heapq.nsmallest(limit - len(above), tied, key=ids.__getitem__)
        else:
            top = hit.tolist()
        ranked = sorted(top, key=lambda d: (-scores[d], self._ids[d]))[:limit]
        return [LineHit(self.row(d), float(scores[d])) for d in ranked]

    def _group(self) -> None:
        """Start grouping the tokens by term in the background (once; module docstring)."""
        if self._tokens is None or self._grouping is not None:
            return
        global _GROUPER
        pid = os.getpid()
        if _GROUPER is None or _GROUPER[0] != pid:  # (a forked child has no thread of its own)
            from concurrent.futures import ThreadPoolExecutor  # not at import: start-up

            _GROUPER = (pid, ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphmem-lines"))
        self._grouping = _GROUPER[1].submit(_postings, *self._tokens, len(self._vocab))
        self._grouped_in = pid

    def wait(self) -> None:
        """Finish grouping the postings now (the next search uses them)."""
        if self._tokens is not None:
            self._group()
            assert self._grouping is not None
            self._offsets, self._lines, self._counts = self._grouping.result()
            self._tokens = self._grouping = None
