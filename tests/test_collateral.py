"""No collateral damage: a contradiction never touches another subject's facts.

See docs/concepts/decisions.md#local-candidates.

Graphiti's #1728 failure: a contradiction check that searches the whole graph retires unrelated
facts that merely look alike. Here 1,000 facts of third parties share objects, predicates and
even the exact note text with the two subjects that contradict themselves.
"""

from __future__ import annotations

import os

import graphmem as gm
from graphmem.admission import AdmissionPolicy
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")

NOTE = "the weekly demo happens after lunch"


def _third_parties() -> list[dict[str, str]]:
    rows = [
        {"subject": f"person{i}", "predicate": "works_at", "object": "Acme"} for i in range(400)
    ]
    rows += [
        {"subject": f"service{i}", "predicate": "note", "object": NOTE, "statement": NOTE}
        for i in range(300)
    ]
    rows += [
        {"subject": f"service{i}", "predicate": "runs_on", "object": "Laravel"} for i in range(300)
    ]
    return rows


def test_contradictions_never_touch_a_third_subject(clock):
    with backends.memory(clock=clock, admission=AdmissionPolicy.unlimited()) as mem:
        assert len(mem.add_facts(_third_parties())) == 1000
        mem.add_fact("Alice", "works_at", "Acme", valid_from="2020-01-01")
        mem.add_fact("api", "runs_on", "Laravel", valid_from="2020-01-01")
        mem.add_fact("api", "deploys_with", "Docker Compose", valid_from="2020-01-01")
        mem.remember(NOTE, subject="api")
        clock.advance(days=1)
        start = clock()

        # Conflicting writes on Alice and api: supersede, alias, negation, retraction, notes.
        mem.add_fact("Alice", "works for", "Globex")
        mem.add_fact("api", "runs on", "Go")
        mem.add_fact(
            "api",
            "deploys_with",
            "Docker Compose",
            statement="we no longer deploy with Docker Compose",
        )
        clock.advance(days=1)
        assert (
            mem.remember("The weekly demo no longer happens after lunch", subject="api").decision
            is gm.Decision.INVALIDATE
        )
        mem.remember("the weekly demo happened after lunch", subject="api")
        clock.advance(days=1)
        mem.remember("the weekly demo happens after lunch", subject="api")
        # Text claims too: 300 services run on Laravel; only the api's fact may change.
        assert mem.remember("We migrated the api to Rust.").decision is gm.Decision.SUPERSEDE
        mem.remember("Alice left Globex and joined Initech.")
        mem.retract("Alice", "works for")

        closed = [c for c in mem.changes(since=start) if c.action != "learned"]
        touched = {c.fact.subject for c in closed}
        false_invalidations = [c for c in closed if c.fact.subject not in {"Alice", "api"}]
        assert touched == {"Alice", "api"}
        assert len(false_invalidations) == 0
        # Independently of changes(): every third-party fact is still current and unchanged.
        current = [f for f in mem.facts() if f.subject not in {"Alice", "api"}]
        assert len(current) == 1000
        assert all(f.recorded_at < start and f.access_count == 0 for f in current)
        ours = len(mem.history("Alice", include_expired=True)) + len(
            mem.history("api", include_expired=True)
        )
        assert mem.count_versions() - ours == 1000
