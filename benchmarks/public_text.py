"""graphmem's text reader on public data sets, through the public API only.

Run: ``python -m benchmarks.public_text {lifecycle,amb,locomo,all} [--limit N] [--json]
[--owner-subject user] [--data DIR]``. Not part of the test run. The data is read from
``../shared/data`` next to the repository (``--data`` to point elsewhere) and is never copied
into the project; the run stops with a message when it is absent.

Three sets, each replayed as text (never as structured triples) into a fresh in-memory
``gm.open(clock=ManualClock(...))``, the clock following the data's dates:

- **lifecycle** (Lians' ``lifecycle_scenarios.json``): each event is a single dated user
  statement, so it goes through ``remember(text, at=date)``; the same replay through
  ``add_session(text, started_at=date)`` is reported beside it. Rows are Lians' three kinds:
  ``profile`` (the state now), ``checkpoint`` (the state at a past valid time) and ``probe``
  (a question). See :func:`lifecycle_row` for the scoring rule.
- **amb** (memvara's Agent Memory Benchmark v2, text mode): every event's sentence is
  remembered at its ``recorded_at``, with its reporter as the speaker (``subject=`` and
  ``source=``); the structured subject/predicate/object/valid_from are not given to graphmem.
  Questions are answered from ``facts``/``history``/``context`` (:func:`amb_answer`) and
  graded by memvara's rules, reimplemented in :func:`amb_grade`.
- **locomo** (snap-research LoCoMo, 10 conversations): claim yield of ``add_session`` over
  every session (``Speaker: text`` lines, started at the session's date): claims read, facts
  written, claims per turn, sentences per second, and a deterministic sample of written facts
  with their sentence, dumped under /tmp for a hand precision check.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import re
import sys
import time
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
DEFAULT_DATA = REPO.parent / "shared" / "data"
AMB_DIR = "agent-memory-benchmark"
LOCOMO_DIR = "locomo"
SAMPLE_OUT = Path("/tmp/graphmem_locomo_sample.jsonl")
SAMPLE_SIZE = 60
SAMPLE_SEED = 20261201

# -- shared scoring helpers (no data, no store) -----------------------------------------------

#: A line that shows an old value as past: the rule of the memory-rot smoke check.
PAST = re.compile(r"\b(was|were|until|no longer|formerly|previously|replaced|superseded)\b")


def contains(text: str, needle: str) -> bool:
    """Case-insensitive substring, the matching rule of Lians' harness."""
    return needle.casefold() in text.casefold()


def stale_lines(lines: Iterable[str], old: str) -> list[str]:
    """The lines that show ``old`` as current: they contain it and carry no past marker."""
    o = old.casefold()
    return [ln for ln in lines if o in ln.casefold() and not PAST.search(ln.casefold())]


@dataclass
class RowResult:
    """One scored lifecycle row."""

    scenario: str
    category: str
    kind: str  # profile, checkpoint, probe
    label: str
    ok: bool
    found: bool
    leaked: list[str] = field(default_factory=list)
    polluted: bool = False

    def why(self) -> str:
        if not self.found:
            return "expected value missing"
        if self.leaked:
            return f"stale shown as current: {self.leaked}"
        return "polluted" if self.polluted else "ok"


def lifecycle_row(
    lines: Sequence[str],
    current: str,
    stale: Sequence[str] = (),
    must_not_contain: str | None = None,
) -> tuple[bool, bool, list[str], bool]:
    """Score one row on the lines graphmem presents: ``(ok, found, leaked, polluted)``.

    Passed when ``current`` appears (case-insensitive substring, as in Lians' harness), no
    ``stale``/``absent`` value appears on a line without a past marker (the memory-rot smoke
    rule; Lians counts any occurrence as a leak), and ``must_not_contain`` appears nowhere.
    """
    found = any(contains(ln, current) for ln in lines)
    leaked = [s for s in stale if stale_lines(lines, s)]
    polluted = bool(must_not_contain) and any(contains(ln, must_not_contain) for ln in lines)
    return found and not leaked and not polluted, found, leaked, polluted


