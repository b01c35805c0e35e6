"""Planning a free-text note (docs/concepts/decisions.md#rule-5): pure functions.

:func:`plan_note` plans writing a note against the current versions of its subject, by
:func:`graphmem.contradiction.decide_text`; :func:`negated_topic` is what a negating text is
compared as. The write itself (a unit of work on a kernel) is :mod:`graphmem.remember`'s,
which re-exports these names; the text pipeline plans its notes here too.
"""

from __future__ import annotations

from collections.abc import Sequence

from graphmem.contradiction import decide_text, normalize_text
from graphmem.models import Decision, Fact
from graphmem.similarity import Similarity, nearest
from graphmem.temporal import Close, Plan, plan_retract, shortened
from graphmem.timeutil import fmt

__all__ = ["NOTE", "negated_topic", "plan_note"]

#: The predicate of free-text memories (multi-valued, defined in the default ontology).
NOTE = "note"


def _text_of(note: Fact) -> str:
    return note.statement if note.statement is not None else note.object


def _quote(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 1] + "…")


def negated_topic(text: str) -> str:
    """What a negating text negates, for comparing it with notes; other texts unchanged.

    >>> negated_topic("The weekly demo no longer happens on Fridays")
    'The weekly demo happens on Fridays'
    >>> negated_topic("The demo happens on Fridays")
    'The demo happens on Fridays'
    """
    from graphmem.contradiction import negates
    from graphmem.text.cleanup import denegate

    if not negates(text):
        return text
    positive, _ = denegate(text.replace("’", "'").replace("n't", " not"))
    return positive or text


def plan_note(new: Fact, current: Sequence[Fact], *, similarity: Similarity) -> Plan:
    """Plan writing the note ``new`` against the current versions of its subject.

    Pure: only the subject's current ``note`` versions still valid at or after
    ``new.valid_from`` are candidates.

    Args:
        new: the proposed note (``object`` and ``statement`` hold the text; its
            ``recorded_at`` is the write's system time and ``valid_from`` is ``at``).
        current: current versions (not closed in system time) of the same subject.
        similarity: scores the new text against each candidate.

    Returns:
        The plan; its decision follows :func:`graphmem.contradiction.decide_text`.
    """
    now, at = new.recorded_at, new.valid_from
    text = _text_of(new)
    notes = [
        v
        for v in current
        if v.predicate == new.predicate and (v.valid_to is None or v.valid_to > at)
    ]
    chosen: tuple[Fact, float] | None
    if new.source_ref:
        same = [v for v in notes if v.source_ref == new.source_ref]
        chosen = nearest(text, [(_text_of(v), v) for v in same], similarity)
        if chosen is not None and normalize_text(_text_of(chosen[0])) == normalize_text(text):
            return Plan(Decision.NOOP, chosen[0], reinforce=[chosen[0]])
        decision = decide_text(
            text,
            None if chosen is None else (_text_of(chosen[0]), chosen[1]),
            source_ref=new.source_ref,
            nearest_source_ref=None if chosen is None else chosen[0].source_ref,
        )
    else:
        # nearest() stops at the first 1.0 (equal normalised text scores 1.0 by contract).
        # A negating text is compared as what it negates: "the demo no longer happens on
        # Fridays" is about "the demo happens on Fridays" (the cue itself is not the topic).
        chosen = nearest(negated_topic(text), [(_text_of(v), v) for v in notes], similarity)
        decision = decide_text(text, None if chosen is None else (_text_of(chosen[0]), chosen[1]))

    if chosen is None or decision is Decision.ADD:
        return Plan(Decision.ADD, new, inserts=[new])
    old, score = chosen
    if decision is Decision.NOOP:
        return Plan(Decision.NOOP, old, reinforce=[old])
    learned = f"learned {fmt(now)}" + (f" from session {new.source}" if new.source else "")
    why = f"through source_ref {new.source_ref!r}" if new.source_ref else f"similarity {score:.2f}"
    if decision is Decision.INVALIDATE:
        # End the note at `at`; a note that starts later is closed without replacement.
        return plan_retract(
            [old],
            at=max(at, old.valid_from),
            now=now,
            reason=f"negated by {_quote(text)} ({why}), {learned}",
        )
    reason = f"superseded by note {_quote(text)} ({why}), {learned}"
    inserts = [shortened(old, at, now)] if old.valid_from < at else []
    return Plan(Decision.SUPERSEDE, new, [Close(old, new.id, reason)], [*inserts, new])
