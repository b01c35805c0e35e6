"""Free-text memories: ``Memory.remember`` (docs/concepts/decisions.md#rule-5) end to end."""

from __future__ import annotations

import datetime as dt
import os
import statistics
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.admission import AdmissionPolicy
from graphmem.contradiction import normalize_text
from graphmem.remember import DEFAULT_SUBJECT
from graphmem.similarity import EmbeddingSimilarity, text_similarity
from graphmem.timeutil import ManualClock
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")

D = gm.Decision


def notes(mem, subject=DEFAULT_SUBJECT, **kw):
    return sorted(f.statement for f in mem.facts(subject=subject, predicate="note", **kw))


def test_add_then_noop_reinforces(mem, clock):
    first = mem.remember("The weekly demo happens after lunch", subject="api")
    assert first.decision is D.ADD
    assert (first.fact.predicate, first.fact.object) == (
        "note",
        "The weekly demo happens after lunch",
    )
    assert first.fact.kind == "insight"
    assert first.fact.statement == first.fact.object
    clock.advance(days=1)
    again = mem.remember("the weekly demo happens after lunch!", subject="API")
    assert again.decision is D.NOOP
    assert again.fact.id == first.fact.id
    assert again.fact.access_count == 1
    assert again.fact.last_accessed_at == clock()
    (stored,) = mem.facts(subject="api", predicate="note")
    assert stored.access_count == 1
    assert mem.count_versions() == 1


def test_supersede_replaces_the_nearest_note_and_keeps_its_past(mem, clock):
    old = mem.remember(
        "the weekly demo happens after lunch",
        subject="api",
        source="s-1",
        similarity=text_similarity,
    )
    clock.set("2026-03-01")
    new = mem.remember(
        "the weekly demo happened after lunch",
        subject="api",
        source="s-2",
        similarity=text_similarity,
    )
    assert new.decision is D.SUPERSEDE
    (closed,) = new.superseded
    assert closed.id == old.fact.id
    assert closed.superseded_by == new.fact.id
    assert closed.reason.startswith("superseded by note 'the weekly demo happened after lunch'")
    assert "similarity 0.97" in closed.reason
    assert "from session s-2" in closed.reason
    assert notes(mem, "api") == ["the weekly demo happened after lunch"]
    # Its past is kept in valid time; what we believed before is unchanged.
    assert notes(mem, "api", valid_at="2026-02-01") == ["the weekly demo happens after lunch"]
    assert notes(mem, "api", valid_at="2026-02-01", known_at="2026-02-01") == [
        "the weekly demo happens after lunch"
    ]


def test_invalidate_ends_the_note_without_storing_the_negation(mem, clock):
    mem.remember("the weekly demo happens after lunch", subject="api")
    clock.set("2026-05-01")
    r = mem.remember("The weekly demo no longer happens after lunch", subject="api")
    assert r.decision is D.INVALIDATE
    assert r.fact.valid_to == clock()
    assert r.fact.statement == "the weekly demo happens after lunch"
    assert "negated by 'The weekly demo no longer happens after lunch'" in r.superseded[0].reason
    assert notes(mem, "api") == []
    assert notes(mem, "api", valid_at="2026-04-01") == ["the weekly demo happens after lunch"]
    every = mem.history("api", include_expired=True)
    assert all("no longer" not in f.object for f in every)
    # Re-asserting it later opens a new interval (the ended note is not a candidate).
    clock.set("2026-07-01")
    assert mem.remember("the weekly demo happens after lunch", subject="api").decision is D.ADD
    assert notes(mem, "api") == ["the weekly demo happens after lunch"]


def test_invalidate_at_the_notes_start_closes_it_without_replacement(mem):
    mem.remember("Alice lives in Paris", subject="alice")
    r = mem.remember("Alice doesn't live in Paris anymore", subject="alice")
    assert r.decision is D.INVALIDATE
    assert r.fact is None
    assert mem.history("alice") == []


