"""Open claims of the parse into the reader's claims (docs/concepts/text.md#the-parser).

The reader's names are used: who "we", "she" and "it" are, and how a value is cleaned. The
parse's reading of a move takes the place of a rule's when it names the moved thing better.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from graphmem.text.claims import Claim, as_plan
from graphmem.text.parse_words import _PRONOUNS

if TYPE_CHECKING:
    from graphmem.text.parse import Open


#: Relations the rule forms read as the thing's ``owner`` ("Grace owns billing").
_OWNS = frozenset({"owns", "maintains", "handles"})


def to_claims(
    reader: Any,
    opens: Sequence[Open],
    speaker: str | None,
    sentence: str,
    valid_from: Any = None,
    valid_to: Any = None,
) -> list[Claim]:
    """Turn open claims into :class:`~graphmem.text.claims.Claim` s with the reader's names.

    ``reader`` is the sentence reader of the text (it knows who "we", "she" and "it" are and
    cleans values); a claim whose subject or value it cannot use is dropped.
    """
    out: list[Claim] = []
    for o in opens:
        value = o.object
        if value is not None and value.casefold() in _PRONOUNS:
            value = reader.subject(value, speaker)  # "they are no longer a customer"
        value = reader.value(value) if value is not None else None
        if o.object is not None and value is None:
            continue
        if o.object_is_subject or o.subject is None:
            subject: str | None = reader.first_person(speaker)
        else:
            subject = reader.subject(o.subject, speaker)
        if not subject:
            continue
        relation = o.relation
        if relation in _OWNS and value is not None and not o.change:
            # "Jun owns design QA sign-off": the thing's owner, as the rule forms read it
            thing = reader.subject(value, speaker)
            if not thing:
                continue
            subject, relation, value = thing, "owner", subject
        replaces = reader.value(o.replaces) if o.replaces else None
        hint = None
        if o.moved and value is not None:
            from graphmem.text.rules.change import _hint  # the rule forms' own hint

            hint = _hint("moved", subject, value, reader)  # "is moving to Montreal": lives_in
        claim = as_plan(
            Claim(
                subject,
                relation,
                value,
                polarity=o.polarity,
                valid_from=valid_from,
                valid_to=valid_to if o.polarity else None,
                replaces=replaces,
                change=o.change,
                hint=hint,
                many=o.many,
                sentence=sentence,
            )
        )
        out.append(claim)
        reader.note_subject(claim)
    return out


def names_key(name: str) -> str:
    """How two names of one value compare here: case and spacing aside."""
    return " ".join(name.casefold().split())


def better_move(rule: Claim, moves: list[Claim], owner: str) -> Claim:
    """The parse's reading of the move a rule change claim read, if it read it otherwise."""
    if not (rule.polarity and rule.object and rule.predicate is None):
        return rule
    value, thing = names_key(rule.object), names_key(rule.subject).split()
    for m in moves:
        if (  # "we switched to Linear for issue tracking": the owner's slot the parse names
            rule.subject == owner
            and rule.replaces is None
            and m.subject != owner
            and m.object is not None
            and names_key(m.object) == value
        ):
            return replace(m, valid_from=rule.valid_from or m.valid_from)
        words = names_key(m.subject).split()
        # "the on-call pager moves to X": the patterns read "pager", the parse the whole name
        longer = (
            m.object is not None
            and names_key(m.object) == value
            and len(words) > len(thing)
            and words[-len(thing) :] == thing
        )
        # "we moved everything in prod to X": the patterns took the thing for the value
        swapped = rule.replaces is None and names_key(m.subject) == value
        if longer or swapped:
            return replace(m, valid_from=rule.valid_from or m.valid_from)
    return rule
