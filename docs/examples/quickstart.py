"""Quickstart: facts that know when they were true and when we believed them."""

import graphmem as gm
from graphmem.timeutil import ManualClock, fmt

clock = ManualClock("2024-01-10")  # system time, set by hand so the output is reproducible

with gm.open(clock=clock) as mem:  # gm.open() keeps everything in memory
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")

    clock.set("2026-06-10")  # two years later we learn about the move to Go
    result = mem.add_fact("api", "runs on", "Go", valid_from="2026-06-01")  # alias of runs_on
    print(result.decision)  # supersede: Laravel is closed, not deleted
    for old in result.superseded:
        print("closed:", old.object, "-", old.reason)

    print("true now:", [f.object for f in mem.facts(subject="api")])
    print("true in 2025:", [f.object for f in mem.facts(subject="api", valid_at="2025-03-01")])
    # On June 5th the world had moved to Go, but we only learned it on June 10th:
    print("true on 2026-06-05:", [f.object for f in mem.facts(valid_at="2026-06-05")])
    print("believed on 2026-06-05:", [f.object for f in mem.believed(on="2026-06-05")])

    for f in mem.history("api", include_expired=True):
        valid = f"[{fmt(f.valid_from)}, {fmt(f.valid_to)})"
        known = f"[{fmt(f.recorded_at)}, {fmt(f.expired_at)})"
        print(f"{f.object:8} valid {valid:26} known {known}")
