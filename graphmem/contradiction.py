"""Free-text write decisions (docs/concepts/decisions.md#rule-5): pure functions, no store access.

A free-text statement ("we deploy with Docker Compose") is stored as a ``note`` fact. Before it is
written, the facade finds the nearest current note of the same subject and asks
:func:`decide_text` what to do with the new text:

====================================================  ===============
situation                                             decision
====================================================  ===============
``source_ref`` given, nothing to compare with         ``add``
``source_ref`` given, same ref as the nearest         ``supersede``
  ... and the new text negates (text not equal)       ``invalidate``
``source_ref`` given, different ref                   ``add``
no nearest note                                       ``add``
equal normalised text                                 ``noop``
negating text, similarity ``>= 0.88``                 ``invalidate``
similarity ``>= 0.97``                                ``noop``
similarity ``>= 0.88``                                ``supersede``
otherwise                                             ``add``
====================================================  ===============

Negation is detected by :func:`negates`, a deliberately conservative cue matcher: a missed
negation falls back to ``supersede`` (the old note still leaves the current view), while a wrong
invalidation would end a note that is still true. See :data:`NEGATION_CUES`.

>>> decide_text("We deploy with Kubernetes.", ("we deploy with kubernetes", 0.91))
<Decision.NOOP: 'noop'>
>>> decide_text("We no longer deploy with Docker Compose", ("We deploy with Docker Compose", 0.92))
<Decision.INVALIDATE: 'invalidate'>
"""

from __future__ import annotations

import math
import numbers
import re
import unicodedata

from graphmem.errors import InvalidInput
from graphmem.models import Decision

__all__ = [
    "INVALIDATE_THRESHOLD",
    "NEGATION_CUES",
    "NOOP_THRESHOLD",
    "SUPERSEDE_THRESHOLD",
    "decide_text",
    "find_negation_cue",
    "negates",
    "negates_fact",
    "normalize_text",
]

#: Similarity at or above which a (non-negating) near-duplicate note is a ``noop``.
NOOP_THRESHOLD = 0.97
#: Similarity at or above which a new note replaces the nearest one (``supersede``).
SUPERSEDE_THRESHOLD = 0.88
#: Similarity at or above which a negating note ends the nearest one (``invalidate``).
INVALIDATE_THRESHOLD = 0.88

#: The cue families :func:`negates` recognises. :func:`find_negation_cue` returns the cue as
#: matched, e.g. ``"was wrong"`` for the ``is/was/are/were wrong`` family.
NEGATION_CUES: tuple[str, ...] = (
    "correction: / corrections: / erratum:",
    "retraction:",
    "no longer",
    "no more",
    "not ... anymore / not ... any longer / not ... any more",
    "is/was/are/were/'s/'re wrong / incorrect / false / untrue",
    "not true / isn't true",
    "retract / retracted / retracting (a statement)",
    "disregard (a statement)",
    "scratch that / strike that",
    "stopped using / quit using",
)

# Curly and modifier apostrophes/quotes, as LLM output mixes them freely. NFKC leaves them alone.
_QUOTES = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u02bc": "'",
        "\u2032": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u201f": '"',
        "\u2033": '"',
    }
)
# Sentence-final punctuation only: "C#" and "C++" must not normalise to "c".
_TRAILING = ".,;:!?\u3002\u3001 "


def normalize_text(text: str) -> str:
    """Normalise a statement for equality checks: what "equal normalised text" means.

    Applies Unicode NFKC, unifies curly apostrophes and quotes, case-folds, collapses runs of
    whitespace to one space and strips sentence-final punctuation (``. , ; : ! ?``) and
    surrounding whitespace. Symbols that carry meaning (``C#``, ``C++``, ``v1.2``) are kept.

    Args:
        text: Any statement.

    Returns:
        The normalised text; idempotent (``normalize_text(normalize_text(t)) ==
        normalize_text(t)``).

    Raises:
        InvalidInput: ``text`` is not a string.

    Examples:
        >>> normalize_text("  We   deploy with  Docker Compose. ")
        'we deploy with docker compose'
        >>> normalize_text("Alice\u2019s ＴＥＡＭ uses C#!")
        "alice's team uses c#"
    """
    if not isinstance(text, str):
        raise InvalidInput(f"text must be a string, got {text!r}")
    folded = unicodedata.normalize("NFKC", text).translate(_QUOTES).casefold()
    # NFKC again after casefold (Unicode's NFKC_Casefold recipe) keeps the result idempotent.
    folded = unicodedata.normalize("NFKC", folded).translate(_QUOTES)
    return " ".join(folded.split()).rstrip(_TRAILING)


# --- negation cues -------------------------------------------------------------------------

