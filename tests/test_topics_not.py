"""What is not a topic: the owner, a session's speakers; a topic without hits is never WARM.

See docs/concepts/hotness.md#what-is-a-topic.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.hotness import Band
from graphmem.timeutil import ManualClock
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
NAMES = ["Alice", "Bob", "Carol", "Kim", "Priya"]
TOPICS = ["Kuzu", "Redis", "Postgres", "Berlin", "Acme"]


def _open() -> gm.Memory:
    return backends.memory(clock=ManualClock("2026-06-10T12:00:00Z"))


def test_speakers_are_not_mentions_of_their_session() -> None:
    with _open() as mem:
        mem.add_session(
            "Alice: I work at Acme now.\nBob: Alice, Kuzu is fast.\nAlice: Bob, check Redis.",
            started_at="2026-06-09",
        )
        second = mem.add_session("Alice: Kuzu again.\nCarol: Redis too.", started_at="2026-06-10")
        assert set(second.mentions) == {"Kuzu", "Redis"}
        rows = mem.hot_topics()
        assert {"Kuzu", "Redis", "Acme"} <= {t.topic for t in rows if t.hits}
        # A speaker may be the subject of a fact ("I work at Acme", said by Alice): listed
        # then, but never mentioned, so cold and below every mentioned topic.
        for t in rows:
            if t.topic in ("Alice", "Bob", "Carol"):
                assert t.hits == 0
                assert t.band is Band.COLD


def test_a_speaker_named_by_another_session_is_a_mention_there() -> None:
    with _open() as mem:
        mem.add_session("Alice: Kuzu is fast.", started_at="2026-06-09")
        later = mem.add_session("We asked Alice about Kuzu.", started_at="2026-06-10")
        assert "Alice" in later.mentions


def test_the_owner_is_never_a_topic() -> None:
    with _open() as mem:
        mem.remember("I live in Paris.")
        mem.add_session("User: I prefer tea.", started_at="2026-06-10")
        mem.add_session(started_at="2026-06-10", mentions={"self": 2, "Kuzu": 1})
        assert "self" not in {t.topic for t in mem.hot_topics()}
        assert "self" not in {t.topic for t in mem.hot_topics(limit=1)}
        assert "self" not in {t.topic for t in mem.triage(limit=None)}
        assert "Kuzu" in {t.topic for t in mem.hot_topics()}


def test_a_topic_without_hits_is_cold_however_recent() -> None:
    with _open() as mem:
        mem.add_session(started_at="2026-06-10", mentions={"Kuzu": 1})
        mem.add_fact("jenkins", "runs_on", "Java")  # learned now: recency 1.0, score 0.4
        rows = {t.topic: t for t in mem.hot_topics()}
        assert rows["jenkins"].hits == 0
        assert rows["jenkins"].score == 0.4
        assert rows["jenkins"].band is Band.COLD
        assert rows["Kuzu"].band is Band.HOT


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    turns=st.lists(
        st.tuples(st.sampled_from(NAMES), st.lists(st.sampled_from(NAMES + TOPICS), max_size=4)),
        min_size=1,
        max_size=5,
    )
)
def test_no_speaker_is_a_mention_of_its_session(turns: list[tuple[str, list[str]]]) -> None:
    text = "\n".join(f"{who}: we talked about {', '.join(ws) or 'nothing'}." for who, ws in turns)
    speakers = {who for who, _ in turns}
    with _open() as mem:
        for n in range(2):  # the second time, every name is a known entity
            session = mem.add_session(text, started_at=f"2026-06-0{n + 1}")
            assert not set(session.mentions) & speakers
        for t in mem.hot_topics():
            assert t.topic not in speakers or t.hits == 0
            assert t.topic != "self"
            if t.hits == 0:
                assert t.band is Band.COLD