def test_negation_at_a_past_time(mem, clock):
    mem.remember("the weekly demo happens after lunch", subject="api", at="2025-01-01")
    clock.set("2026-06-01")
    r = mem.remember(
        "the weekly demo no longer happens after lunch", subject="api", at="2026-03-01"
    )
    assert r.decision is D.INVALIDATE
    assert r.fact.valid_to == gm.to_utc("2026-03-01")
    assert notes(mem, "api", valid_at="2026-02-01") == ["the weekly demo happens after lunch"]
    assert notes(mem, "api", valid_at="2026-04-01") == []


def test_unrelated_note_is_added_next_to_the_others(mem):
    mem.remember("the weekly demo happens after lunch", subject="api")
    r = mem.remember("the release train leaves on Tuesdays", subject="api")
    assert r.decision is D.ADD
    assert r.superseded == ()
    assert notes(mem, "api") == [
        "the release train leaves on Tuesdays",
        "the weekly demo happens after lunch",
    ]


def test_default_subject_is_the_unnamed_scope(mem):
    r = mem.remember("The user wants answers in bullet points")
    assert r.fact.subject == DEFAULT_SUBJECT == "self"
    assert notes(mem) == ["The user wants answers in bullet points"]


def test_candidates_are_only_the_same_subjects_notes(mem):
    for s in ("api", "web", "worker"):
        mem.remember("the weekly demo happens after lunch", subject=s)
    mem.add_fact(
        "api", "deploys_with", "Docker Compose", statement="the weekly demo happens after lunch"
    )
    r = mem.remember("the weekly demo no longer happens after lunch", subject="api")
    assert r.decision is D.INVALIDATE
    assert len(r.superseded) == 1
    assert r.superseded[0].predicate == "note"
    assert notes(mem, "web") == notes(mem, "worker") == ["the weekly demo happens after lunch"]
    assert [f.object for f in mem.facts(subject="api", predicate="deploys_with")] == [
        "Docker Compose"
    ]


def test_source_ref_identity(mem, clock):
    a = mem.remember("Release 1.2 fixes the login bug", subject="app", source_ref="rel-1.2")
    b = mem.remember("Release 1.3 fixes the login bug", subject="app", source_ref="rel-1.3")
    assert b.decision is D.ADD  # a different ref stays separate, however similar
    clock.advance(days=1)
    c = mem.remember(
        "Release 1.2 fixes the login and signup bugs", subject="app", source_ref="rel-1.2"
    )
    assert c.decision is D.SUPERSEDE
    assert c.superseded[0].id == a.fact.id
    assert "through source_ref 'rel-1.2'" in c.superseded[0].reason
    d = mem.remember(
        "release 1.2 fixes the login and signup bugs.", subject="app", source_ref="rel-1.2"
    )
    assert d.decision is D.NOOP
    assert d.fact.id == c.fact.id
    assert len(notes(mem, "app")) == 2
    assert b.fact.id in {f.id for f in mem.facts(subject="app")}


def test_long_texts(mem, clock):
    text = "Runbook step: " + " ".join(f"word{i}" for i in range(1200))
    assert len(text) > 5000
    r = mem.remember(text, subject="ops")
    assert r.decision is D.ADD
    assert r.fact.statement == text
    clock.advance(hours=1)
    assert mem.remember(text + ".", subject="ops").decision is D.NOOP
    (stored,) = mem.facts(subject="ops")
    assert stored.object == text
    assert stored.access_count == 1
    negated = "No longer true: " + text
    assert mem.remember(negated, subject="ops").decision is D.INVALIDATE


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "text='' is empty"),
        ("   ", "is empty"),
        (42, "text=42 is empty or not a string"),
        ("ok", "at least 3"),
    ],
)
def test_bad_text_writes_nothing(mem, text, match):
    with pytest.raises(gm.InvalidInput, match=match):
        mem.remember(text)
    assert mem.count_versions() == 0


