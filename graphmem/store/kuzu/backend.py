"""The embedded backend: Kuzu 0.11.3 or ladybug behind the store protocol.

:class:`KuzuUncached` composes the engine and fact versions (:class:`KuzuStore`, with its parts
``executor`` and ``writer``) with one mixin per topic (sessions, lines, search, audit, transfer,
integrity) and commits a :class:`~graphmem.store.base.ChangeSet` in one Kuzu transaction of its
writer (:meth:`KuzuUncached.apply`);
:class:`KuzuBackend` puts the version cache in front of it
(:mod:`graphmem.store.cache`, docs/concepts/storage.md#version-cache).
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

from graphmem.store import linefile, locks
from graphmem.store.base import Applied, Capabilities, ChangeSet, Purge, Snapshot
from graphmem.store.cache import CachedVersions
from graphmem.store.kuzu import guard
from graphmem.store.kuzu.audit import KuzuAudit
from graphmem.store.kuzu.checkpoint import BASE_SUFFIX
from graphmem.store.kuzu.integrity import KuzuIntegrity
from graphmem.store.kuzu.search import KuzuSearch
from graphmem.store.kuzu.sessions import KuzuSessions
from graphmem.store.kuzu.transfer import KuzuTransfer

__all__ = ["KuzuBackend", "KuzuUncached"]


class KuzuUncached(KuzuSessions, KuzuSearch, KuzuAudit, KuzuTransfer, KuzuIntegrity):
    """A graphmem store in an embedded Kuzu-family database, every read from the engine."""

    @property
    def capabilities(self) -> Capabilities:
        """Transactions and COPY; full text where the FTS extension loads; files on disk."""
        on_disk = self.path is not None
        return Capabilities(
            transactions=True,
            bulk_copy=True,
            full_text=self.fts_available(),
            vacuum=on_disk,
            embedded=True,
            files=self.files(),
        )

    def files(self) -> tuple[str, ...]:
        """The database file and the files the engine and graphmem keep beside it."""
        if self.path is None:
            return ()
        path = os.fspath(self.path)
        beside = (
            ".wal",
            ".shadow",
            ".tmp",
            guard.SEAL_SUFFIX,
            BASE_SUFFIX,
            locks.GATE_SUFFIX,
            linefile.SUFFIX,
        )
        return (path, *(path + s for s in beside))

    def vacuum(self) -> None:
        """Rebuild the database file from its live rows (a purge's bytes leave the disk)."""
        from graphmem.store.kuzu.vacuum import compact

        compact(self)

    @contextmanager
    def exclusive(self) -> Iterator[dt.datetime | None]:
        """Nothing to hold: one process writes an embedded file (its lock); yields ``None``."""
        yield None

    def apply(self, changes: ChangeSet) -> Applied:
        """Commit a change set in one transaction, in the order its docstring gives."""
        at = changes.at
        purged: dict[str, int] = {}
        writer = self.writer
        with writer.transaction():
            if changes.snapshot is not None:
                self._load(changes.snapshot)
            if changes.predicates:
                writer.save_predicates(changes.predicates)
            if changes.entities:
                writer.upsert_entities(changes.entities)
            if changes.aliases:
                self.set_aliases(changes.aliases)
            if changes.bumps:
                writer.bump_access(changes.bumps, at=at)
            if changes.access:
                self.count_access(changes.access, at=at)
            if changes.closes:
                writer.close_versions(changes.closes, at=at)
            if changes.inserts:
                writer.insert_facts(changes.inserts, entities=changes.new_entities)
            if changes.settles:
                writer.settle_versions(changes.settles)
            if changes.sessions:
                self.write_sessions(changes.sessions, recorded_at=at)
            if changes.purge is not None:
                purged = self._purge(changes.purge, at=at)
            for audit_id, action, detail in changes.audit:
                self.record_audit(audit_id, at=at, action=action, detail=detail)
            for key, value in changes.meta.items():
                writer.set_meta(key, value)
            if changes.marker:
                # Its versions show the instant: the marker may wait in memory
                # (docs/concepts/storage.md#lazy-marker).
                inserts = changes.inserts
                shown = bool(changes.closes) or any(f.recorded_at == at for *_, f in inserts)
                writer.set_max_system_time(at, shown=shown)
        return Applied(purged=purged)

    def set_aliases(self, aliases: Mapping[str, Sequence[str]]) -> None:
        """Replace the aliases of existing entities (``ChangeSet.aliases``): logged writes."""
        rows = [{"id": eid, "aliases": list(keys)} for eid, keys in sorted(aliases.items())]
        body = "MATCH (e:Entity {{id: {p}id}}) SET e.aliases = cast({p}aliases AS STRING[])"
        self.writer.write_rows(
            body.format(p="$"), "UNWIND $rows AS row " + body.format(p="row."), rows
        )

    def _purge(self, purge: Purge, *, at: dt.datetime) -> dict[str, int]:
        # The entities merged into it first (docs/concepts/decisions.md#merging-entities),
        # skipping one already deleted as an orphan of another; the names are redacted once.
        counts = {"versions": 0, "entities": 0, "mentions": 0, "sessions_redacted": 0}
        names: Sequence[str] = purge.names
        for eid in [*purge.merged, purge.entity_id]:
            if eid != purge.entity_id and self.get_entity(eid) is None:
                continue
            for key, n in self.purge_entity(eid, names=names).items():
                counts[key] = counts.get(key, 0) + n
            names = ()
        # The redacted session texts are split into lines again: the episodic index must not
        # keep the purged name.
        self.reindex_sessions(self.sessions_with_lines_containing(purge.names))
        self.release_line_index()  # an index read from the file keeps its pages mapped
        self.forget_claims()
        detail = {k: v for k, v in purge.detail.items() if k != "reason"} | counts
        if "reason" in purge.detail:
            detail["reason"] = purge.detail["reason"]
        self.record_audit(purge.audit_id, at=at, action="purge", detail=json.dumps(detail))
        return counts

    def _load(self, snapshot: Snapshot) -> None:
        restore = self.restore
        restore.predicates(snapshot.predicates)
        restore.entities(snapshot.entities)
        if snapshot.sessions:
            restore.sessions(snapshot.sessions)
            self.replace_lines(restore.lines(snapshot.sessions))  # split again from the texts
            restore.mentions(snapshot.sessions)
        self.writer.insert_facts(snapshot.facts)
        restore.audit(snapshot.audit)
        restore.meta(snapshot.meta)


class KuzuBackend(CachedVersions, KuzuUncached):
    """A graphmem store in an embedded Kuzu-family database (a file, or in memory).

    Point reads of subjects come from the version cache when it holds them: one process
    writes an embedded file, and every write of this one passes the cache
    (docs/concepts/storage.md#version-cache).
    """
