"""Reader-agnostic memory-rot evaluator for the blind story corpus.

Run with ``python -m tests.rot_eval`` (``--corpus PATH`` may repeat; default: both blind files).

Each story (``tests/data/text_blind_{dev,test}.jsonl``) is replayed into a fresh in-memory
memory: the clock is set to the session's date + 12 h, then the text is written with
``add_session(text, started_at=at)`` or ``remember(text, at=at)``. Around every session the
evaluator takes a snapshot of the facts (predicate ``note`` excluded; predicates are never looked
at otherwise, since relations are open):

- ``now``: facts current at the clock's time (``mem.facts()``);
- ``open``: facts current at :data:`FAR` (open-ended ones, including ones that start later, such
  as "starting 1 May ...").

Matching rules (documented here because the numbers depend on them):

- **Names** are compared by :func:`key`: :func:`graphmem.normalize.entity_key`, then a leading
  ``the``, a leading ``v`` before a digit and trailing punctuation are dropped. Two names match
  when their keys are equal. A bare version label (``16``, ``0.28``) also matches a value that
  ends with that version as a whole word (``PostgreSQL 16``), and the other way round. Nothing
  else is fuzzy: ``Postgres`` does not match ``PostgreSQL`` by key.
- **Aliases**: the memory resolves names itself, so a fact also matches a labelled subject (or
  object) when it is among ``mem.facts(subject=name)`` (``mem.facts(object=name)``).
- ``self`` in a label matches the memory's owner (``mem.owner``).
- **The owner's slots**: a labelled subject also matches a fact of the owner whose predicate
  names it as whole words (``self primary_region us-west-2`` for "the primary region is
  us-west-2", ``self provisions_queue_on SQS`` for "provision the queue on SQS"): the slot of a
  thing without a name of its own is the owner's. In the same way a label that names a
  thing and its slot together (``PAY-2213 priority``, ``priority of PAY-2213``, ``PAY-2213's
  priority``) matches that thing's fact of that relation.
- **Direction**: a fact also matches a labelled (subjects, object) pair the other way round
  (its subject is the labelled object and its object one of the subjects), since ``X leads Y``
  and ``Y is led by X`` are one claim and relations are not compared.

Metrics:

- **claim recall**: a labelled claim of session *i* is found when right after session *i* a
  fact of ``now`` or ``open`` matches its subject and object.
- **claim precision**: facts of ``now`` ∪ ``open`` after session *i* that were not there before
  it are new; a new fact is true when it matches a claim of session *i* or of an earlier session
  (a re-statement), false otherwise.
- **change decisions**: predicted ends of session *i* are the facts of ``open`` before it that
  are not in ``open`` after it, plus facts of ``now`` before it that are in neither ``now`` nor
  ``open`` after it. A predicted end is right when it matches a labelled change of that session
  by subject and old value. Recall is also given conditionally on the old value having been
  stored (current before the session), which separates reading from superseding. False ends
  are also reported per 100 sentences (a sentence: a non-empty line, split further after
  ``.``/``!``/``?`` that follows a non-digit and precedes a capital, so ``1. Queue`` is one).
- **story pass**: one day after the last session every ``current`` value is current, every
  ``stale`` value is not, and when the story has a ``question`` the smoke check of
  ``memory_rot_smoke.py`` holds on ``str(mem.context(question))``: the new value appears as a
  whole word and no context line that contains the old value (as a whole word) lacks a past
  marker.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import re
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import graphmem as gm
from graphmem.normalize import entity_key
from graphmem.timeutil import ManualClock

DATA = Path(__file__).parent / "data"
DEFAULT_CORPORA = (DATA / "text_blind_dev.jsonl", DATA / "text_blind_test.jsonl")
FAR = "2100-01-01T00:00:00Z"
PAST = re.compile(r"\b(was|were|until|no longer|formerly|previously|replaced|superseded)\b")
_VERSION = re.compile(r"\d+(?:\.\d+)*")
_SENTENCE_SPLIT = re.compile(r"(?<=[^\d\s][.!?])\s+(?=[A-Z])")

Row = tuple[str, str, str]  # (subject, predicate, object) of a current fact


# --------------------------------------------------------------------------- matching


def key(name: str) -> str:
    """Normalise a name for comparison (see the module docstring)."""
    if not str(name).strip():
        return ""
    try:
        k = entity_key(str(name)).strip()
    except gm.GraphmemError:
        k = str(name).casefold().strip()
    k = re.sub(r"[\s.,;:!?]+$", "", k)
    k = re.sub(r"^the\s+", "", k)
    k = re.sub(r"^v(?=\d)", "", k)
    return k


def names_match(label: str, value: str) -> bool:
    """Whether a labelled name and a stored name are the same (strict-ish, see module doc)."""
    a, b = key(label), key(value)
    if not a or not b:
        return False
    if a == b:
        return True
    for ver, other in ((a, b), (b, a)):
        if _VERSION.fullmatch(ver) and re.search(rf"(?:^|\s){re.escape(ver)}$", other):
            return True
    return False


@dataclass
class Snapshot:
    """The facts around one session, plus the memory's own name resolution."""

    now: set[Row] = field(default_factory=set)
    open: set[Row] = field(default_factory=set)
    by_subject: dict[str, set[Row]] = field(default_factory=dict)
    by_object: dict[str, set[Row]] = field(default_factory=dict)
    owner: str = "self"
    # the answers at FAR alone, which a snapshot with no write since can reuse (take)
    far_subject: dict[str, set[Row]] = field(default_factory=dict)
    far_object: dict[str, set[Row]] = field(default_factory=dict)

    @property
    def rows(self) -> set[Row]:
        return self.now | self.open