def test_short_unread_line_is_kept_with_its_text(mem):
    """A line too short to be a note alone ("ty") does not fail the text that holds it."""
    text = "[13:01] ade: the staging bastion IP is 10.20.0.5\n[13:02] kim: ty"
    mem.remember(text, at="2025-10-20")
    notes = [f.object for f in mem.facts(predicate="note")]
    assert len(notes) == 1
    assert "kim: ty" in notes[0]
    assert any(f.object == "10.20.0.5" for f in mem.facts() if f.predicate != "note")


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(["ty", "ok", "lol", "Our queue is SQS.", "We moved to Go.", "k", "👍"]),
        min_size=1,
        max_size=5,
    )
)
def test_text_that_passes_admission_is_written(lines):
    text = "\n".join(lines)
    with backends.memory() as mem:
        if len(text.strip()) < mem.admission.min_statement_chars:
            return
        mem.remember(text, at="2025-10-20")
        kept = " ".join(f.statement or "" for f in mem.facts())
        assert all(line in kept for line in lines)


def test_bad_arguments_write_nothing(mem):
    with pytest.raises(gm.InvalidInput, match="x" * 10):
        mem.remember("x" * 10_001)
    with pytest.raises(gm.InvalidInput, match="kind='opinion'"):
        mem.remember("some opinion here", kind="opinion")
    with pytest.raises(gm.InvalidInput, match="at='someday'"):
        mem.remember("some opinion here", at="someday")
    assert mem.count_versions() == 0


def test_kind_importance_and_source_type(mem):
    r = mem.remember("Always run migrations in a transaction", kind="directive", importance=3)
    assert r.fact.kind == "directive"
    assert r.fact.importance == 6.0
    r = mem.remember("My name is Sam", kind="identity", source_type="user")
    assert r.fact.importance == 8.0


def test_similarity_is_pluggable(clock):
    def always_close(a: str, b: str) -> float:
        return 1.0 if a.casefold() == b.casefold() else 0.9

    with backends.memory(clock=clock, similarity=always_close) as mem:
        mem.remember("the nightly backup takes an hour", subject="db")
        r = mem.remember("the nightly backup takes two hours", subject="db")
        assert r.decision is D.SUPERSEDE
        # Per call, the default lexical similarity keeps them apart.
        r = mem.remember("the cache warms up at boot", subject="db", similarity=text_similarity)
        assert r.decision is D.ADD


def test_embedding_similarity_plugs_in(clock):
    vectors = {
        "the standup starts at nine": [1.0, 0.0, 0.0],
        "our standup begins at nine": [0.99, 0.05, 0.0],
        "lunch is at noon": [0.0, 0.0, 1.0],
    }
    sim = EmbeddingSimilarity(lambda t: vectors[normalize_text(t)])
    with backends.memory(clock=clock, similarity=sim) as mem:
        mem.remember("The standup starts at nine", subject="team")
        assert mem.remember("Our standup begins at nine", subject="team").decision is D.NOOP
        assert mem.remember("Lunch is at noon", subject="team").decision is D.ADD


def test_bad_similarity_is_reported(clock):
    with backends.memory(clock=clock, similarity=lambda a, b: 2.0) as mem:
        mem.remember("the nightly backup takes an hour", subject="db")
        with pytest.raises(gm.InvalidInput, match="similarity"):
            mem.remember("the nightly backup takes two hours", subject="db")


def test_persisted_across_reopen(db_path):
    clock = ManualClock("2026-01-01T00:00:00Z")
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        first = mem.remember("the weekly demo happens after lunch", subject="api")
    clock.advance(days=1)
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        r = mem.remember("The weekly demo happens after lunch.", subject="api")
        assert r.decision is D.NOOP
        assert r.fact.id == first.fact.id


# -- the bi-temporal invariant under remember / add_fact / retract ------------------------------

