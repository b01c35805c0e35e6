"""Agent context: retrieval, time semantics, budget, determinism, bookkeeping.

See docs/concepts/recall.md#rule-3.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import time
from typing import Any

import pytest

import graphmem as gm
from graphmem.context import CHARS_PER_TOKEN, estimate_tokens
from graphmem.store.base import Store
from graphmem.timeutil import ManualClock
from tests import backends


def _api_history(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-01-01")
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
    mem.add_fact("api", "deploys_with", "Docker", valid_from="2024-01-01")
    mem.add_fact("Alice", "works_at", "Acme", valid_from="2020-01-01")
    mem.add_fact("Alice", "lives_in", "Berlin", valid_from="2021-01-01")
    mem.add_fact("Bob", "works_at", "Acme", valid_from="2022-01-01")
    mem.add_fact("team", "note", "we deploy on Fridays after the standup", kind="insight")
    clock.set("2026-06-10")
    mem.add_fact("api", "runs_on", "Go", valid_from="2026-06-01")
    mem.add_fact("Alice", "works_at", "Globex", valid_from="2026-03-01")


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("- ")]


def test_empty_memory_and_no_match(mem: gm.Memory, clock: ManualClock) -> None:
    assert mem.context("where does Alice work?") == "Memory is empty: no facts stored yet."
    mem.add_fact("Alice", "works_at", "Acme")
    assert mem.context("zebra crossings") == 'No facts in memory match "zebra crossings".'


def test_replaced_value_is_noted_never_served_as_current(
    mem: gm.Memory, clock: ManualClock
) -> None:
    _api_history(mem, clock)
    out = mem.context("What does the api run on?")
    assert out.splitlines()[0] == 'Memory relevant to "What does the api run on?" (2 facts):'
    assert _lines(out)[0] == "- api runs_on Go (since 2026-06-01; was Laravel)"
    assert "- api runs_on Laravel" not in out
    assert "- api deploys_with Docker (since 2024-01-01)" in out


def test_valid_at_and_known_at_follow_facts(mem: gm.Memory, clock: ManualClock) -> None:
    _api_history(mem, clock)
    past = mem.context("api", valid_at="2025-01-01")
    assert "- api runs_on Laravel (since 2024-01-01, until 2026-06-01)" in past
    assert "Go" not in past
    assert "(2 facts; valid at 2025-01-01)" in past
    # What we believed before the Go migration was recorded: Laravel, open-ended, current.
    before = mem.context("api", known_at="2026-02-01", valid_at="2026-06-05")
    assert "- api runs_on Laravel (since 2024-01-01)" in before
    assert "Go" not in before
    # Same answer as facts() for the same (valid_at, known_at), whatever the instant.
    for valid_at, known_at in [("2025-01-01", "2026-07-01"), ("2026-06-05", "2026-02-01")]:
        want = {
            f"{f.subject} {f.predicate} {f.object}"
            for f in mem.facts(subject="api", valid_at=valid_at, known_at=known_at)
        }
        got = {
            re.sub(r" \(since.*$", "", line[2:])
            for line in _lines(mem.context("api", valid_at=valid_at, known_at=known_at))
            if line.startswith("- api ")
        }
        assert got == want


def test_known_at_answer_survives_later_writes(mem: gm.Memory, clock: ManualClock) -> None:
    _api_history(mem, clock)
    asked = {"valid_at": "2026-06-05", "known_at": "2026-06-10"}
    first = mem.context("api Alice", valid_at=asked["valid_at"], known_at=asked["known_at"])
    clock.set("2026-07-01")
    mem.add_fact("api", "runs_on", "Rust", valid_from="2026-06-02")
    mem.retract("Alice", "lives_in")
    assert mem.context("api Alice", valid_at=asked["valid_at"], known_at=asked["known_at"]) == first


def test_retracted_fact_disappears(mem: gm.Memory, clock: ManualClock) -> None:
    _api_history(mem, clock)
    clock.set("2026-07-01")
    mem.retract("api", "deploys_with", at="2026-06-20")
    out = mem.context("api")
    assert "deploys_with" not in out
    assert "deploys_with Docker (since 2024-01-01, until 2026-06-20)" in mem.context(
        "api", valid_at="2026-06-01"
    )


def test_neighbourhood_in_both_directions_and_aliases(mem: gm.Memory, clock: ManualClock) -> None:
    _api_history(mem, clock)
    out = mem.context("Who works at Acme?")
    assert "- Bob works_at Acme (since 2022-01-01)" in out
    assert "Alice works_at Acme" not in out  # ended 2026-03-01
    assert [f.access_count for f in mem.facts(subject="Bob")] == [1]  # counted via its object
    mem.define_entity("Alice", kind="person", aliases=["Ali"])
    assert "- Alice works_at Globex (since 2026-03-01; was Acme)" in mem.context("Ali's job")


def test_full_text_finds_notes_and_ranks_by_relevance(mem: gm.Memory, clock: ManualClock) -> None:
    _api_history(mem, clock)
    out = mem.context("when do we deploy?")
    assert "- [insight] team note: we deploy on Fridays after the standup (since 2026-01-01)" in out
    work = _lines(mem.context("Where does Alice work?"))
    assert work[0] == "- Alice works_at Globex (since 2026-03-01; was Acme)"
    assert work[1] == "- Alice lives_in Berlin (since 2021-01-01)"


def test_importance_and_kind_tags_rank_and_render(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact(
        "deploys",
        "note",
        "deploy only with a rollback plan",
        kind="directive",
        importance=9,
        pinned=True,
    )
    mem.add_fact("deploys", "note", "deploys happen in the afternoon", importance=2)
    lines = _lines(mem.context("deploys"))
    assert lines[0].startswith("- [directive] [pinned] deploys note: deploy only with a rollback")
    assert lines[1].startswith("- deploys note: deploys happen in the afternoon")


@pytest.mark.parametrize("budget", [1, 5, 12, 20, 30, 45, 80, 800])
def test_stays_within_token_budget(mem: gm.Memory, clock: ManualClock, budget: int) -> None:
    mem.add_facts(
        [
            {"subject": "svc", "predicate": "uses", "object": f"library number {i}"}
            for i in range(60)
        ]
    )
    out = mem.context("what does svc use?", budget_tokens=budget)
    assert len(out) <= budget * CHARS_PER_TOKEN
    assert estimate_tokens(out) <= budget
    if budget >= 80:
        assert _lines(out)
    if budget == 80:
        assert re.search(r"\(\d+ of 60 facts\):", out)
        assert out.endswith("more not shown; raise budget_tokens)")


def test_long_objects_are_clipped(mem: gm.Memory) -> None:
    mem.add_fact("svc", "note", "word " * 200)
    line = _lines(mem.context("svc"))[0]
    assert len(line) < 220
    assert "…" in line


def test_deterministic_for_the_same_store(engine: str) -> None:
    outs = []
    for _ in range(2):
        clock = ManualClock("2026-01-01")
        with backends.memory(clock=clock) as mem:
            _api_history(mem, clock)
            outs.append(mem.context("api Alice Acme deploy", budget_tokens=60))
    assert outs[0] == outs[1]
    assert "more not shown" in outs[0]


def test_access_counters_bumped_without_changing_answers(
    mem: gm.Memory, clock: ManualClock
) -> None:
    _api_history(mem, clock)

    def snapshot(**at: Any) -> list[tuple[object, ...]]:
        return [
            (f.id, f.object, f.valid_from, f.valid_to, f.recorded_at, f.expired_at)
            for f in mem.facts(**at)
        ]

    instants = [{}, {"valid_at": "2025-01-01", "known_at": "2026-02-01"}]
    before = [snapshot(**at) for at in instants]
    clock.set("2026-06-11")
    mem.context("api")
    after = [snapshot(**at) for at in instants]
    assert after == before
    counts = {f.object: (f.access_count, f.last_accessed_at) for f in mem.facts(subject="api")}
    assert counts["Go"] == (1, gm.to_utc("2026-06-11"))
    assert counts["Docker"][0] == 1
    alice = {f.object: f.access_count for f in mem.facts(subject="Alice")}
    assert alice == {"Globex": 0, "Berlin": 0}  # not shown, not counted


def test_read_only_memory_uses_fallback_and_writes_nothing(db_path: str, engine: str) -> None:
    clock = ManualClock("2026-01-01")
    with gm.open(db_path, clock=clock, engine=engine) as mem:
        _api_history(mem, clock)
    with gm.open(db_path, clock=clock, engine=engine, read_only=True) as ro:
        out = ro.context("how do we deploy the api?")
        assert "- api deploys_with Docker (since 2024-01-01)" in out
        assert "team note: we deploy on Fridays" in out  # full text without an index
        assert all(f.access_count == 0 for f in ro.facts(subject="api"))


def test_full_text_index_and_scan_fallback_agree(
    mem: gm.Memory, mem_store: Store, engine: str
) -> None:
    mem.add_fact("ops", "note", "we deploy with Docker Compose")
    mem.add_fact("ops", "note", "Kubernetes is on the roadmap")
    store = mem_store
    scan = store.search_entities(["docker", "compose"], use_index=False)
    assert [name for _, name, _ in scan][:1] == ["we deploy with Docker Compose"]
    if store.ensure_entity_index():
        indexed = store.search_entities(["docker", "compose"])
        assert [name for _, name, _ in indexed][:1] == ["we deploy with Docker Compose"]
        assert store.drop_entity_index()
        assert not store.entity_index_exists()
    else:
        assert engine == "ladybug"  # no FTS extension offline


# Kuzu 0.11.3 killed the process with SIGSEGV on the purge when the index had been built over
# the NUL name (docs/concepts/storage.md#fts-nul): so the scenario runs in a child process.
_NUL_CHILD = """
import graphmem as gm
from graphmem.store import open_store
from graphmem.timeutil import ManualClock

