"""Session lines: the episodic index behind ``search()`` and ``context()``.

See docs/concepts/recall.md#rule-6 and docs/benchmarks.md#episodic-recall.

Every session text is split into **lines** (:func:`split_lines`: one per non-blank line or
turn; ``Speaker: text`` turns keep the speaker; a line over :data:`MAX_LINE` characters is cut
at sentence ends). Each is a ``SessionLine`` node ``{id: "<session id>#<n>", session, n,
speaker, text, terms, started_at, recorded_at}``: ``started_at`` is the session's (world time,
shown as the line's date), ``recorded_at`` the system time of the write that stored it (so
``known_at`` sees only sessions recorded by then). ``terms`` holds the line's normalised words
(:func:`terms`: NFKC, case-folded, stop words and bare numbers dropped, light stemming), the
same normalisation as the query's.

Lines are written and deleted in the caller's transaction with logged statements only (no
``COPY``: a transaction that mixes COPY with logged writes is torn by a crash,
docs/concepts/storage.md#copy), by :meth:`replace_lines`, called from :meth:`write_sessions` (add
and re-add of a session), the privacy purge (redacted texts re-split) and import (lines are not
exported; they are rebuilt from the session texts).

Ranking: BM25 (``k1 = 1.2``, ``b = 0.75``, ``idf = log10((N - df + 0.5) / (df + 0.5) + 1)``:
Kuzu's FTS formula) over ``speaker + terms``, by the in-memory index
(:class:`~graphmem.store.lineindex.LineIndex`, docs/concepts/recall.md#line-index):

- **built at the first search of a process** from one Arrow read of every line
  (:meth:`KuzuLines._build_index`; the terms are tokenised on the Arrow buffers, and the
  postings grouped by term in a background thread from the second search on), then about
  1-3 ms a query. Measured at 200k lines: docs/benchmarks.md#episodic-recall.
- **kept fresh without a rebuild**: every line write bumps the ``lines_gen`` meta key in its
  transaction and leaves a delta (lines removed and added) in this process; a search reads
  ``lines_gen`` (one point query) and applies the deltas that lead to it. A change it has no
  delta for (another process wrote) rebuilds the index.

Kuzu's FTS index over ``terms`` (:data:`LINE_INDEX`, no stemmer, an empty stop-word table) is
no longer created by a search: a query cost 190-250 ms at 200k lines whatever the words (it
scans the document table), building it 2.5 s, and keeping it up to date made a 200k-line bulk
write 1.8x slower and the file about 100 MB larger. ``search_lines(use_index=True)`` still
queries it where :meth:`ensure_line_index` made it (the tests check both agree);
:meth:`drop_line_index` removes one an older version created.

Ties are broken by line id. Hits are scored over all lines, then filtered by ``known_at``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import os
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

from graphmem.errors import StoreError
from graphmem.normalize import TERMS_VERSION
from graphmem.store import linefile
from graphmem.store.cypher import lines as shared_lines
from graphmem.store.cypher.lines import LINE_RETURN
from graphmem.store.kuzu.codec import KUZU
from graphmem.store.kuzu.engine import SMALL_BATCH, KuzuStore
from graphmem.store.lineindex import LineDelta, LineIndex
from graphmem.store.records import LineHit, LineRow
from graphmem.store.textlines import LINES_READ, TERMS_KEY, changed_terms, doc_terms, split_lines
from graphmem.timeutil import from_store, to_store

__all__ = ["KuzuLines", "LINE_INDEX", "TERMS_KEY"]

#: Name of the FTS index over ``SessionLine.terms``.
LINE_INDEX = "graphmem_line_fts"
#: The (empty) stop-word table of that index: ``terms`` has no stop words left.
_STOP_TABLE = "GraphmemLineStopWords"


# -- writes (inside the caller's transaction) ---------------------------------------------------


#: The line writes of this process a store keeps to refresh its in-memory index (the newest).
_MAX_DELTAS = 64

_LINE_COLUMNS = (
    ("id", "STRING"),
    ("session", "STRING"),
    ("n", "INT64"),
    ("speaker", "STRING"),
    ("text", "STRING"),
    ("terms", "STRING"),
    ("started_at", "TIMESTAMP"),
    ("recorded_at", "TIMESTAMP"),
)


# -- the FTS index ----------------------------------------------------------------------------


# -- reads ------------------------------------------------------------------------------------


def _row(r: Sequence[Any]) -> LineRow:
    return shared_lines.line_row(KUZU, r)


#: Spare room of the index build's Arrow chunk over the line count (Kuzu allocates whole
#: chunks: one of 2^30 rows took seconds; one the size of the table, as fast as any).
_CHUNK_SPARE = 4096


def _one_array(col: Any) -> Any:
    """A column of one chunk as its array (no copy), else its chunks combined."""
    return col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()


def _micros(col: Any) -> Any:
    """A TIMESTAMP column as int64 microseconds since the epoch (nulls: 0)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.fill_null(col.cast(pa.timestamp("us")).cast(pa.int64()), 0).to_numpy()


