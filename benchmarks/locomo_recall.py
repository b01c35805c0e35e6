"""Evidence recall of ``context()`` on LoCoMo, against plain BM25 over the turns.

Run: ``PYTHONPATH=. python -m benchmarks.locomo_recall [--budgets 500,1000,2000]
[--conversations N] [--json] [--data DIR]``. Not part of the test run; the method and the
measured table are in docs/benchmarks.md#locomo-recall. The data is read from
``../shared/data/locomo`` next to the repository (``--data`` to point elsewhere) and is never
copied into the project; the run is skipped with a message when it is absent.

**Replay** (the loader of :mod:`benchmarks.public_text`, so both benchmarks read LoCoMo the
same way): each conversation goes into a fresh in-memory ``gm.open()`` through the public API,
one ``add_session(text, started_at=date)`` per session in date order, turns as ``Speaker:
text`` lines, the clock following the session dates and left at the last session's start for
the questions.

**Questions**: categories 1 multi-hop, 2 temporal, 3 open-domain and 4 single-hop (1,540);
category 5 (adversarial: the answer is not in the conversation, so there is no evidence) is
left out. Evidence ids are read leniently (``"D8:6; D9:17"`` is two ids, ``"D:11:26"`` is
``D11:26``, ``"D30:05"`` is ``D30:5``); an id naming no turn is dropped, and a question left
with no evidence is not counted.

**Systems**, for each question and budget ``B``:

- graphmem: ``str(mem.context(question, budget_tokens=B))``. As in real use, every call bumps
  the access counters of the facts it shows (docs/concepts/recall.md#rule-4); the order of the
  calls is fixed (question order, then budgets), so the run is deterministic.
- BM25, two baselines: Okapi BM25 (``k1=1.2``, ``b=0.75``, :class:`BM25`) over the
  conversation's turns (``Speaker: text``), rendered as a header line and ``- [8 May 2023]
  Speaker: text`` lines, best first, a turn that does not fit skipped, until
  :func:`graphmem.context.estimate_tokens` of the block (the counter ``context()`` budgets
  with) would exceed ``B``. ``bm25`` tokenizes plainly (lower-cased runs of letters, digits
  and ``_``: the baseline the goal was set against); ``bm25-terms`` uses graphmem's own
  index words (:func:`graphmem.store.textlines.terms`: stop words dropped, lightly stemmed,
  graphmem's line index), a stronger baseline. :mod:`benchmarks.episodic` reports both.

**Evidence present**: both blocks and each evidence turn are reduced to words (case-folded,
runs of letters and digits). A turn is present when every non-blank line of its text appears
in the block as a contiguous run of words, the first line preceded by the speaker's name: a
turn is shown whole, with its speaker, or it is not counted. The same function judges both
systems. A question's **evidence recall** is the share of its evidence turns present (the
score of the LoCoMo README); **all evidence** counts the questions with every turn present.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import math
import re
import statistics
import sys
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.public_text import (
    DEFAULT_DATA,
    LOCOMO_DIR,
    _advance,
    _open,
    locomo_sessions,
    session_text,
)
from graphmem.context import estimate_tokens
from graphmem.episodic import fmt_date
from graphmem.store.textlines import terms

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}
BUDGETS = (500, 1000, 2000)
SYSTEMS = ("graphmem", "bm25", "bm25-terms")

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_EVIDENCE = re.compile(r"D:?(\d+):0*(\d+)")


def words(text: str) -> str:
    """The text as its words, case-folded, one space apart and padded with spaces."""
    found = _WORD.findall(unicodedata.normalize("NFKC", text).casefold())
    return " " + " ".join(found) + " "


@dataclass(frozen=True)
class Turn:
    """One turn of a conversation: its id, speaker, text and session date."""

    dia_id: str
    speaker: str
    text: str
    date: dt.datetime

    @property
    def line(self) -> str:
        """The turn as the baseline renders it."""
        return f"- [{fmt_date(self.date)}] {self.speaker}: {' '.join(self.text.split())}"

    @property
    def needles(self) -> tuple[str, ...]:
        """What must appear in a block's words for the turn to be present (module docs)."""
        parts = [p for p in self.text.splitlines() if words(p).strip()]
        return tuple(
            words(f"{self.speaker} {p}" if i == 0 else p) for i, p in enumerate(parts)
        ) or (words(self.speaker),)


