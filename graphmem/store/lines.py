"""Session lines: the episodic index behind ``search()`` and ``context()`` (SPEC §5, issue #14).

Every session text is split into **lines** (:func:`split_lines`: one per non-blank line or
turn; ``Speaker: text`` turns keep the speaker; a line over :data:`MAX_LINE` characters is cut
at sentence ends). Each is a ``SessionLine`` node ``{id: "<session id>#<n>", session, n,
speaker, text, terms, started_at, recorded_at}``: ``started_at`` is the session's (world time,
shown as the line's date), ``recorded_at`` the system time of the write that stored it (so
``known_at`` sees only sessions recorded by then). ``terms`` holds the line's normalised words
(:func:`terms`: NFKC, case-folded, stop words and bare numbers dropped, light stemming), the
same normalisation as the query's.

Lines are written and deleted in the caller's transaction with logged statements only (no
``COPY``: a transaction that mixes COPY with logged writes is torn by a crash, issue #16), by
:func:`replace_lines`, called from :func:`graphmem.store.sessions.write_sessions` (add and
re-add of a session), the privacy purge (redacted texts re-split) and import (lines are not
exported; they are rebuilt from the session texts).

Ranking: BM25 (``k1 = 1.2``, ``b = 0.75``, ``idf = log10((N - df + 0.5) / (df + 0.5) + 1)``:
Kuzu's FTS formula) over ``speaker + terms``. Two implementations give the same scores:

- **Kuzu's FTS index** (:data:`LINE_INDEX`, over ``terms`` with no stemmer and an empty
  stop-word table, since ``terms`` is normalised already). Measured on 2 cores: a query costs
  190-250 ms at 200k lines whatever the words (it scans the document table), and keeping the
  index up to date makes a 200k-line bulk write 1.8x slower (16.7 s vs 9.4 s). It is built on
  the first cold search of a writable Kuzu store (2.5 s per 200k lines, once) and serves the
  first search of each process (a one-shot CLI call).
- **An in-memory inverted index** (:class:`LineIndex`, NumPy): built from the ``terms`` of all
  lines at the second search of a process, or at the first where there is no FTS (ladybug
  offline, a read-only Kuzu store without the index); about 1-2 s per 200k lines, then about
  1-3 ms a query. It stays fresh without a rebuild: every line write bumps the ``lines_gen``
  meta key in its transaction and leaves a delta (lines removed and added) in this process;
  a search reads ``lines_gen`` (one point query) and applies the deltas that lead to it. A
  change it has no delta for (another process wrote) rebuilds the index.

Ties are broken by line id. Hits are scored over all lines, then filtered by ``known_at``.
"""

from __future__ import annotations

import datetime as dt
import math
import re
import unicodedata
import uuid
import weakref
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from graphmem.errors import StoreError
from graphmem.normalize import STOPWORDS
from graphmem.store.kuzu_store import SMALL_BATCH, KuzuStore
from graphmem.timeutil import from_store, to_store

__all__ = [
    "K1",
    "B",
    "LINE_INDEX",
    "MAX_LINE",
    "STOPWORDS",
    "LineHit",
    "LineIndex",
    "LineRow",
    "drop_line_index",
    "ensure_line_index",
    "get_lines",
    "line_index_exists",
    "reindex_sessions",
    "replace_lines",
    "search_lines",
    "session_lines",
    "sessions_with_lines_containing",
    "split_lines",
    "stem",
    "warm_index",
    "terms",
    "upgrade_data",
]

#: Name of the FTS index over ``SessionLine.terms``.
LINE_INDEX = "graphmem_line_fts"
#: The (empty) stop-word table of that index: ``terms`` has no stop words left.
_STOP_TABLE = "GraphmemLineStopWords"
#: Longest line kept whole; longer ones are cut at sentence ends.
MAX_LINE = 600
#: BM25 parameters (Kuzu's FTS defaults).
K1, B = 1.2, 0.75
#: Stores with at least this many lines use the FTS index for a cold search (else the
#: in-memory index is built at once: cheaper than a full-text query there).
COLD_FTS_MIN = 20_000

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_SPEAKER = re.compile(r"^([^\W\d_][\w.'’ -]{0,38}?)\s*:\s+(?=\S)")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def stem(word: str) -> str:
    """Strip one common English suffix (``ing``, ``ies``, ``es``, ``ed``, ``s``).

    >>> [stem(w) for w in ("deploys", "running", "companies", "used", "gas")]
    ['deploy', 'runn', 'company', 'used', 'gas']
    """
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def terms(text: str) -> list[str]:
    """Return the indexed words of a text, in order (repeats kept).

    >>> terms("Caroline: I went to the LGBTQ support group in 2023!")
    ['caroline', 'went', 'lgbtq', 'support', 'group']
    """
    words = _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())
    return [stem(w) for w in words if len(w) > 1 and not w.isdigit() and w not in STOPWORDS]


