"""Hostile input, fuzzed with hypothesis across the Python API and the CLI.

Every call either raises a :class:`~graphmem.errors.GraphmemError` subclass with a short,
non-empty message and leaves the store exactly as it was (every table's row count and every
fact version's content compared before and after), or succeeds; a successful write reads back
byte for byte (statement, source and source_ref exactly; names after their documented
normalisation: NFKC, whitespace runs collapsed to one space, stripped). Any other exception
type fails. ``graphmem check`` must pass after the whole run.

The inputs: any unicode (control and format characters, unpaired surrogates, NUL), 1 MB
strings, empty and blank strings, Cypher-looking strings, dates that are naive, out of range or
garbage, NaN/inf numbers, unknown predicates and wrong types (None, ints, lists, dicts, bytes).

Scale the number of examples with ``GRAPHMEM_FUZZ_SCALE`` (the slow test runs 10x).
"""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.check import check, versions
from graphmem.cli import cli
from graphmem.errors import GraphmemError
from graphmem.kernel import kernel_of
from graphmem.normalize import clean_name, entity_key
from graphmem.timeutil import ManualClock
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
# Failing examples may hold 1 MB strings: let hypothesis print them rather than mask the failure.
pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")
SCALE = float(os.environ.get("GRAPHMEM_FUZZ_SCALE", "1"))
_TRACE_PATH = os.environ.get("GRAPHMEM_FUZZ_TRACE")
TRACE = open(_TRACE_PATH, "a") if _TRACE_PATH else None  # noqa: SIM115 - lives for the run
#: Examples run and outcomes, per API (printed by test_zz_store_is_intact_after_the_run).
STATS: Counter[str] = Counter()
UTC = dt.timezone.utc
MB = "x" * 1_000_000


def fuzz(n: int) -> Callable[[Any], Any]:
    return settings(
        max_examples=max(1, int(n * SCALE)),
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=SCALE == 1,  # the default run is reproducible; the heavy one explores
        # No shrinking: the store is shared across examples, so a shrunk example would not
        # replay the same state; the failing call is printed with its arguments instead.
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )


# -- hostile values ---------------------------------------------------------------------------

SPECIAL = [
    "",
    " ",
    "\t\n ",
    "\x00",
    "a\x00b",
    "\x1b[31mred\x1b[0m",
    "\u202eevil",
    "\ufeffbom",
    "a\u2028b",
    "e\u0301",
    "ﬁ",
    "ｆｕｌｌ",
    "👩‍👩‍👧",
    "\ud800",
    "x\udcffy",
    "') DETACH DELETE n //",
    "MATCH (n) DETACH DELETE n",
    "$param",
    "$s",
    "`backtick`",
    "'; DROP TABLE Fact; --",
    '" OR 1=1 --',
    "{}",
    "\\",
    "null",
    "NaN",
    "works_at",
    "Alice",
    "alice ",
    "ACME",
]
TEXT = st.integers(0, 11).flatmap(
    lambda i: (
        st.just(MB)  # one time in twelve: 1 MB strings are slow to push around
        if i == 0
        else st.one_of(
            st.text(max_size=30),
            st.text(
                alphabet=st.characters(categories=["Cc", "Cf", "Cs", "Co", "Zl", "Zp", "Zs", "Mn"]),
                max_size=8,
            ),
            st.sampled_from(SPECIAL),
        )
    )
)
WRONG = st.sampled_from(
    [None, 0, -1, 10**30, 1.5, math.nan, math.inf, True, [], ["a"], {}, {"a": 1}, b"bytes", ()]
)
ANY = st.one_of(TEXT, WRONG)
ODD_TZ = [UTC, dt.timezone(dt.timedelta(hours=14)), dt.timezone(-dt.timedelta(hours=12))]
HOSTILE_TIME = st.one_of(
    st.sampled_from(
        [
            "1490",
            "0001-01-01",
            "9999-12-31",
            "0000-01-01",
            "10000-01-01",
            "2026-13-45",
            "2026-02-30",
            "2026-06-10T12:00:00",  # no offset
            "2026-06-10T25:00:00Z",
            "2026-06-10T12:00:00+25:00",
            "9999-12-31T23:59:59-12:00",  # past year 9999 once in UTC
            "0001-01-01T00:00:00+14:00",  # before year 1 once in UTC
            "yesterday",
            "",
            "2026-06-10 12:00:00Z",
        ]
    ),
    st.datetimes(),  # naive
    st.datetimes(timezones=st.sampled_from(ODD_TZ)),
    st.dates(),
    WRONG,
    TEXT,
)
HOSTILE_NUMBER = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**20), 10**20),
    st.sampled_from([10**400, -(10**400), 2**63, -0.0, 5e-324, 1e308]),
    WRONG,
    TEXT,
)


