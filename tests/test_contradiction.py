"""Free-text write decisions: decide_text, negates, normalize_text.

See docs/concepts/decisions.md#rule-5.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.contradiction import (
    INVALIDATE_THRESHOLD,
    NOOP_THRESHOLD,
    SUPERSEDE_THRESHOLD,
    decide_text,
    find_negation_cue,
    negates,
    normalize_text,
)
from graphmem.errors import InvalidInput
from graphmem.models import Decision

ADD, NOOP, SUPERSEDE, INVALIDATE = (
    Decision.ADD,
    Decision.NOOP,
    Decision.SUPERSEDE,
    Decision.INVALIDATE,
)

OLD = "We deploy with Docker Compose"
PLAIN = "We deploy nightly with Docker Compose"  # differs from OLD, no negation cue
NEGATING = "We no longer deploy with Docker Compose"


def test_thresholds_match_the_spec() -> None:
    assert (NOOP_THRESHOLD, SUPERSEDE_THRESHOLD, INVALIDATE_THRESHOLD) == (0.97, 0.88, 0.88)


# --- decide_text without source_ref ---------------------------------------------------------


@pytest.mark.parametrize(
    ("new_text", "similarity", "expected"),
    [
        # bands, boundaries inclusive
        (PLAIN, 1.0, NOOP),
        (PLAIN, 0.99, NOOP),
        (PLAIN, 0.97, NOOP),
        (PLAIN, 0.9699, SUPERSEDE),
        (PLAIN, 0.93, SUPERSEDE),
        (PLAIN, 0.88, SUPERSEDE),
        (PLAIN, 0.8799, ADD),
        (PLAIN, 0.5, ADD),
        (PLAIN, 0.0, ADD),
        # a negating text invalidates whatever the band, from 0.88 up
        (NEGATING, 1.0, INVALIDATE),
        (NEGATING, 0.99, INVALIDATE),
        (NEGATING, 0.97, INVALIDATE),
        (NEGATING, 0.9699, INVALIDATE),
        (NEGATING, 0.88, INVALIDATE),
        # ... but below 0.88 it is about something else: a separate note
        (NEGATING, 0.8799, ADD),
        (NEGATING, 0.2, ADD),
        # equal normalised text is a noop whatever the similarity
        ("we deploy with docker compose.", 0.0, NOOP),
        ("  WE DEPLOY   with Docker Compose!", 0.5, NOOP),
        (OLD, 0.9, NOOP),
    ],
)
def test_decide_text_table(new_text: str, similarity: float, expected: Decision) -> None:
    assert decide_text(new_text, (OLD, similarity)) is expected


def test_no_nearest_adds() -> None:
    assert decide_text(PLAIN, None) is ADD
    assert decide_text(NEGATING, None) is ADD
    assert decide_text("", None) is ADD


def test_equal_text_with_a_negation_cue_is_a_noop() -> None:
    # Re-asserting the same negating sentence negates nothing new.
    assert decide_text(NEGATING, (NEGATING.lower() + ".", 0.99)) is NOOP
    assert decide_text(NEGATING, (NEGATING, 0.1)) is NOOP


def test_positive_after_a_negation_supersedes_it() -> None:
    assert decide_text(OLD, (NEGATING, 0.93)) is SUPERSEDE


def test_integer_and_fraction_similarities_are_accepted() -> None:
    assert decide_text(PLAIN, (OLD, 1)) is NOOP
    assert decide_text(PLAIN, (OLD, 0)) is ADD
    assert decide_text(PLAIN, (OLD, Fraction(22, 25))) is SUPERSEDE  # exactly 0.88


def test_a_list_pair_is_accepted() -> None:
    assert decide_text(PLAIN, [OLD, 0.9]) is SUPERSEDE  # type: ignore[arg-type]


# --- decide_text with source_ref ------------------------------------------------------------


@pytest.mark.parametrize(
    ("new_text", "nearest", "nearest_ref", "expected"),
    [
        # same ref: identity supersedes, whatever the similarity
        (PLAIN, (OLD, 0.1), "doc-1", SUPERSEDE),
        (PLAIN, (OLD, 0.99), "doc-1", SUPERSEDE),
        (OLD, (OLD, 1.0), "doc-1", SUPERSEDE),  # identical text: still the identity rule
        # same ref and a negating text: invalidate, whatever the similarity
        (NEGATING, (OLD, 0.1), "doc-1", INVALIDATE),
        (NEGATING, (OLD, 0.95), "doc-1", INVALIDATE),
        (NEGATING, (NEGATING, 1.0), "doc-1", SUPERSEDE),  # an identical text can't negate it
        # different ref: similar-looking release notes stay separate
        (PLAIN, (OLD, 0.99), "doc-2", ADD),
        (OLD, (OLD, 1.0), "doc-2", ADD),
        (NEGATING, (OLD, 0.95), "doc-2", ADD),
        (PLAIN, (OLD, 0.99), None, ADD),
        # nothing to compare with
        (PLAIN, None, None, ADD),
        (PLAIN, None, "doc-1", ADD),
    ],
)
def test_decide_text_with_source_ref(
    new_text: str,
    nearest: tuple[str, float] | None,
    nearest_ref: str | None,
    expected: Decision,
) -> None:
    decision = decide_text(new_text, nearest, source_ref="doc-1", nearest_source_ref=nearest_ref)
    assert decision is expected


@pytest.mark.parametrize("empty_ref", [None, ""])
def test_empty_source_ref_uses_similarity(empty_ref: str | None) -> None:
    assert decide_text(PLAIN, (OLD, 0.99), source_ref=empty_ref) is NOOP
    assert decide_text(PLAIN, (OLD, 0.5), source_ref=empty_ref, nearest_source_ref="") is ADD


def test_nearest_source_ref_alone_does_not_change_the_decision() -> None:
    assert decide_text(PLAIN, (OLD, 0.9), nearest_source_ref="doc-1") is SUPERSEDE


# --- validation ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "similarity",
    [-0.01, 1.0001, 2, math.nan, math.inf, -math.inf, "0.9", None, True, False],
)
def test_invalid_similarity_is_rejected(similarity: object) -> None:
    with pytest.raises(InvalidInput, match="similarity") as info:
        decide_text(PLAIN, (OLD, similarity))  # type: ignore[arg-type]
    assert repr(similarity) in str(info.value)


def test_invalid_similarity_is_rejected_with_source_ref_too() -> None:
    with pytest.raises(InvalidInput, match="nan"):
        decide_text(PLAIN, (OLD, math.nan), source_ref="a", nearest_source_ref="a")


def test_invalid_similarity_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="1.5"):
        decide_text(PLAIN, (OLD, 1.5))


@pytest.mark.parametrize("nearest", [(OLD,), (OLD, 0.9, "x"), "text", 0.9])
def test_malformed_nearest_is_rejected(nearest: object) -> None:
    with pytest.raises(InvalidInput, match="nearest"):
        decide_text(PLAIN, nearest)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("new_text", "nearest"),
    [(None, None), (42, (OLD, 0.9)), (PLAIN, (None, 0.9)), (PLAIN, (b"bytes", 0.9))],
)
def test_non_string_text_is_rejected(new_text: object, nearest: object) -> None:
    with pytest.raises(InvalidInput, match="string"):
        decide_text(new_text, nearest)  # type: ignore[arg-type]


# --- negates --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "cue"),
    [
        ("Alice no longer works at Acme", "no longer"),
        ("NO LONGER TRUE: Alice lives in Paris", "no longer"),
        ("Deploys are no more frozen on Fridays", "no more"),
        ("There are no more deploys on Fridays.", "no more"),
        ("We don't use Jenkins anymore.", "not ... anymore"),
        ("We don\u2019t use Jenkins anymore", "not ... anymore"),  # curly apostrophe
        ("We don\u02bct use Jenkins anymore", "not ... anymore"),  # modifier apostrophe
        ("Paris? Not anymore.", "not ... anymore"),
        ("Alice isn't at Acme any more.", "not ... anymore"),
        ("We won't deploy on Fridays any longer", "not ... anymore"),
        ("We never deploy there anymore", "not ... anymore"),
        ("We can't reproduce the bug anymore", "not ... anymore"),
        ("Correction: the standup is at 10:00", "correction:"),
        ("CORRECTION : the standup is at 10:00", "correction:"),
        ("Correction - the standup is at 10:00", "correction:"),
        ("Small correction: the standup is at 10:00", "correction:"),
        ("Erratum: the limit is 100", "correction:"),
        ("Retraction: the outage was not caused by DNS", "retraction:"),
        ("That is wrong.", "is wrong"),
        ("That's wrong.", "is wrong"),
        ("The address in the CRM is wrong", "is wrong"),
        ("The previous note was wrong", "was wrong"),
        ("I was wrong about the deadline", "was wrong"),
        ("Those numbers are simply wrong", "are wrong"),
        ("Alice's address was incorrect", "was incorrect"),
        ("That\u2019s false", "is false"),
        ("The claim is false", "is false"),
        ("It is not true that Alice moved", "not true"),
        ("That isn't true", "not true"),
        ("Not true!", "not true"),
        ("I retract that.", "retract"),
        ("Retracted.", "retract"),
        ("I retract my earlier note about the budget", "retract"),
        ("Please disregard the previous note", "disregard"),
        ("Disregard that", "disregard"),
        ("Scratch that, we use Kubernetes", "scratch that"),
        ("Strike that.", "strike that"),
        ("We stopped using Jenkins", "stopped using"),
        ("Alice quit using Vim last year", "stopped using"),
        ("It rained. Alice no longer lives in Paris.", "no longer"),  # second sentence
        ("It rained\nAlice no longer lives in Paris", "no longer"),
    ],
)
def test_negation_cues(text: str, cue: str) -> None:
    assert negates(text)
    assert find_negation_cue(text) == cue


@pytest.mark.parametrize(
    "text",
    [
        # no cue at all
        "We deploy with Docker Compose",
        "",
        "   ",
        "Not only Alice but also Bob reviews PRs",
        "Never forget to run the migrations",
        "Nothing works like a fresh cache",
        # comparisons and durations, not negations
        "Timeouts must be no longer than 5 minutes",
        "Keep standups no longer than fifteen minutes",
        "The queue holds no more than 100 items",
        "It is no more expensive than the old plan",
        "Use no more, no less than two reviewers",
        "We have no longer-term plans",
        "Don't wait any longer than 5 minutes",
        # quantities
        "I don't want any more coffee",
        # hypotheticals and rules
        "If the token is no longer valid, refresh it",
        "Rotate the key when it is no longer valid",
        "In case the cache is no longer warm, rebuild it",
        "Unless it is wrong, keep it",
        "Whether it is true or not true does not matter",
        # hedges
        "Alice may no longer be at Acme",
        "Alice probably no longer works there",
        "I might be wrong, but Alice lives in Paris",
        "It could be wrong",
        # questions
        "Is Alice no longer at Acme?",
        "Nothing works anymore?",
        "Is that wrong?",
        # descriptions, not verdicts on a statement
        "Nothing is wrong with the build",
        "Something was wrong with the deploy yesterday",
        "What is wrong with the CI",
        "The build is wrong-headed",
        "debug is false by default",
        "The alert was false positive",
        "Alice's wrong address was fixed",
        "The map is not true to scale",
        "The retractable roof is closed",
        "The landing gear retracts",
        "Alice retracted her offer",
        "He acted with total disregard for safety",
        "Alice disregarded the warning",
        # negated retractions
        "Never disregard a failing test",
        "Don't retract published releases",
        "We never stopped using Jenkins",
        # cues in quotes are mentions, not uses
        'The banner says "no longer supported" for v1',
        "The banner says \u201cno longer supported\u201d for v1",
        "The banner says 'no longer supported' for v1",
        "Search the logs for `is wrong`",
        # "anymore" needs a negated verb
        "Anymore, we deploy with Kubernetes",
        # a correction needs its colon or dash
        "The correction of the typo is merged",
    ],
)
def test_not_negations(text: str) -> None:
    assert not negates(text)
    assert find_negation_cue(text) is None


@pytest.mark.parametrize("text", [None, 3, b"no longer"])
def test_negates_rejects_non_strings(text: object) -> None:
    with pytest.raises(InvalidInput, match="string"):
        negates(text)  # type: ignore[arg-type]


# --- normalize_text -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("  We   deploy\twith\nDocker Compose. ", "we deploy with docker compose"),
        ("Done!!!", "done"),
        ("Done?!", "done"),
        ("Done . . .", "done"),
        ("Done\u2026", "done"),  # NFKC turns the ellipsis into dots
        ("\uff34\uff25\uff21\uff2d", "team"),  # full-width letters
        ("Stra\u00dfe", "strasse"),  # casefold, not lower
        ("Alice\u2019s team", "alice's team"),
        ("We use C#", "we use c#"),
        ("We use C++", "we use c++"),
        ("Python 3.11.", "python 3.11"),
        ("(beta)", "(beta)"),
        ("", ""),
        ("...", ""),
    ],
)
def test_normalize_text(text: str, expected: str) -> None:
    assert normalize_text(text) == expected


def test_normalize_text_rejects_non_strings() -> None:
    with pytest.raises(InvalidInput, match="string"):
        normalize_text(None)  # type: ignore[arg-type]


# --- properties -----------------------------------------------------------------------------

similarities = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
refs = st.one_of(st.none(), st.sampled_from(["", "a", "b"]))


@given(st.text())
def test_normalize_text_is_idempotent(text: str) -> None:
    once = normalize_text(text)
    assert normalize_text(once) == once


@given(st.text(), st.one_of(st.none(), st.tuples(st.text(), similarities)), refs, refs)
def test_decide_text_is_total_over_valid_inputs(
    new_text: str, nearest: tuple[str, float] | None, ref: str | None, nearest_ref: str | None
) -> None:
    decision = decide_text(new_text, nearest, source_ref=ref, nearest_source_ref=nearest_ref)
    assert isinstance(decision, Decision)
    if nearest is None:
        assert decision is ADD


@given(st.text(), similarities)
def test_equal_text_is_a_noop_whatever_the_similarity(text: str, similarity: float) -> None:
    assert decide_text(text, (text, similarity)) is NOOP
    assert decide_text(f"  {text}.", (text, similarity)) is NOOP


@given(st.text(), st.text(), similarities)
def test_decision_follows_the_bands(new_text: str, old: str, similarity: float) -> None:
    decision = decide_text(new_text, (old, similarity))
    if normalize_text(new_text) == normalize_text(old):
        assert decision is NOOP
    elif similarity < SUPERSEDE_THRESHOLD:
        assert decision is ADD
    elif negates(new_text):
        assert decision is INVALIDATE
    else:
        assert decision is (NOOP if similarity >= NOOP_THRESHOLD else SUPERSEDE)


@given(st.text())
def test_negates_is_total(text: str) -> None:
    assert negates(text) is (find_negation_cue(text) is not None)


@given(st.text(), similarities)
def test_different_source_refs_always_add(new_text: str, similarity: float) -> None:
    assert decide_text(new_text, ("x", similarity), source_ref="a", nearest_source_ref="b") is ADD
