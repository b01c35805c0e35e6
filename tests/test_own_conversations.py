"""graphmem's own blind conversations: well-formed, and scored by the LoCoMo recall benchmark.

See docs/benchmarks.md#own-conversations.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from pathlib import Path

import pytest

from benchmarks import locomo_recall as lr
from benchmarks.public_text import locomo_sessions

FOLDER = Path(__file__).resolve().parents[1] / "benchmarks" / "conversations"
FILES = sorted(FOLDER.glob("*.json"))


def test_there_are_three() -> None:
    assert [p.stem for p in FILES] == ["c1", "c2", "c3"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_evidence_id_names_a_turn_of_a_dated_session(path: Path) -> None:
    conv = json.loads(path.read_text())
    sessions = locomo_sessions(conv)
    assert len(sessions) == 18
    days = [started for _, started, _ in sessions]
    assert days == sorted(days)
    assert all(d.tzinfo == dt.timezone.utc for d in days)
    turns = {t["dia_id"]: t for _, _, rows in sessions for t in rows}
    assert {t["speaker"] for t in turns.values()} == {conv["speaker_a"], conv["speaker_b"]}
    for q in conv["qa"]:
        ids = lr.evidence_ids(q["evidence"])
        assert ids, q
        assert all(i in turns for i in ids), q
    assert Counter(q["category"] for q in conv["qa"]) == {4: 28, 2: 14, 1: 12, 3: 6}


@pytest.mark.slow
def test_the_benchmark_scores_one_conversation(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--folder", str(FOLDER), "--conversations", "1", "--budgets", "500", "--json"]
    assert lr.main(argv) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["conversations"] == 1
    assert res["questions_without_evidence"] == 0
    overall = res["budgets"]["500"]["by_category"]["overall"]
    assert overall["questions"] == 60
    # Both systems find evidence; which finds more is the benchmark's to report, not a test's.
    assert overall["graphmem"]["evidence_recall"] > 0
    assert overall["bm25"]["evidence_recall"] > 0
