"""Open claims of one parsed sentence, with what words joined by "and" share.

:func:`open_claims` reads each verb's clause (:mod:`graphmem.text.parse`), then the claims the
joined words make: a second subject and value that leave the verb out ("metrics are in
Prometheus, dashboards in Grafana"), nouns joined to the subject ("Invoices and receipts are
stored in S3") and values joined to the value ("alerts go to Slack and PagerDuty")
(docs/concepts/text.md#coordinated-subjects).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from graphmem.text.parse import (
    Open,
    Token,
    _children,
    _clause,
    _indefinite,
    _is_pronoun,
    _named,
    _subject,
    _subject_text,
    _value_preps,
    _verbs,
    phrase,
)
from graphmem.text.parse_words import _NOUNS, _SUBJECTS

__all__ = ["open_claims"]


def open_claims(sentence: Sequence[Token]) -> list[Open]:
    """Return the open claims of one parsed sentence (a span of tokens), in order.

    A question reads nothing.
    """
    tokens = list(sentence)
    if not tokens or any(t.text == "?" for t in tokens):
        return []
    out: list[Open] = []
    for verb in _verbs(tokens):
        found = _clause(verb)
        out.extend(found)
        out.extend(_gapped(verb, found))
        out.extend(_coordinated(verb, found))
        out.extend(_joined_values(verb, found))
    return out


def _joined_values(verb: Token, found: list[Open]) -> list[Open]:
    """The other values joined to a claim's value by "and": "hosted by Nadia and Leo".

    Only for a claim that is no change or ending, and each copy holds many values
    (docs/concepts/text.md#coordinated-subjects).
    """
    out: list[Open] = []
    for o in found:
        if o.change or not o.polarity or o.object is None or o.replaces:
            continue
        heads = [
            t
            for t in verb.subtree
            if t.dep_ in ("pobj", "dobj", "attr", "oprd") and phrase(t) == o.object
        ]
        if len(heads) != 1:
            continue
        joined = [phrase(t) for t in _joined(heads[0])]
        if joined:
            out += [replace(o, object=v, many=True) for v in joined]
    return out


def _coordinated(verb: Token, found: list[Open]) -> list[Open]:
    """The same claims of every noun joined to the subject by "and".

    "Purchase orders and vendor onboarding are handled by Rafael": vendor onboarding is too
    (docs/concepts/text.md#coordinated-subjects). A pronoun joined ("Tom and I") is left out.
    """
    subj = _subject(verb)
    if subj is None or not found:
        return []
    subject = _subject_text(verb, subj)
    if subject not in {o.subject for o in found}:
        return []
    out: list[Open] = []
    for conj in _joined(subj):
        out += [replace(o, subject=phrase(conj)) for o in found if o.subject == subject]
    return out


#: The words that join values that all hold ("A, B and C"); "or", "instead", "but" do not.
_JOINERS = frozenset({"and", ","})  # "Saffron & Smoke" is one name


def _joined(head: Token) -> list[Token]:
    """The nouns joined to ``head`` by "and" or a comma, in order; none after "or", "instead"."""
    out = []
    stack = _children(head, "conj")
    while stack:
        conj = stack.pop(0)
        between = head.doc[head.i + 1 : conj.i]
        if any(t.lower_ not in _JOINERS and t.dep_ in ("cc", "preconj", "advmod") for t in between):
            break  # "Brex instead of Chase", "Go or Rust", "A but not B"
        stack += _children(conj, "conj")
        if conj.pos_ in _NOUNS and not _is_pronoun(conj.text):
            out.append(conj)
    return out


def _gapped(verb: Token, found: list[Open]) -> list[Open]:
    """A second subject and value that leave the verb out, read with the verb.

    "our metrics are in Prometheus, dashboards in Grafana": the dashboards are in Grafana.
    """
    if len(found) != 1 or found[0].change or not found[0].polarity or not found[0].relation:
        return []
    preps = {w for w, _ in _value_preps(verb)}
    out = []
    for conj in _children(verb, "conj"):
        if conj.pos_ not in _NOUNS or _children(conj, *_SUBJECTS):
            continue
        for prep in _children(conj, "prep"):
            objs = _children(prep, "pobj")
            if prep.lower_ in preps and objs and _named(objs[0]) and not _indefinite(objs[0]):
                out.append(replace(found[0], subject=phrase(conj), object=phrase(objs[0])))
    return out
