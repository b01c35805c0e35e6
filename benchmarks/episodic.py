"""Episodic recall benchmark: evidence recall of ``context()`` against plain BM25, on seeded talk.

Run: ``PYTHONPATH=. python -m benchmarks.episodic [--conversations 4] [--budgets 500,1000,2000]
[--scale-sessions 10000] [--json]``. Not part of the test run; the method and the measured
table are in docs/benchmarks.md#episodic-recall.

**Data**: long generated conversations between two friends (:mod:`benchmarks.episodic_data`,
fixed seeds, never read from a public set): dozens of dated sessions, hundreds of turns,
questions in LoCoMo's four categories (multi-hop, temporal, open-domain, single-hop) whose
words paraphrase the evidence, among many turns on the same people and topics that answer
nothing; and a fifth category LoCoMo lacks, ``changed`` (a value that changed between sessions,
asked as "now"), reported apart and kept out of ``overall`` so that it compares with LoCoMo's.

**Replay and scoring** are LoCoMo's (:mod:`benchmarks.locomo_recall`, the same functions):
each conversation goes into a fresh in-memory ``gm.open()``, one ``add_session(text,
started_at=date)`` per session with the text pipeline on, the clock following the sessions;
each question is asked at every budget of ``context()`` and of the two BM25 baselines over the
turns (plain words, and graphmem's index words), and a question's **evidence recall** is the
share of its evidence turns shown whole with their speaker.

Also checked on graphmem's block: the evidence of a temporal question is shown under its
session's date; for a value that changed, how often an old statement is shown, and how often
it is then marked as replaced (``(superseded`` / ``(replaced``).

**Latency** (``--scale-sessions``, 0 to skip): ``context()`` at 10k sessions / 200k lines on Kuzu.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

import graphmem as gm
from benchmarks.episodic_data import CHANGED, make_conversation
from benchmarks.locomo_recall import BM25, SYSTEMS, Run, Turn, plain_words, score, summary
from benchmarks.public_text import _advance, _open
from graphmem.episodic import fmt_date
from graphmem.store.textlines import terms
from graphmem.timeutil import ManualClock

BUDGETS = (500, 1000, 2000)


def _shown_lines(block: str) -> dict[str, str | None]:
    """Map each shown line's text to the date of its passage in a ``context()`` block."""
    out: dict[str, str | None] = {}
    date = None
    for line in block.splitlines():
        if line.startswith("- [") and "] " in line:
            date, _, text = line[3:].partition("] ")
            out[text] = date
        elif line.startswith("  ") and date is not None:
            out[line[2:]] = date
        else:
            date = None
    return out


def evaluate(
    n_conversations: int, budgets: Sequence[int] = BUDGETS, **shape: Any
) -> tuple[Run, Counter[str]]:
    """Replay ``n_conversations`` seeded conversations and score their questions."""
    run = Run()
    checks: Counter[str] = Counter()
    for seed in range(n_conversations):
        conv = make_conversation(seed, **shape)
        turns: dict[str, Turn] = {}
        for n, started, rows in conv.sessions:
            for k, (speaker, text) in enumerate(rows, start=1):
                turns[f"D{n}:{k}"] = Turn(f"D{n}:{k}", speaker, text, started)
        run.conversations += 1
        run.turns += len(turns)
        docs = [(d, f"{t.speaker}: {t.text}") for d, t in turns.items()]
        baselines = {"bm25": BM25(docs, plain_words), "bm25-terms": BM25(docs, terms)}
        mem, clock = _open(conv.sessions[0][1])
        with mem:
            t0 = time.perf_counter()
            for n, started, rows in conv.sessions:
                _advance(clock, started)
                text = "\n".join(f"{who}: {said}" for who, said in rows)
                mem.add_session(text, started_at=started, session_id=f"seed{seed}-{n}")
            run.ingest_s += time.perf_counter() - t0
            for q in conv.questions:
                evidence = [turns[i] for i in q.evidence]
                blocks = score(
                    run,
                    mem,
                    baselines,
                    turns,
                    q.text,
                    evidence,
                    q.category,
                    budgets,
                    f"seed {seed}",
                    overall=q.category != CHANGED,  # LoCoMo has no such category
                )
                for b, block in blocks.items():
                    shown = _shown_lines(block)
                    if q.category == "temporal":
                        for t in evidence:
                            dates = [d for k, d in shown.items() if t.text in k]
                            checks[f"{b}_when_shown"] += bool(dates)
                            checks[f"{b}_when_dated"] += fmt_date(t.date) in dates
                    for old in q.old:
                        for k in shown:
                            if turns[old].text in k:
                                checks[f"{b}_old_shown"] += 1
                                checks[f"{b}_old_marked"] += "(superseded" in k or "(replaced" in k
                    checks[f"{b}_{q.kind}_questions"] += bool(q.kind)
    return run, checks


