"""Rule 5 of SPEC section 3: free-text notes, compared only with the same subject's notes."""

import graphmem as gm
from graphmem.similarity import text_similarity
from graphmem.timeutil import ManualClock

clock = ManualClock("2026-06-10")
notes = [
    "We deploy with Docker Compose",
    "we deploy with docker compose.",  # equal normalised text
    "We now deploy with Docker Compose",  # similarity >= 0.97
    "We deploy with Docker Compose v2",  # similarity >= 0.88: replaces the note
    "Staging runs on a single VM",  # below 0.88: a separate note
    "We no longer deploy with Docker Compose v2",  # negation cue and similarity >= 0.88
]

with gm.open(clock=clock) as mem:
    for text in notes:
        clock.advance(hours=1)
        current = [f.object for f in mem.facts(subject="ops", predicate="note")]
        best = max((text_similarity(text, c) for c in current), default=None)
        result = mem.remember(text, subject="ops")
        score = "-" if best is None else f"{best:.4f}"
        print(f"{result.decision!s:10} {score:>6}  {text}")
    print([f.object for f in mem.facts(subject="ops", predicate="note")])
