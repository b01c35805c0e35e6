"""The labelled text corpus: its schema, its coverage, and the floors it must reach.

The corpus (``tests/data/text_corpus.jsonl``) is ground truth written without looking at the
extractor; ``tests/text_eval.py`` replays it and measures. Run ``pytest -s`` to see the table,
or ``python -m tests.text_eval`` for the table and every failing story.
"""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import text_eval

from graphmem.normalize import entity_key
from graphmem.ontology import Ontology

SUPERSESSION_PRECISION_FLOOR = 0.97  # a wrong supersession is worse than a missed one
SUPERSESSION_RECALL_FLOOR = 0.95
CLAIM_PRECISION_FLOOR = 0.97
CLAIM_RECALL_FLOOR = 0.95
#: The other two corpora, written by authors who did not see the rules. Both were measured
#: blind first, then used for a round of fixes each (docs/concepts/text.md has both numbers);
#: the floors sit a little under what they measure now.
OTHER_CORPORA = {
    # corpus: (supersession precision, supersession recall, claim precision, claim recall)
    "text_corpus_holdout.jsonl": (0.97, 0.80, 0.95, 0.88),
    "text_corpus_test.jsonl": (0.97, 0.90, 0.97, 0.93),
}

STORY_KEYS = {
    "id",
    "via",
    "tags",
    "setup",
    "sessions",
    "claims",
    "ends",
    "valid_from",
    "current",
    "not_current",
    "notes",
}
SETUP_KEYS = {"subject", "predicate", "object", "valid_from"}
MANY_VALUED = {"uses", "likes"}
FIRST_PERSON = {"we", "our", "us", "i", "my", "me", "ours", "mine"}
DETERMINERS = ("the ", "our ", "my ", "a ", "an ", "their ", "his ", "her ", "its ")
DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
TAG = re.compile(r"^[a-z0-9][a-z0-9_-]*$")
PREDICATE = re.compile(r"^[a-z][a-z0-9_]*$")
MONTHS = "january|february|march|april|may|june|july|august|september|october|november|december"
RELATIVE = re.compile(rf"\b(last week|yesterday|this spring|since \d{{4}}|in ({MONTHS}))\b", re.I)

#: phrasing the corpus must cover, each in at least this many stories
PHRASES = {
    "runs on": r"\bruns? on\b",
    "is written in": r"\bwritten in\b",
    "is hosted on": r"\bhosted on\b",
    "deploys with": r"\bdeploy(s|ed|ing)?\b.*\bwith\b",
    "reports to": r"\breports? to\b",
    "owns": r"\bowns\b",
    "leads": r"\bleads\b",
    "lives in": r"\blives? in\b",
    "works at/for": r"\bworks? (at|for)\b",
    "prefers": r"\bprefers?\b",
    "is built with/on": r"\bbuilt (with|on)\b",
    "listens on port": r"\blistens on port\b",
    "migrated": r"\bmigrated\b",
    "moved": r"\bmoved\b",
    "switched": r"\bswitched\b",
    "ported": r"\bported\b",
    "rewrote": r"\brewr(o|i)te",
    "rebuilt": r"\brebuilt\b",
    "upgraded": r"\bupgraded\b",
    "bumped": r"\bbumped\b",
    "replaced X with Y": r"\breplaced \S+( \S+)? with\b",
    "X was replaced by Y": r"\bwas replaced by\b",
    "from A to B": r"\bfrom \S+( \S+)? to\b",
    "changed from": r"\bchanged\b.*\bfrom\b",
    "is the new": r"\bis (the|my|our) new\b",
    "is now": r"\bis now\b",
    "took over": r"\btook over\b",
    "ownership of": r"\bownership of\b",
    "joined": r"\bjoined\b",
    "left A and joined B": r"\bleft \S+( \S+)? and joined\b",
    "no longer": r"\bno longer\b",
    "anymore": r"\banymore\b",
    "correction": r"\bcorrection\b",
    "user: turns": r"^user:",
    "assistant: turns": r"^assistant:",
    "also": r"\balso\b",
    "last week": r"\blast week\b",
    "yesterday": r"\byesterday\b",
    "in <month>": rf"\bin ({MONTHS})\b",
    "this spring": r"\bthis spring\b",
    "since <year>": r"\bsince \d{4}\b",
    "ISO date": r"\b\d{4}-\d{2}-\d{2}\b",
    "he/she": r"\b(he|she)\b",
    "question": r"\?",
}
PHRASE_MIN = 2
#: distractor kinds (tags) the corpus must cover, each in at least this many stories
DISTRACTOR_TAGS = (
    "question",
    "plan",
    "conditional",
    "hypothetical",
    "decided-not",
    "reported-history",
    "also",
    "other-subject",
    "chatter",
    "passive",
    "pronoun",
    "two-facts",
    "transcript",
    "lower-case",
    "correction",
)
TAG_MIN = 3
#: the ontology predicates the corpus must cover, each in at least 5 claims
VERB_PREDICATES = (
    "works_at",
    "lives_in",
    "runs_on",
    "written_in",
    "hosted_on",
    "deploys_with",
    "reports_to",
    "owner",
    "team_lead",
    "prefers",
    "port",
    "email",
    "role",
    "uses",
    "likes",
)
ONTOLOGY = Ontology.default()


