"""context() finds a thing by its own name and a relation by its aliases.

docs/concepts/recall.md#rule-3
"""

from __future__ import annotations

import graphmem as gm
from graphmem.timeutil import ManualClock
from tests import backends


def _first_fact(mem: gm.Memory, question: str) -> str:
    lines = str(mem.context(question)).splitlines()[1:]
    return lines[0] if lines else ""


def test_a_question_naming_the_owner_by_name_reads_the_owners_facts(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        mem.add_fact("self", "name", "Tomás")
        mem.add_fact("self", "lives_in", "Valencia")
        mem.add_fact("self", "role", "data analyst")
        clock.set("2026-06-14T12:00Z")
        mem.add_fact("self", "role", "analytics engineer")
        first = _first_fact(mem, "what is Tomás's job title?")
        assert "self role analytics engineer" in first
        assert "was data analyst" in first


def test_a_relation_is_found_by_its_alias(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        mem.add_fact("Ana", "role", "staff engineer")
        mem.add_fact("Ana", "lives_in", "Porto")
        mem.add_fact("Ana", "works_at", "Acme")
        assert "Ana role staff engineer" in _first_fact(mem, "what is Ana's position?")


def test_a_name_that_is_nobodys_name_adds_nothing(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        mem.add_fact("self", "name", "Tomás")
        mem.add_fact("self", "lives_in", "Valencia")
        mem.add_fact("Lisbon", "located_in", "Portugal")
        text = str(mem.context("Lisbon"))
        assert "Valencia" not in text


def test_a_thing_with_no_current_fact_leaves_its_words_to_the_full_text_search(
    clock: ManualClock,
) -> None:
    # docs/concepts/recall.md#silent-anchors
    with backends.memory(clock=clock) as mem:
        clock.set("2025-04-09T12:00Z")
        mem.add_fact("Translations", "done_by", "Lingua GmbH")
        clock.set("2025-10-28T12:00Z")
        mem.retract("Translations", "done_by", "Lingua GmbH")
        mem.remember("The in-house team handles translations until we pick a new vendor.")
        text = str(mem.context("who does translations?"))
        assert "in-house team handles translations" in text
        # a thing that still says something keeps its words out: its facts answer
        mem.add_fact("Translations", "done_by", "Verba Ltd")
        assert "Translations done_by Verba Ltd" in _first_fact(mem, "who does translations?")
