"""kuzu and ladybug give identical answers on the same writes.

The two engines cannot be loaded in one process (both register the same native types), so the
same scenario runs once per engine in a subprocess and prints its answers as JSON; the test
compares them. Skipped when ladybug is not installed.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap
from typing import Any

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("ladybug") is None or importlib.util.find_spec("kuzu") is None,
    reason="needs both engines: pip install 'graphmem[ladybug]'",
)

SCENARIO = textwrap.dedent(
    """
    import datetime as dt, json, sys
    import graphmem as gm
    from graphmem.datasets import sample
    from graphmem.demo import learning_schedule
    from graphmem.store import open_store
    from graphmem.timeutil import ManualClock

    UTC = dt.timezone.utc
    clock = ManualClock("1900-01-01")
    out = {}

    def canon(facts):
        # Version ids are random: name a version by its content, successors likewise.
        key = {f.id: (f.subject, f.predicate, f.object, f.valid_from.isoformat(),
                      f.recorded_at.isoformat()) for f in facts}
        rows = []
        for f in facts:
            d = f.model_dump(mode="json")
            d.pop("id")
            d["superseded_by"] = key.get(d["superseded_by"], d["superseded_by"] and "?")
            rows.append(d)
        return sorted(rows, key=lambda d: json.dumps(d, sort_keys=True))

    store = open_store(None, engine=sys.argv[1])
    with gm.open(store=store, clock=clock) as mem:
        # 1. Part of the bundled sample, learned year by year (small batches, row by row).
        decisions = {}
        for day, batch in learning_schedule(sample())[:90]:
            clock.set(day)
            for r in mem.add_facts(batch):
                decisions[r.decision.value] = decisions.get(r.decision.value, 0) + 1
        out["decisions"] = decisions
        # 2. A bulk batch (the COPY path) with contradictions inside it.
        clock.set("2030-01-01")
        bulk = [{"subject": f"s{i % 300}", "predicate": "works_at", "object": f"org{i % 7}",
                 "valid_from": f"{1990 + i % 30}-01-01"} for i in range(3000)]
        bulk += [{"subject": f"s{i % 400}", "predicate": "uses", "object": f"tool{i % 13}"}
                 for i in range(2000)]
        out["bulk"] = sorted(r.decision.value for r in mem.add_facts(bulk))
        # 3. Single writes: supersede, re-assert, retract.
        clock.set("2030-02-01")
        out["single"] = [
            mem.add_fact("s1", "works_at", "Initech", valid_from="2025-01-01").decision.value,
            mem.add_fact("s1", "works_at", "Initech", valid_from="2025-06-01").decision.value,
            mem.retract("s2", "works_at", at="2029-01-01").decision.value,
        ]
        # 4. Answers.
        out["count"] = mem.count_versions()
        out["all"] = canon(store.query_facts())
        out["asof"] = [
            canon(mem.facts(subject=s, valid_at=v, known_at=k))
            for s in ("s1", "s2", "s3", "Jerzy Buzek")
            for v in ("1995-06-01", "2026-01-01")
            for k in ("2029-12-31", "2030-03-01")
        ]
        out["history"] = canon(mem.history("s1", include_expired=True))
        out["changes"] = canon(store.changed_between(
            dt.datetime(2030, 1, 1, tzinfo=UTC), None))
    print(json.dumps(out, sort_keys=True))
    """
)


def run(engine: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", SCENARIO, engine],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


@pytest.mark.slow
def test_kuzu_and_ladybug_answer_alike() -> None:
    kuzu, ladybug = run("kuzu"), run("ladybug")
    assert kuzu["count"] > 500
    for key in sorted(kuzu):
        assert kuzu[key] == ladybug[key], key
