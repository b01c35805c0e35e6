"""SearchStore: session lines and BM25 search, entity search, fact views around entities."""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.store.base import ChangeSet, LineIndex
from graphmem.store.textlines import doc_terms, terms

from .helpers import Pair, ent, fact, h, session

TEXTS = {
    "a": "Alice: I run every morning.\nBob: Running is good for you.\nAlice: Bob runs too.",
    "b": "Notes on kites and kite flying\n\nThe kite flew high, the kite flew far.",
    "c": "Bob: tea or coffee?\nAlice: tea, always tea.",
}


def _lines(pair: Pair) -> None:
    pair.apply(ChangeSet(at=h(10), sessions=[(session("a", 1, TEXTS["a"]), {})]))
    pair.apply(
        ChangeSet(
            at=h(20),
            sessions=[(session("b", 2, TEXTS["b"]), {}), (session("c", 3, TEXTS["c"]), {})],
        )
    )


def test_session_lines(pair: Pair) -> None:
    _lines(pair)
    assert pair.ask(lambda x: x.has_lines()) is True
    rows = pair.ask(lambda x: x.session_lines("a"))
    assert [(r.id, r.session, r.n, r.speaker, r.text) for r in rows] == [
        ("a#1", "a", 1, "Alice", "I run every morning."),
        ("a#2", "a", 2, "Bob", "Running is good for you."),
        ("a#3", "a", 3, "Alice", "Bob runs too."),
    ]
    assert {(r.started_at, r.recorded_at) for r in rows} == {(h(1), h(10))}
    assert [r.speaker for r in pair.ask(lambda x: x.session_lines("b"))] == [None, None]
    assert pair.ask(lambda x: x.session_lines("nope")) == []
    assert dict(pair.ask(lambda x: x.line_counts())) == {"a": 3, "b": 2, "c": 2}
    got = pair.ask(lambda x: x.get_lines(["c#2", "a#9", "b#1"]))
    assert sorted(got) == ["b#1", "c#2"]
    assert got["c#2"].text == "tea, always tea."
    before, after = pair.ask(lambda x: x.neighbours(got["b#1"]))
    assert (before, after) == (None, pair.store.get_lines(["b#2"])["b#2"])
    mid = pair.store.get_lines(["a#2"])["a#2"]
    before, after = pair.ask(lambda x: x.neighbours(mid))
    assert (before.id, after.id) == ("a#1", "a#3")
    index = pair.store.warm_index()
    assert index is None or isinstance(index, LineIndex)
    if index is not None:
        assert pair.store.neighbours(mid, index=index) == (before, after)


def _expected(store: Any, words: list[str], limit: int, known_at: Any = None) -> list[Any]:
    """The BM25 reference: graphmem's in-memory index over every stored line."""
    index = LineIndex(None)
    for sid in sorted(store.line_counts()):
        for row in store.session_lines(sid):
            index.add(row, doc_terms(row.speaker, row.text))
    return index.search(words, limit=limit, known_at=known_at)


def _hits(hits: list[Any]) -> list[tuple[str, float]]:
    return [(x.line.id, round(x.score, 6)) for x in hits]


@pytest.mark.parametrize("use_index", [None, False, True])
def test_search_lines_bm25(pair: Pair, use_index: bool | None) -> None:
    _lines(pair)
    if use_index and not pair.store.ensure_line_index():
        assert not pair.store.capabilities.full_text or pair.store.read_only
        pytest.skip("no full-text line index on this store (capabilities.full_text is False)")
    if use_index and pair.ref is not None and not pair.ref.ensure_line_index():
        pair.ref = None  # the reference cannot use an index here: compare with BM25 only
    for query, limit, known in [
        ("run", 10, None),
        ("kite tea", 10, None),
        ("kite tea", 2, None),
        ("alice bob", 3, None),
        ("tea run", 10, h(15)),
        ("tea", 10, h(5)),
        ("nothing matches", 10, None),
    ]:
        words = terms(query)

        def read(x: Any, w: list[str] = words, n: int = limit, k: Any = known) -> Any:
            return x.search_lines(w, limit=n, known_at=k, use_index=use_index)

        got = pair.ask(read, norm=_hits)
        want = _expected(pair.store, words, limit, known)
        assert [x.line.id for x in got] == [x.line.id for x in want], (query, limit, known)
        for g, w in zip(got, want, strict=True):
            assert math.isclose(g.score, w.score, rel_tol=1e-6), (query, g, w)
        assert got == sorted(got, key=lambda x: (-x.score, x.line.id))
    assert pair.ask(lambda x: x.search_lines([], limit=5)) == []
    assert pair.ask(lambda x: x.search_lines(["tea"], limit=0)) == []


