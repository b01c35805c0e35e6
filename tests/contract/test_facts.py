"""FactStore: what each part of a ChangeSet does, atomicity, and the fact reads.

Includes the bi-temporal property: for random histories of inserts and closes, every
``query_facts(valid_at=, known_at=)`` answer equals a pure in-memory model of the versions, and
an answer at ``known_at=K`` never changes after later applies.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.errors import GraphmemError
from graphmem.models import Entity, Fact, Predicate
from graphmem.store.base import Capabilities, ChangeSet, Snapshot, Store

from .helpers import Pair, by_id, edge, ent, fact, h, ins


def state(s: Any) -> dict[str, Any]:
    """Everything a change set can change, read through the protocol."""
    return {
        "facts": sorted(s.all_facts(), key=lambda e: e[2].id),
        "entities": sorted(s.all_entities(), key=lambda e: e["id"]),
        "predicates": s.load_predicates(),
        "meta": {k: v for k, v in s.all_meta().items() if k != "lines_gen"},
        "sessions": s.all_sessions(),
        "audit": s.all_audit(),
        "marker": s.max_system_time(),
        "lines": dict(s.line_counts()),
    }


# -- the protocol itself ------------------------------------------------------------------------


def protocol_members() -> set[str]:
    names: set[str] = set()
    for cls in Store.__mro__:
        if cls is object or not getattr(cls, "_is_protocol", False):
            continue
        names.update(n for n in vars(cls) if not n.startswith("_"))
        names.update(getattr(cls, "__annotations__", {}))
    return names


def test_store_implements_the_protocol(store: Any) -> None:
    missing = sorted(n for n in protocol_members() if not hasattr(store, n))
    assert not missing, f"members of the Store protocol missing: {missing}"
    assert isinstance(store, Store)
    caps = store.capabilities
    assert isinstance(caps, Capabilities)
    flags = {k: v for k, v in caps.__dict__.items() if k != "files"}
    assert all(isinstance(v, bool) for v in flags.values())
    # The local files a file export must never replace (none for a server).
    assert isinstance(caps.files, tuple)
    assert all(isinstance(f, str) for f in caps.files)
    assert bool(caps.files) == (caps.embedded and store.path is not None)
    assert isinstance(store.engine, str)
    assert store.engine
    assert store.read_only is False


def test_a_new_store_is_empty(pair: Pair) -> None:
    s = pair.store
    assert s.max_system_time() is None
    assert s.count_versions() == 0
    assert not s.has_facts()
    assert not s.has_lines()
    assert s.query_facts() == []
    assert s.all_facts() == []
    assert s.read_sessions() == []
    assert s.count_sessions() == 0
    counts = s.content_counts()
    assert (counts["facts"], counts["sessions"], counts["audit"]) == (0, 0, 0)
    assert s.get_meta("no such key") is None
    pair.ask(lambda x: x.load_predicates())
    pair.ask(lambda x: x.load_aliases())


def test_closed_store_refuses_calls(opener: Callable[[str | None], Any], location: Any) -> None:
    s = opener(location)
    s.close()
    with pytest.raises(GraphmemError):
        s.count_versions()


# -- each part of a change set ------------------------------------------------------------------


def test_every_fact_field_round_trips(pair: Pair) -> None:
    plus2 = dt.timezone(dt.timedelta(hours=2))
    full = Fact(
        id="f-full",
        subject="Alice",
        predicate="works_at",
        object="Acme ünï 👩‍👩‍👧 '; --",
        valid_from=dt.datetime(1490, 6, 1, 12, 30, 15, 123456, tzinfo=plus2),
        valid_to=dt.datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone.utc),
        recorded_at=h(0),
        expired_at=None,
        statement='Alice works at Acme.\nTwo lines, $s, `tick`, \\ and "quotes"',
        kind="event",
        importance=7.25,
        confidence=0.5,
        source="sess-1",
        source_ref="ref-9",
        superseded_by=None,
        reason=None,
        access_count=3,
        last_accessed_at=h(0.5),
        pinned=True,
        source_type="user",
    )
    minimal = fact("f-min", "Bob", "Initech", pred="likes", vf=-10)
    pair.apply(ins(0, full, minimal))
    got = pair.ask(lambda x: by_id(x.get_facts(["f-full", "f-min", "missing"])))
    assert got == [full, minimal]
    assert got[0].valid_from.tzinfo == dt.timezone.utc
    assert pair.ask(lambda x: by_id(x.query_facts())) == [full, minimal]


def test_settles_rewrite_only_the_reason_of_a_dispute(pair: Pair) -> None:
    """``ChangeSet.settles`` (docs/concepts/decisions.md#authority-and-disputes)."""
    current = fact("f-cur", "Alice", "Acme", source_type="user")
    disputed = fact(
        "f-dis", "Alice", "Globex", rec=1, source_type="agent", reason="disputed: x"
    ).model_copy(update={"expired_at": h(1)})
    pair.apply(ins(0, current))
    pair.apply(ins(1, disputed))
    assert pair.ask(lambda x: by_id(x.get_facts(["f-dis"]))) == [disputed]
    assert pair.ask(lambda x: x.query_facts(known_at=h(1), current_only=True)) == [current]
    # only a version closed at birth is touched: a current one keeps its reason
    pair.apply(
        ChangeSet(
            at=h(2),
            settles=[("alice", "f-dis", "dispute rejected"), ("alice", "f-cur", "nope")],
        )
    )
    got = pair.ask(lambda x: by_id(x.get_facts(["f-cur", "f-dis"])))
    assert got == [current, disputed.model_copy(update={"reason": "dispute rejected"})]


def test_a_nul_character_round_trips(pair: Pair) -> None:
    """Texts are stored as given, control characters included (the embedded store keeps NUL)."""
    f = fact("f-nul", "a", "b", statement="a\x00b")
    pair.apply(ins(0, f))
    assert pair.ask(lambda x: x.get_facts(["f-nul"])) == [f]


def test_insert_creates_missing_endpoints(pair: Pair) -> None:
    named = Entity(id="carol", name="Carol C.", kind="person")
    pair.apply(
        ChangeSet(
            at=h(1),
            new_entities={"carol": named},
            inserts=[("carol", "globex", fact("f1", "carol", "Globex Corp"))],
        )
    )
    assert pair.ask(lambda x: x.get_entity("carol")) == named
    globex = pair.ask(lambda x: x.get_entity("globex"))
    assert globex == Entity(id="globex", name="Globex Corp", kind="entity")
    # The version's subject is read back as its subject entity's display name.
    assert [f.subject for f in pair.ask(lambda x: x.query_facts())] == ["Carol C."]
    # An existing endpoint is left as it is.
    pair.apply(
        ChangeSet(
            at=h(2),
            new_entities={},
            inserts=[("carol", "globex", fact("f2", "someone", "else", pred="p2", rec=2))],
        )
    )
    assert pair.ask(lambda x: x.get_entity("carol")) == named
    assert pair.ask(lambda x: x.entity_names(["carol", "globex", "nobody"])) == {
        "carol": "Carol C.",
        "globex": "Globex Corp",
    }


def test_entity_upserts(pair: Pair) -> None:
    pair.apply(ChangeSet(at=h(0), entities=[ent("ann", "Ann", "person", "annie", "a.")]))
    assert pair.ask(lambda x: x.get_entity("ann")) == ent("ann", "Ann", "person", "annie", "a.")
    # kind "entity" and no aliases leave the stored kind and aliases alone; the name stays.
    pair.apply(ChangeSet(at=h(1), entities=[ent("ann", "ANN!", "entity")]))
    assert pair.ask(lambda x: x.get_entity("ann")) == ent("ann", "Ann", "person", "annie", "a.")
    # A new kind and new aliases replace the old ones.
    pair.apply(ChangeSet(at=h(2), entities=[ent("ann", "x", "org", "ann inc")]))
    assert pair.ask(lambda x: x.get_entity("ann")) == ent("ann", "Ann", "org", "ann inc")
    pair.apply(ChangeSet(at=h(3), entities=[ent("bo", "Bo"), ent("cy", "Cy", "tool", "c")]))
    assert pair.ask(lambda x: x.load_aliases()) == {"ann inc": "ann", "c": "cy"}
    assert pair.ask(lambda x: x.get_entity("nobody")) is None
    assert pair.ask(lambda x: x.entity_names([])) == {}
    assert pair.ask(lambda x: x.find_entities(["bo", "cy", "zz"])) == {"bo": "Bo", "cy": "Cy"}


def test_alias_lists_replace_and_clear(pair: Pair) -> None:
    """``ChangeSet.aliases`` replaces an entity's aliases, an empty tuple clears them, and it
    applies after the upserts of the same change set (a merge moves aliases with it)."""
    pair.apply(ChangeSet(at=h(0), entities=[ent("pg", "Postgres"), ent("psql", "PostgreSQL")]))
    pair.apply(ChangeSet(at=h(1), entities=[ent("psql", "PostgreSQL", "tool", "pgsql")]))
    assert pair.ask(lambda x: x.load_aliases()) == {"pgsql": "psql"}
    pair.apply(
        ChangeSet(
            at=h(2),
            entities=[ent("pg", "Postgres", "tool", "postgres db")],
            aliases={"pg": ("pgsql", "postgresql", "psql"), "psql": ()},
        )
    )
    assert pair.ask(lambda x: x.load_aliases()) == {
        "pgsql": "pg",
        "postgresql": "pg",
        "psql": "pg",
    }
    assert pair.ask(lambda x: x.get_entity("psql")) == ent("psql", "PostgreSQL", "tool")
    assert pair.ask(lambda x: x.get_entity("pg")) == ent(
        "pg", "Postgres", "tool", "pgsql", "postgresql", "psql"
    )
    assert not ChangeSet(at=h(3), aliases={"pg": ()}).is_empty()


def test_predicates_are_created_and_replaced(pair: Pair) -> None:
    p1 = Predicate(name="works_at", cardinality="one", aliases=("employed_by",))
    p2 = Predicate(name="knows", cardinality="many", symmetric=True, description="d")
    p3 = Predicate(name="parent_of", inverse="child_of")
    pair.apply(ChangeSet(at=h(0), predicates=[p1, p2, p3]))
    assert pair.ask(lambda x: x.load_predicates()) == [p2, p3, p1]
    p1b = Predicate(name="works_at", cardinality="many", description="changed")
    pair.apply(ChangeSet(at=h(1), predicates=[p1b]))
    assert pair.ask(lambda x: x.load_predicates()) == [p2, p3, p1b]


def test_meta_and_marker(pair: Pair) -> None:
    pair.apply(ChangeSet(at=h(1), meta={"k1": "v1", "k2": "v2"}, marker=False))
    assert pair.ask(lambda x: x.max_system_time()) is None
    assert pair.ask(lambda x: (x.get_meta("k1"), x.get_meta("k2"), x.get_meta("k3"))) == (
        "v1",
        "v2",
        None,
    )
    pair.apply(ChangeSet(at=h(2), meta={"k1": "v1b"}))
    assert pair.ask(lambda x: x.max_system_time()) == h(2)
    assert pair.ask(lambda x: x.get_meta("k1")) == "v1b"
    assert pair.ask(lambda x: x.all_meta()["k2"]) == "v2"
    # An empty change set moves only the marker.
    assert ChangeSet(at=h(3)).is_empty()
    pair.apply(ChangeSet(at=h(3)))
    assert pair.ask(lambda x: x.max_system_time()) == h(3)
    pair.apply(ChangeSet(at=h(4), marker=False))
    assert pair.ask(lambda x: x.max_system_time()) == h(3)
    assert pair.ask(lambda x: x.max_system_time().tzinfo) == dt.timezone.utc


def test_closes(pair: Pair) -> None:
    pair.apply(ins(0, fact("f1", "a", "b"), fact("f2", "a", "c", pred="p2")))
    pair.apply(ChangeSet(at=h(5), closes=[("a", "f1", "f9", "superseded"), ("a", "f2", None, "x")]))
    f1, f2 = pair.ask(lambda x: by_id(x.get_facts(["f1", "f2"])))
    assert (f1.expired_at, f1.superseded_by, f1.reason) == (h(5), "f9", "superseded")
    assert (f2.expired_at, f2.superseded_by, f2.reason) == (h(5), None, "x")
    # Closing again (or a missing version, or through the wrong subject) changes nothing.
    before = pair.ask(state)
    pair.apply(
        ChangeSet(
            at=h(6),
            closes=[
                ("a", "f1", "other", "again"),
                ("a", "nope", None, "r"),
                ("b", "f2", None, "r"),
            ],
            marker=False,
        )
    )
    assert pair.ask(state) == before


def test_bumps_set_the_access_counter(pair: Pair) -> None:
    pair.apply(ins(0, fact("f1", "a", "b"), fact("f2", "a", "c", pred="p2", access_count=2)))
    pair.apply(ChangeSet(at=h(3), bumps=[("a", "f1", 7)], marker=False))
    f1, f2 = pair.ask(lambda x: by_id(x.get_facts(["f1", "f2"])))
    assert (f1.access_count, f1.last_accessed_at) == (7, h(3))
    assert (f2.access_count, f2.last_accessed_at) == (2, None)
    assert f1.model_copy(update={"access_count": 0, "last_accessed_at": None}) == fact(
        "f1", "a", "b"
    )
    assert pair.ask(lambda x: x.max_system_time()) == h(0)


def test_access_adds_one_by_direction(pair: Pair) -> None:
    pair.apply(
        ins(
            0,
            fact("f1", "a", "b"),
            fact("f2", "a", "c", pred="p2", access_count=4),
            fact("f3", "c", "b", pred="p3"),
        )
    )
    pair.apply(
        ChangeSet(
            at=h(2),
            access={("out", "a"): ["f1", "f2", "f3"], ("in", "b"): ["f3", "f2"]},
            marker=False,
        )
    )
    facts = {f.id: f for f in pair.ask(lambda x: by_id(x.query_facts()))}
    assert {i: f.access_count for i, f in facts.items()} == {"f1": 1, "f2": 5, "f3": 1}
    assert {i: f.last_accessed_at for i, f in facts.items()} == {"f1": h(2), "f2": h(2), "f3": h(2)}


def test_audit_records(pair: Pair) -> None:
    pair.apply(ChangeSet(at=h(1), audit=[("a1", "define", '{"x": 1}'), ("a0", "note", "{}")]))
    pair.apply(ChangeSet(at=h(3), audit=[("a2", "purge", '{"n": 2}')]))
    assert pair.ask(lambda x: x.audit_records(since=h(0))) == [
        ("a0", h(1), "note", "{}"),
        ("a1", h(1), "define", '{"x": 1}'),
        ("a2", h(3), "purge", '{"n": 2}'),
    ]
    assert [r[0] for r in pair.ask(lambda x: x.audit_records(since=h(1), until=h(3)))] == [
        "a0",
        "a1",
    ]
    assert pair.ask(lambda x: x.audit_records(since=h(3), until=h(3))) == []
    assert [r["id"] for r in pair.ask(lambda x: x.all_audit())] == ["a0", "a1", "a2"]


# -- atomicity ------------------------------------------------------------------------------------


def _everything(at: float) -> dict[str, Any]:
    """Parts of every kind, all valid on the base history of :func:`_base`."""
    from .helpers import session

    return {
        "predicates": [Predicate(name="new_pred")],
        "entities": [ent("zed", "Zed", "person", "zz")],
        "bumps": [("a", "f1", 9)],
        "closes": [("a", "f2", "f3", "superseded")],
        "inserts": [edge(fact("f3", "a", "d", pred="p2", rec=at))],
        "sessions": [(session("s9", at, "Zed: hello there"), {"zed": 1})],
        "audit": [("au9", "note", "{}")],
        "meta": {"mk": "mv"},
    }


def _base(pair: Pair) -> None:
    pair.apply(ins(0, fact("f1", "a", "b"), fact("f2", "a", "c", pred="p2")))


def test_a_change_set_is_applied_whole(pair: Pair) -> None:
    _base(pair)
    pair.apply(ChangeSet(at=h(5), **_everything(5)))
    s = pair.store
    assert "new_pred" in {p.name for p in s.load_predicates()}
    assert s.get_entity("zed") == ent("zed", "Zed", "person", "zz")
    f1, f2, f3 = by_id(s.get_facts(["f1", "f2", "f3"]))
    assert (f1.access_count, f2.expired_at, f3.expired_at) == (9, h(5), None)
    assert [x.id for x in s.read_sessions()] == ["s9"]
    assert s.get_meta("mk") == "mv"
    assert s.max_system_time() == h(5)
    pair.ask(state)


def test_a_failing_change_set_leaves_nothing_bad_direction(pair: Pair) -> None:
    """An access direction other than "out"/"in" violates the documented precondition."""
    _base(pair)
    before = pair.ask(state)
    bad = ChangeSet(
        at=h(5), access={("out", "a"): ["f1"], ("sideways", "a"): ["f1"]}, **_everything(5)
    )
    got, ref = pair.fails(bad)
    assert got is not None, "a change set with an unknown access direction was applied"
    assert pair.ask(state) == before
    if pair.ref is not None:
        assert ref is not None


def test_a_bad_access_direction_is_a_graphmem_error(pair: Pair) -> None:
    """Bad input raises a GraphmemError subclass (project rule), on every backend."""
    _base(pair)
    got, ref = pair.fails(ChangeSet(at=h(5), access={("sideways", "a"): ["f1"]}))
    assert isinstance(got, GraphmemError), repr(got)


def test_an_unstorable_fact_fails_whole_or_round_trips(pair: Pair) -> None:
    """A valid Fact whose access_count exceeds INT64: refused with nothing written, or stored
    and returned unchanged (never silently altered)."""
    _base(pair)
    before = state(pair.store)
    huge = fact("f3", "a", "d", pred="p2", rec=5, access_count=2**63)
    changes = ChangeSet(at=h(5), **{**_everything(5), "inserts": [edge(huge)]})
    try:
        pair.store.apply(changes)
    except GraphmemError:
        assert state(pair.store) == before
        return
    assert pair.store.get_facts(["f3"]) == [huge]


def test_a_snapshot_into_a_store_with_those_entities(pair: Pair) -> None:
    """An import's precondition (an empty target) violated: refused whole, or ids stay unique."""
    _base(pair)
    before = state(pair.store)
    snap = Snapshot(
        meta={"imported": "1"},
        predicates=[Predicate(name="only_this")],
        entities=[{"id": "a", "name": "A again", "kind": "entity", "aliases": []}],
        facts=[],
        sessions=[],
        audit=[],
    )
    try:
        pair.store.apply(ChangeSet(at=h(5), snapshot=snap))
    except GraphmemError:
        assert state(pair.store) == before
        return
    ids = [e["id"] for e in pair.store.all_entities()]
    assert len(ids) == len(set(ids)), f"duplicate entity ids after the import: {sorted(ids)}"


# -- fact reads -----------------------------------------------------------------------------------


def _timeline(pair: Pair) -> None:
    # alice: works_at acme [0, 10) then globex [10, -) (acme closed at 12); likes tea [5, 8).
    pair.apply(
        ChangeSet(
            at=h(1),
            new_entities={"alice": ent("alice", "Alice"), "bob": ent("bob", "bob")},
            inserts=[
                ("alice", "acme", fact("a1", "Alice", "Acme", vf=0, rec=1)),
                ("alice", "tea", fact("a2", "Alice", "tea", pred="likes", vf=5, vt=8, rec=1)),
                ("bob", "acme", fact("b1", "bob", "Acme", vf=2, rec=1)),
            ],
        )
    )
    pair.apply(
        ChangeSet(
            at=h(12),
            closes=[("alice", "a1", "a3", "superseded")],
            inserts=[
                ("alice", "acme", fact("a4", "Alice", "Acme", vf=0, vt=10, rec=12)),
                ("alice", "globex", fact("a3", "Alice", "Globex", vf=10, rec=12)),
            ],
        )
    )


def ids(facts: list[Fact]) -> list[str]:
    return [f.id for f in facts]


def test_query_facts_filters_and_order(pair: Pair) -> None:
    _timeline(pair)

    def q(**kw: Any) -> list[str]:
        return list(pair.ask(lambda x: ids(x.query_facts(**kw))))

    # Ordered by subject name, predicate, valid_from, recorded_at, id.
    assert q() == ["a2", "a1", "a4", "a3", "b1"]
    assert q(subject_id="alice") == ["a2", "a1", "a4", "a3"]
    assert q(subject_id="alice", predicate="likes") == ["a2"]
    assert q(object_id="acme") == ["a1", "a4", "b1"]
    assert q(subject_id="bob", object_id="globex") == []
    assert q(current_only=True) == ["a2", "a4", "a3", "b1"]
    assert q(limit=2) == ["a2", "a1"]
    assert q(subject_id="nobody") == []
    # Valid time is closed-open: [5, 8) for tea; [0, 10) then [10, -) for the job.
    assert q(predicate="likes", valid_at=h(5)) == ["a2"]
    assert q(predicate="likes", valid_at=h(8)) == []
    assert q(predicate="likes", valid_at=h(4.999)) == []
    assert q(subject_id="alice", predicate="works_at", valid_at=h(10)) == ["a1", "a3"]
    # System time is closed-open: a1 believed in [1, 12), a3/a4 from 12.
    assert q(subject_id="alice", predicate="works_at", known_at=h(1)) == ["a1"]
    assert q(subject_id="alice", predicate="works_at", known_at=h(0.5)) == []
    assert q(subject_id="alice", predicate="works_at", known_at=h(12)) == ["a4", "a3"]
    assert q(subject_id="alice", predicate="works_at", known_at=h(11.99)) == ["a1"]
    assert q(subject_id="alice", valid_at=h(10), known_at=h(12)) == ["a3"]
    assert q(subject_id="alice", valid_at=h(9), known_at=h(12)) == ["a4"]
    assert q(subject_id="alice", valid_at=h(9), known_at=h(11)) == ["a1"]


def test_query_facts_orders_names_by_code_point(pair: Pair) -> None:
    names = ["zoe", "Zoe", "Émile", "Bob", "bob", "Ähm", "_x", "10", "9"]
    pair.apply(
        ChangeSet(
            at=h(1),
            new_entities={f"e{i}": ent(f"e{i}", n) for i, n in enumerate(names)},
            inserts=[(f"e{i}", "o", fact(f"f{i}", n, "o", rec=1)) for i, n in enumerate(names)],
        )
    )
    got = [f.subject for f in pair.ask(lambda x: x.query_facts())]
    assert got == sorted(names)


def test_current_versions(pair: Pair) -> None:
    _timeline(pair)
    got = pair.ask(
        lambda x: x.current_versions(["alice", "bob", "nobody"]),
        norm=lambda d: {k: by_id(v) for k, v in d.items()},
    )
    assert set(got) == {"alice", "bob", "nobody"}
    assert {k: ids(by_id(v)) for k, v in got.items()} == {
        "alice": ["a2", "a3", "a4"],
        "bob": ["b1"],
        "nobody": [],
    }
    assert pair.ask(lambda x: x.current_versions([])) == {}


def test_current_versions_of_pairs(pair: Pair) -> None:
    """With ``pairs``, only those (subject, predicate) pairs' current versions, every id a key."""
    _timeline(pair)
    got = pair.ask(
        lambda x: x.current_versions(
            ["alice", "bob", "nobody"],
            pairs=[("alice", "works_at"), ("bob", "likes"), ("nobody", "works_at")],
        ),
        norm=lambda d: {k: by_id(v) for k, v in d.items()},
    )
    assert {k: ids(by_id(v)) for k, v in got.items()} == {
        "alice": ["a3", "a4"],
        "bob": [],
        "nobody": [],
    }
    likes = pair.ask(lambda x: x.current_versions(["alice"], pairs=[("alice", "likes")]))
    assert {k: ids(v) for k, v in likes.items()} == {"alice": ["a2"]}


def test_get_facts_changed_between_and_counts(pair: Pair) -> None:
    _timeline(pair)
    assert pair.ask(lambda x: ids(by_id(x.get_facts(["a3", "zz", "b1"])))) == ["a3", "b1"]
    assert pair.ask(lambda x: x.get_facts([])) == []

    def norm(fs: list[Fact]) -> list[str]:
        return ids(by_id(fs))

    # Recorded or closed in [since, until): a1 closed at 12, a3/a4 recorded at 12.
    assert norm(pair.ask(lambda x: x.changed_between(h(12), None), norm=norm)) == ["a1", "a3", "a4"]
    assert norm(pair.ask(lambda x: x.changed_between(h(1), h(12)), norm=norm)) == ["a1", "a2", "b1"]
    assert norm(pair.ask(lambda x: x.changed_between(h(2), h(12)), norm=norm)) == []
    assert norm(pair.ask(lambda x: x.changed_between(h(0), h(1)), norm=norm)) == []
    assert norm(pair.ask(lambda x: x.changed_between(h(11), h(13)), norm=norm)) == [
        "a1",
        "a3",
        "a4",
    ]
    assert pair.ask(lambda x: x.count_versions()) == 5
    assert pair.ask(lambda x: x.count_predicate_versions("works_at")) == 4
    assert pair.ask(lambda x: x.count_predicate_versions("nope")) == 0
    assert pair.ask(lambda x: x.has_facts()) is True


def test_reopen_keeps_everything(
    durable_location: str, opener: Callable[[str | None], Any]
) -> None:
    s = opener(durable_location)
    s.apply(ins(1, fact("f1", "a", "b", rec=1), fact("f2", "a", "c", pred="p2", rec=1)))
    s.apply(ChangeSet(at=h(2), closes=[("a", "f1", None, "gone")], meta={"k": "v"}))
    before = state(s)
    s.close()
    again = opener(durable_location)
    assert state(again) == before
    assert again.max_system_time() == h(2)
    again.close()
    ro = opener(durable_location, read_only=True)
    assert ro.read_only is True
    assert state(ro) == before
    with pytest.raises(GraphmemError):
        ro.apply(ChangeSet(at=h(3), meta={"k": "w"}))
    assert state(ro) == before


def test_the_marker_is_the_newest_write(pair: Pair) -> None:
    """``max_system_time`` is the newest write marker: a change set at an earlier ``at``
    (an import restoring its history, a backfill) does not move it back."""
    pair.apply(ChangeSet(at=h(5)))
    pair.apply(ChangeSet(at=h(3), meta={"k": "v"}))
    assert pair.store.max_system_time() == h(5)


# -- the bi-temporal property -------------------------------------------------------------------

SUBJECTS = ["s0", "s1", "s2"]
PREDICATES = ["p0", "p1"]
OBJECTS = ["o0", "o1", "o2"]

_insert = st.tuples(
    st.sampled_from(SUBJECTS),
    st.sampled_from(PREDICATES),
    st.sampled_from(OBJECTS),
    st.integers(0, 8),  # valid_from (hours)
    st.one_of(st.none(), st.integers(1, 6)),  # valid length (hours)
)
_step = st.tuples(st.lists(_insert, max_size=3), st.lists(st.integers(0, 50), max_size=2))
_history = st.lists(_step, min_size=1, max_size=6)


class Model:
    """Versions as plain tuples: ``[fid, subject, pred, obj, vf, vt, rec, exp]`` in hours."""

    def __init__(self) -> None:
        self.rows: list[list[Any]] = []

    def answer(
        self, *, valid_at: float | None, known_at: float | None, subject: str | None = None
    ) -> set[str]:
        out = set()
        for fid, s, _p, _o, vf, vt, rec, exp in self.rows:
            if subject is not None and s != subject:
                continue
            if known_at is not None and not (rec <= known_at and (exp is None or known_at < exp)):
                continue
            if valid_at is not None and not (vf <= valid_at and (vt is None or valid_at < vt)):
                continue
            out.add(fid)
        return out


_counter = itertools.count()


@pytest.mark.slow  # a long test: CI's slow family runs it
@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(history=_history)
def test_query_facts_matches_the_model(
    history: list[tuple[list[Any], list[int]]],
    location: str | None,
    opener: Callable[[str | None], Any],
) -> None:
    n = next(_counter)
    s = opener(None if location is None else f"{location}_{n}")
    model = Model()
    seen: list[tuple[float, float | None, set[str]]] = []  # (known_at, valid_at, answer)
    try:
        for step, (inserts, closes) in enumerate(history, start=1):
            current = [r for r in model.rows if r[7] is None]
            close_rows: list[tuple[str, str, str | None, str]] = []
            for pick in sorted(set(closes)):
                if current:
                    r = current[pick % len(current)]
                    if r[7] is None:
                        r[7] = step
                        close_rows.append((r[1], r[0], None, "closed"))
            rows = []
            for i, (subj, pred, obj, vf, length) in enumerate(inserts):
                fid = f"v{step}_{i}"
                vt = None if length is None else vf + length
                model.rows.append([fid, subj, pred, obj, vf, vt, step, None])
                rows.append((subj, obj, fact(fid, subj, obj, pred=pred, vf=vf, vt=vt, rec=step)))
            s.apply(ChangeSet(at=h(step), closes=close_rows, inserts=rows))
            for valid_at in (None, 3.0, 5.0):
                answer = {
                    f.id
                    for f in s.query_facts(
                        valid_at=None if valid_at is None else h(valid_at), known_at=h(step)
                    )
                }
                seen.append((float(step), valid_at, answer))
        steps = len(history)
        # Boundaries: every system time (and just before), every valid time (and just after).
        sys_times = {float(t) for r in model.rows for t in (r[6], r[7]) if t is not None}
        valid_times = {float(t) for r in model.rows for t in (r[4], r[5]) if t is not None}
        grid_k = sorted({*sys_times, *(t - 0.5 for t in sys_times), 0.5, steps + 1.0})
        grid_v = [None, *sorted({*valid_times, *(t + 0.5 for t in valid_times), -1.0})]
        for k in grid_k:
            for v in grid_v:
                got = s.query_facts(valid_at=None if v is None else h(v), known_at=h(k))
                assert {f.id for f in got} == model.answer(valid_at=v, known_at=k), (k, v)
                assert got == sorted(
                    got, key=lambda f: (f.subject, f.predicate, f.valid_from, f.recorded_at, f.id)
                )
        current = s.current_versions(SUBJECTS)
        for subj in SUBJECTS:
            want = {r[0] for r in model.rows if r[1] == subj and r[7] is None}
            got_ids = {f.id for f in s.query_facts(subject_id=subj, current_only=True)}
            assert got_ids == want
            assert {f.id for f in current[subj]} == want
        for since, until in ((1, None), (2, 4), (steps, steps + 1), (0.5, 1.5)):
            changed = {
                f.id for f in s.changed_between(h(since), None if until is None else h(until))
            }
            assert changed == {
                r[0]
                for r in model.rows
                if any(
                    t is not None and since <= t and (until is None or t < until)
                    for t in (r[6], r[7])
                )
            }, (since, until)
        assert s.count_versions() == len(model.rows)
        # The other as-of reads agree with the model (and with query_facts).
        for k in grid_k[::2]:
            views = s.facts_from(SUBJECTS, known_at=h(k))
            want_from = sorted(
                (r for r in model.rows if r[0] in model.answer(valid_at=None, known_at=k)),
                key=lambda r: (SUBJECTS.index(r[1]), -r[6], r[0]),
            )
            assert [(v.via, v.id) for v in views] == [(r[1], r[0]) for r in want_from], k
            for v in (None, 3.0):
                if v is None:
                    continue
                into = s.facts_to(OBJECTS, known_at=h(k), valid_at=h(v))
                want_to = model.answer(valid_at=v, known_at=k)
                assert sorted(x.id for x in into) == sorted(want_to), (k, v)
                edges = s.snapshot_edges(valid_at=h(v), known_at=h(k))
                assert [f for _, _, f in edges] == s.query_facts(valid_at=h(v), known_at=h(k))
            pairs = [(a, p) for a in SUBJECTS for p in PREDICATES]
            assert sorted(x.id for x in s.versions_of(pairs, known_at=h(k))) == sorted(
                model.answer(valid_at=None, known_at=k)
            )
        # fact_activity / newest_activity: versions believed at now and started by then.
        for now in grid_k[::3]:
            acts: dict[str, list[Any]] = {}
            for _fid, subj, _p, obj, vf, vt, rec, exp in model.rows:
                if not (rec <= now and (exp is None or now < exp) and vf <= now):
                    continue
                for eid, is_subj in ((subj, True), (obj, False)):
                    a = acts.setdefault(eid, [False, -1e9, 0])
                    a[0] |= is_subj
                    a[1] = max(a[1], rec, vf)
                    a[2] += vt is None or now < vt
            want_acts = sorted((e, e, a[0], h(a[1]), a[2]) for e, a in acts.items())
            got_acts = sorted(tuple(x[:5]) for x in s.fact_activity(now=h(now)))
            assert got_acts == want_acts, now
            newest = s.newest_activity(now=h(now), entity_ids={*SUBJECTS, "o0"})
            assert newest == {e: h(a[1]) for e, a in acts.items() if e in {*SUBJECTS, "o0"}}
        # Answers at known_at=K never change after later applies.
        for k, v, old in seen:
            now = {f.id for f in s.query_facts(valid_at=None if v is None else h(v), known_at=h(k))}
            assert now == old, (k, v)
    finally:
        s.close()


def test_parts_apply_in_the_documented_order(pair: Pair) -> None:
    """Entity upserts before inserts (an upserted endpoint is not renamed by new_entities);
    closes before inserts (a close cannot reach a version inserted by the same change set);
    bumps before closes (a bumped version is then closed)."""
    pair.apply(ins(0, fact("f1", "a", "b")))
    pair.apply(
        ChangeSet(
            at=h(1),
            entities=[ent("dan", "Dan", "person")],
            new_entities={"dan": ent("dan", "Daniel", "org")},
            bumps=[("a", "f1", 4)],
            closes=[("a", "f1", "f2", "superseded"), ("dan", "f2", None, "too early")],
            inserts=[("dan", "b", fact("f2", "Dan", "b", rec=1))],
        )
    )
    assert pair.ask(lambda x: x.get_entity("dan")) == ent("dan", "Dan", "person")
    f1, f2 = pair.ask(lambda x: by_id(x.get_facts(["f1", "f2"])))
    assert (f1.access_count, f1.expired_at, f1.superseded_by) == (4, h(1), "f2")
    assert f2.expired_at is None


def test_purge_of_a_missing_entity(pair: Pair) -> None:
    from graphmem.store.base import Purge

    pair.apply(ins(0, fact("f1", "a", "b")))
    applied = pair.apply(
        ChangeSet(
            at=h(1), purge=Purge(entity_id="ghost", names=["Ghost"], audit_id="p1", detail={})
        )
    )
    assert applied.purged["versions"] == 0
    assert pair.ask(lambda x: x.count_versions()) == 1
    assert [r["action"] for r in pair.ask(lambda x: x.all_audit())] == ["purge"]


def test_a_big_change_set(pair: Pair) -> None:
    """Hundreds of versions, sessions and closes in one change set (the bulk paths)."""
    from .helpers import session

    new = {f"p{i}": ent(f"p{i}", f"Person {i}", "person") for i in range(0, 300, 2)}
    inserts = [
        (f"p{i % 300}", f"org{i % 7}", fact(f"b{i:04d}", f"person {i % 300}", f"Org {i % 7}",
                                             vf=i % 30, rec=1, importance=i % 10))
        for i in range(700)
    ]  # fmt: skip
    sessions = [(session(f"s{i:03d}", i, f"Person {i}: hello org {i % 7}"), {f"org{i % 7}": 1})
                for i in range(80)]  # fmt: skip
    pair.apply(ChangeSet(at=h(1), new_entities=new, inserts=inserts, sessions=sessions))
    assert pair.ask(lambda x: x.count_versions()) == 700
    assert pair.ask(lambda x: x.get_entity("p2")) == ent("p2", "Person 2", "person")
    assert pair.ask(lambda x: x.get_entity("p3")) == ent("p3", "person 3")
    closes = [(f"p{i % 300}", f"b{i:04d}", None, "bulk") for i in range(0, 700, 3)]
    bumps = [(f"p{i % 300}", f"b{i:04d}", 5) for i in range(1, 700, 3)]
    pair.apply(ChangeSet(at=h(2), closes=closes, bumps=bumps))
    got = pair.ask(state)
    assert sum(1 for _, _, f in got["facts"] if f.expired_at == h(2)) == len(closes)
    assert sum(1 for _, _, f in got["facts"] if f.access_count == 5) == len(bumps)
    assert len(got["sessions"]) == 80
    assert sum(got["lines"].values()) == 80
