"""A reader of your own (an LLM, say): its claims go through graphmem's time rules unchanged."""

import datetime as dt

import graphmem as gm
from graphmem.text.claims import Claim
from graphmem.timeutil import ManualClock


class KeywordReader:
    """Stands in for an LLM: reads "X runs on Y" and "moved X to Y" (a change, no relation)."""

    def read(self, text: str, *, at: dt.datetime, owner: str) -> list[Claim]:
        claims = []
        for sentence in text.split(". "):
            words = sentence.rstrip(".").removeprefix("The ").split()
            if "runs" in words and "on" in words:
                i = words.index("runs")
                claims.append(Claim(" ".join(words[:i]), "runs_on", words[-1], sentence=sentence))
            elif words[:2] == ["We", "moved"] and "to" in words:
                thing = " ".join(words[2 : words.index("to")])
                # predicate=None: graphmem finds the relation the new value fills
                claims.append(Claim(thing, None, words[-1], change=True, sentence=sentence))
        return claims


clock = ManualClock("2026-03-02T12:00:00Z")
with gm.open(clock=clock, reader=KeywordReader()) as mem:
    mem.remember("The API runs on Laravel.")
    clock.set("2026-06-10T12:00:00Z")
    r = mem.remember("We moved API to Go. Lunch was great.")
    print(r.decision, [str(f) for f in mem.facts(subject="API")])
    print([str(f) for f in mem.believed(on="2026-05-01", subject="API")])
    print([f.object for f in mem.facts(predicate="note")])  # the sentence it did not read
