"""How context() ranks session lines: rank fusion, neighbours, on-topic facts.

See docs/benchmarks.md#locomo-recall and graphmem/episodic.py (how lines are ranked).
"""

from __future__ import annotations

from collections.abc import Sequence

import graphmem as gm
from graphmem.context import search
from graphmem.episodic import _fuse
from graphmem.timeutil import ManualClock


def test_fuse_sums_reciprocal_ranks() -> None:
    fused = _fuse([["a", "b", "c"], ["c"], []])
    assert fused == {"a": 1 / 60, "b": 1 / 61, "c": 1 / 62 + 1 / 60}
    assert _fuse([]) == {}


TRIP = "\n".join(
    [
        "Gina: How was the trip to the coast?",
        "Jon: Loved it, we saw whales near Monterey.",
        *(f"Gina: another trip idea, number {i}, for a weekend away" for i in range(30)),
    ]
)


def test_the_turn_after_a_hit_is_shown_right_after_it(mem: gm.Memory, clock: ManualClock) -> None:
    # The answer shares no word with the question; thirty lines share one (a common one).
    mem.add_session(TRIP, started_at="2026-01-01", session_id="s-1", extract=False)
    ctx = mem.context("What was seen on the trip to the coast?", budget_tokens=80)
    assert "Jon: Loved it, we saw whales near Monterey." in ctx
    lines = [i.id for i in ctx.items if i.kind == "line"]
    assert lines[:2] == ["s-1#1", "s-1#2"]  # the hit first, its neighbour right after
    scores = {i.id: i.score for i in ctx.items}
    assert scores["s-1#1"] > scores["s-1#2"]


def test_a_fact_found_by_name_alone_lends_no_line(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_session(
        "Caroline: I painted a sunset over the lake.", started_at="2026-01-01", session_id="s-1"
    )
    mem.add_session(
        "She drinks green tea every morning.",
        started_at="2026-01-01",
        session_id="s-2",
        extract=False,
    )
    mem.add_fact(
        "Caroline",
        "drinks",
        "green tea",
        source="s-2",
        statement="She drinks green tea every morning.",
    )
    off = mem.search("What did Caroline paint?", kinds=("line",))
    assert [i.id for i in off] == ["s-1#1"]  # the tea line shares no word and is off topic
    on = mem.search("Which tea does Caroline like?", kinds=("line",))
    assert "s-2#1" in {i.id for i in on}


def test_a_fact_found_by_name_alone_waits_for_the_lines(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_session(
        "Caroline: I painted a sunset over the lake last summer with my new oils.",
        started_at="2026-01-01",
        session_id="s-1",
        extract=False,
    )
    mem.add_fact("Caroline", "likes", "tea")
    mem.add_fact("Caroline", "lives_in", "Boston")
    ctx = mem.context("What did Caroline paint?", budget_tokens=70)
    assert "I painted a sunset" in ctx
    assert "Caroline likes tea" not in ctx  # a fact about her, not about the question
    roomy = mem.context("What did Caroline paint?", budget_tokens=400)
    assert "I painted a sunset" in roomy
    assert "Caroline likes tea" in roomy
    assert mem.context("Caroline", budget_tokens=70).items[0].kind == "fact"


def test_an_old_session_is_as_good_evidence_as_a_new_one(
    mem: gm.Memory, clock: ManualClock
) -> None:
    clock.set("2023-01-01")
    mem.add_session(
        "Alice hiked in Oregon.", started_at="2023-01-01", session_id="a", extract=False
    )
    clock.set("2026-01-01")
    mem.add_session(
        "Alice hiked in Utah with some friends from work.",
        started_at="2026-01-01",
        session_id="b",
        extract=False,
    )
    items = mem.search("Where did Alice hike?", kinds=("line",))
    assert [i.id for i in items] == ["a#1", "b#1"]  # the closer BM25 match, though older


def test_the_semantic_seam_adds_a_ranking(mem: gm.Memory, clock: ManualClock) -> None:
    for n, text in enumerate(("A trip.", "A trip home.", "A long trip to see the whales.")):
        mem.add_session(text, started_at="2026-01-01", session_id=f"s-{n}", extract=False)

    def whales(query: str, texts: Sequence[str]) -> list[float]:
        return [1.0 if "whales" in t else 0.0 for t in texts]

    plain = [i.id for i in search(mem, "trip", kinds=("line",))]
    assert plain == ["s-0#1", "s-1#1", "s-2#1"]
    near = [i.id for i in search(mem, "trip", kinds=("line",), semantic=whales)]
    assert near == ["s-2#1", "s-0#1", "s-1#1"]


def test_a_fact_is_on_topic_across_a_final_e(mem: gm.Memory, clock: ManualClock) -> None:
    # stem("lives") is "liv", stem("live") is "live": the on-topic test must see them meet
    mem.add_session(
        "We moved last spring.", started_at="2026-01-01", session_id="s-1", extract=False
    )
    mem.add_fact("Sam", "lives_in", "Lisbon", source="s-1", statement="We moved last spring.")
    assert "s-1#1" in {i.id for i in mem.search("Where does Sam live?", kinds=("line",))}
