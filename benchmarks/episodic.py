"""Episodic recall benchmark (issue #14): evidence recall of ``context()`` against plain BM25.

Run: ``python -m benchmarks.episodic [--dialogues 12] [--scale-sessions 10000]``. Not part of
the test run.

**Data** (generated, fixed seeds): multi-session dialogues between two people. Each dialogue
plants facts in specific turns (events with a date, attributes, values that change between
sessions), surrounded by chit-chat that reuses the same vocabulary (hobbies, places, people),
so plain term matching is confusable. Questions name their evidence line ids
(``<session id>#<n>``):

- ``single``: one turn answers it ("What did Caroline paint?");
- ``when``: "When did Caroline go to the pottery class?" (the answer is the session date);
- ``changed``: "Where does Melanie work now?": the newest of several turns stating the value
  (the older ones are written as facts with ``source``/``statement`` and superseded, as the
  text pipeline would, so their lines are marked);
- ``alias``: asked with a nickname the memory knows as an alias ("What did Mel ...").

**Systems**, each given the same token budget (4 characters per token):

- graphmem ``context(question, budget_tokens=B)``;
- BM25 over the lines (the same tokenizer, stop words and stemming as graphmem's index, so only
  the ranking and the context differ), rendering ``Speaker: text`` lines best first until the
  budget is full.

A question counts as recalled when all its evidence lines are in the context. Also checked:
every evidence line of a ``when`` question is shown with its session date; no superseded value
is shown as current (an old value's line, when shown, carries its ``(superseded ...)`` note).
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import graphmem as gm
from graphmem.episodic import fmt_date
from graphmem.store.textlines import terms
from graphmem.timeutil import ManualClock

PEOPLE = [
    ("Caroline", "Caro"),
    ("Melanie", "Mel"),
    ("Jonathan", "Jon"),
    ("Gina", "Gee"),
    ("Tobias", "Toby"),
    ("Priya", "Pri"),
    ("Samuel", "Sam"),
    ("Eleanor", "Nell"),
]
HOBBIES = ["painting", "pottery", "running", "climbing", "baking", "chess", "guitar", "yoga"]
THINGS = ["a lake sunrise", "a blue vase", "a portrait of my dog", "a forest at dusk", "a bowl"]
PLACES = ["Lisbon", "Denver", "Osaka", "Toronto", "Nairobi", "Oslo", "Lima", "Austin"]
EMPLOYERS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Stark Labs", "Wayne Corp"]
EVENTS = [
    ("the support group", "I went to the support group yesterday, it was powerful"),
    ("the pottery class", "I finally took the pottery class last weekend"),
    ("the charity run", "I ran the charity run on Saturday with my sister"),
    ("the job interview", "I had the job interview at the museum this morning"),
    ("the concert", "We saw the concert downtown, the band was amazing"),
    ("the camping trip", "We went on the camping trip to the mountains"),
]
CHAT = [
    "That sounds great, tell me more about {hobby}!",
    "I have been thinking about {hobby} a lot lately.",
    "Did you ever try {hobby} in {place}?",
    "My friend from {place} loves {hobby} too.",
    "Work has been busy, but {hobby} keeps me sane.",
    "I saw a poster about {event} near my place.",
    "Someone at work mentioned {event} again.",
    "How is everything going with your family?",
    "We should meet up in {place} sometime.",
    "I painted something small last week, nothing special.",
    "The weather in {place} was lovely this week.",
    "I might sign up for {event} next year.",
]


@dataclass
class Question:
    """A question, its kind and its evidence line ids."""

    text: str
    kind: str
    evidence: list[str]
    old: list[str] = field(default_factory=list)  # lines stating superseded values


@dataclass
class Dialogue:
    """A generated dialogue: sessions ``(id, date, turns)`` and questions."""

    sessions: list[tuple[str, str, list[str]]]
    questions: list[Question]
    facts: list[dict[str, Any]]
    aliases: dict[str, str]


def make_dialogue(seed: int, n_sessions: int = 10, turns: int = 24) -> Dialogue:
    """Generate one dialogue with a fixed seed."""
    rng = random.Random(seed)
    (a, a_nick), (b, b_nick) = rng.sample(PEOPLE, 2)
    speakers = [a, b]
    sessions: list[list[str]] = [[] for _ in range(n_sessions)]
    for s in range(n_sessions):
        for t in range(turns):
            who = speakers[t % 2]
            line = rng.choice(CHAT).format(
                hobby=rng.choice(HOBBIES), place=rng.choice(PLACES), event=rng.choice(EVENTS)[0]
            )
            sessions[s].append(f"{who}: {line}")
    start = 2022 * 12 + rng.randrange(0, 12)
    dates = []
    for s in range(n_sessions):
        m = start + s * 2 + rng.randrange(0, 2)
        dates.append(f"{m // 12}-{m % 12 + 1:02d}-{rng.randrange(1, 28):02d}")
    sid = [f"d{seed}-s{s + 1}" for s in range(n_sessions)]
    questions: list[Question] = []
    facts: list[dict[str, Any]] = []

    def plant(s: int, text: str) -> str:
        t = rng.randrange(1, turns - 1)
        sessions[s][t] = text
        return f"{sid[s]}#{t + 1}"

    used: set[tuple[int, int]] = set()

    def slot() -> int:
        while True:
            s = rng.randrange(n_sessions)
            if (s, len(used)) not in used:
                used.add((s, len(used)))
                return s

    for who, nick in ((a, a_nick), (b, b_nick)):
        # single: what did X paint / make
        thing = rng.choice(THINGS)
        ev = plant(slot(), f"{who}: I painted {thing} last month, it hangs in my hallway.")
        questions.append(Question(f"What did {who} paint?", "single", [ev]))
        # alias: asked with the nickname
        hobby = rng.choice(HOBBIES)
        ev = plant(slot(), f"{who}: My brother gave me a {hobby} lesson voucher for my birthday.")
        questions.append(
            Question(f"What did {nick}'s brother give for the birthday?", "alias", [ev])
        )
        # when: an event
        name, said = rng.choice(EVENTS)
        ev = plant(slot(), f"{who}: {said}.")
        questions.append(Question(f"When did {who} go to {name}?", "when", [ev]))
        # changed: employer over three sessions
        jobs = rng.sample(EMPLOYERS, 3)
        ss = sorted(rng.sample(range(n_sessions), 3))
        ids = []
        for k, (s, job) in enumerate(zip(ss, jobs, strict=True)):
            verb = "I work at" if k == 0 else "I just started a new job at"
            text = f"{verb} {job} now."
            lid = plant(s, f"{who}: {text}")
            ids.append(lid)
            facts.append(
                {
                    "subject": who,
                    "predicate": "works_at",
                    "object": job,
                    "valid_from": dates[s],
                    "source": sid[s],
                    "statement": text,
                }
            )
        questions.append(Question(f"Where does {who} work now?", "changed", [ids[-1]], ids[:-1]))
        # changed: city
        cities = rng.sample(PLACES, 2)
        ss = sorted(rng.sample(range(n_sessions), 2))
        ids = []
        for k, (s, city) in enumerate(zip(ss, cities, strict=True)):
            text = f"I live in {city}." if k == 0 else f"I moved to {city} and love it."
            ids.append(plant(s, f"{who}: {text}"))
            facts.append(
                {
                    "subject": who,
                    "predicate": "lives_in",
                    "object": city,
                    "valid_from": dates[s],
                    "source": sid[s],
                    "statement": text,
                }
            )
        questions.append(
            Question(f"Which city does {who} live in now?", "changed", [ids[-1]], ids[:-1])
        )
    return Dialogue(
        sessions=[(sid[s], dates[s], sessions[s]) for s in range(n_sessions)],
        questions=questions,
        facts=facts,
        aliases={a: a_nick, b: b_nick},
    )


class BM25Lines:
    """Plain BM25 over ``Speaker: text`` lines (graphmem's tokenizer), filling a budget."""

    def __init__(self, docs: list[tuple[str, str]]) -> None:
        self.ids = [d for d, _ in docs]
        self.texts = [t for _, t in docs]
        self.tf = [Counter(terms(t)) for t in self.texts]
        self.len = [sum(c.values()) for c in self.tf]
        self.avg = sum(self.len) / max(len(self.len), 1)
        self.df: Counter[str] = Counter()
        for c in self.tf:
            self.df.update(c.keys())

    def rank(self, query: str) -> list[int]:
        q = set(terms(query))
        n = len(self.ids)
        scores = []
        for i, c in enumerate(self.tf):
            s = 0.0
            for w in q:
                tf = c.get(w, 0)
                if tf:
                    idf = math.log10((n - self.df[w] + 0.5) / (self.df[w] + 0.5) + 1)
                    s += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * self.len[i] / self.avg))
            if s > 0:
                scores.append((-s, self.ids[i], i))
        return [i for _, _, i in sorted(scores)]

    def context(self, query: str, budget_tokens: int) -> set[str]:
        room, used, shown = budget_tokens * 4, 0, set()
        for i in self.rank(query):
            size = len(self.texts[i]) + 1
            if used + size <= room:
                shown.add(self.ids[i])
                used += size
        return shown


