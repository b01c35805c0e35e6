"""The embedded store's logged writes and point reads: one prepared statement a row, or UNWIND.

:class:`KuzuStatements` is the lower half of the store's writer part
(:class:`~graphmem.store.kuzu.transactions.KuzuWriter`,
docs/concepts/storage.md#the-backends-parts): it runs every query of the store through the
executor it holds (:class:`~graphmem.store.kuzu.connection.KuzuConnection`;
:meth:`KuzuStatements.run`) and holds the statements that write through the engine's log:
predicates, entities, version inserts, closes, access counters and the ``last_write`` marker.
The shapes come from measurements with 1M facts on 2 cores (docs/benchmarks.md; the numbers
are Kuzu 0.11.3; docs/concepts/storage.md#engine-facts):

- **Point lookups, not joins.** ``UNWIND $ids AS i MATCH (e:Entity {id: i})`` is a hash join
  over a full Entity scan (40 ms at 100k entities, however few the ids), and
  ``UNWIND ... MERGE ... CREATE`` costs about 2 ms a row, while one prepared statement per row
  costs 0.1–2.4 ms. Id sets small for the store (:meth:`KuzuStatements.point_lookups`) and
  every write below the COPY path go row by row; ``UNWIND`` serves the rest. Inserting a
  version costs Kuzu 0.45–0.55 ms a row either way (a prepared ``MATCH``/``MATCH``/``CREATE``
  per row, or one ``UNWIND``: measured, docs/benchmarks.md#appending: no shape is faster),
  ladybug 0.13 ms per row and 0.09 ms through one ``UNWIND``, which its bigger batches take
  (:meth:`KuzuStatements._insert_rows`).
- **No NULL parameters.** A ``None`` parameter makes ladybug re-bind the statement (20 µs
  each), so writes leave NULL properties out of the query instead of passing ``None``.
- Every filter on rel properties sits behind a ``WITH`` barrier, or the planner scans all edges
  (461 ms instead of 6 ms).

Which of these writes run at once and which wait for a bulk COPY is decided one layer up
(:mod:`graphmem.store.kuzu.transactions`).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graphmem.models import Entity, Fact, Predicate
from graphmem.store.kuzu.codec import _UNWIND_INSERT, _fact_params, _insert_query
from graphmem.store.kuzu.connection import _WRITES, KuzuConnection
from graphmem.store.records import predicate_props
from graphmem.timeutil import to_store

__all__ = ["POINT_VS_SCAN", "SMALL_BATCH", "KuzuStatements"]

#: Up to this many ids or rows, one prepared statement per id/row; above, one ``UNWIND`` query.
SMALL_BATCH = 64
#: One point query costs about as much as scanning this many stored rows (entities, versions):
#: at 1M versions a point read of a subject's versions took 2.4 ms and an ``UNWIND`` read of 100
#: subjects (an Entity scan) 0.3 s; at 100k, 100 point reads cost more than the ``UNWIND``
#: (docs/benchmarks.md#small-batches).
POINT_VS_SCAN = 4000


class KuzuStatements:
    """The queries of the store, and its logged writes row by row or through ``UNWIND``."""

    def __init__(self, executor: KuzuConnection) -> None:
        #: The engine's handles, checkpoints and prepared queries (the store's executor).
        self.executor = executor
        #: Whether a write transaction is open (:meth:`KuzuWriter.transaction
        #: <graphmem.store.kuzu.transactions.KuzuWriter.transaction>`).
        self.in_tx = False
        self._logged = False  # the open transaction ran a logged write (no COPY-only commit)
        #: How many inserts took each write path (``rows``, ``unwind``, ``copy-empty``,
        #: ``copy-append``, and ``+ops`` when held-back writes followed the COPY).
        self.write_paths: Counter[str] = Counter()

    def run(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Execute one parameterised query and return all rows.

        The query is prepared once and its plan reused: keep values in parameters. Inside
        :meth:`transaction`, versions deferred by :meth:`insert_facts` are written first, so the
        query sees them; a write here rules out the COPY-only commit
        (:mod:`graphmem.store.kuzu.transactions`).

        Raises:
            StoreError: the engine failed; the message includes its own.
        """
        return self.execute(query, params, write=self.in_tx and bool(_WRITES.search(query)))

    def execute(
        self,
        query: str,
        params: Mapping[str, Any] | None = None,
        *,
        write: bool = False,
        keep: Callable[[list[Any]], bool] | None = None,
    ) -> list[list[Any]]:
        """Run a query of this store; ``write``: a logged write (no COPY-only commit then).

        ``keep``: only the rows it accepts (:meth:`KuzuConnection.execute
        <graphmem.store.kuzu.connection.KuzuConnection.execute>`).
        :class:`~graphmem.store.kuzu.transactions.KuzuWriter` writes its deferred rows first.
        """
        if write and self.in_tx:
            self._logged = True
        return self.executor.execute(query, dict(params or {}), keep)

    def write_rows(
        self,
        single: str,
        many: str,
        rows: Sequence[Mapping[str, Any]],
        extra: Mapping[str, Any] | None = None,
    ) -> None:
        """Run ``single`` once per row for small batches, else ``many`` with ``$rows``.

        ``single`` reads each row's values as ``$key``; ``many`` reads them as ``row.key``.
        Up to :data:`SMALL_BATCH` rows go one by one (prepared point statements beat an
        ``UNWIND`` join). Every query is a logged write of this store.
        """
        if len(rows) <= SMALL_BATCH:
            for row in rows:
                self.execute(single, {**row, **(extra or {})}, write=True)
        else:
            self.execute(many, {"rows": list(rows), **(extra or {})}, write=True)

    def get_meta(self, key: str) -> str | None:
        """Return a metadata value, or ``None``.

        A writable store is the only writer of its file while it is open, so a value read
        outside a transaction is kept until this store writes data or reattaches
        (docs/concepts/storage.md#meta-cache); a read-only store asks every time.
        """
        kept = self.executor.meta
        if key in kept:
            return kept[key]
        gen = self.executor.meta_gen
        rows = self.execute("MATCH (m:Meta {key: $k}) RETURN m.value", {"k": key})
        value: str | None = rows[0][0] if rows else None
        if not self.in_tx and not self.executor.read_only and gen == self.executor.meta_gen:
            kept[key] = value
        return value

    def set_meta(self, key: str, value: str) -> None:
        """Set a metadata value."""
        self.execute(
            "MERGE (m:Meta {key: $k}) SET m.value = $v", {"k": key, "v": value}, write=True
        )

    def _save_predicates(self, predicates: Sequence[Predicate]) -> None:
        rows = [predicate_props(p) for p in predicates]
        body = (
            "MERGE (p:Predicate {{name: {p}name}}) "
            "SET p.cardinality = {p}cardinality, p.aliases = cast({p}aliases AS STRING[]), "
            "p.inverse = cast({p}inverse AS STRING), p.symmetric = {p}symmetric, "
            "p.description = {p}description"
        )
        # One statement for any number: a memory's first open seeds every predicate at once.
        self.execute("UNWIND $rows AS row " + body.format(p="row."), {"rows": rows}, write=True)

    def point_lookups(self, n: int) -> bool:
        """Whether ``n`` ids are read with one point query each rather than one ``UNWIND``.

        An ``UNWIND`` read scans the whole Entity table once, a point query costs 0.5-2.4 ms
        (more in bigger stores): a batch goes point by point when the store holds at least
        :data:`POINT_VS_SCAN` rows per id, so 100 subjects at 1M versions, 20 at 100k.
        """
        return n * POINT_VS_SCAN <= self.executor.stored_rows

    def _names(self, ids: Sequence[str]) -> dict[str, str]:
        unique = list(dict.fromkeys(ids))
        if not unique:
            return {}
        if self.point_lookups(len(unique)):
            query = "MATCH (e:Entity {id: $i}) RETURN e.id, e.name"
            rows = [row for i in unique for row in self.executor.execute(query, {"i": i})]
        else:
            rows = self.executor.execute(
                "UNWIND $ids AS i MATCH (e:Entity {id: i}) RETURN e.id, e.name", {"ids": unique}
            )
        return {r[0]: r[1] for r in rows}

    def _run_ops(self, ops: Sequence[tuple[str, list[Any], str | None]]) -> None:
        """Apply held-back writes in their order (live, or from a crash record on open)."""
        for op, rows, at in ops:
            if op == "upsert":
                self._upsert(rows)
            elif op == "bump":
                self._bump(rows, at)
            elif op == "close":
                self._close(rows, at)

    def _upsert(self, rows: Sequence[Mapping[str, Any]]) -> None:
        body = (
            "MERGE (e:Entity {{id: {p}id}}) "
            "ON CREATE SET e.name = {p}name, e.kind = {p}kind, "
            "e.aliases = cast({p}aliases AS STRING[]) "
            "ON MATCH SET e.kind = CASE WHEN {p}kind = 'entity' THEN e.kind ELSE {p}kind END, "
            "e.aliases = CASE WHEN size(cast({p}aliases AS STRING[])) = 0 THEN e.aliases "
            "ELSE cast({p}aliases AS STRING[]) END"
        )
        self.write_rows(body.format(p="$"), "UNWIND $rows AS row " + body.format(p="row."), rows)

    def _insert_rows(
        self, rows: Sequence[tuple[str, str, Fact]], known: Mapping[str, Entity]
    ) -> None:
        """Insert versions with logged writes: one statement each, or one ``UNWIND``.

        Kuzu and small batches go one prepared statement a row, bigger batches on ladybug one
        ``UNWIND`` (0.09 against 0.13 ms a row).

        No NULL parameters in the per-row statements (module docstring). Endpoints given in
        ``known`` are created first when missing (a plain CREATE; a MERGE inside the insert
        costs about 1 ms more a row); the insert itself MATCHes both ends.
        """
        if self.in_tx:
            self._logged = True
        if self.executor.engine != "kuzu" and len(rows) > SMALL_BATCH:
            self.write_paths["unwind"] += 1
            self._insert_unwind(rows, known)
            return
        self.write_paths["rows"] += 1
        ends = {i for s, o, _ in rows for i in (s, o) if i in known}
        if ends:
            existing = self._names(sorted(ends))
            self._create_entities([known[i] for i in sorted(ends) if i not in existing])
        for s, o, f in rows:
            params = {k: v for k, v in _fact_params(f).items() if v is not None}
            cols = tuple(params)
            params["src"], params["dst"] = s, o
            if self.executor.execute(_insert_query(cols, False), params):
                continue
            # An endpoint is missing (the caller did not say it was new): create it, named
            # after the fact.
            params.update(src_name=f.subject, src_kind="entity", dst_name=f.object)
            params["dst_kind"] = "entity"
            self.executor.execute(_insert_query(cols, True), params)

    def _insert_unwind(
        self, rows: Sequence[tuple[str, str, Fact]], known: Mapping[str, Entity]
    ) -> None:
        """Insert versions with one ``UNWIND`` after creating their missing endpoints.

        A missing endpoint not in ``known`` is named after the fact (as the per-row path does).
        On Kuzu 0.11.3 this shape costs as much as one statement a row (0.45-0.58 ms), on
        ladybug 0.09 ms a row.
        """
        ends = dict.fromkeys(i for s, o, _ in rows for i in (s, o))
        existing = self._names(list(ends))
        missing: dict[str, Entity] = {}
        for s, o, f in rows:
            for i, name in ((s, f.subject), (o, f.object)):
                if i not in existing and i not in missing:
                    missing[i] = known[i] if i in known else Entity(id=i, name=name)
        if missing:
            self._create_entities(list(missing.values()))
        data = []
        for s, o, f in rows:
            params = _fact_params(f)
            params["src"], params["dst"] = s, o
            data.append(params)
        self.execute(_UNWIND_INSERT, {"rows": data}, write=True)

    def _create_entities(self, entities: Sequence[Entity]) -> None:
        """Create entities known not to exist (plain CREATE: no lookup)."""
        body = (
            "CREATE (:Entity {{id: {p}id, name: {p}name, kind: {p}kind, "
            "aliases: cast({p}aliases AS STRING[])}})"
        )
        self.write_rows(
            body.format(p="$"),
            "UNWIND $rows AS row " + body.format(p="row."),
            [
                {"id": e.id, "name": e.name, "kind": e.kind, "aliases": list(e.aliases)}
                for e in entities
            ],
        )

    def _close_pointwise(self, n: int) -> bool:
        """Whether ``n`` closes run one statement each rather than one ``UNWIND``.

        Measured at 1M versions: an ``UNWIND`` close costs Kuzu 0.45-0.65 ms a row and
        ladybug 0.45-0.7 ms, a prepared point close 0.65 ms (Kuzu) and 0.13 ms (ladybug); at
        100k versions the ``UNWIND`` costs both 0.07-0.085 ms a row.
        """
        if n <= SMALL_BATCH:
            return True
        return self.executor.engine != "kuzu" and self.executor.stored_rows >= 50 * n

    def _close(self, rows: Sequence[Sequence[Any]], at_iso: str | None) -> None:
        at = dt.datetime.fromisoformat(at_iso or "")
        body = (
            "MATCH (a:Entity {{id: {p}s}})-[r:Fact]->() "
            "WITH r{w} WHERE r.fid = {p}f AND r.expired_at IS NULL "
            "SET r.expired_at = $at, r.reason = {p}reason{by}"
        )
        by = ", r.superseded_by = cast({p}by AS STRING)"
        if not self._close_pointwise(len(rows)):
            self.execute(
                "UNWIND $rows AS row " + body.format(p="row.", w=", row", by=by.format(p="row.")),
                {
                    "rows": [{"s": s, "f": f, "by": b, "reason": why} for s, f, b, why in rows],
                    "at": to_store(at),
                },
                write=True,
            )
            return
        for s, f, b, why in rows:
            # No NULL parameter (module docstring): a current version has no superseded_by yet,
            # so leaving it out equals setting it to NULL.
            params = {"s": s, "f": f, "reason": why, "at": to_store(at)}
            if b is not None:
                params["by"] = b
            query = body.format(p="$", w="", by="" if b is None else by.format(p="$"))
            self.execute(query, params, write=True)

    def _bump(self, rows: Sequence[Sequence[Any]], at_iso: str | None) -> None:
        at = dt.datetime.fromisoformat(at_iso or "")
        body = (
            "MATCH (a:Entity {{id: {p}s}})-[r:Fact]->() WITH r{w} WHERE r.fid = {p}f "
            "SET r.access_count = {p}n, r.last_accessed_at = $at"
        )
        self.write_rows(
            body.format(p="$", w=""),
            "UNWIND $rows AS row " + body.format(p="row.", w=", row"),
            [{"s": s, "f": f, "n": n} for s, f, n in rows],
            {"at": to_store(at)},
        )

    def _advance_marker(self, value: str) -> None:
        """Set ``last_write`` to ``value`` unless it is later already (it never moves back).

        Markers are ISO-8601 UTC strings, which sort like the instants they name.
        """
        self.execute(
            "MERGE (m:Meta {key: 'last_write'}) "
            "SET m.value = CASE WHEN m.value IS NULL OR m.value < $v THEN $v ELSE m.value END",
            {"v": value},
            write=True,
        )
