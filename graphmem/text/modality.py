"""Modality: which sentences and clauses state nothing (questions, plans, hypotheses, history).

A question, plan, wish, conditional or hypothesis ("should we move to Rust?", "we plan to move
to AWS", "if we switched to Go") and reported history ("he used to work at Oracle") give no
claim, so they can never supersede anything.
"""

from __future__ import annotations

import re

from graphmem.text import lexicon

__all__ = ["sentence_skipped", "skipped"]

_WORD = re.compile(r"[\w'+#.-]*\w[+#]*|[+#]+")


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


_CONDITIONAL_START = frozenset(
    """if unless when whenever whether suppose supposing imagine assuming hypothetically once
    maybe perhaps""".split()  # noqa: SIM905
)


def sentence_skipped(text: str) -> str | None:
    """Why a whole sentence gives no claim: a question or a conditional; else ``None``.

    Cues inside one clause (a plan, a hedge, history) skip only that clause
    (:func:`skipped`): "Kwame left Deloitte and is taking time off before deciding what's next"
    still says that he left.
    """
    low = text.casefold().strip()
    if low.endswith("?"):
        return "question"
    words = _words(low)
    if not words:
        return "empty"
    if words[0] in _CONDITIONAL_START or " ".join(words[:2]) in ("what if", "in case"):
        return "conditional"
    if words[0] in _QUESTION_START:
        return "question"
    return None


#: Cue words that are also a thing's name when they head a subject ("the proposal is ...").
_NOUN_CUES = frozenset(["planning", "proposal", "trial", "prototype", "debate"])
_QUESTION_START = frozenset(
    """should shall could would can do does did is are was were will what why how when where
    who which whom whose have has any anyone anybody""".split()  # noqa: SIM905
)


def skipped(text: str) -> str | None:
    """Say why a sentence gives no claim (question, plan, hypothesis, history), else ``None``.

    >>> skipped("we should move to Rust"), skipped("He used to work at Oracle")
    ('hypothetical', 'history')
    >>> skipped("We moved to Rust") is None, skipped("Weekly planning is Mondays") is None
    (True, True)
    """
    low = text.casefold().strip()
    if low.endswith("?"):
        return "question"
    words = _words(low)
    if not words:
        return "empty"
    # A capitalised word inside the sentence is a name ("Hope House", "Will Smith"), not a cue.
    said = _WORD.findall(text.strip())
    cues = [w.casefold() for i, w in enumerate(said) if i == 0 or not w[:1].isupper()]
    # "Weekly planning is Mondays at 10:00": a cue that heads the subject is a thing's name
    head = next((i for i, w in enumerate(said[:4]) if w.casefold() in ("is", "are")), 0) - 1
    if head >= 0 and said[head].casefold() in _NOUN_CUES:
        cues.remove(said[head].casefold())
    if any(w in lexicon.HYPOTHETICAL for w in cues):
        return "hypothetical"
    padded = f" {' '.join(words)} "
    if any(f" {p} " in padded for p in lexicon.HYPOTHETICAL_PHRASES):
        return "hypothetical"
    if any(f" {p} " in padded for p in lexicon.PAST):
        return "history"
    return None