def _stories() -> list[dict[str, Any]]:
    return text_eval.load_corpus()


STORIES = _stories()


def _date(value: object, where: str) -> dt.date:
    assert isinstance(value, str), f"{where}: {value!r} is not a date string"
    assert DATE.match(value), f"{where}: {value!r} is not YYYY-MM-DD"
    return dt.date.fromisoformat(value)


def _name(value: object, where: str) -> str:
    assert isinstance(value, str), f"{where}: {value!r} is not a string"
    assert value, f"{where}: blank name"
    assert value.strip() == value, f"{where}: {value!r} is padded"
    assert value.lower() not in FIRST_PERSON, f"{where}: first person {value!r} must be 'self'"
    assert not value.lower().startswith(DETERMINERS), f"{where}: drop the determiner: {value!r}"
    return value


def _predicate(value: object, where: str, ontology: Ontology) -> str:
    assert isinstance(value, str), f"{where}: predicate {value!r} is not a string"
    assert PREDICATE.match(value), f"{where}: predicate {value!r} is not snake_case"
    canonical = ontology.resolve(value).name
    assert canonical == value, f"{where}: predicate {value!r} is an alias; write {canonical!r}"
    assert value != "note", f"{where}: notes are listed in 'notes', not as claims"
    return value


def _index(value: object, n: int, where: str) -> int:
    assert type(value) is int, f"{where}: session index {value!r} is not an int"
    assert 0 <= value < n, f"{where}: session index {value} out of range (0..{n - 1})"
    return value


def _row(row: object, width: int, where: str) -> list[Any]:
    assert isinstance(row, list), f"{where}: {row!r} is not a list"
    assert len(row) == width, f"{where}: {row!r} must have {width} items"
    return row