def mostly(valid: st.SearchStrategy[Any], hostile: st.SearchStrategy[Any] = ANY) -> Any:
    """Usually a valid value, one time in six a hostile one: so that calls get past the
    first check and the later ones (and the success paths) are fuzzed too."""
    return st.integers(0, 5).flatmap(lambda i: hostile if i == 0 else valid)


NAME = mostly(st.sampled_from(["Alice", "alice", "Bob", "ACME", "Acme Corp", "Go", "Paris"]))
KEY_NAME = mostly(st.sampled_from(["Alice", "Bob", "ACME"]), TEXT)  # hashable: dict keys
PREDICATE = mostly(st.sampled_from(["works_at", "uses", "lives_in", "works for", "likes"]))
TIME = mostly(
    st.one_of(
        st.none(),
        st.dates(min_value=dt.date(1, 1, 1), max_value=dt.date(9999, 12, 31)),
        st.datetimes(
            min_value=dt.datetime(2, 1, 1),
            max_value=dt.datetime(9998, 1, 1),
            timezones=st.sampled_from(ODD_TZ),
        ),
    ),
    HOSTILE_TIME,
)
NUMBER = mostly(st.one_of(st.none(), st.floats(0, 10), st.integers(0, 10)), HOSTILE_NUMBER)
CONFIDENCE = mostly(st.one_of(st.none(), st.floats(0, 1)), HOSTILE_NUMBER)
KIND = mostly(st.sampled_from(["fact", "event", "insight", "directive", "identity"]))
OPT_TEXT = mostly(st.one_of(st.none(), st.text(min_size=3, max_size=30)))


# -- the harness ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fmem() -> Iterator[gm.Memory]:
    """One memory for the whole run (check must pass on it at the end); in memory for speed
    (the on-disk path is fuzzed through the CLI)."""
    clock = ManualClock("2026-01-01")
    store = backends.store()
    with gm.open(store=store, clock=clock) as mem:
        mem.define_predicate("uses", cardinality="many")
        mem.add_fact("Alice", "works_at", "ACME", valid_from="2020-01-01")
        mem.add_fact("Alice", "uses", "Go", valid_from="2021-01-01")
        mem._fuzz_clock = clock  # type: ignore[attr-defined]
        mem._fuzz_opened_store = store  # type: ignore[attr-defined]  # the store opened above
        yield mem


def _snapshot(mem: gm.Memory) -> tuple[Any, ...]:
    """Row counts of every table and the state of every version (what a write may change)."""
    store = mem._fuzz_opened_store  # type: ignore[attr-defined]  # set by fmem
    return tuple(sorted(store.counts().items())), store.fact_states()


