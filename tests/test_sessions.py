"""Sessions, hotness and triage through the facade (graphmem.sessions, graphmem.topics)."""

from __future__ import annotations

import datetime as dt
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.errors import ClockError, InvalidInput, NotFound
from graphmem.hotness import Band, score_topics
from graphmem.sessions import (
    SessionWrite,
    add_sessions,
    get_session,
    mentions_in_text,
    session_count,
    session_facts,
)
from graphmem.sessions import triage as triage_of
from graphmem.store.base import Store
from graphmem.store.kuzu.sessions import COPY_MIN_SESSIONS
from graphmem.timeutil import ManualClock, to_utc
from graphmem.triage import Recommendation
from tests import backends

UTC = dt.timezone.utc
ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
NOW = to_utc("2026-03-01")


def day(n: float) -> dt.datetime:
    """``NOW`` shifted by ``n`` days."""
    return NOW + dt.timedelta(days=n)


def by_topic(rows: list) -> dict:  # type: ignore[type-arg]
    return {r.topic: r for r in rows}


# -- add_session ------------------------------------------------------------------------------


def test_add_session_returns_the_stored_session(mem: gm.Memory) -> None:
    s = mem.add_session(
        "We moved the API to Kubernetes.",
        started_at="2025-12-31T10:00:00Z",
        ended_at="2025-12-31T11:00:00Z",
        session_id="chat-1",
        title="infra sync",
        mentions={"Kubernetes": 2, "API": 1},
        source="slack",
        summary="k8s move",
    )
    assert isinstance(s, SessionWrite)
    assert isinstance(s.session, gm.Session)
    assert s.id == s.session.id == "chat-1"
    assert s.mentions == {"API": 1, "Kubernetes": 2}
    # "moved the API to Kubernetes" with nothing known: the relation the value's family implies
    assert [(r.fact.subject, r.fact.predicate, r.fact.object) for r in s.results if r.fact] == [
        ("API", "runs_on", "Kubernetes")
    ]
    assert mem.sessions() == [s.session]
    assert get_session(mem, "chat-1") == s.session
    assert (s.title, s.source, s.summary, s.text) == (
        "infra sync",
        "slack",
        "k8s move",
        "We moved the API to Kubernetes.",
    )
    assert s.ended_at == to_utc("2025-12-31T11:00:00Z")


def test_mentions_as_list_string_and_repeats(mem: gm.Memory) -> None:
    a = mem.add_session(started_at="2025-12-01", mentions=["Kuzu", "Paris", "kuzu"])
    b = mem.add_session(started_at="2025-12-02", mentions="Paris")
    c = mem.add_session(started_at="2025-12-03", mentions=[])
    d = mem.add_session(started_at="2025-12-04")
    assert a.mentions == {"Kuzu": 2, "Paris": 1}  # same entity: counts add up
    assert b.mentions == {"Paris": 1}
    assert c.mentions == d.mentions == {}
    assert len({a.id, b.id, c.id, d.id}) == 4  # fresh ids
    assert [s.id for s in mem.sessions()] == [a.id, b.id, c.id, d.id]
    assert [s.id for s in mem.sessions(since="2025-12-02", until="2025-12-03")] == [b.id, c.id]


def test_mentions_resolve_like_fact_subjects(mem: gm.Memory) -> None:
    mem.define_entity("Kubernetes", kind="tool", aliases=["k8s"])
    mem.add_fact("Kubernetes", "version", "1.30")
    s = mem.add_session(started_at="2025-12-20", mentions={"K8S": 1, "  kubernetes ": 2})
    assert s.mentions == {"Kubernetes": 3}
    [topic] = mem.hot_topics(now="2026-01-01")
    assert topic.topic == "Kubernetes"
    assert topic.hits == 1


