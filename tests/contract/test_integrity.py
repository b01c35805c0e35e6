"""IntegrityStore: raw rows (aware UTC times), counts, and capability consistency."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from graphmem.store.base import ChangeSet

from .helpers import Pair, ent, fact, h, session

DATA_TABLES = ("Entity", "Fact", "Session", "SessionLine", "MENTIONS", "Audit", "Predicate")


def _data(pair: Pair) -> None:
    from graphmem.models import Predicate

    pair.apply(
        ChangeSet(
            at=h(1),
            predicates=[Predicate(name="works_at", aliases=("employed_by",))],
            entities=[ent("ann", "Ann", "person", "annie"), ent("lonely", "Lonely")],
            inserts=[
                ("ann", "acme", fact("f1", "Ann", "Acme", vt=9, rec=1, last_accessed_at=h(1))),
                ("bob", "acme", fact("f2", "Bob", "Acme", rec=1)),
            ],
            sessions=[(session("s1", 0, "line one\nline two", ended_at=h(0.5)), {"acme": 2})],
            audit=[("a1", "note", "{}")],
        )
    )
    pair.apply(ChangeSet(at=h(2), closes=[("bob", "f2", None, "gone")]))


def _aware(value: Any) -> bool:
    return isinstance(value, dt.datetime) and value.utcoffset() == dt.timedelta(0)


def test_raw_facts_are_aware_utc(pair: Pair) -> None:
    _data(pair)
    rows = pair.ask(lambda x: sorted(x.raw_facts(), key=lambda r: r["fid"]))
    assert [(r["fid"], r["subject_id"], r["object_id"]) for r in rows] == [
        ("f1", "ann", "acme"),
        ("f2", "bob", "acme"),
    ]
    f1, f2 = rows
    for key in ("valid_from", "recorded_at", "valid_to", "last_accessed_at"):
        assert _aware(f1[key]), (key, f1[key])
    assert f1["valid_to"] == h(9)
    assert _aware(f2["expired_at"])
    assert f2["expired_at"] == h(2)
    assert (f1["subject"], f1["object_name"], f2["reason"]) == ("Ann", "Acme", "gone")


def test_raw_rows(pair: Pair) -> None:
    _data(pair)
    (sess,) = pair.ask(lambda x: x.raw_sessions())
    assert sess["id"] == "s1"
    assert _aware(sess["started_at"])
    assert _aware(sess["ended_at"])
    assert (sess["started_at"], sess["ended_at"]) == (h(0), h(0.5))
    ents = pair.ask(lambda x: sorted(x.raw_entities(), key=lambda e: e["id"]))
    assert [(e["id"], e["name"], e["aliases"]) for e in ents] == [
        ("acme", "Acme", []),
        ("ann", "Ann", ["annie"]),
        ("bob", "Bob", []),
        ("lonely", "Lonely", []),
    ]
    assert pair.ask(lambda x: x.raw_mentions()) == [{"session": "s1", "entity": "acme", "count": 2}]
    preds = pair.ask(lambda x: x.raw_predicates())
    assert preds == [{"name": "works_at", "cardinality": "one", "aliases": ["employed_by"]}]
    meta = pair.store.raw_meta()
    assert "last_write" in meta
    assert pair.ask(lambda x: x.loose_mentions()) == 0
    assert pair.ask(lambda x: x.orphan_entities()) == ["lonely"]


def test_fact_states(pair: Pair) -> None:
    """``(fid, recorded_at, expired_at, valid_to, superseded_by, access_count)``, times aware."""
    _data(pair)
    states = sorted(pair.store.fact_states())
    assert states == [
        ("f1", h(1), None, h(9), None, 0),
        ("f2", h(1), h(2), None, None, 0),
    ]
    for row in states:
        assert all(_aware(v) for v in row if isinstance(v, dt.datetime)), row


def test_counts_and_tables(pair: Pair) -> None:
    _data(pair)
    counts = pair.ask(lambda x: x.counts(), norm=lambda c: {k: c.get(k) for k in DATA_TABLES})
    assert {k: counts.get(k) for k in DATA_TABLES} == {
        "Entity": 4, "Fact": 2, "Session": 1, "SessionLine": 2, "MENTIONS": 1, "Audit": 1,
        "Predicate": 1,
    }  # fmt: skip
    assert set(DATA_TABLES) | {"Meta"} <= pair.store.table_names()


def test_checkpoint_and_vacuum_keep_the_data(
    durable_location: str, opener: Callable[[str | None], Any]
) -> None:
    s = opener(durable_location)
    s.apply(ChangeSet(at=h(1), inserts=[("a", "b", fact("f1", "a", "b", rec=1))]))
    before = (s.all_facts(), s.all_entities(), s.max_system_time())
    s.checkpoint()
    assert (s.all_facts(), s.all_entities(), s.max_system_time()) == before
    s.vacuum()  # a no-op unless capabilities.vacuum; a rebuild that keeps every row if so
    assert (s.all_facts(), s.all_entities(), s.max_system_time()) == before
    s.apply(ChangeSet(at=h(2), inserts=[("a", "c", fact("f2", "a", "c", pred="p2", rec=2))]))
    assert s.count_versions() == 2


def test_vacuum_is_a_no_op_without_the_capability(store: Any) -> None:
    store.apply(ChangeSet(at=h(1), inserts=[("a", "b", fact("f1", "a", "b", rec=1))]))
    before = store.all_facts()
    if not store.capabilities.vacuum:
        store.vacuum()
    assert store.all_facts() == before


def test_capabilities_are_consistent(store: Any, durable_location: str, opener: Any) -> None:
    caps = store.capabilities
    if not caps.embedded:
        assert not caps.vacuum  # only a local file can be rebuilt
    if caps.full_text:
        assert store.ensure_line_index() is True
        assert store.ensure_entity_index() is True
    durable = opener(durable_location).capabilities
    assert durable.embedded == caps.embedded
    if durable.embedded:
        assert durable.vacuum, "an embedded store on disk can rebuild its file"