#: Rows of the bulk columns kept made (:class:`_Columns`): a context() call reads about 200,
#: most of them again (hits, their neighbours, their sessions' lines).
_ROWS_KEPT = 8192


class _Columns:
    """The :class:`LineRow` of line ``i`` of the columns read for the index (as :func:`_row`).

    The columns never change (a write makes a delta or a new index), so the rows made are kept
    (the latest :data:`_ROWS_KEPT`).
    """

    def __init__(self, cols: Sequence[Any]) -> None:
        self.cols = cols[:7]
        self._made = functools.lru_cache(maxsize=_ROWS_KEPT)(self._make)

    def _make(self, i: int) -> LineRow:
        return _row([c[i].as_py() for c in self.cols])

    def __call__(self, i: int) -> LineRow:
        return self._made(i)


def _refresh(index: LineIndex, deltas: Sequence[LineDelta], gen: str | None) -> LineIndex | None:
    """Bring the index to ``gen`` with this process's deltas; ``None`` when it cannot."""
    return index if index.refresh(deltas, gen) else None


def _fts_search(
    store: KuzuStore, words: Sequence[str], *, limit: int, known_at: dt.datetime | None
) -> list[LineHit]:
    """The FTS path; asks for more hits until ties at the cut are all in (same as the index)."""
    top = limit * 4
    while True:
        rows = store.run(
            f"CALL QUERY_FTS_INDEX('SessionLine', '{LINE_INDEX}', $q, top := $top) "
            f"WITH node AS l, score RETURN {LINE_RETURN}, score",
            {"q": " ".join(sorted(set(words))), "top": top},
        )
        hits = [LineHit(_row(r), float(r[7])) for r in rows]
        lowest = min((h.score for h in hits), default=0.0)
        if known_at is not None:
            hits = [h for h in hits if h.line.recorded_at <= known_at]
        hits.sort(key=lambda h: (-h.score, h.line.id))
        if len(rows) < top or (len(hits) >= limit and hits[limit - 1].score > lowest):
            return hits[:limit]
        top *= 4


