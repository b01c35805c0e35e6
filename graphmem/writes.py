"""The write pipeline: validate inputs, plan every write against current knowledge, flush once.

A call (one fact or a bulk batch) runs as: validate everything (nothing written on bad input),
read the current versions of the batch's subjects in one query, plan each write in order with
:mod:`graphmem.temporal` over an in-memory working set, then apply the accumulated operations in
one transaction with a constant number of store queries. Versions created and replaced inside the
same call are never written (one system instant has one state, as in SQL:2011).
"""

from __future__ import annotations

import datetime as dt
import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from graphmem.errors import InvalidInput
from graphmem.models import Decision, Entity, Fact, WriteResult, trusted
from graphmem.normalize import entity_key
from graphmem.store.kuzu_store import KuzuStore
from graphmem.temporal import Plan

__all__ = ["FIELDS", "GC_PAUSE_ROWS", "WriteBatch", "build_fact", "new_version", "paused_gc"]

#: Keys accepted in a fact dictionary for ``add_facts`` (and the JSONL import).
FIELDS = frozenset(
    {
        "subject",
        "predicate",
        "object",
        "valid_from",
        "valid_to",
        "source",
        "source_ref",
        "statement",
        "kind",
        "importance",
        "confidence",
        "pinned",
    }
)


#: Batches of at least this many rows run with the cyclic garbage collector paused.
GC_PAUSE_ROWS = 1000


@contextmanager
def paused_gc(rows: int) -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a batch of ``rows`` writes runs.

    A bulk write allocates a few objects per row that all stay alive until it returns, and the
    collector's passes over them cost as much as the write itself (100k facts: 31.8 s with the
    collector, 16.0 s without; #6). Nothing a write allocates needs a cycle collection
    mid-call; the collector is re-enabled (and runs as usual) afterwards.
    """
    if rows < GC_PAUSE_ROWS or not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def build_fact(data: Mapping[str, Any]) -> Fact:
    """Build a Fact, turning pydantic's validation errors into :class:`InvalidInput`.

    Raises:
        InvalidInput: a field is invalid; the message names the field and value.
    """
    try:
        return Fact.model_validate(dict(data))
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"]) or "fact"
        value = err.get("input")
        shown = repr(value) if len(repr(value)) < 80 else repr(value)[:77] + "..."
        raise InvalidInput(f"{loc}={shown}: {err['msg']}") from exc


def new_version(checked: dict[str, Any], **fields: Any) -> Fact:
    """Complete a row checked by ``Memory._validate`` with ``fields`` and make it a version.

    ``checked`` holds every Fact field in declaration order and becomes the version's own
    ``__dict__`` (the caller lets go of it). No second validation: the checks ran on the input
    (with the row's index in the message), and a bulk write builds a million of these (#6;
    ``test_writes`` holds the result equal to :func:`build_fact`'s).
    """
    checked.update(fields)
    return trusted(Fact, checked)


@dataclass
class WriteBatch:
    """The working set of one write call over the current versions of its subjects.

    Versions are grouped per subject and predicate: the decision rules mostly look at one
    predicate of a subject, and scanning the subject's other versions cost 7% of a bulk
    write (#6).
    """

    store: KuzuStore
    now: dt.datetime
    current: dict[str, list[Fact]]
    entities: dict[str, Entity] = field(default_factory=dict)
    pending: dict[str, Fact] = field(default_factory=dict)
    closes: dict[str, tuple[str | None, str]] = field(default_factory=dict)
    closed_subject: dict[str, str] = field(default_factory=dict)
    redirect: dict[str, str | None] = field(default_factory=dict)
    bumps: dict[str, Fact] = field(default_factory=dict)
    _groups: dict[str, dict[str, list[Fact]]] = field(default_factory=dict)

    def _of(self, subject_id: str) -> dict[str, list[Fact]]:
        groups = self._groups.get(subject_id)
        if groups is None:
            groups = self._groups[subject_id] = {}
            for v in self.current.get(subject_id, ()):
                groups.setdefault(v.predicate, []).append(v)
        return groups

    def versions(self, subject_id: str, predicate: str | None = None) -> list[Fact]:
        """Return the current versions of a subject, including this call's pending ones.

        With ``predicate``, only that predicate's versions.
        """
        groups = self._of(subject_id)
        if predicate is not None:
            return groups.get(predicate, [])
        return [v for vs in groups.values() for v in vs]

    def apply(self, subject_id: str, plan: Plan) -> WriteResult:
        """Apply a plan to the working set and return what the write did."""
        groups = self._of(subject_id)
        for close in plan.closes:
            fid = close.fact.id
            live = groups.get(close.fact.predicate, [])
            live[:] = [v for v in live if v.id != fid]
            if fid in self.pending:
                del self.pending[fid]
                self.redirect[fid] = close.superseded_by
            else:
                self.closes[fid] = (close.superseded_by, close.reason)
                self.closed_subject[fid] = subject_id
        for fact in plan.inserts:
            self.pending[fact.id] = fact
            groups.setdefault(fact.predicate, []).append(fact)
        reinforced: Fact | None = None
        for fact in plan.reinforce:
            bumped = fact.model_copy(
                update={
                    "access_count": fact.access_count + 1,
                    "last_accessed_at": self.now,
                }
            )
            live = groups[fact.predicate]
            live[:] = [bumped if v.id == fact.id else v for v in live]
            if fact.id in self.pending:
                self.pending[fact.id] = bumped
            else:
                self.bumps[fact.id] = bumped
            reinforced = bumped
        result = reinforced if plan.decision is Decision.NOOP and reinforced else plan.fact
        superseded = (
            ()
            if not plan.closes
            else tuple(
                c.fact.model_copy(
                    update={
                        "expired_at": self.now,
                        "superseded_by": c.superseded_by,
                        "reason": c.reason,
                    }
                )
                for c in plan.closes
            )
        )
        return trusted(
            WriteResult, {"decision": plan.decision, "fact": result, "superseded": superseded}
        )

    def _final_successor(self, fid: str | None) -> str | None:
        seen = set()
        while fid is not None and fid in self.redirect and fid not in seen:
            seen.add(fid)
            fid = self.redirect[fid]
        return fid

    def flush(self) -> None:
        """Write the accumulated operations (the caller holds the transaction)."""
        keys: dict[str, str] = {}  # display name -> entity id (names repeat across a batch)

        def key(name: str) -> str:
            found = keys.get(name)
            if found is None:
                found = keys[name] = entity_key(name)
            return found

        inserts = [(key(f.subject), key(f.object), f) for f in self.pending.values()]
        # New endpoints of inserted versions are created with the versions (insert_facts);
        # only new entities without a new version are upserted here.
        endpoints = {i for s, o, _ in inserts for i in (s, o)}
        self.store.upsert_entities([e for eid, e in self.entities.items() if eid not in endpoints])
        self.store.bump_access(
            [(key(f.subject), f.id, f.access_count) for f in self.bumps.values()], at=self.now
        )
        self.store.close_versions(
            [
                (self.closed_subject[fid], fid, self._final_successor(by), why)
                for fid, (by, why) in self.closes.items()
            ],
            at=self.now,
        )
        self.store.insert_facts(inserts, entities=self.entities)
