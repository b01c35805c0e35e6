"""The Memory facade: time arguments, write decisions end to end, errors that write nothing."""

from __future__ import annotations

import datetime as dt

import pytest

import graphmem as gm
from graphmem.timeutil import ManualClock
from tests import backends

UTC = dt.timezone.utc


def objects(facts):
    return sorted(f.object for f in facts)


def test_supersede_keeps_history_and_answers_both_axes(mem, clock):
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
    clock.set("2026-06-10")
    r = mem.add_fact("api", "runs on", "Go", valid_from="2026-06-01", source="s-42")
    assert r.decision is gm.Decision.SUPERSEDE
    assert objects(mem.facts(subject="api")) == ["Go"]
    assert objects(mem.facts(subject="api", valid_at="2025-01-01")) == ["Laravel"]
    # What we believed before learning about Go: Laravel, open-ended.
    assert objects(mem.facts(subject="api", known_at="2026-06-09")) == ["Laravel"]
    assert objects(mem.believed(on="2026-06-09", subject="api")) == ["Laravel"]
    every = mem.history("api", include_expired=True)
    assert len(every) == 3
    assert mem.count_versions() == 3
    closed = [f for f in every if f.expired_at is not None]
    assert closed[0].superseded_by
    assert "session s-42" in closed[0].reason
    assert [f.object for f in mem.history("api")] == ["Laravel", "Go"]


def test_defaults_are_now_on_both_axes(mem, clock):
    clock.set("2026-03-01")
    r = mem.add_fact("Alice", "works_at", "Acme")
    assert r.fact.valid_from == clock()
    assert r.fact.recorded_at == clock()
    assert objects(mem.facts(subject="alice")) == ["Acme"]
    assert mem.facts(subject="alice", valid_at="2026-02-28") == []


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-06-10", dt.datetime(2026, 6, 10, tzinfo=UTC)),
        (dt.date(2026, 6, 10), dt.datetime(2026, 6, 10, tzinfo=UTC)),
        ("2026-06-10T12:00:00+02:00", dt.datetime(2026, 6, 10, 10, tzinfo=UTC)),
        ("2026-06-10T12:00:00Z", dt.datetime(2026, 6, 10, 12, tzinfo=UTC)),
        (
            dt.datetime(2026, 6, 10, 12, tzinfo=dt.timezone(dt.timedelta(hours=-5))),
            dt.datetime(2026, 6, 10, 17, tzinfo=UTC),
        ),
        ("1490", dt.datetime(1490, 1, 1, tzinfo=UTC)),
        ("0001-01-01", dt.datetime(1, 1, 1, tzinfo=UTC)),
        ("9999-12-31", dt.datetime(9999, 12, 31, tzinfo=UTC)),
    ],
)
def test_time_values_round_trip_in_utc(mem, value, expected):
    r = mem.add_fact("x", "uses", "y", valid_from=value)
    assert r.fact.valid_from == expected
    (stored,) = mem.facts(subject="x", valid_at=expected)
    assert stored.valid_from == expected
    assert stored.valid_from.tzinfo is UTC


@pytest.mark.parametrize(
    "bad",
    [
        dt.datetime(2026, 1, 1),
        "2026-06-10T12:00:00",
        "someday",
        "2026-02-30",
        20260101,
    ],
)
def test_bad_times_are_rejected_and_nothing_written(mem, bad):
    with pytest.raises(gm.InvalidInput) as err:
        mem.add_fact("x", "uses", "y", valid_from=bad)
    assert "valid_from" in str(err.value)
    assert mem.count_versions() == 0


def test_valid_to_must_follow_valid_from(mem):
    with pytest.raises(gm.InvalidInput, match="not after valid_from"):
        mem.add_fact("x", "uses", "y", valid_from="2020-01-01", valid_to="2020-01-01")
    with pytest.raises(gm.InvalidInput):
        mem.add_fact("x", "uses", "y", valid_from="2020-01-01", valid_to="2019-01-01")