class KuzuLines(KuzuStore):
    """Session lines and episodic search on Kuzu (half of SearchStore)."""

    def __init__(
        self, path: str | None = None, *, engine: str = "kuzu", read_only: bool = False
    ) -> None:
        # Per store, set before the open (which may write lines): the line writes this process
        # made, oldest first (bounded), and the in-memory index.
        self._line_deltas: list[LineDelta] = []
        self._warm_lines: LineIndex | None = None
        self._stale_terms = False
        self._lines_file_gen: str | None = None  # the generation the file beside holds
        self._warm_mapped = False  # the warm index maps the file (its pages)
        super().__init__(path, engine=engine, read_only=read_only)
        try:
            self._check_terms()
        except BaseException:
            self.close()
            raise

    def _check_terms(self) -> None:
        """Recompute the stored ``terms`` when another :func:`terms` version wrote them.

        The version is the ``line_terms`` meta key (:data:`graphmem.normalize.TERMS_VERSION`;
        stores written before it have none). A writable open rewrites the changed terms, the
        key and ``lines_gen`` in one transaction (the FTS index follows ``SET``); a read-only
        open leaves the store as it is and searches an in-memory index built from the texts
        (docs/concepts/recall.md#how-lines-are-ranked).
        """
        if shared_lines.terms_current(self):
            return
        self._drop_lines_file()
        with self.transaction():
            changed = [
                {"id": c["id"], "terms": c["terms"]} for c in changed_terms(self.run(LINES_READ))
            ]
            for i in range(0, len(changed), 20_000):
                self.run(
                    "UNWIND $rows AS row MATCH (l:SessionLine {id: row.id}) "
                    "SET l.terms = row.terms",
                    {"rows": changed[i : i + 20_000]},
                )
            self.set_meta(TERMS_KEY, TERMS_VERSION)
            if changed:
                self.set_meta("lines_gen", uuid.uuid4().hex)

    def _upgrade_data(self, found: str) -> None:
        if found == "1":
            self.upgrade_data()

    def replace_lines(
        self,
        sessions: Sequence[tuple[str, str | None, dt.datetime, dt.datetime]],
        *,
        existing: Iterable[str] = (),
    ) -> int:
        """Replace the lines of sessions: rows of ``(session id, text, started_at, recorded_at)``.

        The old lines of the sessions in ``existing`` (ids of sessions that may have lines) are
        deleted first. Runs in the caller's transaction; logged statements only.

        Returns:
            How many lines were written.

        Raises:
            StoreError: the engine failed.
        """
        old = sorted(set(existing))
        if old or sessions:
            self._drop_lines_file()  # before the write commits (linefile's module docstring)
        if old:
            if len(old) <= 8:
                for sid in old:
                    self.run("MATCH (l:SessionLine) WHERE l.session = $s DELETE l", {"s": sid})
            else:
                self.run(
                    "MATCH (l:SessionLine) WITH l WHERE l.session IN $ids DELETE l", {"ids": old}
                )
        added: list[tuple[LineRow, str]] = []
        for sid, text, started, recorded in sessions:
            for n, (speaker, body) in enumerate(split_lines(text), start=1):
                row = LineRow(f"{sid}#{n}", sid, n, speaker, body, started, recorded)
                added.append((row, doc_terms(speaker, body)))
        params = [
            {
                "id": r.id,
                "session": r.session,
                "n": r.n,
                "speaker": r.speaker,
                "text": r.text,
                "terms": t,
                "started_at": to_store(r.started_at),
                "recorded_at": to_store(r.recorded_at),
            }
            for r, t in added
        ]
        body = ", ".join(f"{c}: cast({{p}}{c} AS {t})" for c, t in _LINE_COLUMNS)
        if len(params) <= SMALL_BATCH:
            query = "CREATE (:SessionLine {" + body.format(p="$") + "})"
            for p in params:
                self.run(query, p)
        else:
            query = "UNWIND $rows AS row CREATE (:SessionLine {" + body.format(p="row.") + "})"
            for i in range(0, len(params), 20_000):
                self.run(query, {"rows": params[i : i + 20_000]})
        if old or added:
            base = self.get_meta("lines_gen")
            gen = uuid.uuid4().hex
            self.set_meta("lines_gen", gen)
            deltas = self._line_deltas
            deltas.append(LineDelta(base, gen, frozenset(old), added))
            del deltas[:-_MAX_DELTAS]
        return len(added)

    def reindex_sessions(self, session_ids: Iterable[str]) -> int:
        """Re-split the stored text of these sessions into lines (after their text changed).

        Keeps each session's ``started_at`` and ``recorded_at``. Runs in the caller's transaction.

        Returns:
            How many lines were written.
        """
        ids = sorted(set(session_ids))
        if not ids:
            return 0
        rows = []
        for sid in ids:
            for r in self.run(
                "MATCH (s:Session {id: $i}) RETURN s.id, s.text, s.started_at, s.recorded_at",
                {"i": sid},
            ):
                started = from_store(r[2])
                if started is None:
                    continue
                rows.append((r[0], r[1], started, from_store(r[3]) or started))
        return self.replace_lines(rows, existing=ids)

    def sessions_with_lines_containing(self, words: Iterable[str]) -> set[str]:
        """Return the ids of sessions with a line whose text contains one of ``words`` (a scan)."""
        found: set[str] = set()
        for w in sorted({w.strip().lower() for w in words if w and w.strip()}):
            rows = self.run(
                "MATCH (l:SessionLine) WITH l WHERE lower(l.text) CONTAINS $w "
                "OR lower(coalesce(l.speaker, '')) CONTAINS $w RETURN DISTINCT l.session",
                {"w": w},
            )
            found.update(r[0] for r in rows)
        return found

    def upgrade_data(self) -> None:
        """The data part of the schema 1 -> 2 upgrade (inside the caller's transaction).

        Sessions of schema 1 have no system time: ``recorded_at`` becomes their ``started_at`` (as
        hotness always placed them). Their texts are split into lines.
        """
        self.run("MATCH (s:Session) SET s.recorded_at = s.started_at")
        rows = self.run("MATCH (s:Session) RETURN s.id, s.text, s.started_at ORDER BY s.id")
        sessions = []
        for sid, text, started in rows:
            at = from_store(started)
            if at is not None and text:
                sessions.append((sid, text, at, at))
        self.replace_lines(sessions)

    def line_index_exists(self) -> bool:
        """Return whether the line FTS index exists (``False`` without the extension)."""
        if not self.fts_available():
            return False
        rows = self.run("CALL SHOW_INDEXES() RETURN index_name")
        return any(r[0] == LINE_INDEX for r in rows)

    def ensure_line_index(self) -> bool:
        """Create the line FTS index when missing; return whether it can be queried.

        ``False`` without the FTS extension or on a read-only store without the index. Must not
        run inside a write transaction (Kuzu builds FTS indexes in auto-commit mode only).
        """
        if self.line_index_exists():
            return True
        if self.read_only or not self.fts_available():
            return False
        tables = {r[0] for r in self.run("CALL show_tables() RETURN name")}
        if _STOP_TABLE not in tables:
            self.run(f"CREATE NODE TABLE {_STOP_TABLE}(sw STRING PRIMARY KEY)")
        self.run(
            f"CALL CREATE_FTS_INDEX('SessionLine', '{LINE_INDEX}', ['terms'], "
            f"stemmer := 'none', stopWords := '{_STOP_TABLE}')"
        )
        return True

    def drop_line_index(self) -> bool:
        """Drop the line FTS index (e.g. before ``EXPORT DATABASE`` for ladybug).

        Returns:
            Whether an index was dropped.
        """
        if not self.line_index_exists():
            return False
        self.run(f"CALL DROP_FTS_INDEX('SessionLine', '{LINE_INDEX}')")
        return True

    def get_lines(self, ids: Iterable[str]) -> dict[str, LineRow]:
        """Return ``{id: line}`` for those line ids that exist (from the warm index if any)."""
        wanted = sorted(set(ids))
        index = self._warm_lines
        if index is not None and index.gen == self.get_meta("lines_gen"):
            return {i: index.row(index.pos[i]) for i in wanted if i in index.pos}
        out = {}
        for i in wanted:
            for r in self.run(f"MATCH (l:SessionLine {{id: $i}}) RETURN {LINE_RETURN}", {"i": i}):
                out[r[0]] = _row(r)
        return out

    def _build_index(self, gen: str | None) -> LineIndex:
        """Build the in-memory index from one columnar read of every line (Arrow, no rows)."""
        query = f"MATCH (l:SessionLine) RETURN {LINE_RETURN}, l.terms"
        conn = self.executor.conn
        if conn is None or self.in_transaction or self._stale_terms:
            # (inside a transaction its pending writes go first; a read-only store of another
            # terms version is indexed with the terms of its texts as they read now)
            index = LineIndex(gen)
            for r in self.run(query):
                row = _row(r)
                index.add(
                    row, doc_terms(row.speaker, row.text) if self._stale_terms else r[7] or ""
                )
            return index
        n = int(self.run("MATCH (l:SessionLine) RETURN count(l)")[0][0])
        try:
            table = conn.execute(query).get_as_arrow(chunk_size=n + _CHUNK_SPARE)
        except RuntimeError as exc:
            raise StoreError(f"{self.engine} query failed: {exc}") from exc
        cols = [_one_array(table.column(i)) for i in range(table.num_columns)]
        import pyarrow.compute as pc

        recorded = _micros(pc.coalesce(cols[6], cols[5])) / 1e6  # as _row: else the start
        return LineIndex.bulk(gen, cols[0].to_pylist(), cols[7], recorded, _Columns(cols))

    def line_index(self) -> LineIndex:
        """Return the store's in-memory line index, built or refreshed as needed."""
        gen = self.get_meta("lines_gen")
        index = self._warm_lines
        if index is not None and index.gen != gen:
            index = _refresh(index, self._line_deltas, gen)
        if index is None:
            loaded = self._load_index(gen)
            self._warm_mapped = loaded is not None
            index = self._warm_lines = loaded or self._build_index(gen)
        return index

    def release_line_index(self) -> None:
        """Drop the warm index if it maps the file: after a purge, whose texts its pages hold.

        The file was removed by the purge's line write; its pages go when the index does.
        """
        if self._warm_mapped:
            self._warm_lines = None
            self._warm_mapped = False

    # -- the index file (docs/concepts/recall.md#line-index-file) -------------------------------

    def _lines_file(self) -> str | None:
        return None if self.path is None else os.fspath(self.path) + linefile.SUFFIX

    def _drop_lines_file(self) -> None:
        """Remove the index file: a line write is about to change the lines."""
        target = self._lines_file()
        if target is not None and not self.read_only:
            linefile.remove(target)
            self._lines_file_gen = None

    def _load_index(self, gen: str | None) -> LineIndex | None:
        """The index saved beside the database for ``gen``, or ``None``."""
        target = self._lines_file()
        if target is None or gen is None or self.in_transaction or self._stale_terms:
            return None
        found = linefile.load(target, gen=gen, terms=TERMS_VERSION)
        if found is None:
            return None
        table, vocab, arrays = found
        cols = [_one_array(table.column(i)) for i in range(table.num_columns)]
        try:
            index = LineIndex.from_state(gen, cols[0].to_pylist(), vocab, arrays, _Columns(cols))
        except (ValueError, KeyError):
            return None
        self._lines_file_gen = gen
        return index

    def save_line_index(self) -> bool:
        """Save the in-memory index beside the database (docs/concepts/recall.md#line-index-file).

        When it is fresh and holds only the stored lines (a writable store on disk). Returns
        whether the file holds it now.
        """
        target = self._lines_file()
        index = self._warm_lines
        if target is None or self.read_only or index is None or self.in_transaction:
            return False
        gen = index.gen
        if gen is None or self._lines_file_gen == gen:
            return gen is not None
        row_at = index.row_at
        if not isinstance(row_at, _Columns) or gen != self.get_meta("lines_gen"):
            return False
        state = index.state()
        if state is None:
            return False
        import pyarrow as pa

        names = ["id", "session", "n", "speaker", "text", "started_at", "recorded_at"]
        table = pa.table(dict(zip(names, row_at.cols, strict=True)))
        vocab, arrays = state
        try:
            linefile.save(
                target, gen=gen, terms=TERMS_VERSION, columns=table, vocab=vocab, arrays=arrays
            )
        except OSError:
            return False  # a cache: a full disk or a read-only folder costs the next build only
        self._lines_file_gen = gen
        return True

    def prepare_lines(self) -> None:
        """Build the in-memory index now and save it beside the database (a server's open)."""
        if self.has_lines():
            self.line_index()
            self.save_line_index()

    def close(self) -> None:
        """Save the line index beside the database (when due), then close."""
        if self.executor.conn is not None:
            with contextlib.suppress(Exception):  # a cache: never fail a close for it
                self.save_line_index()
        super().close()

    def _search_lines(
        self,
        words: Sequence[str],
        *,
        limit: int,
        known_at: dt.datetime | None,
        use_index: bool | None,
        common: float | None,
    ) -> list[LineHit]:
        """``use_index=True``: the FTS index (it must exist); else the in-memory index."""
        if use_index:
            return _fts_search(self, words, limit=limit, known_at=known_at)
        return self.line_index().search(words, limit=limit, known_at=known_at, common=common)
