"""Rule-based extraction (graphmem.extract) on the blank spaCy pipeline: patterns and writes."""

from __future__ import annotations

import time

import pytest

import graphmem as gm
from graphmem.timeutil import ManualClock

pytest.importorskip("spacy")

from graphmem.extract import Extracted, extract, ingest_text  # noqa: E402

pytestmark = pytest.mark.spacy


@pytest.fixture(autouse=True)
def _blank(monkeypatch: pytest.MonkeyPatch) -> None:
    # The tests pin the deterministic blank pipeline even where a trained model is installed.
    monkeypatch.setenv("GRAPHMEM_SPACY_MODEL", "blank")


def _triples(text: str, **kw: object) -> list[tuple[str, str, str, bool]]:
    return [(e.subject, e.predicate, e.object, e.negated) for e in extract(text, **kw)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("Alice works at Acme Corp.", [("Alice", "works_at", "Acme Corp", False)]),
        ("Alice joined Globex in March 2024.", [("Alice", "works_at", "Globex", False)]),
        ("Bob moved to Berlin.", [("Bob", "lives_in", "Berlin", False)]),
        ("Heidi lives in New York City.", [("Heidi", "lives_in", "New York City", False)]),
        ("Since 2024-05-01, the api runs on Go.", [("api", "runs_on", "Go", False)]),
        ("The web app is written in Python.", [("web app", "runs_on", "Python", False)]),
        (
            "The api is deployed with Docker Compose.",
            [("api", "deploys_with", "Docker Compose", False)],
        ),
        (
            "We deploy the billing service with Kubernetes.",
            [("billing service", "deploys_with", "Kubernetes", False)],
        ),
        (
            "The frontend uses React and TypeScript.",
            [("frontend", "uses", "React", False), ("frontend", "uses", "TypeScript", False)],
        ),
        ("Dave is the CTO.", [("Dave", "role", "CTO", False)]),
        (
            "Erin works as a senior data scientist at Pied Piper.",
            [
                ("Erin", "role", "senior data scientist", False),
                ("Erin", "works_at", "Pied Piper", False),
            ],
        ),
        (
            "Frank was promoted to head of engineering.",
            [("Frank", "role", "head of engineering", False)],
        ),
        ("Alice no longer works at Acme.", [("Alice", "works_at", "Acme", True)]),
        ("Alice doesn't work at Acme anymore.", [("Alice", "works_at", "Acme", True)]),
        ("Carol left Acme.", [("Carol", "works_at", "Acme", True)]),
        ("The api stopped using Redis.", [("api", "uses", "Redis", True)]),
        # Not extracted: plain negation, questions, conditionals, modals, first person, non-names.
        ("Alice does not work at Acme.", []),
        ("Does Alice work at Acme?", []),
        ("If Alice joins Acme, she will move to Boston.", []),
        ("Grace might move to Paris.", []),
        ("We stopped using Jenkins.", []),
        ("Ivan joined the call late.", []),
        ("Paris is the capital of France.", []),
        ("Alice worked at Acme.", []),  # past, but until when?
    ],
)
def test_patterns(text: str, want: list[tuple[str, str, str, bool]]) -> None:
    assert _triples(text) == want


def test_coordination_pronouns_and_dates() -> None:
    found = extract(
        "Bob moved to Berlin in 2023 and joined Initech on 2024-02-01. He is a staff engineer. "
        "Alice worked at Acme from 2019 to 2021.",
        at="2026-01-01",
    )
    assert [(e.subject, e.predicate, e.object) for e in found] == [
        ("Bob", "lives_in", "Berlin"),
        ("Bob", "works_at", "Initech"),
        ("Bob", "role", "staff engineer"),
        ("Alice", "works_at", "Acme"),
    ]
    assert [(e.valid_from, e.valid_to) for e in found] == [
        (gm.to_utc("2023"), None),
        (gm.to_utc("2024-02-01"), None),
        (None, None),
        (gm.to_utc("2019"), gm.to_utc("2021")),
    ]
    assert found[0].statement == "Bob moved to Berlin in 2023"
    assert found[1].statement == "joined Initech on 2024-02-01"


def test_negating_trigger_statement_carries_a_cue() -> None:
    from graphmem.contradiction import negates

    (carol,) = extract("Carol left Acme in 2025.")
    assert carol.statement == "Carol no longer works at Acme (Carol left Acme in 2025)"
    assert negates(carol.statement)
    assert carol.valid_from == gm.to_utc("2025")


