"""benchmarks/episodic.py and its generator: a smoke run on one small conversation.

The figures are in docs/benchmarks.md#episodic-recall; nothing here asserts a recall or a time.
"""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from benchmarks import episodic_data as ed
from benchmarks.episodic import evaluate, main


def test_generator_is_deterministic_and_evidence_names_turns() -> None:
    one, two = ed.make_conversation(3), ed.make_conversation(3)
    assert one == two
    assert one != ed.make_conversation(4)
    turns = {f"D{n}:{k}": t for n, _, rows in one.sessions for k, t in enumerate(rows, start=1)}
    assert len(turns) > 300  # long conversations
    kinds = Counter(q.category for q in one.questions)
    assert set(kinds) <= {*ed.CATEGORIES, ed.CHANGED}
    assert kinds["single-hop"]
    assert kinds["temporal"]
    assert kinds["multi-hop"]
    for q in one.questions:
        assert q.evidence
        assert all(e in turns for e in (*q.evidence, *q.old))
        assert all(turns[e][0] in one.speakers for e in q.evidence)
    # the two people alternate within a session
    for _, _, rows in one.sessions:
        assert all(a[0] != b[0] for a, b in pairwise(rows))


def test_evaluate_scores_every_budget_and_category_on_a_small_conversation() -> None:
    run, checks = evaluate(1, (500,), n_sessions=5, stories_each=4)
    assert run.conversations == 1
    assert run.turns > 50
    overall = run.tallies[("graphmem", 500, "overall")]
    changed = run.tallies[("graphmem", 500, ed.CHANGED)].questions
    assert overall.questions + changed == sum(
        run.tallies[("bm25", 500, c)].questions for c in (*ed.CATEGORIES, ed.CHANGED)
    )
    assert 0 <= overall.recall <= overall.questions
    assert checks["500_when_dated"] <= checks["500_when_shown"]


def test_main_prints_json_without_the_latency_run(capsys) -> None:
    assert main(["--conversations", "0", "--scale-sessions", "0", "--json"]) == 0
    assert '"budgets"' in capsys.readouterr().out
