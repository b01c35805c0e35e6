"""Three readings of one fact slot: true now, true then as we now know, believed then.

See docs/concepts/time.md#three-readings and docs/concepts/decisions.md#authority-and-disputes.

:func:`explain` answers, for a subject and predicate and a date ``at``:

- ``now``: what is true now, as we know now (``valid_at = known_at = now``);
- ``then``: what we now know was true at ``at`` (``valid_at = at``, ``known_at = now``);
- ``believed``: what we believed at ``at`` was true then (``valid_at = known_at = at``).

Each reading is a list of versions with who said them (source, source type, confidence).
Open disputes about the slot are listed apart (they are never part of a reading).

>>> import graphmem as gm
>>> from graphmem.timeutil import ManualClock
>>> clock = ManualClock("2026-01-01")
>>> mem = gm.open(clock=clock)
>>> _ = mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01", source_type="tool")
>>> clock.set("2026-06-10")
>>> _ = mem.add_fact("api", "runs_on", "Go", valid_from="2025-06-01", source_type="user")
>>> print(mem.explain("api", "runs_on", at="2026-03-01"))  # doctest: +NORMALIZE_WHITESPACE
api runs_on at 2026-03-01
  now:      'Go' [2025-06-01, open) by user, learned 2026-06-10
  then:     'Go' [2025-06-01, open) by user, learned 2026-06-10
  believed: 'Laravel' [2024-01-01, open) by tool, learned 2026-01-01
>>> mem.close()
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ConfigDict

from graphmem.kernel import kernel_of
from graphmem.models import Fact
from graphmem.timeutil import TimeLike, fmt, to_utc

if TYPE_CHECKING:
    from graphmem.kernel import MemoryLike

__all__ = ["Readings", "explain", "provenance"]


def provenance(f: Fact) -> str:
    """Who said a version, as words: ``by user, confidence 0.8, from session s-1``."""
    parts = []
    if f.source_type:
        parts.append(f"by {f.source_type}")
    if f.confidence != 1.0:
        parts.append(f"confidence {f.confidence:g}")
    if f.source:
        parts.append(f"from session {f.source}")
    return ", ".join(parts)


def _interval(f: Fact) -> str:
    return f"[{fmt(f.valid_from)}, {fmt(f.valid_to) if f.valid_to else 'open'})"


def _version(f: Fact) -> str:
    said = provenance(f)
    return f"{f.object!r} {_interval(f)}{' ' + said if said else ''}, learned {fmt(f.recorded_at)}"


def _dumped(f: Fact) -> dict[str, Any]:
    return f.model_dump(mode="json")


class Readings(BaseModel):
    """The three readings of ``subject predicate`` at ``at`` (:func:`explain`).

    Attributes:
        subject, predicate: the slot, as resolved.
        at: the date asked about.
        asked_at: when the question was asked (the "now" of ``now`` and ``then``).
        now: versions true now, as known now.
        then: versions true at ``at``, as known now.
        believed: versions true at ``at``, as known at ``at``.
        disputed: open disputes about the slot (never part of a reading).
    """

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    subject: str
    predicate: str
    at: dt.datetime
    asked_at: dt.datetime
    now: tuple[Fact, ...]
    then: tuple[Fact, ...]
    believed: tuple[Fact, ...]
    disputed: tuple[Fact, ...] = ()

    def describe(self) -> str:
        """The readings as lines of text."""
        out = [f"{self.subject} {self.predicate} at {fmt(self.at)}"]
        for name in ("now", "then", "believed"):
            rows: tuple[Fact, ...] = getattr(self, name)
            label = f"{name}:".ljust(9)
            if not rows:
                out.append(f"  {label} nothing")
            for i, f in enumerate(rows):
                out.append(f"  {label if i == 0 else ' ' * 9} {_version(f)}")
        for d in self.disputed:
            out.append(f"  disputed: {_version(d)}")
        return "\n".join(out)

    def __str__(self) -> str:
        return self.describe()

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the CLI's ``--json`` and the MCP tool)."""
        return {
            "subject": self.subject,
            "predicate": self.predicate,
            "at": self.at.isoformat(),
            "asked_at": self.asked_at.isoformat(),
            "now": [_dumped(f) for f in self.now],
            "then": [_dumped(f) for f in self.then],
            "believed": [_dumped(f) for f in self.believed],
            "disputed": [_dumped(f) for f in self.disputed],
        }


def explain(mem: MemoryLike, subject: str, predicate: str, *, at: TimeLike) -> Readings:
    """Return the three readings of ``subject predicate`` at ``at`` (see the module).

    Raises:
        InvalidInput: bad names or date.
    """
    from graphmem.trust import disputes

    k = kernel_of(mem)
    when = to_utc(at, name="at")
    pred = k.ontology.resolve(predicate).name
    with k.lock:
        now = k.now()

        def read(valid_at: dt.datetime, known_at: dt.datetime) -> tuple[Fact, ...]:
            return tuple(
                k.subject_facts(subject, predicate=pred, valid_at=valid_at, known_at=known_at)
            )

        found = [d for d in disputes(k, subject=subject) if d.predicate == pred]
        name = k.store.entity_names([k.entity_id(subject)]).get(k.entity_id(subject), subject)
        return Readings(
            subject=name,
            predicate=pred,
            at=when,
            asked_at=now,
            now=read(now, now),
            then=read(when, now),
            believed=read(when, when),
            disputed=tuple(found),
        )
