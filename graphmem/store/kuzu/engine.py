"""The embedded store on Kuzu 0.11.3 (default) or its fork ladybug: schema, entities, versions.

:class:`KuzuStore` is the core of the embedded backend; the topic mixins
(``sessions``, ``lines``, ``search``, ``audit``, ``transfer``, ``integrity``) extend it and
:class:`~graphmem.store.kuzu.backend.KuzuBackend` composes them. It is built in layers, each a
module of its own:

- :mod:`~graphmem.store.kuzu.connection`: the engine's handles: open, close, checkpoints and
  prepared queries (the only importer of kuzu or ladybug);
- :mod:`~graphmem.store.kuzu.statements`: the logged writes and point reads, one prepared
  statement a row or one ``UNWIND`` (the measured query shapes,
  docs/concepts/storage.md#engine-facts);
- :mod:`~graphmem.store.kuzu.transactions`: the write transaction, with big inserts deferred
  to a COPY-only commit;
- :mod:`~graphmem.store.kuzu.codec`: rows to values and back, and the Arrow tables of a COPY;
- this module: the schema on open (create, upgrade, recover), predicates, entities and the
  fact versions of the store protocol (:mod:`graphmem.store.base`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping, Sequence

from graphmem.errors import SchemaVersionError, StoreError
from graphmem.models import Entity, Fact, Predicate
from graphmem.store.cypher.reads import CypherReads
from graphmem.store.kuzu.codec import _RETURN, KUZU, _fact_from_row
from graphmem.store.kuzu.connection import CHECKPOINT_BYTES, CHECKPOINT_COMMITS, ENGINES
from graphmem.store.kuzu.schema import DDL, SCHEMA_VERSION, UPGRADES
from graphmem.store.kuzu.statements import POINT_VS_SCAN, SMALL_BATCH
from graphmem.store.kuzu.transactions import COPY_THRESHOLD, WRITE_COSTS, KuzuTransactions

__all__ = [
    "CHECKPOINT_BYTES",
    "CHECKPOINT_COMMITS",
    "COPY_THRESHOLD",
    "ENGINES",
    "POINT_VS_SCAN",
    "SMALL_BATCH",
    "WRITE_COSTS",
    "KuzuStore",
]


class KuzuStore(KuzuTransactions, CypherReads):
    """Graphmem's storage on a Kuzu-family engine (one database, one connection)."""

    dialect = KUZU

    def __init__(
        self, path: str | None = None, *, engine: str = "kuzu", read_only: bool = False
    ) -> None:
        super().__init__(path, engine=engine, read_only=read_only)
        self.executor.open(self)
        try:
            self._init_schema()
            self.executor.size = self._recover()
            if path is not None and not read_only:
                # A purge's file rebuild that a crash cut short is finished first (vacuum).
                from graphmem.store.kuzu.vacuum import finish_interrupted

                finish_interrupted(self)
        except BaseException:
            self.close()
            raise

    def _init_schema(self) -> None:
        tables = {row[0] for row in self.run("CALL show_tables() RETURN name")}
        if "Meta" in tables:
            rows = self.run("MATCH (m:Meta {key: 'schema_version'}) RETURN m.value")
            found = rows[0][0] if rows else None
            if found in UPGRADES and not self.read_only:
                self._upgrade(found)
                return
            if found in UPGRADES:
                raise SchemaVersionError(
                    f"database {self.path!r} has graphmem schema version {found!r}, this graphmem "
                    f"needs {SCHEMA_VERSION}; open it once without read_only (CLI: without "
                    "--read-only) to upgrade it in place"
                )
            if found != str(SCHEMA_VERSION):
                raise SchemaVersionError(
                    f"database {self.path!r} has graphmem schema version {found!r}, this graphmem "
                    f"needs {SCHEMA_VERSION}; export it with the graphmem that wrote it "
                    "('graphmem export') and import it into a new database"
                )
            return
        if not tables and self.read_only:
            raise StoreError(f"database {self.path!r} is empty and opened read-only")
        if tables:
            raise SchemaVersionError(
                f"database {self.path!r} holds tables {sorted(tables)} but no graphmem schema; "
                "open another path"
            )
        with self.transaction():
            for stmt in DDL:
                self.run(stmt)
            self.run(
                "CREATE (:Meta {key: 'schema_version', value: $v})", {"v": str(SCHEMA_VERSION)}
            )

    def _upgrade(self, found: str) -> None:
        """Upgrade an older schema in one transaction (``graphmem.store.kuzu.schema.UPGRADES``)."""
        with self.transaction():
            for stmt in UPGRADES[found]:
                self.run(stmt)
            self._upgrade_data(found)
            self.set_meta("schema_version", str(SCHEMA_VERSION))

    def _upgrade_data(self, found: str) -> None:
        """Fill what an upgrade's DDL added (the lines topic overrides it: KuzuLines).

        ``found`` is the version upgraded from; schema 3's ``Fact.source_type`` stays NULL on
        the versions written before it (nobody said who said them).
        """

    def _recover(self) -> int:
        """Return how many entities and versions are stored; repair a lagging marker.

        Only a crash between a COPY-only commit and its marker's commit leaves the ``last_write``
        marker behind the data; a writable open moves it up to the newest system time stored.
        """
        if self.read_only:  # no marker to repair: the count alone (a scan of no column)
            versions = self._q("MATCH ()-[r:Fact]->() RETURN count(*)")[0][0]
            return int(self._q("MATCH (e:Entity) RETURN count(*)")[0][0]) + int(versions)
        self._undo_copy_pending()
        rows = self._q(
            "MATCH ()-[r:Fact]->() RETURN max(r.recorded_at), max(r.expired_at), count(r)"
        )
        entities = int(self._q("MATCH (e:Entity) RETURN count(e)")[0][0])
        if not rows or not rows[0][2]:
            return entities
        newest = max(t for t in rows[0][:2] if t is not None).replace(tzinfo=dt.timezone.utc)
        marker = self.max_system_time()
        if not self.read_only and (marker is None or marker < newest):
            with self.transaction():
                self.set_max_system_time(newest)
        return entities + int(rows[0][2])

    def save_predicates(self, predicates: Sequence[Predicate]) -> None:
        """Insert or update predicate definitions.

        Inside a transaction, new predicates wait for the commit (they may go with a bulk COPY).
        """
        if not predicates:
            return
        if self._in_tx and not self._logged:
            found = self.executor.execute(
                "UNWIND $n AS n MATCH (p:Predicate {name: n}) RETURN p.name",
                {"n": [p.name for p in predicates]},
            )
            if not found:
                self._pending_predicates.update({p.name: p for p in predicates})
                return
        self._materialize()
        self._save_predicates(predicates)

    def entity_names(self, ids: Sequence[str]) -> dict[str, str]:
        """Return ``{id: display name}`` for those ids that exist."""
        if self._pending_entities:
            self._materialize()
        return self._names(ids)

    def upsert_entities(self, entities: Sequence[Entity]) -> None:
        """Create missing entities; update kind and aliases of existing ones.

        An existing entity keeps its display name; ``kind="entity"`` and empty aliases leave
        the stored kind and aliases alone.
        """
        if not entities:
            return
        rows = [
            {"id": e.id, "name": e.name, "kind": e.kind, "aliases": list(e.aliases)}
            for e in {e.id: e for e in entities}.values()
        ]
        if self._holding():
            self._pending_ops.append(("upsert", rows, None))
            return
        self._materialize()
        self._upsert(rows)

    # -- fact versions --------------------------------------------------------------------------

    def current_versions(
        self,
        subject_ids: Sequence[str],
        *,
        pairs: Collection[tuple[str, str]] | None = None,
    ) -> dict[str, list[Fact]]:
        """Return the versions not closed in system time, per subject id.

        With ``pairs`` (``(subject id, predicate)``), only the versions of those pairs: a write
        whose rules look at one predicate of a subject reads a tenth of the rows (converting a
        row costs about 10 µs, docs/benchmarks.md#appending). One prepared point query per subject
        (or pair) up to :data:`SMALL_BATCH`, else one ``UNWIND`` query.
        """
        if pairs is not None and subject_ids:
            return self._current_of_pairs({s: [] for s in subject_ids}, pairs)
        return self._versions_of(subject_ids, current=True)

    def _subject_versions(self, ids: Sequence[str]) -> dict[str, list[Fact]]:
        """Every version of each subject, current and closed: what the version cache keeps."""
        return self._versions_of(ids, current=False)

    def _versions_of(self, ids: Sequence[str], *, current: bool) -> dict[str, list[Fact]]:
        """The versions of each subject (``current``: only those not closed in system time).

        One prepared point query a subject up to :data:`SMALL_BATCH`, else one ``UNWIND``;
        without the object node (joining it doubles a point read on Kuzu 0.11.3); the
        rel-property filter goes behind a ``WITH``
        (docs/concepts/storage.md#kuzu-planner-traps-we-avoid).
        """
        out: dict[str, list[Fact]] = {s: [] for s in ids}
        if not out:
            return out
        live = "WHERE r.expired_at IS NULL"
        point_filter = f" WITH a, r {live}" if current else ""
        batch_filter = f" WITH i, a, r {live}" if current else ""
        if self._point_lookups(len(out)):
            query = f"MATCH (a:Entity {{id: $i}})-[r:Fact]->(){point_filter} RETURN {_RETURN}"
            for i in out:
                out[i] = [_fact_from_row(row) for row in self._q(query, {"i": i})]
            return out
        rows = self._q(
            f"UNWIND $ids AS i MATCH (a:Entity {{id: i}})-[r:Fact]->(){batch_filter} "
            f"RETURN i, {_RETURN}",
            {"ids": list(out)},
        )
        for row in rows:
            out[row[0]].append(_fact_from_row(row[1:]))
        return out

    def _current_of_pairs(
        self, out: dict[str, list[Fact]], pairs: Collection[tuple[str, str]]
    ) -> dict[str, list[Fact]]:
        wanted = [(s, p) for s, p in dict.fromkeys(pairs) if s in out]
        if self._point_lookups(len(wanted)):
            query = (
                "MATCH (a:Entity {id: $i})-[r:Fact]->() "
                f"WITH a, r WHERE r.predicate = $p AND r.expired_at IS NULL RETURN {_RETURN}"
            )
            for i, p in wanted:
                out[i].extend(_fact_from_row(row) for row in self._q(query, {"i": i, "p": p}))
            return out
        if not wanted:
            return out
        rows = self._q(
            "UNWIND $pairs AS pr MATCH (a:Entity {id: pr.s})-[r:Fact]->() "
            "WITH pr, a, r WHERE r.predicate = pr.p AND r.expired_at IS NULL "
            f"RETURN pr.s, {_RETURN}",
            {"pairs": [{"s": s, "p": p} for s, p in wanted]},
        )
        for row in rows:
            out[row[0]].append(_fact_from_row(row[1:]))
        return out

    def insert_facts(
        self,
        rows: Sequence[tuple[str, str, Fact]],
        *,
        entities: Mapping[str, Entity] | None = None,
    ) -> None:
        """Insert new versions given as ``(subject id, object id, fact)``.

        A missing endpoint is created: from ``entities[id]`` when given, else named after the
        fact's subject or object with kind ``entity``. A batch of at least
        :data:`COPY_THRESHOLD` versions that a COPY writes faster than logged inserts
        (:data:`WRITE_COSTS`; :attr:`copy_policy`) waits for the end of the transaction, where it
        is copied if the transaction logged nothing else
        (:mod:`~graphmem.store.kuzu.transactions`); other batches are logged inserts
        (:meth:`_insert_rows`).
        """
        if not rows:
            return
        known = entities or {}
        policy = self.copy_policy
        stored = -1
        if len(rows) >= COPY_THRESHOLD and policy != "never":
            stored = self._stored_versions()
        if stored < 0 or (policy == "auto" and not self._copy_pays(len(rows), stored)):
            self._materialize()
            self._insert_rows(rows, known)
            return
        self._pending_into = self._pending_into or ("copy-empty" if stored == 0 else "copy-append")
        if not self._in_tx:
            with self.transaction():
                self.insert_facts(rows, entities=entities)
            return
        if self._logged:
            self._materialize()
            self._insert_rows(rows, known)
            return
        ends = dict.fromkeys(
            i for s, o, _ in rows for i in (s, o) if i not in self._pending_entities
        )
        unnamed = {i for i in ends if i not in known}  # not said to be new: name it after a fact
        names: dict[str, str] = {}
        for s, o, f in rows if unnamed else ():
            if s in unnamed:
                names.setdefault(s, f.subject)
            if o in unnamed:
                names.setdefault(o, f.object)
        wanted = {i: known[i] if i in known else Entity(id=i, name=names[i]) for i in ends}
        existing = self._names(list(wanted))
        self._pending_entities.update({i: e for i, e in wanted.items() if i not in existing})
        self._pending_facts.extend(rows)

    def close_versions(
        self, rows: Sequence[tuple[str, str, str | None, str]], *, at: dt.datetime
    ) -> None:
        """Close versions in system time: rows of ``(subject id, fid, superseded_by, reason)``."""
        if not rows:
            return
        data = [[s, f, b, why] for s, f, b, why in rows]
        if self._holding():
            self._pending_ops.append(("close", data, at.isoformat()))
            return
        self._materialize()
        self._close(data, at.isoformat())

    def settle_versions(self, rows: Sequence[tuple[str, str, str]]) -> None:
        """Set the reason of disputed versions: rows of ``(subject id, fid, reason)``.

        Only a version closed at birth (``expired_at = recorded_at``: a dispute, never part of
        any ``known_at`` answer) is touched (docs/concepts/decisions.md#authority-and-disputes).
        """
        if not rows:
            return
        self._materialize()
        for s, f, why in rows:
            self._q(
                "MATCH (a:Entity {id: $s})-[r:Fact]->() WHERE r.fid = $f "
                "AND r.expired_at = r.recorded_at SET r.reason = $reason",
                {"s": s, "f": f, "reason": why},
                write=True,
            )

    def bump_access(self, rows: Sequence[tuple[str, str, int]], *, at: dt.datetime) -> None:
        """Set access counters: rows of ``(subject id, fid, new access_count)``."""
        if not rows:
            return
        data = [[s, f, n] for s, f, n in rows]
        if self._holding():
            self._pending_ops.append(("bump", data, at.isoformat()))
            return
        self._materialize()
        self._bump(data, at.isoformat())

    def get_facts(self, fids: Sequence[str]) -> list[Fact]:
        """Return versions by id (a scan: rel properties have no index)."""
        if not fids:
            return []
        rows = self._q(
            f"MATCH (a:Entity)-[r:Fact]->() WITH a, r WHERE r.fid IN $f RETURN {_RETURN}",
            {"f": list(fids)},
        )
        return [_fact_from_row(r) for r in rows]

    def max_system_time(self) -> dt.datetime | None:
        """Return the newest system-time instant written (a recorded_at or expired_at)."""
        value = self.get_meta("last_write")
        return dt.datetime.fromisoformat(value) if value else None

    def set_max_system_time(self, at: dt.datetime) -> None:
        """Record the newest system-time instant written (the ``last_write`` marker).

        In a transaction whose bulk versions wait for a COPY-only commit, the marker is written
        right after that commit (:mod:`~graphmem.store.kuzu.transactions`).
        """
        if self._in_tx and self._pending_facts and not self._logged:
            self._pending_marker = at.isoformat()
            return
        self._advance_marker(at.isoformat())
