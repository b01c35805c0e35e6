"""Marks for what a later line says ended (docs/concepts/recall.md#said-ended)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.said_ended import (
    Said,
    Shown,
    _ended_values,
    _read_ended,
    _versioned,
    ended_values,
    marks,
    names,
)
from graphmem.text.claims import Claim
from graphmem.timeutil import ManualClock
from tests import backends


class NoReader:
    """A reader that reads nothing: every sentence stays a line of its session."""

    def read(self, text: str, *, at: dt.datetime, owner: str) -> Sequence[Claim]:
        return []


class FirstOnly:
    """A reader that reads the first statement but misses the change."""

    def read(self, text: str, *, at: dt.datetime, owner: str) -> Sequence[Claim]:
        if "We keep invoices in S3" in text:
            return [Claim(owner, "stores_invoices_in", "S3", sentence=text)]
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
        ("Pingdom cancelled over the break, no uptime checks now", ["pingdom"]),
        ("yusuf's contract ended friday, nobody's on iOS", ["yusuf"]),
        ("fridays are no longer my no-meeting day, it's wednesdays now", ["fridays"]),
        ("Postgres is no longer the primary store", ["postgres"]),
        ("- Starter is now $12/mo (was $9/mo); still 3 projects.", ["$9/mo"]),
        ("Team SLA raised to 99.95%, up from 99.9%.", ["99.9%"]),
        # "..., not X" before an aside or a comma; after a number the comma may go
        ("Leverhulme deadline is 3 Dec, not 5 Dec (Emeka checked the portal)", ["5 dec"]),
        ("the ceremony starts at 1:30pm, not 2pm (the registrar can't do later).", ["2pm"]),
        ("correction on rent, it's £1,150 not £1,100, I misread the listing.", ["£1,100"]),
        # a person gone from a role, a booking cancelled on someone
        ("promoted!! mike left for stripe, so i report to saoirse now.", ["mike"]),
        ("Rosa has left; Dr. Imran Shah is the new DPO.", ["rosa"]),
        ("Brenda stepped down as chair; Amir was elected", ["brenda"]),
        ("casa do largo cancelled on me, booked hotel verride instead", ["casa do largo"]),
        # a medicine stopped, an account closing
        ("Updated: ibuprofen stopped; naproxen 250 mg twice daily.", ["ibuprofen"]),
        ("we stopped taking vitamin D in May", ["vitamin d", "vitamin"]),
        ("we're on plivo now, the nexmo acct closes end of month", ["nexmo"]),
        # someone gone to another team; a dash ends the clause before them
        ("CI images — Ilse moved to the data team, so Bram owns them now", ["ilse"]),
        ("Omar switched teams last week", ["omar"]),
        # a diff's removed line, a struck-out value, "done with", a clipped "uninstalled"
        ("-FROM python:3.10-slim", ["python:3.10-slim"]),
        ("-    image: registry.example/api:1.8.2", ["registry.example/api:1.8.2"]),
        ("-SMTP_HOST=mail.old-host.example", ["mail.old-host.example"]),
        ("**Internet**: ~~Xfinity~~ → Google Fiber since March", ["xfinity"]),
        ("chef: done with GreenLeaf after the third short delivery", ["greenleaf"]),
        ("cutover done at 02:00, nginx-ingress uninstalled. no 5xx", ["nginx-ingress"]),
        ("the old OVH box is cancelled. same address", ["old ovh box"]),
        # a quote or a code span before the name; a rename
        ('Change summary: "Priya moved to the Risk team, I took over L2"', ["priya"]),
        ("done: `master` was renamed to `main` this morning", ["master"]),
        # away from a role, handed back, read-only, switched off, gone off, rolled back
        ("Mrs Adeyemi went on maternity leave, Mr Kowal has the class", ["mrs adeyemi"]),
        ("Marek is out on parental leave from today, Jolene picks this up", ["marek"]),
        ("Sven is out sick from today.", ["sven"]),
        ("Ade didn't work out, so we got Gemma instead", ["ade"]),
        ("Wei moved over to the Platform team as of today", ["wei"]),
        ("payments go through Adyen, Stripe is read-only for old refunds.", ["stripe"]),
        ("The Canal Street unit has been handed back.", ["canal street unit"]),
        ("the old mirror gets switched off that same day", ["old mirror"]),
        ("they've gone off genmaicha, hojicha is the favourite now", ["genmaicha"]),
        ("rolled back from 2.9.0, 2.8.6 is live", ["2.9.0"]),
        ("I was wrong about libvips, the leak is ours", ["libvips"]),
        ("Gwen Pryce has stood down as Chair.", ["gwen pryce"]),
        ("Ikaika changed due date from Nov 22, 2024 to Dec 6, 2024", ["nov 22"]),
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
        "the API is no longer slow",
        "revenue is up from last year",
        "the order was cancelled by the customer",
        # a message from one person to another
        "Kenji → Dana: thanks Dana, I can reproduce this.",
        # a plan, a wish or a denial is no change
        "thought about dropping the almond croissant but keeping it for now",
        "Lila asked to swap vacuum for dishes, told her we'll see",
        "we might move from Heroku to Fly next quarter",
        "we didn't replace Jenkins after all",
        "should we switch from Heroku to Fly?",
        # a bullet is no diff line; a negative figure is no field
        "- image: registry.example/api:1.8.2",
        "-5 degrees tonight, bring gloves",
        "--- a/Dockerfile",
        "the file was renamed yesterday",
        "the lights went off at 9",
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


_PHRASES = [
    "moved",
    "from",
    "S3",
    "to",
    "R2",
    "replaced",
    "with",
    "dropped",
    "stopped using",
    "is gone",
    "was swapped for",
    "instead of",
    "is no longer supported",
    "no longer in",
    "our",
    "->",
    "→",
    "(was",
    "$9/mo)",
    "up from",
    "99.9%",
    ",",
    "not",
    "Tomasz",
    ".",
    "doesn't",
    "talk",
    "gRPC",
    "any more",
    "anymore",
    "Yusuf's",
    "contract ended",
    "got rid of",
    "shut down",
    "Pingdom",
    "cancelled",
    "decommissioned",
    "expires",
    "goes away",
    "left",
    "quit",
    "phased out",
    "the",
    "ripped out",
    "history",
    "dead",
    "deleted",
    "ſtopped uſing",
    "KILLED",
    "İnstead of",
    "ı",
    "DITCHED",
    "\n",
    "Retired",
    "sunset",
    "uninstalled",
    "abandoned",
    "turned off",
    "we",
    "-FROM",
    "-  image:",
    "~~",
    "~~Xfinity~~",
    "done with",
    "archived",
    "went on leave",
    "is out sick",
    "didn't work out",
    "is read-only",
    "gone off",
    "rolled back from",
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(_PHRASES), st.booleans()).map(
            lambda p: p[0].upper() if p[1] else p[0]
        ),
        max_size=8,
    ).map(" ".join)
)
@example("moved from S3 to R2 ")
@example("$12/mo (was $9/mo)")
@example("99.95%, up from 99.9%")
@example("it's Tamsin, not Tomasz.")
@example("the app doesn't talk gRPC any more")
@example("yusuf's contract ended friday")
@example("Pingdom cancelled over the break")
@example("Jenkins -> GitHub Actions")
@example("ſtopped uſing Jira")
@example("we moved off Heroku")
@example("we stopped using Jira")
def test_the_cue_test_skips_only_lines_that_say_nothing_ended(text: str) -> None:
    # a line without a cue word is not read (docs/concepts/recall.md#said-ended): the same
    # values as reading it
    assert _ended_values(text) == _read_ended(text)


def _context(mem: gm.Memory, question: str, **kw: object) -> list[str]:
    return str(mem.context(question, **kw)).casefold().splitlines()  # type: ignore[arg-type]


def test_an_unread_line_is_marked_by_the_later_change(clock: ManualClock) -> None:
    with backends.memory(clock=clock, reader=NoReader()) as mem:
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
    with backends.memory(clock=clock, reader=NoReader()) as mem:
        clock.set("2026-02-03T12:00Z")
        mem.add_session("Alice works at Acme.", started_at="2026-02-03")
        clock.set("2026-05-20T12:00Z")
        mem.add_session("Bob left Acme in May.", started_at="2026-05-20")
        clock.set("2026-05-21")
        alice = next(ln for ln in _context(mem, "acme") if "alice" in ln)
        assert "no longer" not in alice


def test_a_fact_the_reader_did_not_close_is_marked(clock: ManualClock) -> None:
    # remember() keeps the change it could not read as a note; the note does not speak for
    # the owner (no "we"), so the write leaves the owner's fact alone and the note marks it
    with backends.memory(clock=clock, reader=FirstOnly()) as mem:
        clock.set("2026-02-03T12:00Z")
        mem.remember("We keep invoices in S3.", at="2026-02-03")
        clock.set("2026-05-20T12:00Z")
        mem.remember("Invoices moved from S3 to R2.", at="2026-05-20")
        clock.set("2026-05-21")
        text = str(mem.context("where are invoices kept? S3?"))
        fact = next(ln for ln in text.splitlines() if "stores_invoices_in S3" in ln)
        assert "a later line (2026-05-20) says it was replaced" in fact
        note = next(ln for ln in text.splitlines() if "note:" in ln)
        assert "says s3 is no longer current" in note
        assert [f.object for f in mem.facts(predicate="stores_invoices_in")] == ["S3"]


def _now(mem: gm.Memory, subject: str) -> list[tuple[str, str]]:
    return sorted((f.predicate, f.object) for f in mem.facts(subject=subject))


def test_what_a_sentence_says_ended_ends_the_fact_of_a_thing_it_names(clock: ManualClock) -> None:
    clock.set("2026-06-10")
    with backends.memory(clock=clock) as mem:
        mem.remember("The search page uses Algolia.", at="2025-10-13")
        mem.remember("Alice works at Acme.", at="2025-10-13")
        mem.remember("Algolia is gone; the search page queries Typesense now.", at="2026-03-16")
        mem.remember("Bob left Acme in May.", at="2026-05-20")  # names neither Alice nor us
        assert _now(mem, "search page") == [("queries", "Typesense")]
        assert [f.valid_to for f in mem.history("search page", "uses")][-1] is not None
        assert _now(mem, "Alice") == [("works_at", "Acme")]


def test_a_sentence_read_only_for_its_ending_keeps_what_else_it_names(clock: ManualClock) -> None:
    clock.set("2026-06-10")
    with backends.memory(clock=clock) as mem:
        mem.remember("Meeting notes: project Vega lead is Ada Quist.", at="2025-06-11")
        mem.remember(
            "Org update: Bo Lind has taken over as project Vega lead after Ada Quist moved to "
            "the platform team.",
            at="2026-02-18",
        )
        notes = [f.object for f in mem.facts(predicate="note")]
        assert any("Bo Lind has taken over" in n for n in notes), notes
        assert "Bo Lind" in str(mem.context("Who leads project Vega?"))
        mem.remember("The wiki runs on Confluence.", at="2025-06-11")
        mem.remember("Confluence is gone.", at="2026-03-01")  # says no more than its ending
        assert not any("Confluence" in f.object for f in mem.facts(predicate="note"))


def test_it_is_x_not_y_corrects_from_the_old_start(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        clock.set("2026-02-02T12:00Z")
        mem.add_session("user: my manager is Tomasz", started_at="2026-02-02")
        clock.set("2026-02-20T12:00Z")
        mem.add_session("user: actually it's Tamsin, not Tomasz.", started_at="2026-02-20")
        clock.set("2026-03-01")
        (f,) = mem.facts(subject=mem.owner, predicate="reports_to")
        assert (f.object, f.valid_from.date().isoformat()) == ("Tamsin", "2026-02-02")
        # what was believed before the correction stays as it was
        before = mem.believed(on="2026-02-10")
        assert [g.object for g in before if g.predicate == "reports_to"] == ["Tomasz"]


@pytest.mark.parametrize(
    ("first", "second", "subject", "want"),
    [
        # one slot named two ways: the same words less "for"/"of"
        (
            "fyi the SLA for enterprise is 99.9%",
            "enterprise SLA is 99.95% now",
            "self",
            ("sla_for_enterprise", "99.95%"),
        ),
        # a shorter name of one slot
        (
            "Customer support hours are 9 to 5.",
            "Support hours are 8 to 8 now.",
            "self",
            ("customer_support_hours", "8 to 8"),
        ),
        # the thing's one single-valued relation holding an amount of the same kind
        (
            "The Pro plan costs $20 a seat per month.",
            "As of January the Pro plan is $24 per seat.",
            "Pro plan",
            ("costs", "$24"),
        ),
    ],
)
def test_a_slot_named_otherwise_is_the_same_slot(
    first: str, second: str, subject: str, want: tuple[str, str], clock: ManualClock
) -> None:
    clock.set("2026-06-10")
    with backends.memory(clock=clock) as mem:
        mem.remember(first, at="2025-06-10")
        mem.remember(second, at="2026-01-10")
        who = mem.owner if subject == "self" else subject
        assert want in _now(mem, who)
        assert len([p for p, _ in _now(mem, who) if p == want[0]]) == 1


_THINGS = ["billing service", "search page", "mobile app", "data team", "wiki", "nightly job"]
_TOOLS = ["Algolia", "Jenkins", "Redis", "Zendesk", "Sentry", "Postgres"]


@settings(max_examples=15, deadline=None)
@given(
    held=st.lists(
        st.tuples(st.sampled_from(_THINGS), st.sampled_from(_TOOLS)), min_size=1, max_size=4
    ),
    other=st.sampled_from(["Bob", "Acme Corp", "the vendor"]),
    tool=st.sampled_from(_TOOLS),
)
def test_an_ending_about_another_thing_ends_nothing(
    held: list[tuple[str, str]], other: str, tool: str
) -> None:
    # a wrong supersession is worse than a missed one: only a thing the sentence names (or
    # the owner, when the owner speaks) loses a value the sentence says ended
    clock = ManualClock("2026-06-10")
    with backends.memory(clock=clock) as mem:
        for thing, value in held:
            mem.add_fact(thing, "uses", value, valid_from="2026-01-01")
        before = sorted((f.subject, f.object) for f in mem.facts())
        mem.remember(f"{other} dropped {tool} last month.", at="2026-05-01")
        after = sorted((f.subject, f.object) for f in mem.facts() if f.predicate != "note")
        assert set(before) <= set(after)


@pytest.mark.parametrize(
    ("first", "second", "subject", "slot", "want"),
    [
        (
            "prod k8s ingress is nginx-ingress",
            "nginx-ingress is gone from production, Traefik does ingress now",
            "prod k8s",
            "ingress",
            "Traefik",
        ),
        (
            "Standup\n- CDN: Fastly",
            "Standup\n- CDN cutover to CloudFront happened yesterday, Fastly contract lapses",
            "self",
            "cdn",
            "CloudFront",
        ),
    ],
)
def test_a_slot_named_beside_its_ended_value_takes_the_new_name(
    first: str, second: str, subject: str, slot: str, want: str, clock: ManualClock
) -> None:
    clock.set("2026-06-10")
    with backends.memory(clock=clock) as mem:
        mem.add_session(first, started_at="2026-01-05")
        mem.add_session(second, started_at="2026-04-28")
        who = mem.owner if subject == "self" else subject
        assert [f.object for f in mem.facts(subject=who, predicate=slot)] == [want]


def test_a_corrected_line_says_it_was_wrong(clock: ManualClock) -> None:
    # a correction is no end: the old version was never true, so no fact marks its line; the
    # versions no longer believed do (docs/concepts/recall.md, "Superseded lines are marked")
    with backends.memory(clock=clock) as mem:
        clock.set("2026-02-02T12:00Z")
        mem.add_session("user: my manager is Tomasz", started_at="2026-02-02")
        clock.set("2026-02-20T12:00Z")
        mem.add_session("user: actually, my manager is Tamsin", started_at="2026-02-20")
        clock.set("2026-03-01")
        old = next(ln for ln in _context(mem, "who is my manager?") if "tomasz" in ln)
        assert "was wrong; corrected to: reports_to tamsin" in old
        before = _context(mem, "who is my manager?", known_at="2026-02-10")
        assert not any("wrong" in ln for ln in before)


@pytest.mark.parametrize(
    ("first", "later", "question", "old", "mark"),
    [
        # "Kitchen budget: ..." shares no word with the later line but its field's name
        (
            "RENOVATION LOG — week 1\nKitchen budget: oak cabinets — cap 40k\nContractor: Bell",
            "RENOVATION LOG — week 10\nroof leak ate the reserve. new kitchen budget 25k, "
            "not spending 40k anymore. tiles arrive friday.",
            "What is the kitchen budget capped at?",
            "cap 40k",
            "40k: no longer current per 11 may 2026",
        ),
        # a versioned name needs no shared word
        (
            "## 2.4.0\n- Faster cold starts.\n- The CLI needs Python 3.9 or later.",
            "## 3.0.0\n- Removed Python 3.9; the floor is Python 3.11.",
            "Which Python does the CLI need?",
            "needs python 3.9",
            "python 3.9: no longer current per 11 may 2026",
        ),
    ],
)
def test_a_line_tied_to_a_later_ending_by_its_field_or_version_is_marked(
    clock: ManualClock, first: str, later: str, question: str, old: str, mark: str
) -> None:
    with backends.memory(clock=clock, reader=NoReader()) as mem:
        for day, text in (("03-02", first), ("05-11", later)):
            clock.set(f"2026-{day}T12:00Z")
            mem.add_session(text, started_at=f"2026-{day}")
        clock.set("2026-05-12")
        line = next(ln for ln in _context(mem, question) if old in ln)
        assert mark in line
        before = _context(mem, question, known_at="2026-04-01")
        assert not any("no longer" in ln for ln in before)


@pytest.mark.parametrize(
    ("value", "versioned"),
    [
        ("node.js 18", True),
        ("python 3.9", True),
        ("pg 14", True),
        ("api v2", True),
        ("18", False),  # a number alone is many things
        ("week 3", False),  # one digit: a count, not a version
        ("the 30", False),  # no name
        ("chasing 3:45", False),
        # an identifier with a figure: an image, a region, a host
        ("python:3.10-slim", True),
        ("eu-central-1", True),
        ("registry.example/api:1.8.2", True),
        ("1.8.2", False),  # figures alone
        ("s3", False),  # no separator: a short name many things share
    ],
)
def test_which_values_name_a_versioned_thing(value: str, versioned: bool) -> None:
    assert _versioned(value) is versioned


@settings(max_examples=60, deadline=None)
@given(
    name=st.sampled_from(["Node.js", "Python", "Postgres", "Go", "Ruby"]),
    old=st.integers(10, 30),
    other=st.text(alphabet="abcdefghij ", min_size=0, max_size=30),
)
def test_a_versioned_ending_marks_only_earlier_lines_naming_that_version(
    name: str, old: int, other: str
) -> None:
    # marks() for lines: the earlier line naming the version is marked with the ender's date;
    # one naming another version, or said after the ending, is not.
    t0, t1, t2 = (dt.datetime(2026, m, 1, tzinfo=dt.timezone.utc) for m in (1, 3, 5))
    ender = Said("e", f"Dropped {name} {old}; {name} {old + 2} is the minimum.", t1)
    items = [
        Shown("a", f"{other} needs {name} {old} {other}", t0),
        Shown("b", f"{other} needs {name} {old + 1} {other}", t0),
        Shown("c", f"{other} needs {name} {old} {other}", t2),
    ]
    said = [ender, *(Said(i.id, i.text, i.when) for i in items)]
    found = marks(items, said, owner="self", valid_at=t2)
    assert found.get("a") == (f"{name} {old}".casefold(), t1)
    assert "b" not in found
    assert found.get("c", (None, None))[1] is None  # never marked by an earlier ending


def test_a_neighbour_that_says_a_value_ended_marks_a_hit_of_another_session() -> None:
    # The hit names Heroku; the line saying Heroku ended came only as the neighbour of a hit
    # of its own session: the candidates were marked among themselves before it was shown.
    from graphmem.episodic import LineCandidate, mark_neighbours
    from graphmem.store.records import LineRow

    t0, t1 = (
        dt.datetime(2026, 2, 1, tzinfo=dt.timezone.utc),
        dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc),
    )
    hit = LineRow("s1#0", "s1", 0, None, "the billing dynos run on Heroku", t0, t0)
    other = LineRow("s2#0", "s2", 0, None, "billing status: all green", t1, t1)
    ender = LineRow("s2#1", "s2", 1, None, "the dynos left Heroku for good", t1, t1)
    cands = [LineCandidate(hit, 1.0, score=1.0), LineCandidate(other, 0.5, score=0.5)]
    beside = mark_neighbours([ender], cands, valid_at=t1, query="where do billing dynos run?")
    assert cands[0].superseded == "heroku: no longer current per 1 Jun 2026"
    assert cands[1].superseded is None
    shown = beside["s2#1"]
    assert isinstance(shown, LineCandidate)
    assert shown.superseded == "heroku: no longer current from here"


def test_a_diff_that_removes_a_line_marks_the_line_it_removed(clock: ManualClock) -> None:
    # docs/concepts/recall.md#said-ended: "-FROM python:3.10-slim" says that value is gone
    with backends.memory(clock=clock, reader=NoReader()) as mem:
        sessions = [
            (
                "2026-02-02",
                "# Dockerfile of the reports worker\nFROM python:3.10-slim\nWORKDIR /app",
            ),
            (
                "2026-05-11",
                "PR #77 bump the reports worker image\n-FROM python:3.10-slim\n"
                "+FROM python:3.12-slim\n WORKDIR /app",
            ),
        ]
        for day, text in sessions:
            clock.set(f"{day}T12:00Z")
            mem.add_session(text, started_at=day)
        clock.set("2026-05-12")
        lines = _context(mem, "which python image does the reports worker build from?")
        old = [ln for ln in lines if "python:3.10-slim" in ln]
        assert old, lines
        assert all("python:3.10-slim: no longer current" in ln for ln in old), old
        assert any("python:3.12-slim" in ln and "no longer" not in ln for ln in lines), lines