def validate(story: dict[str, Any]) -> None:
    """Check one story strictly; an AssertionError names the story and the problem."""
    sid = story.get("id")
    assert isinstance(sid, str), f"bad id {sid!r}"
    assert re.fullmatch(r"s\d{3,}", sid), f"bad id {sid!r}"
    keys = set(story)
    assert keys == STORY_KEYS, f"{sid}: keys {sorted(keys ^ STORY_KEYS)} missing or unknown"
    assert story["via"] in ("session", "remember"), f"{sid}: via={story['via']!r}"
    tags = story["tags"]
    assert isinstance(tags, list), f"{sid}: tags must be a list"
    assert tags, f"{sid}: tags must not be empty"
    assert all(isinstance(t, str) and TAG.match(t) for t in tags), f"{sid}: bad tag in {tags}"
    assert len(set(tags)) == len(tags), f"{sid}: repeated tag"
    ontology = ONTOLOGY

    sessions = story["sessions"]
    assert isinstance(sessions, list), f"{sid}: sessions must be a list"
    assert 1 <= len(sessions) <= 3, f"{sid}: 1-3 sessions"
    n = len(sessions)
    days = []
    for i, session in enumerate(sessions):
        where = f"{sid} session {i}"
        assert isinstance(session, dict), f"{where}: not an object"
        assert set(session) == {"at", "text"}, f"{where}: keys must be at, text"
        days.append(_date(session["at"], where))
        text = session["text"]
        assert isinstance(text, str), f"{where}: text is not a string"
        assert text.strip(), f"{where}: blank text"
    assert days == sorted(days), f"{sid}: sessions must be in date order"

    def key(s: str, p: str, o: str) -> tuple[str, str, str]:
        return (entity_key(s), p, entity_key(o))

    state: set[tuple[str, str, str]] = set()
    for j, item in enumerate(story["setup"]):
        where = f"{sid} setup {j}"
        assert isinstance(item, dict), f"{where}: not an object"
        assert set(item) == SETUP_KEYS, f"{where}: keys must be {sorted(SETUP_KEYS)}"
        _name(item["subject"], where)
        _name(item["object"], where)
        _predicate(item["predicate"], where, ontology)
        assert _date(item["valid_from"], where) <= days[0], f"{where}: after the first session"
        state.add(key(item["subject"], item["predicate"], item["object"]))

    claims: dict[int, set[tuple[str, str, str]]] = {i: set() for i in range(n)}
    for row in story["claims"]:
        where = f"{sid} claim {row!r}"
        i, s, p, o = _row(row, 4, where)
        _index(i, n, where)
        _name(s, where)
        _name(o, where)
        _predicate(p, where, ontology)
        assert key(s, p, o) not in claims[i], f"{where}: listed twice"
        claims[i].add(key(s, p, o))
    ends: dict[int, dict[tuple[str, str, str], str]] = {i: {} for i in range(n)}
    for row in story["ends"]:
        where = f"{sid} end {row!r}"
        i, s, p, o, kind = _row(row, 5, where)
        _index(i, n, where)
        _name(s, where)
        _name(o, where)
        _predicate(p, where, ontology)
        assert kind in ("supersede", "invalidate"), f"{where}: kind {kind!r}"
        ends[i][key(s, p, o)] = kind
    for row in story["valid_from"]:
        where = f"{sid} valid_from {row!r}"
        i, s, p, o, day = _row(row, 5, where)
        _index(i, n, where)
        assert key(s, p, o) in claims[i], f"{where}: not a claim of session {i}"
        assert _date(day, where) <= days[i], f"{where}: a stated date after the session"
    notes = story["notes"]
    assert isinstance(notes, list), f"{sid}: notes must be a list"
    for i in notes:
        _index(i, n, f"{sid} notes")
    assert len(set(notes)) == len(notes), f"{sid}: repeated note index"

    # replay the labels: they must describe a consistent history (docs/concepts/time.md#rule-4
    # and #rule-6)
    for i in range(n):
        fresh = claims[i] - state
        for triple, kind in ends[i].items():
            assert triple in state, f"{sid} session {i}: ends {triple}, which is not current"
            replaced = any(t[:2] == triple[:2] and t[2] != triple[2] for t in fresh)
            want = "supersede" if replaced else "invalidate"
            assert kind == want, f"{sid} session {i}: {triple} ends by {want}, labelled {kind}"
        state = (state - set(ends[i])) | claims[i]
        slots = Counter(t[:2] for t in state if t[1] not in MANY_VALUED)
        crowded = [slot for slot, count in slots.items() if count > 1]
        assert not crowded, f"{sid} session {i}: single-valued {crowded} has two values"
        empty = not claims[i] and not ends[i]
        # A session keeps its own text (no note copy); a remembered text without claims is a note.
        noted = empty and story["via"] == "remember"
        assert noted == (i in notes), f"{sid} session {i}: a note iff remembered, no claim, no end"

    current = {key(*_row(r, 3, f"{sid} current")) for r in story["current"]}
    not_current = {key(*_row(r, 3, f"{sid} not_current")) for r in story["not_current"]}
    for s, _, o in current | not_current:
        _name(s, f"{sid} final")
        _name(o, f"{sid} final")
    assert current == state, f"{sid}: current must list the final state {sorted(state)}"
    assert not current & not_current, f"{sid}: current and not_current overlap"


@pytest.mark.parametrize("story", STORIES, ids=[str(s.get("id")) for s in STORIES])
def test_story_schema(story: dict[str, Any]) -> None:
    validate(story)


def test_ids_are_unique() -> None:
    counts = Counter(s.get("id") for s in STORIES)
    assert not [i for i, c in counts.items() if c > 1]


