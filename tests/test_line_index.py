"""The in-memory line index: a bulk build ranks exactly as a line-by-line build, and follows writes.

docs/concepts/recall.md#line-index. The line-by-line build (:meth:`LineIndex.add`) is the
reference the contract tests already compare every backend with; here the bulk build (Arrow
columns, radix-grouped postings), its first search (before the postings are grouped) and its
refresh by deltas must give the same hits and the same float scores.
"""

from __future__ import annotations

import datetime as dt
import uuid
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.store import open_store
from graphmem.store.lineindex import LineDelta, LineIndex, _tokens_joined, _tokens_split
from graphmem.store.records import LineRow
from graphmem.store.textlines import doc_terms, split_lines, terms
from graphmem.timeutil import ManualClock, to_store

UTC = dt.timezone.utc
VOCAB = ["ann", "bo", "tea", "kite", "garden", "owl", "heron", "tomato", "rain", "sun", "run"]
T0 = dt.datetime(2024, 1, 1, tzinfo=UTC)


def _session(sid: str, text: str, hour: int) -> list[tuple[LineRow, str]]:
    at = T0 + dt.timedelta(hours=hour)
    return [
        (LineRow(f"{sid}#{n}", sid, n, speaker, body, T0, at), doc_terms(speaker, body))
        for n, (speaker, body) in enumerate(split_lines(text), start=1)
    ]


def _reference(state: dict[str, list[tuple[LineRow, str]]]) -> LineIndex:
    index = LineIndex(None)
    for sid in sorted(state):
        for row, words in state[sid]:
            index.add(row, words)
    return index


def _bulk(state: dict[str, list[tuple[LineRow, str]]], gen: str | None = None) -> LineIndex:
    rows = [x for sid in sorted(state, reverse=True) for x in state[sid]]  # any order
    lines = [r for r, _ in rows]
    return LineIndex.bulk(
        gen,
        [r.id for r in lines],
        [t for _, t in rows],
        [r.recorded_at.timestamp() for r in lines],
        lines.__getitem__,
    )


def _same(got: LineIndex, want: LineIndex, queries: list[tuple[list[str], int, Any]]) -> None:
    for words, limit, known in queries:
        a = got.search(words, limit=limit, known_at=known)
        b = want.search(words, limit=limit, known_at=known)
        assert [(h.line, h.score) for h in a] == [(h.line, h.score) for h in b], (words, limit)


_text = st.lists(
    st.tuples(
        st.sampled_from(["Ann: ", "Bo: ", ""]),
        st.lists(st.sampled_from(VOCAB), min_size=0, max_size=6).map(" ".join),
    ).map("".join),
    min_size=1,
    max_size=4,
).map("\n".join)
_query = st.tuples(
    st.lists(st.sampled_from([*VOCAB, "absent"]), min_size=1, max_size=3),
    st.integers(1, 8),
    st.one_of(st.none(), st.integers(0, 12).map(lambda h: T0 + dt.timedelta(hours=h))),
)
_write = st.tuples(st.sampled_from(["s1", "s2", "s3", "s10"]), st.one_of(st.just(""), _text))


