"""The embedded store's writer: transactions all or nothing, with big inserts deferred to a COPY.

:class:`KuzuWriter` is the part of the store that writes (its ``writer``,
docs/concepts/storage.md#the-backends-parts): the store's writes (predicates, entities, inserts,
closes, settles, access counters, the marker) go through it, with the statements of
:class:`~graphmem.store.kuzu.statements.KuzuStatements` under it and the store's executor under
those. It opens and commits the one transaction of a change set
(:meth:`KuzuWriter.transaction`) and decides how its writes reach the engine
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
  that beats logged inserts (:data:`WRITE_COSTS`, :attr:`KuzuWriter.copy_policy`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from graphmem.errors import StoreError
from graphmem.models import Entity, Fact, Predicate
from graphmem.store.kuzu.codec import _entity_table, _fact_table, _predicate_table
from graphmem.store.kuzu.connection import KuzuConnection
from graphmem.store.kuzu.statements import KuzuStatements

__all__ = ["COPY_PENDING", "COPY_THRESHOLD", "MARKER_UNSAVED", "WRITE_COSTS", "KuzuWriter"]

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
COPY_PENDING = "copy_pending"
#: Meta key: the ``last_write`` marker may lag the versions' own times, because the process
#: that wrote them keeps it in memory until it closes (docs/concepts/storage.md#lazy-marker).
MARKER_UNSAVED = "marker_unsaved"


class KuzuWriter(KuzuStatements):
    """The store's writes: one write transaction at a time; big inserts wait for a COPY-only commit.

    A part the store holds as ``writer`` (docs/concepts/storage.md#the-backends-parts), over the
    store's executor.
    """

    def __init__(self, executor: KuzuConnection) -> None:
        super().__init__(executor)
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
        # The newest write time its own versions show and Meta does not yet hold; this
        # transaction's, until it commits (docs/concepts/storage.md#lazy-marker).
        self.unsaved_marker: str | None = None
        self._staged_marker: str | None = None
        self._flagged = False  # Meta holds MARKER_UNSAVED, written by this writer
        self._flag_staged = False

    def execute(
        self,
        query: str,
        params: Mapping[str, Any] | None = None,
        *,
        write: bool = False,
        keep: Callable[[list[Any]], bool] | None = None,
    ) -> list[list[Any]]:
        """Run a query of this store after the deferred writes; ``write``: a logged write."""
        if (
            self._pending_facts
            or self._pending_entities
            or self._pending_predicates
            or self._pending_ops
        ):
            self._materialize()
        return super().execute(query, params, write=write, keep=keep)

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
            self._staged_marker, self._flag_staged = None, False
            msg = " ".join(str(exc).split())
            raise StoreError(
                f"{self.executor.engine} could not commit the write: {msg}; nothing of it was "
                "written (free disk space, then retry it)"
            ) from exc
        self.executor.after_commit()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Run the block in one write transaction: all of it is applied or none.

        Nested blocks join the outer transaction. Deferred bulk versions are written when the
        block ends: as COPYs only, or statement by statement (module docstring).
        """
        if self.in_tx:
            yield
            return
        self.executor.execute("BEGIN TRANSACTION", {})
        self.in_tx, self._logged = True, False
        copied = False
        try:
            yield
            copied = self._commit_pending()
        except BaseException:
            self.in_tx = False
            self._discard_pending()
            # The engine may already have rolled back after a failed query.
            with contextlib.suppress(RuntimeError):
                self.executor.conn.execute("ROLLBACK")
            raise
        self.in_tx = False
        marker, self._pending_marker = self._pending_marker, None
        ops, self._after_copy = self._after_copy, []
        self._commit()
        self._promote_marker()
        pending, self._copy_pending = self._copy_pending, False
        if copied and ops and self.fail_after_copy:
            raise RuntimeError("stopped after the copy's commit (fail_after_copy)")
        if copied and (marker is not None or pending or ops):
            # Its own transaction: a logged write must not share a COPY's commit. A crash right
            # before it leaves the marker behind the data (_recover fixes that on open) and the
            # held-back writes undone (the copy_pending record holds them: undo_copy_pending
            # applies them on open).
            with self.transaction():
                self._logged = True
                self._run_ops(ops)
                if marker is not None:
                    self._advance_marker(marker)
                if pending:
                    self.execute(
                        "MATCH (m:Meta {key: $k}) DELETE m", {"k": COPY_PENDING}, write=True
                    )

    def _discard_pending(self) -> None:
        self._discard_pending_rows()
        self._pending_marker = self._staged_marker = None
        self._flag_staged = False
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
        if self.executor.engine == "kuzu" or ops:
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
        and before theirs is finished on open by applying them (:meth:`undo_copy_pending`),
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
        writable open removes those that no version uses (:meth:`undo_copy_pending`), so the
        call is whole or absent. A failure removes them at once.
        """
        if preds:
            self._save_predicates(preds)
        if ents:
            self._create_entities(ents)
        if preds or ents or ops:
            # Undone on open if the copy never commits, finished if it did (undo_copy_pending).
            record: dict[str, Any] = {
                "entities": [e.id for e in ents],
                "predicates": [p.name for p in preds],
            }
            if ops:
                s, _, f = facts[0]
                record["probe"] = [s, f.id]
                record["ops"] = [list(op) for op in ops]
            self.set_meta(COPY_PENDING, json.dumps(record))
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
            self.executor.execute("MATCH (m:Meta {key: $k}) DELETE m", {"k": COPY_PENDING})
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

    def undo_copy_pending(self) -> None:
        """Remove the nodes of a bulk write whose version COPY never committed (Kuzu).

        The entities and predicates :meth:`_copy_after_checkpoint` committed first are removed
        when no version, mention or alias uses them; when the copy did commit, they are all in
        use and only the record goes, after the writes it held back (``ops``: upserts, bumps,
        closes, which follow the copy in a transaction of their own) are applied: the copy
        committed when its probe version exists.
        """
        value = self.get_meta(COPY_PENDING)
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
                found = self.execute(
                    "MATCH (a:Entity {id: $s})-[r:Fact]->() WITH r WHERE r.fid = $f "
                    "RETURN count(r)",
                    {"s": probe[0], "f": probe[1]},
                )
                if found and found[0][0]:
                    self._run_ops(ops)
            if ids:
                self.execute(
                    "UNWIND $ids AS i MATCH (e:Entity {id: i}) "
                    "WHERE NOT EXISTS { MATCH (e)-[:Fact]-() } "
                    "AND NOT EXISTS { MATCH (:Session)-[:MENTIONS]->(e) } "
                    "AND (e.aliases IS NULL OR size(e.aliases) = 0) DELETE e",
                    {"ids": ids},
                    write=True,
                )
            for name in names:
                used = self.execute(
                    "MATCH ()-[r:Fact]->() WITH r WHERE r.predicate = $p RETURN count(r)",
                    {"p": name},
                )
                if not used or not used[0][0]:
                    self.execute("MATCH (p:Predicate {name: $p}) DELETE p", {"p": name}, write=True)
            self.execute("MATCH (m:Meta {key: $k}) DELETE m", {"k": COPY_PENDING}, write=True)

    def _holding(self) -> bool:
        """Whether logged writes are held back: a transaction that has logged nothing yet."""
        return self.in_tx and not self._logged

    def _copy_pays(self, n: int, stored: int) -> bool:
        """Whether copying ``n`` versions beats logged inserts (:data:`WRITE_COSTS`).

        ``stored``: the versions in the rel table (a COPY into a non-empty one rewrites it).
        """
        if stored == 0:
            return True  # into an empty table, a big batch always goes as a COPY
        row, fixed, per_stored = WRITE_COSTS[self.executor.engine]
        return fixed + stored * per_stored < n * row

    def _stored_versions(self) -> int:
        # Not counting deferred rows (only sizes the COPY decision).
        return int(self.executor.execute("MATCH ()-[r:Fact]->() RETURN count(r)", {})[0][0])

    # -- the store's writes (deferred while a COPY may still take them) --------------------

    def save_predicates(self, predicates: Sequence[Predicate]) -> None:
        """Insert or update predicate definitions.

        Inside a transaction, new predicates wait for the commit (they may go with a bulk COPY).
        """
        if not predicates:
            return
        if self.in_tx and not self._logged:
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
        (module docstring); other batches are logged inserts
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
        if not self.in_tx:
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
            self.execute(
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

    def set_max_system_time(self, at: dt.datetime, *, shown: bool = False) -> None:
        """Record the newest system-time instant written (the ``last_write`` marker).

        In a transaction whose bulk versions wait for a COPY-only commit, the marker is written
        right after that commit (module docstring). ``shown``: the transaction inserted a
        version recorded at ``at`` or closed one at ``at``, so its versions show the instant
        and the marker stays in memory until :meth:`save_marker` (the first such write of the
        process flags it in Meta instead; docs/concepts/storage.md#lazy-marker).
        """
        value = at.isoformat()
        if self.in_tx and self._pending_facts and not self._logged:
            self._pending_marker = value
            return
        if not (shown and self.in_tx):
            self._advance_marker(value)
            return
        if not self._flagged and not self._flag_staged:
            self.set_meta(MARKER_UNSAVED, "1")
            self._flag_staged = True
        if self._staged_marker is None or self._staged_marker < value:
            self._staged_marker = value

    def _promote_marker(self) -> None:
        """After a COMMIT: what the transaction kept of the marker is the writer's now."""
        staged, self._staged_marker = self._staged_marker, None
        if staged is not None and (self.unsaved_marker is None or self.unsaved_marker < staged):
            self.unsaved_marker = staged
        self._flagged = self._flagged or self._flag_staged
        self._flag_staged = False

    def save_marker(self) -> None:
        """Write the marker kept in memory and drop the flag (before the handles close)."""
        if self.unsaved_marker is None and not self._flagged:
            return
        with self.transaction():
            self._logged = True
            if self.unsaved_marker is not None:
                self._advance_marker(self.unsaved_marker)
            self.execute("MATCH (m:Meta {key: $k}) DELETE m", {"k": MARKER_UNSAVED}, write=True)
        self.unsaved_marker, self._flagged = None, False

    def get_meta(self, key: str) -> str | None:
        """Return a metadata value; ``last_write`` includes the marker kept in memory."""
        value = super().get_meta(key)
        kept = self.unsaved_marker
        if key == "last_write" and kept is not None and (value is None or value < kept):
            return kept
        return value