def test_readding_a_session_replaces_its_mentions(mem: gm.Memory) -> None:
    first = mem.add_session(started_at="2025-12-01", session_id="s1", mentions=["a", "b"])
    again = mem.add_session(started_at="2025-12-02", session_id="s1", mentions={"c": 3})
    same = mem.add_session(started_at="2025-12-02", session_id="s1", mentions={"c": 3})
    assert first.mentions == {"a": 1, "b": 1}
    assert again == same
    assert mem.sessions() == [again.session]
    assert session_count(mem) == 1
    assert [t.topic for t in mem.hot_topics(now="2026-01-01")] == ["c"]


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"started_at": dt.datetime(2026, 1, 1)}, "naive"),
        ({"started_at": "someday"}, "started_at"),
        ({"started_at": "2026-01-02", "ended_at": "2026-01-01"}, "before started_at"),
        ({"started_at": "2026-01-01", "mentions": {"a": 0}}, "positive int"),
        ({"started_at": "2026-01-01", "mentions": {"a": True}}, "positive int"),
        ({"started_at": "2026-01-01", "mentions": {"a": 1.5}}, "positive int"),
        ({"started_at": "2026-01-01", "mentions": 3}, "list of names"),
        ({"started_at": "2026-01-01", "mentions": ["ok", " "]}, "empty"),
        ({"started_at": "2026-01-01", "session_id": "  "}, "blank"),
        ({"started_at": "2026-01-01", "title": 7}, "title"),
    ],
)
def test_bad_session_input_is_rejected_and_nothing_written(
    mem: gm.Memory, kwargs: dict[str, object], match: str
) -> None:
    with pytest.raises(InvalidInput, match=match):
        mem.add_session(**kwargs)  # type: ignore[arg-type]
    assert mem.sessions() == []
    assert mem.hot_topics(now="2026-02-01") == []


def test_bulk_with_one_bad_item_writes_nothing(mem: gm.Memory) -> None:
    good = {"started_at": "2025-12-01", "mentions": ["a"]}
    with pytest.raises(InvalidInput, match=r"sessions\[1\]\.mentions"):
        add_sessions(mem, [good, {"started_at": "2025-12-01", "mentions": {"b": -1}}])
    with pytest.raises(InvalidInput, match=r"sessions\[0\]\.*unknown field"):
        add_sessions(mem, [{"started_at": "2025-12-01", "topic": "x"}])
    with pytest.raises(InvalidInput, match=r"sessions\[0\]=.*neither"):
        add_sessions(mem, ["not a session"])  # type: ignore[list-item]
    with pytest.raises(InvalidInput, match="started_at is missing"):
        add_sessions(mem, [{"mentions": ["a"]}])
    assert mem.sessions() == []
    assert add_sessions(mem, []) == []


