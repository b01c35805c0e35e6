"""Free-text notes (texts without a claim), compared only with the same subject's notes."""

import graphmem as gm
from graphmem.similarity import text_similarity
from graphmem.timeutil import ManualClock

clock = ManualClock("2026-06-10")
notes = [
    "The weekly demo happens after lunch",
    "the weekly demo happens after lunch.",  # equal normalised text
    "The weekly demo now happens after lunch",  # similarity >= 0.97
    "The weekly demo happened after lunch",  # similarity >= 0.88: replaces the note
    "Release notes go out every Monday",  # below 0.88: a separate note
    "The weekly demo no longer happens after lunch",  # negation cue and similarity >= 0.88
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
