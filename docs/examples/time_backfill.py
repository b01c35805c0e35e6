"""Backfill a log of what the agent learned, in the order it learned it."""

import graphmem as gm
from graphmem.timeutil import ManualClock

log = [  # (learned at, subject, predicate, object, valid from)
    ("2023-01-05", "bob", "lives_in", "Lyon", "2022-09-01"),
    ("2024-02-10", "bob", "lives_in", "Paris", "2024-01-15"),
    ("2024-03-01", "bob", "team_lead", "Carol", "2024-03-01"),
]

clock = ManualClock(log[0][0])
with gm.open(clock=clock) as mem:
    for learned_at, s, p, o, valid_from in sorted(log):  # system time never moves backwards
        clock.set(learned_at)
        mem.add_fact(s, p, o, valid_from=valid_from)

    for day in ("2024-01-31", "2024-03-01"):
        print(day, [f"{f.predicate}={f.object}" for f in mem.believed(on=day, subject="bob")])

    clock.set("2023-06-01")  # a write "in the past" of the store is refused
    try:
        mem.add_fact("bob", "lives_in", "Nice", valid_from="2023-05-01")
    except gm.ClockError as exc:
        print(type(exc).__name__, "-", exc)