@settings(max_examples=60, deadline=None)
@given(
    before=st.lists(_write, max_size=6),
    after=st.lists(_write, max_size=6),
    queries=st.lists(_query, min_size=2, max_size=5),
)
def test_bulk_index_after_any_writes_equals_a_fresh_build(
    before: list[tuple[str, str]],
    after: list[tuple[str, str]],
    queries: list[tuple[list[str], int, Any]],
) -> None:
    """Built in bulk, searched (first search: ungrouped postings; later: grouped), then
    followed through deltas (a session re-written or emptied), the index ranks as a fresh
    line-by-line build of the lines at that point, scores bit for bit."""
    state: dict[str, list[tuple[LineRow, str]]] = {}
    for hour, (sid, text) in enumerate(before):
        state[sid] = _session(sid, text, hour)
    index = _bulk(state, "g0")
    _same(index, _reference(state), queries)  # tokens not grouped yet (or being grouped)
    index.wait()
    _same(index, _reference(state), queries)  # the postings grouped by term
    deltas, gen = [], "g0"
    for hour, (sid, text) in enumerate(after, start=len(before)):
        added = _session(sid, text, hour)
        state[sid] = added
        new = uuid.uuid4().hex
        deltas.append(LineDelta(gen, new, frozenset({sid}), added))
        gen = new
    assert index.refresh(deltas, gen)
    _same(index, _reference(state), queries)
    fresh = _bulk(state, gen)
    _same(fresh, _reference(state), queries)
    fresh.wait()
    _same(fresh, _reference(state), queries)
    for sid in ["s1", "s2", "s3", "s10", "s4"]:
        assert (
            index.session_rows(sid) == fresh.session_rows(sid) == [r for r, _ in state.get(sid, [])]
        )
    assert index.n_alive == fresh.n_alive
    assert index.total_len == fresh.total_len


_token = st.text(alphabet="ab é\t\n\x1c\u3000", max_size=12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.none(), _token), max_size=8))
def test_buffer_tokens_are_str_split_words(texts: list[str | None]) -> None:
    """The NumPy tokenizer reads exactly ``str.split``'s words, or declines to."""
    import pyarrow as pa

    arr = pa.array([t or "" for t in texts], type=pa.string())
    want = [(d, w) for d, t in enumerate(texts) for w in (t or "").split()]
    vocab, tid, doc = _tokens_split(arr)
    assert [(int(d), vocab[t]) for t, d in zip(tid, doc, strict=True)] == want
    joined = _tokens_joined(arr)
    if texts and all(t is None or " ".join(t.split()) == t for t in texts):
        assert joined is not None
    if joined is not None:
        vocab, tid, doc = joined
        assert [(int(d), vocab[t]) for t, d in zip(tid, doc, strict=True)] == want
        assert len(set(vocab)) == len(vocab)


def test_store_index_follows_this_and_another_writer(tmp_path: Any, engine: str) -> None:
    """A line written after the index was built is found by the next search: written by this
    store (a delta) or by another process (a ``lines_gen`` this store has no delta for: the
    index is rebuilt from the store)."""
    path = str(tmp_path / "mem.kuzu")
    store = open_store(path, engine=engine)
    with gm.open(store=store, clock=ManualClock("2025-01-02")) as mem:
        for i in range(30):
            mem.add_session(
                f"Ann: the heron {i} flew\nBo: rain again",
                started_at="2025-01-01",
                session_id=f"s{i}",
                extract=False,
            )
        assert len(store.search_lines(["heron"], limit=100)) == 30
        built = store.warm_index()
        assert built is not None
        mem.add_session(
            "Ann: an owl and a heron", started_at="2025-01-01", session_id="new", extract=False
        )
        assert store.warm_index() is None  # stale until the next search follows the delta
        hits = store.search_lines(["owl"], limit=5)
        assert [h.line.id for h in hits] == ["new#1"]
        assert store.warm_index() is built  # followed, not rebuilt
        # another process's write: its lines and its generation, no delta here
        with store.transaction():
            store.run(
                "CREATE (:SessionLine {id: 'other#1', session: 'other', n: 1, speaker: 'Bo', "
                "text: 'owls at dusk', terms: $t, started_at: $at, recorded_at: $at})",
                {"t": doc_terms("Bo", "owls at dusk"), "at": to_store(T0)},
            )
            store.set_meta("lines_gen", uuid.uuid4().hex)
        hits = store.search_lines(terms("owls"), limit=5)
        assert sorted(h.line.id for h in hits) == ["new#1", "other#1"]
        assert store.warm_index() is not built
        assert store.session_lines("other")[0].text == "owls at dusk"
        assert store.line_index().n_alive == sum(store.line_counts().values())
        for words in (["heron"], ["rain", "owl"], ["flew", "heron", "absent"]):
            got = store.search_lines(words, limit=7)
            assert [h.line.id for h in got] == [
                h.line.id for h in _all_lines_reference(store).search(words, limit=7)
            ]


