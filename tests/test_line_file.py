"""The line index kept beside the database (docs/concepts/recall.md#line-index-file).

The file is a cache: an index loaded from it ranks exactly as one built from the store, after
any writes; a line write removes it before its commit (a purged text does not stay in it); a
file of another generation, or a damaged one, is not used.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.store import linefile, open_store
from graphmem.store.lineindex import LineIndex
from graphmem.store.records import LineRow
from graphmem.store.textlines import doc_terms, split_lines
from graphmem.timeutil import ManualClock

UTC = dt.timezone.utc
VOCAB = ["ann", "bo", "tea", "kite", "garden", "owl", "heron", "tomato", "rain", "sun", "run"]
T0 = dt.datetime(2024, 1, 1, tzinfo=UTC)
QUERIES = [["heron"], ["rain", "owl"], ["kite", "tea", "absent"], ["sun", "run", "garden"]]


def _file(path: str) -> str:
    return path + linefile.SUFFIX


def _hits(store: Any, words: list[str], known_at: dt.datetime | None = None) -> list[Any]:
    return [(h.line, h.score) for h in store.search_lines(words, limit=6, known_at=known_at)]


def _built(store: Any) -> LineIndex:
    """The index built from the store, as a process without the file builds it."""
    return store._build_index(store.get_meta("lines_gen"))


def _same_as_built(store: Any) -> None:
    built = _built(store)
    for words in QUERIES:
        for known in (None, T0 + dt.timedelta(hours=3)):
            want = [(h.line, h.score) for h in built.search(words, limit=6, known_at=known)]
            assert _hits(store, words, known) == want, words


_text = st.lists(
    st.tuples(
        st.sampled_from(["Ann: ", "Bo: ", ""]),
        st.lists(st.sampled_from(VOCAB), min_size=1, max_size=6).map(" ".join),
    ).map("".join),
    min_size=1,
    max_size=4,
).map("\n".join)
_write = st.tuples(st.sampled_from(["s1", "s2", "s3", "s10"]), _text)


@pytest.mark.slow  # a long property: CI's slow family runs it
@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(rounds=st.lists(st.lists(_write, min_size=0, max_size=3), min_size=1, max_size=3))
def test_an_index_read_from_the_file_equals_a_rebuilt_one_after_any_writes(
    tmp_path_factory: Any, engine: str, rounds: list[list[tuple[str, str]]]
) -> None:
    """Process after process (each opens, writes, searches, closes): whenever a search reads
    the file, it ranks as an index built from the store, scores bit for bit."""
    path = str(tmp_path_factory.mktemp("lines") / "mem.kuzu")
    clock = ManualClock(T0)
    store = open_store(path, engine=engine)
    with gm.open(store=store, clock=clock) as mem:
        mem.add_session("Ann: heron and rain\nBo: tea", started_at=T0, session_id="s0")
        store.search_lines(["heron"], limit=3)
    for hour, writes in enumerate(rounds, start=1):
        clock.set(T0 + dt.timedelta(hours=hour))
        store = open_store(path, engine=engine)
        with gm.open(store=store, clock=clock) as mem:
            _same_as_built(store)  # the file (when the last process left one), else a build
            for sid, text in writes:
                mem.add_session(text, started_at=T0, session_id=sid, extract=False)
                assert not os.path.exists(_file(path))  # removed by the write
            _same_as_built(store)
        if not writes:
            assert os.path.exists(_file(path))


def test_the_file_is_read_by_the_next_process(tmp_path: Any, engine: str) -> None:
    path = str(tmp_path / "mem.kuzu")
    store = open_store(path, engine=engine)
    with gm.open(store=store, clock=ManualClock("2025-01-02")) as mem:
        for i in range(5):
            mem.add_session(f"Ann: the heron {i}\nBo: rain", started_at="2025-01-01", extract=False)
        want = _hits(store, ["heron", "rain"])
        assert not os.path.exists(_file(path))  # written at the close, not by a search
    assert os.path.exists(_file(path))
    ro = open_store(path, engine=engine, read_only=True)
    with gm.open(store=ro, clock=ManualClock("2025-01-02")):
        assert _hits(ro, ["heron", "rain"]) == want
        assert ro._lines_file_gen == ro.get_meta("lines_gen")  # read, not built


def test_a_file_of_another_generation_or_damaged_is_not_used(tmp_path: Any, engine: str) -> None:
    path = str(tmp_path / "mem.kuzu")
    store = open_store(path, engine=engine)
    with gm.open(store=store, clock=ManualClock("2025-01-02")) as mem:
        mem.add_session("Ann: owl\nBo: heron", started_at="2025-01-01", extract=False)
        store.search_lines(["owl"], limit=3)
    old = str(tmp_path / "old-lines")
    shutil.copy(_file(path), old)
    with gm.open(path, clock=ManualClock("2025-01-02"), engine=engine) as mem:
        mem.add_session("Ann: owl again", started_at="2025-01-01", extract=False)
    shutil.copy(old, _file(path))  # a file left from before the write
    store = open_store(path, engine=engine)
    with gm.open(store=store, clock=ManualClock("2025-01-02")):
        assert len(store.search_lines(["owl"], limit=5)) == 2
        assert store._lines_file_gen is None  # built from the store
    with open(_file(path), "r+b") as fh:  # the file the close wrote, one byte changed
        fh.seek(os.path.getsize(_file(path)) - 20)
        byte = fh.read(1)
        fh.seek(-1, os.SEEK_CUR)
        fh.write(bytes([byte[0] ^ 0xFF]))
    store = open_store(path, engine=engine)
    with gm.open(store=store, clock=ManualClock("2025-01-02")):
        assert len(store.search_lines(["owl"], limit=5)) == 2
        assert store._lines_file_gen is None


def test_a_purged_text_does_not_stay_in_the_file(tmp_path: Any, engine: str) -> None:
    path = str(tmp_path / "mem.kuzu")
    store = open_store(path, engine=engine)
    with gm.open(store=store, clock=ManualClock("2025-01-02")) as mem:
        mem.add_session("Ann: Zorblax works at Acme", started_at="2025-01-01")
        mem.add_session("Ann: the heron flew", started_at="2025-01-01", extract=False)
        store.search_lines(["heron"], limit=3)
    with open(_file(path), "rb") as fh:
        assert b"Zorblax" in fh.read()
    store = open_store(path, engine=engine)
    with gm.open(store=store, clock=ManualClock("2025-01-03")) as mem:
        store.search_lines(["heron"], limit=3)  # read from the file
        assert store._warm_mapped
        mem.purge("Zorblax", reason="asked to forget")
        assert not os.path.exists(_file(path))
        assert not store._warm_mapped  # its pages let go
        store.search_lines(["heron"], limit=3)
    if os.path.exists(_file(path)):
        with open(_file(path), "rb") as fh:
            assert b"Zorblax" not in fh.read()


def test_state_round_trips_through_the_file(tmp_path: Any) -> None:
    rows = [
        (LineRow(f"s{i}#{n}", f"s{i}", n, speaker, body, T0, T0 + dt.timedelta(hours=i)), body)
        for i in range(6)
        for n, (speaker, body) in enumerate(
            split_lines(f"Ann: {VOCAB[i]} tea\nBo: {VOCAB[-i]} rain"), start=1
        )
    ]
    lines = [r for r, _ in rows]
    index = LineIndex.bulk(
        "g1",
        [r.id for r in lines],
        [doc_terms(r.speaker, r.text) for r in lines],
        [r.recorded_at.timestamp() for r in lines],
        lines.__getitem__,
    )
    state = index.state()
    assert state is not None
    import pyarrow as pa

    target = str(tmp_path / "x") + linefile.SUFFIX
    linefile.save(
        target, gen="g1", terms="t", columns=pa.table({"id": [r.id for r in lines]}), **_kw(state)
    )
    assert linefile.load(target, gen="g2", terms="t") is None
    assert linefile.load(target, gen="g1", terms="u") is None
    found = linefile.load(target, gen="g1", terms="t")
    assert found is not None
    table, vocab, arrays = found
    again = LineIndex.from_state(
        "g1", table.column(0).to_pylist(), vocab, arrays, lines.__getitem__
    )
    for words in QUERIES:
        assert again.search(words, limit=5) == index.search(words, limit=5)
    index.add(lines[0], "tea")  # a line written since the build: not saved
    assert index.state() is None


def _kw(state: tuple[list[str], dict[str, Any]]) -> dict[str, Any]:
    return {"vocab": state[0], "arrays": state[1]}
