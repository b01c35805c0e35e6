"""Similarity: the default lexical score, the embedding adapter and nearest()."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graphmem.contradiction import decide_text, normalize_text
from graphmem.errors import InvalidInput
from graphmem.models import Decision
from graphmem.similarity import EmbeddingSimilarity, Similarity, nearest, text_similarity
from tests import backends

BASE = "we deploy with Docker Compose"


# --- text_similarity: measured bands (the docstring table) ---------------------------------


@pytest.mark.parametrize(
    ("a", "b", "low", "high"),
    [
        # noop band: restatements
        (BASE, "We deploy with Docker-Compose!", 1.0, 1.0),
        (BASE, "we now deploy with Docker Compose", 0.97, 1.0),
        # supersede/invalidate band: the same note changed a little, or negated
        (BASE, "we deployed with Docker Compose", 0.88, 0.97),
        (BASE, "we no longer deploy with Docker Compose", 0.88, 0.97),
        (BASE, "we don't deploy with Docker Compose anymore", 0.88, 0.97),
        (BASE, "We do not deploy with Docker Compose", 0.88, 0.97),
        (BASE, "It is wrong that we deploy with Docker Compose", 0.88, 0.97),
        ("Alice lives in Paris", "Alice no longer lives in Paris", 0.88, 0.97),
        ("Alice lives in Paris", "Alice doesn't live in Paris anymore", 0.88, 0.97),
        ("Bob is the tech lead of payments", "Bob was the tech lead of payments", 0.88, 0.97),
        (
            "The staging cluster is deployed every Friday at 5pm by the CI pipeline",
            "The staging cluster is deployed every Thursday at 5pm by the CI pipeline",
            0.88,
            0.97,
        ),
        # add band: a different statement
        (BASE, "we deploy with Kubernetes", 0.0, 0.88),
        (BASE, "we deploy with Docker Compose and Helm", 0.0, 0.88),
        ("Alice lives in Paris", "Alice lives in Rome", 0.0, 0.88),
        ("we use Postgres for billing", "we use Redis for caching", 0.0, 0.5),
        ("We use C#", "We use C", 0.0, 0.88),
        ("Standup is at 10:00", "Standup is at 10:30", 0.0, 0.88),
        (BASE, "the cafeteria serves soup on Mondays", 0.0, 0.2),
    ],
)
def test_measured_bands(a: str, b: str, low: float, high: float) -> None:
    score = text_similarity(a, b)
    assert low <= score <= high
    if high < 1.0:
        assert score < high  # the upper threshold itself belongs to the next band


def test_the_docstring_numbers() -> None:
    assert text_similarity(BASE, "we deploy with Kubernetes") == 0.4371
    assert text_similarity(BASE, "we no longer deploy with Docker Compose") == 0.96
    assert text_similarity(BASE, "we don't deploy with Docker Compose anymore") == 0.9419
    assert text_similarity("Alice lives in Paris", "Alice lives in Rome") == 0.6714


def test_a_polarity_change_is_never_a_duplicate_even_in_a_long_note() -> None:
    long_note = (
        "The payments service is owned by the platform team and deployed from the monorepo "
        "every weekday at noon by the release train"
    )
    negated = long_note.replace("is owned", "is not owned")
    assert 0.88 <= text_similarity(long_note, negated) < 0.97
    past = long_note.replace("is owned", "was owned")
    assert 0.88 <= text_similarity(long_note, past) < 0.97


@pytest.mark.parametrize(
    ("new_text", "expected"),
    [
        ("We deploy with Docker Compose.", Decision.NOOP),
        ("we now deploy with Docker Compose", Decision.NOOP),
        ("we deployed with Docker Compose", Decision.SUPERSEDE),
        ("We do not deploy with Docker Compose", Decision.SUPERSEDE),  # no cue: falls back
        ("we no longer deploy with Docker Compose", Decision.INVALIDATE),
        ("we don't deploy with Docker Compose anymore", Decision.INVALIDATE),
        ("we deploy with Kubernetes", Decision.ADD),
        ("Correction: we deploy with Kubernetes", Decision.ADD),
    ],
)
def test_default_similarity_end_to_end(new_text: str, expected: Decision) -> None:
    assert decide_text(new_text, (BASE, text_similarity(new_text, BASE))) is expected


def test_texts_without_words() -> None:
    assert text_similarity("", "") == 1.0
    assert text_similarity("...", "!") == 1.0  # both normalise to ""
    assert text_similarity("---", "we deploy") == 0.0
    assert text_similarity("", "we deploy") == 0.0


def test_other_scripts_work() -> None:
    assert text_similarity("東京に住んでいる", "東京に住んでいる。") == 1.0
    assert 0.0 < text_similarity("東京に住んでいる", "大阪に住んでいる") < 0.97
    assert text_similarity("Zoë wohnt in Köln", "zoë wohnt in köln") == 1.0


@pytest.mark.parametrize(("a", "b"), [(None, "x"), ("x", 3)])
def test_text_similarity_rejects_non_strings(a: object, b: object) -> None:
    with pytest.raises(InvalidInput, match="string"):
        text_similarity(a, b)  # type: ignore[arg-type]


def test_text_similarity_is_a_similarity() -> None:
    similarity: Similarity = text_similarity
    assert similarity("a", "a") == 1.0


# --- properties -----------------------------------------------------------------------------

texts = st.text(max_size=80)
wordy = st.lists(
    st.sampled_from(["we", "deploy", "with", "docker", "not", "no", "longer", "was", "is", "k8s"]),
    max_size=8,
).map(" ".join)


@given(st.one_of(texts, wordy), st.one_of(texts, wordy))
def test_text_similarity_is_symmetric_and_bounded(a: str, b: str) -> None:
    score = text_similarity(a, b)
    assert score == text_similarity(b, a)
    assert 0.0 <= score <= 1.0
    assert math.isfinite(score)


@given(st.one_of(texts, wordy))
def test_text_similarity_is_one_on_equal_normalised_text(text: str) -> None:
    assert text_similarity(text, text) == 1.0
    assert text_similarity(f" {text}!", text) == 1.0
    assert text_similarity(text.casefold(), text) == 1.0 or normalize_text(
        text.casefold()
    ) != normalize_text(text)


# --- nearest ---------------------------------------------------------------------------------


def test_nearest_of_nothing_is_none() -> None:
    assert nearest("x", [], text_similarity) is None
    assert nearest("x", iter(()), text_similarity) is None


def test_nearest_picks_the_most_similar() -> None:
    candidates = [
        ("we use Redis for caching", "n1"),
        ("we deploy with Kubernetes", "n2"),
        ("we now deploy with Docker Compose", "n3"),
    ]
    assert nearest(BASE, candidates, text_similarity) == ("n3", 0.9793)


def test_nearest_ties_go_to_the_first() -> None:
    def constant(a: str, b: str) -> float:
        return 0.5

    assert nearest("x", [("a", 1), ("b", 2), ("c", 3)], constant) == (1, 0.5)
    candidates = [("Bob", "first"), ("bob.", "second")]
    assert nearest("BOB", candidates, text_similarity) == ("first", 1.0)


def test_nearest_stops_at_a_perfect_match() -> None:
    seen: list[str] = []

    def recording(a: str, b: str) -> float:
        seen.append(b)
        return text_similarity(a, b)

    nearest("Alice", [("Bob", 1), ("alice", 2), ("Carol", 3)], recording)
    assert seen == ["Bob", "alice"]


def test_nearest_consumes_an_iterable_once() -> None:
    generator = ((text, i) for i, text in enumerate(["a b", "a c", "a b c"]))
    assert nearest("a b c", generator, text_similarity) == (2, 1.0)


@pytest.mark.parametrize("bad", [1.5, -0.1, math.nan, math.inf, "0.5", None, True])
def test_nearest_rejects_a_broken_similarity(bad: object) -> None:
    def broken(a: str, b: str) -> float:
        return bad  # type: ignore[return-value]

    with pytest.raises(InvalidInput, match="Similarity must return"):
        nearest("x", [("y", 1)], broken)


@given(texts, st.lists(texts, max_size=6))
def test_nearest_is_the_first_maximum(text: str, others: list[str]) -> None:
    result = nearest(text, [(other, i) for i, other in enumerate(others)], text_similarity)
    if not others:
        assert result is None
        return
    scores = [text_similarity(text, other) for other in others]
    assert result == (scores.index(max(scores)), max(scores))


# --- EmbeddingSimilarity --------------------------------------------------------------------


class CountingEmbed:
    """A toy embedding: letter counts. Records its calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, text: str) -> list[float]:
        self.calls.append(text)
        return [float(text.lower().count(c)) for c in "abcdefghijklmnopqrstuvwxyz"]