def subject_ok(snap: Snapshot, alts: Iterable[str], row: Row) -> bool:
    for alt in alts:
        if names_match(alt, row[0]) or row in snap.by_subject.get(alt, ()):
            return True
        if key(alt) == "self" and names_match(snap.owner, row[0]):
            return True
        if names_match(snap.owner, row[0]) and _names_within(alt, row[1]):
            # "the primary region is X" filed as the owner's primary_region; "provision the
            # queue on X" as the owner's provisions_queue_on
            return True
        if _names_slot(alt, row):  # "PAY-2213 priority" filed as PAY-2213's priority
            return True
    return False


def _names_slot(label: str, row: Row) -> bool:
    """Whether a label names a fact's subject and relation together.

    ``PAY-2213 priority``, ``priority of PAY-2213`` and ``PAY-2213's priority`` all name
    ``(PAY-2213, priority, P1)``.
    """
    slot = row[1].replace("_", " ")
    subject = key(row[0])
    return bool(subject) and key(label.replace("'s ", " ")) in (
        f"{subject} {key(slot)}",
        f"{key(slot)} of {subject}",
    )


def _names_within(label: str, predicate: str) -> bool:
    """Whether a predicate names a label as whole words (``provisions_queue_on``: queue)."""
    words = key(label.replace("-", " ")).split()
    pred = key(predicate.replace("_", " ")).split()
    n = len(words)
    return n > 0 and any(pred[i : i + n] == words for i in range(len(pred) - n + 1))


def object_ok(snap: Snapshot, label: str, row: Row) -> bool:
    if names_match(label, row[2]) or row in snap.by_object.get(label, ()):
        return True
    return key(label) == "self" and names_match(snap.owner, row[2])


def row_matches(snap: Snapshot, alts: Iterable[str], obj: str, row: Row) -> bool:
    """A fact matches a labelled (subjects, object) pair in either direction.

    ``Jordan leads growth`` and ``growth led by Jordan`` are the same claim, and the relation is
    open, so the inverse fact (subject = the labelled object, object = one of the subjects) counts.
    """
    alts = list(alts)
    if subject_ok(snap, alts, row) and object_ok(snap, obj, row):
        return True
    labelled_subject_as_object = any(
        names_match(a, row[2])
        or row in snap.by_object.get(a, ())
        or (key(a) == "self" and names_match(snap.owner, row[2]))
        for a in alts
    )
    labelled_object_as_subject = (
        names_match(obj, row[0])
        or row in snap.by_subject.get(obj, ())
        or (key(obj) == "self" and names_match(snap.owner, row[0]))
    )
    return labelled_subject_as_object and labelled_object_as_subject


def found(snap: Snapshot, alts: Iterable[str], obj: str, rows: Iterable[Row] | None = None) -> bool:
    alts = list(alts)
    return any(row_matches(snap, alts, obj, r) for r in (snap.rows if rows is None else rows))