def test_a_bad_item_in_a_batch_writes_nothing(mem):
    with pytest.raises(gm.InvalidInput, match=r"facts\[2\]"):
        mem.add_facts(
            [
                {"subject": "a", "predicate": "uses", "object": "b"},
                {"subject": "a", "predicate": "uses", "object": "c"},
                {"subject": "a", "predicate": "uses", "object": "d", "valid_from": "nope"},
            ]
        )
    assert mem.count_versions() == 0
    with pytest.raises(gm.InvalidInput, match="unknown field"):
        mem.add_facts([{"subject": "a", "predicate": "uses", "object": "b", "colour": "red"}])
    with pytest.raises(gm.InvalidInput):
        mem.add_facts(["not a dict"])  # type: ignore[list-item]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("importance", float("nan")),
        ("importance", 11),
        ("confidence", -0.1),
        ("kind", "gossip"),
        ("subject", ""),
        ("object", "   "),
        ("predicate", "!!"),
        ("subject", None),
        ("statement", 5),
    ],
)
def test_bad_values_raise_invalid_input(mem, field, value):
    item = {"subject": "a", "predicate": "uses", "object": "b", field: value}
    with pytest.raises(gm.InvalidInput):
        mem.add_facts([item])
    assert mem.count_versions() == 0


def test_clock_must_not_move_backwards(mem, clock):
    mem.add_fact("a", "uses", "b")
    clock.set("2025-12-31")
    with pytest.raises(gm.ClockError, match="earlier than the newest recorded write"):
        mem.add_fact("a", "uses", "c")
    with pytest.raises(gm.ClockError):
        mem.retract("a", "uses")
    assert mem.count_versions() == 1
    clock.set("2026-01-01")  # equal readings are fine
    mem.add_fact("a", "uses", "c")


def test_clock_check_survives_reopen(db_path):
    clock = ManualClock("2026-01-02")
    with gm.open(db_path, clock=clock) as m:
        m.add_fact("a", "uses", "b")
    clock.set("2026-01-01")
    with gm.open(db_path, clock=clock) as m, pytest.raises(gm.ClockError):
        m.add_fact("a", "uses", "c")


def test_naive_clock_is_rejected():
    with (
        backends.memory(clock=lambda: dt.datetime(2026, 1, 1)) as m,
        pytest.raises(gm.InvalidInput),
    ):
        m.add_fact("a", "uses", "b")


def test_retract_ends_and_records_reason(mem, clock):
    mem.add_fact("Dave", "works_at", "Acme", valid_from="2020-01-01")
    clock.set("2026-02-01")
    r = mem.retract("Dave", "works_at", at="2025-06-01", reason="left the company")
    assert r.decision is gm.Decision.INVALIDATE
    assert r.fact.valid_to == dt.datetime(2025, 6, 1, tzinfo=UTC)
    assert "left the company" in r.superseded[0].reason
    assert mem.facts(subject="Dave") == []
    assert objects(mem.facts(subject="Dave", valid_at="2024-01-01")) == ["Acme"]
    assert objects(mem.facts(subject="Dave", known_at="2026-01-15")) == ["Acme"]


def test_retract_nothing_raises_not_found(mem):
    mem.add_fact("Dave", "works_at", "Acme", valid_from="2020-01-01")
    with pytest.raises(gm.NotFound, match="no current fact"):
        mem.retract("Dave", "lives_in")
    with pytest.raises(gm.NotFound):
        mem.retract("Dave", "works_at", "Globex")
    with pytest.raises(gm.NotFound):
        mem.retract("Dave", "works_at", at="2019-01-01")
    with pytest.raises(KeyError):  # NotFound is a KeyError too
        mem.retract("Nobody", "works_at")


def test_negating_statement_invalidates(mem, clock):
    mem.add_fact("Dave", "works_at", "Acme", valid_from="2020-01-01")
    clock.set("2026-03-01")
    r = mem.add_fact("Dave", "works_at", "Acme", statement="Dave no longer works at Acme")
    assert r.decision is gm.Decision.INVALIDATE
    assert mem.facts(subject="Dave") == []


def test_many_predicates_accumulate(mem):
    mem.add_fact("api", "uses", "Redis")
    r = mem.add_fact("api", "uses", "Postgres")
    assert r.decision is gm.Decision.ADD
    assert objects(mem.facts(subject="api")) == ["Postgres", "Redis"]


def test_names_are_normalised_and_keep_their_first_spelling(mem):
    mem.add_fact("Alice  Smith", "works_at", "Acme Corp")
    r = mem.add_fact("alice smith", "Works At", "ACME CORP")
    assert r.decision is gm.Decision.NOOP
    (f,) = mem.facts(subject="ALICE SMITH")
    assert (f.subject, f.object, f.access_count) == ("Alice Smith", "Acme Corp", 1)


