"""Time rules under text writes (remember, add_session, bulk sessions): hypothesis properties.

- A query with ``known_at=K`` returns the same answer before and after any later text write,
  including bulk session writes of the store's bulk size (COPY_THRESHOLD new versions). Such a
  call still inserts row by row: its sessions are logged writes in the same transaction, and a
  COPY is taken only when the transaction logs nothing else (graphmem.store.kuzu.transactions).
- A single-valued relation never holds two objects at one valid time.
- Reading the same texts into two memories gives the same facts.
"""

from __future__ import annotations

import datetime as dt
import os
import random

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.admission import AdmissionPolicy
from graphmem.sessions import add_sessions
from graphmem.store.kuzu.engine import COPY_THRESHOLD
from graphmem.timeutil import ManualClock
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
TOOLS = ["Go", "Rust", "Laravel", "Django", "Rails"]
ORGS = ["Acme", "Globex", "Initech", "Hooli"]
PEOPLE = ["Alice", "Bob", "Carol"]
TEMPLATES = [
    "The api runs on {tool}.",
    "We migrated the api to {tool}.",
    "The api no longer runs on {tool}.",
    "We replaced {tool} with {tool2}.",
    "{person} works at {org}.",
    "{person} left {org} and joined {org2}.",
    "Correction: {person} works at {org}, not {org2}.",
    "Should we move the api to {tool}?",
    "We also use {tool}.",
    "We deploy with {tool}. {person} lives in Berlin.",
    "{person} moved to Paris last week.",
    "Our embeddings provider is {org}.",
    "We switched our embeddings provider to {org2}.",
    # notices, forms and machine logs (docs/concepts/text.md#notices)
    "Your premium is ${n}.",
    "Premium for this period: ${n}\nTransaction ID: T{n}",
    "Your appointment has been rescheduled\n\nFri, Nov {day} · 9:00 AM",
    '{{"home_airport": "{org}", "user_id": "u_{n}"}}',
    "resources:\n  limits:\n    memory: {n}Mi",
    "Pull request #{n}\nrefactor(api): migrate the api to {tool}\nBo wants to merge · OPEN",
]
VALID = [gm.to_utc(f"20{y}-06-01") for y in (24, 25, 26, 27)]


def text(rng: random.Random) -> str:
    return rng.choice(TEMPLATES).format(
        tool=rng.choice(TOOLS),
        tool2=rng.choice(TOOLS),
        person=rng.choice(PEOPLE),
        org=rng.choice(ORGS),
        org2=rng.choice(ORGS),
        n=rng.randint(100, 999),
        day=rng.randint(1, 28),
    )