def predicted_ends(before: Snapshot, after: Snapshot) -> set[Row]:
    return (before.open - after.open) | (before.now - after.now - after.open)


def new_rows(before: Snapshot, after: Snapshot) -> set[Row]:
    return after.rows - before.rows


def count_sentences(text: str) -> int:
    n = 0
    for line in text.splitlines():
        if line.strip():
            n += len([s for s in _SENTENCE_SPLIT.split(line.strip()) if s.strip()])
    return n


def context_check(ctx: str, new: str, old: str | None) -> tuple[bool, str]:
    """The smoke check: new value present; no line with the old value reads as current."""
    low = ctx.casefold()
    if not re.search(rf"(?<!\w){re.escape(new.casefold())}(?!\w)", low):
        return False, f"new value {new!r} not in context"
    if old:
        pat = re.compile(rf"(?<!\w){re.escape(old.casefold())}(?!\w)")
        stale = [ln for ln in low.splitlines() if pat.search(ln) and not PAST.search(ln)]
        if stale:
            return False, f"old value {old!r} presented as current: {stale[0].strip()!r}"
    return True, ""


def context_passes(story: dict[str, Any], engine: str | None = None) -> tuple[bool, str]:
    """Replay a story and ask its question the day after: :func:`context_check` of the answer."""
    clock = ManualClock(_at(story["sessions"][0]["at"]))
    with gm.open(clock=clock, **({"engine": engine} if engine else {})) as mem:
        for sess in story["sessions"]:
            clock.set(_at(sess["at"]))
            if story["via"] == "remember":
                mem.remember(sess["text"], at=sess["at"])
            else:
                mem.add_session(sess["text"], started_at=sess["at"])
        clock.set(_at(story["sessions"][-1]["at"]) + dt.timedelta(days=1))
        ctx = str(mem.context(story["question"]))
    return context_check(ctx, story["new"], story.get("old"))


# --------------------------------------------------------------------------- replay


def _rows(facts: Iterable[Any]) -> set[Row]:
    return {(f.subject, f.predicate, f.object) for f in facts if f.predicate != "note"}


def _safe(fn: Any, **kw: Any) -> set[Row]:
    try:
        return _rows(fn(**kw))
    except gm.GraphmemError:
        return set()


def take(
    mem: gm.Memory, subjects: set[str], objects: set[str], far: Snapshot | None = None
) -> Snapshot:
    """The snapshot around a session; ``far`` is the last one when nothing was written since.

    Answers at :data:`FAR` do not depend on the clock, so they are reused from ``far``; an
    empty store answers every name with nothing.
    """
    snap = Snapshot(owner=str(getattr(mem, "owner", "self")))
    snap.now = _rows(mem.facts())
    snap.open = far.open if far is not None else _rows(mem.facts(valid_at=FAR))
    if not snap.now and not snap.open:
        return snap
    for name in subjects | objects:  # either way round, see row_matches
        if far is not None:
            # a snapshot that found no fact at all asked no name
            snap.far_subject[name] = far.far_subject.get(name, set())
            snap.far_object[name] = far.far_object.get(name, set())
        else:
            snap.far_subject[name] = _safe(mem.facts, subject=name, valid_at=FAR)
            snap.far_object[name] = _safe(mem.facts, object=name, valid_at=FAR)
        snap.by_subject[name] = _safe(mem.facts, subject=name) | snap.far_subject[name]
        snap.by_object[name] = _safe(mem.facts, object=name) | snap.far_object[name]
    return snap


def _at(day: str) -> dt.datetime:
    d = dt.datetime.fromisoformat(day)
    if d.tzinfo is None:
        d = d.replace(tzinfo=dt.timezone.utc)
    return d + dt.timedelta(hours=12)


@dataclass
class Result:
    id: str
    via: str
    format: str
    tags: list[str]
    sentences: int = 0
    claims: int = 0
    claims_found: int = 0
    new_facts: int = 0
    new_true: int = 0
    changes: int = 0
    changes_found: int = 0
    changes_stored: int = 0  # labelled changes whose old value was current before the session
    changes_stored_found: int = 0
    ends: int = 0
    ends_right: int = 0
    passed: bool = False
    why: list[str] = field(default_factory=list)
    false_ends: list[str] = field(default_factory=list)
    current_at_end: list[str] = field(default_factory=list)
    error: str | None = None
    seconds: float = 0.0
    context_ok: bool | None = None  # the smoke check of context(question), when it has one