def test_session_writes_go_through_the_clock_check(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-01-10")
    mem.add_session(started_at="2026-01-09", mentions=["a"])
    clock.set("2026-01-05")
    with pytest.raises(ClockError):
        mem.add_session(started_at="2026-01-04", mentions=["b"])
    with pytest.raises(ClockError):  # a session write moves system time forward for facts too
        mem.add_fact("a", "status", "ok")
    assert [s.mentions for s in mem.sessions()] == [{"a": 1}]


def test_text_fallback_mentions_known_entities_and_named_topics(mem: gm.Memory) -> None:
    mem.add_fact("New York", "located_in", "USA")
    mem.define_entity("Kubernetes", aliases=["k8s"])
    s = mem.add_session(
        "Moved k8s to New York, new york! The plan is cheap.", started_at="2025-12-01"
    )
    assert s.mentions == {"Kubernetes": 1, "New York": 2}  # not "Moved", not "The"
    s = mem.add_session(
        "Yesterday Alice presented the Kuzu benchmark to Globex. Globex liked it.",
        started_at="2025-12-01",
    )
    assert s.mentions == {"Alice": 1, "Globex": 2, "Kuzu": 1}
    none = mem.add_session("New York again", started_at="2025-12-02", mentions=[])
    assert none.mentions == {}
    assert mentions_in_text(mem, "nothing here, 2026 a") == {}
    with pytest.raises(InvalidInput):
        mentions_in_text(mem, 42)  # type: ignore[arg-type]


class _Commits:
    """Records the change sets a memory's store is asked to commit; fails them when told."""

    def __init__(self, mem: gm.Memory, monkeypatch: pytest.MonkeyPatch, *, fail: bool) -> None:
        store = mem._kernel.store
        self.changes: list[Any] = []
        real = store.apply

        def apply(changes: Any) -> Any:
            self.changes.append(changes)
            if fail:
                raise OSError("disk full")
            return real(changes)

        monkeypatch.setattr(store, "apply", apply)


def test_a_session_and_its_facts_are_one_change_set(
    mem: gm.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/concepts/text.md#one-write: the claims' facts and the session commit together."""
    commits = _Commits(mem, monkeypatch, fail=False)
    w = mem.add_session("Alice joined Globex.", started_at="2025-12-31", session_id="s1")
    [changes] = commits.changes
    assert [s.id for s, _ in changes.sessions] == ["s1"]
    assert [(f.subject, f.predicate, f.object) for _, _, f in changes.inserts] == [
        ("Alice", "works_at", "Globex")
    ]
    assert [r.fact.id for r in w.results] == [f.id for _, _, f in changes.inserts]
    commits.changes.clear()
    add_sessions(mem, [{"text": "Bob joined Initech.", "started_at": "2025-12-30"}] * 2)
    mem.remember("Carol lives in Oslo. Nice weather today.")
    mem.ingest_text("Dan works at Umbrella.")
    assert len(commits.changes) == 3  # one change set per public write


def test_a_failing_commit_leaves_neither_the_session_nor_its_facts(
    mem: gm.Memory, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as patch:
        commits = _Commits(mem, patch, fail=True)
        with pytest.raises(OSError, match="disk full"):
            mem.add_session(
                "Alice joined Globex; she uses the frobnicate tool.",
                started_at="2025-12-31",
                session_id="s1",
            )
        [changes] = commits.changes
        assert changes.sessions
        assert changes.inserts
    assert mem.sessions() == []
    assert mem.facts() == []
    with pytest.raises(NotFound):
        get_session(mem, "s1")
    # nothing half-remembered by the kernel either: the write is whole when it is redone
    w = mem.add_session("Alice joined Globex.", started_at="2025-12-31", session_id="s1")
    assert [(f.subject, f.object) for f in session_facts(mem, "s1")] == [("Alice", "Globex")]
    assert [r.decision.value for r in w.results] == ["add"]


def test_facts_with_a_session_source_link_to_it(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_session(started_at="2025-12-31", session_id="s1", mentions=["api"])
    mem.add_fact("api", "runs_on", "Laravel", source="s1", valid_from="2024-01-01")
    mem.add_fact("api", "owner", "Alice", source="s1")
    mem.add_fact("api", "region", "eu", source="s2")
    clock.advance(days=1)
    mem.add_fact("api", "runs_on", "Go", source="s2")  # ends the s1 version
    current = session_facts(mem, "s1")
    assert sorted((f.predicate, f.object) for f in current) == [
        ("owner", "Alice"),
        ("runs_on", "Laravel"),  # the capped version keeps its provenance
    ]
    assert {f.object: f.valid_to for f in current}["Laravel"] == to_utc("2026-01-02")
    every = session_facts(mem, "s1", include_expired=True)
    assert len(every) == 3
    assert [f.valid_to for f in every if not f.is_current] == [None]  # the version it closed
    assert {f.source for f in every} == {"s1"}
    assert [f.object for f in session_facts(mem, "s2") if f.predicate == "region"] == ["eu"]
    with pytest.raises(NotFound):
        session_facts(mem, "nope")
    with pytest.raises(NotFound):
        get_session(mem, "nope")


def test_bulk_sessions_use_copy_and_replace_like_single_writes(mem: gm.Memory) -> None:
    mem.add_session(started_at="2025-01-01", session_id="b0", mentions=["old"])
    n = COPY_MIN_SESSIONS + 8
    rows: list[dict[str, object] | gm.Session] = [
        {
            "session_id": f"b{i}",
            "started_at": f"2025-02-{i % 28 + 1:02d}",
            "mentions": [f"t{i % 5}"],
        }
        for i in range(n)
    ]
    rows.append({"session_id": "b1", "started_at": "2025-03-01", "mentions": {"Last": 2}})
    rows.append(gm.Session(id="m1", started_at=to_utc("2025-03-02"), mentions={"Model": 1}))
    out = add_sessions(mem, rows)
    assert len(out) == n + 2
    stored = {s.id: s for s in mem.sessions()}
    assert len(stored) == n + 1
    assert stored["b0"].mentions == {"t0": 1}  # replaced an existing session
    assert stored["b1"].mentions == {"Last": 2}  # the later duplicate wins
    assert stored["m1"].mentions == {"Model": 1}
    assert stored["b7"] == out[7]
    hits = {t.topic: t.hits for t in mem.hot_topics(now="2025-03-03", window_days=365)}
    assert "old" not in hits
    assert hits["t2"] == len([i for i in range(n) if i % 5 == 2])


# -- hot_topics -------------------------------------------------------------------------------


def _sessions(mem: gm.Memory, spec: Sequence[tuple[float, list[str]]]) -> None:
    add_sessions(mem, [{"started_at": day(d), "mentions": names} for d, names in spec])


def test_hot_topics_bands_and_components(mem: gm.Memory) -> None:
    _sessions(
        mem,
        [
            (-1, ["alpha"]),
            (-2, ["alpha"]),
            (-3, ["alpha"]),
            (-4, ["alpha"]),
            (-29, ["beta"]),
            (-50, ["gamma"]),
            (1, ["future"]),
        ],
    )
    scores = mem.hot_topics(now=NOW)
    assert [s.topic for s in scores] == ["alpha", "beta", "gamma"]  # future: not yet
    s = by_topic(scores)
    assert (s["alpha"].hits, s["beta"].hits, s["gamma"].hits) == (4, 1, 0)
    assert s["alpha"].band is Band.HOT
    assert s["alpha"].score == pytest.approx(0.6 + 0.4 * (1 - 1 / 60))
    assert s["beta"].band is Band.WARM
    assert s["beta"].age_days == pytest.approx(29)
    assert s["gamma"].band is Band.COLD
    assert s["gamma"].age_days == pytest.approx(50)  # old mentions count for age, not hits
    assert mem.hot_topics(now=NOW, limit=1)[0].topic == "alpha"
    assert [t.hits for t in mem.hot_topics(now=NOW, window_days=60)] == [4, 1, 1]


def test_a_recent_fact_refreshes_a_topic(mem: gm.Memory, clock: ManualClock) -> None:
    _sessions(mem, [(-50, ["gamma"]), (-1, ["alpha"])])
    assert by_topic(mem.hot_topics(now=NOW))["gamma"].band is Band.COLD
    clock.set(day(-2))
    mem.add_fact("gamma", "status", "revived", valid_from=day(-30))
    clock.set(day(-1))
    mem.add_fact("delta", "status", "new", valid_from=day(5))  # not started by NOW
    g = by_topic(mem.hot_topics(now=NOW))
    assert g["gamma"].age_days == pytest.approx(2)  # recorded 2 days ago, valid for 30
    assert g["gamma"].score > by_topic(mem.hot_topics(now=day(-3)))["gamma"].score
    # docs/concepts/hotness.md#what-is-a-topic: the fact refreshes its recency, but a topic
    # with no hits in the window stays COLD
    assert g["gamma"].band is Band.COLD
    assert g["gamma"].hits == 0
    assert "delta" not in g
    assert "revived" not in g  # objects are not topics of their own
    assert by_topic(mem.hot_topics(now=day(6)))["delta"].age_days == pytest.approx(1)


def test_idf_ranks_a_specific_topic_above_a_common_word(mem: gm.Memory) -> None:
    # "thing" is said in every session; "kuzu" is what this month is actually about.
    spec = [(-d, ["thing"]) for d in range(1, 21)]
    spec += [(-d, ["thing", "kuzu"]) for d in range(1, 8)]
    spec += [(-(40 + d), ["thing"]) for d in range(5)]
    _sessions(mem, spec)
    plain = mem.hot_topics(now=NOW)
    idf = mem.hot_topics(now=NOW, weighting="idf")
    assert [t.topic for t in plain] == ["thing", "kuzu"]
    assert [t.topic for t in idf] == ["kuzu", "thing"]
    p, w = by_topic(plain), by_topic(idf)
    assert w["thing"].idf == 0.0
    assert w["thing"].band is Band.WARM  # not falsely hot
    assert w["kuzu"].band is Band.HOT
    for topic in ("thing", "kuzu"):  # both scores, side by side, either way
        assert (p[topic].plain_score, p[topic].idf_score) == (
            w[topic].plain_score,
            w[topic].idf_score,
        )


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"window_days": 0}, "window_days"),
        ({"window_days": float("nan")}, "window_days"),
        ({"weighting": "tfidf"}, "weighting"),
        ({"limit": -1}, "limit"),
        ({"now": dt.datetime(2026, 1, 1)}, "naive"),
    ],
)
def test_hot_topics_rejects_bad_arguments(
    mem: gm.Memory, kwargs: dict[str, object], match: str
) -> None:
    mem.add_session(started_at="2025-12-01", mentions=["a"])
    with pytest.raises(InvalidInput, match=match):
        mem.hot_topics(**kwargs)  # type: ignore[arg-type]


