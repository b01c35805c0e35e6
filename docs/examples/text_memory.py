"""Text becomes claims: sessions months apart, a change statement, what we believed, and why."""

import graphmem as gm
from graphmem.timeutil import ManualClock

clock = ManualClock("2026-03-02T12:00:00Z")
with gm.open(clock=clock) as mem:
    mem.add_session("The API runs on Laravel. Alice works at Acme.", started_at="2026-03-02",
                    session_id="s1")
    clock.set("2026-06-10T12:00:00Z")
    written = mem.add_session(
        "We migrated the API to Go last week. Should we move billing to Rust too? No.",
        started_at="2026-06-10",
        session_id="s2",
    )
    for r in written.results:
        print(r.decision, "-", r.fact)
    print([str(f) for f in mem.facts(subject="API")])
    print([str(f) for f in mem.believed(on="2026-05-01", subject="API")])
    (old,) = [f for f in mem.history("API", include_expired=True) if f.expired_at]
    print(old.reason)
    print([str(f) for f in mem.facts(subject="Alice")])  # untouched
    clock.advance(days=1)
    r = mem.remember("Correction: Alice works at Globex, not Acme.")
    print(r.decision, [str(f) for f in mem.facts(subject="Alice")])
    print(mem.context("what does the api run on?"))
