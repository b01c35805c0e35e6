"""Store operations of the audit trail: privacy purge, audit records, session lookups, rate seed.

Functions over a :class:`~graphmem.store.kuzu.engine.KuzuStore` (only ``graphmem/store/`` holds
Cypher). Query shapes follow docs/concepts/storage.md#with-barrier: filters on rel properties sit
behind ``WITH``, ``UNWIND`` only ever matches one node by primary key, and node lookups go through
the index.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from graphmem.models import Session
from graphmem.store.kuzu.engine import KuzuStore
from graphmem.store.textlines import REDACTED, name_patterns, names_in, redact
from graphmem.timeutil import from_store, to_store

__all__ = ["KuzuAudit", "REDACTED"]


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
        fact, no mention and no alias (e.g. the text node of a purged note); every sentence
        naming it (display name, aliases) in session texts and summaries, titles and statements
        naming it, which become ``[purged]``; and topics only those sentences mentioned.
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
        redacted, unmentioned = self._redact_names(names)
        candidates = sorted(set(objects) | unmentioned)
        orphans = []
        if candidates:
            orphans = self.run(
                "UNWIND $ids AS i MATCH (x:Entity {id: i}) "
                "WHERE NOT EXISTS { MATCH (x)-[:Fact]-() } "
                "AND NOT EXISTS { MATCH (:Session)-[:MENTIONS]->(x) } "
                "AND (x.aliases IS NULL OR size(x.aliases) = 0) "
                "DELETE x RETURN i",
                {"ids": candidates},
            )
        return {
            "versions": len(fids),
            "entities": 1 + len(orphans),
            "mentions": int(mentions),
            "sessions_redacted": redacted,
        }

    def _redact_names(self, names: Sequence[str]) -> tuple[int, set[str]]:
        """Redact what names the purged entity: session sentences and titles, statements.

        Every sentence of a session's text or summary that names it, and a title that names
        it, becomes ``[purged]`` (:func:`graphmem.store.textlines.redact`); the session's
        mentions of entities no longer named in what is left go too (a topic only the redacted
        sentences named). A statement of another fact that names it is redacted the same way.

        Returns:
            How many sessions were redacted, and the entities that lost a mention.
        """
        patterns = name_patterns(names)
        words = sorted({n.strip().lower() for n in names if n and n.strip()})
        if not patterns:
            return 0, set()
        hits: dict[str, list[Any]] = {}
        statements: dict[str, str] = {}
        for w in words:
            for r in self.run(
                "MATCH (s:Session) WHERE lower(coalesce(s.title, '')) CONTAINS $w "
                "OR lower(coalesce(s.text, '')) CONTAINS $w "
                "OR lower(coalesce(s.summary, '')) CONTAINS $w "
                "RETURN s.id, s.title, s.text, s.summary",
                {"w": w},
            ):
                hits[r[0]] = r
            for fid, statement in self.run(
                "MATCH ()-[r:Fact]->() WITH r WHERE lower(r.statement) CONTAINS $w "
                "RETURN r.fid, r.statement",
                {"w": w},
            ):
                statements[fid] = statement
        redacted = 0
        unmentioned: set[str] = set()
        for sid, title, text, summary in hits.values():
            new = (
                REDACTED if names_in(title, patterns) else title,
                redact(text, patterns),
                redact(summary, patterns),
            )
            if new == (title, text, summary):
                continue
            redacted += 1
            self.run(
                "MATCH (s:Session {id: $id}) SET s.title = cast($t AS STRING), "
                "s.text = cast($x AS STRING), s.summary = cast($m AS STRING)",
                {"id": sid, "t": new[0], "x": new[1], "m": new[2]},
            )
            kept = " ".join(t for t in new if t)
            gone = [
                eid
                for eid, name, aliases in self.run(
                    "MATCH (:Session {id: $id})-[:MENTIONS]->(e:Entity) "
                    "RETURN e.id, e.name, e.aliases",
                    {"id": sid},
                )
                if not names_in(kept, name_patterns([name, *(aliases or [])]))
            ]
            if gone:
                self.run(
                    "UNWIND $ids AS i MATCH (:Session {id: $id})-[m:MENTIONS]->(:Entity {id: i}) "
                    "DELETE m",
                    {"id": sid, "ids": gone},
                )
                unmentioned.update(gone)
        for fid, statement in statements.items():
            self.run(
                "MATCH ()-[r:Fact]->() WITH r WHERE r.fid = $f SET r.statement = $s",
                {"f": fid, "s": redact(statement, patterns)},
            )
        return redacted, unmentioned

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
