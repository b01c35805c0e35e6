"""``graphmem demo``: replay careers and marriages the way the world learned them.

The bundled sample (:func:`graphmem.datasets.sample`) holds a few well-known scientists, written
from public knowledge, and a few hundred invented people.

Each fact is learned when it starts (open-ended: nobody knew yet when it would end), and its end
is learned when it ends, in one batch a decade (:data:`DEMO_YEARS`). The system clock is set to
each batch's day (a backfill through ``gm.open(clock=...)``), so the store holds real belief
revisions: on the eve of a move learned late we believed the old employer was still current.

The demo defines the predicates it loads (:data:`graphmem.datasets.SAMPLE_PREDICATES`, with
YAGO11k's labels as aliases) through ``Memory.define_predicate``, as a user would: it does not
rely on the shipped ontology, and works in a memory opened with ``ontology=None``.
"""

from __future__ import annotations

import datetime as dt
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from graphmem.datasets import SAMPLE_PREDICATES, TemporalFact, define_predicates, sample
from graphmem.errors import InvalidInput
from graphmem.memory import Memory
from graphmem.timeutil import fmt

__all__ = ["DEMO_YEARS", "DemoReport", "demo_schedule", "learning_schedule", "run_demo"]

#: Years a batch of the demo spans: a decade is 18 commits on the sample instead of 154 yearly
#: ones, the same decisions, and the demo in about 2 s (docs/benchmarks.md#the-demo).
DEMO_YEARS = 10


@dataclass
class DemoReport:
    """What the demo did, for printing and for tests."""

    facts: int
    writes: int
    versions: int
    decisions: dict[str, int]
    seconds: float
    lines: list[str]


def learning_schedule(
    facts: Iterable[TemporalFact], *, years: int = 1
) -> list[tuple[dt.datetime, list[dict[str, object]]]]:
    """Group facts into write batches of ``years`` years by when each piece became known.

    Returns:
        ``(system time, add_facts rows)`` pairs in chronological order: a fact is asserted
        open-ended at its start, and re-asserted with its end at its end (rule 5: an end where
        there was none is news). Within a batch, rows are in world-time order.
    """
    if years < 1:
        raise InvalidInput(
            f"years={years!r}: a batch spans at least one year; pass years=1 or more"
        )
    events: list[tuple[dt.datetime, dict[str, object]]] = []
    for f in facts:
        row = {
            "subject": f.subject,
            "predicate": f.predicate,
            "object": f.object,
            "valid_from": f.start,
            "source": "sample",
        }
        events.append((f.start, row))
        if f.end is not None:
            events.append((f.end, {**row, "valid_to": f.end}))
    by_span: dict[int, list[tuple[dt.datetime, dict[str, object]]]] = defaultdict(list)
    for when, row in sorted(events, key=lambda e: e[0]):
        by_span[when.year // years].append((when, row))
    # One batch per span, learned on its last event day (a periodic backfill).
    return [(batch[-1][0], [row for _, row in batch]) for _, batch in sorted(by_span.items())]


def _pick_revision(mem: Memory) -> tuple[str, dt.datetime] | None:
    """Find a works_at belief that was revised: (subject, the day we learned the change)."""
    # Every version of one predicate, closed ones included: no public call returns that.
    for f in mem._store.query_facts(predicate="works_at"):  # noqa: SLF001
        if f.expired_at and f.valid_to is None and f.reason and "superseded" in f.reason:
            return f.subject, f.expired_at
    return None


def demo_schedule() -> list[tuple[dt.datetime, list[dict[str, object]]]]:
    """The bundled sample's learning schedule, a batch a decade (:func:`learning_schedule`)."""
    return learning_schedule(sample(), years=DEMO_YEARS)


def run_demo(
    mem: Memory,
    set_clock: Callable[[dt.datetime], None],
    *,
    schedule: list[tuple[dt.datetime, list[dict[str, object]]]] | None = None,
    progress: Callable[[int], None] | None = None,
) -> DemoReport:
    """Load the bundled sample into ``mem`` and compute the answers the demo prints.

    The sample's predicates (:data:`~graphmem.datasets.SAMPLE_PREDICATES`) are defined first.

    Args:
        mem: an empty memory whose clock is driven by ``set_clock``.
        set_clock: sets the system time used for the next write (a backfill).
        schedule: the batches to write (default :func:`demo_schedule`).
        progress: called with the number of facts written after each batch.
    """
    rows = sample()
    schedule = demo_schedule() if schedule is None else schedule
    t0 = time.perf_counter()
    decisions: Counter[str] = Counter()
    writes = 0
    if schedule:
        set_clock(schedule[0][0])
    define_predicates(mem, SAMPLE_PREDICATES)
    for day, batch in schedule:
        set_clock(day)
        for result in mem.add_facts(batch):
            decisions[result.decision.value] += 1
        writes += len(batch)
        if progress:
            progress(len(batch))
    load_s = time.perf_counter() - t0
    lines = [
        f"Loaded {len(rows):,} facts ({writes:,} writes in {len(schedule):,} system-time "
        f"batches) in {load_s:.2f} s: {writes / load_s:,.0f} writes/s with contradiction "
        f"resolution; {mem.count_versions():,} versions stored.",
        "Decisions: " + ", ".join(f"{k} {v:,}" for k, v in sorted(decisions.items())),
        "",
    ]
    # 1. As-of answers on the valid-time axis.
    busiest = Counter(f.subject for f in rows if f.predicate == "works_at").most_common(1)[0][0]
    busiest = "Albert Einstein" if any(f.subject == "Albert Einstein" for f in rows) else busiest
    lines.append(f"Where did {busiest} work? (valid time, as known today)")
    for f in mem.history(busiest, "works_at"):
        lines.append(
            f"  {fmt(f.valid_from)} → {fmt(f.valid_to) if f.valid_to else 'now'}: {f.object}"
        )
    married = [f for f in rows if f.predicate == "married_to"]
    probe = married[len(married) // 2]
    on = probe.start + dt.timedelta(days=400)
    answer = [
        f.object for f in mem.facts(subject=probe.subject, predicate="married_to", valid_at=on)
    ]
    lines.append(
        f"Who was {probe.subject} married to on {fmt(on)}? {', '.join(answer) or 'nobody recorded'}"
    )
    lines.append("")
    # 2. A belief that changed between two system dates.
    found = _pick_revision(mem)
    if found:
        subject, learned = found
        before = learned - dt.timedelta(days=1)
        old = mem.facts(subject=subject, predicate="works_at", valid_at=learned, known_at=before)
        new = mem.facts(subject=subject, predicate="works_at", valid_at=learned, known_at=learned)
        lines.append(f"What did we believe about {subject}'s employer on {fmt(learned)}?")
        lines.append(
            f"  as believed on {fmt(before)}: {', '.join(f.object for f in old) or 'nothing'}"
        )
        lines.append(
            f"  as known on {fmt(learned)}:    {', '.join(f.object for f in new) or 'nothing'}"
        )
        closed = [
            f
            for f in mem.history(subject, "works_at", include_expired=True)
            if f.expired_at == learned and f.reason
        ]
        if closed:
            lines.append(f"  why: {closed[0].reason}")
    total = time.perf_counter() - t0
    return DemoReport(len(rows), writes, mem.count_versions(), dict(decisions), total, lines)
