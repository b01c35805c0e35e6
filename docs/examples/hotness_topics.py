"""Hot topics from sessions: plain and IDF scores side by side, then triage."""

import datetime as dt

import graphmem as gm
from graphmem.hotness import classify
from graphmem.timeutil import ManualClock

clock = ManualClock("2026-03-01")
day = dt.timedelta(days=1)

with gm.open(clock=clock) as mem:
    mem.add_fact("jenkins", "hosted_on", "ci-box", valid_from="2024-05-01")  # then forgotten

    clock.set("2026-06-30")
    now = clock()
    # "agent" comes up in every session, kuzu is this week's work, paris came up in May.
    for n in range(8):
        mem.add_session(started_at=now - n * 3 * day, mentions=["agent"] + ["kuzu"] * (n < 3))
    for n in (40, 45):
        mem.add_session(started_at=now - n * day, mentions=["agent", "paris"])
    mem.add_fact(
        "kuzu",
        "version",
        "0.11.3",
        valid_from="2025-10-10",
        statement="Always pin kuzu: 0.11.3 is the last release",
    )

    print("topic    hits  plain  band  idf   band")
    for t in mem.hot_topics():
        print(
            f"{t.topic:8} {t.hits:4}  {t.plain_score:.2f}  {t.band!s:5} "
            f"{t.idf_score:.2f}  {classify(t.idf_score, hits=t.hits)!s}"
        )

    # Recurrence counts the sessions inside the lookback window (default 30 days): paris,
    # last talked about 40 days ago, is a cold topic now, and a recurring one over 90 days.
    for window in (30, 90):
        print(f"\ntriage, {window}-day window")
        for t in mem.triage(window_days=window):
            print(f"{t.topic:8} {t.recommendation!s:7} {t.composite:.2f}  {t.reason}")