def split_lines(text: str | None) -> list[tuple[str | None, str]]:
    r"""Split a session text into ``(speaker, text)`` lines.

    One line per non-blank line of the text, whitespace collapsed. A ``Name: words`` prefix
    (a name of up to 40 characters starting with a letter) is the speaker. A line longer than
    :data:`MAX_LINE` characters is cut at sentence ends (a sentence longer than that at a
    space); the parts keep the speaker.

    >>> split_lines("Caroline: I went to the group.\n\nMelanie: Wow!\nJust notes")
    [('Caroline', 'I went to the group.'), ('Melanie', 'Wow!'), (None, 'Just notes')]
    """
    out: list[tuple[str | None, str]] = []
    for raw in (text or "").splitlines():
        line = " ".join(raw.split())
        if not line:
            continue
        speaker: str | None = None
        m = _SPEAKER.match(line)
        if m and len(m.group(1).split()) <= 4:
            speaker, line = m.group(1).strip(), line[m.end() :]
        out.extend((speaker, part) for part in _parts(line))
    return out


def _parts(line: str) -> list[str]:
    if len(line) <= MAX_LINE:
        return [line]
    parts: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(line):
        while len(sentence) > MAX_LINE:
            cut = sentence.rfind(" ", 0, MAX_LINE)
            cut = cut if cut > 0 else MAX_LINE
            if current:
                parts.append(current)
                current = ""
            parts.append(sentence[:cut])
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > MAX_LINE:
            parts.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        parts.append(current)
    return parts


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
    """A line found by :func:`search_lines` and its BM25 score."""

    line: LineRow
    score: float


def _doc_terms(speaker: str | None, text: str) -> str:
    return " ".join(terms(f"{speaker or ''} {text}"))


# -- writes (inside the caller's transaction) ---------------------------------------------------


@dataclass
class _Delta:
    base: str | None
    gen: str
    removed: frozenset[str]
    added: list[tuple[LineRow, str]]


# Per store: the deltas this process wrote, oldest first (bounded), and the in-memory index.
_DELTAS: weakref.WeakKeyDictionary[KuzuStore, list[_Delta]] = weakref.WeakKeyDictionary()
_INDEXES: weakref.WeakKeyDictionary[KuzuStore, LineIndex] = weakref.WeakKeyDictionary()
_COLD: weakref.WeakKeyDictionary[KuzuStore, int] = weakref.WeakKeyDictionary()
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