def _all_lines_reference(store: Any) -> LineIndex:
    index = LineIndex(None)
    for sid in sorted(store.line_counts()):
        for row in store.session_lines(sid):
            index.add(row, doc_terms(row.speaker, row.text))
    return index


def test_read_only_store_builds_the_same_index(tmp_path: Any, engine: str) -> None:
    path = str(tmp_path / "mem.kuzu")
    store = open_store(path, engine=engine)
    with gm.open(store=store, clock=ManualClock("2025-01-02")) as mem:
        for i in range(12):
            mem.add_session(
                f"Ann: tea {i} and kites\nBo: kites in the rain {i % 3}",
                started_at="2025-01-01",
                extract=False,
            )
        want = store.search_lines(["kite", "rain"], limit=10)
    ro = open_store(path, engine=engine, read_only=True)
    with gm.open(store=ro, clock=ManualClock("2025-01-02")):
        assert ro.search_lines(["kite", "rain"], limit=10) == want
        ro.line_index().wait()
        assert ro.search_lines(["kite", "rain"], limit=10) == want  # grouped postings


def test_known_at_filters_after_scoring() -> None:
    state = {"a": _session("a", "Ann: tea tea", 1), "b": _session("b", "Bo: tea and rain", 5)}
    index = _bulk(state)
    assert [
        h.line.id for h in index.search(["tea"], limit=5, known_at=T0 + dt.timedelta(hours=2))
    ] == ["a#1"]
    assert [h.line.id for h in index.search(["tea"], limit=5)] == ["a#1", "b#1"]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(VOCAB), min_size=1, max_size=5))
def test_ties_at_the_cut_go_by_line_id(words: list[str]) -> None:
    state = {f"s{i}": _session(f"s{i}", "same words " + " ".join(words), 0) for i in range(12)}
    index = _bulk(state)
    for limit in (1, 3, 12):
        hits = index.search(terms(" ".join(words)), limit=limit)
        assert [h.line.id for h in hits] == sorted(f"s{i}#1" for i in range(12))[:limit]


def test_common_words_can_be_left_out() -> None:
    state = {f"s{i}": _session(f"s{i}", f"Ann: project update {i}", i) for i in range(30)}
    state["x"] = _session("x", "Bo: project kite", 31)
    index = _bulk(state)
    words = terms("project kite")
    assert len(index.search(words, limit=50)) == 31  # every line has "project"
    hits = index.search(words, limit=50, common=0.5)
    assert [h.line.id for h in hits] == ["x#1"]  # "project" ties nothing together
    assert index.search(["project"], limit=50, common=0.5) == []
    assert len(index.search(["project"], limit=50, common=1.0)) == 31
    small = _bulk({k: state[k] for k in ("s1", "s2", "x")})
    assert len(small.search(["project"], limit=50, common=0.5)) == 3  # never in a small memory


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.lists(st.sampled_from(VOCAB[:6]), min_size=1, max_size=6), min_size=1, max_size=30),
    st.lists(st.sampled_from(VOCAB[:6]), min_size=1, max_size=3),
    st.integers(1, 40),
)
def test_the_best_lines_are_the_sorted_scores(
    lines: list[list[str]], query: list[str], limit: int
) -> None:
    """The cut at ``limit`` (few distinct scores, many ties) equals a full sort."""
    state = {f"s{i:02d}": _session(f"s{i:02d}", " ".join(ws), 0) for i, ws in enumerate(lines)}
    index = _bulk(state)
    everything = index.search(terms(" ".join(query)), limit=10_000)
    ranked = sorted(everything, key=lambda h: (-h.score, h.line.id))
    assert everything == ranked
    assert index.search(terms(" ".join(query)), limit=limit) == ranked[:limit]
