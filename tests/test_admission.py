"""Admission control: importance bands, statement bounds, hourly rate limits.

See docs/concepts/hotness.md#admission.
"""

from __future__ import annotations

import datetime as dt
import os

import pydantic
import pytest

import graphmem as gm
from graphmem.admission import AdmissionPolicy, RateLimiter
from graphmem.similarity import text_similarity
from graphmem.timeutil import ManualClock
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("kind", "given", "source_type", "admitted"),
    [
        ("identity", 3, None, 7.0),
        ("identity", 10, None, 9.0),
        ("identity", 8, "user", 9.0),
        ("identity", 9, "user", 10.0),
        ("directive", 0, None, 6.0),
        ("directive", 10, "user", 10.0),
        ("insight", 9.5, None, 8.0),
        ("insight", 6, "agent", 6.0),
        ("insight", 6, "user", 7.0),
        ("event", 1, None, 3.0),
        ("event", 9, None, 7.0),
        ("fact", 0, None, 1.0),
        ("fact", 10, "user", 10.0),
        ("fact", 4.5, "tool", 4.5),
    ],
)
def test_importance_is_clamped_per_kind(kind, given, source_type, admitted):
    assert AdmissionPolicy().clamp_importance(kind, given, source_type=source_type) == admitted


def test_policy_switches():
    assert AdmissionPolicy.off().clamp_importance("identity", 2) == 2.0
    assert AdmissionPolicy.unlimited().rate_limit("identity") is None
    assert AdmissionPolicy.unlimited().clamp_importance("identity", 2) == 7.0
    assert AdmissionPolicy(user_bonus=0).clamp_importance("fact", 5, source_type="user") == 5.0


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rate_limits": {"identity": -1}},
        {"importance_bands": {"fact": (8, 2)}},
        {"importance_bands": {"fact": (0, 11)}},
        {"min_statement_chars": 50, "max_statement_chars": 10},
        {"window": dt.timedelta(0)},
        {"unknown": 1},
    ],
)
def test_malformed_policy_is_rejected(kwargs):
    with pytest.raises(pydantic.ValidationError):
        AdmissionPolicy(**kwargs)


def test_statement_bounds():
    policy = AdmissionPolicy(min_statement_chars=3, max_statement_chars=20)
    policy.check_statement("abc")
    policy.check_statement("  abc  ")
    with pytest.raises(gm.InvalidInput, match="at least 3"):
        policy.check_statement(" ab ")
    with pytest.raises(gm.InvalidInput, match="at most 20"):
        policy.check_statement("x" * 21)


def test_rate_limiter_window_slides_with_system_time():
    policy = AdmissionPolicy(rate_limits={"identity": 2})
    rl = RateLimiter(policy, seed=lambda since: [])
    for minutes in (0, 10):
        rl.check(["identity"], now=T0 + dt.timedelta(minutes=minutes))
        rl.record(["identity"], now=T0 + dt.timedelta(minutes=minutes))
    with pytest.raises(gm.RateLimited, match=r"limit of 2 per hour.*after 2026-01-01T01:00:00Z"):
        rl.check(["identity"], now=T0 + dt.timedelta(minutes=59))
    rl.check(["fact", "insight"], now=T0 + dt.timedelta(minutes=59))  # other kinds unaffected
    rl.check(["identity"], now=T0 + dt.timedelta(hours=1, seconds=1))  # the first aged out


def test_rate_limiter_seeds_once_lazily():
    calls = []

    def seed(since):
        calls.append(since)
        return [("identity", T0 - dt.timedelta(minutes=30))]

    rl = RateLimiter(AdmissionPolicy(rate_limits={"identity": 1}), seed=seed)
    rl.check(["fact"], now=T0)  # unlimited kind: no seed needed
    assert calls == []
    with pytest.raises(gm.RateLimited):
        rl.check(["identity"], now=T0)
    assert calls == [T0 - dt.timedelta(hours=1)]
    rl.check(["identity"], now=T0 + dt.timedelta(minutes=31))
    assert len(calls) == 1


def test_zero_limit_disables_a_kind():
    rl = RateLimiter(AdmissionPolicy(rate_limits={"event": 0}), seed=lambda since: [])
    with pytest.raises(gm.RateLimited, match="disabled"):
        rl.check(["event"], now=T0)


# -- through the facade -----------------------------------------------------------------------


def test_add_fact_clamps_importance_and_applies_user_bonus(mem):
    r = mem.add_fact("Alice", "email", "alice@example.com", kind="identity", importance=2)
    assert r.fact.importance == 7.0
    r = mem.add_fact("Alice", "prefers", "tea", kind="insight", importance=9, source_type="user")
    assert r.fact.importance == 9.0
    r = mem.add_fact("Alice", "uses", "vim", importance=0)
    assert r.fact.importance == 1.0
    r = mem.add_fact("Alice", "likes", "chess")  # default importance 5, fact band 1-10
    assert r.fact.importance == 5.0


