"""Rule 4: a single-valued predicate (lives_in) holds one object at a time."""

import graphmem as gm
from graphmem.timeutil import ManualClock, fmt

clock = ManualClock("2026-01-01")


def timeline(mem: gm.Memory) -> None:
    for f in mem.history("alice", "lives_in"):
        print(f"    {f.object:7} [{fmt(f.valid_from)}, {fmt(f.valid_to)})")


with gm.open(clock=clock) as mem:
    print(mem.add_fact("alice", "lives_in", "Paris", valid_from="2020-01-01").decision)
    clock.advance(days=1)
    print(mem.add_fact("alice", "lives_in", "Berlin", valid_from="2024-01-01").decision)
    timeline(mem)

    clock.advance(days=1)  # out of order: older than Berlin, arrives after it
    print(mem.add_fact("alice", "lives_in", "Rome", valid_from="2022-01-01").decision)
    timeline(mem)

    clock.advance(days=1)  # older than everything: only capped on arrival
    print(mem.add_fact("alice", "lives_in", "Oslo", valid_from="2018-06-01").decision)
    timeline(mem)

    clock.advance(days=1)  # back to Paris: a new interval, not the old one reopened
    print(mem.add_fact("alice", "lives_in", "Paris", valid_from="2025-09-01").decision)
    timeline(mem)