_SENTENCE_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n+")
_QUOTED = re.compile(r'"[^"]*"|`[^`]*`|(?<!\w)\'[^\']*\'(?!\w)')
_WORD = re.compile(r"[\w']+")
_IN_CASE = re.compile(r"\bin case\b")
# A clause boundary inside a sentence: commas, colons, brackets, dashes used as punctuation.
_CLAUSE_SEP = re.compile(r"[,:;()\u2013\u2014]|\s-\s")
_CLAUSE_END = re.compile(r"\s*(?:$|[,.;:!?)\u2013\u2014]|-\s)")

_NEGATORS = frozenset(
    {"not", "no", "never", "nobody", "nothing", "none", "nowhere", "neither", "nor", "cannot"}
)
# A hedge right before a cue makes the statement a guess, not a retraction ("may no longer").
_HEDGES = frozenset({"may", "might", "could", "maybe", "perhaps", "possibly", "probably"})
# A conditional earlier in the sentence puts the cue in a hypothetical or a rule
# ("if the token is no longer valid, refresh it"), not in a statement about the world.
_CONDITIONALS = frozenset(
    {"if", "unless", "whether", "when", "whenever", "assuming", "suppose", "supposing"}
)
# "nothing is wrong", "something was wrong with the build", "what is wrong": no retraction.
_VAGUE_SUBJECTS = frozenset(
    {"nothing", "something", "anything", "everything", "what", "whatever", "somewhat"}
)
# Words after "is wrong/false" that make it a description, not a verdict on a statement.
_NOT_A_VERDICT = frozenset(
    {"with", "by", "for", "positive", "positives", "negative", "negatives", "alarm", "alarms"}
)
# What follows a retract/disregard verb when it targets a statement ("disregard the last note").
_STATEMENT_OBJECTS = frozenset(
    {
        "my",
        "our",
        "the",
        "that",
        "this",
        "these",
        "those",
        "it",
        "everything",
        "what",
        "all",
        "previous",
        "earlier",
        "last",
        "above",
    }
)

_BE_VERDICT = re.compile(
    r"\b(is|was|are|were)\s+"
    r"(?:(?:actually|clearly|completely|definitely|entirely|just|now|plainly|simply|totally)\s+)?"
    r"(wrong|incorrect|false|untrue)\b"
    r"|(?<=\w)('s|'re)\s+(wrong|incorrect|false|untrue)\b"
)
_CORRECTION = re.compile(
    r"\b(correction|corrections|erratum|errata)\s*(?::|\s[-\u2013\u2014]\s|[\u2013\u2014])"
    r"|^(correction)\s*,"
)
_RETRACTION = re.compile(r"\bretraction\s*(?::|\s[-\u2013\u2014]\s|[\u2013\u2014])")
_NO_LONGER = re.compile(r"\bno (longer|more)\b")
_ANYMORE = re.compile(r"\b(anymore|any more|any longer)\b")
_NOT_TRUE = re.compile(r"(?:\bnot|n't)\s+true\b")
_RETRACT = re.compile(r"\b(retract|retracted|retracting)\b")
_DISREGARD = re.compile(r"\bdisregard\b")
_SCRATCH = re.compile(r"\b(scratch|strike) that\b")
_STOPPED = re.compile(r"\b(stopped|quit) using\b")


def _is_negator(token: str) -> bool:
    return token in _NEGATORS or token.endswith("n't")


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _hypothetical(before: str) -> bool:
    """Whether the words before a cue make it a guess or a conditional."""
    words = _words(before)
    if words and words[-1] in _HEDGES:
        return True
    return bool(_CONDITIONALS.intersection(words)) or _IN_CASE.search(before) is not None


def _negated(before: str) -> bool:
    """Whether one of the two words right before a verb negates it ("never disregard")."""
    return any(_is_negator(w) for w in _words(before)[-2:])


def _next_words(after: str, count: int) -> list[str]:
    return _words(_CLAUSE_SEP.split(after, maxsplit=1)[0])[:count]


def _clause_before(before: str) -> str:
    return _CLAUSE_SEP.split(before)[-1]


def _targets_statement(after: str) -> bool:
    """Whether a retract/disregard verb acts on a statement, or ends its clause."""
    if _CLAUSE_END.match(after):
        return True
    following = _next_words(after, 1)
    return bool(following) and following[0] in _STATEMENT_OBJECTS