def run_story(story: dict[str, Any], engine: str | None = None) -> Result:
    res = Result(story["id"], story["via"], story.get("format", "?"), list(story.get("tags", [])))
    res.sentences = sum(count_sentences(s["text"]) for s in story["sessions"])
    res.claims = len(story["claims"])
    res.changes = len(story["changes"])
    subjects = {a for c in story["claims"] for a in c[1]}
    subjects |= {a for c in story["changes"] for a in c[1]}
    subjects |= {a for c in story["current"] + story["stale"] for a in c[0]}
    objects = {c[3] for c in story["claims"]} | {c[2] for c in story["changes"]}
    objects |= {c[1] for c in story["current"] + story["stale"]}
    t0 = time.perf_counter()
    try:
        first = _at(story["sessions"][0]["at"])
        clock = ManualClock(first)
        with gm.open(clock=clock, engine=engine) as mem:
            after = None
            for i, sess in enumerate(story["sessions"]):
                clock.set(_at(sess["at"]))
                before = take(mem, subjects, objects, far=after)
                if story["via"] == "remember":
                    mem.remember(sess["text"], at=sess["at"])
                else:
                    mem.add_session(sess["text"], started_at=sess["at"])
                after = take(mem, subjects, objects)
                _score_session(res, story, i, before, after)
            clock.set(_at(story["sessions"][-1]["at"]) + dt.timedelta(days=1))
            _score_end(res, story, take(mem, subjects, objects, far=after), mem)
    except Exception as exc:  # a story that raises fails
        res.passed = False
        res.error = f"{type(exc).__name__}: {exc}"
        res.why.append("raised " + res.error)
    res.seconds = time.perf_counter() - t0
    return res


def _score_session(
    res: Result, story: dict[str, Any], i: int, before: Snapshot, after: Snapshot
) -> None:
    mine = [c for c in story["claims"] if c[0] == i]
    known = [c for c in story["claims"] if c[0] <= i]
    res.claims_found += sum(found(after, c[1], c[3]) for c in mine)
    for row in new_rows(before, after):
        res.new_facts += 1
        res.new_true += any(row_matches(after, c[1], c[3], row) for c in known)
    ends = predicted_ends(before, after)
    changes = [c for c in story["changes"] if c[0] == i]
    res.ends += len(ends)
    right = [r for r in ends if any(row_matches(before, c[1], c[2], r) for c in changes)]
    res.ends_right += len(right)
    res.false_ends.extend(f"session {i}: {' | '.join(r)}" for r in sorted(ends) if r not in right)
    for c in changes:
        hit = any(row_matches(before, c[1], c[2], r) for r in ends)
        stored = found(before, c[1], c[2])
        res.changes_found += hit
        res.changes_stored += stored
        res.changes_stored_found += hit and stored


def _score_end(res: Result, story: dict[str, Any], snap: Snapshot, mem: gm.Memory) -> None:
    now = snap.now
    for alts, val in story["current"]:
        if not found(snap, alts, val, now):
            res.why.append(f"missing current {alts[0]!r} -> {val!r}")
    for alts, val in story["stale"]:
        if found(snap, alts, val, now):
            res.why.append(f"stale still current {alts[0]!r} -> {val!r}")
    if story.get("question") and story.get("new"):
        ok, why = context_check(str(mem.context(story["question"])), story["new"], story.get("old"))
        res.context_ok = ok
        if not ok:
            res.why.append("context: " + why)
    res.passed = not res.why
    res.current_at_end = sorted(f"{s} | {p} | {o}" for s, p, o in now)


# --------------------------------------------------------------------------- reporting


