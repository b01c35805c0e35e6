"""Store operations of the audit trail on Kuzu: the privacy purge and the audit records it writes.

Audit records and sessions by id are read by the shared Cypher
(:mod:`graphmem.store.cypher.sessions`). Query shapes follow
docs/concepts/storage.md#with-barrier: filters on rel properties sit behind ``WITH``,
``UNWIND`` only ever matches one node by primary key, and node lookups go through the index.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from graphmem.store.cypher import sessions as shared_sessions
from graphmem.store.kuzu.engine import KuzuStore
from graphmem.store.textlines import REDACTED, name_patterns, names_in, redact, redact_session
from graphmem.timeutil import to_store

__all__ = ["KuzuAudit", "REDACTED"]


class KuzuAudit(KuzuStore):
    """Sessions by id, the purge and audit records on Kuzu."""

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
        if mentions:
            # Kuzu 0.11.3's DETACH DELETE can leave a MENTIONS edge into the deleted node
            # behind, which a count that reads nothing of the node still counts
            # (docs/concepts/storage.md#purged-group): those edges go first.
            self.run(
                "MATCH (:Session)-[m:MENTIONS]->(e:Entity {id: $e}) DELETE m", {"e": entity_id}
            )
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
        hits = shared_sessions.sessions_naming(self, words)
        statements: dict[str, str] = {}
        for w in words:
            for fid, statement in self.run(
                "MATCH ()-[r:Fact]->() WITH r WHERE lower(r.statement) CONTAINS $w "
                "RETURN r.fid, r.statement",
                {"w": w},
            ):
                statements[fid] = statement
        redacted = 0
        unmentioned: set[str] = set()
        for sid, title, text, summary in hits.values():
            new = redact_session(title, text, summary, patterns)
            if new is None:
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
