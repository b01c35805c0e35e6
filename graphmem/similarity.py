"""Text similarity for free-text notes: a pluggable protocol and an offline default.

A :class:`Similarity` is any callable ``(a, b) -> float`` that is symmetric, returns a number
in ``[0, 1]`` and returns ``1.0`` for texts equal after
:func:`~graphmem.contradiction.normalize_text`. :func:`graphmem.contradiction.decide_text`
reads its score against fixed bands: ``>= 0.97`` duplicate, ``>= 0.88`` same note (supersede or,
when the new text negates, invalidate), below that a separate note.

The default, :func:`default_similarity`, is WordLlama's small embedding model (PyPI
``wordllama``, MIT; its 16 MB, 256-dimension weights ship inside the wheel and load offline in
about 0.2 s on first use). On 100 labelled note pairs (``tests/data/note_pairs.jsonl``,
``python -m benchmarks.note_similarity``) it decides 58% of the pairs right against 43% for the
lexical :func:`text_similarity` (paraphrases and updated notes are where it gains), with no
wrong supersession for either. Where ``wordllama`` cannot be imported, the default falls back
to :func:`text_similarity`: deterministic, offline, standard library only. Use
:class:`EmbeddingSimilarity` to plug in any embedding model.

>>> text_similarity("We deploy with Docker Compose", "we deploy with docker compose.")
1.0
>>> nearest("we use Postgres", [("we use Redis", "n1"), ("we now use Postgres", "n2")],
...         text_similarity)
('n2', 0.9684)
"""

from __future__ import annotations

import math
import re
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from typing import Protocol, TypeVar

from graphmem.contradiction import normalize_text
from graphmem.errors import InvalidInput

__all__ = [
    "DefaultSimilarity",
    "EmbeddingSimilarity",
    "Similarity",
    "default_similarity",
    "nearest",
    "text_similarity",
    "wordllama_similarity",
]

T = TypeVar("T")


class Similarity(Protocol):
    """How alike two texts are: symmetric, in ``[0, 1]``, ``1.0`` for equal normalised text."""

    def __call__(self, a: str, b: str) -> float:
        """Return the similarity of ``a`` and ``b``."""
        ...


# Function words weigh a quarter of a content word: "we now deploy with X" stays close to
# "we deploy with X", and so does its negation "we no longer deploy with X" (which keeps it in
# the band where decide_text can invalidate), while a changed content word moves the score a
# lot. Negation cue words count as function words for the same reason. Integer weights keep
# the sums exact, so the score is exactly symmetric.
_CONTENT_WEIGHT = 4
_FUNCTION_WEIGHT = 1
_FUNCTION_TEXT = """
    a about above actually after again all also am an and any anymore are as at be been before
    being both but by can could currently did do does doing during each either else even ever
    every for from further had has have having he her here hers him his how i if in into is it
    its just longer me more most my neither never no nobody none nor not nothing now nowhere of
    off on once only or other our ours out over own same she should since so some still such
    than that the their theirs them then there these they this those through to too under until
    up us very was we were what when where whether which while who whom why will with would yet
    you your yours
    correction corrections disregard false incorrect retract retracted true untrue wrong
"""
_FUNCTION_WORDS = frozenset(_FUNCTION_TEXT.split())
# Words that flip polarity or tense. Texts whose markers differ are never duplicates: they are
# capped below the noop band, so a negation that negates() misses still supersedes instead of
# being dropped as a noop, however long the note is.
_MARKER_TEXT = """
    not no never nobody none nor nothing nowhere neither anymore longer
    is are was were will would has have had used
"""
_MARKERS = frozenset(_MARKER_TEXT.split())
_MARKER_CAP = 0.96
_CONTRACTIONS = (
    (re.compile(r"\bwon't\b"), "will not"),
    (re.compile(r"\bcan't\b|\bcannot\b"), "can not"),
    (re.compile(r"n't\b"), " not"),
    (re.compile(r"'(?:s|re|ve|ll|d|m)\b"), ""),
)
# Numbers keep their dots ("3.11"); "C#"/"C++" keep their symbols. Not recall's tokenizer
# (graphmem.normalize.terms): these scores decide writes and are calibrated on labelled note
# pairs (docs/concepts/recall.md#the-words-of-recall).
_TOKEN = re.compile(r"\d+(?:[.,:]\d+)*|\w+[#+]*")
# Shares of the blend: stemmed words, exact words (tense and number count a little), trigrams.
_STEM_SHARE, _EXACT_SHARE, _GRAM_SHARE = 0.45, 0.15, 0.4
_ROUND = 4


