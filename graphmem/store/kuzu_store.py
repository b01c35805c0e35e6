"""The embedded store on Kuzu 0.11.3 (default) or its fork ladybug: the only importer of either.

Query shapes follow the measured planner traps of Kuzu 0.11.3 (STACK_NOTES §2):
- every filter on rel properties sits behind a ``WITH`` barrier, or the planner scans all edges;
- batches never use ``UNWIND ... MATCH (a {id}), (b {id})`` (a cross product); endpoints are
  ``MERGE``-d through the primary-key index, and big batches use ``COPY`` from Arrow;
- values inside ``UNWIND`` rows are ``cast`` explicitly (a NULL first row breaks type inference).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from graphmem.errors import SchemaVersionError, StoreBusy, StoreError
from graphmem.models import Entity, Fact, Predicate, Session
from graphmem.store.schema import DDL, FACT_COLUMNS, SCHEMA_VERSION
from graphmem.timeutil import from_store, to_store

__all__ = ["COPY_THRESHOLD", "ENGINES", "KuzuStore"]

ENGINES = {"kuzu": "kuzu", "ladybug": "ladybug"}
#: Batches with at least this many new versions are inserted with COPY from an Arrow table.
COPY_THRESHOLD = 2000
#: Up to this many rows, one parameterised statement per row beats UNWIND (0.7 ms vs 4 ms a
#: call on Kuzu 0.11.3): the number of queries per batch stays bounded either way.
SMALL_BATCH = 8

_COLS = [c for c, _ in FACT_COLUMNS]
_RETURN = "a.name AS subject, " + ", ".join(f"r.{c}" for c in _COLS)
_TIME_COLS = {c for c, t in FACT_COLUMNS if t == "TIMESTAMP"}
_CAST = {
    "STRING": "STRING",
    "TIMESTAMP": "TIMESTAMP",
    "DOUBLE": "DOUBLE",
    "INT64": "INT64",
    "BOOLEAN": "BOOLEAN",
}


def _fact_from_row(row: Sequence[Any]) -> Fact:
    data: dict[str, Any] = {"subject": row[0]}
    for name, value in zip(_COLS, row[1:], strict=True):
        data["id" if name == "fid" else name] = from_store(value) if name in _TIME_COLS else value
    data["access_count"] = data["access_count"] or 0
    data["pinned"] = bool(data["pinned"])
    return Fact.model_validate(data)


def _fact_params(f: Fact) -> dict[str, Any]:
    data = f.model_dump()
    out: dict[str, Any] = {}
    for name in _COLS:
        value = data["id" if name == "fid" else name]
        out[name] = to_store(value) if name in _TIME_COLS else value
    return out


class KuzuStore:
    """Graphmem's storage on a Kuzu-family engine (one database, one connection)."""

    def __init__(
        self, path: str | None = None, *, engine: str = "kuzu", read_only: bool = False
    ) -> None:
        if engine not in ENGINES:
            raise StoreError(f"engine={engine!r} is unknown; use one of {sorted(ENGINES)}")
        try:
            self._mod = importlib.import_module(ENGINES[engine])
        except ImportError as exc:
            from graphmem.errors import ExtraUnavailable

            raise ExtraUnavailable(
                f"engine {engine!r} is not installed; run: pip install 'graphmem[{engine}]'"
            ) from exc
        self.engine = engine
        self.path = path
        self.read_only = read_only
        target = ":memory:" if path is None else os.fspath(path)
        try:
            self._db = self._mod.Database(target, read_only=read_only)
            self._conn = self._mod.Connection(self._db)
        except RuntimeError as exc:
            msg = str(exc)
            if "lock" in msg.lower():
                raise StoreBusy(
                    f"database {path!r} is in use by another process ({msg}); stop that process "
                    "(e.g. the MCP server) or open with read_only=True / --read-only when every "
                    "process only reads"
                ) from exc
            raise StoreError(f"cannot open database {path!r}: {msg}") from exc
        self._in_tx = False
        self._has_fts: bool | None = None
        self._init_schema()

    # -- plumbing -----------------------------------------------------------------------------

    def close(self) -> None:
        """Close the connection and the database."""
        for obj in (getattr(self, "_conn", None), getattr(self, "_db", None)):
            if obj is not None:
                with contextlib.suppress(RuntimeError):  # closing twice
                    obj.close()

    def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Execute one parameterised query and return all rows.

        Raises:
            StoreError: the engine failed; the message includes its own.
        """
        try:
            result = self._conn.execute(query, dict(params or {}))
            rows: list[list[Any]] = result.get_all()
            return rows
        except RuntimeError as exc:
            raise StoreError(f"{self.engine} query failed: {exc}") from exc

    def run_rows(
        self,
        single: str,
        many: str,
        rows: Sequence[Mapping[str, Any]],
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        """Run ``single`` once per row for small batches, else ``many`` with ``$rows``.

        ``single`` reads each row's values as ``$key``; ``many`` reads them as ``row.key``.
        """
        if len(rows) <= SMALL_BATCH:
            for row in rows:
                self.run(single, {**row, **(extra or {})})
        else:
            self.run(many, {"rows": list(rows), **(extra or {})})

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Run the block in one write transaction: all of it is applied or none."""
        if self._in_tx:
            yield
            return
        self.run("BEGIN TRANSACTION")
        self._in_tx = True
        try:
            yield
        except BaseException:
            self._in_tx = False
            # The engine may already have rolled back after a failed query.
            with contextlib.suppress(RuntimeError):
                self._conn.execute("ROLLBACK")
            raise
        self._in_tx = False
        self.run("COMMIT")

    def _init_schema(self) -> None:
        tables = {row[0] for row in self.run("CALL show_tables() RETURN name")}
        if "Meta" in tables:
            rows = self.run("MATCH (m:Meta {key: 'schema_version'}) RETURN m.value")
            found = rows[0][0] if rows else None
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

    def fts_available(self) -> bool:
        """Return whether the engine has the full-text-search extension (Kuzu has it built in)."""
        if self._has_fts is None:
            try:
                self._conn.execute("LOAD EXTENSION fts")
                self._has_fts = True
            except RuntimeError as exc:
                self._has_fts = "already loaded" in str(exc).lower() or (
                    "statically linked" in str(exc).lower()
                )
        return self._has_fts

    # -- meta, ontology, entities ----------------------------------------------------------

    def get_meta(self, key: str) -> str | None:
        """Return a metadata value, or ``None``."""
        rows = self.run("MATCH (m:Meta {key: $k}) RETURN m.value", {"k": key})
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        """Set a metadata value."""
        self.run("MERGE (m:Meta {key: $k}) SET m.value = $v", {"k": key, "v": value})

    def load_predicates(self) -> list[Predicate]:
        """Return every stored predicate definition."""
        rows = self.run(
            "MATCH (p:Predicate) RETURN p.name, p.cardinality, p.aliases, p.inverse, p.symmetric,"
            " p.description ORDER BY p.name"
        )
        return [
            Predicate(
                name=r[0],
                cardinality=r[1],
                aliases=tuple(r[2] or ()),
                inverse=r[3],
                symmetric=bool(r[4]),
                description=r[5] or "",
            )
            for r in rows
        ]

    def save_predicates(self, predicates: Sequence[Predicate]) -> None:
        """Insert or update predicate definitions."""
        if not predicates:
            return
        rows = [
            {
                "name": p.name,
                "cardinality": p.cardinality,
                "aliases": list(p.aliases),
                "inverse": p.inverse,
                "symmetric": p.symmetric,
                "description": p.description,
            }
            for p in predicates
        ]
        self.run(
            "UNWIND $rows AS row MERGE (p:Predicate {name: row.name}) "
            "SET p.cardinality = row.cardinality, p.aliases = cast(row.aliases AS STRING[]), "
            "p.inverse = cast(row.inverse AS STRING), p.symmetric = row.symmetric, "
            "p.description = row.description",
            {"rows": rows},
        )

    def load_aliases(self) -> dict[str, str]:
        """Return ``{alias key: entity id}`` for every entity with aliases."""
        rows = self.run("MATCH (e:Entity) WITH e WHERE size(e.aliases) > 0 RETURN e.id, e.aliases")
        return {alias: eid for eid, aliases in rows for alias in aliases}

    def entity_names(self, ids: Sequence[str]) -> dict[str, str]:
        """Return ``{id: display name}`` for those ids that exist."""
        if not ids:
            return {}
        rows = self.run(
            "UNWIND $ids AS i MATCH (e:Entity {id: i}) RETURN e.id, e.name", {"ids": list(ids)}
        )
        return {r[0]: r[1] for r in rows}

    def get_entity(self, eid: str) -> Entity | None:
        """Return one entity by id, or ``None``."""
        rows = self.run(
            "MATCH (e:Entity {id: $i}) RETURN e.id, e.name, e.kind, e.aliases", {"i": eid}
        )
        if not rows:
            return None
        r = rows[0]
        return Entity(id=r[0], name=r[1], kind=r[2] or "entity", aliases=tuple(r[3] or ()))

    def upsert_entities(self, entities: Sequence[Entity]) -> None:
        """Create missing entities; update kind and aliases of existing ones."""
        if not entities:
            return
        rows = [
            {"id": e.id, "name": e.name, "kind": e.kind, "aliases": list(e.aliases)}
            for e in entities
        ]
        body = (
            "MERGE (e:Entity {{id: {p}id}}) "
            "ON CREATE SET e.name = {p}name, e.kind = {p}kind, "
            "e.aliases = cast({p}aliases AS STRING[]) "
            "ON MATCH SET e.kind = CASE WHEN {p}kind = 'entity' THEN e.kind ELSE {p}kind END, "
            "e.aliases = CASE WHEN size(cast({p}aliases AS STRING[])) = 0 THEN e.aliases "
            "ELSE cast({p}aliases AS STRING[]) END"
        )
        self.run_rows(body.format(p="$"), "UNWIND $rows AS row " + body.format(p="row."), rows)

    # -- fact versions --------------------------------------------------------------------------

    def current_versions(self, subject_ids: Sequence[str]) -> dict[str, list[Fact]]:
        """Return the versions not closed in system time, per subject id, in one query."""
        out: dict[str, list[Fact]] = {s: [] for s in subject_ids}
        if not subject_ids:
            return out
        ids = list(subject_ids)
        if len(ids) <= SMALL_BATCH:
            rows = [
                [i, *row]
                for i in ids
                for row in self.run(
                    "MATCH (a:Entity {id: $i})-[r:Fact]->() "
                    f"WITH a, r WHERE r.expired_at IS NULL RETURN {_RETURN}",
                    {"i": i},
                )
            ]
        else:
            rows = self.run(
                "UNWIND $ids AS i MATCH (a:Entity {id: i})-[r:Fact]->() "
                f"WITH i, a, r WHERE r.expired_at IS NULL RETURN i, {_RETURN}",
                {"ids": ids},
            )
        for row in rows:
            out[row[0]].append(_fact_from_row(row[1:]))
        return out

    def insert_facts(self, rows: Sequence[tuple[str, str, Fact]]) -> None:
        """Insert new versions given as ``(subject id, object id, fact)``; endpoints must exist."""
        if not rows:
            return
        if len(rows) >= COPY_THRESHOLD:
            self._copy_facts(rows)
            return
        props = ", ".join(f"{c}: cast({{p}}{c} AS {_CAST[t]})" for c, t in FACT_COLUMNS)
        self.run_rows(
            "MATCH (a:Entity {id: $s}), (b:Entity {id: $o}) "
            f"CREATE (a)-[:Fact {{{props.format(p='$')}}}]->(b)",
            # MERGE, not MATCH: UNWIND + MATCH on two nodes plans as a cross product.
            "UNWIND $rows AS row MERGE (a:Entity {id: row.s}) MERGE (b:Entity {id: row.o}) "
            f"CREATE (a)-[:Fact {{{props.format(p='row.')}}}]->(b)",
            [{"s": s, "o": o, **_fact_params(f)} for s, o, f in rows],
        )

    def _copy_facts(self, rows: Sequence[tuple[str, str, Fact]]) -> None:
        import pyarrow as pa

        types = {
            "STRING": pa.string(),
            "TIMESTAMP": pa.timestamp("us"),
            "DOUBLE": pa.float64(),
            "INT64": pa.int64(),
            "BOOLEAN": pa.bool_(),
        }
        params = [_fact_params(f) for _, _, f in rows]
        columns: dict[str, Any] = {
            "from": pa.array([s for s, _, _ in rows], pa.string()),
            "to": pa.array([o for _, o, _ in rows], pa.string()),
        }
        for name, typ in FACT_COLUMNS:
            columns[name] = pa.array([p[name] for p in params], types[typ])
        table = pa.table(columns)  # noqa: F841 - referenced by name in the COPY statement
        try:
            self._conn.execute("COPY Fact FROM table")
        except RuntimeError as exc:
            raise StoreError(f"{self.engine} bulk COPY failed: {exc}") from exc

    def close_versions(
        self, rows: Sequence[tuple[str, str, str | None, str]], *, at: dt.datetime
    ) -> None:
        """Close versions in system time: rows of ``(subject id, fid, superseded_by, reason)``."""
        if not rows:
            return
        body = (
            "MATCH (a:Entity {{id: {p}s}})-[r:Fact]->() "
            "WITH r{w} WHERE r.fid = {p}f AND r.expired_at IS NULL "
            "SET r.expired_at = $at, r.superseded_by = cast({p}by AS STRING), "
            "r.reason = {p}reason"
        )
        self.run_rows(
            body.format(p="$", w=""),
            "UNWIND $rows AS row " + body.format(p="row.", w=", row"),
            [{"s": s, "f": f, "by": by, "reason": why} for s, f, by, why in rows],
            {"at": to_store(at)},
        )

    def bump_access(self, rows: Sequence[tuple[str, str, int]], *, at: dt.datetime) -> None:
        """Set access counters: rows of ``(subject id, fid, new access_count)``."""
        if not rows:
            return
        body = (
            "MATCH (a:Entity {{id: {p}s}})-[r:Fact]->() WITH r{w} WHERE r.fid = {p}f "
            "SET r.access_count = {p}n, r.last_accessed_at = $at"
        )
        self.run_rows(
            body.format(p="$", w=""),
            "UNWIND $rows AS row " + body.format(p="row.", w=", row"),
            [{"s": s, "f": f, "n": n} for s, f, n in rows],
            {"at": to_store(at)},
        )

    def query_facts(
        self,
        *,
        subject_id: str | None = None,
        predicate: str | None = None,
        object_id: str | None = None,
        valid_at: dt.datetime | None = None,
        known_at: dt.datetime | None = None,
        current_only: bool = False,
        limit: int | None = None,
    ) -> list[Fact]:
        """Return versions matching the filters, ordered by subject, predicate, valid_from.

        ``valid_at`` and ``known_at`` apply the closed-open rules of SPEC §2 rule 3;
        ``current_only`` keeps versions not closed in system time. ``None`` skips a filter.
        """
        params: dict[str, Any] = {}
        match = (
            "MATCH (a:Entity {id: $s})-[r:Fact]->(b:Entity)"
            if subject_id
            else ("MATCH (a:Entity)-[r:Fact]->(b:Entity)")
        )
        if subject_id:
            params["s"] = subject_id
        conds: list[str] = []
        if predicate is not None:
            conds.append("r.predicate = $p")
            params["p"] = predicate
        if object_id is not None:
            conds.append("b.id = $o")
            params["o"] = object_id
        if known_at is not None:
            conds.append("r.recorded_at <= $k AND (r.expired_at IS NULL OR $k < r.expired_at)")
            params["k"] = to_store(known_at)
        if current_only:
            conds.append("r.expired_at IS NULL")
        if valid_at is not None:
            conds.append("r.valid_from <= $v AND (r.valid_to IS NULL OR $v < r.valid_to)")
            params["v"] = to_store(valid_at)
        where = f"WITH a, r, b WHERE {' AND '.join(conds)} " if conds else ""
        tail = ""
        if limit is not None:
            tail = " LIMIT $limit"
            params["limit"] = limit
        rows = self.run(
            f"{match} {where}RETURN {_RETURN} "
            f"ORDER BY subject, r.predicate, r.valid_from, r.recorded_at, r.fid{tail}",
            params,
        )
        return [_fact_from_row(r) for r in rows]

    def get_facts(self, fids: Sequence[str]) -> list[Fact]:
        """Return versions by id (a scan: rel properties have no index)."""
        if not fids:
            return []
        rows = self.run(
            f"MATCH (a:Entity)-[r:Fact]->() WITH a, r WHERE r.fid IN $f RETURN {_RETURN}",
            {"f": list(fids)},
        )
        return [_fact_from_row(r) for r in rows]

    def changed_between(self, since: dt.datetime, until: dt.datetime | None) -> list[Fact]:
        """Return versions recorded or closed in system time within ``[since, until)``."""
        params: dict[str, Any] = {"a0": to_store(since)}
        upper = ""
        if until is not None:
            params["a1"] = to_store(until)
            upper = " AND r.recorded_at < $a1"
            upper_e = " AND r.expired_at < $a1"
        else:
            upper_e = ""
        rows = self.run(
            "MATCH (a:Entity)-[r:Fact]->() WITH a, r WHERE "
            f"(r.recorded_at >= $a0{upper}) OR "
            f"(r.expired_at IS NOT NULL AND r.expired_at >= $a0{upper_e}) "
            f"RETURN {_RETURN} ORDER BY r.recorded_at, r.fid",
            params,
        )
        return [_fact_from_row(r) for r in rows]

    def count_versions(self) -> int:
        """Return how many fact versions are stored (current and closed)."""
        return int(self.run("MATCH ()-[r:Fact]->() RETURN count(r)")[0][0])

    def max_system_time(self) -> dt.datetime | None:
        """Return the newest system-time instant written (a recorded_at or expired_at)."""
        value = self.get_meta("last_write")
        return dt.datetime.fromisoformat(value) if value else None

    def set_max_system_time(self, at: dt.datetime) -> None:
        """Record the newest system-time instant written."""
        self.set_meta("last_write", at.isoformat())

    # -- sessions ---------------------------------------------------------------------------

    def upsert_session(self, session: Session, mention_ids: Mapping[str, int]) -> None:
        """Create or replace a session node and its MENTIONS edges (entities must exist)."""
        self.run(
            "MERGE (s:Session {id: $id}) SET s.started_at = $start, "
            "s.ended_at = cast($end AS TIMESTAMP), s.title = cast($title AS STRING), "
            "s.text = cast($text AS STRING), s.summary = cast($summary AS STRING), "
            "s.source = cast($source AS STRING)",
            {
                "id": session.id,
                "start": to_store(session.started_at),
                "end": to_store(session.ended_at),
                "title": session.title,
                "text": session.text,
                "summary": session.summary,
                "source": session.source,
            },
        )
        self.run("MATCH (s:Session {id: $id})-[m:MENTIONS]->() DELETE m", {"id": session.id})
        if mention_ids:
            self.run(
                "UNWIND $rows AS row MATCH (s:Session {id: $id}) MERGE (e:Entity {id: row.e}) "
                "CREATE (s)-[:MENTIONS {count: row.n}]->(e)",
                {
                    "id": session.id,
                    "rows": [{"e": e, "n": n} for e, n in sorted(mention_ids.items())],
                },
            )

    def sessions(
        self, *, since: dt.datetime | None = None, until: dt.datetime | None = None
    ) -> list[Session]:
        """Return sessions started within ``[since, until]``, oldest first, with mentions."""
        params: dict[str, Any] = {}
        conds = []
        if since is not None:
            conds.append("s.started_at >= $a0")
            params["a0"] = to_store(since)
        if until is not None:
            conds.append("s.started_at <= $a1")
            params["a1"] = to_store(until)
        where = f"WHERE {' AND '.join(conds)} " if conds else ""
        rows = self.run(
            f"MATCH (s:Session) {where}OPTIONAL MATCH (s)-[m:MENTIONS]->(e:Entity) "
            "RETURN s.id, s.started_at, s.ended_at, s.title, s.text, s.summary, s.source, "
            "collect({name: e.name, n: m.count}) ORDER BY s.started_at, s.id",
            params,
        )
        out = []
        for r in rows:
            mentions = {m["name"]: int(m["n"]) for m in r[7] if m.get("name") is not None}
            out.append(
                Session(
                    id=r[0],
                    started_at=r[1].replace(tzinfo=dt.timezone.utc),
                    ended_at=from_store(r[2]),
                    title=r[3],
                    text=r[4],
                    summary=r[5],
                    source=r[6],
                    mentions=mentions,
                )
            )
        return out
