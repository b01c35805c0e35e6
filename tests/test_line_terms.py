"""The words of recall: the stemmer, and stores whose line terms an older version wrote.

See docs/concepts/recall.md#how-lines-are-ranked: the store records the version of
:func:`graphmem.normalize.terms` its lines' ``terms`` were computed with and recomputes them
when it is opened writable by a graphmem with another version (one change set); a read-only
open searches an index built from the texts.
"""

from __future__ import annotations

import importlib
import unicodedata
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import graphmem as gm
from graphmem.normalize import STOPWORDS, TERMS_VERSION, stem, terms
from graphmem.store import open_store
from graphmem.store.base import Store
from graphmem.store.textlines import doc_terms
from graphmem.timeutil import ManualClock

TEXT = "Caroline: I really like hiking and she likes horses.\nMelanie: The painting was lovely."


def _old_stem(word: str) -> str:
    """Version 1 of the stemmer (``es`` stripped whole: "likes" -> ``lik``, "like" kept)."""
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def _old_doc_terms(speaker: str | None, text: str) -> str:
    import re

    words = re.findall(
        r"[^\W_]+", unicodedata.normalize("NFKC", f"{speaker or ''} {text}").casefold()
    )
    return " ".join(
        _old_stem(w) for w in words if len(w) > 1 and not w.isdigit() and w not in STOPWORDS
    )


# -- the stemmer ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "family",
    [
        ("like", "likes", "liked", "liking"),
        ("love", "loves", "loved", "loving"),
        ("move", "moves", "moved", "moving"),
        ("agree", "agrees", "agreed"),
        ("box", "boxes"),
        ("class", "classes"),
        ("company", "companies"),
        ("paint", "paints", "painted", "painting"),
        ("status", "statuses"),
    ],
)
def test_word_families_meet(family: tuple[str, ...]) -> None:
    assert len({stem(w) for w in family}) == 1, {w: stem(w) for w in family}


@given(st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=12))
def test_stem_is_idempotent_on_plurals_and_keeps_three_letters(word: str) -> None:
    s = stem(word)
    assert word.startswith(s[:-1]) or s.endswith("y")
    assert len(s) >= min(len(word), 3)
    # A word and its plural meet (unless its ending is a suffix or keeps the "s": "us", "is").
    if len(word) >= 3 and not word.endswith(("s", "e", "u", "i", "ing", "ed")):
        assert stem(word + "s") == stem(word)
    # A word ending in "e" meets its plural and its past tense.
    if len(word) >= 3 and not word.endswith(("s", "e", "u", "i", "ing", "ed", "ie")):
        assert stem(word + "es") == stem(word + "e") == stem(word + "ed")


def test_terms_version_is_recorded_on_a_new_store(mem: gm.Memory, mem_store: Store) -> None:
    assert mem_store.get_meta("line_terms") == TERMS_VERSION


# -- stores written with the old terms -------------------------------------------------------------


def _write(mem: gm.Memory) -> None:
    mem.add_session(TEXT, started_at="2025-05-08", session_id="s1")
    mem.add_session("Bob: nothing to see here.", started_at="2025-05-09", session_id="s2")


def _kuzu_age(path: str, engine: str) -> None:
    """Rewrite a closed Kuzu/ladybug store as the old version left it: old terms, no key."""
    mod = importlib.import_module(engine)
    db = mod.Database(path)
    conn = mod.Connection(db)
    rows = conn.execute("MATCH (l:SessionLine) RETURN l.id, l.speaker, l.text")
    while rows.has_next():
        lid, speaker, text = rows.get_next()
        conn.execute(
            "MATCH (l:SessionLine {id: $i}) SET l.terms = $t",
            {"i": lid, "t": _old_doc_terms(speaker, text)},
        )
    conn.execute("MATCH (m:Meta {key: 'line_terms'}) DELETE m")
    conn.close()
    db.close()


def _stored_terms(store: Any) -> dict[str, str]:
    rows = store.run("MATCH (l:SessionLine) RETURN l.id, l.terms")
    return {r[0]: r[1] for r in rows}


def _found(mem: gm.Memory, query: str) -> list[str]:
    return [i.id for i in mem.search(query, kinds=("line",))]