def _stem(word: str) -> str:
    """Strip a few English inflections so "deploys"/"deployed"/"deploying" meet "deploy"."""
    if word.isdigit():
        return word
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and not word.endswith("ss") and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if len(word) > 3 and word.endswith("e") else word


def _tokens(normalized: str) -> list[str]:
    for pattern, replacement in _CONTRACTIONS:
        normalized = pattern.sub(replacement, normalized)
    return _TOKEN.findall(normalized)


def _weighted_bag(tokens: list[str], *, stem: bool) -> Counter[str]:
    bag: Counter[str] = Counter()
    for token in tokens:
        weight = _FUNCTION_WEIGHT if token in _FUNCTION_WORDS else _CONTENT_WEIGHT
        bag[_stem(token) if stem else token] += weight
    return bag


def _trigrams(tokens: list[str]) -> Counter[str]:
    """Character trigrams of the stemmed content words: typos, compounds, inflections."""
    content = [_stem(t) for t in tokens if t not in _FUNCTION_WORDS] or [_stem(t) for t in tokens]
    padded = f" {' '.join(content)} "
    return Counter(padded[i : i + 3] for i in range(len(padded) - 2))


def _dice(a: Counter[str], b: Counter[str], total: int | None = None) -> float:
    if total is None:
        total = sum(a.values()) + sum(b.values())
    if total == 0:
        return 1.0
    shared = sum(min(a[key], b[key]) for key in a.keys() & b.keys())
    return 2 * shared / total


# (bag, its total weight) for stemmed words, exact words and trigrams, plus the markers.
_Profile = tuple[
    tuple[Counter[str], int], tuple[Counter[str], int], tuple[Counter[str], int], Counter[str]
]


#: Texts up to this many characters have their features cached (about 10 KB for 100
#: characters, 45 KB for 500); longer ones are profiled on every comparison.
_CACHE_CHARS = 500


def _profile(normalized: str) -> _Profile | None:
    """Return the scoring features of a normalised text, or ``None`` when it has no words.

    Cached for short texts: ``remember`` scores one new note against every current note of a
    subject, so each stored note is profiled once, not once per comparison.
    """
    if len(normalized) <= _CACHE_CHARS:
        return _cached_profile(normalized)
    return _make_profile(normalized)


@lru_cache(maxsize=2048)
def _cached_profile(normalized: str) -> _Profile | None:
    return _make_profile(normalized)


def _make_profile(normalized: str) -> _Profile | None:
    tokens = _tokens(normalized)
    if not tokens:
        return None
    stem = _weighted_bag(tokens, stem=True)
    exact = _weighted_bag(tokens, stem=False)
    grams = _trigrams(tokens)
    markers = Counter(t for t in tokens if t in _MARKERS)
    return (
        (stem, sum(stem.values())),
        (exact, sum(exact.values())),
        (grams, sum(grams.values())),
        markers,
    )


@lru_cache(maxsize=2048)
def _normalized_cached(text: str) -> str:
    return normalize_text(text)


def _normalized(text: str) -> str:
    if not isinstance(text, str) or len(text) > _CACHE_CHARS:
        return normalize_text(text)  # also raises InvalidInput for a non-string
    return _normalized_cached(text)


