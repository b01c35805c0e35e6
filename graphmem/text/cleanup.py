"""Clean-up of a sentence before its rules are read: speaker, discourse words, negation.

A speaker prefix (``user:``) is removed, leading discourse words ("fyi", "btw", "quick
update") are dropped, contractions are expanded; "Correction:" and "actually" mark a
correction (:func:`clean`). Negation ("no longer", "isn't ... anymore", "stopped using",
"does not") is taken out of a clause and remembered as its polarity (:func:`denegate`).
"""

from __future__ import annotations

import re

from graphmem.text import lexicon

__all__ = ["clean", "denegate"]

# -- clean-up --------------------------------------------------------------------------------

_SPEAKER = re.compile(r"^\s*(?:\*\*)?(?P<who>[A-Za-z][\w .'-]{0,30}?)(?:\*\*)?\s*:\s+(?=\S)")
_CONTRACTIONS = [
    (r"\b(it|that|there|he|she|what|who)'s been\b", r"\1 has been"),
    (r"\b(it|that|there|he|she|what|who)'s\b", r"\1 is"),
    (r"\b(we|they|you)'re\b", r"\1 are"),
    (r"\bi'm\b", "I am"),
    (r"\b(we|they|you|i)'ve\b", r"\1 have"),
    (r"\b(we|they|you|i|he|she|it)'ll\b", r"\1 will"),
    (r"\b(we|they|you|i|he|she|it)'d\b", r"\1 would"),
    (r"\bwon't\b", "will not"),
    (r"\bcan't\b", "cannot"),
    (r"\b(is|are|was|were|does|do|did|has|have|had|could|would|should)n't\b", r"\1 not"),
    # chat without apostrophes: "hes at the gym", "theyre on Jira", "doesnt use it"
    (r"\b(he|she)s\b", r"\1 is"),
    (r"\b(they|you)re\b(?= \w)", r"\1 are"),
    (r"\b(is|was|does|do|did|has|have)nt\b", r"\1 not"),
]
_CONTRACTION_RES = [(re.compile(p, re.IGNORECASE), r) for p, r in _CONTRACTIONS]
#: Emoji and pictographs: decoration, never part of a name ("🎉 errors show up in Sentry").
_SYMBOLS = re.compile("[\U0001f000-\U0001faff\u2600-\u27bf\ufe0f\u200d]")
#: An emoji written as a chat's short code: ":tada:", ":+1:", ":white_check_mark:".
_SHORTCODE = re.compile(r"(?<!\S):[a-z0-9][a-z0-9_+-]{1,30}:(?!\S)")
#: Emoji between two statements: "Rollbar is gone as of today 🎉 errors show up in Sentry".
_BETWEEN = re.compile(r"(?<=[\w.%)])\s+(?:" + _SYMBOLS.pattern + r"\s*)+\s(?=[A-Za-z])")
_CORRECTION = re.compile(
    r"^(?:correction|to correct(?: that| myself)?|actually|sorry|my bad|wait|erratum|"
    r"(?:i|we) (?:was|were) wrong(?: (?:about|earlier|yesterday|before)(?: that)?)?|"
    r"that(?: is|'s| was) (?:wrong|not right|incorrect|not quite right)|not quite|oops|"
    r"(?:quick |small )?fix(?: to (?:yesterday|earlier|that|my last))?|i misspoke|"
    r"i mixed (?:that|them) up|let me correct (?:that|myself)|scratch that)\b[\s:,—–.!-]*",
    re.IGNORECASE,
)
#: "actually" inside a statement, after its subject: a correction as much as at the start.
_CORRECTED_INSIDE = re.compile(r"(?i)(?<=\w)\s+(?:actually|in fact)\b(?=[\s,.;!]|$)")
#: An agent's note that the user set something right: "User clarified: ...", "the user
#: corrected me: ..."; what follows is the user's own word.
_CLARIFIED = re.compile(
    r"^(?:the )?user (?:clarified|corrected(?: (?:me|that|this|it))?)(?: that)?\b[\s:,—–-]*",
    re.IGNORECASE,
)
#: Chat fillers at the end of a statement: "lol", "haha", "tbh", ":)".
_FILLER = re.compile(
    r"(?:\s+(?:lol|lmao|rofl|haha+|hehe+|tbh|imo|fwiw|btw|xd|:\)|:\(|:d|;\)))+[\s.!]*$",
    re.IGNORECASE,
)
#: A label before a statement: a version, a ticket, an issue number ("v6.0 —", "FIN-18:",
#: "[SRE-902]", "#412:"), docs/concepts/text.md#log-formats.
_LABEL = re.compile(
    r"^(?:\[?(?:v?\d+(?:\.\d+)+|[A-Z][A-Z0-9]+-\d+|#\d+)\]?(?:\s+update)?\s*[—–:|-]+\s*"
    # a ticket key before a capitalised word needs no colon: "PLAT-305 Since February ..."
    r"|[A-Z][A-Z0-9]+-\d+\s+(?=[A-Z]))+"
    r"(?=\S)"
)
_DISCOURSE = re.compile(
    r"^(?:(?:" + "|".join(re.escape(w) for w in lexicon.DISCOURSE) + r")\b[\s:,!.—–-]*)+",
    re.IGNORECASE,
)


