"""The read side of the FalkorDB store (SessionStore, SearchStore) against the Kuzu reference.

The same random histories of change sets go to a Kuzu store (``open_store(None)``) and to a
FalkorDB store, and every read method must answer the same (ordering included; where the Kuzu
query has no ``ORDER BY`` both sides are sorted the same way first). Both are written only
through ``apply(ChangeSet)``; ``FALKOR_EXAMPLES`` sets the number of random histories.
"""

from __future__ import annotations

import datetime as dt
import os
import uuid
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.errors import StoreError
from graphmem.models import Entity, Fact, Session
from graphmem.store.base import ChangeSet, Purge
from graphmem.store.records import FactActivity, FactView
from graphmem.store.textlines import terms

pytest.importorskip("falkordb")

from graphmem.store.falkordb import lines as flines  # noqa: E402

# The slow family (.ci/run): they run on a FalkorDB server.
pytestmark = pytest.mark.slow

T0 = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
H = dt.timedelta(hours=1)
WORDS = ["alpha", "beta", "run", "running", "runner", "bob", "bobby", "gamma", "élan", "kite"]
SIDS = ["s0", "s1", "s2", "s3"]


def hours(n: int) -> dt.datetime:
    return T0 + n * H


# -- the FalkorDB store under test -------------------------------------------------------------


def _open_falkor(url: str) -> Any:
    from graphmem.store.falkordb import FalkorStore

    return FalkorStore(url)


@pytest.fixture
def falkor(falkordb_url: str) -> Iterator[Any]:
    store = _open_falkor(falkordb_url)
    try:
        yield store
    finally:
        store.close()


@pytest.fixture
def kuzu() -> Iterator[Any]:
    from graphmem.store import open_store

    store = open_store(None)
    try:
        yield store
    finally:
        store.close()


# -- random histories ------------------------------------------------------------------------

names = st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join)


@st.composite
def histories(draw: st.DrawFn) -> list[ChangeSet]:
    n_ent = draw(st.integers(2, 6))
    ent_names = draw(st.lists(names, min_size=n_ent, max_size=n_ent, unique=True))
    entities = [
        Entity(id=f"e{i}", name=name.title() if i % 2 else name) for i, name in enumerate(ent_names)
    ]
    out = [ChangeSet(at=hours(0), entities=entities)]
    current: list[tuple[str, str]] = []  # (subject id, fid) not closed
    n_fact = 0
    for step in range(1, draw(st.integers(1, 5)) + 1):
        at = hours(step)
        c = ChangeSet(at=at)
        for _ in range(draw(st.integers(0, 4))):
            s, o = draw(st.sampled_from(entities)), draw(st.sampled_from(entities))
            vf = hours(draw(st.integers(-3, 8)))
            span = draw(st.one_of(st.none(), st.integers(1, 6)))
            fid = f"f{n_fact:02d}"
            n_fact += 1
            fact = Fact(
                id=fid,
                subject=s.name,
                predicate=draw(st.sampled_from(["likes", "knows"])),
                object=o.name,
                valid_from=vf,
                valid_to=None if span is None else vf + span * H,
                recorded_at=at,
                statement=draw(st.one_of(st.none(), st.just(""), names)),
                source=draw(st.one_of(st.none(), st.sampled_from(SIDS))),
                importance=draw(st.sampled_from([1.0, 5.0, 9.0])),
                pinned=draw(st.booleans()),
            )
            c.inserts.append((s.id, o.id, fact))
        if draw(st.booleans()) and current:
            k = draw(st.integers(0, len(current) - 1))
            s_id, fid = current.pop(k)
            c.closes.append((s_id, fid, None, "corrected"))
        if draw(st.booleans()) and current:
            s_id, fid = draw(st.sampled_from(current))
            c.bumps.append((s_id, fid, draw(st.integers(1, 5))))
        for _ in range(draw(st.integers(0, 2))):
            sid = draw(st.sampled_from(SIDS))
            if any(x.id == sid for x, _ in c.sessions):
                continue
            body = draw(
                st.lists(
                    st.tuples(st.sampled_from(["", "Bob: ", "Ann Lee: "]), names),
                    min_size=0,
                    max_size=4,
                )
            )
            text = "\n".join(sp + words for sp, words in body) or None
            mentioned = draw(st.lists(st.sampled_from(entities), max_size=3, unique=True))
            session = Session(id=sid, started_at=hours(draw(st.integers(-2, 7))), text=text)
            c.sessions.append((session, {e.id: draw(st.integers(1, 3)) for e in mentioned}))
        if draw(st.booleans()):
            c.audit.append((f"a{step}", "test", f'{{"step": {step}}}'))
        current.extend((s, f.id) for s, _, f in c.inserts)
        out.append(c)
    # The hard delete of one entity, last. Not of an entity with a self-loop: Kuzu 0.11.3's
    # DETACH DELETE can then leave another edge to it behind (an edge without endpoints).
    loops = {s for c in out for s, o, _ in c.inserts if s == o}
    if draw(st.integers(0, 3)) == 0 and len(loops) < len(entities):
        gone = draw(st.sampled_from([e for e in entities if e.id not in loops]))
        purge = Purge(gone.id, [gone.name], "purge1", {"entity": gone.id})
        out.append(ChangeSet(at=hours(len(out)), purge=purge))
    return out