# memvara's answer comparison (benchmarks/agent_memory/normalization.py), reimplemented.
_ARTICLES = frozenset({"a", "an", "the"})
_PUNCT = re.compile(r"[^\w\s-]", re.UNICODE)
_SPACE = re.compile(r"\s+")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
CONTAINMENT_TOKEN_LIMIT = 12


def normalize(text: str | None) -> str:
    """Case, punctuation and articles removed: memvara's comparable form."""
    if text is None:
        return ""
    folded = _PUNCT.sub(" ", unicodedata.normalize("NFKD", text).casefold())
    return " ".join(w for w in _SPACE.split(folded) if w and w not in _ARTICLES)


def tokens(text: str | None) -> list[str]:
    n = normalize(text)
    return n.split() if n else []


def phrase_in(haystack: Sequence[str], needle: Sequence[str]) -> bool:
    """Whole-token containment: ``york`` is not in ``yorkshire``."""
    if not needle or len(needle) > len(haystack):
        return False
    span = len(needle)
    return any(list(haystack[i : i + span]) == list(needle) for i in range(len(haystack)))


def matches_value(
    answer: str | None, gold: str, aliases: Sequence[str] = (), competitors: Sequence[str] = ()
) -> bool:
    """Normalized equality, or the gold as a phrase of a short answer naming no competitor."""
    accepted = [gold, *aliases]
    n = normalize(answer)
    if not n:
        return False
    if any(n == normalize(c) for c in accepted):
        return True
    toks = tokens(answer)
    if len(toks) > CONTAINMENT_TOKEN_LIMIT:
        return False
    if not any(phrase_in(toks, tokens(c)) for c in accepted):
        return False
    acc = {normalize(c) for c in accepted}
    return not any(normalize(o) not in acc and phrase_in(toks, tokens(o)) for o in competitors)


def matches_set(values: Sequence[str], gold: Sequence[str]) -> bool:
    """Exact set equality on normalized values."""
    got = {normalize(v) for v in values if normalize(v)}
    want = {normalize(v) for v in gold if normalize(v)}
    return bool(want) and got == want


def parse_date(text: str | None) -> dt.date | None:
    """A calendar day from an ISO-8601 answer, else ``None`` (prose dates are not read)."""
    if not text:
        return None
    raw = text.strip()
    try:
        when = dt.datetime.fromisoformat(raw[:-1] + "+00:00" if raw.endswith("Z") else raw)
    except ValueError:
        m = _ISO_DATE.search(raw)
        return None if m is None else dt.date(int(m[1]), int(m[2]), int(m[3]))
    if when.tzinfo is not None:
        when = when.astimezone(dt.timezone.utc)
    return when.date()


@dataclass
class Answer:
    """An answer to an AMB question: a value, a set of values, or an abstention."""

    value: str | None = None
    values: tuple[str, ...] = ()

    @property
    def abstained(self) -> bool:
        return self.value is None and not self.values

    def __str__(self) -> str:
        return ", ".join(self.values) if self.values else (self.value or "(abstained)")


def amb_grade(gold: dict[str, Any], answer: Answer, competitors: Sequence[str] = ()) -> bool:
    """memvara's ``scoring.grade``: one rule per gold kind, lenient value matching."""
    kind = gold["kind"]
    if kind == "none":
        return answer.abstained
    if answer.abstained:
        return False
    if kind == "set":
        vals = answer.values or ((answer.value,) if answer.value else ())
        return matches_set([v for v in vals if v], gold["values"])
    if kind == "date":
        got, want = parse_date(answer.value), parse_date(gold.get("value"))
        return got is not None and got == want
    if answer.values and answer.value is None:
        return False  # several values where one was asked for
    return matches_value(
        answer.value, gold.get("value") or "", gold.get("aliases", ()), competitors
    )


def amb_competitors(events: Sequence[dict[str, Any]]) -> tuple[dict, dict]:
    """memvara's ``Truth.competitors``: values of each slot, and of each scenario."""
    by_slot: dict[tuple[str, str], list[str]] = defaultdict(list)
    by_scenario: dict[str, list[str]] = defaultdict(list)
    for e in events:
        by_slot[(e["subject"], e["predicate"])].append(e["object"])
        by_scenario[e.get("scenario", "misc")].append(e["object"])
    dedup = lambda d: {k: tuple(dict.fromkeys(v)) for k, v in d.items()}  # noqa: E731
    return dedup(by_slot), dedup(by_scenario)


