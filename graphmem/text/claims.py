"""Claims from one sentence: who, what relation, which value, asserted or ended, since when.

Pure rules over strings (standard library only; the tokenizer and sentence splitter live in
:mod:`graphmem.text.nlp`). Each sentence is read in five steps:

1. **Clean-up**: a speaker prefix (``user:``) is removed, leading discourse words ("fyi",
   "btw", "quick update") are dropped, contractions are expanded; "Correction:" and
   "actually" mark a correction.
2. **Modality**: a question, plan, wish, conditional or hypothesis ("should we move to Rust?",
   "we plan to move to AWS", "if we switched to Go") and reported history ("he used to work
   at Oracle") give no claim, so they can never supersede anything.
3. **Dates** are read and taken out of the sentence (:mod:`graphmem.text.dates`).
4. **Negation** ("no longer", "isn't ... anymore", "stopped using", "does not") is taken out
   too and remembered as the clause's polarity.
5. **Clauses** ("Alice left Acme and joined Globex") are matched against the rules below, in
   order; the first rule that matches a clause gives its claims.

The rules and their order are listed in :mod:`graphmem.text.rules`; the clean-up lives in
:mod:`graphmem.text.cleanup`, the modality in :mod:`graphmem.text.modality`, and the reader
that keeps the subjects and pronouns of a text in :mod:`graphmem.text.reader`.

A change statement that does not say which relation it changes carries ``predicate=None``;
:mod:`graphmem.text.resolve` finds the relation in the graph, or keeps the text as a note.

>>> from graphmem.text.claims import read_sentence
>>> said = read_sentence("Alice left Acme and joined Globex.")
>>> [(c.subject, c.predicate, c.object, c.polarity) for c in said]
[('Alice', None, 'Acme', False), ('Alice', 'works_at', 'Globex', True)]
>>> said = read_sentence("We migrated the API to Go.")
>>> [(c.subject, c.predicate, c.object, c.replaces) for c in said]
[('API', None, 'Go', None)]
>>> read_sentence("Should we move the API to Rust?")
[]
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from graphmem.text import lexicon

if TYPE_CHECKING:
    from graphmem.text.reader import Reader

__all__ = ["OWNER", "Claim", "Reader", "as_plan", "read_sentence"]

#: The placeholder subject of first-person statements ("we", "our", "I"); the writer maps it to
#: the memory's owner subject (``"self"`` by default).
OWNER = "self"


@dataclass(frozen=True)
class Claim:
    """One statement a sentence makes about the world.

    Attributes:
        subject: who or what it is about (``OWNER`` for "we"/"our"/"I").
        predicate: the relation, or ``None`` for a change statement that does not name it
            ("we migrated the API to Go"): resolved against the graph before writing.
        object: the value, or ``None`` for "ended, whatever the value" ("Alice doesn't work
            there anymore").
        polarity: ``True`` asserts, ``False`` ends the fact.
        valid_from: when it became true (or stopped, for an end), if the text says.
        valid_to: when it stops being true, if the text says.
        replaces: the old value a change statement names ("replaced Jenkins with ...").
        change: the sentence states a change ("migrated", "is the new", "is now").
        hint: the relation a change most likely means when the graph cannot tell ("Alice
            moved to Berlin": lives_in).
        correction: "Correction: ..." or "actually ...": the new value replaces the old one
            from the old one's start (the old belief was wrong, not outdated).
        also: "also", "too", "as well": an addition that never supersedes.
        now: "now" or "instead" (a value that takes the place of one ended just before).
        many: a relation the memory does not know yet holds many values ("talks to").
        together: another value of the same slot, given by the same sentence after one
            ("built on FastAPI and runs on Uvicorn"): it closes none of them.
        sentence: the sentence it came from.
        fallback: a reading the parse's takes the place of when it has one ("Tier is 1":
            the parse's ``tier``; "Emma is 8": this claim, placed by Emma's slots).
    """

    subject: str
    predicate: str | None
    object: str | None
    polarity: bool = True
    valid_from: dt.datetime | None = None
    valid_to: dt.datetime | None = None
    replaces: str | None = None
    change: bool = False
    hint: str | None = None
    correction: bool = False
    also: bool = False
    now: bool = False
    many: bool = False
    together: bool = False
    sentence: str = ""
    fallback: bool = False


def as_plan(c: Claim) -> Claim:
    """A claim whose value is a subscription plan or tier is the subject's ``plan``.

    "Acme Corp signed up on the free plan", "we're on the Team plan", "our account moved to
    the Business tier", "Vandelay is on Enterprise" (a tier's bare name): whatever verb said
    it (docs/concepts/text.md#plans). A relation that names a plan already ("billing_plan") is
    the user's word and stays.
    """
    if not (c.polarity and c.object):
        return c
    if c.predicate == "runs_on" and c.object.casefold() in lexicon.TIERS:
        return replace(c, predicate="plan")  # "Vandelay is on Enterprise"
    if not lexicon.plan_tier(c.object):
        return c
    if c.predicate is None:
        return replace(c, hint="plan")
    if re.search(r"(?i)plan|tier", c.predicate):
        return c
    return replace(c, predicate="plan")


def read_sentence(
    sentence: str, *, at: dt.datetime | None = None, owner: str = OWNER
) -> list[Claim]:
    """Return the claims of one sentence read on its own (no pronoun context).

    Args:
        sentence: one sentence.
        at: the time it speaks from (default now).
        owner: the subject of first-person statements.
    """
    from graphmem.text.reader import Reader  # the reader imports the rules, which import Claim

    reader = Reader(at=at or dt.datetime.now(dt.timezone.utc), owner=owner)
    return reader.read(sentence)


def __getattr__(name: str) -> object:
    """``Reader`` lives in :mod:`graphmem.text.reader` (imported here on first use)."""
    if name == "Reader":
        from graphmem.text.reader import Reader

        return Reader
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