def test_window_reaching_before_year_one_covers_everything(mem: gm.Memory) -> None:
    mem.add_session(started_at="2025-12-01", mentions=["a"])
    [t] = mem.hot_topics(now="2026-01-01", window_days=1e9)
    assert t.hits == 1


def test_hot_topics_equals_the_pure_scoring_of_raw_rows(mem: gm.Memory, clock: ManualClock) -> None:
    """The store's aggregation equals score_topics over every raw mention and fact version."""
    _sessions(mem, [(-d, ["a", "b"] if d % 3 else ["c"]) for d in range(0, 70, 4)])
    for i, (subject, obj) in enumerate(
        [("a", "x"), ("b", "y"), ("a", "z"), ("d", "a"), ("e", "f"), ("b", "x")]
    ):
        clock.set(day(-55 + 9 * i))
        mem.add_fact(subject, "status", obj, valid_from=day(-80 + 15 * i))
    clock.set(day(1))
    mem.add_fact("e", "status", "g", valid_from=day(3))
    versions = [f for s in "abcde" for f in mem.history(s, include_expired=True)]
    subjects = {f.subject for f in versions}
    for at in (day(-30), NOW, day(2), day(4)):
        mentioned = {n for s in mem.sessions(until=at) for n in s.mentions}
        rows = [(n, s.id, s.started_at, c) for s in mem.sessions() for n, c in s.mentions.items()]
        known = [f for f in versions if f.known_at(at) and f.valid_from <= at]
        seen = [(f.subject, max(f.recorded_at, f.valid_from)) for f in known]
        seen += [
            (f.object, max(f.recorded_at, f.valid_from))
            for f in known
            if f.object in mentioned or f.object in {k.subject for k in known}
        ]
        for weighting in ("plain", "idf"):
            expected = score_topics(rows, now=at, last_seen=seen, weighting=weighting)
            assert mem.hot_topics(now=at, weighting=weighting) == expected, (at, weighting)
    assert subjects  # the scenario has facts


