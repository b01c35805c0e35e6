"""Negation and retraction end a fact at a time; the past stays on record."""

import graphmem as gm
from graphmem.timeutil import ManualClock, fmt

clock = ManualClock("2026-06-10")

with gm.open(clock=clock) as mem:
    mem.add_fact("alice", "works_at", "Acme", valid_from="2020-01-01")
    mem.add_fact("bob", "uses", "vim", valid_from="2019-01-01")  # uses is multi-valued
    mem.add_fact("bob", "uses", "tmux", valid_from="2019-01-01")

    clock.advance(days=1)  # a statement with a negation cue invalidates
    r = mem.add_fact(
        "alice",
        "works_at",
        "Acme",
        valid_from="2026-05-31",
        statement="Alice no longer works at Acme",
    )
    f = r.fact
    assert f is not None
    print(r.decision, f.object, f"[{fmt(f.valid_from)}, {fmt(f.valid_to)})")
    print("  reason:", r.superseded[0].reason)

    clock.advance(days=1)  # retract: the explicit way, for one object or all of them
    r = mem.retract("bob", "uses", "vim", at="2026-03-01", reason="switched to helix")
    print(
        r.decision,
        [f"{f.object} [{fmt(f.valid_from)}, {fmt(f.valid_to)})" for f in mem.history("bob")],
    )

    try:
        mem.retract("bob", "uses", "emacs")
    except gm.NotFound as exc:
        print("NotFound:", exc)
