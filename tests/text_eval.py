"""Measure graphmem's text memory on the labelled corpus ``tests/data/text_corpus.jsonl``.

Each story is replayed into a fresh in-memory store through the surface it names
(``add_session(text, started_at=at)`` or ``remember(text, at=at)``), with the clock set to each
session's date + 12 h. Around every session the harness takes a snapshot of the current facts
(``mem.facts()``, predicate ``note`` left out) and compares what changed with the labels:

- predicted claims of a session: the triples current after it that were not current before;
  a labelled claim is *found* when its triple is current right after its session;
- predicted ends: the triples current before the session and not after it; an end is a
  *supersession* when the same subject and predicate got a new value in that session, else an
  *invalidation*;
- predicted notes: a session after which a new current ``note`` fact exists;
- ``valid_from`` checks, and the final ``current`` / ``not_current`` checks.

Subjects and objects are compared through :func:`graphmem.normalize.entity_key`, predicates
through the memory's ontology (``mem.ontology.resolve(p).name``), so aliases count as their
predicate. A story whose write raises is a failed story: its error is recorded, and whatever it
had not yet produced counts as missed. Run ``python -m tests.text_eval`` from the repository root
for the table and the failures (``--engine ladybug``, ``--corpus PATH``, ``--json``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import graphmem as gm
from graphmem.normalize import entity_key
from graphmem.timeutil import ManualClock, to_utc

CORPUS_PATH = Path(__file__).parent / "data" / "text_corpus.jsonl"
NOTE = "note"
#: what the clock reads, after a session's date, when that session is written
WRITE_OFFSET = dt.timedelta(hours=12)
#: setup facts are written a little earlier on the first session's day
SETUP_OFFSET = dt.timedelta(hours=6)

Triple = tuple[str, str, str]
Labelled = tuple[int, str, str, str]


def load_corpus(path: str | Path = CORPUS_PATH) -> list[dict[str, Any]]:
    """Return the stories of a JSONL corpus, one dict per non-blank line.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = Path(d) / "c.jsonl"
    ...     _ = p.write_text('{"id": "s1"}\\n\\n{"id": "s2"}\\n')
    ...     [s["id"] for s in load_corpus(p)]
    ['s1', 's2']
    """
    stories = []
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                stories.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{number}: not JSON: {exc}") from exc
    return stories


def ratio(hits: int, total: int, *, empty: float = 1.0) -> float:
    """Return ``hits / total``, or ``empty`` when there is nothing to count.

    >>> ratio(3, 4), ratio(0, 0), ratio(0, 0, empty=0.0)
    (0.75, 1.0, 0.0)
    """
    return hits / total if total else empty


@dataclass
class Counts:
    """True positives, predictions and expectations of one measure, summed over stories."""

    tp: int = 0
    predicted: int = 0
    expected: int = 0
    found: int = 0  # recall hits (claims use "current after", not "new after")

    def add(self, other: Counts) -> None:
        """Add another count to this one."""
        self.tp += other.tp
        self.predicted += other.predicted
        self.expected += other.expected
        self.found += other.found

    @property
    def precision(self) -> float:
        """``tp / predicted``; nothing predicted scores 1.0 only when nothing was expected."""
        return ratio(self.tp, self.predicted, empty=1.0 if self.expected == 0 else 0.0)

    @property
    def recall(self) -> float:
        """``found / expected`` (1.0 when nothing was expected)."""
        return ratio(self.found, self.expected)


@dataclass
class StoryResult:
    """What one story produced, and why it failed (empty ``problems``: it passed)."""

    id: str
    claims: Counts = field(default_factory=Counts)
    ends: Counts = field(default_factory=Counts)
    supersessions: Counts = field(default_factory=Counts)
    invalidations: Counts = field(default_factory=Counts)
    notes: Counts = field(default_factory=Counts)
    dates_checked: int = 0
    dates_right: int = 0
    final_ok: bool = False
    error: str | None = None
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        """Whether every check of the story held."""
        return not self.problems


@dataclass
class Report:
    """Corpus-level measures (see the module docstring for their definitions)."""

    stories: list[StoryResult]
    seconds: float = 0.0

    def _sum(self, name: str) -> Counts:
        total = Counts()
        for story in self.stories:
            total.add(getattr(story, name))
        return total

    @property
    def claims(self) -> Counts:
        """Claim counts over the corpus."""
        return self._sum("claims")

    @property
    def ends(self) -> Counts:
        """End counts (supersessions and invalidations together, kind ignored)."""
        return self._sum("ends")

    @property
    def supersessions(self) -> Counts:
        """Supersession counts (kind must match)."""
        return self._sum("supersessions")

    @property
    def invalidations(self) -> Counts:
        """Invalidation counts (kind must match)."""
        return self._sum("invalidations")

    @property
    def notes(self) -> Counts:
        """Session-level note counts."""
        return self._sum("notes")

    @property
    def valid_from_accuracy(self) -> float:
        """Share of ``valid_from`` checks that held."""
        return ratio(
            sum(s.dates_right for s in self.stories), sum(s.dates_checked for s in self.stories)
        )

    @property
    def final_pass_rate(self) -> float:
        """Share of stories whose final ``current`` and ``not_current`` checks all held."""
        return ratio(sum(s.final_ok for s in self.stories), len(self.stories))

    @property
    def story_pass_rate(self) -> float:
        """Share of stories with no problem at all."""
        return ratio(sum(s.passed for s in self.stories), len(self.stories))

    @property
    def errors(self) -> list[StoryResult]:
        """Stories whose write raised."""
        return [s for s in self.stories if s.error is not None]

    @property
    def failures(self) -> list[StoryResult]:
        """Stories with at least one problem."""
        return [s for s in self.stories if not s.passed]

    def metrics(self) -> dict[str, float]:
        """Return every measure by name (the keys of :func:`format_report`'s table)."""
        out: dict[str, float] = {}
        for name in ("claims", "ends", "supersessions", "invalidations", "notes"):
            counts: Counts = getattr(self, name)
            out[f"{name}_precision"] = counts.precision
            out[f"{name}_recall"] = counts.recall
        out["valid_from_accuracy"] = self.valid_from_accuracy
        out["final_pass_rate"] = self.final_pass_rate
        out["story_pass_rate"] = self.story_pass_rate
        return out


# -- normalisation --------------------------------------------------------------------------


def _key(mem: gm.Memory, subject: str, predicate: str, obj: str) -> Triple:
    return (entity_key(subject), mem.ontology.resolve(predicate).name, entity_key(obj))


def _snapshot(mem: gm.Memory) -> tuple[set[Triple], set[Triple], dict[Triple, dt.datetime]]:
    """Return (current non-note triples, current note triples, earliest valid_from by triple)."""
    facts: set[Triple] = set()
    notes: set[Triple] = set()
    starts: dict[Triple, dt.datetime] = {}
    for f in mem.facts():
        predicate = mem.ontology.resolve(f.predicate).name
        triple = (entity_key(f.subject), predicate, entity_key(f.object))
        if predicate == NOTE:
            notes.add(triple)
            continue
        facts.add(triple)
        if triple not in starts or f.valid_from < starts[triple]:
            starts[triple] = f.valid_from
    return facts, notes, starts


def _show(triple: Sequence[str]) -> str:
    return " ".join(triple)


# -- one story ------------------------------------------------------------------------------


def _labelled(mem: gm.Memory, rows: Iterable[Sequence[Any]]) -> dict[int, set[Triple]]:
    out: dict[int, set[Triple]] = {}
    for row in rows:
        out.setdefault(int(row[0]), set()).add(_key(mem, row[1], row[2], row[3]))
    return out


def _write(mem: gm.Memory, via: str, story_id: str, index: int, at: str, text: str) -> None:
    if via == "session":
        mem.add_session(text, started_at=at, session_id=f"{story_id}.{index}")
    elif via == "remember":
        mem.remember(text, at=at)
    else:
        raise ValueError(f"story {story_id}: via={via!r} must be 'session' or 'remember'")


def run_story(story: Mapping[str, Any]) -> StoryResult:
    """Replay one story into a fresh in-memory store and score it; never raises on a write.

    The engine is the default one (``$GRAPHMEM_ENGINE``, else kuzu).
    """
    started = time.perf_counter()
    result = StoryResult(id=str(story.get("id")))
    sessions = list(story["sessions"])
    first = to_utc(sessions[0]["at"])
    clock = ManualClock(first + SETUP_OFFSET)
    mem = gm.open(clock=clock)
    try:
        _run(mem, clock, story, sessions, result)
    finally:
        mem.close()
        result.seconds = time.perf_counter() - started
    return result


def _run(
    mem: gm.Memory,
    clock: ManualClock,
    story: Mapping[str, Any],
    sessions: Sequence[Mapping[str, Any]],
    result: StoryResult,
) -> None:
    claims = _labelled(mem, story.get("claims", []))
    ends: dict[int, dict[Triple, str]] = {}
    for row in story.get("ends", []):
        ends.setdefault(int(row[0]), {})[_key(mem, row[1], row[2], row[3])] = row[4]
    dates: dict[int, list[tuple[Triple, str]]] = {}
    for row in story.get("valid_from", []):
        dates.setdefault(int(row[0]), []).append((_key(mem, row[1], row[2], row[3]), row[4]))
    notes = {int(i) for i in story.get("notes", [])}
    problems = result.problems
    stopped_at: int | None = None
    try:
        for item in story.get("setup", []):
            mem.add_fact(
                item["subject"], item["predicate"], item["object"], valid_from=item["valid_from"]
            )
    except Exception as exc:  # noqa: BLE001 - a failing story must not stop the corpus
        result.error = f"setup: {type(exc).__name__}: {exc}"
        stopped_at = 0
    for index, session in enumerate(sessions):
        if stopped_at is not None:
            break
        clock.set(to_utc(session["at"]) + WRITE_OFFSET)
        before, notes_before, _ = _snapshot(mem)
        try:
            _write(mem, story["via"], result.id, index, session["at"], session["text"])
        except Exception as exc:  # noqa: BLE001 - a failing story must not stop the corpus
            result.error = f"session {index}: {type(exc).__name__}: {exc}"
            stopped_at = index
            break
        after, notes_after, starts = _snapshot(mem)
        _score_session(
            result, index, before, after, claims, ends, notes, notes_after - notes_before
        )
        for triple, want in dates.get(index, []):
            result.dates_checked += 1
            got = starts.get(triple)
            if got is not None and got.date().isoformat() == want:
                result.dates_right += 1
            else:
                shown = "not current" if got is None else got.date().isoformat()
                problems.append(
                    f"session {index}: {_show(triple)} valid_from {shown}, expected {want}"
                )
    if stopped_at is not None:
        _count_missed(result, stopped_at, len(sessions), claims, ends, notes, dates)
        problems.insert(0, f"error: {result.error}")
        return
    final, _, _ = _snapshot(mem)
    missing = [_key(mem, *row) for row in story.get("current", [])]
    missing = [t for t in missing if t not in final]
    stale = [_key(mem, *row) for row in story.get("not_current", [])]
    stale = [t for t in stale if t in final]
    result.final_ok = not missing and not stale
    problems.extend(f"final: {_show(t)} should be current" for t in missing)
    problems.extend(f"final: {_show(t)} is still current" for t in stale)


def _score_session(
    result: StoryResult,
    index: int,
    before: set[Triple],
    after: set[Triple],
    claims: Mapping[int, set[Triple]],
    ends: Mapping[int, Mapping[Triple, str]],
    notes: set[int],
    new_notes: set[Triple],
) -> None:
    problems = result.problems
    want_claims = claims.get(index, set())
    new = after - before
    result.claims.predicted += len(new)
    result.claims.tp += len(new & want_claims)
    result.claims.expected += len(want_claims)
    result.claims.found += len(want_claims & after)
    problems.extend(
        f"session {index}: missed claim {_show(t)}" for t in sorted(want_claims - after)
    )
    problems.extend(
        f"session {index}: unexpected new fact {_show(t)}" for t in sorted(new - want_claims)
    )

    gone = before - after
    new_slots = {(s, p, o) for s, p, o in new}
    predicted_kind = {
        t: "supersede"
        if any(s == t[0] and p == t[1] and o != t[2] for s, p, o in new_slots)
        else "invalidate"
        for t in gone
    }
    want_ends = dict(ends.get(index, {}))
    hits = set(predicted_kind) & set(want_ends)
    result.ends.predicted += len(predicted_kind)
    result.ends.expected += len(want_ends)
    result.ends.tp += len(hits)
    result.ends.found += len(hits)
    for kind, counts in (("supersede", result.supersessions), ("invalidate", result.invalidations)):
        got = {t for t, k in predicted_kind.items() if k == kind}
        want = {t for t, k in want_ends.items() if k == kind}
        counts.predicted += len(got)
        counts.expected += len(want)
        counts.tp += len(got & want)
        counts.found += len(got & want)
    for t in sorted(set(want_ends) - set(predicted_kind)):
        problems.append(f"session {index}: {_show(t)} should end ({want_ends[t]}) but is current")
    for t in sorted(set(predicted_kind) - set(want_ends)):
        problems.append(f"session {index}: {_show(t)} ended ({predicted_kind[t]}) wrongly")
    for t in sorted(hits):
        if predicted_kind[t] != want_ends[t]:
            problems.append(
                f"session {index}: {_show(t)} ended by {predicted_kind[t]}, expected {want_ends[t]}"
            )

    got_note = bool(new_notes)
    want_note = index in notes
    result.notes.predicted += got_note
    result.notes.expected += want_note
    result.notes.tp += got_note and want_note
    result.notes.found += got_note and want_note
    if want_note and not got_note:
        problems.append(f"session {index}: no note stored")
    elif got_note and not want_note:
        problems.append(f"session {index}: unexpected note {_show(sorted(new_notes)[0])[:60]}")


def _count_missed(
    result: StoryResult,
    start: int,
    n_sessions: int,
    claims: Mapping[int, set[Triple]],
    ends: Mapping[int, Mapping[Triple, str]],
    notes: set[int],
    dates: Mapping[int, list[tuple[Triple, str]]],
) -> None:
    """Count the labels of sessions a failed write never reached as missed."""
    for index in range(start, n_sessions):
        result.claims.expected += len(claims.get(index, ()))
        want = ends.get(index, {})
        result.ends.expected += len(want)
        result.supersessions.expected += sum(k == "supersede" for k in want.values())
        result.invalidations.expected += sum(k == "invalidate" for k in want.values())
        result.notes.expected += index in notes
        result.dates_checked += len(dates.get(index, ()))


# -- the corpus -----------------------------------------------------------------------------


def evaluate(stories: Iterable[Mapping[str, Any]]) -> Report:
    """Run every story and return the corpus report."""
    started = time.perf_counter()
    results = [run_story(story) for story in stories]
    return Report(results, seconds=time.perf_counter() - started)


def format_report(report: Report, *, max_failures: int | None = None) -> str:
    """Return the metrics table and one line per failing story."""
    rows = [("measure", "precision", "recall", "tp/pred", "found/exp")]
    for name in ("claims", "ends", "supersessions", "invalidations", "notes"):
        c: Counts = getattr(report, name)
        rows.append(
            (
                name,
                f"{c.precision:.3f}",
                f"{c.recall:.3f}",
                f"{c.tp}/{c.predicted}",
                f"{c.found}/{c.expected}",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)) for r in rows]
    n = len(report.stories)
    checked = sum(s.dates_checked for s in report.stories)
    lines += [
        "",
        f"valid_from accuracy   {report.valid_from_accuracy:.3f}  ({checked} checks)",
        f"final state pass rate {report.final_pass_rate:.3f}  "
        f"({sum(s.final_ok for s in report.stories)}/{n} stories)",
        f"story pass rate       {report.story_pass_rate:.3f}  "
        f"({sum(s.passed for s in report.stories)}/{n} stories)",
        f"errors                {len(report.errors)}",
        f"time                  {report.seconds:.1f} s",
    ]
    failures = report.failures
    if failures:
        lines += ["", f"failing stories ({len(failures)}):"]
        for story in failures[:max_failures]:
            extra = len(story.problems) - 1
            more = f" (+{extra} more)" if extra else ""
            lines.append(f"  {story.id}: {story.problems[0]}{more}")
        if max_failures is not None and len(failures) > max_failures:
            lines.append(f"  ... and {len(failures) - max_failures} more")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the corpus and print the report; exit status 0 (it measures, it does not judge)."""
    parser = argparse.ArgumentParser(prog="python -m tests.text_eval", description=__doc__)
    parser.add_argument("--corpus", default=str(CORPUS_PATH), help="the JSONL corpus")
    parser.add_argument("--engine", help="kuzu or ladybug (default: $GRAPHMEM_ENGINE, kuzu)")
    parser.add_argument("--story", action="append", help="run only this story id (repeatable)")
    parser.add_argument("--json", action="store_true", help="print the metrics as JSON")
    parser.add_argument("--all", action="store_true", help="list every problem of each failure")
    args = parser.parse_args(argv)
    if args.engine:
        import os

        os.environ["GRAPHMEM_ENGINE"] = args.engine
    stories = load_corpus(args.corpus)
    if args.story:
        wanted = set(args.story)
        stories = [s for s in stories if s.get("id") in wanted]
    report = evaluate(stories)
    if args.json:
        payload = {
            "metrics": report.metrics(),
            "failures": {s.id: s.problems for s in report.failures},
        }
        print(json.dumps(payload, indent=2))
    else:
        print(format_report(report))
        if args.all:
            for story in report.failures:
                print(f"\n{story.id}:")
                for problem in story.problems:
                    print(f"  - {problem}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