clock = ManualClock("2026-01-01")
store = open_store(None, engine="kuzu")
with gm.open(store=store, clock=clock) as mem:  # a NUL name before the first context()
    mem.add_fact("Carol", "likes", "green\\x00tea")
    assert "Carol likes green" in mem.context("what does Carol like")
    print(store.entity_index_exists())
    clock.advance(seconds=1)
    mem.purge("Carol", reason="regression")
store = open_store(None, engine="kuzu")
with gm.open(store=store, clock=clock) as mem:  # a NUL name after it: indexed row by row
    mem.add_fact("Dave", "likes", "coffee")
    mem.context("what does Dave like")
    mem.add_fact("Dave", "likes", "black\\x00coffee")
    print(store.entity_index_exists())
    clock.advance(seconds=1)
    mem.purge("Dave", reason="regression")
"""


def test_nul_in_an_entity_name_is_never_in_an_index_build(engine: str) -> None:
    """The entity index is not built over a NUL name; purging it afterwards works."""
    if engine != "kuzu":
        pytest.skip("the entity full-text index of Kuzu")
    result = subprocess.run(
        [sys.executable, "-X", "faulthandler", "-c", _NUL_CHILD],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.split() == ["False", "True"]


def test_bad_input(mem: gm.Memory) -> None:
    for bad in ("", "   ", None, 3):
        with pytest.raises(gm.InvalidInput, match="query"):
            mem.context(bad)  # type: ignore[arg-type]
    for budget in (0, -5, True, 2.5):
        with pytest.raises(gm.InvalidInput, match="budget_tokens"):
            mem.context("x", budget_tokens=budget)  # type: ignore[arg-type]
    with pytest.raises(gm.InvalidInput, match="valid_at"):
        mem.context("x", valid_at="2026-01-01T10:00:00")


@pytest.mark.bench
def test_context_latency(tmp_path: os.PathLike[str], engine: str) -> None:
    """p50 of an entity-anchored context() over 10k facts (run with -m bench -s)."""
    clock = ManualClock("2026-01-01")
    n = int(os.environ.get("GRAPHMEM_BENCH_FACTS", "10000"))
    with gm.open(os.path.join(os.fspath(tmp_path), "b.kuzu"), clock=clock, engine=engine) as mem:
        rows = [
            {"subject": f"S{i % (n // 10)}", "predicate": f"p{i % 7}", "object": f"O{i % 997}"}
            for i in range(n)
        ]
        mem.add_facts(rows)
        for i in range(5):
            mem.context(f"what about S{i}?")
        times = []
        for i in range(100):
            started = time.perf_counter()
            mem.context(f"what about S{(i * 37) % (n // 10)}?")
            times.append((time.perf_counter() - started) * 1000)
    print(f"\ncontext p50 {statistics.median(times):.1f} ms over {n} facts ({engine})")


def test_cli_context(db_path: str, engine: str) -> None:
    import json

    from click.testing import CliRunner

    from graphmem.cli import cli

    runner = CliRunner()
    base = ["--db", db_path, "--engine", engine]
    assert runner.invoke(cli, [*base, "context", "api"]).output.strip() == (
        "Memory is empty: no facts stored yet."
    )
    runner.invoke(cli, [*base, "add", "api", "runs_on", "Laravel", "--valid-from", "2024-01-01"])
    runner.invoke(cli, [*base, "add", "api", "runs_on", "Go", "--valid-from", "2025-01-01"])
    result = runner.invoke(cli, [*base, "context", "what does the api run on?", "--budget", "40"])
    assert result.exit_code == 0, result.output
    assert "- api runs_on Go (since 2025-01-01; was Laravel)" in result.output
    result = runner.invoke(cli, [*base, "context", "api", "--valid-at", "2024-06-01", "--json"])
    data = json.loads(result.output)
    assert "- api runs_on Laravel (since 2024-01-01, until 2025-01-01)" in data["context"]
    assert data["tokens"] == estimate_tokens(data["context"])
    bad = runner.invoke(cli, [*base, "context", "api", "--valid-at", "2024-06-01T10:00"])
    assert bad.exit_code == 1
    assert "valid" in bad.output
    assert "2024-06-01T10:00" in bad.output


def test_query_spans() -> None:
    from graphmem.context import _spans

    assert _spans("What does the api run on?") == ["api", "run", "api run"]
    assert "Bank of America" in _spans("Who works at Bank of America?")
    assert "of America" not in _spans("Who works at Bank of America?")
    assert _spans("Alice's manager") == ["Alice", "manager", "Alice manager"]
    assert _spans("the of and") == []
    assert len(_spans(" ".join(f"w{i}" for i in range(40)))) == 24


def test_hub_in_degree_is_bounded(mem: gm.Memory) -> None:
    mem.add_facts(
        [{"subject": f"person {i}", "predicate": "works_at", "object": "Acme"} for i in range(80)]
    )
    out = mem.context("Acme", budget_tokens=4000)
    assert "(50 facts):" in out.splitlines()[0]
    assert len(_lines(out)) == 50


def _chain(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-01-01")
    mem.add_fact("Bob", "works_at", "Globex", valid_from="2025-06-01")
    mem.add_fact("Bob", "lives_in", "Lyon", valid_from="2024-01-01")
    mem.add_fact("Globex", "headquartered_in", "Munich", valid_from="2010-01-01")
    mem.add_fact("Globex", "founded_in", "1999", valid_from="2010-01-01")
    mem.add_fact("Munich", "located_in", "Germany", valid_from="2010-01-01")
    mem.add_fact("checkout-service", "owner", "team-payments", valid_from="2025-04-01")
    mem.add_fact("adr_027", "note", "checkout-service migrates from Redis to PostgreSQL")
    mem.add_fact("team-payments", "team_lead", "Priya Raman", valid_from="2025-02-01")
    clock.set("2026-03-01")
    mem.add_fact("team-payments", "team_lead", "Sam Okonkwo", valid_from="2026-03-01")


def test_a_question_beyond_the_anchor_follows_its_facts(mem: gm.Memory, clock: ManualClock) -> None:
    """recall.md#bridges: one hop further, only when the anchor's facts do not answer."""
    _chain(mem, clock)
    out = mem.context("In which city is Bob's employer headquartered?")
    assert "- Bob works_at Globex (since 2025-06-01)" in out
    assert "- Globex headquartered_in Munich (since 2010-01-01)" in out
    assert "Germany" not in out  # one hop, never two
    lead = mem.context("Who leads the team that owns the checkout service?")
    assert "- team-payments team_lead Sam Okonkwo (since 2026-03-01; was Priya Raman)" in lead
    then = mem.context("Who led the team that owns the checkout service?", valid_at="2025-09-01")
    assert "- team-payments team_lead Priya Raman" in then
    assert "Sam Okonkwo" not in then
    # The anchor's own facts answer: nothing else is read.
    assert "headquartered_in" not in mem.context("Where does Bob live?")
    # "the checkout service" names checkout-service; a note naming it is still found
    store = mem.context("Which datastore does the checkout service use?")
    assert "- checkout-service owner team-payments" in store
    assert "migrates from Redis to PostgreSQL" in store
    plain = _lines(mem.context("Where does Bob work?"))
    assert plain[0] == "- Bob works_at Globex (since 2025-06-01)"
    assert not any("Munich" in line for line in plain)