def test_embedding_similarity_is_cosine() -> None:
    similarity = EmbeddingSimilarity(lambda text: {"a": [1.0, 0.0], "b": [1.0, 1.0]}[text])
    assert similarity("a", "b") == pytest.approx(1 / math.sqrt(2))


def test_embedding_similarity_clamps_negative_cosine_to_zero() -> None:
    similarity = EmbeddingSimilarity(lambda text: {"up": (0.0, 1.0), "down": (0.0, -1.0)}[text])
    assert similarity("up", "down") == 0.0


def test_embedding_similarity_zero_vector_scores_zero() -> None:
    similarity = EmbeddingSimilarity(lambda text: [0.0, 0.0] if text == "z" else [1.0, 2.0])
    assert similarity("z", "y") == 0.0


def test_embedding_similarity_equal_text_skips_the_model() -> None:
    embed = CountingEmbed()
    similarity = EmbeddingSimilarity(embed)
    assert similarity("Alice lives in Paris", "alice lives in paris.") == 1.0
    assert embed.calls == []


def test_embedding_similarity_caches() -> None:
    embed = CountingEmbed()
    similarity = EmbeddingSimilarity(embed, cache_size=2)
    similarity("abc", "abd")
    similarity("abd", "abc")
    assert embed.calls == ["abc", "abd"]
    similarity("abc", "xyz")  # evicts "abd", the least recently used
    similarity("abc", "abd")
    assert embed.calls == ["abc", "abd", "xyz", "abd"]