def parse_locomo_date(text: str) -> dt.datetime:
    """``"1:56 pm on 8 May, 2023"`` as an aware UTC datetime."""
    return dt.datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(
        tzinfo=dt.timezone.utc
    )


_SENT = re.compile(r"(?<=[.!?])\s+")


def count_sentences(text: str) -> int:
    """Rough sentence count of a turn: pieces split after ``.``, ``!`` or ``?``."""
    return sum(1 for s in _SENT.split(text.strip()) if s.strip())


def pct(ok: int, n: int) -> str:
    return "n/a" if not n else f"{100 * ok / n:.0f}% ({ok}/{n})"


def _tally(rows: Iterable[bool]) -> dict[str, Any]:
    rows = list(rows)
    ok = sum(rows)
    return {
        "passed": ok,
        "total": len(rows),
        "pct": round(100 * ok / len(rows), 1) if rows else None,
    }


# -- data -------------------------------------------------------------------------------------


class DataMissing(SystemExit):
    pass


def need(path: Path) -> Path:
    if not path.exists():
        raise DataMissing(
            f"public_text: {path} not found. The public sets live outside the repository, in "
            f"../shared/data next to it ({DEFAULT_DATA}); pass --data DIR to point elsewhere."
        )
    return path


def _noon(day: str) -> dt.datetime:
    return dt.datetime.fromisoformat(day).replace(hour=12, tzinfo=dt.timezone.utc)


def _open(start: dt.datetime) -> tuple[Any, Any]:
    import graphmem as gm
    from graphmem.admission import AdmissionPolicy
    from graphmem.timeutil import ManualClock

    clock = ManualClock(start)
    # A replay is a backfill: the default policy without its hourly rate limits.
    return gm.open(clock=clock, admission=AdmissionPolicy.unlimited()), clock


def _advance(clock: Any, when: dt.datetime) -> dt.datetime:
    """Move the clock to ``when``, never backwards (system time is arrival time)."""
    now = clock()
    if when > now:
        clock.set(when)
        return when
    return now


# -- 1. Lians lifecycle ------------------------------------------------------------------------


def is_note(fact: Any) -> bool:
    """A free-text note (``remember`` of a text without claims), not a fact."""
    return fact.predicate == "note"


def _fact_lines(facts: Iterable[Any]) -> list[str]:
    """A state snapshot: one line per fact or note, with the sentence it came from."""
    out = []
    for f in facts:
        line = f"{f.subject} {f.predicate} {f.object}"
        if f.statement and f.statement != f.object:
            line += f" | {f.statement}"
        out.append(line)
    return out


def _context_lines(ctx: Any, k: int) -> list[str]:
    """The ``k`` best items of a context, each as the line the agent reads (with its note)."""
    items = sorted(ctx.items, key=lambda i: -i.score)[:k]
    return [i.text + (f" ({i.superseded})" if i.superseded else "") for i in items]


def _row(
    sc: dict[str, Any], kind: str, label: str, lines: list[str], spec: dict, mnc: str | None = None
) -> RowResult:
    bad = list(spec.get("stale", [])) + list(spec.get("absent", []))
    ok, found, leaked, polluted = lifecycle_row(lines, spec["current"], bad, mnc)
    return RowResult(sc["id"], sc["category"], kind, label, ok, found, leaked, polluted)