def clean(sentence: str, *, speaker_known: bool = False) -> tuple[str, str | None, bool]:
    """Return the sentence without speaker, discourse words and contractions.

    Returns:
        ``(text, speaker, correction)``.

    >>> clean("user: fyi the staging db's on postgres 13")
    ("the staging db's on postgres 13", 'user', False)
    >>> clean("Correction: Alice works at Globex.")
    ('Alice works at Globex', None, True)
    """
    text = sentence.replace("’", "'").replace("`", "'")
    text = _SHORTCODE.sub("\U0001f642", text)  # ":tada:" is an emoji as "🎉" is
    text = _BETWEEN.sub("; ", text)  # "X is gone 🎉 errors go to Y": two statements
    text = " ".join(_SYMBOLS.sub(" ", text).split())
    speaker = None
    m = None if speaker_known else _SPEAKER.match(text)
    if (
        m
        and lexicon.is_speaker(m.group("who"))
        and not _DISCOURSE.fullmatch(m.group("who"))
        and not lexicon.is_setting(m.group("who"), text[m.end() :])
    ):
        speaker = m.group("who").strip()
        text = text[m.end() :]
    text = _LABEL.sub("", text)
    correction = False
    for _ in range(3):
        before = text
        text = _DISCOURSE.sub("", text)
        m = _CORRECTION.match(text) or _CLARIFIED.match(text)
        if m:
            correction = True
            text = text[m.end() :]
        if text == before:
            break
    inside = _CORRECTED_INSIDE.search(text)
    if inside:  # "Emma is actually 8", "she actually reports to Tamsin"
        correction = True
        text = text[: inside.start()] + text[inside.end() :]
    text = _FILLER.sub("", text)  # "I hate cilantro lol"
    for rx, repl in _CONTRACTION_RES:
        text = rx.sub(repl, text)
    text = _PREAMBLE.sub("", text)
    return text.strip().rstrip(".!;:").strip(), speaker, correction


_PREAMBLE = re.compile(
    r"^(?:(?:can|could|would|will) you (?:please )?|please )?"
    r"(?:note|remember|record|log(?= that\b)|keep in mind|"
    # not a setting's key: "Log retention: 15 days"
    r"be aware|know) (?:down )?(?:that )?(?=\S)(?![\w-]+:)|^(?:just )?so you know,?\s+"
    r"|^for the record,?\s+",
    re.IGNORECASE,
)


# -- negation ----------------------------------------------------------------------------------

_NEG_TAIL = re.compile(r"\s*\b(?:any ?more|any longer)\b", re.IGNORECASE)
_NEG_RULES = [
    (re.compile(r"\bno longer\b\s*", re.IGNORECASE), ""),
    (re.compile(r"\b(is|are|was|were|am)\s+not\b\s*", re.IGNORECASE), r"\1 "),
    (re.compile(r"\b(?:does|do|did)\s+not\b\s*", re.IGNORECASE), ""),
    (re.compile(r"\b(?:has|have)\s+not\s+been\b\s*", re.IGNORECASE), "is "),
    (re.compile(r"\bnot\s+(?=(?:using|working|living|running|deploying)\b)", re.IGNORECASE), ""),
    (re.compile(r"\bnever\b\s*", re.IGNORECASE), ""),
]
_STOPPED = re.compile(
    r"\b(?:stopped|quit|ceased|have stopped|has stopped|stop)\s+"
    r"(?P<verb>using|working|living|running|deploying|hosting|relying|reporting)\b",
    re.IGNORECASE,
)


def denegate(text: str) -> tuple[str, bool]:
    """Take the negation out of a clause; return ``(positive text, negated)``.

    >>> denegate("Alice doesn't work at Acme anymore".replace("n't", " not"))
    ('Alice work at Acme', True)
    >>> denegate("we stopped using Jenkins")
    ('we using Jenkins', True)
    """
    negated = False
    m = _STOPPED.search(text)
    if m:
        text = text[: m.start()] + m.group("verb") + text[m.end() :]
        negated = True
    for rule, repl in _NEG_RULES:
        new = rule.sub(repl, text, count=1)
        if new != text:
            text, negated = new, True
            break
    if negated or _NEG_TAIL.search(text):
        had_tail = _NEG_TAIL.search(text) is not None
        text = _NEG_TAIL.sub("", text)
        negated = negated or had_tail
    return " ".join(text.split()), negated
