"""A line that only asks, a note that only supposes, and remembered facts with their sentences."""

import graphmem as gm
from graphmem.timeutil import ManualClock

clock = ManualClock("2026-03-02T09:00:00Z")
with gm.open(clock=clock) as mem:
    mem.add_session("Our match is at Riverside Fields on Saturday.", started_at="2026-03-02")
    clock.set("2026-03-05T09:00:00Z")
    mem.add_session(
        "dave: is Saturday's match at Lincoln Park now?? someone at pickup said so",
        started_at="2026-03-05",
    )
    mem.remember("If the Riverside pitch floods we would move the match to the Dome.")
    clock.set("2026-03-06T09:00:00Z")
    print(mem.context("where is Saturday's match? is it at the Dome?"))

with gm.open(clock=clock) as mem:
    mem.remember("Reduce meloxicam to 1.6 ml once daily (maintenance).")
    mem.remember("The project dropped D1; storage is Turso now.")
    print(mem.context("how much meloxicam, and where is the project's storage?"))
