"""Which similarity decides free-text notes best: the lexical default or WordLlama embeddings.

Replays the labelled pairs of ``tests/data/note_pairs.jsonl`` through
``graphmem.contradiction.decide_text`` (the note rules: >= 0.97 noop, >= 0.88 supersede, a
negation with >= 0.88 invalidates, else add) with each similarity, comparing a negating text as
what it negates (:func:`graphmem.remember.negated_topic`), and prints one table:
the share of pairs decided right per label, and the wrong supersessions (a "different" pair
that replaced the old note: the worst error). Run: ``python -m benchmarks.note_similarity``.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from graphmem.contradiction import decide_text
from graphmem.remember import negated_topic
from graphmem.similarity import text_similarity

PAIRS = Path(__file__).resolve().parents[1] / "tests" / "data" / "note_pairs.jsonl"
#: The decisions that are right for each label.
RIGHT = {
    "same": {"noop", "supersede"},  # either way no duplicate note
    "update": {"supersede"},  # the old detail must not stay current
    "different": {"add"},
    "negation": {"invalidate"},
}


def wordllama() -> Callable[[str, str], float]:
    """WordLlama's bundled 256-d model, loaded from the wheel (never downloaded)."""
    import os

    import wordllama as wl

    model = wl.WordLlama.load(cache_dir=os.path.dirname(wl.__file__), disable_download=True)
    return lambda a, b: max(0.0, min(1.0, float(model.similarity(a, b))))


def evaluate(name: str, sim: Callable[[str, str], float], pairs: list[dict[str, str]]) -> str:
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    wrong_supersede = 0
    started = time.perf_counter()
    for p in pairs:
        # as Memory.remember does: a negating text is compared as what it negates
        decision = str(decide_text(p["b"], (p["a"], sim(p["a"], negated_topic(p["b"])))))
        total[p["label"]] += 1
        right[p["label"]] += decision in RIGHT[p["label"]]
        wrong_supersede += p["label"] == "different" and decision == "supersede"
    ms = (time.perf_counter() - started) * 1000 / len(pairs)
    cells = " ".join(f"{right[k] / total[k]:>9.2f}" for k in RIGHT)
    overall = sum(right.values()) / len(pairs)
    return f"{name:<18}{cells} {overall:>8.2f} {wrong_supersede:>10} {ms:>8.3f}"


def main() -> None:
    pairs = [json.loads(line) for line in PAIRS.read_text(encoding="utf-8").splitlines() if line]
    counts = Counter(p["label"] for p in pairs)
    print(f"{len(pairs)} labelled pairs ({', '.join(f'{k} {v}' for k, v in counts.items())})")
    print(
        f"{'similarity':<18}" + "".join(f"{k:>10}" for k in RIGHT) + "  overall  wrong sup  ms/pair"
    )
    print(evaluate("lexical", text_similarity, pairs))
    print(evaluate("wordllama (default)", wordllama(), pairs))


if __name__ == "__main__":
    main()
