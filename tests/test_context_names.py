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