def run_lifecycle(
    data: Path, *, limit: int | None = None, owner: str | None = None, mode: str = "remember"
) -> list[RowResult]:
    """Replay each scenario (``mode`` remember or session) and score every row."""
    doc = json.loads(need(data / AMB_DIR / "lifecycle_scenarios.json").read_text())
    rows: list[RowResult] = []
    for sc in doc["scenarios"][:limit]:
        first = min(_noon(e["date"]) for e in sc["events"])
        mem, clock = _open(first)
        with mem:
            if owner and mode == "session":
                mem.owner = owner
            for ev in sc["events"]:  # file order: the arrival order the scenario intends
                when = _noon(ev["date"])
                _advance(clock, when)
                if mode == "remember":
                    mem.remember(ev["text"], at=when, subject=owner)
                else:
                    mem.add_session(ev["text"], started_at=when)
            last = max(_noon(e["date"]) for e in sc["events"])
            _advance(clock, last + dt.timedelta(days=1))

            now_lines = _fact_lines(mem.facts())
            for fld, spec in sc.get("profile", {}).items():
                rows.append(_row(sc, "profile", fld, now_lines, spec))
            for cp in sc.get("checkpoints", []):
                cp_lines = _fact_lines(mem.facts(valid_at=_noon(cp["as_of"])))
                for fld, spec in cp["profile"].items():
                    rows.append(_row(sc, "checkpoint", f"{fld} @ {cp['as_of']}", cp_lines, spec))
            for p in sc.get("probes", []):
                at = _noon(p["as_of"]) if p.get("as_of") else None
                ctx = mem.context(p["query"], valid_at=at)
                spec = {"current": p["answer"], "stale": [p["stale"]] if p.get("stale") else []}
                label = p["query"] + (f" @ {p['as_of']}" if at else "")
                row = _row(
                    sc,
                    "probe",
                    label,
                    _context_lines(ctx, p.get("k", 5)),
                    spec,
                    p.get("must_not_contain"),
                )
                rows.append(row)
    return rows


def lifecycle_summary(rows: Sequence[RowResult]) -> dict[str, Any]:
    out: dict[str, Any] = {"overall": _tally(r.ok for r in rows)}
    for key in ("category", "kind"):
        groups: dict[str, list[bool]] = defaultdict(list)
        for r in rows:
            groups[getattr(r, key)].append(r.ok)
        out[f"by_{key}"] = {g: _tally(v) for g, v in sorted(groups.items())}
    out["failures"] = [f"[{r.scenario}] {r.kind} {r.label}: {r.why()}" for r in rows if not r.ok]
    return out


# -- 2. AMB v2, text mode ---------------------------------------------------------------------


def _instant(text: str | None) -> dt.datetime | None:
    if not text:
        return None
    raw = text[:-1] + "+00:00" if text.endswith("Z") else text
    when = dt.datetime.fromisoformat(raw)
    return when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)


def _same_value(obj: str, value: str) -> bool:
    """graphmem's object names ``value`` (``London office`` names ``London``)."""
    return normalize(obj) == normalize(value) or phrase_in(tokens(obj), tokens(value))


def _safe(call: Any, *args: Any, **kwargs: Any) -> list[Any]:
    from graphmem.errors import GraphmemError

    try:
        return [f for f in call(*args, **kwargs) if not is_note(f)]
    except GraphmemError:  # an entity graphmem never heard of
        return []


def _top_slot(mem: Any, question: str, subject: str | None, **when: Any) -> tuple[str, str] | None:
    """The slot of the best-ranked fact ``context(question)`` shows (about ``subject``)."""
    ctx = mem.context(question, **when)
    for item in sorted(ctx.items, key=lambda i: -i.score):
        if item.kind != "fact":
            continue
        f = mem.get_fact(item.id)
        if is_note(f):
            continue
        if subject is None or f.subject.casefold() == subject.casefold():
            return f.subject, f.predicate
    return None


