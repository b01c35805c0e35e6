"""The import's writes on Kuzu: a whole memory restored into an empty store.

:class:`KuzuRestore` is a part of the embedded store, its ``restore``
(docs/concepts/storage.md#the-backends-parts): it writes the rows of a
:class:`~graphmem.store.base.Snapshot` through the store's writer, inside the transaction of
the change set that carries it. Restoring bypasses the write decisions: it writes history as
it was recorded (ids, both time axes, reasons, counters). The whole-memory reads of an export
are :mod:`graphmem.store.kuzu.transfer`'s.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.models import Predicate
from graphmem.store.kuzu.transactions import KuzuWriter
from graphmem.timeutil import to_store

__all__ = ["KuzuRestore"]


class KuzuRestore:
    """Writes a snapshot's meta, predicates, entities, sessions and audit records."""

    def __init__(self, writer: KuzuWriter) -> None:
        #: The store's writer: every statement runs in its transaction.
        self.writer = writer

    def meta(self, values: Mapping[str, str]) -> None:
        """Set metadata keys."""
        for key, value in sorted(values.items()):
            self.writer.set_meta(key, value)

    def predicates(self, predicates: Sequence[Predicate]) -> None:
        """Replace the whole ontology by ``predicates``."""
        self.writer.run("MATCH (p:Predicate) DELETE p")
        self.writer.save_predicates(predicates)

    def entities(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Create entities from ``{id, name, kind, aliases}`` rows, values as given."""
        if not rows:
            return
        self.writer.run(
            "UNWIND $rows AS row CREATE (:Entity {id: row.id, name: cast(row.name AS STRING), "
            "kind: cast(row.kind AS STRING), aliases: cast(row.aliases AS STRING[])})",
            {
                "rows": [
                    {
                        "id": r["id"],
                        "name": r.get("name"),
                        "kind": r.get("kind"),
                        "aliases": list(r.get("aliases") or []),
                    }
                    for r in rows
                ]
            },
        )

    def sessions(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Create sessions (their lines and MENTIONS edges follow: :meth:`lines`, :meth:`mentions`).

        A row without ``recorded_at`` (an export older than schema 2) is recorded at its
        ``started_at``.
        """
        self.writer.run(
            "UNWIND $rows AS row CREATE (:Session {id: row.id, "
            "started_at: cast(row.started_at AS TIMESTAMP), "
            "ended_at: cast(row.ended_at AS TIMESTAMP), "
            "title: cast(row.title AS STRING), text: cast(row.text AS STRING), "
            "summary: cast(row.summary AS STRING), source: cast(row.source AS STRING), "
            "recorded_at: cast(row.recorded_at AS TIMESTAMP), scope: cast(row.scope AS STRING)})",
            {
                "rows": [
                    {
                        "id": r["id"],
                        "started_at": to_store(r["started_at"]),
                        "ended_at": to_store(r.get("ended_at")),
                        "title": r.get("title"),
                        "text": r.get("text"),
                        "summary": r.get("summary"),
                        "source": r.get("source"),
                        "recorded_at": to_store(r.get("recorded_at") or r["started_at"]),
                        "scope": r.get("scope") or None,
                    }
                    for r in rows
                ]
            },
        )

    @staticmethod
    def lines(
        rows: Sequence[Mapping[str, Any]],
    ) -> list[tuple[str, str | None, dt.datetime, dt.datetime]]:
        """The sessions whose lines the store splits again from their texts (not exported)."""
        return [
            (r["id"], r.get("text"), r["started_at"], r.get("recorded_at") or r["started_at"])
            for r in rows
            if r.get("text")
        ]

    def mentions(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Create the MENTIONS edges of sessions (both ends exist)."""
        mentions = [
            {"s": r["id"], "e": eid, "n": int(n)}
            for r in rows
            for eid, n in sorted((r.get("mentions") or {}).items())
        ]
        if mentions:
            # MERGE, not MATCH, on both endpoints: UNWIND + MATCH on two nodes plans as a cross
            # product on Kuzu 0.11.3 (docs/concepts/storage.md#engine-facts); both
            # nodes exist already.
            self.writer.run(
                "UNWIND $rows AS row MERGE (s:Session {id: row.s}) MERGE (e:Entity {id: row.e}) "
                "CREATE (s)-[:MENTIONS {count: cast(row.n AS INT64)}]->(e)",
                {"rows": mentions},
            )

    def audit(self, rows: Sequence[Mapping[str, Any]]) -> None:
        """Create audit records from ``{id, at, action, detail}`` rows."""
        if not rows:
            return
        self.writer.run(
            "UNWIND $rows AS row CREATE (:Audit {id: row.id, at: cast(row.at AS TIMESTAMP), "
            "action: cast(row.action AS STRING), detail: cast(row.detail AS STRING)})",
            {
                "rows": [
                    {
                        "id": r["id"],
                        "at": to_store(r.get("at")),
                        "action": r.get("action"),
                        "detail": r.get("detail"),
                    }
                    for r in rows
                ]
            },
        )