def test_a_followed_fact_answers_as_known_then(mem: gm.Memory, clock: ManualClock) -> None:
    _chain(mem, clock)
    before = mem.context("Who leads the team that owns checkout-service?", known_at="2026-02-01")
    assert "Priya Raman" in before
    assert "Sam Okonkwo" not in before


def test_a_long_note_shows_its_pieces_on_the_question(mem: gm.Memory) -> None:
    log = (
        "[Mar 2, 10:12] Ines: morning! the boiler guy comes thursday between 8 and 12. "
        "[10:15] Me: ok I'll be in, also the hallway bulb is out again. "
        "[10:40] Ines: I'll bring a spare, and the bins go out on wednesday now. "
        "[10:41] Me: thanks!! how's the new puppy? "
        "[10:45] Ines: chaos, he ate a shoe. "
        "[11:02] Ines: oh and the gate code changed, it's 5518# from today."
    )
    mem.remember(log)
    text = str(mem.context("What is the gate code?"))
    note = next(line for line in text.splitlines() if "note:" in line)
    assert "5518#" in note
    assert "… [11:02] Ines: oh and the gate code changed" in note
    assert "boiler" not in note  # the head, off the question's topic, is left out


def test_a_short_note_or_one_off_the_question_shows_its_head() -> None:
    from graphmem.context_render import MAX_OBJECT, excerpt

    assert excerpt("the gate code is 5518#", frozenset({"gat"})) == ""
    long = "The boiler comes thursday. " * 12
    assert len(long) > MAX_OBJECT
    assert excerpt(long, frozenset({"gat"})) == ""


