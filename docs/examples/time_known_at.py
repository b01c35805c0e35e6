"""What we believed on date K never changes, whatever we learn later."""

import graphmem as gm
from graphmem.timeutil import ManualClock

clock = ManualClock("2025-01-15")

with gm.open(clock=clock) as mem:
    mem.add_fact("alice", "works_at", "Acme", valid_from="2020-03-01")

    def answer(known_at: str) -> list[str]:
        """Where we thought, at known_at, that Alice worked in mid-2024."""
        rows = mem.facts(subject="alice", valid_at="2024-06-01", known_at=known_at)
        return [f.object for f in rows]

    before = answer("2025-02-01")
    print("asked on 2025-02-01:", before)

    clock.set("2025-03-01")  # we learn she had moved to Globex in 2023
    mem.add_fact("alice", "works_at", "Globex", valid_from="2023-09-01")
    clock.set("2025-04-01")  # ... and that she had started at Acme in 2019, not 2020
    mem.add_fact("alice", "works_at", "Acme", valid_from="2019-05-01", valid_to="2023-09-01")

    print("asked again:", answer("2025-02-01"), "- unchanged")
    assert answer("2025-02-01") == before
    print("asked today:", answer("2025-04-01"))
    print("versions stored:", mem.count_versions())
