"""The embedded store's transactions: all or nothing, with big inserts deferred to a COPY.

:class:`KuzuTransactions` opens and commits the one transaction of a change set
(:meth:`KuzuTransactions.transaction`) and decides how its writes reach the engine
(docs/concepts/storage.md#engine-facts; the numbers are Kuzu 0.11.3):

- **COPY is the bulk path, in a transaction of its own kind.** Killed during ``COMMIT``, a
  transaction that mixes COPY with logged writes (``CREATE``/``MERGE``/``SET``) keeps the
  logged writes and loses the copied rows (a torn write, Kuzu 0.11.3 and ladybug 0.22, measured:
  docs/concepts/storage.md#copy), and a rolled-back transaction that COPY-ed
  into a non-empty rel table corrupts it (later writes resurrect the rolled-back rows). A
  transaction holding *only* COPYs commits all or nothing, except on Kuzu 0.11.3, where a killed
  COPY also damages the primary-key indexes (docs/concepts/storage.md#durability): there the new
  nodes are written with logged statements and committed, the log is checkpointed, and only the
  versions are copied (:meth:`_copy_after_checkpoint`). So ``insert_facts`` defers a big batch, with
  the entities and predicates it creates, to the commit: when the transaction logged nothing else it
  commits as COPYs only (the ``last_write`` marker follows in a second transaction and is repaired
  on open after a crash in between); otherwise the rows are logged inserts. Nothing is ever copied
  before a rollback.
- **Held-back writes.** An append supersedes stored versions: its closes, access bumps and
  entity upserts are logged writes. Inside a transaction that has logged nothing yet they are
  held back (``_pending_ops``) instead of run, so a big insert can still take the COPY: the
  nodes commit first with a ``copy_pending`` record holding the held-back writes and one copied
  version's id, then the COPY alone, then the held-back writes with the marker, which delete
  the record. Killed after the COPY's commit, the next open applies the recorded writes (the
  probe version exists), killed before it, it removes the nodes: the call is whole or absent
  (``tests/test_write_paths.py`` kills it). Any read in the transaction runs the held-back
  writes first (:meth:`_materialize`), so reads see them.
- A COPY into a non-empty rel table costs about ``fixed + stored × per_stored`` whatever the
  batch size (Kuzu 0.11.3: 0.3 s for 1k rows into 100k versions, 4–14 s into 1M, growing with
  earlier appends), so a batch of at least :data:`COPY_THRESHOLD` versions is copied only when
  that beats logged inserts (:data:`WRITE_COSTS`, :attr:`KuzuTransactions.copy_policy`).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from graphmem.errors import StoreError
from graphmem.models import Entity, Fact, Predicate
from graphmem.store.kuzu.codec import _entity_table, _fact_table, _predicate_table
from graphmem.store.kuzu.statements import KuzuStatements

__all__ = ["COPY_THRESHOLD", "WRITE_COSTS", "KuzuTransactions"]

#: A call inserting at least this many new versions may take the bulk COPY path (when it is
#: cheaper than logged inserts: :data:`WRITE_COSTS`; into an empty table it always is).
COPY_THRESHOLD = 500
#: Seconds, measured on 2 cores (docs/benchmarks.md#appending) (``benchmarks/run.py``, systems
#: ``append-*``): ``(a logged insert per row, COPY fixed, COPY per stored version)``. A COPY into a
#: rel table holding ``m`` versions costs about ``fixed + m * per_stored`` whatever the batch size
#: (Kuzu 0.11.3: 0.31 s for 1k and 0.84 s for 10k rows into 100k versions, 4-14 s into 1M,
#: growing with earlier appends; ladybug 0.22: 0.37-0.45 s into 100k, 3.8-3.9 s into 1M);
#: a logged insert costs 0.45-0.55 ms a row on Kuzu (one statement a row: ``UNWIND`` is no
#: faster there) and 0.09-0.1 ms on ladybug (``UNWIND``). A batch is copied when that is
#: cheaper: on Kuzu from about 1.5k rows into 100k versions, 11k rows into 1M.
WRITE_COSTS = {"kuzu": (0.45e-3, 0.2, 5e-6), "ladybug": (0.09e-3, 0.3, 3.5e-6)}
#: Meta key: the nodes a Kuzu bulk write committed before its version COPY (undone on open).
_COPY_PENDING = "copy_pending"


class KuzuTransactions(KuzuStatements):
    """One write transaction at a time; big inserts wait for a COPY-only commit."""

    def __init__(
        self, path: str | None = None, *, engine: str = "kuzu", read_only: bool = False
    ) -> None:
        super().__init__(path, engine=engine, read_only=read_only)
        self._pending_facts: list[tuple[str, str, Fact]] = []
        self._pending_entities: dict[str, Entity] = {}
        self._pending_predicates: dict[str, Predicate] = {}
        self._pending_marker: str | None = None
        # Logged writes (entity upserts, access bumps, closes) held back while the transaction
        # has logged nothing: a big insert can still commit as a COPY, with these after it
        # (module docstring). Serialised as ``(op, rows, at)`` so a crash record can hold them.
        self._pending_ops: list[tuple[str, list[Any], str | None]] = []
        self._after_copy: list[tuple[str, list[Any], str | None]] = []
        self._pending_into = ""  # "copy-empty" or "copy-append": the deferred COPY's kind
        #: When big inserts are copied: ``"auto"`` (by :data:`WRITE_COSTS`), ``"always"`` (every
        #: batch of :data:`COPY_THRESHOLD` or more) or ``"never"`` (logged inserts only). A seam
        #: for tests and measurements; results are the same on every path.
        self.copy_policy = "auto"
        #: Tests: stop between a COPY's commit and its held-back writes' (as a crash would).
        self.fail_after_copy = False
        self._copy_pending = False  # a copy_pending record waits for the copy's commit

    def _q(
        self, query: str, params: Mapping[str, Any] | None = None, *, write: bool = False
    ) -> list[list[Any]]:
        """Run a query of this store after the deferred writes; ``write``: a logged write."""
        if (
            self._pending_facts
            or self._pending_entities
            or self._pending_predicates
            or self._pending_ops
        ):
            self._materialize()
        return super()._q(query, params, write=write)

    def _commit(self) -> None:
        """COMMIT the open transaction, then checkpoint when the log is big.

        With automatic checkpoints off (:meth:`_open`), COMMIT only appends the transaction to
        the write-ahead log: when it fails (a full disk), the log holds no complete commit
        record, so the write is absent after a reopen and the error says so. A checkpoint that
        fails afterwards does not undo the commit: it is reported in the
        executor's ``checkpoint_error`` and retried after the next commit, and the call succeeds.

        Raises:
            StoreError: the commit failed; nothing of the transaction was written.
        """
        try:
            self.executor.conn.execute("COMMIT")
        except RuntimeError as exc:
            with contextlib.suppress(RuntimeError):
                self.executor.conn.execute("ROLLBACK")
            self._copy_pending = False  # its record stays: the next open undoes the nodes
            msg = " ".join(str(exc).split())
            raise StoreError(
                f"{self.engine} could not commit the write: {msg}; nothing of it was written "
                "(free disk space, then retry it)"
            ) from exc
        self.executor.after_commit()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Run the block in one write transaction: all of it is applied or none.

        Nested blocks join the outer transaction. Deferred bulk versions are written when the
        block ends: as COPYs only, or statement by statement (module docstring).
        """
        if self._in_tx:
            yield
            return
        self.executor.execute("BEGIN TRANSACTION", {})
        self._in_tx, self._logged = True, False
        copied = False
        try:
            yield
            copied = self._commit_pending()
        except BaseException:
            self._in_tx = False
            self._discard_pending()
            # The engine may already have rolled back after a failed query.
            with contextlib.suppress(RuntimeError):
                self.executor.conn.execute("ROLLBACK")
            raise
        self._in_tx = False
        marker, self._pending_marker = self._pending_marker, None
        ops, self._after_copy = self._after_copy, []
        self._commit()
        pending, self._copy_pending = self._copy_pending, False
        if copied and ops and self.fail_after_copy:
            raise RuntimeError("stopped after the copy's commit (fail_after_copy)")
        if copied and (marker is not None or pending or ops):
            # Its own transaction: a logged write must not share a COPY's commit. A crash right
            # before it leaves the marker behind the data (_recover fixes that on open) and the
            # held-back writes undone (the copy_pending record holds them: _undo_copy_pending
            # applies them on open).
            with self.transaction():
                self._logged = True
                self._run_ops(ops)
                if marker is not None:
                    self._advance_marker(marker)
                if pending:
                    self._q("MATCH (m:Meta {key: $k}) DELETE m", {"k": _COPY_PENDING}, write=True)

    def _discard_pending(self) -> None:
        self._discard_pending_rows()
        self._pending_marker = None
        self._copy_pending = False
        self._after_copy = []

    def _commit_pending(self) -> bool:
        """Write the deferred rows before COMMIT; return whether they went as COPYs only."""
        if not self._pending_facts or self._logged:
            self._materialize()
            return False
        preds = list(self._pending_predicates.values())
        ents = list(self._pending_entities.values())
        facts, ops = self._pending_facts, self._pending_ops
        self.write_paths[self._pending_into + ("+ops" if ops else "")] += 1
        self._discard_pending_rows()
        if self.engine == "kuzu" or ops:
            # With held-back writes, ladybug takes this path too: nodes and those writes are
            # logged, so they must not share the COPY's commit.
            self._copy_after_checkpoint(preds, ents, facts, ops)
            return True
        if preds:
            self.executor.execute("COPY Predicate FROM $t", {"t": _predicate_table(preds)})
        if ents:
            self.executor.execute("COPY Entity FROM $t", {"t": _entity_table(ents)})
        self.executor.execute("COPY Fact FROM $t", {"t": _fact_table(facts)})
        return True

    def _copy_after_checkpoint(
        self,
        preds: Sequence[Predicate],
        ents: Sequence[Entity],
        facts: Sequence[tuple[str, str, Fact]],
        ops: Sequence[tuple[str, list[Any], str | None]] = (),
    ) -> None:
        """Kuzu 0.11.3: commit the new nodes (logged), checkpoint, then COPY only the versions.

        ``ops`` (entity upserts, access bumps and closes held back by the transaction) run in
        a third transaction after the copy's commit (:meth:`transaction`). The first commit
        records them with one copied version's id (the probe): a crash after the copy's commit
        and before theirs is finished on open by applying them (:meth:`_undo_copy_pending`),
        one before the copy's commit is undone, so the call is whole or absent.

        Measured with SIGKILL rounds (docs/concepts/storage.md#durability) on plain Kuzu 0.11.3
        (ladybug 0.22 has none of these):

        - a ``COPY`` into a node table killed before its commit leaves keys in the
          primary-key index: afterwards even a plain ``CREATE`` of such a key fails with
          "duplicated primary key", forever (3 of 3 seeds, with or without automatic
          checkpoints, with a CHECKPOINT before and after each COPY transaction);
        - a ``COPY`` into the rel table killed while committed transactions still wait in the
          write-ahead log makes the next open fail with "duplicated primary key" while it
          replays them;
        - nodes created by logged writes, a ``CHECKPOINT``, then a transaction holding only the
          rel ``COPY``: 75 kill rounds, all opened and none torn.

        So nodes never go through ``COPY`` here, and the log is empty when the copy starts. A
        crash between the two commits leaves the call's new entities and predicates without
        versions; the first commit records them (the ``copy_pending`` metadata), and the next
        writable open removes those that no version uses (:meth:`_undo_copy_pending`), so the
        call is whole or absent. A failure removes them at once.
        """
        if preds:
            self._save_predicates(preds)
        if ents:
            self._create_entities(ents)
        if preds or ents or ops:
            # Undone on open if the copy never commits, finished if it did (_undo_copy_pending).
            record: dict[str, Any] = {
                "entities": [e.id for e in ents],
                "predicates": [p.name for p in preds],
            }
            if ops:
                s, _, f = facts[0]
                record["probe"] = [s, f.id]
                record["ops"] = [list(op) for op in ops]
            self.set_meta(_COPY_PENDING, json.dumps(record))
            self._copy_pending = True
            self._after_copy = list(ops)
        self._commit()
        try:
            try:
                self.executor.checkpoint_now()
            except (RuntimeError, OSError) as exc:
                msg = " ".join(str(exc).split())
                raise StoreError(
                    f"kuzu could not checkpoint before the copy: {msg}; nothing of the write "
                    "was kept (free disk space, then retry it)"
                ) from exc
            self.executor.execute("BEGIN TRANSACTION", {})
            self.executor.execute("COPY Fact FROM $t", {"t": _fact_table(facts)})
        except BaseException:
            with contextlib.suppress(RuntimeError):
                self.executor.conn.execute("ROLLBACK")
            self.executor.execute("BEGIN TRANSACTION", {})
            if ents:
                self.executor.execute(
                    "UNWIND $ids AS i MATCH (e:Entity {id: i}) DETACH DELETE e",
                    {"ids": [e.id for e in ents]},
                )
            if preds:
                self.executor.execute(
                    "UNWIND $n AS n MATCH (p:Predicate {name: n}) DELETE p",
                    {"n": [p.name for p in preds]},
                )
            self.executor.execute("MATCH (m:Meta {key: $k}) DELETE m", {"k": _COPY_PENDING})
            self._copy_pending = False
            self._after_copy = []
            self._commit()
            self.executor.execute("BEGIN TRANSACTION", {})  # the caller's ROLLBACK ends this one
            raise

    def _discard_pending_rows(self) -> None:
        self._pending_facts, self._pending_entities, self._pending_predicates = [], {}, {}
        self._pending_ops = []
        self._pending_into = ""

    def _materialize(self) -> None:
        """Write the deferred rows with logged statements (the transaction is no COPY-only)."""
        preds, ents = list(self._pending_predicates.values()), list(self._pending_entities.values())
        facts, ops = self._pending_facts, self._pending_ops
        self._discard_pending_rows()
        if preds:
            self._save_predicates(preds)
        if ents:
            # Checked missing when deferred, before the held-back upserts ran: created first,
            # as on the COPY path, so an upsert of the same id updates instead of colliding.
            self._create_entities(ents)
        self._run_ops(ops)
        if facts:
            self._insert_rows(facts, {})
        if self._pending_marker is not None:
            marker, self._pending_marker = self._pending_marker, None
            self._advance_marker(marker)

    def _undo_copy_pending(self) -> None:
        """Remove the nodes of a bulk write whose version COPY never committed (Kuzu).

        The entities and predicates :meth:`_copy_after_checkpoint` committed first are removed
        when no version, mention or alias uses them; when the copy did commit, they are all in
        use and only the record goes, after the writes it held back (``ops``: upserts, bumps,
        closes, which follow the copy in a transaction of their own) are applied: the copy
        committed when its probe version exists.
        """
        value = self.get_meta(_COPY_PENDING)
        if value is None:
            return
        ops: list[tuple[str, list[Any], str | None]] = []
        probe: list[str] = []
        try:
            record = json.loads(value)
            ids = [str(i) for i in record.get("entities", [])]
            names = [str(n) for n in record.get("predicates", [])]
            probe = [str(x) for x in record.get("probe", [])]
            ops = [(str(op), list(rows), at) for op, rows, at in record.get("ops", [])]
        except (ValueError, AttributeError, TypeError):
            ids, names = [], []
        with self.transaction():
            self._logged = True
            if ops and len(probe) == 2:
                found = self._q(
                    "MATCH (a:Entity {id: $s})-[r:Fact]->() WITH r WHERE r.fid = $f "
                    "RETURN count(r)",
                    {"s": probe[0], "f": probe[1]},
                )
                if found and found[0][0]:
                    self._run_ops(ops)
            if ids:
                self._q(
                    "UNWIND $ids AS i MATCH (e:Entity {id: i}) "
                    "WHERE NOT EXISTS { MATCH (e)-[:Fact]-() } "
                    "AND NOT EXISTS { MATCH (:Session)-[:MENTIONS]->(e) } "
                    "AND (e.aliases IS NULL OR size(e.aliases) = 0) DELETE e",
                    {"ids": ids},
                    write=True,
                )
            for name in names:
                used = self._q(
                    "MATCH ()-[r:Fact]->() WITH r WHERE r.predicate = $p RETURN count(r)",
                    {"p": name},
                )
                if not used or not used[0][0]:
                    self._q("MATCH (p:Predicate {name: $p}) DELETE p", {"p": name}, write=True)
            self._q("MATCH (m:Meta {key: $k}) DELETE m", {"k": _COPY_PENDING}, write=True)

    def _holding(self) -> bool:
        """Whether logged writes are held back: a transaction that has logged nothing yet."""
        return self._in_tx and not self._logged

    def _copy_pays(self, n: int, stored: int) -> bool:
        """Whether copying ``n`` versions beats logged inserts (:data:`WRITE_COSTS`).

        ``stored``: the versions in the rel table (a COPY into a non-empty one rewrites it).
        """
        if stored == 0:
            return True  # into an empty table, a big batch always goes as a COPY
        row, fixed, per_stored = WRITE_COSTS[self.engine]
        return fixed + stored * per_stored < n * row

    def _stored_versions(self) -> int:
        # Not counting deferred rows (only sizes the COPY decision).
        return int(self.executor.execute("MATCH ()-[r:Fact]->() RETURN count(r)", {})[0][0])