def latency(n_sessions: int, lines_per: int, queries: int = 60) -> dict[str, float]:
    """context() p50 over a store of n_sessions x lines_per lines (warm, and cold first call).

    The store is :func:`benchmarks.line_latency.build`'s (sessions, then one fact per session);
    ``write_s`` times both.
    """
    from benchmarks.line_latency import VOCAB, build

    rng = random.Random(5)
    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = f"{tmp}/episodic.kuzu"
        started = time.perf_counter()
        build(path, n_sessions, lines_per)
        out["write_s"] = time.perf_counter() - started
        with gm.open(path, clock=ManualClock("2024-01-01")) as mem:
            out["lines"] = float(sum(mem._store.line_counts().values()))
            t0 = time.perf_counter()
            mem.context("what about topic17 and place99?")
            out["cold_first_ms"] = (time.perf_counter() - t0) * 1000
            t0 = time.perf_counter()
            mem.context("what about topic18 and place98?")
            out["second_ms"] = (time.perf_counter() - t0) * 1000
            times = []
            for _ in range(queries):
                q = f"what did we say about {rng.choice(VOCAB)} and {rng.choice(VOCAB)}?"
                t0 = time.perf_counter()
                mem.context(q, budget_tokens=1000)
                times.append((time.perf_counter() - t0) * 1000)
            out["p50_ms"] = statistics.median(times)
            out["p95_ms"] = sorted(times)[int(0.95 * len(times)) - 1]
    return out


def print_table(res: dict[str, Any], checks: Counter[str]) -> None:
    """Print the figures as markdown."""
    print(
        f"\n## Seeded evidence recall: {res['conversations']} conversations, "
        f"{res['turns']:,} turns\n"
    )
    print("| budget | category | questions | graphmem | BM25 | ratio | BM25 (graphmem's words) |")
    print("|---|---|---|---|---|---|---|")
    for b, row in res["budgets"].items():
        for cat, r in row["by_category"].items():
            name = f"**{cat}**" if cat == "overall" else cat
            g, m, w = (r[s]["evidence_recall"] for s in SYSTEMS)
            ratio = f"{g / m:.2f}×" if m else "–"
            cells = [f"{int(b):,}", name, str(r["questions"]), f"{g:.3f}", f"{m:.3f}", ratio]
            print("| " + " | ".join([*cells, f"{w:.3f}"]) + " |")
    print(
        "\n| budget | context() p50 ms | temporal evidence shown / under its date "
        "| old values shown / marked |"
    )
    print("|---|---|---|---|")
    for b, row in res["budgets"].items():
        print(
            f"| {int(b):,} | {row['context_ms_p50']} | {checks[f'{b}_when_shown']} / "
            f"{checks[f'{b}_when_dated']} | {checks[f'{b}_old_shown']} / "
            f"{checks[f'{b}_old_marked']} |"
        )
    print(f"\ningest {res['ingest_seconds']} s")


def main(argv: Sequence[str] | None = None) -> int:
    """Print the tables (or the figures as JSON)."""
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.episodic", description=(__doc__ or "").split("\n")[0]
    )
    ap.add_argument("--conversations", "--dialogues", type=int, default=4)
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)), help="token budgets")
    ap.add_argument("--scale-sessions", type=int, default=10_000, help="0 skips the latency run")
    ap.add_argument("--lines-per-session", type=int, default=20)
    ap.add_argument("--json", action="store_true", help="write the figures to stdout as JSON")
    args = ap.parse_args(argv)
    budgets = tuple(int(x) for x in args.budgets.split(",") if x.strip())
    t0 = time.perf_counter()
    run, checks = evaluate(args.conversations, budgets)
    res = summary(run, budgets, extra=(CHANGED,))
    res["checks"] = dict(sorted(checks.items()))
    res["recall_seconds"] = round(time.perf_counter() - t0, 1)
    if args.json:
        json.dump(res, sys.stdout, indent=2)
        print()
    else:
        print_table(res, checks)
        print(f"recall part: {res['recall_seconds']} s")
    if args.scale_sessions:
        lat = latency(args.scale_sessions, args.lines_per_session)
        print(
            f"\nscale: {args.scale_sessions} sessions, {lat['lines']:.0f} lines: write "
            f"{lat['write_s']:.1f} s; context() cold first call {lat['cold_first_ms']:.0f} ms, "
            f"second {lat['second_ms']:.0f} ms, then p50 {lat['p50_ms']:.1f} ms, "
            f"p95 {lat['p95_ms']:.1f} ms",
            file=sys.stderr if args.json else sys.stdout,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