def test_search_lines_ties_by_id_and_known_at(pair: Pair) -> None:
    same = "the same line about zebras"
    pair.apply(ChangeSet(at=h(1), sessions=[(session(i, 0, same), {}) for i in ("s2", "s10")]))
    pair.apply(ChangeSet(at=h(5), sessions=[(session("s1", 0, same), {})]))
    hits = pair.ask(lambda x: x.search_lines(["zebra"], limit=10), norm=_hits)
    assert [x.line.id for x in hits] == ["s1#1", "s10#1", "s2#1"]
    assert len({x.score for x in hits}) == 1
    hits = pair.ask(lambda x: x.search_lines(["zebra"], limit=2), norm=_hits)
    assert [x.line.id for x in hits] == ["s1#1", "s10#1"]
    hits = pair.ask(lambda x: x.search_lines(["zebra"], limit=10, known_at=h(4)), norm=_hits)
    assert [x.line.id for x in hits] == ["s10#1", "s2#1"]
    hits = pair.ask(lambda x: x.search_lines(["zebra"], limit=10, known_at=h(0.5)), norm=_hits)
    assert hits == []


def _views(pair: Pair) -> None:
    pair.apply(
        ChangeSet(
            at=h(1),
            new_entities={"ann": ent("ann", "Ann"), "acme": ent("acme", "Acme Corp")},
            inserts=[
                (
                    "ann",
                    "acme",
                    fact(
                        "v1",
                        "Ann",
                        "Acme Corp",
                        vf=0,
                        rec=1,
                        source="s1",
                        statement="Ann works at Acme.",
                    ),
                ),
                ("ann", "paris", fact("v2", "Ann", "Paris", pred="lives_in", vf=0, vt=5, rec=1)),
                (
                    "bob",
                    "acme",
                    fact(
                        "v3",
                        "bob",
                        "Acme Corp",
                        vf=2,
                        rec=1,
                        importance=9.0,
                        pinned=True,
                        kind="identity",
                    ),
                ),
            ],
        )
    )
    pair.apply(
        ChangeSet(
            at=h(3),
            closes=[("ann", "v2", "v4", "moved")],
            inserts=[
                (
                    "ann",
                    "rome",
                    fact(
                        "v4",
                        "Ann",
                        "Rome",
                        pred="lives_in",
                        vf=4,
                        rec=3,
                        source="s1",
                        statement="Ann moved to Rome.",
                    ),
                ),
            ],
        )
    )


def test_facts_from_and_to(pair: Pair) -> None:
    _views(pair)
    got = pair.ask(lambda x: x.facts_from(["ann", "bob", "zz"], known_at=h(3)))
    # Per id, newest recorded_at first, then id.
    assert [(v.via, v.id) for v in got] == [("ann", "v4"), ("ann", "v1"), ("bob", "v3")]
    v3 = got[-1]
    assert (v3.subject_id, v3.subject, v3.predicate, v3.object) == (
        "bob",
        "bob",
        "works_at",
        "Acme Corp",
    )
    assert (v3.importance, v3.pinned, v3.kind, v3.access_count, v3.source) == (
        9.0, True, "identity", 0, None
    )  # fmt: skip
    got = pair.ask(lambda x: x.facts_from(["ann"], known_at=h(2)))
    assert [v.id for v in got] == ["v1", "v2"] or [v.id for v in got] == ["v2", "v1"]
    assert [v.id for v in pair.ask(lambda x: x.facts_from(["ann"], known_at=h(3), limit=1))] == [
        "v4"
    ]
    got = pair.ask(lambda x: x.facts_to(["acme", "rome"], known_at=h(3), valid_at=h(2)))
    assert [(v.via, v.id) for v in got] == [("acme", "v1"), ("acme", "v3")] or [
        (v.via, v.id) for v in got
    ] == [("acme", "v3"), ("acme", "v1")]
    got = pair.ask(lambda x: x.facts_to(["acme"], known_at=h(3), valid_at=h(1)))
    assert [v.id for v in got] == ["v1"]
    assert pair.ask(lambda x: x.facts_to(["rome"], known_at=h(2), valid_at=h(4))) == []
    assert [
        v.id
        for v in pair.ask(lambda x: x.facts_to(["acme"], known_at=h(3), valid_at=h(2), limit=1))
    ] in (["v1"], ["v3"])


