"""Marks for what a later line says ended (docs/concepts/recall.md#said-ended)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.said_ended import ended_values, names
from graphmem.text.claims import Claim
from graphmem.timeutil import ManualClock


class NoReader:
    """A reader that reads nothing: every sentence stays a line of its session."""

    def read(self, text: str, *, at: dt.datetime, owner: str) -> Sequence[Claim]:
        return []


class FirstOnly:
    """A reader that reads the first statement but misses the change."""

    def read(self, text: str, *, at: dt.datetime, owner: str) -> Sequence[Claim]:
        if "are stored in S3" in text:
            return [Claim("invoices", "stored_in", "S3", sentence=text)]
        return []


@pytest.mark.parametrize(
    ("text", "ended"),
    [
        ("heads up, invoices moved from S3 to R2 this morning", ["s3"]),
        ("we dropped Zendesk last month, support is in Intercom now", ["zendesk"]),
        ("nginx-ingress is gone from production", ["nginx-ingress"]),
        ("refactor(search): migrate product search from elasticsearch to opensearch", None),
        ("Replaced Jenkins with Argo Workflows for all scheduled jobs.", ["jenkins"]),
        ("actually it's Tamsin, not Tomasz.", ["tomasz"]),
        ("Jira was swapped for Linear", ["jira"]),
        ("we stopped using SageMaker for recs", ["sagemaker"]),
    ],
)
def test_what_a_line_says_ended(text: str, ended: list[str] | None) -> None:
    found = ended_values(text)
    if ended is None:
        assert "elasticsearch" in found
    else:
        assert found[: len(ended)] == ended


@pytest.mark.parametrize(
    "text",
    [
        "The API runs on Go.",
        "We use Redis and Postgres.",
        "Alice works at Acme.",
        "Invoices are stored in S3.",
        "We moved to Berlin.",
        "The team replaced nothing this sprint",
    ],
)
def test_a_plain_statement_says_nothing_ended(text: str) -> None:
    assert ended_values(text) == []


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(["a", "S3", "R2", "->", ",", "not", "from", "to", "moved", "is gone", "."])
    ).map(" ".join)
)
def test_every_ended_value_is_named_by_its_line(text: str) -> None:
    for value in ended_values(text):
        assert names(value, text)


def _context(mem: gm.Memory, question: str, **kw: object) -> list[str]:
    return str(mem.context(question, **kw)).casefold().splitlines()  # type: ignore[arg-type]


def test_an_unread_line_is_marked_by_the_later_change(clock: ManualClock) -> None:
    with gm.open(clock=clock, reader=NoReader()) as mem:
        clock.set("2026-02-03T12:00Z")
        mem.add_session("kim: fyi invoices are stored in S3 for now", started_at="2026-02-03")
        clock.set("2026-05-20T12:00Z")
        mem.add_session("raj: heads up, invoices moved from S3 to R2", started_at="2026-05-20")
        clock.set("2026-05-21")
        lines = _context(mem, "where are invoices stored?")
        old = next(ln for ln in lines if "stored in s3" in ln)
        assert "no longer current per 20 may 2026" in old
        change = next(ln for ln in lines if "moved from s3" in ln)
        assert "s3: no longer current from here" in change
        # marks are what is shown, never writes
        assert [f.predicate for f in mem.facts()] == []
        # what was known before the change was said is shown as it was
        before = _context(mem, "where are invoices stored?", known_at="2026-03-01")
        assert not any("no longer" in ln for ln in before)


def test_a_line_about_another_thing_is_not_marked(clock: ManualClock) -> None:
    with gm.open(clock=clock, reader=NoReader()) as mem:
        clock.set("2026-02-03T12:00Z")
        mem.add_session("Alice works at Acme.", started_at="2026-02-03")
        clock.set("2026-05-20T12:00Z")
        mem.add_session("Bob left Acme in May.", started_at="2026-05-20")
        clock.set("2026-05-21")
        alice = next(ln for ln in _context(mem, "acme") if "alice" in ln)
        assert "no longer" not in alice


def test_a_fact_the_reader_did_not_close_is_marked(clock: ManualClock) -> None:
    # remember() keeps the change it could not read as a note: the note marks the fact
    with gm.open(clock=clock, reader=FirstOnly()) as mem:
        clock.set("2026-02-03T12:00Z")
        mem.remember("Invoices are stored in S3.", at="2026-02-03")
        clock.set("2026-05-20T12:00Z")
        mem.remember("We moved invoices from S3 to R2.", at="2026-05-20")
        clock.set("2026-05-21")
        text = str(mem.context("where are invoices stored?"))
        fact = next(ln for ln in text.splitlines() if "stored_in S3" in ln)
        assert "a later line (2026-05-20) says it was replaced" in fact
        note = next(ln for ln in text.splitlines() if "note:" in ln)
        assert "says s3 is no longer current" in note
        assert [f.object for f in mem.facts(subject="invoices")] == ["S3"]  # still stored