def present(turn: Turn, block_words: str) -> bool:
    """Whether ``turn`` is shown in a block reduced by :func:`words`."""
    return all(n in block_words for n in turn.needles)


def evidence_ids(raw: Sequence[str]) -> list[str]:
    """``["D8:6; D9:17", "D:11:26", "D30:05"]`` -> ``["D8:6", "D9:17", "D11:26", "D30:5"]``."""
    out: list[str] = []
    for item in raw:
        for m in _EVIDENCE.finditer(item):
            key = f"D{int(m[1])}:{int(m[2])}"
            if key not in out:
                out.append(key)
    return out


def plain_words(text: str) -> list[str]:
    """The plain baseline's tokens: lower-cased runs of letters, digits and ``_``."""
    return re.findall(r"\w+", text.lower())


class BM25:
    """Okapi BM25 (``k1=1.2``, ``b=0.75``) over ``(id, text)`` documents."""

    K1, B = 1.2, 0.75

    def __init__(self, docs: Sequence[tuple[str, str]], tokens: Callable[[str], list[str]]):
        self.ids = [d for d, _ in docs]
        self.tokens = tokens
        self.tf = [Counter(tokens(t)) for _, t in docs]
        self.len = [sum(c.values()) for c in self.tf]
        self.avg = sum(self.len) / max(len(self.len), 1)
        self.df: Counter[str] = Counter(w for c in self.tf for w in c)

    def rank(self, query: str) -> list[str]:
        """The ids of the documents sharing a word with ``query``, best first, ties by order."""
        n, q = len(self.ids), set(self.tokens(query))
        idf = {w: math.log((n - self.df[w] + 0.5) / (self.df[w] + 0.5) + 1) for w in q}
        scored = []
        for i, c in enumerate(self.tf):
            norm = self.K1 * (1 - self.B + self.B * self.len[i] / self.avg)
            s = sum(idf[w] * c[w] * (self.K1 + 1) / (c[w] + norm) for w in q if w in c)
            if s > 0:
                scored.append((-s, i))
        return [self.ids[i] for _, i in sorted(scored)]


def bm25_block(index: BM25, turns: dict[str, Turn], question: str, budget: int) -> str:
    """The baseline's block: BM25's best turns, dated, filling ``budget`` tokens."""
    out = [f'Turns relevant to "{question.strip()[:80]}":']
    size = len(out[0])
    room = budget * 4
    for dia_id in index.rank(question):
        line = turns[dia_id].line
        if size + 1 + len(line) <= room:
            out.append(line)
            size += 1 + len(line)
    text = "\n".join(out)
    assert estimate_tokens(text) <= budget
    return text


@dataclass
class Tally:
    """Sums for one system, budget and category."""

    questions: int = 0
    recall: float = 0.0
    full: int = 0

    def add(self, share: float) -> None:
        self.questions += 1
        self.recall += share
        self.full += share == 1.0

    def out(self) -> dict[str, Any]:
        n = self.questions or 1
        return {
            "questions": self.questions,
            "evidence_recall": round(self.recall / n, 3),
            "all_evidence": round(self.full / n, 3),
        }


@dataclass
class Run:
    """Everything measured over the conversations."""

    tallies: dict[tuple[str, int, str], Tally] = field(default_factory=lambda: defaultdict(Tally))
    latency_ms: dict[int, list[float]] = field(default_factory=lambda: defaultdict(list))
    fact_chars: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    block_chars: dict[int, int] = field(default_factory=lambda: defaultdict(int))
    conversations: int = 0
    turns: int = 0
    skipped_questions: int = 0
    dropped_ids: int = 0
    ingest_s: float = 0.0
    misses: list[dict[str, Any]] = field(default_factory=list)