# -- as of a past date --------------------------------------------------------------------------

TOPICS = ["Alpha", "Beta", "Gamma", "Delta"]
BASE = to_utc("2026-01-01")

event = st.one_of(
    st.tuples(
        st.just("session"),
        st.integers(0, 24 * 10),  # hours the session happened before it was recorded
        st.lists(st.sampled_from(TOPICS), min_size=1, max_size=3),
    ),
    st.tuples(
        st.just("fact"),
        st.integers(-24 * 10, 24 * 10),  # valid_from relative to the write
        st.tuples(st.sampled_from(TOPICS), st.sampled_from(["on", "off", "Gamma"])),
    ),
)


def _replay(
    events: list[tuple[int, Any]], keep: Callable[[str, dt.datetime, int], bool]
) -> gm.Memory:
    clock = ManualClock(BASE)
    mem = backends.memory(clock=clock)
    for hours, (kind, offset, payload) in events:
        at = BASE + dt.timedelta(hours=hours)
        if not keep(kind, at, offset):
            continue
        clock.set(at)
        if kind == "session":
            mem.add_session(started_at=at - dt.timedelta(hours=offset), mentions=payload)
        else:
            subject, obj = payload
            mem.add_fact(subject, "status", obj, valid_from=at + dt.timedelta(hours=offset))
    return mem