@pytest.mark.parametrize(
    ("question", "found"),
    [
        ("what are the support hours?", True),  # its head and half its words
        ("what are the customer support hours?", True),
        ("who handles support tickets?", False),  # not its head
        ("how many hours is the flight?", False),  # its head, but not half its words
    ],
)
def test_a_question_naming_most_of_a_slot_finds_the_owners_fact(
    mem: gm.Memory, question: str, found: bool
) -> None:
    # the owner's slots are anchored by a question that names them (docs/concepts/recall.md)
    mem.add_fact("self", "customer_support_hours", "8 to 8 CET")
    assert ("customer_support_hours 8 to 8 CET" in mem.context(question)) is found


def test_a_question_of_a_things_name_finds_the_notes_naming_it(clock: ManualClock) -> None:
    # docs/concepts/recall.md#rule-3: "office" has a fact, and its words are the whole query
    clock.set("2026-03-02")
    with backends.memory(clock=clock) as mem:
        mem.remember("Our office is at 41 Harrow Lane, 3rd floor.", at="2026-03-02")
        clock.set("2026-03-20")
        mem.remember(
            "Subject: RE: Office move – confirmed\nThe lease is signed! From Monday 6 April we'll "
            "be working out of 9 Quayside Road.",
            at="2026-03-20",
        )
        clock.set("2026-04-10")
        ctx = mem.context("Where is the office now?")
    assert "9 Quayside Road" in ctx
    assert "41 Harrow Lane" in ctx
