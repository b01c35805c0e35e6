"""Store operations of the audit trail: privacy purge, audit records, session lookups, rate seed.

Functions over a :class:`~graphmem.store.kuzu.engine.KuzuStore` (only ``graphmem/store/`` holds
Cypher). Query shapes follow docs/concepts/storage.md#with-barrier: filters on rel properties sit
behind ``WITH``, ``UNWIND`` only ever matches one node by primary key, and node lookups go through
the index.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Any

from graphmem.models import Session
from graphmem.store.kuzu.engine import KuzuStore
from graphmem.timeutil import from_store, to_store

__all__ = ["KuzuAudit", "REDACTED"]

#: What a purged name is replaced with in session texts.
REDACTED = "[purged]"


def _redact(text: str | None, patterns: Sequence[re.Pattern[str]]) -> str | None:
    if text is None:
        return None
    for pattern in patterns:
        text = pattern.sub(REDACTED, text)
    return text


class KuzuAudit(KuzuStore):
    """Sessions by id, the purge and audit records on Kuzu."""

    def get_sessions(self, ids: Sequence[str]) -> list[Session]:
        """Return the sessions with these ids that exist, in the order of ``ids``, with mentions."""
        if not ids:
            return []
        rows = self.run(
            "UNWIND $ids AS i MATCH (s:Session {id: i}) "
            "OPTIONAL MATCH (s)-[m:MENTIONS]->(e:Entity) "
            "RETURN s.id, s.started_at, s.ended_at, s.title, s.text, s.summary, s.source, "
            "collect({name: e.name, n: m.count})",
            {"ids": list(dict.fromkeys(ids))},
        )
        found: dict[str, Session] = {}
        for r in rows:
            started = from_store(r[1])
            if started is None:  # a session node without a start cannot be a Session model
                continue
            found[r[0]] = Session(
                id=r[0],
                started_at=started,
                ended_at=from_store(r[2]),
                title=r[3],
                text=r[4],
                summary=r[5],
                source=r[6],
                mentions={m["name"]: int(m["n"]) for m in r[7] if m.get("name") is not None},
            )
        return [found[i] for i in dict.fromkeys(ids) if i in found]

    def purge_entity(
        self,
        entity_id: str,
        *,
        names: Sequence[str],
    ) -> dict[str, int]:
        """Physically delete an entity, every fact version touching it, and its traces.

        Deletes: every ``Fact`` edge whose subject or object is the entity, the entity node (its
        aliases live on it) and the ``MENTIONS`` edges to it; objects of its facts left with no
        fact, no mention and no alias (e.g. the text node of a purged note); and ``names`` (display
        name, aliases) inside session titles, texts and summaries, which become ``[purged]``.
        The caller holds the transaction (and records the audit with :meth:`record_audit`).

        Returns:
            Counts: ``versions``, ``entities`` (the entity plus deleted orphans), ``mentions``,
            ``sessions_redacted``.
        """
        out = self.run(
            "MATCH (e:Entity {id: $e})-[r:Fact]->(o:Entity) RETURN r.fid, o.id", {"e": entity_id}
        )
        into = self.run(
            "MATCH (:Entity)-[r:Fact]->(e:Entity {id: $e}) RETURN r.fid", {"e": entity_id}
        )
        fids = {r[0] for r in out} | {r[0] for r in into}
        # Objects of its facts are values about it (an address, a note's text): delete those left
        # unconnected. Subjects of facts naming it (Bob knows Alice) are other people: kept.
        objects = sorted({r[1] for r in out} - {entity_id})
        mentions = self.run(
            "MATCH (:Session)-[m:MENTIONS]->(e:Entity {id: $e}) RETURN count(m)", {"e": entity_id}
        )[0][0]
        if any(o == entity_id for _, o in out):
            # With a self-loop among its edges, Kuzu 0.11.3's DETACH DELETE leaves an edge into
            # the node behind (counted by count(r), invisible to MATCH (a)-[r]->(b)): its edges
            # go first. Only then: deleting the edges before the DETACH DELETE in every purge was
            # torn by the crash harness (a kill after the commit replayed it wrongly).
            self.run("MATCH (e:Entity {id: $e})-[r:Fact]->(e) DELETE r", {"e": entity_id})
            self.run("MATCH ()-[r:Fact]->(e:Entity {id: $e}) DELETE r", {"e": entity_id})
            self.run("MATCH (e:Entity {id: $e})-[r:Fact]->() DELETE r", {"e": entity_id})
        self.run("MATCH (e:Entity {id: $e}) DETACH DELETE e", {"e": entity_id})
        orphans = []
        if objects:
            orphans = self.run(
                "UNWIND $ids AS i MATCH (x:Entity {id: i}) "
                "WHERE NOT EXISTS { MATCH (x)-[:Fact]-() } "
                "AND NOT EXISTS { MATCH (:Session)-[:MENTIONS]->(x) } "
                "AND (x.aliases IS NULL OR size(x.aliases) = 0) "
                "DELETE x RETURN i",
                {"ids": objects},
            )
        redacted = 0
        words = sorted({n.strip() for n in names if n and n.strip()}, key=len, reverse=True)
        if words:
            patterns = [re.compile(rf"(?<!\w){re.escape(w)}(?!\w)", re.IGNORECASE) for w in words]
            hits: dict[str, list[Any]] = {}
            for w in words:
                for r in self.run(
                    "MATCH (s:Session) WHERE lower(coalesce(s.title, '')) CONTAINS $w "
                    "OR lower(coalesce(s.text, '')) CONTAINS $w "
                    "OR lower(coalesce(s.summary, '')) CONTAINS $w "
                    "RETURN s.id, s.title, s.text, s.summary",
                    {"w": w.lower()},
                ):
                    hits[r[0]] = r
            for sid, title, text, summary in hits.values():
                new = (
                    _redact(title, patterns),
                    _redact(text, patterns),
                    _redact(summary, patterns),
                )
                if new == (title, text, summary):
                    continue
                redacted += 1
                self.run(
                    "MATCH (s:Session {id: $id}) SET s.title = cast($t AS STRING), "
                    "s.text = cast($x AS STRING), s.summary = cast($m AS STRING)",
                    {"id": sid, "t": new[0], "x": new[1], "m": new[2]},
                )
        return {
            "versions": len(fids),
            "entities": 1 + len(orphans),
            "mentions": int(mentions),
            "sessions_redacted": redacted,
        }

    def record_audit(self, audit_id: str, *, at: dt.datetime, action: str, detail: str) -> None:
        """Create an ``Audit`` node (``detail`` must not hold purged content)."""
        self.run(
            "CREATE (:Audit {id: $id, at: $at, action: $action, detail: $detail})",
            {"id": audit_id, "at": to_store(at), "action": action, "detail": detail},
        )

    def count_predicate_versions(self, predicate: str) -> int:
        """Return how many fact versions (current or closed) are stored under ``predicate``.

        One scan of the ``Fact`` rels (rel properties have no index), behind a ``WITH`` barrier.
        """
        rows = self.run(
            "MATCH ()-[r:Fact]->() WITH r WHERE r.predicate = $p RETURN count(r)", {"p": predicate}
        )
        return int(rows[0][0]) if rows else 0

    def audit_records(
        self, *, since: dt.datetime, until: dt.datetime | None = None
    ) -> list[tuple[str, dt.datetime, str, str]]:
        """Return ``(id, at, action, detail)`` of audit records within ``[since, until)``."""
        params: dict[str, Any] = {"a0": to_store(since)}
        cond = "a.at >= $a0"
        if until is not None:
            cond += " AND a.at < $a1"
            params["a1"] = to_store(until)
        rows = self.run(
            f"MATCH (a:Audit) WHERE {cond} "
            "RETURN a.id, a.at, a.action, a.detail ORDER BY a.at, a.id",
            params,
        )
        out = []
        for r in rows:
            at = from_store(r[1])
            assert at is not None
            out.append((r[0], at, r[2] or "", r[3] or ""))
        return out