def test_bad_source_type_and_out_of_range_importance_write_nothing(mem):
    with pytest.raises(gm.InvalidInput, match="source_type='boss'"):
        mem.add_fact("Alice", "uses", "vim", source_type="boss")
    with pytest.raises(gm.InvalidInput, match="importance=11"):
        mem.add_fact("Alice", "uses", "vim", importance=11)
    assert mem.count_versions() == 0


def test_statement_length_bounds_write_nothing(mem):
    with pytest.raises(gm.InvalidInput, match="statement=.*at most 10000"):
        mem.add_fact("Alice", "uses", "vim", statement="x" * 10_001)
    with pytest.raises(gm.InvalidInput, match="statement='ok'.*at least 3"):
        mem.add_fact("Alice", "uses", "vim", statement="ok")
    with pytest.raises(gm.InvalidInput, match=r"facts\[1\]\.statement"):
        mem.add_facts(
            [
                {"subject": "a", "predicate": "uses", "object": "b"},
                {"subject": "a", "predicate": "uses", "object": "c", "statement": "x" * 20_000},
            ]
        )
    assert mem.count_versions() == 0
    mem.add_fact("Alice", "uses", "vim", statement="")  # empty means no statement
    assert mem.facts(subject="Alice")[0].statement is None


def test_identity_rate_limit_is_a_circuit_breaker(mem, clock):
    for i in range(5):
        clock.advance(minutes=1)
        mem.add_fact(f"user{i}", "email", f"u{i}@example.com", kind="identity")
    clock.advance(minutes=1)
    before = mem.count_versions()
    with pytest.raises(gm.RateLimited, match=r"5 'identity' write\(s\).*limit of 5 per hour"):
        mem.add_fact("user9", "email", "u9@example.com", kind="identity")
    assert mem.count_versions() == before  # nothing written
    # Re-asserting what is known is a noop: not counted, not refused.
    assert mem.add_fact("user0", "email", "u0@example.com", kind="identity").decision == "noop"
    # Other kinds are unaffected; facts are unlimited.
    for i in range(30):
        mem.add_fact("x", "uses", f"tool{i}")
    clock.advance(minutes=56)  # the first identity write is now more than an hour old
    mem.add_fact("user9", "email", "u9@example.com", kind="identity")


def test_bulk_import_bypasses_rate_limits(mem):
    rows = [
        {"subject": f"p{i}", "predicate": "note", "object": f"memory {i}", "kind": "insight"}
        for i in range(100)
    ]
    assert len(mem.add_facts(rows)) == 100
    # A bulk import is not counted: the 20 insights of the hour are still available.
    # (lexical similarity: these near-identical texts must stay separate notes)
    for i in range(20):
        mem.remember(
            f"insight number {i} about the deployment", subject="ops", similarity=text_similarity
        )
    with pytest.raises(gm.RateLimited, match="'insight'"):
        mem.remember(
            "one insight too many about the deployment", subject="ops", similarity=text_similarity
        )


def test_rate_window_survives_reopen_without_scanning_facts(db_path, clock):
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        for i in range(5):
            clock.advance(minutes=1)
            mem.add_fact(f"user{i}", "email", f"u{i}@example.com", kind="identity")
    clock.advance(minutes=1)
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        with pytest.raises(gm.RateLimited):
            mem.add_fact("user9", "email", "u9@example.com", kind="identity")
        clock.advance(minutes=59)
        mem.add_fact("user9", "email", "u9@example.com", kind="identity")


def test_limits_are_configurable(clock):
    policy = AdmissionPolicy(rate_limits={"directive": 2, "fact": 3})
    with backends.memory(clock=clock, admission=policy) as mem:
        assert mem.admission is policy
        for i in range(3):
            mem.add_fact("a", "uses", f"t{i}")
        with pytest.raises(gm.RateLimited, match="'fact'"):
            mem.add_fact("a", "uses", "t3")
        mem.add_fact("a", "note", "always run the tests first", kind="directive")
        mem.add_fact("a", "note", "never push on a friday evening", kind="directive")
        with pytest.raises(gm.RateLimited, match="'directive'"):
            mem.add_fact("a", "note", "review every migration twice", kind="directive")
    with backends.memory(clock=clock, admission=AdmissionPolicy.unlimited()) as mem:
        for i in range(30):
            mem.add_fact(f"user{i}", "email", f"u{i}@example.com", kind="identity")


def test_window_is_seeded_from_the_store_after_reopen(db_path):
    clock = ManualClock("2026-01-01T00:00:00Z")
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        for i in range(5):
            clock.advance(minutes=1)
            mem.add_fact(f"user{i}", "email", f"u{i}@example.com", kind="identity")
    clock.advance(minutes=1)
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        with pytest.raises(gm.RateLimited):
            mem.add_fact("user9", "email", "u9@example.com", kind="identity")
        clock.advance(hours=1)
        mem.add_fact("user9", "email", "u9@example.com", kind="identity")
