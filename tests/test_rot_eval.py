"""The memory-rot evaluator's matching rules and the blind corpus's well-formedness (no reader)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from tests import rot_eval as ev

DATA = Path(__file__).parent / "data"
FILES = [DATA / "text_blind_dev.jsonl", DATA / "text_blind_test.jsonl"]
KINDS = {"supersede", "end", "correction"}
# The classes every file must cover, each as a tag prefix (see the brief in rot_eval's docs).
CLASSES = {
    "plain": ("plain",),
    "log noise": ("noise",),
    "name variants": ("alias",),
    "reference": ("reference",),
    "change forms": ("change-",),
    "effective dates": ("change-date-", "change-last-week"),
    "corrections": ("correction",),
    "reported speech": ("reported-speech",),
    "negative controls": ("negative-",),
}


def snap(rows, *, now=None, by_subject=None, by_object=None, owner="self"):
    rows = set(rows)
    return ev.Snapshot(
        now=rows if now is None else set(now),
        open=rows,
        by_subject=by_subject or {},
        by_object=by_object or {},
        owner=owner,
    )


# --------------------------------------------------------------------------- matching


@pytest.mark.parametrize(
    ("label", "value", "ok"),
    [
        ("R2", "r2", True),
        ("the billing service", "Billing Service", True),
        ("PostgreSQL 16", "postgresql 16.", True),
        ("v2", "2", True),
        ("16", "PostgreSQL 16", True),
        ("Postgres 14", "14", True),
        ("16", "PostgreSQL 16.1", False),
        ("1.6", "16", False),
        ("Postgres", "PostgreSQL", False),
        ("S3", "S3 bucket", False),
        ("Go", "Google", False),
        ("", "x", False),
    ],
)
def test_names_match(label, value, ok):
    assert ev.names_match(label, value) is ok


def test_found_by_key_alias_and_owner():
    row = ("invoices", "stored_in", "R2")
    s = snap([row])
    assert ev.found(s, ["invoice store", "invoices"], "r2")
    assert not ev.found(s, ["invoice store"], "R2")
    assert not ev.found(s, ["invoices"], "S3")
    # the memory resolved a name the label spells differently
    aliased = snap([row], by_subject={"invoice store": {row}}, by_object={"Cloudflare R2": {row}})
    assert ev.found(aliased, ["invoice store"], "Cloudflare R2")
    me = snap([("Ann", "lives_in", "Berlin")], owner="Ann")
    assert ev.found(me, ["self", "user"], "Berlin")


def test_found_by_a_label_naming_thing_and_slot():
    row = ("PAY-2213", "priority", "P1")
    s = snap([row])
    for label in ("PAY-2213 priority", "priority of PAY-2213", "PAY-2213's priority"):
        assert ev.found(s, [label], "P1"), label
    assert not ev.found(s, ["PAY-2213 assignee"], "P1")
    assert not ev.found(s, ["PAY-2214 priority"], "P1")
    assert not ev.found(s, ["PAY-2213 priority"], "P2")


def test_found_either_direction():
    s = snap([("Jordan", "leads", "growth squad")])
    assert ev.found(s, ["growth", "growth squad"], "Jordan")
    assert not ev.found(s, ["growth"], "Kemi")
    me = snap([("Globex", "customer_of", "self")])
    assert ev.found(me, ["Globex"], "self")
    assert ev.found(snap([("self", "has_customer", "Globex")]), ["Globex"], "self")
    assert not ev.found(snap([("Globex", "is", "Globex")]), ["Globex"], "self")


def test_found_restricted_rows():
    a, b = ("db", "is", "Postgres 14"), ("db", "is", "Postgres 16")
    s = snap([a, b], now=[b])
    assert ev.found(s, ["db"], "14")  # open-ended rows count after a session
    assert not ev.found(s, ["db"], "14", s.now)


def test_predicted_ends_and_new_rows():
    old, keep, new, later = (
        ("db", "is", "14"),
        ("cache", "is", "Redis"),
        ("db", "is", "16"),
        ("pager", "is", "Opsgenie"),
    )
    before = snap([old, keep, later])
    # `later` still holds now but ends in the future: it has left the open-ended set
    after = ev.Snapshot(now={keep, new, later}, open={keep, new})
    assert ev.predicted_ends(before, after) == {old, later}
    assert ev.new_rows(before, after) == {new}


def test_context_check():
    ok, _ = ev.context_check("- invoices stored_in R2 (since 2026-05-20)", "R2", "S3")
    assert ok
    ok, why = ev.context_check("- invoices stored_in S3\n- invoices stored_in R2", "R2", "S3")
    assert not ok
    assert "S3" in why
    ok, _ = ev.context_check("- invoices stored_in S3 (until 2026-05-20)\n- x R2", "r2", "s3")
    assert ok
    ok, _ = ev.context_check("- it runs on Google Cloud", "Go", None)
    assert not ok
    ok, _ = ev.context_check("nothing here", "R2", None)
    assert not ok


def test_count_sentences():
    assert ev.count_sentences("[09:00] kim: hi\n\n1. Queue: SQS. Cache is Redis.\n") == 3
    assert ev.count_sentences("v1.2 is out. it works") == 1


def test_summarise_and_score_session():
    story = {
        "claims": [[0, ["db"], "is", "14"], [1, ["db"], "is", "16"]],
        "changes": [[1, ["db"], "14", "16", "supersede"]],
    }
    res = ev.Result("x", "session", "chat", ["plain"], claims=2, changes=1)
    s0 = snap([])
    s1 = snap([("db", "is", "Postgres 14"), ("db", "owner", "kim")])
    s2 = snap([("db", "is", "Postgres 16"), ("db", "owner", "kim")])
    ev._score_session(res, story, 0, s0, s1)
    ev._score_session(res, story, 1, s1, s2)
    assert (res.claims_found, res.new_facts, res.new_true) == (2, 3, 2)
    assert (res.changes_found, res.changes_stored, res.ends, res.ends_right) == (1, 1, 1, 1)
    res.sentences, res.passed = 4, True
    out = ev.summarise([res])["overall"]
    assert out["claim_recall"] == 1.0
    assert out["claim_precision"] == round(2 / 3, 3)
    assert out["change_precision"] == 1.0
    assert out["false_ends_per_100_sentences"] == 0.0


# --------------------------------------------------------------------------- the corpus


def _stories(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def test_corpus_ids_unique_and_sizes():
    stories = [s for p in FILES for s in _stories(p)]
    ids = [s["id"] for s in stories]
    assert len(ids) == len(set(ids))
    assert len(stories) >= 130
    sentences = sum(ev.count_sentences(x["text"]) for s in stories for x in s["sessions"])
    assert sentences >= 350
    vias = [s["via"] for s in stories]
    assert 1.5 <= vias.count("session") / vias.count("remember") <= 2.5


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_corpus_covers_every_class(path):
    tags = {t for s in _stories(path) for t in s["tags"]}
    for name, prefixes in CLASSES.items():
        assert any(t.startswith(prefixes) for t in tags), name


def _in(value, text):
    return value.casefold() in text.casefold()


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_corpus_well_formed(path):
    for s in _stories(path):
        sid = s["id"]
        assert s["via"] in {"session", "remember"}, sid
        assert s["format"], sid
        assert s["tags"], sid
        sess = s["sessions"]
        assert sess, sid
        days = [dt.date.fromisoformat(x["at"]) for x in sess]
        assert days == sorted(days), sid
        assert all(dt.date(2025, 1, 1) <= d <= dt.date(2026, 12, 31) for d in days), sid
        assert all(x["text"].strip() for x in sess), sid
        n = len(sess)
        for i, subjects, rel, obj in s["claims"]:
            assert 0 <= i < n, sid
            assert subjects, sid
            assert all(isinstance(a, str) and a for a in subjects), sid
            assert isinstance(rel, str), sid
            assert rel, sid
            assert obj == "self" or _in(obj, sess[i]["text"]), (sid, obj)
        for i, subjects, old, new, kind in s["changes"]:
            assert 1 <= i < n, sid
            assert subjects, sid
            assert kind in KINDS, sid
            assert (new is None) == (kind == "end"), sid
            earlier = [c for c in s["claims"] if c[0] < i and ev.names_match(old, c[3])]
            assert earlier, (sid, "old value never claimed earlier", old)
            assert any(_in(old, sess[j]["text"]) or old == "self" for j in range(i)), (sid, old)
            if new is not None:
                assert any(c[0] == i and ev.names_match(new, c[3]) for c in s["claims"]), (
                    sid,
                    "new value not claimed",
                    new,
                )
        for subjects, val in s["current"] + s["stale"]:
            assert subjects, sid
            assert isinstance(val, str), sid
            assert val, sid
        cur = {(tuple(a), v) for a, v in s["current"]}
        assert not any((tuple(a), v) in cur for a, v in s["stale"]), sid
        if s.get("question"):
            assert s.get("new"), sid
            assert any(v == s["new"] or ev.names_match(s["new"], v) for _, v in s["current"]) or (
                any(_in(s["new"], v) for _, v in s["current"])
            ), sid
        tags = s["tags"]
        if any(t.startswith("negative-") for t in tags) and not any(
            t.startswith("change-") for t in tags
        ):
            assert not s["changes"], sid  # a pure negative control changes nothing


#: Floors under what the reader measures on the blind corpora (docs/concepts/text.md#how-well-it-
#: reads): (story pass rate, claim recall, change precision, most false ends per 100 sentences).
#: The dev file was used for the reader's fixes; the test file was not (its first run is blind).
#: The holdout file (another author, realistic logs) was run blind; its odd stories were read
#: for the third round's fixes, its even ones never. The eighth corpus (two more authors, 16
#: log formats) was run blind, then its odd stories read for the ninth round's fixes. The ninth
#: (two more authors, 33 formats) was run blind, then its even stories read for the tenth's.
FLOORS = {
    "text_blind_dev.jsonl": (0.60, 0.60, 0.88, 1.0),
    "text_blind_test.jsonl": (0.55, 0.65, 0.90, 1.0),
    "text_blind_holdout.jsonl": (0.10, 0.28, 0.70, 1.2),
    "text_blind_eighth.jsonl": (0.0, 0.20, 0.55, 1.5),
    "text_blind_ninth.jsonl": (0.0, 0.04, 0.40, 1.2),
}


@pytest.mark.slow
@pytest.mark.long
@pytest.mark.parametrize("name", sorted(FLOORS))
def test_blind_corpus_floors(name):
    results = [ev.run_story(s) for s in ev.load([DATA / name])]
    o = ev.summarise(results)["overall"]
    pass_rate, recall, precision, false_ends = FLOORS[name]
    assert not [r.id for r in results if r.error], [(r.id, r.error) for r in results if r.error]
    assert o["pass_rate"] >= pass_rate, o
    assert o["claim_recall"] >= recall, o
    assert o["change_precision"] >= precision, o
    assert o["false_ends_per_100_sentences"] <= false_ends, o
    passed = sorted(r.id for r in results if r.context_ok)
    assert len(passed) >= CONTEXT_FLOORS[name], (len(passed), passed)


#: Floors under the stories whose context passes the smoke check, per blind corpus
#: (docs/concepts/recall.md#marks-measured): one under the count measured when the floor was
#: set, so a change that loses what passed fails here. The eleventh to sixteenth corpora passed
#: 23, 26, 24, 22, 23 and 21 of 60 on their blind first runs, the seventeenth 25 of its 54
#: questions, the eighteenth 36 of 60 (one story passed in some runs: its two sessions share a
#: second, docs/concepts/recall.md#records), the nineteenth 26 of 60
#: (docs/concepts/recall.md#written-again), the twentieth 33 of 60 (its first run, read by
#: none of the steps), the twenty-first 32, the twenty-second 29 and the twenty-third 26 of 60.
CONTEXT_FLOORS = {
    "text_blind_dev.jsonl": 28,
    "text_blind_test.jsonl": 40,
    "text_blind_holdout.jsonl": 66,
    "text_blind_fourth.jsonl": 32,
    "text_blind_fifth.jsonl": 25,
    "text_blind_sixth.jsonl": 41,
    "text_blind_seventh.jsonl": 25,
    "text_blind_eighth.jsonl": 33,
    "text_blind_ninth.jsonl": 30,
    "text_blind_tenth.jsonl": 35,
    "text_blind_eleventh.jsonl": 41,
    "text_blind_twelfth.jsonl": 38,
    "text_blind_thirteenth.jsonl": 33,
    "text_blind_fourteenth.jsonl": 30,
    "text_blind_fifteenth.jsonl": 41,
    "text_blind_sixteenth.jsonl": 43,
    "text_blind_seventeenth.jsonl": 36,
    "text_blind_eighteenth.jsonl": 43,
    "text_blind_nineteenth.jsonl": 44,
    "text_blind_twentieth.jsonl": 33,
    "text_blind_twentyfirst.jsonl": 33,
    "text_blind_twentysecond.jsonl": 35,
    "text_blind_twentythird.jsonl": 37,
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(set(CONTEXT_FLOORS) - set(FLOORS)))
def test_blind_corpus_context_floors(name):
    # the corpora of FLOORS are checked by test_blind_corpus_floors, in the same replay
    stories = [s for s in ev.load([DATA / name]) if s.get("question") and s.get("new")]
    passed = [s["id"] for s in stories if ev.context_passes(s)[0]]
    assert len(passed) >= CONTEXT_FLOORS[name], (len(passed), sorted(passed))