def test_validate_rejects_a_malformed_story() -> None:
    good = {
        "id": "s999",
        "via": "session",
        "tags": ["x"],
        "setup": [],
        "sessions": [
            {"at": "2026-03-02", "text": "The API runs on Laravel."},
            {"at": "2026-06-10", "text": "We migrated the API to Go."},
        ],
        "claims": [[0, "API", "runs_on", "Laravel"], [1, "API", "runs_on", "Go"]],
        "ends": [[1, "API", "runs_on", "Laravel", "supersede"]],
        "valid_from": [],
        "current": [["API", "runs_on", "Go"]],
        "not_current": [["API", "runs_on", "Laravel"]],
        "notes": [],
    }
    validate(good)
    bad_cases = [
        ({"ends": []}, "two values"),
        ({"ends": [[1, "API", "runs_on", "Laravel", "invalidate"]]}, "ends by supersede"),
        ({"claims": [[0, "the API", "runs_on", "Laravel"]]}, "determiner"),
        ({"claims": [[0, "we", "uses", "Redis"]]}, "first person"),
        ({"claims": [[0, "API", "built_with", "Laravel"]]}, "alias"),
        ({"via": "email"}, "via"),
        ({"notes": [1]}, "a note iff"),
        ({"current": []}, "final state"),
    ]
    for change, message in bad_cases:
        with pytest.raises(AssertionError, match=message):
            validate({**good, **change})


def _distractor_sessions(story: dict[str, Any]) -> range:
    """The sessions of a distractor story that must change nothing."""
    return range(0 if story["setup"] else 1, len(story["sessions"]))


def test_coverage_counts() -> None:
    n = len(STORIES)
    assert n >= 220
    with_end = sum(bool(s["ends"]) for s in STORIES)
    assert with_end >= 60
    assert sum(any(e[4] == "supersede" for e in s["ends"]) for s in STORIES) >= 40
    assert sum(any(e[4] == "invalidate" for e in s["ends"]) for s in STORIES) >= 20
    pure = [
        s
        for s in STORIES
        if "distractor" in s["tags"]
        and _distractor_sessions(s)
        and not s["ends"]
        and all(c[0] not in _distractor_sessions(s) for c in s["claims"])
    ]
    assert len(pure) >= 40
    assert all(s in pure for s in STORIES if "distractor" in s["tags"]), "impure distractor"
    relative = [
        s
        for s in STORIES
        if any(
            v[4] != s["sessions"][v[0]]["at"] and RELATIVE.search(s["sessions"][v[0]]["text"])
            for v in s["valid_from"]
        )
    ]
    assert len(relative) >= 15
    vias = Counter(s["via"] for s in STORIES)
    assert 0.4 <= vias["session"] / n <= 0.6, vias
    assert sum(bool(s["setup"]) for s in STORIES) >= 5
    assert sum(len(s["sessions"]) >= 3 for s in STORIES) >= 10


def test_phrasing_coverage() -> None:
    texts = ["\n".join(x["text"] for x in s["sessions"]) for s in STORIES]
    thin = {
        name: hits
        for name, pattern in PHRASES.items()
        if (hits := sum(bool(re.search(pattern, t, re.I | re.M)) for t in texts)) < PHRASE_MIN
    }
    assert not thin, f"phrasings used by fewer than {PHRASE_MIN} stories: {thin}"
    tags = Counter(t for s in STORIES for t in s["tags"])
    thin = {t: tags[t] for t in DISTRACTOR_TAGS if tags[t] < TAG_MIN}
    assert not thin, f"tags used by fewer than {TAG_MIN} stories: {thin}"
    lower = sum(any(x["text"] == x["text"].lower() for x in s["sessions"]) for s in STORIES)
    assert lower >= 10
    predicates = Counter(c[2] for s in STORIES for c in s["claims"])
    for name in VERB_PREDICATES:
        assert predicates[name] >= 5, f"predicate {name} has {predicates[name]} claims"
    snake = [p for p in predicates if ONTOLOGY.lookup(p) is None]
    assert len(snake) >= 5, f"few snake_case slots from noun phrases: {snake}"


# -- the harness itself -------------------------------------------------------------------