def test_embedding_similarity_without_cache() -> None:
    embed = CountingEmbed()
    similarity = EmbeddingSimilarity(embed, cache_size=0)
    similarity("abc", "abd")
    similarity("abc", "abd")
    assert len(embed.calls) == 4


def test_embedding_similarity_accepts_any_sequence() -> None:
    def embed(text: str) -> Sequence[float]:
        return (1, 2, 3) if text == "a" else range(1, 4)

    assert EmbeddingSimilarity(embed)("a", "b") == 1.0


@pytest.mark.parametrize(
    "vectors",
    [
        {"a": [], "b": [1.0]},
        {"a": [math.nan], "b": [1.0]},
        {"a": [math.inf], "b": [1.0]},
        {"a": [1.0, 2.0], "b": [1.0]},
    ],
)
def test_embedding_similarity_rejects_bad_vectors(vectors: dict[str, list[float]]) -> None:
    similarity = EmbeddingSimilarity(vectors.__getitem__)
    with pytest.raises(InvalidInput, match="embedding"):
        similarity("a", "b")


def test_embedding_similarity_rejects_a_negative_cache_size() -> None:
    with pytest.raises(InvalidInput, match="cache_size"):
        EmbeddingSimilarity(CountingEmbed(), cache_size=-1)


def test_embedding_similarity_plugs_into_nearest() -> None:
    similarity: Similarity = EmbeddingSimilarity(CountingEmbed())
    assert nearest("abc", [("xyz", 1), ("abd", 2)], similarity) == (2, pytest.approx(2 / 3))


@given(st.text(max_size=30), st.text(max_size=30))
def test_embedding_similarity_is_symmetric_and_bounded(a: str, b: str) -> None:
    similarity = EmbeddingSimilarity(CountingEmbed())
    score = similarity(a, b)
    assert score == similarity(b, a)
    assert 0.0 <= score <= 1.0
    assert similarity(a, a) == 1.0


# -- the default: WordLlama's bundled model ----------------------------------------------------


def test_wordllama_loads_its_bundled_files_without_the_network(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import socket

    from graphmem.similarity import wordllama_similarity

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("WordLlama tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    sim = wordllama_similarity()
    assert sim("We deploy with Docker Compose", "we deploy with docker compose.") == 1.0
    paraphrase = sim("the standup starts at nine", "our standup begins at 9")
    unrelated = sim("the standup starts at nine", "release notes go out every Monday")
    assert paraphrase >= 0.88 > unrelated  # the lexical default scores the paraphrase 0.41
    assert sim("a b c", "x y z") == sim("x y z", "a b c")


def test_memory_default_is_wordllama_and_plugs_out() -> None:
    from graphmem.similarity import DefaultSimilarity

    with backends.memory() as mem:
        assert isinstance(mem.similarity, DefaultSimilarity)
        assert mem.similarity.name == "wordllama"
    with backends.memory(similarity=text_similarity) as mem:
        assert mem.similarity is text_similarity
