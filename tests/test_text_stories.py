"""Memory-rot stories end to end: text in, months apart, through every surface.

Each story is written through ``add_session``, ``remember`` or the real MCP server's
``remember`` tool. Afterwards the new value is current, the old one is closed with a reason that
names the sentence (and the session, for ``add_session``), ``believed(on=<a day in between>)``
still returns the old value, and a fact from the first session that the change does not touch
survives. Two hypothesis properties: ingesting the same session twice changes nothing, and
extraction is deterministic.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any

import pytest
import text_eval
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp_tools import call_tool

import graphmem as gm
from graphmem.normalize import entity_key
from graphmem.timeutil import ManualClock, to_utc
from tests import backends

WRITE_HOUR = dt.timedelta(hours=12)


@dataclass(frozen=True)
class Story:
    """A value that changes in session ``changed_in``, and one that must survive."""

    name: str
    surface: str  # "session" | "remember" | "mcp"
    sessions: tuple[tuple[str, str], ...]  # (date, text)
    subject: str
    predicate: str
    old: str
    new: str
    word: str  # a word of the superseding sentence that is not the new value
    unrelated: tuple[str, str, str]
    changed_in: int = 1


STORIES = [
    # -- add_session ---------------------------------------------------------------------
    Story(
        "api-migrated-to-go",
        "session",
        (
            ("2026-03-02", "The API runs on Laravel. Grace owns the billing service."),
            ("2026-06-10", "We migrated the API to Go."),
        ),
        "API",
        "runs_on",
        "Laravel",
        "Go",
        "migrated",
        ("billing service", "owner", "Grace"),
    ),
    Story(
        "alice-left-acme",
        "session",
        (
            ("2025-01-13", "Alice works at Acme and lives in Berlin."),
            ("2025-05-19", "Alice left Acme and joined Globex."),
            ("2025-09-22", "Should Alice move to Paris? She hasn't decided."),
        ),
        "Alice",
        "works_at",
        "Acme",
        "Globex",
        "joined",
        ("Alice", "lives_in", "Berlin"),
    ),
    Story(
        "ci-replaced",
        "session",
        (
            ("2024-09-09", "Our CI is Jenkins. We use Sentry for errors."),
            ("2025-02-03", "We replaced Jenkins with GitHub Actions."),
        ),
        "self",
        "ci",
        "Jenkins",
        "GitHub Actions",
        "replaced",
        ("self", "uses", "Sentry"),
    ),
    Story(
        "new-team-lead-transcript",
        "session",
        (
            (
                "2025-04-07",
                "user: The team lead is Bob.\nassistant: Noted.\n"
                "user: Also, our deploy tool is Capistrano.",
            ),
            ("2025-10-06", "user: Carol is the new team lead.\nassistant: Got it, thanks."),
        ),
        "self",
        "team_lead",
        "Bob",
        "Carol",
        "new",
        ("self", "deploys_with", "Capistrano"),
    ),
    # -- remember ------------------------------------------------------------------------
    Story(
        "docs-site-moved",
        "remember",
        (
            ("2025-03-17", "The docs site is hosted on Netlify. Omar owns the docs site."),
            ("2025-08-11", "We moved the docs site from Netlify to Vercel."),
        ),
        "docs site",
        "hosted_on",
        "Netlify",
        "Vercel",
        "moved",
        ("docs site", "owner", "Omar"),
    ),
    Story(
        "zoe-changed-email",
        "remember",
        (
            ("2024-06-03", "Zoe's email is zoe@example.com. Zoe works at Initech."),
            ("2024-11-18", "Zoe changed her email to zoe@globex.com."),
        ),
        "Zoe",
        "email",
        "zoe@example.com",
        "zoe@globex.com",
        "changed",
        ("Zoe", "works_at", "Initech"),
    ),
    Story(
        "billing-taken-over",
        "remember",
        (
            ("2026-01-05", "Grace owns billing. The API listens on port 8080."),
            ("2026-05-25", "Heidi took over billing from Grace."),
            ("2026-09-14", "Who will own payments? No idea yet."),
        ),
        "billing",
        "owner",
        "Grace",
        "Heidi",
        "took",
        ("API", "port", "8080"),
    ),
    Story(
        "staging-db-bumped",
        "remember",
        (
            ("2025-06-02", "fyi the staging db is on postgres 13. we deploy with kamal."),
            ("2025-11-24", "bumped the staging db to postgres 16"),
        ),
        "staging db",
        "runs_on",
        "postgres 13",
        "postgres 16",
        "bumped",
        ("self", "deploys_with", "kamal"),
    ),
    # -- the MCP server's remember tool --------------------------------------------------
    Story(
        "marcus-moved-city",
        "mcp",
        (
            ("2024-02-12", "Marcus lives in Berlin. Marcus works at SAP."),
            ("2024-08-26", "Marcus moved to Lisbon."),
        ),
        "Marcus",
        "lives_in",
        "Berlin",
        "Lisbon",
        "moved",
        ("Marcus", "works_at", "SAP"),
    ),
    Story(
        "embeddings-switched",
        "mcp",
        (
            ("2025-09-01", "Our embeddings provider is OpenAI. We use Qdrant."),
            ("2026-02-16", "We switched our embeddings provider to Cohere."),
        ),
        "self",
        "embeddings_provider",
        "OpenAI",
        "Cohere",
        "switched",
        ("self", "uses", "Qdrant"),
    ),
    Story(
        "dana-reorg",
        "mcp",
        (
            ("2025-02-24", "Dana reports to Priya. Dana lives in Denver."),
            ("2025-07-14", "After the reorg Dana reports to Omar."),
        ),
        "Dana",
        "reports_to",
        "Priya",
        "Omar",
        "reorg",
        ("Dana", "lives_in", "Denver"),
    ),
    Story(
        "billing-rewritten",
        "mcp",
        (
            (
                "2024-10-07",
                "The billing service is written in Ruby. The billing service is hosted on AWS.",
            ),
            ("2025-03-10", "We rewrote the billing service in Rust."),
            ("2025-08-04", "If Rust gets hard to hire for, we could go back to Ruby."),
        ),
        "billing service",
        "written_in",
        "Ruby",
        "Rust",
        "rewrote",
        ("billing service", "hosted_on", "AWS"),
    ),
]


class _Tools:
    """Call the MCP server's tools in process, as the SDK would."""

    def __init__(self, mem: gm.Memory) -> None:
        pytest.importorskip("mcp")
        from graphmem.mcp_server import build_server

        self.server = build_server(mem)

    def __call__(self, name: str, **arguments: Any) -> str:
        return call_tool(self.server, name, **arguments)