def _shown_lines(ctx: gm.Context) -> dict[str, str | None]:
    """Map each shown line's text to the date of its passage."""
    out: dict[str, str | None] = {}
    date = None
    for line in str(ctx).splitlines():
        if line.startswith("- [") and "] " in line:
            date, _, text = line[3:].partition("] ")
            out[text] = date
        elif line.startswith("  ") and date is not None:
            out[line[2:]] = date
        else:
            date = None
    return out


def evaluate(n_dialogues: int, budgets: tuple[int, ...]) -> dict[str, Any]:
    """Run the recall comparison; return the numbers."""
    res: dict[str, Any] = {b: Counter() for b in budgets}
    kinds: Counter[str] = Counter()
    for seed in range(n_dialogues):
        d = make_dialogue(seed)
        clock = ManualClock("2021-01-01")
        with gm.open(clock=clock) as mem:
            for name, nick in d.aliases.items():
                mem.define_entity(name, kind="person", aliases=[nick])
            texts: dict[str, tuple[str, str]] = {}
            docs = []
            for sid, date, turns in d.sessions:
                clock.set(date)
                mem.add_session("\n".join(turns), started_at=date, session_id=sid, extract=False)
                for k, turn in enumerate(turns, start=1):
                    texts[f"{sid}#{k}"] = (turn, date)
                    docs.append((f"{sid}#{k}", turn))
                for f in d.facts:
                    if f["source"] == sid:
                        mem.add_fact(**f)
            clock.set("2026-01-01")
            bm25 = BM25Lines(docs)
            for q in d.questions:
                kinds[q.kind] += 1
                for b in budgets:
                    ctx = mem.context(q.text, budget_tokens=b)
                    shown = _shown_lines(ctx)
                    got = all(texts[e][0].split(": ", 1)[1] in str(ctx) for e in q.evidence)
                    r = res[b]
                    r["questions"] += 1
                    r["graphmem"] += got
                    r[f"graphmem_{q.kind}"] += got
                    base = bm25.context(q.text, b)
                    hit = all(e in base for e in q.evidence)
                    r["bm25"] += hit
                    r[f"bm25_{q.kind}"] += hit
                    if q.kind == "when" and got:
                        for e in q.evidence:
                            turn, date = texts[e]
                            dated = [
                                v
                                for k, v in shown.items()
                                if k.startswith(turn.split(": ", 1)[0])
                                and turn.split(": ", 1)[1] in k
                            ]
                            r["when_dated"] += bool(dated) and dated[0] == fmt_date(gm.to_utc(date))
                            r["when_shown"] += 1
                    for old in q.old:
                        turn = texts[old][0]
                        for k in shown:
                            if turn.split(": ", 1)[1] in k:
                                r["old_shown"] += 1
                                r["old_marked"] += "(superseded" in k
    return {"budgets": res, "kinds": kinds}


