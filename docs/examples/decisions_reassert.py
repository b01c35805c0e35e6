"""Rule 5: re-asserting what we know reinforces it, or corrects its valid interval."""

import graphmem as gm
from graphmem.timeutil import ManualClock, fmt

clock = ManualClock("2026-01-01")


def show(result: gm.WriteResult) -> None:
    f = result.fact
    assert f is not None
    print(f"{result.decision:9} [{fmt(f.valid_from)}, {fmt(f.valid_to)}) seen {f.access_count}x")
    for old in result.superseded:
        print("          closed:", old.reason)


with gm.open(clock=clock) as mem:
    show(mem.add_fact("alice", "works_at", "Acme", valid_from="2020-01-01"))
    clock.advance(days=1)  # contained in what we know: reinforce
    show(mem.add_fact("alice", "works_at", "Acme", valid_from="2021-06-01"))
    clock.advance(days=1)  # starts earlier: the union of the two intervals
    show(mem.add_fact("alice", "works_at", "Acme", valid_from="2019-01-01"))
    clock.advance(days=1)  # an end where there was none is news
    show(mem.add_fact("alice", "works_at", "Acme", valid_from="2019-01-01", valid_to="2025-07-01"))
    print(
        "versions:",
        len(mem.history("alice", include_expired=True)),
        "stored,",
        len(mem.history("alice")),
        "current",
    )
