"""Deterministic name normalisation: entity keys and predicate names (SPEC §1).

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

__all__ = ["MAX_KEY", "check_text", "clean_name", "entity_key", "predicate_name"]

MAX_KEY = 256
_WS = re.compile(r"\s+")
_NON_WORD = re.compile(r"[^0-9a-z_]+")
_CAMEL = re.compile(r"([a-z0-9])([A-Z])")


def check_text(value: object, *, what: str) -> str:
    """Return ``value`` when it is a string the store can hold: encodable as UTF-8.

    Raises:
        InvalidInput: not a string, or it holds an unpaired surrogate (such as U+D800, left
            by decoding bytes with ``errors="surrogateescape"``).
    """
    if not isinstance(value, str):
        raise InvalidInput(f"{what}={value!r} ({type(value).__name__}) is not a string; pass text")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInput(
            f"{what} holds {value[exc.start : exc.end]!r} at position {exc.start}, an unpaired "
            "surrogate that is not valid Unicode text; decode the input properly "
            "(e.g. bytes.decode('utf-8', errors='replace'))"
        ) from None
    return value


def clean_name(name: object, *, what: str = "name") -> str:
    """Return a display name: NFKC, whitespace collapsed, stripped; reject empty or non-str.

    Raises:
        InvalidInput: when ``name`` is not a string or is blank.
    """
    if not isinstance(name, str):
        raise InvalidInput(
            f"{what}={name!r} ({type(name).__name__}) is not a string; pass text such as 'Alice'"
        )
    check_text(name, what=what)
    text = _WS.sub(" ", unicodedata.normalize("NFKC", name)).strip()
    if not text:
        raise InvalidInput(f"{what}={name!r} is empty; pass a non-blank name")
    return text


def entity_key(name: str) -> str:
    """Return the normalised key of a name: NFKC, casefolded, whitespace collapsed.

    Keys longer than ``MAX_KEY`` characters keep a prefix and a content hash, so free-text
    objects of any length map to a bounded, deterministic key.

    Raises:
        InvalidInput: when ``name`` is not a string or is blank.
    """
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


# Writes resolve every row's predicate a few times; bulk loads of 1M rows spent 5% here (#6).
_cached_predicate_name = functools.lru_cache(maxsize=4096)(_predicate_name)
