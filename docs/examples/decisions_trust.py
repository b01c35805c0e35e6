"""Authority and disputes: the agent may not overwrite what the user said; the user decides."""

import graphmem as gm
from graphmem.timeutil import ManualClock

clock = ManualClock("2026-01-10")

with gm.open(clock=clock) as mem:
    mem.add_fact("api", "runs_on", "Go", valid_from="2025-06-01", source_type="user")
    clock.set("2026-02-01")
    claim = mem.add_fact("api", "runs_on", "Rust", source_type="agent", source="s-7")
    print(claim.decision, "->", [f.object for f in mem.facts(subject="api")])
    print(mem.context("what does the api run on?"))

    for d in mem.disputes():
        print("open dispute:", d.object, "by", d.source_type)

    clock.set("2026-02-03")  # the user confirms the migration
    done = mem.resolve_dispute(claim.fact.id, accept=True, reason="confirmed by the user")
    print(done.decision, "->", [f.object for f in mem.facts(subject="api")])

    # three readings of the same slot
    print(mem.explain("api", "runs_on", at="2026-02-02"))
    # what the agent was told on February 2nd, however much is written or read later
    print(mem.context("what does the api run on?", known_at="2026-02-02", valid_at="2026-02-02"))