def _one_bulk(ops: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """A bulk call after the first is a session: each bulk call reads a few hundred sessions."""
    first = next((i for i, (op, _) in enumerate(ops) if op == "bulk"), len(ops))
    return [
        ("session" if op == "bulk" and i > first else op, seed) for i, (op, seed) in enumerate(ops)
    ]


OPS = st.lists(
    st.tuples(st.sampled_from(["remember", "session", "session", "bulk"]), st.integers(0, 10**6)),
    min_size=1,
    max_size=8,
).map(_one_bulk)


def bulk(rng: random.Random, day: dt.datetime) -> list[dict[str, object]]:
    """Sessions giving one call at least COPY_THRESHOLD new versions (the store's bulk size).

    COPY_THRESHOLD services and people, each named once (the first bulk call in a store writes
    a new version for each; a later one, for each said with another value), a hundred of them
    said again in the same call with a value drawn again (a batch that supersedes itself), and
    a random line from the templates in every session. Four claims a session, not one: the
    same versions from a third of the sessions and under half of the sentences to read.
    """
    half = COPY_THRESHOLD // 2

    def service(i: int) -> str:
        return f"The svc{i} runs on {rng.choice(TOOLS)}."

    def person(i: int) -> str:
        return f"{PEOPLE[i % len(PEOPLE)]}{i} works at {rng.choice(ORGS)}."

    claims = [service(i) for i in range(half)] + [person(i) for i in range(COPY_THRESHOLD - half)]
    claims += [service(i) for i in rng.sample(range(half), 50)]
    claims += [person(i) for i in rng.sample(range(COPY_THRESHOLD - half), 50)]
    rng.shuffle(claims)
    return [
        {"text": " ".join(claims[i : i + 4]) + " " + text(rng), "started_at": day}
        for i in range(0, len(claims), 4)
    ]


def snapshot(mem: gm.Memory, known_at: dt.datetime) -> dict[dt.datetime, list[tuple[str, ...]]]:
    return {
        v: sorted(
            (f.id, f.subject, f.predicate, f.object)
            for f in mem.facts(valid_at=v, known_at=known_at)
        )
        for v in VALID
    }


def run(ops: list[tuple[str, int]], check: bool) -> list[tuple[str, str, str, str]]:
    clock = ManualClock("2025-01-01T00:00:00Z")
    seen = []
    bulked = False
    with backends.memory(clock=clock, admission=AdmissionPolicy.unlimited()) as mem:
        for op, seed in ops:
            rng = random.Random(seed)
            clock.advance(days=rng.randint(1, 200))
            day = clock()
            if op == "remember":
                mem.remember(text(rng), at=day)
            elif op == "session":
                mem.add_session(" ".join(text(rng) for _ in range(3)), started_at=day)
            else:
                before = mem.count_versions()
                add_sessions(mem, bulk(rng, day))
                if not bulked:  # the batch is as big as the bulk write path needs
                    assert mem.count_versions() - before >= COPY_THRESHOLD
                bulked = True
            if check:
                seen.append((clock(), snapshot(mem, clock())))
        for k, answer in seen:
            assert snapshot(mem, k) == answer, f"the answer for known_at={k} changed"
        if check:
            for v in VALID:
                held: dict[tuple[str, str], set[str]] = {}
                for f in mem.facts(valid_at=v):
                    if mem.ontology.resolve(f.predicate).cardinality == "one":
                        held.setdefault((f.subject, f.predicate), set()).add(f.object)
                assert all(len(objs) == 1 for objs in held.values()), held
        return sorted((f.subject, f.predicate, f.object, str(f.valid_from)) for f in mem.facts())


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS)
@example([("session", 1), ("bulk", 2), ("remember", 3), ("session", 4)])  # every write path
def test_known_at_answers_never_change_under_text_writes(ops: list[tuple[str, int]]) -> None:
    run(ops, check=True)


@pytest.mark.slow
@pytest.mark.long
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OPS)
def test_known_at_answers_never_change_under_many_text_writes(
    ops: list[tuple[str, int]],
) -> None:
    """The property above on many more histories (the slow family, every CI run)."""
    run(ops, check=True)


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from(["remember", "session"]), st.integers(0, 10**6)),
        min_size=1,
        max_size=6,
    )
)
def test_reading_is_deterministic(ops: list[tuple[str, int]]) -> None:
    assert run(ops, check=False) == run(ops, check=False)


#: Cells of pasted tables and chat logs: marks, tabs, numbers and change words mixed.
CELLS = [
    "→",
    "->",
    "|",
    "—",
    "•",
    "\t",
    "142",
    "$118/mo",
    "Car ins",
    "switched to",
    "moved",
    "Progressive",
    "now",
    "(was 7)",
    "starting Mar",
    "~",
    "✅",
    "x2",
    "n/a",
    ":",
    "…",
]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.sampled_from(CELLS), min_size=1, max_size=8), min_size=1, max_size=5))
@example([["Car ins", "\t", "142", "\t", "142", "→", "switched to", "Progressive"]])
def test_pasted_rows_never_raise_and_every_line_is_kept(rows: list[list[str]]) -> None:
    lines = ["Budget paste:"] + [" ".join(cells) for cells in rows]
    with backends.memory(clock=ManualClock(VALID[0])) as mem:
        mem.add_session("\n".join(lines), started_at=VALID[0])
        mem.remember("\n".join(lines), at=VALID[1])
        kept = "\n".join(s.text or "" for s in mem.sessions())
        kept += "\n".join(f.object for f in mem.facts(predicate="note"))
        for line in lines:
            for word in line.split():
                assert word in kept, (word, kept)