def _both(url: str, changes: list[ChangeSet]) -> tuple[Any, Any]:
    from graphmem.store import open_store

    kz, fk = open_store(None), _open_falkor(url)
    fk.ensure_line_index()  # before the data: indexed as written (no background build)
    fk.ensure_entity_index()
    for c in changes:
        kz.apply(c)
        fk.apply(c)
    return kz, fk


def _activity(rows: list[FactActivity]) -> list[FactActivity]:
    return sorted(
        (r._replace(statements=tuple(sorted(r.statements))) for r in rows),
        key=lambda r: r.entity_id,
    )


def _by_pair(rows: list[FactView]) -> list[FactView]:
    return sorted(rows, key=lambda v: (v.subject_id, v.predicate, v.id))


def _compare(kz: Any, fk: Any, changes: list[ChangeSet]) -> None:
    ents = [e.id for e in changes[0].entities]
    times = [hours(k) for k in range(-3, 10, 2)]
    assert fk.existing_session_ids([*SIDS, "zz"]) == kz.existing_session_ids([*SIDS, "zz"])
    assert fk.read_sessions() == kz.read_sessions()
    assert fk.read_sessions(ids=["s2", "s0", "zz"]) == kz.read_sessions(ids=["s2", "s0", "zz"])
    assert fk.read_sessions(ids=[]) == []
    assert fk.count_sessions() == kz.count_sessions()
    assert fk.has_facts() == kz.has_facts()
    assert fk.has_lines() == kz.has_lines()
    assert fk.find_entities([*ents, "zz"]) == kz.find_entities([*ents, "zz"])
    assert fk.line_counts() == kz.line_counts()
    assert fk.session_start_times([*SIDS, "zz"]) == kz.session_start_times([*SIDS, "zz"])
    for sid in SIDS:
        assert fk.session_fact_ids(sid) == kz.session_fact_ids(sid)
        assert fk.session_lines(sid) == kz.session_lines(sid)
    line_ids = [f"{s}#{n}" for s in SIDS for n in range(6)]
    assert fk.get_lines(line_ids) == kz.get_lines(line_ids)
    for row in kz.get_lines(line_ids).values():
        assert fk.neighbours(row) == kz.neighbours(row)
    for t in times:
        assert fk.read_sessions(since=t) == kz.read_sessions(since=t)
        assert fk.read_sessions(until=t, since=t - 4 * H) == kz.read_sessions(
            until=t, since=t - 4 * H
        )
        assert fk.count_sessions(until=t) == kz.count_sessions(until=t)
        assert fk.count_mentioning_sessions(now=t) == kz.count_mentioning_sessions(now=t)
        for min_hits in (0, 1, 2):
            got = fk.mention_counts(now=t, start=t - 3 * H, min_hits=min_hits)
            want = kz.mention_counts(now=t, start=t - 3 * H, min_hits=min_hits)
            assert got == sorted(want)
        assert fk.mention_groups(now=t, start=t - 3 * H) == sorted(
            kz.mention_groups(now=t, start=t - 3 * H)
        )
        for with_texts in (False, True):
            for keep in (None, set(ents[:1])):
                assert _activity(
                    fk.fact_activity(now=t, with_texts=with_texts, keep=keep)
                ) == _activity(kz.fact_activity(now=t, with_texts=with_texts, keep=keep))
        assert fk.newest_activity(now=t, entity_ids=[*ents, "zz"]) == _newest(kz, t, ents)
        assert fk.audit_records(since=t) == kz.audit_records(since=t)
        assert fk.audit_records(since=t - 3 * H, until=t) == kz.audit_records(
            since=t - 3 * H, until=t
        )
        ids = [*ents[::-1], ents[0], "zz"]
        for lim in (1, 2, 2000):
            assert fk.facts_from(ids, known_at=t, limit=lim) == kz.facts_from(
                ids, known_at=t, limit=lim
            )
        for lim in (1, 50):
            for v in times[::3]:
                assert fk.facts_to(ids, known_at=t, valid_at=v, limit=lim) == kz.facts_to(
                    ids, known_at=t, valid_at=v, limit=lim
                )
        assert fk.facts_of_sessions([*SIDS, "zz"], known_at=t) == kz.facts_of_sessions(
            [*SIDS, "zz"], known_at=t
        )
        pairs = [(e, p) for e in ents for p in ("likes", "knows", "nope")]
        assert _by_pair(fk.versions_of(pairs, known_at=t)) == _by_pair(
            kz.versions_of(pairs, known_at=t)
        )
    queries = (["run"], ["bob", "kite"], ["alpha", "beta", "gamma", "zzz"], ["runn", "bobby"])
    for query in (*queries, ["élan"]):
        got = fk.search_entities(query, use_index=False)
        assert got == kz.search_entities(query, use_index=False)
        # Through the index: the scan's hits less some prefix-only ones, every whole-word one.
        scan = {h[0] for h in kz.search_entities(query, limit=100, use_index=False)}
        found = {h[0] for h in fk.search_entities(query, limit=100)}
        alive = kz.find_entities(ents).items()
        whole = {eid for eid, name in alive if set(query) & set(name.lower().split())}
        assert whole <= found <= scan
        assert fk.search_entities(query, limit=2, use_index=False) == kz.search_entities(
            query, limit=2, use_index=False
        )
        words = terms(" ".join(query))
        for known in (None, *times[::2]):
            for limit in (1, 3, 50):
                want = kz.search_lines(words, limit=limit, known_at=known, use_index=False)
                assert fk.search_lines(words, limit=limit, known_at=known) == want
                assert fk.search_lines(words, limit=limit, known_at=known, use_index=True) == want


