"""The write pipeline: validate inputs, plan every write against current knowledge, flush once.

A call (one fact or a bulk batch) runs, inside one unit of work (:mod:`graphmem.kernel`), as:
validate everything (nothing written on bad input) and read the current versions of the
batch's subjects in one query (:func:`open_rows`); plan each write in order over an in-memory
working set (the caller's rules: :func:`write_facts` the decision rules of
:mod:`graphmem.temporal`, the text pipeline its claims; docs/concepts/text.md#one-write); then
put the accumulated operations into the write's change set, which the store commits atomically.
Versions created and replaced inside the same call are never written (one system instant has
one state, as in SQL:2011).
"""

from __future__ import annotations

import datetime as dt
import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import ValidationError

from graphmem.errors import InvalidInput, NotFound
from graphmem.models import Decision, Entity, Fact, Predicate, WriteResult, trusted
from graphmem.normalize import check_text, entity_key
from graphmem.rows import FIELDS
from graphmem.scopes import check_own_scope
from graphmem.store.base import ChangeSet

if TYPE_CHECKING:
    from collections.abc import Sequence

    from graphmem.kernel import Kernel, Write
    from graphmem.temporal import Plan
    from graphmem.timeutil import TimeLike

__all__ = [
    "FIELDS",
    "GC_PAUSE_ROWS",
    "FactRows",
    "Row",
    "WriteBatch",
    "build_fact",
    "correct",
    "new_version",
    "open_rows",
    "paused_gc",
    "retract",
    "retract_version",
    "write_facts",
]

#: Batches of at least this many rows run with the cyclic garbage collector paused.
GC_PAUSE_ROWS = 1000