def test_versions_of_and_facts_of_sessions(pair: Pair) -> None:
    _views(pair)

    def norm(vs: list[Any]) -> list[str]:
        return sorted(v.id for v in vs)

    got = pair.ask(lambda x: x.versions_of([("ann", "lives_in")], known_at=h(2)), norm=norm)
    assert norm(got) == ["v2"]
    got = pair.ask(
        lambda x: x.versions_of([("ann", "lives_in"), ("bob", "works_at")], known_at=h(3)),
        norm=norm,
    )
    assert norm(got) == ["v3", "v4"]
    claims = pair.ask(lambda x: x.facts_of_sessions(["s1", "zz"], known_at=h(3)))
    assert sorted((c.id, c.statement, c.source) for c in claims) == [
        ("v1", "Ann works at Acme.", "s1"),
        ("v4", "Ann moved to Rome.", "s1"),
    ]
    claims = pair.ask(lambda x: x.facts_of_sessions(["s1"], known_at=h(2)))
    assert [c.id for c in claims] == ["v1"]
    assert pair.ask(lambda x: x.facts_of_sessions([], known_at=h(3))) == []
    # After a later write the claims seen at the new time include it.
    pair.apply(ChangeSet(at=h(6), closes=[("ann", "v1", None, "retracted")]))
    assert [c.id for c in pair.ask(lambda x: x.facts_of_sessions(["s1"], known_at=h(6)))] == ["v4"]
    # what is no longer believed: recorded by then, expired by then
    gone = pair.ask(lambda x: x.facts_of_sessions(["s1"], known_at=h(6), expired=True))
    assert [c.id for c in gone] == ["v1"]
    assert pair.ask(lambda x: x.facts_of_sessions(["s1"], known_at=h(5), expired=True)) == []


@pytest.mark.parametrize("use_index", [False, True])
def test_search_entities(pair: Pair, use_index: bool) -> None:
    pair.apply(
        ChangeSet(
            at=h(1),
            entities=[
                ent("kite", "Kite"),
                ent("kite-club", "Kite flying club of the north"),
                ent("tea", "Tea"),
            ],
        )
    )
    if use_index:
        if not pair.store.ensure_entity_index():
            pytest.skip("no entity full-text index on this store")
        assert pair.store.entity_index_exists()
        if pair.ref is not None and not pair.ref.ensure_entity_index():
            pair.ref = None
    got = pair.store.search_entities(["kite"], use_index=use_index)
    assert [i for i, _, _ in got][:2] == ["kite", "kite-club"]
    assert got[0][2] == 1.0
    assert all(0 < s <= 1 for _, _, s in got)
    assert got == sorted(got, key=lambda x: (-x[2], x[0]))
    assert pair.store.search_entities(["kite"], use_index=use_index, limit=1) == got[:1]
    assert pair.store.search_entities([], use_index=use_index) == []
    assert pair.store.search_entities(["zebra"], use_index=use_index) == []
    if not use_index:
        pair.ask(lambda x: x.search_entities(["kite", "north"], use_index=False))


def test_index_management_follows_capabilities(store: Any) -> None:
    full = store.capabilities.full_text
    for ensure, exists, drop in (
        (store.ensure_line_index, store.line_index_exists, store.drop_line_index),
        (store.ensure_entity_index, store.entity_index_exists, store.drop_entity_index),
    ):
        made = ensure()
        assert made == exists()
        if not full:
            assert not made
        if made:
            assert drop() is True
            assert exists() is False
            assert drop() is False


VOCAB = ["kite", "tea", "run", "runs", "zebra", "blue", "Bob:", "Ann:", "the", "7"]
_text = st.lists(
    st.lists(st.sampled_from(VOCAB), min_size=1, max_size=6).map(" ".join), max_size=4
).map("\n".join)
_counter = itertools.count()


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    texts=st.lists(_text, min_size=1, max_size=5),
    query=st.lists(st.sampled_from(VOCAB), min_size=1, max_size=3),
    limit=st.integers(1, 6),
    known=st.one_of(st.none(), st.integers(0, 6)),
)
def test_search_lines_is_bm25(
    texts: list[str],
    query: list[str],
    limit: int,
    known: int | None,
    location: str | None,
    opener: Any,
) -> None:
    """For random sessions written one change set each, search_lines equals BM25 over the
    stored lines (graphmem's reference index), known_at applied to the lines' system time."""
    n = next(_counter)
    s = opener(None if location is None else f"{location}_{n}")
    try:
        for i, text in enumerate(texts):
            s.apply(ChangeSet(at=h(i + 1), sessions=[(session(f"s{i}", 0, text), {})]))
        words = terms(" ".join(query))
        k = None if known is None else h(known)
        got = s.search_lines(words, limit=limit, known_at=k)
        want = _expected(s, words, limit, k)
        assert [x.line.id for x in got] == [x.line.id for x in want]
        for g, w in zip(got, want, strict=True):
            assert math.isclose(g.score, w.score, rel_tol=1e-6)
        assert all(x.line.recorded_at <= k for x in got) if k is not None else True
    finally:
        s.close()
