"""A memory on a store opened first: the memory owns it, and the store answers for itself."""

import graphmem as gm
from graphmem.store import open_store
from graphmem.timeutil import ManualClock

store = open_store("agent.kuzu", engine="kuzu")  # or "falkordb://host:6379/agent"
with gm.open(store=store, clock=ManualClock("2026-06-10")) as mem:
    mem.add_fact("billing", "runs_on", "Laravel", valid_from="2025-01-01")
    mem.add_fact("billing", "runs_on", "Go", valid_from="2025-06-01")
    print("now:", [f.object for f in mem.facts(subject="billing")])
    print("versions stored:", store.count_versions())
