"""Modality: which sentences and clauses state nothing (questions, plans, hypotheses, history).

A question, plan, wish, conditional or hypothesis ("should we move to Rust?", "we plan to move
to AWS", "if we switched to Go") and reported history ("he used to work at Oracle") give no
claim, so they can never supersede anything.
"""

from __future__ import annotations

import re

from graphmem.text import lexicon
from graphmem.text.logforms import JSON_LINE

__all__ = ["DOCUMENT_SAYS", "sentence_skipped", "skipped"]

#: What a document says is no statement: it may be what went stale (docs/concepts/text.md).
DOCUMENT_SAYS = re.compile(
    r"(?i)^(?:according to\s+)?(?:the|our|that|this)?\s*(?:old|current|outdated|stale|internal)?\s*"
    r"(?:wiki|readme|docs?|documentation|runbook|confluence(?: page)?|notion(?: page)?|spec|"
    r"diagram|slides?|(?:web)?page|ticket|onboarding (?:doc|guide)|handbook|faq)\b"
    r"(?:\s+page)?(?:\s+still)?\s+(?:says|claims|states|lists|shows|mentions|documents|"
    r"describes|suggests|implies|tells|reads)\b|^according to\b"
)

_WORD = re.compile(r"[\w'+#.-]*\w[+#]*|[+#]+")


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


_CONDITIONAL_START = frozenset(
    """if unless when whenever whether suppose supposing imagine assuming hypothetically once
    maybe perhaps""".split()  # noqa: SIM905
)


def sentence_skipped(text: str) -> str | None:
    """Why a whole sentence gives no claim: a question, a conditional, a command or data.

    A shell command in a log and a JSON line (read field by field, nlp._fields) say nothing.

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
    if _COMMAND.match(text.strip()):
        return "command"
    if JSON_LINE.match(text):
        return "data"  # its fields are read from lines of their own (nlp._fields)
    return None


#: A shell command in a log: "> git checkout -f 7d2a0e1c # Merge pull request #1187 from ...",
#: "+ ./gradlew clean build -x integrationTest" (a prompt, or a flag after the command).
_COMMAND = re.compile(
    r"^(?:\$\s+[a-z./]|(?:[%+>]\s*)?(?:sudo\s+)?(?:git|npm|npx|yarn|pnpm|pip3?|kubectl|docker|helm|"
    r"terraform|curl|ssh|brew|apt(?:-get)?|cargo|gradle|mvn|\./[\w.-]+)\s+(?:[\w./:@=-]+\s+)*-{1,2}\w)"
)


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
