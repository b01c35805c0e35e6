import graphmem as gm
from graphmem.timeutil import ManualClock

clock = ManualClock("2026-03-02")
with gm.open(clock=clock) as mem:
    # What was said, session by session. extract=False keeps this example to the episodic
    # layer; the facts a text pipeline would read in the sessions are written by hand.
    mem.add_session(
        "Lead: The API runs on Laravel.\nOps: We deploy it with Docker on Fridays.",
        started_at="2026-03-02",
        session_id="standup-1",
        extract=False,
    )
    mem.add_fact(
        "API",
        "runs_on",
        "Laravel",
        valid_from="2026-03-02",
        source="standup-1",
        statement="The API runs on Laravel.",
    )
    clock.set("2026-06-10")
    mem.add_session(
        "Lead: We migrated the API to Go.",
        started_at="2026-06-10",
        session_id="standup-2",
        extract=False,
    )
    mem.add_fact(
        "API",
        "runs_on",
        "Go",
        valid_from="2026-06-10",
        source="standup-2",
        statement="We migrated the API to Go.",
    )

    ctx = mem.context("What does the API run on?")
    print(ctx)
    print()
    for item in ctx.items:  # fact ids are random; line ids are "<session id>#<n>"
        print(item.kind, item.id if item.kind == "line" else item.text, item.score)
    print()
    for item in mem.search("when do we deploy?", kinds=("line",)):
        print(item)
    print()
    # What we believed in April: the Go session was not recorded yet.
    print(mem.context("What does the API run on?", known_at="2026-04-01"))
