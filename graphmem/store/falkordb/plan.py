"""A change set compiled into the parts of one FalkorDB query (docs/falkordb.md#what-is-atomic).

:class:`Plan` collects ``(Cypher, rows)`` parts, each run as ``UNWIND $rows`` behind the guard
of the lost-reply check and the write order, joined by the barrier ``WITH count(*) AS _``;
the row builders turn versions, entities, predicates, sessions and session lines into the
property maps those parts write. :mod:`graphmem.store.falkordb.writes` decides what goes in.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.models import Entity, Fact
from graphmem.store.falkordb.codec import from_db, to_db
from graphmem.store.kuzu.schema import FACT_COLUMNS
from graphmem.store.records import LineRow
from graphmem.store.textlines import doc_terms, split_lines

__all__ = [
    "Plan",
    "entity_row",
    "fact_props",
    "line_rows",
    "note_lines",
    "session_props",
]

_COLS = [c for c, _ in FACT_COLUMNS]
_TIME_COLS = {c for c, t in FACT_COLUMNS if t == "TIMESTAMP"}
_BARRIER = " WITH count(*) AS _ "
#: Before each part: whether this change set's token is absent (a resent query that had
#: committed does nothing: the token part is the query's last, so every guard before it sees
#: the state before this query).
#: It also checks the write order (docs/falkordb.md#what-is-atomic): the write counter the
#: writer lock read (``$fence``; ``NULL`` outside the lock) and the memory's id (``$mid``;
#: ``NULL`` before one is known) must be unchanged (:mod:`graphmem.store.falkordb.order`).
_GUARD = (
    "OPTIONAL MATCH (tx:GraphmemTx {key: 'tokens'}) "
    "WITH CASE WHEN tx IS NULL THEN $mid IS NULL AND coalesce($fence, 0) = 0 "
    "ELSE NOT $tok IN coalesce(tx.recent, []) "
    "AND ($fence IS NULL OR coalesce(tx.serial, 0) = $fence) "
    "AND ($mid IS NULL OR tx.memory = $mid) END AS ok "
)
#: The query's answer: whether its token is recorded (it applied, now or before) and the
#: state a refused write is explained by.
_RETURN = (
    "OPTIONAL MATCH (t:GraphmemTx {key: 'tokens'}) "
    "RETURN $tok IN coalesce(t.recent, []), t.lines_base, t.memory, t.serial"
)


def fact_props(f: Fact) -> dict[str, Any]:
    """A version's edge properties (NULLs left out: FalkorDB stores no NULL)."""
    data = f.__dict__
    out: dict[str, Any] = {}
    for name in _COLS:
        value = data["id" if name == "fid" else name]
        if name in _TIME_COLS:
            value = to_db(value)
        if value is not None:
            out[name] = value
    return out


def entity_row(e: Entity | Mapping[str, Any]) -> dict[str, Any]:
    """An entity's node properties, from a model or an imported row."""
    if isinstance(e, Entity):
        return {"id": e.id, "name": e.name, "kind": e.kind, "aliases": list(e.aliases)}
    return {
        "id": e["id"],
        "name": e.get("name"),
        "kind": e.get("kind"),
        "aliases": list(e.get("aliases") or []),
    }


def session_props(
    sid: str,
    started: dt.datetime,
    ended: dt.datetime | None,
    title: str | None,
    text: str | None,
    summary: str | None,
    source: str | None,
    recorded: dt.datetime,
    scope: str | None = None,
) -> dict[str, Any]:
    """A session's node properties (NULLs left out)."""
    props = {
        "id": sid,
        "started_at": to_db(started),
        "ended_at": to_db(ended),
        "title": title,
        "text": text,
        "summary": summary,
        "source": source,
        "recorded_at": to_db(recorded),
        "scope": scope or None,  # the root scope is absent, as on sessions before schema 4
    }
    return {k: v for k, v in props.items() if v is not None}


def line_rows(
    sid: str, text: str | None, started: dt.datetime, recorded: dt.datetime
) -> list[dict[str, Any]]:
    """The ``SessionLine`` nodes of a session text (as Kuzu's ``replace_lines`` splits it)."""
    out = []
    for n, (speaker, body) in enumerate(split_lines(text), start=1):
        row = {
            "id": f"{sid}#{n}",
            "session": sid,
            "n": n,
            "speaker": speaker,
            "text": body,
            "terms": doc_terms(speaker, body),
            "started_at": to_db(started),
            "recorded_at": to_db(recorded),
        }
        out.append({k: v for k, v in row.items() if v is not None})
    return out


def note_lines(plan: Plan, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Remember the created lines as ``(LineRow, terms)`` and return them."""
    for r in lines:
        start = from_db(r["started_at"])
        assert start is not None
        row = LineRow(
            r["id"], r["session"], r["n"], r.get("speaker"), r["text"], start,
            from_db(r.get("recorded_at")) or start,
        )  # fmt: skip
        plan.lines_added.append((row, r["terms"]))
    return lines


class Plan:
    """The parts of one write: ``(Cypher, rows)`` in order, each run as ``UNWIND $rows``."""

    def __init__(self) -> None:
        self.parts: list[tuple[str, str, list[Any]]] = []  # (name, body using $<name>, rows)
        self.scalars: dict[str, Any] = {}
        self.ret = _RETURN
        #: Sessions whose lines are deleted and the lines created (for the search side).
        self.lines_removed: set[str] = set()
        self.lines_added: list[tuple[LineRow, str]] = []

    def add(self, body: str, rows: Sequence[Any], *, always: bool = False) -> None:
        """Add ``UNWIND $pN AS row <body>`` (left out when ``rows`` is empty, unless ``always``)."""
        if rows or always:
            name = f"p{len(self.parts)}"
            self.parts.append((name, body, list(rows)))

    def size(self) -> int:
        """The rows of every part."""
        return sum(len(rows) for _, _, rows in self.parts)

    def query(self) -> tuple[str, dict[str, Any]]:
        """The whole write as one query and its parameters."""
        pieces = [
            f"{_GUARD}UNWIND CASE WHEN ok THEN ${name} ELSE [] END AS row {body}"
            for name, body, _ in self.parts
        ]
        params = {name: rows for name, _, rows in self.parts}
        params.update(self.scalars)
        text = _BARRIER.join(pieces)
        return (text + _BARRIER + self.ret) if pieces else self.ret, params

    def chunks(self, size: int) -> list[tuple[str, dict[str, Any]]]:
        """The write as queries of at most ``size`` rows each (parts kept in order)."""
        out: list[tuple[str, dict[str, Any]]] = []
        for name, body, rows in self.parts:
            for i in range(0, max(len(rows), 1), size):
                params = {name: rows[i : i + size], **self.scalars}
                out.append((f"UNWIND ${name} AS row {body}{_BARRIER}RETURN 1", params))
        return out