@contextmanager
def paused_gc(rows: int) -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a batch of ``rows`` writes runs.

    A bulk write allocates a few objects per row that all stay alive until it returns, and the
    collector's passes over them cost as much as the write itself (100k facts: 31.8 s with the
    collector, 16.0 s without; docs/benchmarks.md#results). Nothing a write allocates needs a cycle
    collection mid-call; the collector is re-enabled (and runs as usual) afterwards.
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
    (with the row's index in the message), and a bulk write builds a million of these
    (docs/benchmarks.md#results; ``test_writes`` holds the result equal to :func:`build_fact`'s).
    """
    checked.update(fields)
    return trusted(Fact, checked)


@dataclass
class WriteBatch:
    """The working set of one write call over the current versions of its subjects.

    Versions are grouped per subject and predicate: the decision rules mostly look at one
    predicate of a subject, and scanning the subject's other versions cost 7% of a bulk
    write (docs/benchmarks.md#results).
    """

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
            if fact.expired_at is None:  # a dispute is closed at birth: never current
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

    def fill(self, changes: ChangeSet) -> None:
        """Put the accumulated operations into the write's change set."""
        keys: dict[str, str] = {}  # display name -> entity id (names repeat across a batch)

        def key(name: str) -> str:
            found = keys.get(name)
            if found is None:
                found = keys[name] = entity_key(name)
            return found

        inserts = [(key(f.subject), key(f.object), f) for f in self.pending.values()]
        # New endpoints of inserted versions are created with the versions; only new entities
        # without a new version are upserted on their own.
        endpoints = {i for s, o, _ in inserts for i in (s, o)}
        changes.entities.extend(e for eid, e in self.entities.items() if eid not in endpoints)
        changes.new_entities.update(self.entities)
        changes.bumps.extend((key(f.subject), f.id, f.access_count) for f in self.bumps.values())
        changes.closes.extend(
            (self.closed_subject[fid], fid, self._final_successor(by), why)
            for fid, (by, why) in self.closes.items()
        )
        changes.inserts.extend(inserts)


class Row(NamedTuple):
    """One fact row of a write, made a version: what the caller plans."""

    fact: Fact
    subject_id: str
    predicate: Predicate


@dataclass
class FactRows:
    """The fact rows of one unit of work, checked, over the current versions of their subjects.

    A write plans in a straight line (docs/concepts/text.md#one-write): :func:`open_rows`
    checks the rows and reads inside the write; the caller plans each :class:`Row` (in input
    order, iterated once) with the core's rules over :meth:`versions` and hands the plan to
    :meth:`apply`; :meth:`fill` puts everything into the write's change set. After the unit of work
    commits, :meth:`committed` lets the kernel learn the new predicates and count the writes.
    """

    k: Kernel
    now: dt.datetime
    bulk: bool
    checked: list[dict[str, Any]]
    entities: dict[str, Entity]
    new_predicates: dict[str, Predicate]
    batch: WriteBatch
    results: list[WriteResult] = field(default_factory=list)
    admitted: list[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[Row]:
        from graphmem.temporal import new_id

        # Each checked row becomes its version's own __dict__ (new_version): one pass only.
        checked, self.checked = self.checked, []
        entities, now = self.entities, self.now
        for c in checked:
            subj, obj, pred = entities[c["subject"]], entities[c["object"]], c["predicate"]
            fact = new_version(
                c,
                id=new_id(),
                subject=subj.name,
                object=obj.name,
                predicate=pred.name,
                recorded_at=now,
            )
            yield Row(fact, subj.id, pred)

    def versions(self, subject_id: str, predicate: str | None = None) -> list[Fact]:
        """The current versions of a subject, this write's planned ones included."""
        return self.batch.versions(subject_id, predicate)

    def apply(self, row: Row, plan: Plan) -> WriteResult:
        """Apply the plan of ``row`` to the working set; return what the write did.

        A plan that would close a version the memory's :class:`~graphmem.trust.Trust` protects
        becomes a dispute (docs/concepts/decisions.md#authority-and-disputes).
        """
        from graphmem.authority import gate

        result = self.batch.apply(row.subject_id, gate(plan, row.fact, self.k.trust))
        self.results.append(result)
        # Rate limits count what changed knowledge; a noop only reinforces
        # (docs/concepts/hotness.md).
        if not self.bulk and result.decision is not Decision.NOOP:
            self.admitted.append(row.fact.kind)
        return result

    def fill(self, changes: ChangeSet) -> None:
        """Check the rate limits and put the planned operations into ``changes``.

        Raises:
            RateLimited: a kind's hourly limit is reached (the write commits nothing).
        """
        k, admitted = self.k, self.admitted
        k.rate.check(admitted, now=self.now)
        changes.predicates.extend(self.new_predicates.values())
        if any(f.expired_at is not None for f in self.batch.pending.values()):
            # docs/concepts/decisions.md#authority-and-disputes: reads look for disputes now
            from graphmem.authority import HAS_DISPUTES

            changes.meta[HAS_DISPUTES] = "1"
        self.batch.fill(changes)
        if any(k.admission.rate_limit(kind) is not None for kind in admitted):
            changes.meta["rate_window"] = k.rate.dumps(admitted, now=self.now)

    def committed(self) -> None:
        """After the commit: the ontology knows the new predicates, the rate window the writes."""
        for p in self.new_predicates.values():
            self.k.ontology.add(p)
        self.k.rate.record(self.admitted, now=self.now)


def open_rows(
    k: Kernel,
    w: Write,
    items: Sequence[Mapping[str, Any]],
    *,
    bulk: bool = False,
    given: bool = False,
    by_predicate: bool = False,
) -> FactRows:
    """Check fact rows and read the current versions of their subjects, inside the write ``w``.

    ``bulk`` skips the rate limits (imports). ``given``: the rows are the caller's, whose
    subjects are bounded by :data:`~graphmem.normalize.MAX_SUBJECT` (names read from text are
    not refused for their length). ``by_predicate``: the caller plans each row against its
    own predicate's versions only (as :func:`write_facts` does), so only the (subject,
    predicate) pairs of the rows are read, and whole subjects only for rows with a
    ``source_ref`` (docs/benchmarks.md#appending). Nothing is written: a bad row raises
    before the caller plans anything.

    Raises:
        InvalidInput: a bad row (the message names its index, field and value).
    """
    from graphmem.rows import session_starts, validate

    now = w.at
    single = len(items) == 1
    starts = session_starts(k, items)
    names: dict[str, str] = {}
    checked = []
    # One pass: validate each row and note its names (a second pass over a million rows
    # costs seconds in cache misses). Nothing is written before all are valid.
    subjects: dict[str, None] = {}
    objects: dict[str, str] = {}  # name -> kind of its first use
    predicates: dict[str, Predicate] = {}
    for i, it in enumerate(items):
        c = validate(
            k,
            -1 if single else i,
            it,
            now,
            # a non-text source (e.g. a list) is rejected by validate, not hashed here
            starts.get(it["source"], now) if isinstance(it.get("source"), str) else now,
            names,
            bound_subject=given,
        )
        checked.append(c)
        subjects[c["subject"]] = None
        pred = predicates[c["predicate"].name] = c["predicate"]
        objects.setdefault(c["object"], "text" if pred.name == "note" else "entity")
    entities, new_entities = k.resolve_entities(
        [(name, "entity") for name in subjects] + list(objects.items())
    )
    current = (
        _current_pairs(k, checked, entities)
        if by_predicate
        else k.store.current_versions(sorted({entities[name].id for name in subjects}))
    )
    return FactRows(
        k,
        now,
        bulk,
        checked,
        entities,
        {name: p for name, p in predicates.items() if k.ontology.lookup(name) is None},
        WriteBatch(now, current, entities=new_entities),
    )


def _current_pairs(
    k: Kernel, checked: Sequence[Mapping[str, Any]], entities: Mapping[str, Entity]
) -> dict[str, list[Fact]]:
    """The current versions of the rows' (subject, predicate) pairs; whole subjects for refs.

    10k rows over 5 predicates at 200k versions: 0.17 s instead of 0.85 s for their whole
    subjects (docs/benchmarks.md#appending-in-10k-calls).
    """
    whole: set[str] = set()
    pairs: dict[tuple[str, str], None] = {}
    for c in checked:
        sid = entities[c["subject"]].id
        if c.get("source_ref"):
            whole.add(sid)
        pairs[(sid, c["predicate"].name)] = None
    rest = sorted({sid for sid, _ in pairs} - whole)
    out = k.store.current_versions(rest, pairs=[p for p in pairs if p[0] not in whole])
    if whole:
        out.update(k.store.current_versions(sorted(whole)))
    return out


def write_facts(
    k: Kernel, items: Sequence[Mapping[str, Any]], *, bulk: bool = False
) -> list[WriteResult]:
    """Validate, plan and apply structured fact rows as one write (one change set).

    Each row is planned by the decision rules (docs/concepts/decisions.md#the-decision-rules);
    ``bulk`` skips the rate limits (imports).
    """
    from graphmem.contradiction import negates_fact
    from graphmem.temporal import plan_assert

    with k.uow.write() as w:
        rows = open_rows(k, w, items, bulk=bulk, given=True, by_predicate=True)
        for row in rows:
            fact, pred = row.fact, row.predicate
            plan = plan_assert(
                fact,
                # only the source_ref rule looks across predicates
                rows.versions(row.subject_id, None if fact.source_ref else pred.name),
                cardinality=pred.cardinality,
                negate=bool(fact.statement)
                and negates_fact(fact.statement or "", subject=fact.subject, object=fact.object),
            )
            rows.apply(row, plan)
        rows.fill(w.changes)
    rows.committed()
    return rows.results


def retract(
    k: Kernel,
    subject: str,
    predicate: str,
    obj: str | None,
    *,
    at: TimeLike | None,
    reason: str | None,
) -> WriteResult:
    """End every current version of (subject, predicate[, object]) valid at ``at``.

    See :meth:`graphmem.memory.Memory.retract`.
    """
    from graphmem.temporal import plan_retract

    with k.uow.write() as w:
        now = w.at
        when = k.time(at, "at", now)
        sid = k.entity_id(subject, what="subject")
        pred = k.ontology.resolve(predicate)
        oid = None if obj is None else k.entity_id(obj, what="object")
        targets = [
            v
            for v in k.store.current_versions([sid])[sid]
            if v.predicate == pred.name and (oid is None or entity_key(v.object) == oid)
        ]
        if reason is not None:
            check_text(reason, what="reason")
        what = f"reason: {reason}" if reason else "retracted"
        plan = plan_retract(targets, at=when, now=now, reason=what)
        if plan.decision is Decision.NOOP:
            shown = "" if obj is None else f" {obj!r}"
            raise NotFound(
                f"no current fact {subject!r} {pred.name}{shown} is valid at {when.isoformat()}"
                f" in memory {k.where!r}; check facts(subject={subject!r})"
            )
        batch = WriteBatch(now, {sid: targets})
        result = batch.apply(sid, plan)
        batch.fill(w.changes)
    return result


def _current_version(k: Kernel, fact_id: str) -> tuple[str, Fact, list[Fact]]:
    """The subject id of the current version ``fact_id``, the version, its subject's versions.

    Raises:
        NotFound: no version has that id, or it is closed already.
    """
    check_text(fact_id, what="fact_id")
    found = k.store.get_facts([fact_id])
    if not found:
        raise NotFound(
            f"no fact version with id {fact_id!r} in memory {k.where!r}; take an id from "
            "facts, search or context"
        )
    version = found[0]
    check_own_scope(version, k.scope)
    sid = k.entity_id(version.subject, what="subject")
    live = k.store.current_versions([sid]).get(sid, [])
    if version.expired_at is not None or all(v.id != fact_id for v in live):
        raise NotFound(
            f"fact version {fact_id!r} ({version.subject} {version.predicate} "
            f"{version.object}) is closed already ({version.reason or 'superseded'}); act on "
            f"the current one: history({version.subject!r}, include_expired=True) shows it"
        )
    return sid, version, live


def retract_version(
    k: Kernel, fact_id: str, *, at: TimeLike | None, reason: str | None
) -> WriteResult:
    """End the current version ``fact_id`` at ``at`` (``Memory.retract(fact_id=...)``).

    As :func:`retract`, for one version named by its id (docs/concepts/decisions.md#rule-3).
    """
    from graphmem.temporal import plan_retract

    with k.uow.write() as w:
        now = w.at
        when = k.time(at, "at", now)
        if reason is not None:
            check_text(reason, what="reason")
        sid, version, live = _current_version(k, fact_id)
        what = f"reason: {reason}" if reason else "retracted"
        plan = plan_retract([version], at=when, now=now, reason=what)
        if plan.decision is Decision.NOOP:
            raise NotFound(
                f"fact version {fact_id!r} is not valid at {when.isoformat()} (valid from "
                f"{version.valid_from.isoformat()}"
                + (f" to {version.valid_to.isoformat()}" if version.valid_to else "")
                + "); pass an `at` inside its valid interval"
            )
        batch = WriteBatch(now, {sid: live})
        result = batch.apply(sid, plan)
        batch.fill(w.changes)
    return result


def correct(k: Kernel, fact_id: str, new_object: str, *, reason: str | None) -> WriteResult:
    """Replace the current version ``fact_id`` by one with ``new_object``, from its start.

    The old value was wrong, not outdated (docs/concepts/decisions.md#correcting-the-past):
    the version is closed in system time (its valid interval untouched, so ``known_at``
    queries from before still see it), and the same subject and predicate with
    ``new_object`` over the same valid interval is asserted in the same write by the decision
    rules (a value already current is reinforced, a single-valued rival superseded).
    """
    from graphmem.normalize import clean_name
    from graphmem.temporal import Close, plan_assert

    new_object = clean_name(new_object, what="new_object")
    if reason is not None:
        check_text(reason, what="reason")
    with k.uow.write() as w:
        _sid, old, _live = _current_version(k, fact_id)
        if entity_key(new_object) == entity_key(old.object):
            raise InvalidInput(
                f"new_object={new_object!r} is the value of fact {fact_id!r} already; to "
                "change its dates re-assert it with the right valid_from/valid_to, to end it "
                "retract it"
            )
        item = {
            "subject": old.subject,
            "predicate": old.predicate,
            "object": new_object,
            "valid_from": old.valid_from,
            "valid_to": old.valid_to,
            "kind": old.kind,
            "importance": old.importance,
            "confidence": old.confidence,
            "pinned": old.pinned,
            "source_ref": old.source_ref,
        }
        rows = open_rows(k, w, [item])
        why = f"corrected to {new_object!r}" + (f": {reason}" if reason else "")
        for row in rows:
            fact, pred = row.fact, row.predicate
            others = [
                v
                for v in rows.versions(row.subject_id, None if fact.source_ref else pred.name)
                if v.id != old.id
            ]
            plan = plan_assert(fact, others, cardinality=pred.cardinality)
            heir = plan.fact.id if plan.fact is not None else None
            plan.closes.insert(0, Close(old, heir, why))
            plan.decision = Decision.SUPERSEDE  # the old version is replaced, in any case
            rows.apply(row, plan)
        rows.fill(w.changes)
    rows.committed()
    return rows.results[0]