def latency(n_sessions: int, lines_per: int, queries: int = 60) -> dict[str, float]:
    """context() p50 over a store of n_sessions x lines_per lines (warm, and cold first call)."""
    rng = random.Random(5)
    vocab = [f"{w}{i}" for w in ("topic", "thing", "place", "name") for i in range(3000)]
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/episodic.kuzu"
        clock = ManualClock("2024-01-01")
        with gm.open(path, clock=clock) as mem:
            started = time.perf_counter()
            for start in range(0, n_sessions, 1000):
                rows = []
                for s in range(start, min(start + 1000, n_sessions)):
                    text = "\n".join(
                        f"{('Ann', 'Bo')[k % 2]}: "
                        + " ".join(rng.choice(vocab) for _ in range(10))
                        + " and some common words about the project"
                        for k in range(lines_per)
                    )
                    rows.append(
                        {
                            "session_id": f"s{s}",
                            "started_at": f"2023-{s % 12 + 1:02d}-{s % 27 + 1:02d}",
                            "text": text,
                            "mentions": {},
                        }
                    )
                from graphmem.sessions import add_sessions

                add_sessions(mem, rows, extract=False)
            out["write_s"] = time.perf_counter() - started
            mem.add_facts(
                [
                    {
                        "subject": f"topic{i}",
                        "predicate": "uses",
                        "object": f"thing{i}",
                        "source": f"s{i}",
                        "statement": f"topic{i} uses thing{i}",
                    }
                    for i in range(n_sessions)
                ]
            )
            out["lines"] = float(
                mem._store.line_counts().__len__() and sum(mem._store.line_counts().values())
            )
        with gm.open(path, clock=clock) as mem:
            t0 = time.perf_counter()
            mem.context("what about topic17 and place99?")
            out["cold_first_ms"] = (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            mem.context("what about topic18 and place98?")
            out["second_ms"] = (time.perf_counter() - t0) * 1000
            times = []
            for _ in range(queries):
                q = f"what did we say about {rng.choice(vocab)} and {rng.choice(vocab)}?"
                t0 = time.perf_counter()
                mem.context(q, budget_tokens=1000)
                times.append((time.perf_counter() - t0) * 1000)
            out["p50_ms"] = statistics.median(times)
            out["p95_ms"] = sorted(times)[int(0.95 * len(times)) - 1]
    return out


def main() -> None:
    """Print the tables."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--dialogues", type=int, default=12)
    ap.add_argument("--scale-sessions", type=int, default=10_000)
    ap.add_argument("--lines-per-session", type=int, default=20)
    args = ap.parse_args()
    budgets = (500, 1000, 2000)
    r = evaluate(args.dialogues, budgets)
    kinds = r["kinds"]
    print(f"{args.dialogues} dialogues, questions by kind: {dict(sorted(kinds.items()))}")
    print(
        "| budget | graphmem | BM25 lines | ratio | when lines dated | old values shown / marked |"
    )
    print("|---|---|---|---|---|---|")
    for b in budgets:
        c = r["budgets"][b]
        g, m = c["graphmem"] / c["questions"], c["bm25"] / c["questions"]
        print(
            f"| {b} | {g:.0%} | {m:.0%} | {g / m if m else float('inf'):.2f}x | "
            f"{c['when_dated']}/{c['when_shown']} | {c['old_shown']} / {c['old_marked']} |"
        )
    print("\nby kind at 1000 tokens (graphmem / BM25):")
    c = r["budgets"][1000]
    for k in sorted(kinds):
        print(f"- {k}: {c['graphmem_' + k] / kinds[k]:.0%} / {c['bm25_' + k] / kinds[k]:.0%}")
    if args.scale_sessions:
        lat = latency(args.scale_sessions, args.lines_per_session)
        print(
            f"\nscale: {args.scale_sessions} sessions, {lat['lines']:.0f} lines: write "
            f"{lat['write_s']:.1f} s; context() cold first call {lat['cold_first_ms']:.0f} ms, "
            f"second {lat['second_ms']:.0f} ms, then p50 {lat['p50_ms']:.1f} ms, "
            f"p95 {lat['p95_ms']:.1f} ms"
        )


if __name__ == "__main__":
    main()
