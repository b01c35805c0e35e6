"""Echo folding and time cues of recall (docs/concepts/recall.md#echo-folding).

Near-duplicate lines fold into the best of them, which says how often and from when to when it
was said; a folded line never holds a word the kept one lacks, and a line marked superseded
never folds (nor takes others in). "When" questions rank the lines that say when.
"""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.context_render import _dedupe, render_line
from graphmem.episodic import LineCandidate
from graphmem.normalize import terms
from graphmem.recall_cues import asks_when, has_time_cue
from graphmem.store.records import LineRow
from graphmem.timeutil import ManualClock
from tests import backends

UTC = dt.timezone.utc


def _cand(
    sid: str, n: int, speaker: str | None, text: str, day: int, superseded: str | None = None
) -> LineCandidate:
    at = dt.datetime(2025, 1, day, tzinfo=UTC)
    row = LineRow(f"{sid}#{n}", sid, n, speaker, text, at, at)
    return LineCandidate(row, 1.0, 1.0, 1.0, superseded)


def test_near_duplicates_fold_into_the_best_with_how_often_and_when() -> None:
    cands = [
        _cand("a", 1, "Ann", "I really love hiking in the mountains with my dog.", 3),
        _cand("b", 4, "Ann", "I love hiking in the mountains with my dog!", 1),
        _cand("c", 2, "Ann", "i really love hiking in the mountains with my dog.", 9),
        _cand("d", 1, "Bob", "I love hiking in the mountains with my dog.", 2),
        _cand("e", 1, "Ann", "I love hiking.", 5),
    ]
    kept, same = _dedupe(cands)
    assert [c.line.id for c in kept] == ["a#1", "d#1", "e#1"]
    assert kept[0].echo == "said 3×, 1 Jan 2025–9 Jan 2025"
    assert kept[1].echo is None  # another speaker
    assert kept[2].echo is None  # too few words
    assert same == {"a#1": "a#1", "c#2": "a#1", "d#1": "d#1", "e#1": "e#1"}
    assert render_line(kept[0]).endswith("(said 3×, 1 Jan 2025–9 Jan 2025)")


def test_a_changed_figure_never_folds() -> None:
    # the indexed words leave numbers out: these differ only in the time, the amount, the version
    cands = [
        _cand("a", 1, None, "0 5 * * * /opt/jobs/export.sh # nightly export 05:00", 9),
        _cand("b", 1, None, "30 2 * * * /opt/jobs/export.sh # nightly export 02:30", 1),
        _cand("c", 1, "Ann", "the family plan costs $16.99 a month", 2),
        _cand("d", 1, "Ann", "the family plan costs $19.99 a month", 3),
        _cand("e", 1, "Ann", "staging runs postgres 16 on the big box", 4),
        _cand("f", 2, "Ann", "staging runs postgres 16 on the big box", 5),
    ]
    kept, _ = _dedupe(cands)
    assert [c.line.id for c in kept] == ["a#1", "b#1", "c#1", "d#1", "e#1"]
    assert kept[-1].echo == "said 2×, 4 Jan 2025–5 Jan 2025"  # the same figure still folds


def test_a_changed_value_never_folds() -> None:
    cands = [
        _cand("a", 1, "Ann", "I work at Acme as a senior engineer now", 1),
        _cand("b", 1, "Ann", "I work at Globex as a senior engineer now", 2),
        _cand("c", 1, "Ann", "I work at Acme as a senior engineer", 3, "superseded 2 Jan 2025"),
    ]
    kept, _ = _dedupe(cands)
    assert [c.line.id for c in kept] == ["a#1", "b#1", "c#1"]
    assert all(c.echo is None for c in kept)


