"""TransferStore and the purge: whole-memory reads, the snapshot round trip, graph views."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from graphmem.models import Predicate
from graphmem.store.base import ChangeSet, Purge, Snapshot
from graphmem.store.textlines import terms

from .helpers import Pair, by_id, ent, fact, h, session


def _memory(pair: Pair) -> None:
    pair.apply(
        ChangeSet(
            at=h(1),
            predicates=[Predicate(name="works_at"), Predicate(name="knows", cardinality="many")],
            entities=[ent("ann", "Ann", "person", "annie"), ent("club", "Club", "org")],
            new_entities={"acme": ent("acme", "Acme", "org")},
            inserts=[
                (
                    "ann",
                    "acme",
                    fact("f1", "Ann", "Acme", rec=1, source="s1", statement="Ann at Acme"),
                ),
                ("bob", "ann", fact("f2", "bob", "Ann", pred="knows", vf=-5, vt=3, rec=1)),
                ("ann", "note", fact("f3", "Ann", "a note about Ann", pred="note", rec=1)),
            ],
            sessions=[
                (
                    session("s1", 0, "Ann: I joined Acme.\nBob: Congrats Ann!", title="Ann day"),
                    {"ann": 2, "acme": 1},
                ),
                (session("s2", 0.5, "nothing about her"), {"club": 1}),
            ],
            audit=[("au1", "define", '{"p": "works_at"}')],
            meta={"owner": "tests"},
        )
    )
    pair.apply(
        ChangeSet(
            at=h(2),
            closes=[("ann", "f1", "f4", "superseded")],
            inserts=[("ann", "club", fact("f4", "Ann", "Club", vf=1.5, rec=2))],
            bumps=[("bob", "f2", 3)],
        )
    )


def _dump(s: Any) -> dict[str, Any]:
    return {
        "meta": {k: v for k, v in s.all_meta().items() if k not in ("lines_gen", "schema_version")},
        "entities": sorted(s.all_entities(), key=lambda e: e["id"]),
        "facts": sorted(s.all_facts(), key=lambda e: e[2].id),
        "sessions": s.all_sessions(),
        "audit": s.all_audit(),
        "predicates": s.load_predicates(),
        "lines": dict(s.line_counts()),
    }


def test_all_reads(pair: Pair) -> None:
    _memory(pair)
    dump = pair.ask(_dump)
    assert [e["id"] for e in dump["entities"]] == ["acme", "ann", "bob", "club", "note"]
    assert dump["entities"][1] == {
        "id": "ann",
        "name": "Ann",
        "kind": "person",
        "aliases": ["annie"],
    }
    assert [(s, o, f.id) for s, o, f in dump["facts"]] == [
        ("ann", "acme", "f1"), ("bob", "ann", "f2"), ("ann", "note", "f3"), ("ann", "club", "f4"),
    ]  # fmt: skip
    s1 = dump["sessions"][0]
    assert (s1["id"], s1["mentions"], s1["recorded_at"], s1["started_at"]) == (
        "s1", {"acme": 1, "ann": 2}, h(1), h(0)
    )  # fmt: skip
    assert dump["audit"] == [
        {"id": "au1", "at": h(1), "action": "define", "detail": '{"p": "works_at"}'}
    ]
    assert dump["meta"]["owner"] == "tests"
    # all_facts: by system time, then id.
    assert [f.id for _, _, f in pair.ask(lambda x: x.all_facts())] == ["f1", "f2", "f3", "f4"]
    counts = pair.ask(lambda x: x.content_counts())
    assert (counts["facts"], counts["sessions"], counts["audit"]) == (4, 2, 1)
    assert pair.ask(lambda x: x.entity_rows(["club", "zz", "ann"])) == [
        dump["entities"][1], dump["entities"][3]
    ]  # fmt: skip
    assert pair.ask(lambda x: x.entity_rows([])) == []
    assert pair.ask(lambda x: x.entity_rows()) == dump["entities"]


def test_snapshot_round_trip(
    pair: Pair, location: str | None, opener: Callable[[str | None], Any]
) -> None:
    _memory(pair)
    src = pair.store
    dump = pair.ask(_dump)
    snap = Snapshot(
        meta={k: v for k, v in src.all_meta().items() if k not in ("lines_gen", "schema_version")},
        predicates=src.load_predicates(),
        entities=src.all_entities(),
        facts=src.all_facts(),
        sessions=src.all_sessions(),
        audit=src.all_audit(),
    )
    target = opener(None if location is None else f"{location}_copy")
    target.apply(ChangeSet(at=src.max_system_time(), snapshot=snap))
    assert _dump(target) == dump
    assert target.max_system_time() == h(2)
    assert target.load_aliases() == {"annie": "ann"}
    for sid in ("s1", "s2"):
        assert target.session_lines(sid) == src.session_lines(sid)
    words = terms("congrats")
    assert target.search_lines(words, limit=5) == src.search_lines(words, limit=5)


def test_snapshot_edges_and_ball(pair: Pair) -> None:
    _memory(pair)
    edges = pair.ask(lambda x: x.snapshot_edges(valid_at=h(2), known_at=h(2)))
    facts = pair.store.query_facts(valid_at=h(2), known_at=h(2))
    assert [f for _, _, f in edges] == facts
    assert [(s, o, f.id) for s, o, f in edges] == [
        ("ann", "note", "f3"), ("ann", "club", "f4"), ("bob", "ann", "f2")
    ]  # fmt: skip
    got = pair.ask(lambda x: x.snapshot_edges(valid_at=h(0), known_at=h(1), subject_id="bob"))
    assert [f.id for _, _, f in got] == ["f2"]

    def norm(b: Any) -> Any:
        if b is None:
            return None
        nodes, es = b
        return nodes, sorted((s, o, f.id) for s, o, f in es)

    assert pair.ask(lambda x: x.ball("zz", 1, valid_at=h(2), known_at=h(2))) is None
    b0 = norm(pair.ask(lambda x: x.ball("ann", 0, valid_at=h(0), known_at=h(1)), norm=norm))
    assert b0 == ([{"id": "ann", "name": "Ann", "kind": "person"}], [])
    b1 = norm(pair.ask(lambda x: x.ball("ann", 1, valid_at=h(0), known_at=h(1)), norm=norm))
    assert [n["id"] for n in b1[0]] == ["acme", "ann", "bob", "note"]
    assert b1[1] == [("ann", "acme", "f1"), ("ann", "note", "f3"), ("bob", "ann", "f2")]
    b2 = norm(pair.ask(lambda x: x.ball("bob", 2, valid_at=h(2), known_at=h(2)), norm=norm))
    assert [n["id"] for n in b2[0]] == ["ann", "bob", "club", "note"]
    assert b2[1] == [("ann", "club", "f4"), ("ann", "note", "f3"), ("bob", "ann", "f2")]
    b1 = norm(pair.ask(lambda x: x.ball("bob", 1, valid_at=h(3), known_at=h(2)), norm=norm))
    assert b1 == ([{"id": "bob", "name": "bob", "kind": "entity"}], [])  # f2 ends at 3


def test_purge(pair: Pair) -> None:
    _memory(pair)
    applied = pair.apply(
        ChangeSet(
            at=h(5),
            purge=Purge(
                entity_id="ann",
                names=["Ann", "annie"],
                audit_id="purge1",
                detail={"entity": "ann", "reason": "asked"},
            ),
        )
    )
    assert dict(applied.purged) == {
        "versions": 4, "entities": 3, "mentions": 1, "sessions_redacted": 1
    }  # fmt: skip
    s = pair.store
    assert s.get_entity("ann") is None
    assert s.get_entity("note") is None  # an object left with nothing is deleted
    # Only the redacted sentence named Acme, and its one fact was Ann's: nothing is left of it.
    assert s.get_entity("acme") is None
    assert s.get_entity("club") is not None
    assert s.count_versions() == 0
    assert s.load_aliases() == {}
    s1 = pair.ask(lambda x: x.get_sessions(["s1"]))[0]
    # Every sentence naming her goes whole, and a title naming her (docs/concepts/time.md#rule-1).
    assert (s1.title, s1.text, s1.mentions) == ("[purged]", "[purged]\nBob: [purged]", {})
    assert [(r.speaker, r.text) for r in pair.ask(lambda x: x.session_lines("s1"))] == [
        (None, "[purged]"), ("Bob", "[purged]")
    ]  # fmt: skip
    assert pair.ask(lambda x: x.search_lines(["ann"], limit=5)) == []
    (rec,) = [r for r in pair.ask(lambda x: x.all_audit()) if r["id"] == "purge1"]
    assert (rec["at"], rec["action"]) == (h(5), "purge")
    detail = json.loads(rec["detail"])
    assert detail == {
        "entity": "ann", "versions": 4, "entities": 3, "mentions": 1, "sessions_redacted": 1,
        "reason": "asked",
    }  # fmt: skip
    assert list(detail)[-1] == "reason"
    # Subjects of facts that named the entity are other people: kept (now orphans).
    assert pair.ask(lambda x: x.orphan_entities()) == ["bob"]
    assert by_id(pair.ask(lambda x: x.query_facts())) == []


def test_purge_with_merged_entities(pair: Pair) -> None:
    """``Purge.merged``: each merged entity goes first, as if purged alone, then the entity
    (docs/concepts/decisions.md#merging-entities); one that is not stored is skipped."""
    pair.apply(
        ChangeSet(
            at=h(1),
            entities=[ent("ann", "Ann", "person", "anna", "ghost")],
            inserts=[
                ("ann", "acme", fact("f1", "Ann", "Acme", rec=1)),
                ("anna", "globex", fact("f2", "Anna", "Globex", rec=1)),
                ("anna", "ann", fact("f3", "Anna", "Ann", pred="knows", rec=1)),
                ("zed", "anna", fact("f4", "Zed", "Anna", pred="knows", rec=1)),
                ("anna", "acme", fact("f5", "Anna", "Acme", pred="knows", rec=1)),
            ],
        )
    )
    applied = pair.apply(
        ChangeSet(
            at=h(2),
            purge=Purge(
                entity_id="ann",
                names=["Ann", "anna"],
                audit_id="purge2",
                detail={},
                merged=["ghost", "anna"],
            ),
        )
    )
    assert dict(applied.purged) == {
        "versions": 5, "entities": 4, "mentions": 0, "sessions_redacted": 0
    }  # fmt: skip
    assert pair.ask(lambda x: sorted(e["id"] for e in x.all_entities())) == ["zed"]
    assert pair.ask(lambda x: x.count_versions()) == 0
    assert pair.ask(lambda x: x.load_aliases()) == {}