def test_ingest_text_applies_the_contradiction_rules(mem: gm.Memory, clock: ManualClock) -> None:
    first = ingest_text(
        mem,
        "Alice works at Acme. The api runs on Laravel and uses Redis.",
        at="2024-01-01",
        source="s1",
    )
    assert [r.decision.value for r in first] == ["add", "add", "add"]
    assert {f.source for f in mem.facts()} == {"s1"}
    clock.set("2026-06-10")
    later = mem.ingest_text(
        "Alice joined Globex in May 2026. The api was rewritten in Go on 2026-06-01. "
        "The api stopped using Redis. Bob no longer lives in Paris.",
        source="s2",
    )
    assert [r.decision.value for r in later] == ["supersede", "supersede", "invalidate", "noop"]
    assert later[3].fact is None  # nothing to end
    now = {(f.subject, f.predicate): f.object for f in mem.facts()}
    assert now == {("Alice", "works_at"): "Globex", ("api", "runs_on"): "Go"}
    assert [f.object for f in mem.facts(subject="api", valid_at="2025-01-01")] == [
        "Laravel",
        "Redis",
    ]
    assert "api runs_on Go (since 2026-06-01; was Laravel)" in mem.context("api")


def test_empty_and_bad_input(mem: gm.Memory) -> None:
    assert ingest_text(mem, "   ") == []
    assert ingest_text(mem, "Nothing to see here.") == []
    with pytest.raises(gm.InvalidInput, match="not a string"):
        ingest_text(mem, b"Alice works at Acme")  # type: ignore[arg-type]
    with pytest.raises(gm.InvalidInput, match="at="):
        ingest_text(mem, "Alice works at Acme", at="2026-01-01T10:00")
    assert mem.count_versions() == 0


def test_as_row() -> None:
    e = Extracted("Alice", "works_at", "Acme", "Alice works at Acme")
    assert e.as_row(at=None, source="s") == {
        "subject": "Alice",
        "predicate": "works_at",
        "object": "Acme",
        "statement": "Alice works at Acme",
        "valid_from": None,
        "valid_to": None,
        "source": "s",
    }


@pytest.mark.bench
def test_extraction_speed() -> None:
    """Short session lines per second on the blank pipeline (run with -m bench -s)."""
    lines = [
        "Alice moved to Berlin in 2023 and joined Globex.",
        "The api runs on Go since 2026-06-01.",
        "Bob no longer works at Acme.",
        "We talked about the roadmap for an hour.",
    ] * 500
    extract(lines[0])
    started = time.perf_counter()
    for line in lines:
        extract(line)
    rate = len(lines) / (time.perf_counter() - started)
    print(f"\nextract: {rate:.0f} docs/s (one call per line)")


def test_cli_ingest_text(db_path: str, engine: str) -> None:
    import json

    from click.testing import CliRunner

    from graphmem.cli import cli

    runner = CliRunner()
    base = ["--db", db_path, "--engine", engine]
    text = "Alice works at Acme since 2020. Alice no longer works at Acme."
    dry = runner.invoke(cli, [*base, "ingest-text", "-", "--dry-run"], input=text)
    assert dry.exit_code == 0, dry.output
    assert "Alice works_at Acme\nNOT Alice works_at Acme" in dry.output
    result = runner.invoke(
        cli, [*base, "ingest-text", "-", "--at", "2026-01-01", "--json"], input=text.split(". ")[0]
    )
    assert result.exit_code == 0, result.output
    [written] = json.loads(result.output)["results"]
    assert (written["decision"], written["fact"]["valid_from"]) == ("add", "2020-01-01T00:00:00Z")
    with gm.open(db_path, engine=engine, read_only=True) as mem:
        assert [f.object for f in mem.facts(subject="Alice")] == ["Acme"]


def test_missing_spacy_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "spacy", None)  # makes `import spacy` fail
    with pytest.raises(gm.ExtraUnavailable, match=r"pip install 'graphmem\[nlp\]'"):
        extract("Alice works at Acme.")


def test_unknown_model_is_a_clear_error() -> None:
    with pytest.raises(gm.ExtraUnavailable, match="no_such_model"):
        extract("Alice works at Acme.", model="no_such_model")