def _fact_chars(block: str) -> int:
    """Characters of a context block spent on fact lines (``- subject predicate ...``)."""
    return sum(
        len(ln) + 1 for ln in block.splitlines() if ln.startswith("- ") and not ln.startswith("- [")
    )


def run_conversation(path: Path, budgets: Sequence[int], run: Run) -> None:
    """Replay one conversation into a fresh memory and score its questions."""
    conv = json.loads(path.read_text())
    sessions = locomo_sessions(conv)
    turns: dict[str, Turn] = {}
    for _, started, rows in sessions:
        for t in rows:
            if t.get("text"):
                turns[t["dia_id"]] = Turn(t["dia_id"], t["speaker"], t["text"], started)
    run.conversations += 1
    run.turns += len(turns)
    docs = [(d, f"{t.speaker}: {t.text}") for d, t in turns.items()]
    baselines = {"bm25": BM25(docs, plain_words), "bm25-terms": BM25(docs, terms)}
    mem, clock = _open(sessions[0][1])
    with mem:
        t0 = time.perf_counter()
        for n, started, rows in sessions:
            _advance(clock, started)
            mem.add_session(session_text(rows), started_at=started, session_id=f"{path.stem}-{n}")
        run.ingest_s += time.perf_counter() - t0
        for q in conv["qa"]:
            cat = CATEGORIES.get(q.get("category"))
            if cat is None:
                continue
            ids = evidence_ids(q.get("evidence", []))
            evidence = [turns[i] for i in ids if i in turns]
            run.dropped_ids += len(ids) - len(evidence)
            if not evidence:
                run.skipped_questions += 1
                continue
            score(run, mem, baselines, turns, q["question"], evidence, cat, budgets, path.stem)


def score(
    run: Run,
    mem: Any,
    baselines: dict[str, BM25],
    turns: dict[str, Turn],
    question: str,
    evidence: Sequence[Turn],
    cat: str,
    budgets: Sequence[int],
    conversation: str,
    overall: bool = True,
) -> dict[int, str]:
    """Score one question: graphmem's block and each baseline's, at every budget (module docs).

    Shared with :mod:`benchmarks.episodic`, so both benchmarks judge blocks the same way.
    Returns graphmem's block for each budget. ``overall=False`` keeps the question out of the
    ``overall`` row (a category LoCoMo does not have).
    """
    out: dict[int, str] = {}
    for b in budgets:
        t0 = time.perf_counter()
        block = out[b] = str(mem.context(question, budget_tokens=b))
        run.latency_ms[b].append((time.perf_counter() - t0) * 1000)
        assert estimate_tokens(block) <= b
        run.fact_chars[b] += _fact_chars(block)
        run.block_chars[b] += len(block)
        blocks = {"graphmem": block}
        for name, index in baselines.items():
            blocks[name] = bm25_block(index, turns, question, b)
        shares = {}
        for system, text in blocks.items():
            bw = words(text)
            share = sum(present(t, bw) for t in evidence) / len(evidence)
            shares[system] = share
            run.tallies[(system, b, cat)].add(share)
            if overall:
                run.tallies[(system, b, "overall")].add(share)
        if shares["graphmem"] != max(shares.values()):
            run.misses.append(
                {
                    "conversation": conversation,
                    "budget": b,
                    "category": cat,
                    "question": question,
                    "evidence": [t.dia_id for t in evidence],
                    **shares,
                }
            )
    return out


def summary(run: Run, budgets: Sequence[int], extra: Sequence[str] = ()) -> dict[str, Any]:
    """The figures as a JSON-able dict (``extra``: categories beyond LoCoMo's four)."""
    rows: dict[str, Any] = {}
    for b in budgets:
        per: dict[str, Any] = {}
        for cat in (*CATEGORIES.values(), *extra, "overall"):
            got = {system: run.tallies[(system, b, cat)].out() for system in SYSTEMS}
            g = got["graphmem"]["evidence_recall"]
            per[cat] = {
                "questions": got["graphmem"]["questions"],
                **got,
                **{
                    f"ratio_{system}": round(g / got[system]["evidence_recall"], 3)
                    if got[system]["evidence_recall"]
                    else None
                    for system in SYSTEMS[1:]
                },
            }
        lat = run.latency_ms[b]
        rows[str(b)] = {
            "by_category": per,
            "context_ms_mean": round(statistics.fmean(lat), 1) if lat else None,
            "context_ms_p50": round(statistics.median(lat), 1) if lat else None,
            "fact_share_of_block": round(run.fact_chars[b] / run.block_chars[b], 3)
            if run.block_chars[b]
            else None,
        }
    return {
        "date": dt.date.today().isoformat(),
        "conversations": run.conversations,
        "turns": run.turns,
        "questions_without_evidence": run.skipped_questions,
        "evidence_ids_dropped": run.dropped_ids,
        "ingest_seconds": round(run.ingest_s, 1),
        "budgets": rows,
    }