def replace_lines(
    store: KuzuStore,
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
    if old:
        if len(old) <= 8:
            for sid in old:
                store.run("MATCH (l:SessionLine) WHERE l.session = $s DELETE l", {"s": sid})
        else:
            store.run("MATCH (l:SessionLine) WITH l WHERE l.session IN $ids DELETE l", {"ids": old})
    added: list[tuple[LineRow, str]] = []
    for sid, text, started, recorded in sessions:
        for n, (speaker, body) in enumerate(split_lines(text), start=1):
            row = LineRow(f"{sid}#{n}", sid, n, speaker, body, started, recorded)
            added.append((row, _doc_terms(speaker, body)))
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
            store.run(query, p)
    else:
        query = "UNWIND $rows AS row CREATE (:SessionLine {" + body.format(p="row.") + "})"
        for i in range(0, len(params), 20_000):
            store.run(query, {"rows": params[i : i + 20_000]})
    if old or added:
        base = store.get_meta("lines_gen")
        gen = uuid.uuid4().hex
        store.set_meta("lines_gen", gen)
        deltas = _DELTAS.setdefault(store, [])
        deltas.append(_Delta(base, gen, frozenset(old), added))
        del deltas[:-_MAX_DELTAS]
    return len(added)


def reindex_sessions(store: KuzuStore, session_ids: Iterable[str]) -> int:
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
        for r in store.run(
            "MATCH (s:Session {id: $i}) RETURN s.id, s.text, s.started_at, s.recorded_at",
            {"i": sid},
        ):
            started = from_store(r[2])
            if started is None:
                continue
            rows.append((r[0], r[1], started, from_store(r[3]) or started))
    return replace_lines(store, rows, existing=ids)


def sessions_with_lines_containing(store: KuzuStore, words: Iterable[str]) -> set[str]:
    """Return the ids of sessions with a line whose text contains one of ``words`` (a scan)."""
    found: set[str] = set()
    for w in sorted({w.strip().lower() for w in words if w and w.strip()}):
        rows = store.run(
            "MATCH (l:SessionLine) WITH l WHERE lower(l.text) CONTAINS $w "
            "OR lower(coalesce(l.speaker, '')) CONTAINS $w RETURN DISTINCT l.session",
            {"w": w},
        )
        found.update(r[0] for r in rows)
    return found


def upgrade_data(store: KuzuStore) -> None:
    """The data part of the schema 1 -> 2 upgrade (inside the caller's transaction).

    Sessions of schema 1 have no system time: ``recorded_at`` becomes their ``started_at`` (as
    hotness always placed them). Their texts are split into lines.
    """
    store.run("MATCH (s:Session) SET s.recorded_at = s.started_at")
    rows = store.run("MATCH (s:Session) RETURN s.id, s.text, s.started_at ORDER BY s.id")
    sessions = []
    for sid, text, started in rows:
        at = from_store(started)
        if at is not None and text:
            sessions.append((sid, text, at, at))
    replace_lines(store, sessions)


# -- the FTS index ----------------------------------------------------------------------------


def line_index_exists(store: KuzuStore) -> bool:
    """Return whether the line FTS index exists (``False`` without the extension)."""
    if not store.fts_available():
        return False
    rows = store.run("CALL SHOW_INDEXES() RETURN index_name")
    return any(r[0] == LINE_INDEX for r in rows)


def ensure_line_index(store: KuzuStore) -> bool:
    """Create the line FTS index when missing; return whether it can be queried.

    ``False`` without the FTS extension or on a read-only store without the index. Must not
    run inside a write transaction (Kuzu builds FTS indexes in auto-commit mode only).
    """
    if line_index_exists(store):
        return True
    if store.read_only or not store.fts_available():
        return False
    tables = {r[0] for r in store.run("CALL show_tables() RETURN name")}
    if _STOP_TABLE not in tables:
        store.run(f"CREATE NODE TABLE {_STOP_TABLE}(sw STRING PRIMARY KEY)")
    store.run(
        f"CALL CREATE_FTS_INDEX('SessionLine', '{LINE_INDEX}', ['terms'], "
        f"stemmer := 'none', stopWords := '{_STOP_TABLE}')"
    )
    return True


def drop_line_index(store: KuzuStore) -> bool:
    """Drop the line FTS index (e.g. before ``EXPORT DATABASE`` for ladybug).

    Returns:
        Whether an index was dropped.
    """
    if not line_index_exists(store):
        return False
    store.run(f"CALL DROP_FTS_INDEX('SessionLine', '{LINE_INDEX}')")
    return True


# -- reads ------------------------------------------------------------------------------------

_LINE_RETURN = "l.id, l.session, l.n, l.speaker, l.text, l.started_at, l.recorded_at"


def _row(r: Sequence[Any]) -> LineRow:
    started = from_store(r[5])
    if started is None:
        raise StoreError(f"session line {r[0]!r} has no started_at; run 'graphmem check'")
    return LineRow(r[0], r[1], int(r[2]), r[3], r[4] or "", started, from_store(r[6]) or started)


def get_lines(store: KuzuStore, ids: Iterable[str]) -> dict[str, LineRow]:
    """Return ``{id: line}`` for those line ids that exist (from the warm index if any)."""
    wanted = sorted(set(ids))
    index = _INDEXES.get(store)
    if index is not None and index.gen == store.get_meta("lines_gen"):
        return {i: index.rows[index.pos[i]] for i in wanted if i in index.pos}
    out = {}
    for i in wanted:
        for r in store.run(f"MATCH (l:SessionLine {{id: $i}}) RETURN {_LINE_RETURN}", {"i": i}):
            out[r[0]] = _row(r)
    return out


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


def _build(store: KuzuStore, gen: str | None) -> LineIndex:
    index = LineIndex(gen)
    rows = store.run(
        f"MATCH (l:SessionLine) RETURN {_LINE_RETURN}, l.terms ORDER BY l.session, l.n"
    )
    for r in rows:
        index.add(_row(r), r[7] or "")
    return index


def _refresh(store: KuzuStore, index: LineIndex, gen: str | None) -> LineIndex | None:
    """Bring the index to ``gen`` with this process's deltas; ``None`` when it cannot."""
    chain: list[_Delta] = []
    at = index.gen
    for delta in _DELTAS.get(store, []):
        if delta.base == at:
            chain.append(delta)
            at = delta.gen
    if at != gen:
        return None
    for delta in chain:
        index.remove_sessions(delta.removed | {r.session for r, _ in delta.added})
        for row, doc_terms in delta.added:
            index.add(row, doc_terms)
        index.gen = delta.gen
    return index


def line_index(store: KuzuStore) -> LineIndex:
    """Return the store's in-memory line index, built or refreshed as needed."""
    gen = store.get_meta("lines_gen")
    index = _INDEXES.get(store)
    if index is not None and index.gen != gen:
        index = _refresh(store, index, gen)
    if index is None:
        index = _INDEXES[store] = _build(store, gen)
    return index


def _fts_search(
    store: KuzuStore, words: Sequence[str], *, limit: int, known_at: dt.datetime | None
) -> list[LineHit]:
    """The FTS path; asks for more hits until ties at the cut are all in (same as the index)."""
    top = limit * 4
    while True:
        rows = store.run(
            f"CALL QUERY_FTS_INDEX('SessionLine', '{LINE_INDEX}', $q, top := $top) "
            f"WITH node AS l, score RETURN {_LINE_RETURN}, score",
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


def search_lines(
    store: KuzuStore,
    words: Sequence[str],
    *,
    limit: int = 50,
    known_at: dt.datetime | None = None,
    use_index: bool | None = None,
) -> list[LineHit]:
    """BM25 search over the session lines; the best ``limit`` lines recorded by ``known_at``.

    Args:
        store: the store.
        words: query words normalised by :func:`terms`.
        limit: at most this many hits.
        known_at: only lines recorded at or before it.
        use_index: ``True``: the FTS index (must exist); ``False``: the in-memory index;
            ``None``: choose (module docstring).

    Returns:
        Hits best first, ties by line id.

    Raises:
        StoreError: the engine failed.
    """
    words = [w for w in words if w]
    if not words or limit <= 0:
        return []
    if use_index is None:
        warm = _INDEXES.get(store)
        use_index = False
        if warm is None:
            cold = _COLD.get(store, 0)
            _COLD[store] = cold + 1
            if cold == 0 and store.fts_available():
                n = int(store.run("MATCH (l:SessionLine) RETURN count(l)")[0][0])
                use_index = n >= COLD_FTS_MIN and ensure_line_index(store)
    if use_index:
        return _fts_search(store, words, limit=limit, known_at=known_at)
    return line_index(store).search(words, limit=limit, known_at=known_at)


def warm_index(store: KuzuStore) -> LineIndex | None:
    """Return the in-memory index when it is built and fresh, else ``None`` (one meta read)."""
    index = _INDEXES.get(store)
    if index is not None and index.gen == store.get_meta("lines_gen"):
        return index
    return None


def neighbours(
    store: KuzuStore, row: LineRow, *, index: LineIndex | None = None
) -> tuple[LineRow | None, LineRow | None]:
    """Return the lines before and after ``row`` in its session.

    ``index``: a fresh in-memory index (:func:`warm_index`); without one, point lookups.
    """
    if index is not None:
        return index.neighbours(row)
    found = get_lines(store, [f"{row.session}#{row.n - 1}", f"{row.session}#{row.n + 1}"])
    return found.get(f"{row.session}#{row.n - 1}"), found.get(f"{row.session}#{row.n + 1}")


def session_lines(store: KuzuStore, session_id: str) -> list[LineRow]:
    """Return the lines of one session in order (from the warm index, else one scan)."""
    index = _INDEXES.get(store)
    if index is not None and index.gen == store.get_meta("lines_gen"):
        docs = index.by_session.get(session_id, [])
        return sorted((index.rows[d] for d in docs if index.alive[d]), key=lambda r: r.n)
    rows = store.run(
        f"MATCH (l:SessionLine) WITH l WHERE l.session = $s RETURN {_LINE_RETURN} ORDER BY l.n",
        {"s": session_id},
    )
    return [_row(r) for r in rows]


def line_counts(store: KuzuStore) -> Mapping[str, int]:
    """Return ``{session id: number of lines}`` (a scan; for checks and tests)."""
    rows = store.run("MATCH (l:SessionLine) RETURN l.session, count(l)")
    return {r[0]: int(r[1]) for r in rows}
