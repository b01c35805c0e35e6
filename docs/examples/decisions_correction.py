"""Correcting the past: the wrong version is closed in system time, never edited or deleted."""

import graphmem as gm
from graphmem.timeutil import ManualClock, fmt

clock = ManualClock("2026-01-10")

with gm.open(clock=clock) as mem:
    mem.add_fact("carol", "lives_in", "Oslo", valid_from="2026-01-01")
    clock.set("2026-01-12")  # correction: she moved to Bergen, not Oslo, on that same day
    result = mem.add_fact("carol", "lives_in", "Bergen", valid_from="2026-01-01")
    print(result.decision, "->", [f.object for f in mem.facts(subject="carol")])

    for f in mem.history("carol", include_expired=True):
        known = f"[{fmt(f.recorded_at)}, {fmt(f.expired_at)})"
        print(f"{f.object:7} known {known:26} {f.reason or ''}".rstrip())

    # Oslo's valid interval became empty, so it is closed and not replaced,
    # but what we believed on January 11th is still on record:
    print("believed on 2026-01-11:", [f.object for f in mem.believed(on="2026-01-11")])