def test_old_kuzu_store_is_upgraded_on_open(db_path: str, engine: str) -> None:
    clock = ManualClock("2026-01-01")
    with gm.open(db_path, engine=engine, clock=clock) as mem:
        _write(mem)
    _kuzu_age(db_path, engine)
    # read-only: left as it is, searched through terms recomputed from the texts
    ro_store = open_store(db_path, engine=engine, read_only=True)
    with gm.open(store=ro_store) as ro:
        assert ro_store.get_meta("line_terms") is None
        assert _found(ro, "who liked it?")[:1] == ["s1#1"]
        assert ro_store.search_lines(terms("likes"), use_index=True)[0].line.id == "s1#1"
    store = open_store(db_path, engine=engine)
    with gm.open(store=store, clock=clock) as mem:
        assert store.get_meta("line_terms") == TERMS_VERSION
        assert _stored_terms(store) == {
            "s1#1": doc_terms("Caroline", "I really like hiking and she likes horses."),
            "s1#2": doc_terms("Melanie", "The painting was lovely."),
            "s2#1": doc_terms("Bob", "nothing to see here."),
        }
        assert _found(mem, "who liked it?")[:1] == ["s1#1"]
        if store.fts_available() and store.ensure_line_index():
            fts = store.search_lines(terms("liked"), use_index=True)
            mem_index = store.search_lines(terms("liked"), use_index=False)
            assert [(h.line.id, round(h.score, 9)) for h in fts] == [
                (h.line.id, round(h.score, 9)) for h in mem_index
            ]


def test_kuzu_terms_upgrade_is_one_change_set(
    db_path: str, engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A failure before the version key is written leaves the old terms and no key."""
    from graphmem.store.kuzu.lines import KuzuLines

    with gm.open(db_path, engine=engine, clock=ManualClock("2026-01-01")) as mem:
        _write(mem)
    _kuzu_age(db_path, engine)
    real = KuzuLines.set_meta

    def failing(self: Any, key: str, value: str) -> None:
        if key == "line_terms":
            raise gm.StoreError("disk full (simulated)")
        real(self, key, value)

    monkeypatch.setattr(KuzuLines, "set_meta", failing)
    with pytest.raises(gm.StoreError, match="simulated"):
        gm.open(db_path, engine=engine)
    monkeypatch.undo()
    mod = importlib.import_module(engine)
    db = mod.Database(db_path, read_only=True)
    conn = mod.Connection(db)
    rows = conn.execute("MATCH (l:SessionLine) RETURN l.id, l.speaker, l.text, l.terms")
    while rows.has_next():
        _, speaker, text, stored = rows.get_next()
        assert stored == _old_doc_terms(speaker, text)
    assert not conn.execute("MATCH (m:Meta {key: 'line_terms'}) RETURN m.value").has_next()
    conn.close()
    db.close()
    store = open_store(db_path, engine=engine)
    with gm.open(store=store):
        assert store.get_meta("line_terms") == TERMS_VERSION


def test_old_falkordb_graph_is_upgraded_on_open(falkordb_url: str) -> None:
    from graphmem.store.falkordb import FalkorStore

    clock = ManualClock("2026-01-01")
    store = open_store(falkordb_url)
    with gm.open(store=store, clock=clock) as mem:
        _write(mem)
        rows = store._q("MATCH (l:SessionLine) RETURN l.id, l.speaker, l.text")
        for lid, speaker, text in rows:
            store._w(
                "MATCH (l:SessionLine {id: $i}) SET l.terms = $t",
                {"i": lid, "t": _old_doc_terms(speaker, text)},
            )
        store._w("MATCH (m:Meta {key: 'line_terms'}) DELETE m")
    ro = FalkorStore(falkordb_url, read_only=True)
    try:
        assert ro.get_meta("line_terms") is None
        assert ro.search_lines(terms("liked"), use_index=True)[0].line.id == "s1#1"
    finally:
        ro.close()
    store = open_store(falkordb_url)
    with gm.open(store=store, clock=clock) as mem:
        assert store.get_meta("line_terms") == TERMS_VERSION
        got = {r[0]: r[1] for r in store._q("MATCH (l:SessionLine) RETURN l.id, l.terms")}
        assert got["s1#1"] == doc_terms("Caroline", "I really like hiking and she likes horses.")
        assert _found(mem, "who liked it?")[:1] == ["s1#1"]
