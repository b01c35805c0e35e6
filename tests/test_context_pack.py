"""The pack and render stages of ``context()`` on plain values: no store (recall.md#the-stages)."""

from __future__ import annotations

import datetime as dt

from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.context_facts import _Candidate
from graphmem.context_pack import Frame, Gathered, footer, pack, render
from graphmem.episodic import LineCandidate
from graphmem.store.records import FactView, LineRow

DAY = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)


def fact(i: int, *, score: float, on_topic: bool = True, source: str | None = None) -> _Candidate:
    view = FactView(
        via="api",
        subject_id="api",
        subject="api",
        id=f"f{i}",
        predicate="uses",
        object=f"tool{i}",
        valid_from=DAY,
        valid_to=None,
        recorded_at=DAY,
        statement=None,
        kind="fact",
        importance=0.5,
        access_count=0,
        pinned=False,
        source=source,
    )
    return _Candidate(view, "out", relevance=1.0, score=score, on_topic=on_topic)


def row(session: str, n: int, text: str) -> LineRow:
    return LineRow(f"{session}#{n}", session, n, "kim", text, DAY, DAY)


def line(session: str, n: int, text: str, score: float) -> LineCandidate:
    return LineCandidate(row(session, n, text), bm25=score, relevance=score, score=score)


def no_neighbours(_: LineRow) -> tuple[LineRow | None, LineRow | None]:
    return None, None


def frame(budget: int) -> Frame:
    return Frame("what does the api use?", "", budget)


def test_everything_shown_when_it_fits() -> None:
    g = Gathered([fact(1, score=0.9), fact(2, score=0.8)], [line("s1", 3, "we use Go", 1.0)])
    p = pack(g, frame(4000), no_neighbours)
    out, items = render(g, p, frame(4000))
    assert out[0] == 'Memory relevant to "what does the api use?" (2 facts, 1 session line):'
    assert out[1:3] == [
        "- api uses tool1 (since 2026-06-01)",
        "- api uses tool2 (since 2026-06-01)",
    ]
    assert out[3].endswith("kim: we use Go")
    assert [i.id for i in items] == ["f1", "f2", "s1#3"]
    assert not any(o.startswith("(+") for o in out)


def test_a_fact_a_shown_line_says_is_dropped() -> None:
    g = Gathered(
        [fact(1, score=0.9, source="s1"), fact(2, score=0.8)],
        [line("s1", 3, "the api uses tool1", 1.0)],
        cover={"f1": "s1#3"},
    )
    p = pack(g, frame(4000), no_neighbours)
    assert [c.fact.id for c in p.facts] == ["f2"]
    out, _ = render(g, p, frame(4000))
    assert "(1 fact, 1 session line)" in out[0]  # the duplicate is not counted as left out


def test_on_topic_facts_first_then_lines_then_the_rest() -> None:
    facts = [fact(1, score=0.9, on_topic=False), fact(2, score=0.8), fact(3, score=0.7)]
    lines = [line("s1", i, f"line number {i} " + "word " * 20, 1.0 - i / 10) for i in range(5)]
    g = Gathered(facts, lines)
    budget = 600
    p = pack(g, frame(budget), no_neighbours)
    out, _ = render(g, p, frame(budget))
    assert len("\n".join(out)) <= budget
    shown = {c.fact.id for c in p.facts}
    assert {"f2", "f3"} <= shown  # on-topic facts took their share first
    assert out[-1] == footer(len(facts) + len(lines) - len(p.facts) - len(p.lines))


def test_neighbours_fill_what_is_left_and_score_zero() -> None:
    before, after = row("s1", 2, "before it"), row("s1", 4, "after it")
    g = Gathered([], [line("s1", 3, "the answer", 1.0)])

    def around(r: LineRow) -> tuple[LineRow | None, LineRow | None]:
        return (before, after) if r.id == "s1#3" else (None, None)

    # Everything fits: neighbours are only for blocks that had to leave something out.
    assert set(pack(g, frame(4000), around).lines) == {"s1#3"}
    big = [line("s2", i, "other words " * 30, 0.5 - i / 100) for i in range(6)]
    g = Gathered([], [line("s1", 3, "the answer", 1.0), *big])
    p = pack(g, frame(700), around)
    assert {"s1#2", "s1#4"} <= set(p.lines)
    out, items = render(g, p, frame(700))
    assert [i.score for i in items if i.id in ("s1#2", "s1#4")] == [0.0, 0.0]
    passage = [o for o in out if "before it" in o or "the answer" in o or "after it" in o]
    assert len(passage) == 3  # one passage: s1 lines 2, 3, 4 in order
    assert "before it" in passage[0]
    assert "after it" in passage[2]


@settings(max_examples=60, deadline=None)
@given(
    n_facts=st.integers(0, 12),
    n_lines=st.integers(0, 12),
    budget=st.integers(80, 3000),
    words=st.integers(1, 40),
)
def test_the_block_never_exceeds_the_budget(
    n_facts: int, n_lines: int, budget: int, words: int
) -> None:
    facts = [fact(i, score=1 - i / 20, on_topic=i % 2 == 0) for i in range(n_facts)]
    lines = [line(f"s{i % 3}", i, "w " * words, 1 - i / 20) for i in range(n_lines)]
    g = Gathered(facts, lines)
    p = pack(g, frame(budget), no_neighbours)
    out, items = render(g, p, frame(budget))
    block = "\n".join(out)
    if p.facts or any(i in g.line_ids for i in p.lines):
        assert len(block) <= budget  # whatever is shown fits, header and footer included
    assert [i.id for i in items if i.kind == "fact"] == [c.fact.id for c in p.facts]
    assert len({i.id for i in items}) == len(items)
    assert out[0].startswith('Memory relevant to "what does the api use?"')


_T = dt.datetime(2024, 5, 8, tzinfo=dt.timezone.utc)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(
            st.tuples(st.sampled_from(["a", "b", "c"]), st.integers(1, 6), st.booleans()),
            unique_by=lambda x: x[:2],
            max_size=8,
        ),
        min_size=1,
        max_size=4,
    )
)
def test_block_size_is_the_rendered_length(choices: list[list[tuple[str, int, bool]]]) -> None:
    """The size a packing asks for, again and again with its kept figures, is the length of
    the passages rendered (docs/concepts/recall.md#the-block)."""
    from graphmem.context_render import Sized, _block_size, _lines_block

    sizes: dict[str, Sized] = {}
    for choice in choices:
        chosen: dict[str, LineCandidate | LineRow] = {}
        for session, n, scored in choice:
            row = LineRow(f"{session}#{n}", session, n, "Ann", f"line {n} of {session}", _T, _T)
            chosen[row.id] = LineCandidate(row, 1.0, 1.0, 1.0) if scored else row
        sizes = {k: v for k, v in sizes.items() if k in chosen or len(k) % 2}  # any subset kept
        want = sum(1 + len(line) for line in _lines_block(chosen, sorted(chosen)))
        assert _block_size(chosen, sizes) == want