def _newest(kz: Any, t: dt.datetime, ents: list[str]) -> Mapping[str, dt.datetime]:
    return kz.newest_activity(now=t, entity_ids=[*ents, "zz"])  # type: ignore[no-any-return]


@settings(
    max_examples=int(os.environ.get("FALKOR_EXAMPLES", "20")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@pytest.mark.slow
@pytest.mark.long
@given(changes=histories())
def test_reads_equal_kuzu(falkordb_server: Any, changes: list[ChangeSet]) -> None:
    url = f"{falkordb_server.url}/t_reads_{uuid.uuid4().hex[:12]}"
    kz, fk = _both(url, changes)
    try:
        _compare(kz, fk, changes)
        # Once the in-memory index is warm, the same answers again.
        assert fk.warm_index() is not None
        _compare(kz, fk, changes)
    finally:
        kz.close()
        fk.close()


# -- examples --------------------------------------------------------------------------------


def _history() -> list[ChangeSet]:
    ents = [
        Entity(id="bob", name="Bob"),
        Entity(id="bobby", name="Bobby and the running dogs"),
        Entity(id="run", name="Run run run"),
        Entity(id="ecole", name="Élodie ÉCOLE"),
    ]
    f1 = Fact(
        id="f1",
        subject="Bob",
        predicate="likes",
        object="Run run run",
        valid_from=hours(0),
        recorded_at=hours(1),
        statement="Bob likes running",
        source="s1",
    )
    s1 = Session(id="s1", started_at=hours(0), text="Bob: I like running\nok then\n\nBob: run!")
    return [
        ChangeSet(at=hours(0), entities=ents),
        ChangeSet(at=hours(1), inserts=[("bob", "run", f1)], sessions=[(s1, {"bob": 2})]),
    ]


def test_example_store(falkor: Any, kuzu: Any) -> None:
    falkor.ensure_line_index()
    falkor.ensure_entity_index()
    for c in _history():
        kuzu.apply(c)
        falkor.apply(c)
    _compare(kuzu, falkor, _history())
    assert falkor.mention_counts(now=hours(2), start=hours(-1)) == [("bob", "Bob", 1, 1, hours(0))]
    assert falkor.newest_activity(now=hours(2), entity_ids=["bob", "zz"]) == {"bob": hours(1)}
    assert falkor.newest_activity(now=hours(2), entity_ids=[]) == {}


def test_entity_index(falkor: Any, kuzu: Any) -> None:
    falkor.drop_entity_index()
    assert not falkor.entity_index_exists()
    with pytest.raises(StoreError, match="ensure_entity_index"):
        falkor.search_entities(["bob"])
    assert falkor.ensure_entity_index()
    for c in _history():
        kuzu.apply(c)
        falkor.apply(c)
    assert falkor.entity_index_exists()
    assert falkor.ensure_entity_index()  # idempotent
    for query in (["bob"], ["run"], ["running", "bob"], ["élodie"]):
        scan = kuzu.search_entities(query, limit=100, use_index=False)
        got = falkor.search_entities(query, limit=100)
        # The index finds the names holding a query word (or one of its stem): a subset of
        # the scan's hits, scored the same way relative to the best.
        assert {h[0] for h in got} <= {h[0] for h in scan}
        assert got == sorted(got, key=lambda h: (-h[2], h[0]))
        assert not got or got[0][2] == 1.0
    assert [h[0] for h in falkor.search_entities(["bob"])] == ["bob"]  # no prefix: not "bobby"
    assert {h[0] for h in falkor.search_entities(["running"])} == {"bobby"}
    assert {h[0] for h in falkor.search_entities(["élodie"])} == {"ecole"}  # non-ASCII: scan
    assert falkor.drop_entity_index()
    assert not falkor.drop_entity_index()
    assert [h[0] for h in falkor.search_entities(["bob"], use_index=False)] == ["bob", "bobby"]


def test_line_index_and_fulltext_search(falkor: Any) -> None:
    falkor.drop_line_index()
    assert not falkor.line_index_exists()
    assert falkor.ensure_line_index()
    for c in _history():
        falkor.apply(c)
    assert falkor.line_index_exists()
    assert falkor._line_index_exact()
    words = terms("running bob")
    mem = falkor.search_lines(words, use_index=False)
    assert [h.line.id for h in mem] == ["s1#1", "s1#3"]
    assert falkor.search_lines(words, use_index=True) == mem
    assert falkor.search_lines(["naïve"], use_index=True) == []  # non-ASCII: in memory
    assert falkor.search_lines([], use_index=True) == []
    assert falkor.search_lines(words, limit=0) == []
    assert falkor.drop_line_index()
    assert not falkor.drop_line_index()


def test_index_follows_writes(falkor: Any, kuzu: Any) -> None:
    """The warm line index is rebuilt (or advanced by a delta) after every line write."""
    history = _history()
    for c in history:
        kuzu.apply(c)
        falkor.apply(c)
    words = terms("running ok")
    assert falkor.search_lines(words, use_index=False) == kuzu.search_lines(words, use_index=False)
    assert falkor.warm_index() is not None
    again = Session(id="s1", started_at=hours(0), text="Ann: ok ok\nrunning late")
    other = Session(id="s2", started_at=hours(2), text="nothing here\nok")
    c = ChangeSet(at=hours(3), sessions=[(again, {}), (other, {"run": 1})])
    kuzu.apply(c)
    falkor.apply(c)
    assert falkor.warm_index() is None  # stale until the next search
    before = falkor._warm_lines
    assert falkor.search_lines(words, use_index=False) == kuzu.search_lines(words, use_index=False)
    assert falkor._warm_lines is before  # FalkorStore.apply reported its lines: a delta
    assert falkor.warm_index() is falkor._warm_lines
    purge = Purge("bob", ["Bob"], "p1", {})
    kuzu.apply(ChangeSet(at=hours(4), purge=purge))
    falkor.apply(ChangeSet(at=hours(4), purge=purge))
    assert falkor.search_lines(["bob"], use_index=False) == []
    assert falkor.search_lines(words, use_index=False) == kuzu.search_lines(words, use_index=False)
    assert falkor.session_lines("s1") == kuzu.session_lines("s1")
    assert falkor.session_lines("s1") == kuzu.session_lines("s1")
    assert falkor.get_lines(["s1#2", "s2#1"]) == kuzu.get_lines(["s1#2", "s2#1"])


def test_cold_first_search_uses_fulltext(falkor: Any) -> None:
    """A store of at least COLD_FTS_MIN lines answers its first search without the build."""
    falkor.ensure_line_index()
    for c in _history():
        falkor.apply(c)
    old = flines.COLD_FTS_MIN
    flines.COLD_FTS_MIN = 1
    try:
        fresh = _open_falkor(falkor.path)
        try:
            first = fresh.search_lines(terms("running"))
            assert fresh._warm_lines is None  # answered by the full-text path
            assert fresh.search_lines(terms("running")) == first
            assert fresh._warm_lines is not None  # the second built the in-memory index
        finally:
            fresh.close()
    finally:
        flines.COLD_FTS_MIN = old


def test_empty_store(falkor: Any) -> None:
    assert falkor.read_sessions() == []
    assert falkor.count_sessions() == 0
    assert falkor.count_mentioning_sessions(now=T0) == 0
    assert falkor.mention_counts(now=T0, start=T0 - H) == []
    assert falkor.mention_groups(now=T0, start=T0 - H) == []
    assert falkor.fact_activity(now=T0, with_texts=True) == []
    assert falkor.existing_session_ids([]) == set()
    assert falkor.session_start_times([]) == {}
    assert falkor.find_entities([]) == {}
    assert falkor.facts_from([], known_at=T0) == []
    assert falkor.facts_to(["x"], known_at=T0, valid_at=T0) == []
    assert falkor.facts_of_sessions([], known_at=T0) == []
    assert falkor.versions_of([], known_at=T0) == []
    assert falkor.search_lines(["x"]) == []
    assert falkor.search_entities(["x"], use_index=False) == []
    assert falkor.get_lines(["x#1"]) == {}
    assert not falkor.has_facts()
    assert not falkor.has_lines()
    assert falkor.audit_records(since=T0) == []


def test_read_only_store_reads(falkor: Any) -> None:
    """A read-only store answers every read (``GRAPH.RO_QUERY``) and creates no index."""
    from graphmem.store.falkordb import FalkorStore

    falkor.ensure_line_index()
    falkor.ensure_entity_index()
    for c in _history():
        falkor.apply(c)
    ro = FalkorStore(falkor.path, read_only=True)
    try:
        words = terms("running bob")
        assert ro.search_lines(words, use_index=True) == falkor.search_lines(words)
        assert ro.search_lines(words) == falkor.search_lines(words, use_index=False)
        assert ro.search_entities(["bob"]) == falkor.search_entities(["bob"])
        assert ro.read_sessions() == falkor.read_sessions()
        assert ro.fact_activity(now=hours(2), with_texts=True) == falkor.fact_activity(
            now=hours(2), with_texts=True
        )
        falkor.drop_entity_index()
        assert not ro.ensure_entity_index()
        with pytest.raises(StoreError, match="read-only"):
            ro.drop_line_index()
    finally:
        ro.close()