def amb_answer(mem: Any, q: dict[str, Any], evaluated_at: dt.datetime) -> Answer:
    """Answer one question from graphmem's public reads; the gold is never looked at.

    The slot: the probe's subject and predicate when graphmem's ontology knows the predicate
    (``job_title`` is its ``role``); a probe predicate it does not know, or a question without
    a probe, takes the slot of the best-ranked fact ``context(question)`` shows (about the
    probe's subject). Then, as memvara's own adapter does: provenance is the ``source`` of the
    earliest version naming the value asked about; a date is that version's ``valid_from``
    (change time) or ``recorded_at`` (knowledge time); change detection is every value of
    the slot's current-knowledge history; anything else is ``facts(valid_at, known_at)``.
    """
    at = _instant(q.get("at")) or evaluated_at
    known_at = _instant(q.get("known_at"))
    past = known_at is not None or at < evaluated_at
    when = {"valid_at": at, "known_at": known_at} if past else {}
    probe = q.get("probe")
    slot: tuple[str, str] | None = None
    if probe:
        found = mem.ontology.lookup(probe[1])
        slot = (probe[0], found.name) if found else _top_slot(mem, q["question"], probe[0], **when)
    else:
        slot = _top_slot(mem, q["question"], None, **when)
    if slot is None:
        return Answer()
    subject, predicate = slot
    cat, about = q["category"], q.get("about")
    if cat == "provenance" or (cat in ("change_time", "knowledge_time") and about):
        versions = _safe(mem.history, subject, predicate, include_expired=True)
        # Every version, closed ones too: a supersession closes the old version in system
        # time and re-inserts it with its end, so the first learning is an expired row.
        named = [f for f in versions if about and _same_value(f.object, about)]
        if not named:
            return Answer()
        first = min(named, key=lambda f: (f.recorded_at, f.valid_from))
        if cat == "provenance":
            return Answer(value=first.source) if first.source else Answer()
        stamp = first.valid_from if cat == "change_time" else first.recorded_at
        return Answer(value=stamp.date().isoformat())
    if cat == "change_detection":
        hist = _safe(mem.history, subject, predicate)
        return Answer(values=tuple(dict.fromkeys(f.object for f in hist)))
    live = _safe(mem.facts, subject=subject, predicate=predicate, valid_at=at, known_at=known_at)
    objs = tuple(dict.fromkeys(f.object for f in live))
    if not objs:
        return Answer()
    return Answer(value=objs[0]) if len(objs) == 1 else Answer(values=objs)


def run_amb(data: Path, *, limit: int | None = None) -> dict[str, Any]:
    base = data / AMB_DIR
    events = [
        json.loads(x)
        for x in need(base / "amb_v2_events.jsonl").read_text().splitlines()
        if x.strip()
    ]
    questions = [
        json.loads(x)
        for x in need(base / "amb_v2_questions.jsonl").read_text().splitlines()
        if x.strip()
    ]
    meta = json.loads(need(base / "amb_v2_metadata.json").read_text())
    evaluated_at = _instant(meta["evaluated_at"])
    assert evaluated_at is not None
    by_slot, by_scenario = amb_competitors(events)
    order = sorted(events, key=lambda e: (e["recorded_at"], e["id"]))  # memvara's delivery order
    t0 = time.perf_counter()
    mem, clock = _open(_instant(order[0]["recorded_at"]))  # type: ignore[arg-type]
    writes: Counter[str] = Counter()
    with mem:
        for e in order:
            when = _instant(e["recorded_at"])
            _advance(clock, when)  # type: ignore[arg-type]
            # The text alone, said by its reporter: "I" in Alice's sentence is Alice.
            r = mem.remember(e["text"], at=when, subject=e["source"], source=e["source"])
            facts = [x.fact for x in r.results if x.fact is not None]
            writes["claims" if any(not is_note(f) for f in facts) else "note"] += 1
        ingest_s = time.perf_counter() - t0
        _advance(clock, evaluated_at)
        judged = []
        for q in questions[:limit]:
            ans = amb_answer(mem, q, evaluated_at)
            probe = tuple(q["probe"]) if q.get("probe") else None
            comp = by_slot.get(probe) if probe in by_slot else by_scenario.get(q["scenario"], ())
            ok = amb_grade(q["gold"], ans, comp or ())
            gold = q["gold"]
            expected = ", ".join(gold.get("values", [])) or gold.get("value") or "(none)"
            judged.append(
                {
                    "id": q["id"],
                    "category": q["category"],
                    "ok": ok,
                    "answer": str(ans),
                    "expected": expected,
                }
            )
    groups: dict[str, list[bool]] = defaultdict(list)
    for j in judged:
        groups[j["category"]].append(j["ok"])
    return {
        "overall": _tally(j["ok"] for j in judged),
        "by_category": {c: _tally(v) for c, v in sorted(groups.items())},
        "events": len(events),
        "events_with_claims": writes["claims"],
        "events_as_notes": writes["note"],
        "ingest_seconds": round(ingest_s, 2),
        "failures": [
            f"{j['id']} [{j['category']}]: answered {j['answer']!r}, expected {j['expected']!r}"
            for j in judged
            if not j["ok"]
        ],
    }


# -- 3. LoCoMo claim yield ----------------------------------------------------------------------


