"""Identity: a source_ref names the fact a write replaces, whatever its predicate or object."""

import graphmem as gm
from graphmem.timeutil import ManualClock

clock = ManualClock("2026-06-10")

with gm.open(clock=clock) as mem:
    # "uses" is multi-valued: without a source_ref both versions would stay current.
    mem.add_fact("api", "uses", "Postgres 15", valid_from="2025-01-01", source_ref="api-db")
    mem.add_fact("api", "uses", "Redis", valid_from="2025-01-01")

    clock.advance(days=1)
    r = mem.add_fact("api", "uses", "Postgres 16", valid_from="2026-06-01", source_ref="api-db")
    print(r.decision, "-", r.superseded[0].reason)
    print("now:", sorted(f.object for f in mem.facts(subject="api")))

    clock.advance(days=1)  # the same ref with the same content only reinforces
    r = mem.add_fact("api", "uses", "Postgres 16", valid_from="2026-06-01", source_ref="api-db")
    print(r.decision)