def test_entity_aliases_resolve_to_one_entity(mem):
    mem.define_entity("International Business Machines", kind="org", aliases=["IBM"])
    mem.add_fact("Bob", "works_at", "IBM")
    (f,) = mem.facts(subject="Bob")
    assert f.object == "International Business Machines"
    assert objects(mem.facts(object="ibm")) == ["International Business Machines"]


def test_predicate_aliases_and_definitions(mem):
    mem.define_predicate("favourite_colour", cardinality="one", aliases=["likes colour"])
    mem.add_fact("Ann", "likes colour", "red", valid_from="2020-01-01")
    r = mem.add_fact("Ann", "favourite_colour", "blue", valid_from="2021-01-01")
    assert r.decision is gm.Decision.SUPERSEDE
    with pytest.raises(gm.InvalidInput, match="cardinality"):
        mem.define_predicate("x", cardinality="several")
    with pytest.raises(gm.InvalidInput, match="is the name of predicate 'works_at'"):
        mem.define_predicate("y", aliases=["works at"])


def test_unknown_predicate_is_defined_single_valued_and_persisted(db_path):
    with gm.open(db_path) as m:
        m.add_fact("svc", "Primary Region", "eu-west-1", valid_from="2020-01-01")
        m.add_fact("svc", "primary_region", "us-east-1", valid_from="2021-01-01")
        assert objects(m.facts(subject="svc")) == ["us-east-1"]
    with gm.open(db_path) as m:
        assert any(p.name == "primary_region" and p.cardinality == "one" for p in m.predicates())


def test_bulk_batch_resolves_in_order_and_writes_no_intermediate_versions(mem):
    results = mem.add_facts(
        [
            {"subject": "p", "predicate": "works_at", "object": "A", "valid_from": "2000"},
            {"subject": "p", "predicate": "works_at", "object": "B", "valid_from": "2005"},
            {"subject": "p", "predicate": "works_at", "object": "C", "valid_from": "2010"},
        ]
    )
    assert [r.decision.value for r in results] == ["add", "supersede", "supersede"]
    timeline = [
        (f.object, f.valid_from.year, f.valid_to and f.valid_to.year) for f in mem.history("p")
    ]
    assert timeline == [("A", 2000, 2005), ("B", 2005, 2010), ("C", 2010, None)]
    # One system instant has one state: versions replaced inside the call are never stored.
    assert mem.count_versions() == 3


def test_persistence_and_reopen(db_path, clock):
    with gm.open(db_path, clock=clock) as m:
        m.add_fact("a", "works_at", "b", valid_from="2020-01-01")
    with gm.open(db_path, clock=clock) as m:
        assert objects(m.facts(subject="a")) == ["b"]
    with gm.open(db_path, read_only=True) as m:
        assert objects(m.facts(subject="a", valid_at="2021-01-01")) == ["b"]


def test_limit_and_filters(mem):
    mem.add_facts([{"subject": "s", "predicate": "uses", "object": f"o{i}"} for i in range(5)])
    assert len(mem.facts(limit=2)) == 2
    assert len(mem.facts(predicate="uses", object="o3")) == 1
    with pytest.raises(gm.InvalidInput):
        mem.facts(limit=-1)


def test_get_fact_and_not_found(mem):
    r = mem.add_fact("a", "uses", "b")
    assert mem.get_fact(r.fact.id) == r.fact
    with pytest.raises(gm.NotFound):
        mem.get_fact("nope")


def test_valid_from_defaults_to_the_session_time_else_now(mem, clock):
    clock.set("2026-03-01")
    mem.add_session("deploy talk", started_at="2026-02-20", session_id="s1", mentions=["api"])
    r = mem.add_fact("api", "runs_on", "Go", source="s1")
    assert r.fact.valid_from == dt.datetime(2026, 2, 20, tzinfo=UTC)
    r = mem.add_fact("api", "uses", "Redis", source="no-such-session")
    assert r.fact.valid_from == clock()
    r = mem.add_fact("api", "uses", "Kafka", source="s1", valid_from="2026-01-01")
    assert r.fact.valid_from == dt.datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        # nothing listens on port 1: the server cannot be reached
        ("falkordb://127.0.0.1:1/g", "cannot reach FalkorDB at 127.0.0.1:1"),
        ("redis://localhost/0", "redis://"),
    ],
)
def test_a_server_url_is_a_clear_error_never_a_local_directory(tmp_path, monkeypatch, url, says):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(gm.StoreError, match=says):
        gm.open(url)
    assert list(tmp_path.iterdir()) == []