def text_similarity(a: str, b: str) -> float:
    """Score how alike two statements are, offline and deterministically.

    The score blends three Dice overlaps of the :func:`~graphmem.contradiction.normalize_text`
    output: lightly stemmed words (45 %) and exact words (15 %), where function words and
    negation cues weigh a quarter of a content word, and character trigrams of the stemmed
    content words (40 %), which forgive compounds and inflections. Texts whose polarity or
    tense markers differ ("not", "no longer", "is"/"was" ...) are capped at ``0.96``, below the
    noop band. Rounded to four decimals. It is lexical: it sees shared words, not meaning.

    Measured against ``"we deploy with Docker Compose"`` (bands of ``decide_text``: ``>= 0.97``
    noop, ``>= 0.88`` supersede, or invalidate when the new text negates):

    ==================================================  ======  ============
    other text                                          score   band
    ==================================================  ======  ============
    ``"We deploy with Docker-Compose!"``                1.0     noop
    ``"we now deploy with Docker Compose"``             0.9793  noop
    ``"we deployed with Docker Compose"``               0.9571  supersede
    ``"we no longer deploy with Docker Compose"``       0.96    invalidate
    ``"we don't deploy with Docker Compose anymore"``   0.9419  invalidate
    ``"we deploy with Docker Compose and Helm"``        0.8646  add
    ``"we deplyo with Docker Compose"`` (typo)          0.7486  add
    ``"we deploy with Kubernetes"``                     0.4371  add
    ==================================================  ======  ============

    More: ``"Alice lives in Paris"`` vs ``"Alice doesn't live in Paris anymore"`` 0.8966, vs
    ``"Alice lives in Rome"`` 0.6714; one word changed in a 13-word note (``"Friday"`` to
    ``"Thursday"``) 0.881; ``"Bob is the tech lead ..."`` vs ``"Bob was the tech lead ..."``
    0.96. So a changed content word supersedes in a long note but adds a separate note in a
    short one, as embeddings would; a structured fact with a single-valued predicate handles
    the short case ("deploys_with") exactly.

    Args:
        a: A statement.
        b: Another statement.

    Returns:
        A score in ``[0, 1]``, symmetric, ``1.0`` when the normalised texts are equal.

    Raises:
        InvalidInput: ``a`` or ``b`` is not a string.

    Examples:
        >>> text_similarity("Alice moved to Berlin", "alice moved to berlin!")
        1.0
        >>> text_similarity("we deploy with Docker Compose", "we deploy with Kubernetes") < 0.88
        True
    """
    left, right = _normalized(a), _normalized(b)
    if left == right:
        return 1.0
    lp, rp = _profile(left), _profile(right)
    if lp is None or rp is None:
        return 0.0  # one side has no words at all ("---"): nothing to compare
    (ls, ls_n), (le, le_n), (lg, lg_n), lm = lp
    (rs, rs_n), (re_, re_n), (rg, rg_n), rm = rp
    score = (
        _STEM_SHARE * _dice(ls, rs, ls_n + rs_n)
        + _EXACT_SHARE * _dice(le, re_, le_n + re_n)
        + _GRAM_SHARE * _dice(lg, rg, lg_n + rg_n)
    )
    if lm != rm:
        score = min(score, _MARKER_CAP)
    return min(1.0, max(0.0, round(score, _ROUND)))


def _check_score(score: object, a: str, b: str) -> float:
    if (
        isinstance(score, bool)
        or not isinstance(score, (int, float))
        or not math.isfinite(score)
        or not 0.0 <= score <= 1.0
    ):
        raise InvalidInput(
            f"similarity of {a!r} and {b!r} is {score!r}; a Similarity must return a finite "
            "number in [0, 1]"
        )
    return float(score)


def nearest(
    text: str, candidates: Iterable[tuple[str, T]], similarity: Similarity
) -> tuple[T, float] | None:
    """Pick the candidate most similar to ``text``.

    Deterministic: the first candidate wins ties, and the scan stops at the first score of
    ``1.0``. Callers pass only the notes of the same subject
    (docs/concepts/decisions.md#the-decision-rules: a contradiction check
    never scans the whole graph).

    Args:
        text: The new statement.
        candidates: ``(candidate_text, key)`` pairs; ``key`` is returned (a fact, an id ...).
        similarity: The :class:`Similarity` to score with, e.g. :func:`text_similarity`.

    Returns:
        ``(key, score)`` of the best candidate, or ``None`` when there are no candidates.

    Raises:
        InvalidInput: ``similarity`` returned something other than a finite number in
            ``[0, 1]``.

    Examples:
        >>> nearest("Alice lives in Paris", [], text_similarity) is None
        True
        >>> nearest("Alice lives in Paris",
        ...         [("Bob lives in Paris", 1), ("alice lives in paris.", 2)], text_similarity)
        (2, 1.0)
    """
    best: tuple[T, float] | None = None
    for candidate_text, key in candidates:
        score = _check_score(similarity(text, candidate_text), text, candidate_text)
        if best is None or score > best[1]:
            best = (key, score)
            if score == 1.0:
                break
    return best