def locomo_sessions(conv: dict[str, Any]) -> list[tuple[int, dt.datetime, list[dict[str, Any]]]]:
    """``(n, started_at, turns)`` for every session of a conversation, in order."""
    out = []
    for key, turns in conv.items():
        m = re.fullmatch(r"session_(\d+)", key)
        if m and isinstance(turns, list) and turns:
            n = int(m[1])
            out.append((n, parse_locomo_date(conv[f"session_{n}_date_time"]), turns))
    return sorted(out)


def session_text(turns: Sequence[dict[str, Any]]) -> str:
    return "\n".join(f"{t['speaker']}: {t['text']}" for t in turns if t.get("text"))


def run_locomo(
    data: Path, *, limit: int | None = None, sample_out: Path = SAMPLE_OUT
) -> dict[str, Any]:
    files = sorted(need(data / LOCOMO_DIR).glob("*.json"), key=lambda p: p.stem)[:limit]
    if not files:
        raise DataMissing(f"public_text: no conversation files in {data / LOCOMO_DIR}")
    totals: Counter[str] = Counter()
    written: list[dict[str, Any]] = []
    per_conv = []
    seconds = 0.0
    for path in files:
        conv = json.loads(path.read_text())
        sessions = locomo_sessions(conv)
        mem, clock = _open(sessions[0][1])
        c: Counter[str] = Counter()
        with mem:
            for n, started, turns in sessions:
                text = session_text(turns)
                c["sessions"] += 1
                c["turns"] += len(turns)
                c["sentences"] += sum(count_sentences(t.get("text", "")) for t in turns)
                t0 = time.perf_counter()
                _advance(clock, started)
                r = mem.add_session(text, started_at=started, session_id=f"{path.stem}-{n}")
                seconds += time.perf_counter() - t0
                for x in r.results:
                    c["claims"] += 1
                    f = x.fact
                    if f is None:
                        continue
                    if is_note(f):
                        c["notes"] += 1
                        continue
                    c[f"decision_{x.decision.value}"] += 1
                    if x.decision.value != "noop":
                        c["facts_written"] += 1
                        written.append(
                            {
                                "conversation": path.stem,
                                "session": n,
                                "subject": f.subject,
                                "predicate": f.predicate,
                                "object": f.object,
                                "valid_from": f.valid_from.date().isoformat(),
                                "decision": x.decision.value,
                                "statement": f.statement,
                            }
                        )
            end = clock()
            c["facts_believed_at_end"] = sum(1 for f in mem.facts(known_at=end) if not is_note(f))
        per_conv.append({"conversation": path.stem, **c})
        totals.update(c)
    rng = random.Random(SAMPLE_SEED)
    sample = rng.sample(written, min(SAMPLE_SIZE, len(written)))
    sample_out.parent.mkdir(parents=True, exist_ok=True)
    with sample_out.open("w") as fh:
        for i, row in enumerate(sample, 1):
            fh.write(json.dumps({"n": i, **row}) + "\n")
    preds = Counter(w["predicate"] for w in written)
    return {
        "conversations": len(files),
        **{
            k: totals[k]
            for k in (
                "sessions",
                "turns",
                "sentences",
                "claims",
                "notes",
                "facts_written",
                "facts_believed_at_end",
            )
        },
        "decisions": {k[9:]: v for k, v in sorted(totals.items()) if k.startswith("decision_")},
        "claims_per_turn": round(totals["claims"] / totals["turns"], 3) if totals["turns"] else 0,
        "facts_per_turn": round(totals["facts_written"] / totals["turns"], 3)
        if totals["turns"]
        else 0,
        "seconds": round(seconds, 2),
        "sentences_per_s": round(totals["sentences"] / seconds) if seconds else None,
        "top_predicates": dict(preds.most_common(12)),
        "sample_file": str(sample_out),
        "sample_size": len(sample),
        "per_conversation": per_conv,
    }


# -- CLI ----------------------------------------------------------------------------------------