def _cue_in_sentence(sentence: str) -> str | None:
    if sentence.endswith("?"):  # a question asks, it does not retract
        return None

    if _CORRECTION.search(sentence):
        return "correction:"
    if _RETRACTION.search(sentence):
        return "retraction:"

    for match in _NO_LONGER.finditer(sentence):
        before, after = sentence[: match.start()], sentence[match.end() :]
        following = _next_words(after, 2)
        if after.startswith("-") or _hypothetical(before):
            continue  # "no longer-term plans", "may no longer", "if ... no longer"
        if "than" in following:
            continue  # "no longer than 5 minutes", "no more expensive than"
        if match.group(1) == "more" and "less" in _words(after)[:3]:
            continue  # "no more, no less"
        return f"no {match.group(1)}"

    for match in _ANYMORE.finditer(sentence):
        before, after = sentence[: match.start()], sentence[match.end() :]
        if _hypothetical(before) or not any(map(_is_negator, _words(_clause_before(before)))):
            continue  # "anymore" only negates after a negated verb: "doesn't ... anymore"
        if match.group(1) == "any more" and not _CLAUSE_END.match(after):
            continue  # "don't want any more coffee": a quantity
        if match.group(1) == "any longer" and "than" in _next_words(after, 2):
            continue  # "don't wait any longer than 5 minutes"
        return "not ... anymore"

    for match in _BE_VERDICT.finditer(sentence):
        before, after = sentence[: match.start()], sentence[match.end() :]
        verb = match.group(1) or {"'s": "is", "'re": "are"}[match.group(3)]
        adjective = match.group(2) or match.group(4)
        following = _next_words(after, 1)
        previous = _words(before)[-1:]
        if after.startswith("-") or _hypothetical(before):
            continue
        if (following and following[0] in _NOT_A_VERDICT) or (
            previous and previous[0] in _VAGUE_SUBJECTS
        ):
            continue  # "is wrong with", "is false by default", "nothing is wrong"
        if match.group(3) and not _CLAUSE_END.match(after):
            continue  # "Alice's wrong address" is a possessive, "that's wrong." a verdict
        return f"{verb} {adjective}"

    for match in _NOT_TRUE.finditer(sentence):
        before, after = sentence[: match.start()], sentence[match.end() :]
        if after.startswith("-") or _hypothetical(before) or _next_words(after, 1) == ["to"]:
            continue  # "not true to scale"
        return "not true"

    for pattern, label in ((_RETRACT, "retract"), (_DISREGARD, "disregard")):
        for match in pattern.finditer(sentence):
            before, after = sentence[: match.start()], sentence[match.end() :]
            if _negated(before) or _hypothetical(before) or not _targets_statement(after):
                continue  # "never disregard a failing test", "with total disregard for"
            return label

    for match in _SCRATCH.finditer(sentence):
        if _CLAUSE_END.match(sentence[match.end() :]):
            return f"{match.group(1)} that"

    for match in _STOPPED.finditer(sentence):
        before = sentence[: match.start()]
        if not _negated(before) and not _hypothetical(before):
            return "stopped using"
    return None


def find_negation_cue(text: str) -> str | None:
    """Return the negation cue that makes ``text`` negate an earlier statement, if any.

    The label names the cue as matched (``"no longer"``, ``"was wrong"``, ``"correction:"`` ...;
    :data:`NEGATION_CUES` lists the families), ready for a human-readable ``reason``. Matching
    is whole-word and case-insensitive, handles curly apostrophes, and is conservative: cues in
    questions, in quotes, after a hedge ("may no longer"), after a conditional ("if it is no
    longer valid"), or in comparisons ("no longer than 5 minutes", "no more than 3") don't count.

    Args:
        text: A free-text statement.

    Returns:
        The cue label, or ``None`` when the text does not negate.

    Raises:
        InvalidInput: ``text`` is not a string.

    Examples:
        >>> find_negation_cue("We don\u2019t use Jenkins anymore.")
        'not ... anymore'
        >>> find_negation_cue("Timeouts must be no longer than 5 minutes.") is None
        True
    """
    if not isinstance(text, str):
        raise InvalidInput(f"text must be a string, got {text!r}")
    plain = _QUOTED.sub(" ", unicodedata.normalize("NFKC", text).translate(_QUOTES))
    for raw in _SENTENCE_SPLIT.split(plain):
        sentence = " ".join(raw.casefold().split())
        if sentence and (cue := _cue_in_sentence(sentence)) is not None:
            return cue
    return None


def negates(text: str) -> bool:
    """Tell whether ``text`` negates, retracts or corrects an earlier statement.

    A conservative detector (see :func:`find_negation_cue` for what is excluded): it prefers
    missing a negation, which makes the write a ``supersede``, over a false one, which would
    end a note that is still true.

    Args:
        text: A free-text statement.

    Returns:
        ``True`` when a negation cue is found.

    Raises:
        InvalidInput: ``text`` is not a string.

    Examples:
        >>> negates("Alice no longer works at Acme")
        True
        >>> negates("Correction: the standup is at 10:00")
        True
        >>> negates("Not only Alice but also Bob reviews PRs")
        False
        >>> negates("Never forget to run the migrations")
        False
    """
    return find_negation_cue(text) is not None


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+(?=\S)")