def attempt(mem: gm.Memory, api: str, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call ``fn``: a GraphmemError with a clear message and nothing written, or a result."""
    mem._fuzz_clock.advance(seconds=1)  # type: ignore[attr-defined]
    before = _snapshot(mem)
    STATS[api] += 1
    if TRACE is not None:  # to find the call that killed the process (GRAPHMEM_FUZZ_TRACE)
        TRACE.write(f"{api} {args!r:.2000} {kwargs!r:.2000}\n")
        TRACE.flush()
    error: GraphmemError | None = None
    try:
        out = fn(*args, **kwargs)
    except GraphmemError as exc:
        error = exc
    except Exception as exc:  # noqa: BLE001 - any other type is the bug we hunt
        pytest.fail(f"{api}{args!r:.200}{kwargs!r:.300} raised {type(exc).__name__}: {exc!r:.300}")
    if error is not None:
        message = str(error)
        assert message.strip(), f"{api}: {type(error).__name__} with an empty message"
        assert len(message) <= 2100, f"{api}: a {len(message)}-character message"
        assert _snapshot(mem) == before, f"{api} failed with {error!r} but changed the store"
        STATS[f"{api}:{type(error).__name__}"] += 1
        return None
    STATS[f"{api}:ok"] += 1
    return out


BOOKKEEPING = {"access_count", "last_accessed_at"}


def same_version(stored: gm.Fact, returned: gm.Fact) -> bool:
    """Equal but for access bookkeeping (a later noop in the same batch bumps it)."""
    return stored.model_dump(exclude=BOOKKEEPING) == returned.model_dump(exclude=BOOKKEEPING)


def _roundtrip(mem: gm.Memory, result: Any, **given_values: Any) -> None:
    """A written version reads back exactly; text fields byte for byte."""
    if result is None or result.fact is None:
        return
    back = mem.get_fact(result.fact.id)
    assert same_version(back, result.fact)
    # Only a version this call wrote carries its values: a "supersede" may also keep an
    # existing version that already held the fact (e.g. after closing the one its source_ref
    # named; docs/concepts/decisions.md#rule-1 and #rule-2), and a noop returns the reinforced
    # existing version.
    written_now = back.recorded_at == mem.now()
    if result.decision.value in ("add", "supersede") and written_now:
        for key in ("statement", "source", "source_ref"):
            if key in given_values and isinstance(given_values[key], str):
                want = given_values[key] or None  # an empty text means "none"
                assert getattr(back, key) == want, key


# -- the Python API ---------------------------------------------------------------------------


@pytest.mark.slow  # a long test: CI's slow family runs it
@fuzz(100)
@given(
    subject=NAME,
    predicate=PREDICATE,
    obj=NAME,
    valid_from=TIME,
    valid_to=TIME,
    statement=OPT_TEXT,
    source=OPT_TEXT,
    source_ref=OPT_TEXT,
    kind=KIND,
    importance=NUMBER,
    confidence=CONFIDENCE,
    pinned=mostly(st.booleans(), WRONG),
)
def test_add_fact(fmem: gm.Memory, subject: Any, predicate: Any, obj: Any, **kw: Any) -> None:
    result = attempt(fmem, "add_fact", fmem.add_fact, subject, predicate, obj, **kw)
    if result is not None and result.fact is not None:
        _roundtrip(fmem, result, **kw)
        assert entity_key(result.fact.object) == entity_key(clean_name(result.fact.object))


@fuzz(60)
@given(
    items=mostly(
        st.lists(
            st.fixed_dictionaries(
                {"subject": NAME, "predicate": PREDICATE, "object": NAME},
                optional={
                    "valid_from": TIME,
                    "valid_to": TIME,
                    "statement": OPT_TEXT,
                    "importance": NUMBER,
                    "kind": KIND,
                },
            ),
            max_size=6,
        ),
        st.one_of(
            st.lists(
                st.one_of(
                    st.dictionaries(st.text(max_size=5), ANY, max_size=3),
                    st.fixed_dictionaries(
                        {"subject": NAME, "predicate": PREDICATE, "object": NAME, "bogus": ANY}
                    ),
                    WRONG,
                ),
                min_size=1,
                max_size=3,
            ),
            WRONG,
            TEXT,
        ),
    )
)
def test_add_facts(fmem: gm.Memory, items: Any) -> None:
    results = attempt(fmem, "add_facts", fmem.add_facts, items)
    # A version replaced by a later item of the same call is never written (writes.py): it
    # shows up in that later result's ``superseded``.
    replaced = {f.id for r in results or () for f in r.superseded}
    for r in results or ():
        if r.fact is not None and r.fact.id not in replaced:
            back = fmem.get_fact(r.fact.id)
            assert same_version(back, r.fact) or back.expired_at is not None


@fuzz(60)
@given(subject=NAME, predicate=PREDICATE, obj=st.one_of(st.none(), NAME), at=TIME, reason=OPT_TEXT)
def test_retract(
    fmem: gm.Memory, subject: Any, predicate: Any, obj: Any, at: Any, reason: Any
) -> None:
    attempt(fmem, "retract", fmem.retract, subject, predicate, obj, at=at, reason=reason)


@pytest.mark.slow  # a long test: CI's slow family runs it
@fuzz(40)
@given(
    subject=st.one_of(st.none(), NAME),
    predicate=st.one_of(st.none(), PREDICATE),
    obj=st.one_of(st.none(), NAME),
    valid_at=TIME,
    known_at=TIME,
    limit=mostly(st.one_of(st.none(), st.integers(0, 5)), st.one_of(st.integers(-5, -1), WRONG)),
    on=TIME,
    include_expired=mostly(st.booleans(), WRONG),
)
def test_reads(
    fmem: gm.Memory,
    subject: Any,
    predicate: Any,
    obj: Any,
    valid_at: Any,
    known_at: Any,
    limit: Any,
    on: Any,
    include_expired: Any,
) -> None:
    rows = attempt(
        fmem,
        "facts",
        fmem.facts,
        subject=subject,
        predicate=predicate,
        object=obj,
        valid_at=valid_at,
        known_at=known_at,
        limit=limit,
    )
    assert rows is None or all(isinstance(f, gm.Fact) for f in rows)
    attempt(fmem, "believed", fmem.believed, on=on, subject=subject, predicate=predicate)
    attempt(fmem, "history", fmem.history, subject, predicate, include_expired=include_expired)
    attempt(fmem, "get_fact", fmem.get_fact, subject)


@fuzz(50)
@given(
    name=st.one_of(st.sampled_from(["likes", "Works For", "mentor_of"]), PREDICATE),
    cardinality=mostly(st.sampled_from(["one", "many"])),
    aliases=mostly(st.lists(st.sampled_from(["likes_a", "Fond Of", "adores"]), max_size=2)),
    inverse=mostly(st.one_of(st.none(), st.just("liked_by"))),
    symmetric=mostly(st.booleans(), WRONG),
    description=mostly(st.text(max_size=30)),
)
def test_define_predicate(fmem: gm.Memory, name: Any, **kw: Any) -> None:
    attempt(fmem, "define_predicate", fmem.define_predicate, name, **kw)


@fuzz(40)
@given(
    name=NAME,
    kind=mostly(st.sampled_from(["entity", "person", "org"])),
    aliases=mostly(st.lists(st.sampled_from(["Al", "A. Smith", "bobby"]), max_size=2)),
)
def test_define_entity(fmem: gm.Memory, name: Any, kind: Any, aliases: Any) -> None:
    attempt(fmem, "define_entity", fmem.define_entity, name, kind=kind, aliases=aliases)


@fuzz(20)
@given(keep=NAME, other=NAME)
def test_merge_entities(fmem: gm.Memory, keep: Any, other: Any) -> None:
    result = attempt(fmem, "merge_entities", fmem.merge_entities, keep, other)
    if result is not None:
        assert fmem.facts(subject=other) == fmem.facts(subject=keep)


@fuzz(40)
@given(
    text=mostly(st.text(min_size=3, max_size=60)),
    subject=st.one_of(st.none(), NAME),
    at=TIME,
    kind=KIND,
    source=OPT_TEXT,
    source_ref=OPT_TEXT,
    importance=NUMBER,
)
def test_remember(fmem: gm.Memory, text: Any, **kw: Any) -> None:
    result = attempt(fmem, "remember", fmem.remember, text, **kw)
    if result is not None and result.fact is not None:
        assert same_version(fmem.get_fact(result.fact.id), result.fact)


@fuzz(40)
@given(
    text=mostly(st.one_of(st.none(), st.text(max_size=60))),
    started_at=mostly(st.datetimes(timezones=st.just(UTC)), HOSTILE_TIME),
    session_id=OPT_TEXT,
    title=OPT_TEXT,
    mentions=mostly(
        st.one_of(
            st.none(),
            st.dictionaries(KEY_NAME, st.integers(1, 5), max_size=3),
            st.lists(NAME, max_size=3),
        ),
        st.one_of(
            st.dictionaries(KEY_NAME, st.one_of(st.integers(-3, 0), WRONG), max_size=3),
            st.dictionaries(st.sampled_from([None, 5, 1.5, b"x", ()]), st.integers(1, 3)),
            WRONG,
            TEXT,
        ),
    ),
    ended_at=st.one_of(st.none(), TIME),
    summary=OPT_TEXT,
)
def test_add_session(fmem: gm.Memory, text: Any, **kw: Any) -> None:
    attempt(fmem, "add_session", fmem.add_session, text, **kw)


@fuzz(40)
@given(
    query=mostly(st.one_of(st.text(max_size=30), st.sampled_from(["Alice", "what does ACME use"]))),
    budget_tokens=mostly(st.integers(1, 2000), st.one_of(st.integers(-10, 0), WRONG)),
    valid_at=TIME,
    known_at=TIME,
)
def test_context(fmem: gm.Memory, query: Any, **kw: Any) -> None:
    out = attempt(fmem, "context", fmem.context, query, **kw)
    assert out is None or isinstance(out, str)


@pytest.mark.slow  # a long test: CI's slow family runs it
@fuzz(40)
@given(
    fact_id=ANY,
    since=TIME,
    until=TIME,
    now=TIME,
    window_days=mostly(st.floats(1, 90), HOSTILE_NUMBER),
    limit=mostly(st.one_of(st.none(), st.integers(0, 5)), st.one_of(st.integers(-3, -1), WRONG)),
    weighting=mostly(st.sampled_from(["plain", "idf"])),
)
def test_audit_and_topics(
    fmem: gm.Memory,
    fact_id: Any,
    since: Any,
    until: Any,
    now: Any,
    window_days: Any,
    limit: Any,
    weighting: Any,
) -> None:
    attempt(fmem, "why", fmem.why, fact_id)
    attempt(fmem, "changes", fmem.changes, since=since, until=until)
    attempt(
        fmem,
        "hot_topics",
        fmem.hot_topics,
        now=now,
        window_days=window_days,
        limit=limit,
        weighting=weighting,
    )
    attempt(fmem, "triage", fmem.triage, now=now, limit=limit)


@fuzz(30)
@given(
    entity=NAME,
    hops=mostly(st.integers(0, 3), st.one_of(st.integers(-2, -1), WRONG)),
    valid_at=TIME,
    known_at=TIME,
)
def test_graph_views(fmem: gm.Memory, entity: Any, hops: Any, valid_at: Any, known_at: Any) -> None:
    pytest.importorskip("networkx")
    attempt(
        fmem,
        "neighborhood",
        fmem.neighborhood,
        entity,
        hops=hops,
        valid_at=valid_at,
        known_at=known_at,
    )
    attempt(fmem, "to_networkx", fmem.to_networkx, valid_at=valid_at, known_at=known_at)


@fuzz(20)
@given(
    text=mostly(st.sampled_from(["Alice moved to Paris.", "Bob no longer works at ACME."])),
    at=TIME,
    source=OPT_TEXT,
)
def test_ingest_text(fmem: gm.Memory, text: Any, at: Any, source: Any) -> None:
    pytest.importorskip("spacy")
    attempt(fmem, "ingest_text", fmem.ingest_text, text, at=at, source=source)


@fuzz(15)
@given(subject=NAME, reason=mostly(st.text(min_size=1, max_size=20)))
def test_purge(fmem: gm.Memory, subject: Any, reason: Any) -> None:
    attempt(fmem, "purge", fmem.purge, subject, reason=reason)


@fuzz(30)
@given(
    subject=st.text(min_size=1, max_size=20).filter(lambda s: s.strip() != ""),
    obj=st.integers(0, 9).flatmap(
        lambda i: (
            st.just(MB) if i == 0 else st.one_of(st.text(max_size=40), st.sampled_from(SPECIAL))
        )
    ),
    statement=st.one_of(st.text(min_size=3, max_size=60), st.sampled_from(SPECIAL)),
    source=st.one_of(st.text(max_size=20), st.sampled_from(SPECIAL)),
)
def test_valid_text_reads_back_exactly(
    fmem: gm.Memory, subject: str, obj: str, statement: str, source: str
) -> None:
    """Text that is accepted is stored and read back byte for byte (names: normalised)."""
    sid = f"rt {STATS['roundtrip']} {subject}"
    STATS["roundtrip"] += 1
    result = attempt(
        fmem,
        "add_fact(valid text)",
        fmem.add_fact,
        sid,
        "roundtrip_note",
        obj,
        statement=statement,
        source=source,
    )
    if result is None:
        return
    # valid_at: a source that names a session makes valid time default to the session's start.
    [back] = fmem.facts(subject=sid, predicate="roundtrip_note", valid_at=result.fact.valid_from)
    assert back.statement == (statement or None)  # an empty text means "none"
    assert back.source == (source or None)
    assert back.subject == clean_name(sid)
    # the object's entity: an earlier merge may have made its name an alias of another one
    ids = kernel_of(fmem)
    assert ids.entity_id(back.object) == ids.entity_id(obj)


# -- the CLI ----------------------------------------------------------------------------------

CLI_TEXT = st.one_of(
    st.text(max_size=20).filter(lambda s: not s.startswith("-")), st.sampled_from(SPECIAL)
)


@st.composite
def cli_args(draw: st.DrawFn) -> list[str]:
    verb = draw(st.sampled_from(["add", "retract", "facts", "believed", "history", "check"]))
    opt = st.one_of(CLI_TEXT, st.sampled_from(["2026-01-01", "nan", "-1", "1e999", "", "abc"]))
    args = [verb]
    if verb == "add":
        args += [draw(CLI_TEXT), draw(CLI_TEXT), draw(CLI_TEXT)]
        for flag in ("--valid-from", "--valid-to", "--statement", "--importance", "--kind"):
            if draw(st.booleans()):
                args += [flag, draw(opt)]
    elif verb == "retract":
        args += [draw(CLI_TEXT), draw(CLI_TEXT)]
        for flag in ("--at", "--reason"):
            if draw(st.booleans()):
                args += [flag, draw(opt)]
    elif verb == "facts":
        for flag in ("--subject", "--predicate", "--valid-at", "--known-at", "--limit"):
            if draw(st.booleans()):
                args += [flag, draw(opt)]
    elif verb == "believed":
        args += ["--on", draw(opt)]
    elif verb == "history":
        args += [draw(CLI_TEXT)]
        if draw(st.booleans()):
            args += ["--all"]
    if verb != "check" and draw(st.booleans()):
        args.append("--json")
    return args


@pytest.fixture(scope="module")
def cli_db(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = str(tmp_path_factory.mktemp("fuzzcli") / "cli.kuzu")
    with gm.open(path, engine=ENGINE) as mem:
        mem.add_fact("Alice", "works_at", "ACME")
    return path


@fuzz(40)
@given(args=cli_args(), via_env=st.booleans())
def test_cli(cli_db: str, args: list[str], via_env: bool) -> None:
    runner = CliRunner()
    env = {"GRAPHMEM_DB": cli_db} if via_env else {}
    full = ([] if via_env else ["--db", cli_db]) + ["--engine", ENGINE] + args
    STATS["cli"] += 1
    result = runner.invoke(cli, full, env=env)
    STATS[f"cli:exit {result.exit_code}"] += 1
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        pytest.fail(f"graphmem {args!r:.300} raised {result.exception!r:.300}")
    assert result.exit_code in (0, 1, 2), (args, result.output)
    assert "Traceback" not in result.output
    if result.exit_code == 1 and args[0] != "check":
        last = result.stderr.rstrip("\n").splitlines()[-1]
        if "--json" in args:  # errors under --json are one JSON object on stderr
            assert "error" in json.loads(last), result.output
        else:
            assert last.startswith("Error: "), result.output
        assert len(last) <= 2200
    if result.exit_code == 0 and "--json" in args:
        json.loads(result.stdout)


# -- after the whole run ----------------------------------------------------------------------


def test_zz_store_is_intact_after_the_run(fmem: gm.Memory, cli_db: str) -> None:
    report = check(fmem)
    assert report.ok, report.format()
    assert versions(fmem)  # every stored version loads as a model
    with gm.open(cli_db, engine=ENGINE, read_only=True) as mem:
        assert check(mem).ok
    total = sum(v for k, v in STATS.items() if ":" not in k and k != "roundtrip")
    print(f"\nfuzz: {total} calls; " + ", ".join(f"{k}={v}" for k, v in sorted(STATS.items())))


@pytest.mark.slow
@pytest.mark.long
def test_fuzz_heavy() -> None:
    """Run this module's fuzzers with 10x the examples, not derandomised."""
    env = {**os.environ, "GRAPHMEM_FUZZ_SCALE": "10"}
    command = [
        sys.executable,
        "-X",
        "faulthandler",
        "-m",
        "pytest",
        __file__,
        "-q",
        "-s",
        "-m",
        "not slow",
        "-p",
        "no:cacheprovider",
    ]
    # -X faulthandler: a child killed by a signal leaves its Python stack in the message.
    result = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=3600, check=False
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-3000:]