def _print_lifecycle(res: dict[str, Any], failures: bool = False) -> None:
    print(f"\n## Lians lifecycle (owner: {res['owner']})\n")
    modes = list(res["modes"])
    print("| rows | " + " | ".join(modes) + " |")
    print("|---|" + "---|" * len(modes))
    first = res["modes"][modes[0]]
    keys = (
        [("overall", None)]
        + [(k, "by_category") for k in first["by_category"]]
        + [(k, "by_kind") for k in first["by_kind"]]
    )
    for key, group in keys:
        cells = []
        for m in modes:
            t = res["modes"][m]["overall"] if group is None else res["modes"][m][group][key]
            cells.append(pct(t["passed"], t["total"]))
        print(f"| {key} | " + " | ".join(cells) + " |")
    for m in modes if failures else ():
        for f in res["modes"][m]["failures"]:
            print(f"  {m} FAIL {f}")


def _print_amb(res: dict[str, Any], failures: bool = False) -> None:
    print("\n## AMB v2, text mode\n")
    print("| category | graphmem |\n|---|---|")
    for c, t in res["by_category"].items():
        print(f"| {c} | {pct(t['passed'], t['total'])} |")
    o = res["overall"]
    print(f"| **overall** | **{pct(o['passed'], o['total'])}** |")
    print(
        f"\n{res['events']} events: {res['events_with_claims']} read as claims, "
        f"{res['events_as_notes']} kept as notes; ingest {res['ingest_seconds']} s"
    )
    for f in res["failures"] if failures else ():
        print(f"  FAIL {f}")


def _print_locomo(res: dict[str, Any], failures: bool = False) -> None:
    print("\n## LoCoMo claim yield\n")
    print(
        "| conversations | sessions | turns | sentences | claims | facts written | notes | "
        "claims/turn | facts/turn | s | sentences/s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    r = res
    print(
        f"| {r['conversations']} | {r['sessions']} | {r['turns']:,} | {r['sentences']:,} | "
        f"{r['claims']:,} | {r['facts_written']:,} | {r['notes']:,} | {r['claims_per_turn']} | "
        f"{r['facts_per_turn']} | {r['seconds']} | {r['sentences_per_s']} |"
    )
    print(f"\ndecisions: {r['decisions']}; believed at end: {r['facts_believed_at_end']:,}")
    print(f"top predicates: {r['top_predicates']}")
    print(f"sample of {r['sample_size']} written facts: {r['sample_file']}")


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.public_text", description=__doc__.split("\n")[0]
    )
    ap.add_argument("set", choices=["lifecycle", "amb", "locomo", "all"])
    ap.add_argument(
        "--limit",
        type=int,
        default=None,
        help="first N scenarios (lifecycle), questions (amb) or conversations (locomo)",
    )
    ap.add_argument("--json", action="store_true", help="write the figures to stdout as JSON")
    ap.add_argument(
        "--owner-subject",
        default=None,
        metavar="NAME",
        help="the owner 'I'/'my' stand for in lifecycle (remember(subject=NAME))",
    )
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"default {DEFAULT_DATA}")
    ap.add_argument("--sample-out", type=Path, default=SAMPLE_OUT, help=f"default {SAMPLE_OUT}")
    ap.add_argument("--show-failures", action="store_true", help="print every failed row")
    a = ap.parse_args(argv)
    need(a.data)
    out: dict[str, Any] = {"date": dt.date.today().isoformat()}
    sets = ["lifecycle", "amb", "locomo"] if a.set == "all" else [a.set]
    for s in sets:
        t0 = time.perf_counter()
        if s == "lifecycle":
            res = {"owner": a.owner_subject or "self (default)", "modes": {}}
            for mode in ("remember", "session"):
                rows = run_lifecycle(a.data, limit=a.limit, owner=a.owner_subject, mode=mode)
                res["modes"][mode] = lifecycle_summary(rows)
        elif s == "amb":
            res = run_amb(a.data, limit=a.limit)
        else:
            res = run_locomo(a.data, limit=a.limit, sample_out=a.sample_out)
        res["wall_seconds"] = round(time.perf_counter() - t0, 1)
        out[s] = res
        if not a.json:
            {"lifecycle": _print_lifecycle, "amb": _print_amb, "locomo": _print_locomo}[s](
                res, a.show_failures
            )
            print(f"({s}: {res['wall_seconds']} s)", file=sys.stderr)
    if a.json:
        json.dump(out, sys.stdout, indent=2, default=str)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
