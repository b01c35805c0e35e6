"""Deterministic name normalisation: entity keys and predicate names.

See docs/concepts/model.md#rule-2.

>>> entity_key("  Acme   CORP ")
'acme corp'
>>> entity_key("ｆｕｌｌ width")
'full width'
>>> predicate_name("Works At")
'works_at'
>>> predicate_name("<isMarriedTo>")
'is_married_to'
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata

from graphmem.errors import InvalidInput

__all__ = [
    "MAX_ID",
    "MAX_KEY",
    "MAX_NAME",
    "MAX_SUBJECT",
    "MAX_TEXT",
    "STOPWORDS",
    "TERMS_VERSION",
    "check_size",
    "check_text",
    "clean_name",
    "clean_subject",
    "entity_key",
    "names_phrase",
    "predicate_name",
    "stem",
    "terms",
]

MAX_KEY = 256
#: The longest id accepted, in characters: session ids (a session's lines are keyed by it).
MAX_ID = 1024
#: The longest name accepted, in characters: objects, and the hard bound of every name. An
#: object can be a note's whole text (free-text facts store it as the object), so the bound is
#: well above the default statement bound (10,000).
MAX_NAME = 100_000
#: The longest name of a thing, in characters: subjects, declared entity names, aliases and
#: session mention names (docs/errors.md#size-bounds). A subject names what a fact is about
#: ("api", "Alice"); text belongs in the object, the statement or ``remember(text)``.
MAX_SUBJECT = 1_000
#: The longest other text accepted, in characters: statements (which admission control bounds
#: further, 10,000 by default), reasons, sources, kinds and descriptions.
MAX_TEXT = 1_000_000
#: English stop words left out of keyword matching (context, search, the line index).
STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves tell know currently current today""".split()  # noqa: SIM905
)
_WS = re.compile(r"\s+")
_NON_WORD = re.compile(r"[^0-9a-z_]+")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")