def _recall(row: dict[str, Any], system: str) -> str:
    return f"{row[system]['evidence_recall']:.3f}"


def print_table(res: dict[str, Any]) -> None:
    """Print the figures as markdown."""
    print(
        f"\n## LoCoMo evidence recall: {res['conversations']} conversations, "
        f"{res['turns']:,} turns\n"
    )
    print(
        "| budget | category | questions | graphmem | BM25 | ratio | BM25 (graphmem's words) "
        "| ratio | all evidence: graphmem / BM25 / BM25 (words) |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for b, row in res["budgets"].items():
        for cat, r in row["by_category"].items():
            name = f"**{cat}**" if cat == "overall" else cat
            cells = [f"{int(b):,}", name, str(r["questions"]), f"{_recall(r, 'graphmem')}"]
            for system in SYSTEMS[1:]:
                ratio = r[f"ratio_{system}"]
                cells += [_recall(r, system), "–" if ratio is None else f"{ratio:.2f}×"]
            cells.append(" / ".join(f"{r[s]['all_evidence']:.3f}" for s in SYSTEMS))
            print("| " + " | ".join(cells) + " |")
    print("\n| budget | context() mean ms | p50 ms | share of graphmem's block on facts |")
    print("|---|---|---|---|")
    for b, row in res["budgets"].items():
        print(
            f"| {int(b):,} | {row['context_ms_mean']} | {row['context_ms_p50']} "
            f"| {row['fact_share_of_block']:.0%} |"
        )
    print(
        f"\ningest {res['ingest_seconds']} s; questions without a resolvable evidence turn: "
        f"{res['questions_without_evidence']}; evidence ids naming no turn: "
        f"{res['evidence_ids_dropped']}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark and print (or dump) the figures."""
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.locomo_recall", description=(__doc__ or "").split("\n")[0]
    )
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)), help="token budgets")
    ap.add_argument("--conversations", type=int, default=None, help="first N conversations")
    ap.add_argument("--json", action="store_true", help="write the figures to stdout as JSON")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"default {DEFAULT_DATA}")
    ap.add_argument("--misses", type=Path, default=None, help="write the differing questions")
    ap.add_argument(
        "--folder",
        type=Path,
        default=None,
        help="conversations in LoCoMo's format in this folder instead of DATA/locomo (e.g. "
        "benchmarks/conversations, graphmem's own: docs/benchmarks.md#own-conversations)",
    )
    a = ap.parse_args(argv)
    budgets = tuple(int(x) for x in a.budgets.split(",") if x.strip())
    folder = a.folder or a.data / LOCOMO_DIR
    files = sorted(folder.glob("*.json"), key=lambda p: p.stem)[: a.conversations]
    if not files:
        print(
            f"locomo_recall: skipped: no LoCoMo conversations in {folder}. The data lives "
            f"outside the repository, in ../shared/data next to it; pass --data DIR.",
            file=sys.stderr,
        )
        return 0
    run = Run()
    for path in files:
        run_conversation(path, budgets, run)
        print(f"locomo_recall: {path.stem} done", file=sys.stderr)
    res = summary(run, budgets)
    if a.misses:
        a.misses.write_text("\n".join(json.dumps(m) for m in run.misses) + "\n")
    if a.json:
        json.dump(res, sys.stdout, indent=2)
        print()
    else:
        print_table(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
