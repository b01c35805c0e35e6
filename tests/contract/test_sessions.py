"""SessionStore: sessions, mentions and the topic aggregates, on small hand-made histories."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graphmem.store.base import ChangeSet

from .helpers import Pair, ent, fact, h, session


def _history(pair: Pair) -> None:
    """Three sessions mentioning topics; facts sourced from them (times in hours)."""
    pair.apply(
        ChangeSet(
            at=h(10),
            entities=[ent("kite", "Kite"), ent("tea", "Tea"), ent("bob", "Bob", "person")],
            sessions=[
                (
                    session("s1", 1, "Bob: I fly a kite.\nBob: And drink tea."),
                    {"kite": 2, "bob": 1},
                ),
                (session("s2", 5, "Tea again", title="t2", summary="sum"), {"tea": 1}),
                (session("s3", 9, None, source="chat"), {"kite": 1, "tea": 3}),
                (session("s4", 20, "Future session"), {}),
            ],
        )
    )
    pair.apply(
        ChangeSet(
            at=h(11),
            inserts=[
                (
                    "bob",
                    "kite",
                    fact(
                        "f1",
                        "Bob",
                        "Kite",
                        pred="likes",
                        vf=1,
                        rec=11,
                        source="s1",
                        statement="Bob likes kites.",
                    ),
                ),
                ("bob", "tea", fact("f2", "Bob", "Tea", pred="drinks", vf=12, rec=11, source="s1")),
                (
                    "kite",
                    "tea",
                    fact(
                        "f3",
                        "Kite",
                        "Tea",
                        pred="near",
                        vf=0,
                        vt=3,
                        rec=11,
                        source="s2",
                        statement="Near.",
                    ),
                ),
            ],
        )
    )


def test_read_sessions(pair: Pair) -> None:
    _history(pair)
    got = pair.ask(lambda x: x.read_sessions())
    assert [s.id for s in got] == ["s1", "s2", "s3", "s4"]
    s1, s2, s3, _ = got
    assert s1.mentions == {"Bob": 1, "Kite": 2}
    assert s1.text == "Bob: I fly a kite.\nBob: And drink tea."
    assert (s2.title, s2.summary, s2.started_at) == ("t2", "sum", h(5))
    assert (s3.text, s3.source, s3.mentions) == (None, "chat", {"Kite": 1, "Tea": 3})
    # Start times in [since, until], both ends included.
    assert [s.id for s in pair.ask(lambda x: x.read_sessions(since=h(5), until=h(9)))] == [
        "s2",
        "s3",
    ]
    assert [s.id for s in pair.ask(lambda x: x.read_sessions(ids=["s3", "s1", "zz"]))] == [
        "s1",
        "s3",
    ]
    assert pair.ask(lambda x: x.read_sessions(ids=[])) == []
    assert [s.id for s in pair.ask(lambda x: x.get_sessions(["s3", "zz", "s1"]))] == ["s3", "s1"]
    assert pair.ask(lambda x: x.get_sessions([])) == []
    assert pair.ask(lambda x: x.existing_session_ids(["s1", "s4", "nope"])) == {"s1", "s4"}
    assert pair.ask(lambda x: x.existing_session_ids([])) == set()


def test_counts_of_sessions(pair: Pair) -> None:
    _history(pair)
    assert pair.ask(lambda x: x.count_sessions()) == 4
    assert pair.ask(lambda x: x.count_sessions(until=h(5))) == 2
    assert pair.ask(lambda x: x.count_sessions(until=h(0))) == 0
    assert pair.ask(lambda x: x.count_mentioning_sessions(now=h(9))) == 3
    assert pair.ask(lambda x: x.count_mentioning_sessions(now=h(30))) == 3  # s4 mentions nothing
    assert pair.ask(lambda x: x.count_mentioning_sessions(now=h(4))) == 1
    assert pair.ask(lambda x: x.session_start_times(["s2", "zz", "s4"])) == {
        "s2": h(5),
        "s4": h(20),
    }


def test_rewriting_a_session_replaces_it(pair: Pair) -> None:
    _history(pair)
    pair.apply(ChangeSet(at=h(15), sessions=[(session("s1", 2, "Only one line now"), {"tea": 4})]))
    s1 = pair.ask(lambda x: x.get_sessions(["s1"]))[0]
    assert (s1.started_at, s1.text, s1.mentions) == (h(2), "Only one line now", {"Tea": 4})
    rows = {r["id"]: r for r in pair.ask(lambda x: x.all_sessions())}
    assert rows["s1"]["recorded_at"] == h(15)
    assert rows["s1"]["mentions"] == {"tea": 4}
    assert rows["s2"]["recorded_at"] == h(10)
    assert [(r.n, r.text) for r in pair.ask(lambda x: x.session_lines("s1"))] == [
        (1, "Only one line now")
    ]


def _sorted(rows: Any) -> Any:
    return sorted(rows)


def test_mention_counts_and_groups(pair: Pair) -> None:
    _history(pair)
    got = pair.ask(lambda x: x.mention_counts(now=h(9), start=h(1)), norm=_sorted)
    # hits: sessions in (start, now]; df: sessions up to now; last_mention: newest start.
    assert sorted((m.entity_id, m.name, m.hits, m.df, m.last_mention) for m in got) == [
        ("bob", "Bob", 0, 1, h(1)),
        ("kite", "Kite", 1, 2, h(9)),
        ("tea", "Tea", 2, 2, h(9)),
    ]
    got = pair.ask(lambda x: x.mention_counts(now=h(9), start=h(1), min_hits=2), norm=_sorted)
    assert [m.entity_id for m in got] == ["tea"]
    assert pair.ask(lambda x: x.mention_counts(now=h(0), start=h(-5))) == []
    groups = pair.ask(lambda x: x.mention_groups(now=h(9), start=h(1)), norm=_sorted)
    assert sorted(groups) == [(1, 2, 1), (2, 2, 1)]
    groups = pair.ask(lambda x: x.mention_groups(now=h(9), start=h(0)), norm=_sorted)
    assert sorted(groups) == [(1, 1, 1), (2, 2, 2)]


def _activity(rows: Any) -> Any:
    return sorted((*r[:5], tuple(sorted(r[5]))) for r in rows)


def test_fact_activity(pair: Pair) -> None:
    _history(pair)
    # At 12: f1 [1, -) and f2 [12, -) believed and started; f3 [0, 3) started but not valid.
    got = pair.ask(lambda x: x.fact_activity(now=h(12), with_texts=True), norm=_activity)
    assert _activity(got) == [
        ("bob", "Bob", True, h(12), 2, ("Bob likes kites.",)),
        ("kite", "Kite", True, h(11), 1, ("Bob likes kites.",)),
        ("tea", "Tea", False, h(12), 1, ()),
    ]
    got = pair.ask(lambda x: x.fact_activity(now=h(12), keep=()), norm=_activity)
    assert [(r.entity_id, r.statements) for r in sorted(got)] == [("bob", ()), ("kite", ())]
    # Before anything was recorded: nothing.
    assert pair.ask(lambda x: x.fact_activity(now=h(10))) == []
    got = pair.ask(lambda x: x.newest_activity(now=h(12), entity_ids={"tea", "kite", "zz"}))
    assert got == {"tea": h(12), "kite": h(11)}
    assert pair.ask(lambda x: x.newest_activity(now=h(12), entity_ids=set())) == {}
    # newest_activity after mention_counts (a store may cache what the counts read).
    pair.ask(lambda x: x.mention_counts(now=h(12), start=h(0)), norm=_sorted)
    got = pair.ask(lambda x: x.newest_activity(now=h(11.5), entity_ids={"tea", "kite", "bob"}))
    assert got == {"tea": h(11), "kite": h(11), "bob": h(11)}


def test_session_fact_ids(pair: Pair) -> None:
    _history(pair)
    assert sorted(pair.ask(lambda x: x.session_fact_ids("s1"), norm=sorted)) == ["f1", "f2"]
    assert pair.ask(lambda x: x.session_fact_ids("s3")) == []


ENTITIES = ["e0", "e1", "e2", "e3"]
_session = st.tuples(
    st.integers(0, 10),  # start hour
    st.dictionaries(st.sampled_from(ENTITIES), st.integers(1, 3), max_size=3),
)
_counter = itertools.count()


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    sessions=st.lists(_session, min_size=1, max_size=6),
    now=st.integers(0, 11),
    window=st.integers(0, 6),
)
def test_mention_aggregates_match_a_model(
    sessions: list[tuple[int, dict[str, int]]],
    now: int,
    window: int,
    location: str | None,
    opener: Any,
) -> None:
    n = next(_counter)
    s = opener(None if location is None else f"{location}_{n}")
    try:
        s.apply(
            ChangeSet(
                at=h(20),
                entities=[ent(e, e.upper()) for e in ENTITIES],
                sessions=[(session(f"s{i}", t, None), m) for i, (t, m) in enumerate(sessions)],
            )
        )
        start = now - window
        model: dict[str, list[int]] = {}
        for t, m in sessions:
            for e in m:
                if t <= now:
                    model.setdefault(e, []).append(t)
        want = sorted(
            (e, e.upper(), sum(1 for t in ts if t > start), len(ts), h(max(ts)))
            for e, ts in model.items()
        )
        got = sorted(tuple(m) for m in s.mention_counts(now=h(now), start=h(start)))
        assert got == want
        groups: dict[tuple[int, int], int] = {}
        for _, _, hits, df, _ in want:
            if hits:
                groups[(hits, df)] = groups.get((hits, df), 0) + 1
        assert sorted(s.mention_groups(now=h(now), start=h(start))) == sorted(
            (hits, df, k) for (hits, df), k in groups.items()
        )
        assert s.count_mentioning_sessions(now=h(now)) == sum(
            1 for t, m in sessions if m and t <= now
        )
        assert s.count_sessions(until=h(now)) == sum(1 for t, _ in sessions if t <= now)
    finally:
        s.close()