def _shown(value: object) -> str:
    """Return a short repr for messages (a huge value is never echoed whole)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:50] + "..." + text[-6:]


def check_size(value: str, *, what: str, limit: int) -> str:
    """Return ``value`` when it has at most ``limit`` characters.

    >>> check_size("x" * 12, what="reason", limit=10)
    Traceback (most recent call last):
    ...
    graphmem.errors.InvalidInput: reason has 12 characters; at most 10 are accepted ...

    Raises:
        InvalidInput: too long; the message names the field, its size and the bound.
    """
    if len(value) > limit:
        raise InvalidInput(
            f"{what} has {len(value):,} characters; at most {limit:,} are accepted "
            f"(starts {value[:30]!r}); store large documents elsewhere and keep a reference "
            "or a summary (docs/errors.md, size bounds)"
        )
    return value


def check_text(value: object, *, what: str, limit: int = MAX_TEXT) -> str:
    """Return ``value`` when it is a string the store can hold: encodable as UTF-8, bounded.

    Raises:
        InvalidInput: not a string, longer than ``limit`` characters (default
            :data:`MAX_TEXT`), or it holds an unpaired surrogate (such as U+D800, left by
            decoding bytes with ``errors="surrogateescape"``).
    """
    if not isinstance(value, str):
        raise InvalidInput(
            f"{what}={_shown(value)} ({type(value).__name__}) is not a string; pass text"
        )
    check_size(value, what=what, limit=limit)
    return check_unicode(value, what=what)


def check_unicode(value: str, *, what: str) -> str:
    """Return ``value`` when it is valid Unicode text (encodable as UTF-8).

    Raises:
        InvalidInput: it holds an unpaired surrogate (such as U+D800).
    """
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"{what} holds {value[exc.start : exc.end]!r} at position {exc.start}, an unpaired "
            "surrogate that is not valid Unicode text; decode the input properly "
            "(e.g. bytes.decode('utf-8', errors='replace'))"
        ) from None
    return value


def _plain(name: object) -> bool:
    """A name that normalisation leaves as it is: printable ASCII, single spaces, no ends.

    (Printable ASCII holds no whitespace but the space, and NFKC maps it to itself.)
    """
    return (
        type(name) is str
        and 0 < len(name) <= MAX_NAME
        and name.isascii()
        and name.isprintable()
        and name[0] != " "
        and name[-1] != " "
        and "  " not in name
    )


def clean_name(name: object, *, what: str = "name") -> str:
    """Return a display name: NFKC, whitespace collapsed, stripped; reject empty or non-str.

    Raises:
        InvalidInput: when ``name`` is not a string, is blank or is longer than
            :data:`MAX_NAME` characters (before or after normalisation).
    """
    if _plain(name):
        return name  # type: ignore[return-value]  # _plain is true of str only
    if not isinstance(name, str):
        raise InvalidInput(
            f"{what}={_shown(name)} ({type(name).__name__}) is not a string; pass text such as "
            "'Alice'"
        )
    check_text(name, what=what, limit=MAX_NAME)
    text = _WS.sub(" ", unicodedata.normalize("NFKC", name)).strip()
    check_size(text, what=f"{what} (normalised)", limit=MAX_NAME)
    if not text:
        raise InvalidInput(f"{what}={name!r} is empty; pass a non-blank name")
    return text


def clean_subject(name: object, *, what: str = "subject") -> str:
    """Return the display name of a subject, entity, alias or mention, bounded.

    :func:`clean_name`, at most :data:`MAX_SUBJECT` characters.

    >>> clean_subject("  the   api ")
    'the api'
    >>> clean_subject("x" * 1_001)
    Traceback (most recent call last):
    ...
    graphmem.errors.InvalidInput: subject has 1,001 characters; a subject names a thing in at ...

    Raises:
        InvalidInput: not a string, blank, or longer than :data:`MAX_SUBJECT` characters once
            normalised; the message gives the length and what to do.
    """
    # A name longer than MAX_NAME is refused before it is normalised (that costs time).
    text = name if isinstance(name, str) and len(name) > MAX_NAME else clean_name(name, what=what)
    if len(text) > MAX_SUBJECT:
        raise InvalidInput(
            f"{what} has {len(text):,} characters; a subject names a thing in at most "
            f"{MAX_SUBJECT:,} (starts {text[:30]!r}); use a short name such as 'api' or "
            "'Alice' and put the text in the object or the statement, or pass it to "
            "remember(text) (docs/errors.md, size bounds)"
        )
    return text


def entity_key(name: str) -> str:
    """Return the normalised key of a name: NFKC, casefolded, whitespace collapsed.

    Keys longer than ``MAX_KEY`` characters keep a prefix and a content hash, so free-text
    objects of any length map to a bounded, deterministic key.

    Raises:
        InvalidInput: when ``name`` is not a string or is blank.
    """
    if _plain(name) and len(name) <= MAX_KEY:
        return name.lower()  # ASCII: NFKC changes nothing, casefold is lower
    key = clean_name(name).casefold()
    key = _WS.sub(" ", unicodedata.normalize("NFKC", key)).strip()
    if len(key) > MAX_KEY:
        digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        key = f"{key[:200]}#{digest}"
    return key


def predicate_name(name: object) -> str:
    """Return the canonical spelling of a predicate: lower snake_case ASCII.

    Raises:
        InvalidInput: when nothing usable is left (e.g. ``"!!"``).
    """
    if type(name) is str:
        return _cached_predicate_name(name)
    return _predicate_name(name)


def _predicate_name(name: object) -> str:
    """Uncached :func:`predicate_name`."""
    text = _CAMEL.sub(r"\1_\2", clean_name(name, what="predicate")).casefold()
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    snake = _NON_WORD.sub("_", text).strip("_")
    snake = re.sub(r"_+", "_", snake)
    if not snake:
        raise InvalidInput(
            f"predicate={name!r} has no letters or digits; use a name such as 'works_at'"
        )
    if len(snake) > 100:
        raise InvalidInput(
            f"predicate={snake[:40]!r}... is longer than 100 characters; use a short name"
        )
    return snake


# Writes resolve every row's predicate a few times; bulk loads of 1M rows spent 5% here
# (docs/benchmarks.md#results).
_cached_predicate_name = functools.lru_cache(maxsize=4096)(_predicate_name)


_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)


#: The version of :func:`terms` (and :func:`stem`): stores record the version their lines'
#: terms were computed with and recompute them on open when it differs
#: (docs/concepts/recall.md#how-lines-are-ranked). Version 1 stripped ``es`` whole, so
#: "likes" became ``lik`` while "like" stayed ``like``.
TERMS_VERSION = "3"
#: One word for the spellings of a technology or an environment (as the reader's aliases,
#: docs/concepts/text.md#names), so "PostgreSQL" in a question finds "postgres:16.3" in a line.
#: Version 2 had none.
_SAME_WORD = {
    "postgresql": "postgres",
    "postgre": "postgres",
    "k8s": "kubernetes",
    "kube": "kubernetes",
    "prod": "production",
    "stg": "staging",
    "golang": "go",
}
#: Endings after which a final ``s`` is part of the word ("class", "status", "analysis").
_KEEP_S = ("ss", "us", "is")


def stem(word: str) -> str:
    """Strip one common suffix (``ing``, ``ies``, the ``d`` of ``ed``, ``s``), then a final ``e``.

    Every form of a word ending in ``e`` meets: "like", "likes", "liked" and "liking" all
    become ``lik``; "agree", "agreed", "agrees" become ``agre``. What is left keeps at least
    3 letters (so a final ``e`` goes only from 4 letters up).

    >>> [stem(w) for w in ("deploys", "running", "companies", "used", "gas", "class")]
    ['deploy', 'runn', 'company', 'used', 'gas', 'class']
    >>> {stem(w) for w in ("like", "likes", "liked", "liking")}
    {'lik'}
    >>> [stem(w) for w in ("boxes", "classes", "agreed", "agree", "needed", "ended", "status")]
    ['box', 'class', 'agre', 'agre', 'need', 'end', 'status']
    """
    base = word
    if word.endswith("ing") and len(word) >= 6:
        base = word[:-3]
    elif word.endswith("ies") and len(word) >= 6:
        base = word[:-3] + "y"
    elif word.endswith("ed") and len(word) >= 5:
        base = word[:-1]  # "liked" -> "like", "played" -> "playe": the final e goes below
    elif word.endswith("s") and len(word) >= 4 and not word.endswith(_KEEP_S):
        base = word[:-1]
    if base.endswith("e") and len(base) > 3:
        base = base[:-1]
    return base


@functools.lru_cache(maxsize=8192)
def term_set(text: str) -> frozenset[str]:
    """The set of :func:`terms` of a text, cached.

    Recall asks for the same lines' words again and again (echo folding, superseded and
    restated marks, neighbours).

    >>> sorted(term_set("We moved the API to Go; the API runs on Go now."))
    ['api', 'go', 'mov', 'run']
    """
    return frozenset(terms(text))


def terms(text: str) -> list[str]:
    """Return the indexed words of a text, in order (repeats kept).

    >>> terms("Caroline: I went to the LGBTQ support group in 2023!")
    ['carolin', 'went', 'lgbtq', 'support', 'group']
    >>> terms("PostgreSQL on k8s") == terms("postgres on Kubernetes")
    True
    """
    words = _TOKEN.findall(unicodedata.normalize("NFKC", text).casefold())
    words = [_SAME_WORD.get(w, w) for w in words]
    return [stem(w) for w in words if len(w) > 1 and not w.isdigit() and w not in STOPWORDS]


def names_phrase(value: str, text: str) -> bool:
    """Whether ``text`` (case-folded, spaces collapsed) names ``value`` as a whole word or phrase.

    >>> names_phrase("Zendesk", "we use zendesk now"), names_phrase("Zendesk", "zendesks")
    (True, False)
    """
    value = " ".join(value.split()).casefold()
    if len(value) <= 2:
        return False
    # as re's (?<!\w)value(?!\w), without compiling a pattern per value (one per fact object)
    at = text.find(value)
    while at >= 0:
        end = at + len(value)
        if not (at and _word(text[at - 1])) and not (end < len(text) and _word(text[end])):
            return True
        at = text.find(value, at + 1)
    return False


def _word(ch: str) -> bool:
    r"""Whether ``ch`` is a word character (re's ``\w`` for ``str``: alphanumeric or ``_``)."""
    return ch.isalnum() or ch == "_"