TEXTS = [
    "the weekly demo happens after lunch",
    "the weekly demo no longer happens after lunch",
    "we deploy with Docker Compose",
    "we deployed with Docker Compose",
    "we no longer deploy with Docker Compose",
    "the API is written in Go",
    "the API is no longer written in Go",
    "lunch is at noon",
]
OPS = st.one_of(
    st.tuples(
        st.just("remember"),
        st.sampled_from(["api", "web"]),
        st.sampled_from(TEXTS),
        st.integers(0, 4),
    ),
    st.tuples(
        st.just("add"),
        st.sampled_from(["api", "web"]),
        st.sampled_from(["runs_on", "uses"]),
        st.sampled_from(["Go", "PHP", "Rust"]),
        st.integers(0, 4),
    ),
    st.tuples(
        st.just("retract"),
        st.sampled_from(["api", "web"]),
        st.sampled_from(["runs_on", "uses", "note"]),
        st.integers(0, 4),
    ),
)
VALID = [gm.to_utc(f"202{y}-06-01") for y in (0, 2, 4, 5)]


def _snapshot(mem, known_at):
    return {
        v: sorted(
            (f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.recorded_at)
            for f in mem.facts(valid_at=v, known_at=known_at)
        )
        for v in VALID
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(OPS, min_size=1, max_size=12), st.lists(st.integers(1, 3000), min_size=12, max_size=12)
)
def test_known_at_answers_never_change(ops, gaps):
    clock = ManualClock("2026-01-01T00:00:00Z")
    seen: list[tuple[dt.datetime, dict]] = []
    with backends.memory(clock=clock, admission=AdmissionPolicy.unlimited()) as mem:
        for op, gap in zip(ops, gaps, strict=False):
            clock.advance(minutes=gap)  # strictly increasing system time
            year = op[-1]
            at = f"202{year}-01-01"
            try:
                if op[0] == "remember":
                    mem.remember(op[2], subject=op[1], at=at)
                elif op[0] == "add":
                    mem.add_fact(op[1], op[2], op[3], valid_from=at)
                else:
                    mem.retract(op[1], op[2], at=at)
            except gm.NotFound:
                pass
            seen.append((clock(), _snapshot(mem, clock())))
        # Every answer for a known_at before a later write is the same after all of them.
        for k, answer in seen:
            assert _snapshot(mem, k) == answer, f"answer for known_at={k} changed"


# -- latency --------------------------------------------------------------------------------


def _stored(j: int) -> str:
    return f"fact number {j} about topic {j % 37}: the {j}th release shipped m{j}"


@pytest.mark.bench
def test_remember_latency(capsys):
    clock = ManualClock("2026-01-01T00:00:00Z")
    with backends.memory(clock=clock, admission=AdmissionPolicy.unlimited()) as mem:
        mem.add_facts(
            [
                {
                    "subject": "agent",
                    "predicate": "note",
                    "object": _stored(i),
                }
                for i in range(300)
            ]
        )
        times = []
        for i in range(1000):
            clock.advance(seconds=1)
            text = f"observation {i}: build c{i} took {i % 90} seconds on runner r{i % 7}"
            if i % 2 == 0:  # half repeat a stored note (noop), half are new (add)
                text = _stored(i % 300)
            t0 = time.perf_counter()
            mem.remember(text, subject="agent")
            times.append((time.perf_counter() - t0) * 1000)
        times.sort()
        p50, p95 = statistics.median(times), times[int(len(times) * 0.95)]
        with capsys.disabled():
            print(
                f"\nremember latency over {len(times)} calls, 300-800 notes of the subject: "
                f"p50 {p50:.1f} ms, p95 {p95:.1f} ms"
            )


@pytest.mark.parametrize("text", ["x\udcffy is here", "\ud800abc", "we moved to \udcff Go"])
def test_text_with_an_unpaired_surrogate_is_refused_and_writes_nothing(mem, text):
    with pytest.raises(gm.InvalidInput, match="unpaired surrogate"):
        mem.remember(text)
    assert mem.facts() == []