def negates_fact(statement: str, *, subject: str, object: str) -> bool:  # noqa: A002
    """Tell whether a fact's ``statement`` negates *that fact* (docs/concepts/decisions.md#rule-3).

    A one-sentence statement negates when :func:`negates` says so. In a longer statement only a
    negating sentence that names the fact's subject or object counts: "Alice works at Globex.
    The standup note was wrong." asserts the fact; its second sentence is about a note.

    Examples:
        >>> negates_fact("Alice no longer works at Acme", subject="alice", object="Acme")
        True
        >>> negates_fact("Alice works at Globex. The standup note was wrong.",
        ...              subject="alice", object="Globex")
        False
        >>> negates_fact("We met today. Alice no longer works at Acme.",
        ...              subject="alice", object="Acme")
        True
    """
    parts = [p for p in _SENTENCE_END.split(statement.strip()) if p.strip()]
    if len(parts) <= 1:
        return negates(statement)
    names = [_word_set(subject), _word_set(object)]
    for part in parts:
        if not negates(part):
            continue
        words = _word_set(part)
        if any(name and name <= words for name in names):
            return True
    return False


def _word_set(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


# --- the decision --------------------------------------------------------------------------


def _check_similarity(similarity: object) -> float:
    if (
        isinstance(similarity, bool)
        or not isinstance(similarity, numbers.Real)
        or not math.isfinite(float(similarity))
        or not 0.0 <= float(similarity) <= 1.0
    ):
        raise InvalidInput(
            f"similarity must be a finite number in [0, 1], got {similarity!r}; "
            "check the Similarity function that produced it"
        )
    return float(similarity)


def decide_text(
    new_text: str,
    nearest: tuple[str, float] | None,
    *,
    source_ref: str | None = None,
    nearest_source_ref: str | None = None,
) -> Decision:
    """Decide what writing the free-text note ``new_text`` does (docs/concepts/decisions.md#rule-5).

    With a non-empty ``source_ref`` (a caller identity key) similarity is not used: the same
    ref as the nearest note's supersedes it (or invalidates it when the new text negates and
    differs from it), a different ref adds, so similar-looking release notes stay separate.

    Without it: no nearest note adds; equal normalised text (:func:`normalize_text`) is a
    ``noop`` whatever the similarity and cues; a negating text (:func:`negates`) with
    similarity ``>= 0.88`` invalidates, whatever the band; ``>= 0.97`` is a ``noop``;
    ``>= 0.88`` supersedes; anything else adds. Boundaries are inclusive.

    Args:
        new_text: The statement being written.
        nearest: ``None`` when the subject has no current note, else ``(text, similarity)`` of
            the most similar one (see :func:`graphmem.similarity.nearest`).
        source_ref: The new note's identity key, if the caller has one.
        nearest_source_ref: The nearest note's identity key, if it has one.

    Returns:
        The :class:`~graphmem.models.Decision`.

    Raises:
        InvalidInput: ``new_text`` or the nearest text is not a string, ``nearest`` is not a
            pair, or the similarity is not a finite number in ``[0, 1]``.

    Examples:
        >>> decide_text("we deploy with Docker Compose", None)
        <Decision.ADD: 'add'>
        >>> decide_text("We deploy with Docker Compose", ("we deploy with docker compose.", 0.1))
        <Decision.NOOP: 'noop'>
        >>> decide_text("We deploy nightly with Compose", ("We deploy with Compose", 0.9))
        <Decision.SUPERSEDE: 'supersede'>
        >>> decide_text("We deploy with Kubernetes", ("We deploy with Docker Compose", 0.6))
        <Decision.ADD: 'add'>
        >>> decide_text("v2.1: faster", ("v2.0: faster", 0.99), source_ref="v2.1",
        ...             nearest_source_ref="v2.0")
        <Decision.ADD: 'add'>
    """
    normalized = normalize_text(new_text)
    if nearest is None:
        return Decision.ADD
    if not isinstance(nearest, (tuple, list)) or len(nearest) != 2:
        raise InvalidInput(f"nearest must be None or a (text, similarity) pair, got {nearest!r}")
    nearest_text, raw_similarity = nearest
    same_text = normalize_text(nearest_text) == normalized
    similarity = _check_similarity(raw_similarity)

    if source_ref:
        if source_ref != nearest_source_ref:
            return Decision.ADD
        # Identity replaces exactly that note; an identical text cannot negate itself.
        if not same_text and negates(new_text):
            return Decision.INVALIDATE
        return Decision.SUPERSEDE

    if same_text:
        return Decision.NOOP
    if similarity >= INVALIDATE_THRESHOLD and negates(new_text):
        return Decision.INVALIDATE
    if similarity >= NOOP_THRESHOLD:
        return Decision.NOOP
    if similarity >= SUPERSEDE_THRESHOLD:
        return Decision.SUPERSEDE
    return Decision.ADD