@settings(max_examples=20, deadline=None)
@given(
    gaps=st.lists(st.integers(1, 24 * 6), min_size=1, max_size=12),
    events=st.lists(event, min_size=1, max_size=12),
    cut=st.integers(0, 24 * 60),
)
def test_hotness_as_of_a_past_date_equals_hotness_computed_then(
    gaps: list[int],
    events: list[Any],
    cut: int,
) -> None:
    hours = 0
    timeline = []
    for gap, ev in zip(gaps * len(events), events, strict=False):
        hours += gap
        timeline.append((hours, ev))
    at = BASE + dt.timedelta(hours=cut)

    def upto(kind: str, written: dt.datetime, offset: int) -> bool:
        # What existed at `at`: sessions that had started, facts that had been recorded.
        if kind == "session":
            return written - dt.timedelta(hours=offset) <= at
        return written <= at

    with _replay(timeline, lambda *_: True) as full, _replay(timeline, upto) as then:
        for weighting in ("plain", "idf"):
            assert full.hot_topics(now=at, weighting=weighting) == then.hot_topics(
                now=at, weighting=weighting
            )
        assert full.triage(now=at, limit=None) == then.triage(now=at, limit=None)


# -- triage -----------------------------------------------------------------------------------


def _triage_scenario(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-01-02")
    mem.add_fact("old project", "status", "shipped")  # stale, never mentioned: ARCHIVE
    clock.set(day(-45))
    mem.add_fact("billing", "provider", "Stripe")
    _sessions(mem, [(-44, ["billing"]), (-42, ["billing"]), (-40, ["billing"])])  # UPDATE
    clock.set(day(-2))
    mem.add_fact("kuzu", "note", "pin", statement="Always pin kuzu to 0.11.3")
    mem.add_facts([{"subject": "logs", "predicate": "line", "object": f"l{i}"} for i in range(301)])
    _sessions(mem, [(-1, ["kuzu"]), (-3, ["kuzu"]), (-1, ["logs"])])


def test_triage_recommends_archive_prune_update_keep(mem: gm.Memory, clock: ManualClock) -> None:
    mem.define_predicate("line", cardinality="many")
    _triage_scenario(mem, clock)
    # billing's sessions are 40-44 days old: outside the default 30-day lookback window they
    # do not recur; inside a 60-day one they do, and it was not mentioned lately: UPDATE.
    default = {t.topic: t for t in mem.triage(now=NOW, limit=None)}
    assert default["billing"].n_sessions == 0
    assert default["billing"].recommendation is Recommendation.KEEP
    result = mem.triage(now=NOW, limit=None, window_days=60)
    got = {t.topic: t for t in result}
    assert got["old project"].recommendation is Recommendation.ARCHIVE
    assert got["billing"].recommendation is Recommendation.UPDATE
    assert got["logs"].recommendation is Recommendation.PRUNE
    assert got["kuzu"].recommendation is Recommendation.KEEP
    assert got["logs"].n_facts == 301
    assert got["kuzu"].actionability == 1.0
    assert got["billing"].n_sessions == 3
    assert got["billing"].days_since_last == pytest.approx(40)
    assert got["old project"].days_since_last is None
    assert all(t.reason for t in result)
    assert result[-1].recommendation is Recommendation.KEEP  # attention first
    assert len(mem.triage(now=NOW)) == 4  # all four fit in the default limit of 5
    assert len(mem.triage(now=NOW, limit=2)) == 2
    assert {t.topic for t in mem.triage(now=NOW, limit=2)} == {"old project", "logs"}
    attention = triage_of(mem, now=NOW, limit=None, attention_only=True, window_days=60)
    assert {t.topic for t in attention} == {"old project", "billing", "logs"}


def test_triage_never_changes_data(mem: gm.Memory, mem_store: Store, clock: ManualClock) -> None:
    mem.define_predicate("line", cardinality="many")
    _triage_scenario(mem, clock)
    before = (
        mem.count_versions(),
        mem.sessions(),
        mem.history("kuzu", include_expired=True),
        mem_store.max_system_time(),
    )
    first = mem.triage(now=NOW, limit=None)
    mem.hot_topics(now=NOW)
    assert mem.triage(now=NOW, limit=None) == first
    after = (
        mem.count_versions(),
        mem.sessions(),
        mem.history("kuzu", include_expired=True),
        mem_store.max_system_time(),
    )
    assert before == after


def test_triage_rejects_a_bad_limit(mem: gm.Memory) -> None:
    with pytest.raises(InvalidInput, match="limit"):
        mem.triage(limit=-2)


# -- performance --------------------------------------------------------------------------------


@pytest.mark.bench
def test_bench_10k_sessions_over_1k_topics(capsys: pytest.CaptureFixture[str]) -> None:
    """hot_topics and triage at 10,000 sessions over 1,000 topics (pytest -m bench -s)."""
    import random

    rng = random.Random(7)
    n_topics, n_sessions = 1_000, 10_000
    clock = ManualClock("2026-05-01")
    with backends.memory(clock=clock) as mem:
        facts = [
            {
                "subject": f"topic {i}",
                "predicate": "note",
                "object": f"fact {i}-{k}",
                "statement": rng.choice(["Always pin it", "a plain note"]),
                "valid_from": BASE + dt.timedelta(days=rng.randrange(120)),
            }
            for i in range(n_topics)
            for k in range(2)
        ]
        mem.add_facts(facts)
        weights = [1 / (i + 1) for i in range(n_topics)]  # Zipf-like topic popularity
        rows = [
            {
                "session_id": f"s{i}",
                "started_at": BASE + dt.timedelta(minutes=17 * i),
                "mentions": {
                    f"topic {t}": rng.randint(1, 3)
                    for t in set(rng.choices(range(n_topics), weights=weights, k=4))
                },
            }
            for i in range(n_sessions)
        ]
        clock.set("2026-06-01")
        t0 = time.perf_counter()
        add_sessions(mem, rows)
        load = time.perf_counter() - t0
        t0 = time.perf_counter()
        for i in range(20):
            mem.add_session(started_at=BASE, mentions=[f"topic {i}", "topic 1"])
        single = (time.perf_counter() - t0) / 20
        assert session_count(mem) == n_sessions + 20

        def timed(fn: Callable[[], object]) -> tuple[float, float]:
            runs = []
            for _ in range(9):
                t = time.perf_counter()
                fn()
                runs.append(time.perf_counter() - t)
            runs.sort()
            return runs[0], runs[len(runs) // 2]  # best (intrinsic cost) and median

        now = to_utc("2026-06-01")
        hot = timed(lambda: mem.hot_topics(now=now))
        hot_idf = timed(lambda: mem.hot_topics(now=now, weighting="idf", limit=10))
        tri = timed(lambda: mem.triage(now=now))
        assert len(mem.hot_topics(now=now)) == n_topics

    def ms(pair: tuple[float, float]) -> str:
        return f"{pair[0] * 1000:.0f} ms (median {pair[1] * 1000:.0f})"

    with capsys.disabled():
        print(
            f"\n[{ENGINE}] bulk load {n_sessions} sessions: {load:.2f} s; add_session "
            f"{single * 1000:.1f} ms; hot_topics {ms(hot)}; idf {ms(hot_idf)}; triage {ms(tri)}"
        )


# -- a blank session text is refused (docs/api.md: errors name the value and the fix) -----------


@pytest.mark.parametrize("text", ["", " ", "\n\t \n", "\u3000", " " * 50])
def test_a_blank_session_text_is_refused_and_nothing_written(mem: gm.Memory, text: str) -> None:
    with pytest.raises(InvalidInput, match=r"text=.* is blank: .*pass the text") as err:
        mem.add_session(text, started_at="2026-06-01")
    assert ("whitespace characters" in str(err.value)) == (len(text) > 20)
    with pytest.raises(InvalidInput, match=r"sessions\[1\]\.text=.* is blank"):
        mem.add_sessions(
            [
                {"text": "We moved the API to Go.", "started_at": "2026-06-01"},
                {"text": text, "started_at": "2026-06-02"},
            ]
        )
    assert mem.sessions() == []
    assert mem.count_versions() == 0


@settings(max_examples=30, deadline=None)
@given(text=st.text(alphabet=st.sampled_from(" \t\n\r\x0b\x0c\u00a0\u2003\u3000"), max_size=40))
def test_any_whitespace_only_text_is_refused(text: str) -> None:
    with backends.memory(clock=ManualClock("2026-06-10")) as mem:
        with pytest.raises(InvalidInput, match="is blank"):
            mem.add_session(text, started_at="2026-06-01")
        assert mem.sessions() == []


def test_topic_groups_forget_a_purged_entity() -> None:
    """A purged entity is no topic of the groups hotness reads.

    Kuzu 0.11.3's DETACH DELETE left a mention of it behind, which a count reading nothing of
    the node still counted (docs/concepts/storage.md#purged-group).
    """
    from graphmem.models import Entity, Session
    from graphmem.store import open_store
    from graphmem.store.base import ChangeSet, Purge

    def at(hour: int) -> dt.datetime:
        return dt.datetime(2026, 1, 1, hour, tzinfo=dt.timezone.utc)

    url = backends.falkordb_url() if backends.on_falkordb() else None
    store = open_store(url, engine=None if url else os.environ.get("GRAPHMEM_ENGINE", "kuzu"))
    try:
        names = {"e0": "alpha alpha alpha", "e1": "Alpha Alpha Beta", "e2": "alpha alpha run"}
        store.apply(ChangeSet(at=at(0), entities=[Entity(id=i, name=n) for i, n in names.items()]))
        store.apply(
            ChangeSet(
                at=at(2),
                sessions=[
                    (Session(id="s3", started_at=at(5)), {"e0": 2, "e1": 2}),
                    (Session(id="s0", started_at=at(0)), {"e1": 1, "e0": 1, "e2": 1}),
                ],
            )
        )
        store.apply(ChangeSet(at=at(3), sessions=[(Session(id="s3", started_at=at(0)), {})]))
        purge = Purge(entity_id="e1", names=["Alpha Alpha Beta"], audit_id="p1", detail={})
        store.apply(ChangeSet(at=at(6), purge=purge))
        groups = store.mention_groups(now=at(1), start=at(1) - dt.timedelta(hours=3))
        assert [(g.hits, g.df, g.n_topics) for g in groups] == [(1, 1, 2)]
        assert store.loose_mentions() == 0  # no edge into the deleted node is left
    finally:
        store.close()