class EmbeddingSimilarity:
    """Cosine similarity of embeddings, for any embedding model.

    ``embed`` maps a text to a vector (a list, tuple or array of floats); results are cached
    per text in a small LRU cache, so scoring one new note against ``n`` candidates calls the
    model ``n + 1`` times once, then hits the cache. Negative cosines count as ``0.0``, a zero
    vector scores ``0.0``, and equal normalised texts score ``1.0`` without calling the model.
    Pure Python: no numpy needed. Not thread-safe (the cache is a plain ``OrderedDict``).

    Args:
        embed: The embedding function, e.g.
            ``lambda t: model.encode(t).tolist()`` for a sentence-transformers model.
        cache_size: How many embeddings to keep; ``0`` disables the cache.

    Raises:
        InvalidInput: ``cache_size`` is negative.

    Examples:
        >>> def embed(text: str) -> list[float]:  # a toy model: letter counts
        ...     return [text.count(c) for c in "abcdefghijklmnopqrstuvwxyz"]
        >>> sim = EmbeddingSimilarity(embed)
        >>> sim("Alice lives in Paris", "alice lives in paris.")
        1.0
        >>> round(sim("abc", "abd"), 4)
        0.6667
    """

    def __init__(self, embed: Callable[[str], Sequence[float]], *, cache_size: int = 1024) -> None:
        if cache_size < 0:
            raise InvalidInput(f"cache_size must be >= 0, got {cache_size!r}")
        self._embed = embed
        self._cache_size = cache_size
        self._cache: OrderedDict[str, tuple[tuple[float, ...], float]] = OrderedDict()

    def _vector(self, text: str) -> tuple[tuple[float, ...], float]:
        cached = self._cache.get(text)
        if cached is not None:
            self._cache.move_to_end(text)
            return cached
        vector = tuple(float(x) for x in self._embed(text))
        if not vector or not all(math.isfinite(x) for x in vector):
            raise InvalidInput(
                f"embedding of {text!r} must be a non-empty vector of finite numbers, "
                f"got {vector[:8]!r}"
            )
        entry = (vector, math.sqrt(math.fsum(x * x for x in vector)))
        if self._cache_size:
            self._cache[text] = entry
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return entry

    def __call__(self, a: str, b: str) -> float:
        """Return the cosine similarity of the embeddings of ``a`` and ``b``, clamped to [0, 1].

        Args:
            a: A statement.
            b: Another statement.

        Returns:
            The clamped cosine similarity; ``1.0`` for equal normalised texts.

        Raises:
            InvalidInput: A text is not a string, the model returned an empty or non-finite
                vector, or the two vectors have different lengths.
        """
        if normalize_text(a) == normalize_text(b):
            return 1.0
        (va, na), (vb, nb) = self._vector(a), self._vector(b)
        if len(va) != len(vb):
            raise InvalidInput(
                f"embeddings of {a!r} and {b!r} have different lengths ({len(va)} != {len(vb)})"
            )
        if na == 0.0 or nb == 0.0:
            return 0.0
        # fsum over the pairwise products is order-independent: the score is exactly symmetric.
        cosine = math.fsum(x * y for x, y in zip(va, vb, strict=True)) / (na * nb)
        return min(1.0, max(0.0, cosine))


def wordllama_similarity() -> EmbeddingSimilarity:
    """WordLlama's bundled model as an :class:`EmbeddingSimilarity` (no download, ever).

    WordLlama's own loader looks for the tokenizer in a folder its wheel does not have and
    would then try to download it; the weights and tokenizer shipped inside the wheel are
    loaded explicitly instead, with downloads disabled.

    Raises:
        ExtraUnavailable: ``wordllama`` is not installed, or its bundled files are missing.
    """
    import os

    from graphmem.errors import ExtraUnavailable

    try:
        import wordllama
    except ImportError as exc:
        raise ExtraUnavailable(
            "the embedding similarity needs WordLlama; run: pip install 'wordllama>=0.4,<0.5'"
        ) from exc
    try:
        model = wordllama.WordLlama.load(
            cache_dir=os.path.dirname(wordllama.__file__), disable_download=True
        )
    except (FileNotFoundError, OSError, ValueError) as exc:
        raise ExtraUnavailable(f"WordLlama's bundled model could not be loaded: {exc}") from exc

    def embed(text: str) -> list[float]:
        return [float(x) for x in model.embed([text])[0]]

    return EmbeddingSimilarity(embed)


class DefaultSimilarity:
    """The default note similarity: WordLlama when it loads, else :func:`text_similarity`.

    The model loads on the first comparison (not at import or open), once per process.
    """

    _shared: Similarity | None = None

    @property
    def name(self) -> str:
        """``"wordllama"`` or ``"lexical"``: what scores the notes (loads the model)."""
        return "wordllama" if isinstance(self._load(), EmbeddingSimilarity) else "lexical"

    @classmethod
    def _load(cls) -> Similarity:
        if cls._shared is None:
            from graphmem.errors import ExtraUnavailable

            try:
                cls._shared = wordllama_similarity()
            except ExtraUnavailable as exc:
                import logging

                logging.getLogger(__name__).warning("notes use the lexical similarity: %s", exc)
                cls._shared = text_similarity
        return cls._shared

    def __call__(self, a: str, b: str) -> float:
        """Return the similarity of ``a`` and ``b`` in ``[0, 1]``.

        Raises:
            InvalidInput: a text is not a string.
        """
        return self._load()(a, b)


def default_similarity() -> DefaultSimilarity:
    """Return the default similarity of ``gm.open()`` (see :class:`DefaultSimilarity`)."""
    return DefaultSimilarity()
