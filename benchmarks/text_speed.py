"""How fast text becomes facts: ``add_sessions`` on LoCoMo turns, and one short ``add_session``.

Run: ``python -m benchmarks.text_speed [--turns 2000] [--repeat 3] [--calls 40] [--json]
[--data DIR]``. Not part of the test run. Two figures, each timed as CPU time of the process
(``time.process_time``) and as wall time, since the machine is shared (the CPU figure is the
one that does not move with other work on it):

- **add_sessions**: the first ``--turns`` turns of LoCoMo (whole sessions, conversations in
  file order, ``Speaker: text`` lines started at the session's date, as in
  :mod:`benchmarks.public_text`) in one ``add_sessions`` call into a fresh in-memory
  ``gm.open()``; sentences per second, sentences counted as ``public_text`` counts them (split
  after ``.``, ``!``, ``?``). Repeated ``--repeat`` times, each into a new memory; the best and
  the median are reported.
- **add_session of 10 sentences**: ``--calls`` texts of exactly 10 sentences (consecutive
  sentences of LoCoMo turns, each with its speaker, from starting points drawn with a fixed
  seed), each one ``add_session`` into one memory (after one call to load the parser); p50 and
  p95 per call.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import statistics
import time
from pathlib import Path
from typing import Any

from benchmarks.public_text import (
    _SENT,
    DEFAULT_DATA,
    LOCOMO_DIR,
    count_sentences,
    locomo_sessions,
    need,
    session_text,
)

SEED = 20261201


def load(data: Path, turns: int) -> tuple[list[dict[str, Any]], int, int]:
    """The first sessions holding ``turns`` turns: ``(items, turns, sentences)``."""
    items: list[dict[str, Any]] = []
    seen = sentences = 0
    for path in sorted(need(data / LOCOMO_DIR).glob("*.json"), key=lambda p: p.stem):
        conv = json.loads(path.read_text())
        for n, started, ts in locomo_sessions(conv):
            if seen >= turns:
                return items, seen, sentences
            items.append(
                {"session_id": f"{path.stem}-{n}", "started_at": started, "text": session_text(ts)}
            )
            seen += len(ts)
            sentences += sum(count_sentences(t.get("text", "")) for t in ts)
    return items, seen, sentences


def ten_sentence_texts(data: Path, calls: int) -> list[tuple[str, dt.datetime]]:
    """``calls`` texts of 10 ``Speaker: sentence`` lines, from seeded starting points."""
    lines: list[tuple[str, dt.datetime]] = []
    for path in sorted(need(data / LOCOMO_DIR).glob("*.json"), key=lambda p: p.stem):
        conv = json.loads(path.read_text())
        for _, started, ts in locomo_sessions(conv):
            for t in ts:
                for s in _SENT.split(t.get("text", "").strip()):
                    if s.strip():
                        lines.append((f"{t['speaker']}: {s.strip()}", started))
    rng = random.Random(SEED)
    starts = sorted(rng.sample(range(len(lines) - 10), calls))
    return [("\n".join(x for x, _ in lines[i : i + 10]), lines[i][1]) for i in starts]


def bench_sessions(items: list[dict[str, Any]], sentences: int, repeat: int) -> dict[str, Any]:
    import graphmem as gm
    from graphmem.admission import AdmissionPolicy
    from graphmem.sessions import add_sessions
    from graphmem.timeutil import ManualClock

    end = max(i["started_at"] for i in items) + dt.timedelta(days=1)
    runs = []
    for _ in range(repeat):
        mem = gm.open(clock=ManualClock(end), admission=AdmissionPolicy.unlimited())
        with mem:
            cpu, wall = time.process_time(), time.perf_counter()
            add_sessions(mem, items)
            runs.append((time.process_time() - cpu, time.perf_counter() - wall))
    cpus, walls = [c for c, _ in runs], [w for _, w in runs]
    return {
        "sessions": len(items),
        "sentences": sentences,
        "cpu_s": [round(c, 2) for c in cpus],
        "wall_s": [round(w, 2) for w in walls],
        "sentences_per_cpu_s": {
            "best": round(sentences / min(cpus)),
            "median": round(sentences / statistics.median(cpus)),
        },
        "sentences_per_wall_s": {
            "best": round(sentences / min(walls)),
            "median": round(sentences / statistics.median(walls)),
        },
    }


def bench_one(texts: list[tuple[str, dt.datetime]]) -> dict[str, Any]:
    import graphmem as gm
    from graphmem.admission import AdmissionPolicy
    from graphmem.timeutil import ManualClock

    end = max(at for _, at in texts) + dt.timedelta(days=1)
    cpus, walls = [], []
    with gm.open(clock=ManualClock(end), admission=AdmissionPolicy.unlimited()) as mem:
        mem.add_session("Caroline: I moved to Berlin last year.", started_at=end)  # loads
        for text, at in texts:
            cpu, wall = time.process_time(), time.perf_counter()
            mem.add_session(text, started_at=at)
            cpus.append((time.process_time() - cpu) * 1000)
            walls.append((time.perf_counter() - wall) * 1000)

    def pcts(xs: list[float]) -> dict[str, float]:
        xs = sorted(xs)
        return {"p50": round(xs[len(xs) // 2], 1), "p95": round(xs[int(len(xs) * 0.95)], 1)}

    return {"calls": len(texts), "cpu_ms": pcts(cpus), "wall_ms": pcts(walls)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--calls", type=int, default=40)
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    from graphmem.text.nlp import parser_name

    items, turns, sentences = load(a.data, a.turns)
    res = {
        "parser": parser_name(),
        "turns": turns,
        "add_sessions": bench_sessions(items, sentences, a.repeat),
        "add_session_10": bench_one(ten_sentence_texts(a.data, a.calls)),
    }
    if a.json:
        print(json.dumps(res, indent=2))
        return
    s, o = res["add_sessions"], res["add_session_10"]
    print(f"parser: {res['parser']}")
    print(
        f"add_sessions: {s['sessions']} sessions, {turns} turns, {sentences} sentences; "
        f"CPU s {s['cpu_s']}, wall s {s['wall_s']}; sentences/s CPU best "
        f"{s['sentences_per_cpu_s']['best']} median {s['sentences_per_cpu_s']['median']}, "
        f"wall best {s['sentences_per_wall_s']['best']} "
        f"median {s['sentences_per_wall_s']['median']}"
    )
    print(
        f"add_session of 10 sentences ({o['calls']} calls): CPU p50 {o['cpu_ms']['p50']} ms "
        f"p95 {o['cpu_ms']['p95']} ms; wall p50 {o['wall_ms']['p50']} ms "
        f"p95 {o['wall_ms']['p95']} ms"
    )


if __name__ == "__main__":
    main()