def load(paths: Iterable[Path]) -> list[dict[str, Any]]:
    stories = []
    for p in paths:
        with open(p, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    story = json.loads(line)
                    story["_file"] = Path(p).name
                    stories.append(story)
    return stories


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def summarise(results: list[Result]) -> dict[str, Any]:
    def agg(rs: list[Result]) -> dict[str, Any]:
        t = defaultdict(int)
        for r in rs:
            for k in (
                "sentences",
                "claims",
                "claims_found",
                "new_facts",
                "new_true",
                "changes",
                "changes_found",
                "changes_stored",
                "changes_stored_found",
                "ends",
                "ends_right",
            ):
                t[k] += getattr(r, k)
        false_ends = t["ends"] - t["ends_right"]
        return {
            "stories": len(rs),
            "passed": sum(r.passed for r in rs),
            "pass_rate": _ratio(sum(r.passed for r in rs), len(rs)),
            "sentences": t["sentences"],
            "claim_recall": _ratio(t["claims_found"], t["claims"]),
            "claim_precision": _ratio(t["new_true"], t["new_facts"]),
            "change_recall": _ratio(t["changes_found"], t["changes"]),
            "change_recall_if_stored": _ratio(t["changes_stored_found"], t["changes_stored"]),
            "change_precision": _ratio(t["ends_right"], t["ends"]),
            "false_ends": false_ends,
            "false_ends_per_100_sentences": round(100 * false_ends / t["sentences"], 2)
            if t["sentences"]
            else None,
            "errors": sum(r.error is not None for r in rs),
            "counts": dict(t),
        }

    groups: dict[str, dict[str, list[Result]]] = {
        "via": defaultdict(list),
        "tag": defaultdict(list),
        "format": defaultdict(list),
    }
    for r in results:
        groups["via"][r.via].append(r)
        groups["format"][r.format].append(r)
        for tag in r.tags:
            groups["tag"][tag].append(r)
    return {
        "overall": agg(results),
        **{g: {k: agg(v) for k, v in sorted(d.items())} for g, d in groups.items()},
        "failing": [
            {"id": r.id, "why": r.why, "current": r.current_at_end} for r in results if not r.passed
        ],
        "false_ends": {r.id: r.false_ends for r in results if r.false_ends},
        "seconds": round(sum(r.seconds for r in results), 2),
    }


def _fmt(v: Any) -> str:
    return "  -  " if v is None else (f"{v:5.2f}" if isinstance(v, float) else str(v))


def print_report(summary: dict[str, Any], out: Any = sys.stdout) -> None:
    cols = [
        ("pass", "pass_rate"),
        ("c.rec", "claim_recall"),
        ("c.prec", "claim_precision"),
        ("ch.rec", "change_recall"),
        ("ch.rec|st", "change_recall_if_stored"),
        ("ch.prec", "change_precision"),
        ("fe/100s", "false_ends_per_100_sentences"),
    ]
    head = f"{'group':28} {'n':>4} " + " ".join(f"{c:>9}" for c, _ in cols)

    def line(name: str, a: dict[str, Any]) -> str:
        return f"{name[:28]:28} {a['stories']:>4} " + " ".join(f"{_fmt(a[k]):>9}" for _, k in cols)

    print(head, file=out)
    print(line("overall", summary["overall"]), file=out)
    for g in ("via", "format", "tag"):
        print(f"-- by {g}", file=out)
        for k, a in summary[g].items():
            print(line(k, a), file=out)
    o = summary["overall"]
    print(
        f"\nstories {o['stories']}, passed {o['passed']}, sentences {o['sentences']}, "
        f"false ends {o['false_ends']}, errors {o['errors']}, {summary['seconds']} s",
        file=out,
    )
    if summary["failing"]:
        print("\nfailing stories:", file=out)
        for f in summary["failing"]:
            print(f"  {f['id']}: " + "; ".join(f["why"]), file=out)
            for c in f["current"][:12]:
                print(f"      now: {c}", file=out)
    if summary["false_ends"]:
        print("\nfalse ends (ended, but no labelled change):", file=out)
        for sid, rows in summary["false_ends"].items():
            print(f"  {sid}: " + "; ".join(rows), file=out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m tests.rot_eval", description=__doc__.split("\n")[0]
    )
    ap.add_argument("--corpus", action="append", type=Path, help="a JSONL corpus (repeatable)")
    ap.add_argument("--engine", default=None, help="storage engine for graphmem.open")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    ap.add_argument("--id", action="append", help="only these story ids")
    args = ap.parse_args(argv)
    stories = load(args.corpus or DEFAULT_CORPORA)
    if args.id:
        stories = [s for s in stories if s["id"] in set(args.id)]
    results = [run_story(s, engine=args.engine) for s in stories]
    summary = summarise(results)
    if args.json:
        print(json.dumps(summary, indent=2, ensure_ascii=False))
    else:
        print_report(summary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