def test_harness_records_a_failing_write_and_goes_on() -> None:
    story = {
        "id": "x1",
        "via": "session",
        "setup": [],
        # the clock would move backwards for the second session: that write raises
        "sessions": [
            {"at": "2026-06-10", "text": "The API runs on Laravel."},
            {"at": "2026-01-01", "text": "We migrated the API to Go."},
        ],
        "claims": [[0, "API", "runs_on", "Laravel"], [1, "API", "runs_on", "Go"]],
        "ends": [[1, "API", "runs_on", "Laravel", "supersede"]],
        "valid_from": [[1, "API", "runs_on", "Go", "2026-01-01"]],
        "current": [["API", "runs_on", "Go"]],
        "not_current": [["API", "runs_on", "Laravel"]],
        "notes": [],
    }
    unknown = {**story, "id": "x2", "via": "carrier pigeon"}
    report = text_eval.evaluate([story, unknown])
    first, second = report.stories
    assert str(first.error).startswith("session 1: ClockError")
    assert "via='carrier pigeon'" in str(second.error)
    assert first.problems[0].startswith("error: ")
    assert not first.final_ok
    assert not first.passed
    assert (first.supersessions.expected, first.supersessions.found) == (1, 0)
    assert (first.dates_checked, first.dates_right) == (1, 0)
    assert (second.claims.expected, second.claims.found) == (2, 0)
    assert report.final_pass_rate == 0.0
    assert "x1: error: session 1: ClockError" in text_eval.format_report(report)


def test_harness_scores_a_session() -> None:
    result = text_eval.StoryResult(id="t")
    before = {("api", "runs_on", "laravel"), ("self", "uses", "redis"), ("bob", "role", "cto")}
    after = {("api", "runs_on", "go"), ("self", "uses", "redis"), ("api", "port", "80")}
    claims = {0: {("api", "runs_on", "go")}}
    ends = {
        0: {("api", "runs_on", "laravel"): "supersede", ("self", "uses", "redis"): "invalidate"}
    }
    text_eval._score_session(result, 0, before, after, claims, ends, {0}, set())
    assert (result.claims.tp, result.claims.predicted, result.claims.found) == (1, 2, 1)
    assert (result.supersessions.tp, result.supersessions.predicted) == (1, 1)
    # bob role cto ended with no new role: an invalidation, but not the expected one
    assert (result.invalidations.tp, result.invalidations.predicted) == (0, 1)
    assert (result.invalidations.expected, result.invalidations.recall) == (1, 0.0)
    assert (result.notes.expected, result.notes.found) == (1, 0)
    assert any("unexpected new fact api port 80" in p for p in result.problems)
    assert any("self uses redis should end" in p for p in result.problems)
    assert any("bob role cto ended (invalidate) wrongly" in p for p in result.problems)
    assert text_eval.Counts(expected=3).precision == 0.0
    assert text_eval.Counts().precision == 1.0


# -- the measures -------------------------------------------------------------------------


@pytest.mark.slow
def test_the_corpus_measures_hold_their_floors() -> None:
    # one test, one replay: a module fixture shared by several tests was replayed once per
    # xdist worker
    report = text_eval.evaluate(STORIES)
    print("\n" + text_eval.format_report(report, max_failures=40))
    assert not report.errors, [(s.id, s.error) for s in report.errors]
    measured = {
        "supersession precision": (report.supersessions.precision, SUPERSESSION_PRECISION_FLOOR),
        "supersession recall": (report.supersessions.recall, SUPERSESSION_RECALL_FLOOR),
        "claim precision": (report.claims.precision, CLAIM_PRECISION_FLOOR),
        "claim recall": (report.claims.recall, CLAIM_RECALL_FLOOR),
    }
    assert not {k: v for k, v in measured.items() if v[0] < v[1]}, measured


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(OTHER_CORPORA))
def test_unseen_corpora(name: str) -> None:
    stories = text_eval.load_corpus(Path(text_eval.CORPUS_PATH).parent / name)
    for story in stories:
        validate({**story, "id": "s" + str(story["id"])[1:]})  # h001 / t001 ids
    result = text_eval.evaluate(stories)
    print("\n" + name + "\n" + text_eval.format_report(result, max_failures=10))
    sup_p, sup_r, claim_p, claim_r = OTHER_CORPORA[name]
    assert not result.errors, [(s.id, s.error) for s in result.errors]
    assert result.supersessions.precision >= sup_p
    assert result.supersessions.recall >= sup_r
    assert result.claims.precision >= claim_p
    assert result.claims.recall >= claim_r
