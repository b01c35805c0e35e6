"""The ``jsonl`` export format (the canonical backup): the export records, one JSON line each.

A ``header`` line with the format version, then one record per line, each with a ``type``:
``meta``, ``predicate``, ``entity``, ``session``, ``fact``, ``audit``
(:mod:`graphmem.export.records`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import IO, Any

from graphmem.errors import InvalidInput
from graphmem.export.records import _TOO_DEEP, _Dump, _from_records, _records

__all__ = ["read", "write"]


def write(dump: _Dump, out: IO[str]) -> None:
    """Write the records of ``dump``, one JSON object a line."""
    for record in _records(dump):
        out.write(json.dumps(record, ensure_ascii=False) + "\n")


def read(text: str) -> _Dump:
    """Read a ``jsonl`` export (the message of a bad line names it)."""
    return _read_jsonl(text.split("\n"))


def _read_jsonl(lines: Iterable[str]) -> _Dump:
    def parsed() -> Iterator[tuple[str, Any]]:
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                yield f"line {n}", json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"line {n}: invalid JSON ({exc.msg})") from exc
            except RecursionError as exc:
                raise InvalidInput(f"line {n}: {_TOO_DEEP}") from exc

    return _from_records(parsed())