_WORDS = st.sampled_from(
    ["acme", "globex", "hiking", "painting", "dog", "cat", "mountain", "lake", "sunrise", "kayak"]
    + ["02:30", "05:00", "$16.99", "v1.27", "14"]
)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["Ann", "Bob"]),
            st.lists(_WORDS, min_size=1, max_size=6),
            st.integers(1, 28),
            st.booleans(),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_folding_hides_no_word_and_no_superseded_line(rows: list) -> None:
    cands = [
        _cand(f"s{i}", 1, speaker, " ".join(words), day, "superseded 1 Jan 2025" if old else None)
        for i, (speaker, words, day, old) in enumerate(rows)
    ]
    kept, _ = _dedupe(cands)
    again, _ = _dedupe(cands)
    assert [(c.line.id, c.echo) for c in kept] == [(c.line.id, c.echo) for c in again]
    ids = {c.line.id for c in kept}
    for c in cands:
        if c.superseded is not None:  # a superseded line stands alone (or as an exact repeat)
            assert c.line.id in ids or any(
                k.line.text.casefold() == c.line.text.casefold() for k in kept
            )
        if c.line.id in ids:
            continue
        # every word and figure of a folded line is said by a kept line of the same speaker
        assert any(
            k.line.speaker == c.line.speaker
            and set(terms(c.line.text)) <= set(terms(k.line.text))
            and {w for w in c.line.text.split() if any(ch.isdigit() for ch in w)}
            <= set(k.line.text.split())
            for k in kept
        )


def test_context_folds_echoes_across_sessions() -> None:
    clock = ManualClock("2025-03-01")
    with backends.memory(clock=clock) as mem:
        for day, text in (
            (1, "the nightly backup job failed tonight"),
            (5, "nightly backup job failed"),
        ):
            mem.add_session(f"Ops: {text}", started_at=f"2025-01-0{day}", session_id=f"s{day}")
        out = mem.context("backup job failed tonight", budget_tokens=200)
        assert out.count("nightly backup job failed") == 1, out
        assert "(said 2×, 1 Jan 2025–5 Jan 2025)" in out


def test_when_questions_and_time_cues() -> None:
    assert asks_when("When did Caroline go to the support group?")
    assert asks_when("What year did John start surfing?")
    assert asks_when("How long ago was her birthday?")
    assert not asks_when("What does Caroline paint?")
    assert not asks_when("Who comforts him when he is sad?")
    assert has_time_cue("We went camping last weekend")
    assert has_time_cue("I started in 2019")
    assert has_time_cue("See you on Saturday")
    assert not has_time_cue("I may go camping")  # "may" is not the month


def test_a_when_question_prefers_the_line_that_says_when() -> None:
    clock = ManualClock("2025-03-01")
    with backends.memory(clock=clock) as mem:
        mem.add_session(
            "Ann: I love the support group, the support group is great.\n"
            "Bob: nice.\n"
            "Ann: I went to the support group yesterday.",
            started_at="2025-02-10",
        )
        first = [i.text for i in mem.search("When did Ann go to the support group?", kinds="line")]
        assert first[0] == "Ann: I went to the support group yesterday."


def test_named_dates() -> None:
    from graphmem.recall_cues import named_dates

    spans = named_dates("What did she paint on October 13, 2023, or on 2 March 2024?")
    assert [(a.date().isoformat(), b.date().isoformat()) for a, b in spans] == [
        ("2023-10-13", "2023-10-21"),
        ("2024-03-02", "2024-03-10"),
    ]
    assert named_dates("What did she do in May?") == []  # no year: not a date
    assert named_dates("Anything on 2023-02-29?") == []  # no such day


def test_a_question_naming_a_date_prefers_lines_said_then() -> None:
    clock = ManualClock("2025-03-01")
    with backends.memory(clock=clock) as mem:
        for day in ("2023-10-13", "2023-11-20", "2023-12-01"):
            mem.add_session(f"Ann: I painted a picture of the lake.\nBob: {day}", started_at=day)
        found = mem.search("What did Ann paint on October 13, 2023?", kinds="line", limit=3)
        assert found[0].date.date().isoformat() == "2023-10-13"
        # the line said that day is the one kept when the echoes fold
        assert found[0].text == (
            "Ann: I painted a picture of the lake. (said 3×, 13 Oct 2023–1 Dec 2023)"
        )