def _session_id(story: Story, index: int) -> str:
    return f"{story.name}-s{index}"


def _replay(mem: gm.Memory, clock: ManualClock, story: Story) -> None:
    tools = _Tools(mem) if story.surface == "mcp" else None
    for index, (day, text) in enumerate(story.sessions):
        clock.set(to_utc(day) + WRITE_HOUR)
        if story.surface == "session":
            mem.add_session(text, started_at=day, session_id=_session_id(story, index))
        elif story.surface == "remember":
            mem.remember(text, at=day)
        else:
            assert tools is not None
            tools("remember", text=text)


def _objects(facts: list[Any]) -> list[str]:
    return sorted(entity_key(f.object) for f in facts)


def _midpoint(story: Story) -> dt.datetime:
    before = to_utc(story.sessions[story.changed_in - 1][0])
    after = to_utc(story.sessions[story.changed_in][0])
    return before + (after - before) / 2


def test_the_stories_cover_every_surface() -> None:
    surfaces = [s.surface for s in STORIES]
    assert {x: surfaces.count(x) for x in set(surfaces)} == {"session": 4, "remember": 4, "mcp": 4}
    for story in STORIES:
        days = [to_utc(d) for d, _ in story.sessions]
        assert all(b - a >= dt.timedelta(days=60) for a, b in zip(days, days[1:], strict=False))
        changing = story.sessions[story.changed_in][1].casefold()
        assert story.word.casefold() in changing, story.name
        assert story.word.casefold() not in story.new.casefold(), story.name


@pytest.mark.parametrize("story", STORIES, ids=[f"{s.surface}:{s.name}" for s in STORIES])
def test_story(story: Story, engine: str) -> None:
    clock = ManualClock(story.sessions[0][0])
    with backends.memory(clock=clock) as mem:
        _replay(mem, clock, story)

        now = mem.facts(subject=story.subject, predicate=story.predicate)
        assert _objects(now) == [entity_key(story.new)], "the new value is not the current one"

        versions = mem.history(story.subject, story.predicate, include_expired=True)
        closed = [
            v
            for v in versions
            if entity_key(v.object) == entity_key(story.old)
            and v.expired_at is not None
            and v.reason
        ]
        assert closed, f"no closed version of {story.old!r} with a reason: {versions}"
        reasons = " | ".join(str(v.reason) for v in closed)
        assert story.word.casefold() in reasons.casefold(), f"reason misses the sentence: {reasons}"
        if story.surface == "session":
            session_id = _session_id(story, story.changed_in)
            assert session_id in reasons, f"reason misses the session {session_id}: {reasons}"

        then = mem.believed(on=_midpoint(story), subject=story.subject, predicate=story.predicate)
        assert _objects(then) == [entity_key(story.old)], "the past belief was rewritten"

        s, p, o = story.unrelated
        kept = mem.facts(subject=s, predicate=p)
        assert _objects(kept) == [entity_key(o)], f"the unrelated fact {story.unrelated} is gone"


# -- properties -----------------------------------------------------------------------------

CORPUS = text_eval.load_corpus()
#: (story, session index) pairs of the labelled corpus: realistic texts with a history before
SESSIONS = [(s, i) for s in CORPUS for i in range(len(s["sessions"]))]
SENTENCES = sorted(
    {part.strip() + "." for s in CORPUS for x in s["sessions"] for part in x["text"].split(".")}
    - {"."}
)


def _state(mem: gm.Memory) -> tuple[int, list[tuple[Any, ...]]]:
    rows = [
        (f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.recorded_at)
        for f in mem.facts()
    ]
    return mem.count_versions(), sorted(rows, key=repr)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SESSIONS))
def test_ingesting_a_session_twice_changes_nothing(case: tuple[dict[str, Any], int]) -> None:
    story, index = case
    clock = ManualClock(story["sessions"][0]["at"])
    with backends.memory(clock=clock) as mem:
        for j, session in enumerate(story["sessions"][: index + 1]):
            clock.set(to_utc(session["at"]) + WRITE_HOUR)
            mem.add_session(session["text"], started_at=session["at"], session_id=f"p{j}")
        first = _state(mem)
        clock.advance(hours=1)
        last = story["sessions"][index]
        mem.add_session(last["text"], started_at=last["at"], session_id=f"p{index}")
        assert _state(mem) == first


@settings(max_examples=50, deadline=None)
@given(
    st.lists(st.sampled_from(SENTENCES), min_size=1, max_size=4).map(" ".join),
    st.dates(min_value=dt.date(2020, 1, 1), max_value=dt.date(2027, 12, 31)),
)
def test_extraction_is_deterministic(text: str, day: dt.date) -> None:
    from graphmem.extract import extract

    assert extract(text, at=day) == extract(text, at=day)
