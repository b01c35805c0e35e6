"""benchmarks/public_text.py: the scoring helpers on hand-made inputs, and each set on 2 items.

The runs on data need the public sets in ``../shared/data`` next to the repository (never
copied into it); without them they skip with the reason.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from benchmarks import public_text as pt

DATA = pt.DEFAULT_DATA


# -- helpers, no data -------------------------------------------------------------------------


def test_stale_rule_is_the_smoke_checks() -> None:
    lines = ["API runs_on Go (since 2026-06-10; was Laravel)", "[2 Mar] The API runs on Laravel."]
    assert pt.stale_lines(lines, "laravel") == ["[2 Mar] The API runs on Laravel."]
    assert (
        pt.stale_lines(["The API runs on Laravel. (superseded 10 Jun 2026: runs_on Go)"], "Laravel")
        == []
    )
    assert pt.stale_lines(["We no longer use Laravel"], "laravel") == []


def test_lifecycle_row_passes_only_with_current_and_no_stale() -> None:
    assert pt.lifecycle_row(["user diet pescatarian"], "Pescatarian", ["vegan"])[0]
    ok, found, leaked, _ = pt.lifecycle_row(
        ["user diet pescatarian", "user note I'm vegan"], "pescatarian", ["vegan"]
    )
    assert (ok, found, leaked) == (False, True, ["vegan"])
    # The rule is per line, as in the smoke check: a past marker anywhere on the line exempts it.
    assert pt.lifecycle_row(["user diet vegan (was pescatarian)"], "pescatarian", ["vegan"])[0]
    assert pt.lifecycle_row(["user diet pescatarian (formerly vegan)"], "pescatarian", ["vegan"])[0]
    assert not pt.lifecycle_row([], "austin")[0]
    ok, _, _, polluted = pt.lifecycle_row(
        ["flight to Austin", "mother's birthday"], "austin", (), "birthday"
    )
    assert not ok
    assert polluted


def test_memvara_value_rules() -> None:
    assert pt.matches_value("london.", "London")
    assert pt.matches_value("London office", "London", competitors=["Berlin"])
    assert not pt.matches_value("Berlin, then London", "London", competitors=["Berlin", "London"])
    assert not pt.matches_value("New Yorkshire", "York")
    assert pt.matches_value("NYC", "New York", aliases=["NYC"])
    long = " ".join(["word"] * 12) + " London"
    assert not pt.matches_value(long, "London")  # 13 tokens: past the containment ceiling


def test_memvara_set_date_none_rules() -> None:
    assert pt.matches_set(["london.", " BERLIN "], ["Berlin", "London"])
    assert not pt.matches_set(["London", "Berlin", "Paris"], ["Berlin", "London"])
    assert not pt.matches_set(["London office", "Berlin"], ["Berlin", "London"])
    assert pt.parse_date("2026-03-15T09:00:00Z") == dt.date(2026, 3, 15)
    assert pt.parse_date("last March") is None
    assert pt.amb_grade({"kind": "none"}, pt.Answer())
    assert not pt.amb_grade({"kind": "none"}, pt.Answer(value="Paris"))
    assert pt.amb_grade({"kind": "date", "value": "2026-03-15"}, pt.Answer(value="2026-03-15"))
    assert not pt.amb_grade(
        {"kind": "date", "value": "2026-03-15"}, pt.Answer(value="15 March 2026")
    )
    assert pt.amb_grade({"kind": "set", "values": ["a", "b"]}, pt.Answer(values=("B", "a")))
    gold = {"kind": "value", "value": "Paris"}
    assert not pt.amb_grade(gold, pt.Answer(values=("Paris", "London")))
    assert not pt.amb_grade(gold, pt.Answer())


def test_competitors_by_slot_and_scenario() -> None:
    events = [
        {"subject": "a", "predicate": "p", "object": "X", "scenario": "s"},
        {"subject": "a", "predicate": "p", "object": "Y", "scenario": "s"},
        {"subject": "b", "predicate": "q", "object": "Z", "scenario": "s"},
        {"subject": "a", "predicate": "p", "object": "X", "scenario": "s"},
    ]
    slots, scenarios = pt.amb_competitors(events)
    assert slots[("a", "p")] == ("X", "Y")
    assert scenarios["s"] == ("X", "Y", "Z")


def test_locomo_helpers() -> None:
    assert pt.parse_locomo_date("1:56 pm on 8 May, 2023") == dt.datetime(
        2023, 5, 8, 13, 56, tzinfo=dt.timezone.utc
    )
    assert pt.count_sentences("Hi Mel! How are you? I went to Dr. Lee.") == 4  # rough on purpose
    conv = {
        "session_2_date_time": "10:00 am on 9 May, 2023",
        "session_2": [{"speaker": "B", "text": "ok"}],
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [{"speaker": "A", "text": "Hi."}, {"speaker": "B", "text": "Hello."}],
        "session_1_summary": "not a session",
    }
    sessions = pt.locomo_sessions(conv)
    assert [n for n, _, _ in sessions] == [1, 2]
    assert pt.session_text(sessions[0][2]) == "A: Hi.\nB: Hello."


def test_missing_data_exits_with_a_message(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as e:
        pt.main(["lifecycle", "--data", str(tmp_path / "nowhere")])
    assert "not found" in str(e.value)
    assert "--data" in str(e.value)


# -- each set on 2 items, when the data is here ----------------------------------------------


def _need_data() -> None:
    if not (DATA / pt.AMB_DIR).is_dir() or not (DATA / pt.LOCOMO_DIR).is_dir():
        pytest.skip(f"../shared/data not found: {DATA} (the public sets are never in the repo)")


@pytest.mark.slow
def test_lifecycle_on_two_scenarios() -> None:
    _need_data()
    for owner in (None, "user"):
        rows = pt.run_lifecycle(DATA, limit=2, owner=owner)
        assert {r.scenario for r in rows} == {"diet-drift", "relocation-career"}
        assert {r.kind for r in rows} == {"profile", "checkpoint", "probe"}
        summary = pt.lifecycle_summary(rows)
        assert summary["overall"]["total"] == len(rows)


@pytest.mark.slow
def test_amb_on_two_questions() -> None:
    _need_data()
    res = pt.run_amb(DATA, limit=2)
    assert res["overall"]["total"] == 2
    assert res["events"] == 342


@pytest.mark.slow
def test_locomo_and_cli_json_on_small_limits(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _need_data()
    sample = tmp_path / "sample.jsonl"
    assert pt.main(["locomo", "--limit", "1", "--json", "--sample-out", str(sample)]) == 0
    out = json.loads(capsys.readouterr().out)["locomo"]
    assert out["conversations"] == 1
    assert out["turns"] > 0
    assert out["sentences_per_s"]
    rows = [json.loads(x) for x in sample.read_text().splitlines()]
    assert len(rows) == out["sample_size"]
    assert all(r["statement"] for r in rows)
    # deterministic: the same sample again
    pt.run_locomo(DATA, limit=1, sample_out=tmp_path / "again.jsonl")
    assert (tmp_path / "again.jsonl").read_text() == sample.read_text()
