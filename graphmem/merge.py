"""Merging two entities that are one: ``merge_entities(keep, other)``.

One audited write (docs/concepts/decisions.md#merging-entities): every *current* version whose
subject or object is ``other`` is closed in system time ("merged into <keep>") and written
again under ``keep`` with the same valid interval and content, by the ordinary decision rules
against ``keep``'s current versions (a duplicate joins the version it repeats; for a
single-valued predicate the value with the later ``valid_from`` stays current and the other
ends there, time rule 4). Two different values of a single-valued predicate starting at the
same instant are refused: time cannot pick one. ``other``'s name and aliases become aliases of
``keep``, so later mentions resolve to it. No stored version is edited
(docs/concepts/time.md#rule-2): answers for an earlier ``known_at`` do not change.

>>> import graphmem as gm
>>> from graphmem.timeutil import ManualClock
>>> clock = ManualClock("2026-01-01")
>>> with gm.open(clock=clock) as mem:
...     _ = mem.add_fact("api", "uses", "Postgres", valid_from="2024-01-01")
...     _ = mem.add_fact("PostgreSQL", "version", "15", valid_from="2024-01-01")
...     clock.set("2026-02-01")
...     print(mem.merge_entities("Postgres", "PostgreSQL"))
...     print(mem.facts(subject="postgresql"))
merged 'PostgreSQL' into 'Postgres' on 2026-02-01: 1 version re-filed (1 closed, 1 written); \
'postgresql' now resolves to 'Postgres'
Postgres version 15 [2024-01-01 → now) learned 2026-02-01
"""

from __future__ import annotations

import datetime as dt
import json
import time
import uuid
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from graphmem.admission import shown
from graphmem.errors import InvalidInput, NotFound
from graphmem.kernel import kernel_of
from graphmem.models import Decision, Fact, trusted
from graphmem.normalize import entity_key
from graphmem.scoped import unfiltered
from graphmem.temporal import Close, new_id, plan_assert
from graphmem.timeutil import fmt
from graphmem.writes import WriteBatch

if TYPE_CHECKING:
    from graphmem.kernel import Kernel, MemoryLike
    from graphmem.models import Entity

__all__ = ["MergeConflict", "MergeResult", "merge_entities"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


class MergeConflict(_Frozen):
    """Two values of a single-valued predicate that the merge brought together.

    Attributes:
        subject: the subject (``keep``'s name, or the subject of a fact about ``other``).
        predicate: the single-valued predicate.
        kept: the value that starts later; it stays current from ``since``.
        since: its ``valid_from``: where the other value now ends.
        ended: the value that ends at ``since`` (its earlier part stays, as a new version).
        ended_version: the id of the version of ``ended`` that was closed (or, when the
            re-filed value was the earlier one, the id of ``other``'s version).
    """

    subject: str
    predicate: str
    kept: str
    since: dt.datetime
    ended: str
    ended_version: str

    def __str__(self) -> str:
        return (
            f"{self.subject} {self.predicate}: {self.kept!r} from {fmt(self.since)} stays, "
            f"{self.ended!r} ends there"
        )


class MergeResult(_Frozen):
    """What ``merge_entities`` did.

    Attributes:
        keep: the display name of the entity kept.
        other: the display name of the entity merged into it.
        at: the write's system time.
        closed: ids of the versions closed in system time (``other``'s current versions,
            and versions of ``keep`` ended by a conflict).
        inserted: ids of the versions written (re-filed under ``keep``, or shortened).
        conflicts: the single-valued conflicts resolved (the later ``valid_from`` stays).
        aliases: the alias keys that now resolve to ``keep`` (``other``'s key among them).
        audit_id: the id of the audit record (``changes()`` lists it as ``merged``).
        moved: how many current versions of ``other`` were re-filed.
    """

    keep: str
    other: str
    at: dt.datetime
    moved: int = 0
    closed: tuple[str, ...] = ()
    inserted: tuple[str, ...] = ()
    conflicts: tuple[MergeConflict, ...] = ()
    aliases: tuple[str, ...] = ()
    audit_id: str = ""

    def __str__(self) -> str:
        moved = self.moved
        head = (
            f"merged {self.other!r} into {self.keep!r} on {fmt(self.at)}: "
            f"{moved} version{'' if moved == 1 else 's'} re-filed "
            f"({len(self.closed)} closed, {len(self.inserted)} written); "
            f"{entity_key(self.other)!r} now resolves to {self.keep!r}"
        )
        return "\n".join([head, *(f"  conflict: {c}" for c in self.conflicts)])


def _entity(k: Kernel, name: str, what: str) -> Entity:
    eid = k.entity_id(name, what=what)
    found = k.store.get_entity(eid)
    if found is None:
        raise NotFound(
            f"{what}={shown(name)} names no entity in memory {k.where!r}; check the spelling "
            "(facts(subject=...) lists what is stored)"
        )
    if found.kind == "text":
        raise InvalidInput(
            f"{what}={shown(name)} is the text of a note, not an entity; merge named entities"
        )
    return found


def merge_entities(mem: MemoryLike, keep: str, other: str) -> MergeResult:
    """Merge entity ``other`` into ``keep`` in one write; see the module docstring.

    Args:
        mem: the memory.
        keep: the entity that stays (a name or an alias).
        other: the entity merged into it; its name becomes an alias of ``keep``.

    Returns:
        A :class:`MergeResult`.

    Raises:
        NotFound: ``keep`` or ``other`` names no entity.
        InvalidInput: both name the same entity, one is a note's text, or a single-valued
            predicate has different values for both starting at the same instant (the
            message lists them; retract the wrong one and merge again). Nothing is written.
        ClockError: the clock moved backwards.
    """
    k = kernel_of(mem)
    with k.uow.write() as w:
        now = w.at
        kept, gone = _entity(k, keep, "keep"), _entity(k, other, "other")
        if kept.id == gone.id:
            raise InvalidInput(
                f"keep={shown(keep)} and other={shown(other)} are the same entity "
                f"{kept.name!r}; pass two different entities to merge"
            )
        store = k.store
        found = store.query_facts(subject_id=gone.id, current_only=True)
        found += store.query_facts(object_id=gone.id, current_only=True)
        originals = sorted({v.id: v for v in found}.values(), key=lambda v: v.id)
        moved = {v.id for v in originals}

        def moved_name(name: str) -> str:
            return kept.name if entity_key(name) == gone.id else name

        refiled: list[tuple[Fact, Fact]] = []
        for v in originals:
            data = dict(v.__dict__)  # every field: statement, source, counters, ...
            data.update(
                id=new_id(),
                subject=moved_name(v.subject),
                object=moved_name(v.object),
                recorded_at=now,
                expired_at=None,
                superseded_by=None,
                reason=None,
            )
            refiled.append((v, trusted(Fact, data)))
        refiled.sort(key=lambda p: (entity_key(p[1].subject), p[1].predicate, p[1].valid_from))

        subjects = sorted({entity_key(r.subject) for _, r in refiled})
        current = {
            sid: [v for v in vs if v.id not in moved]
            # every scope's: a merge renames an entity for all of them (docs/concepts/scopes.md)
            for sid, vs in unfiltered(store).current_versions(subjects).items()
        }
        _refuse_ties(k, refiled, current, kept.name, gone.name)
        batch = WriteBatch(now, current)
        conflicts: list[MergeConflict] = []
        note = f"merged into {kept.name!r}"
        for v, r in refiled:
            sid = entity_key(r.subject)
            pred = k.ontology.lookup(r.predicate)
            single = pred is None or pred.cardinality == "one"
            rows = list(batch.versions(sid, r.predicate))
            if single:
                conflicts.extend(_conflicts(v, r, rows))
            plan = plan_assert(r, rows, cardinality="one" if single else "many")
            plan.reinforce = []  # a merge reads nothing: no access is counted
            if plan.decision is Decision.NOOP:
                plan.fact = None
            plan.closes = [
                Close(
                    c.fact,
                    c.superseded_by,
                    f"{c.reason} (merging {gone.name!r} into {kept.name!r})",
                )
                for c in plan.closes
            ]
            batch.apply(sid, plan)
            after = plan.fact.id if plan.fact is not None else None
            successor = after if after in batch.pending or after in batch.redirect else None
            batch.closes[v.id] = (successor, note)
            batch.closed_subject[v.id] = entity_key(v.subject)
        batch.fill(w.changes)
        aliases = tuple(sorted((set(kept.aliases) | set(gone.aliases) | {gone.id}) - {kept.id}))
        w.changes.aliases = {kept.id: aliases, gone.id: ()}
        audit_id = f"a{time.time_ns():016x}{uuid.uuid4().hex[:8]}"  # sorts by time
        closed = tuple(fid for _, fid, _, _ in w.changes.closes)
        inserted = tuple(f.id for _, _, f in w.changes.inserts)
        detail = {
            "keep": kept.name,
            "keep_id": kept.id,
            "other": gone.name,
            "other_id": gone.id,
            "moved": len(originals),
            "closed": len(closed),
            "inserted": len(inserted),
            "aliases": list(aliases),
            "conflicts": [str(c) for c in conflicts],
        }
        w.changes.audit.append((audit_id, "merge", json.dumps(detail, sort_keys=True)))
    for key, owner in list(k.aliases.items()):
        if owner == gone.id:
            k.aliases[key] = kept.id
    for key in aliases:
        k.aliases[key] = kept.id
    return MergeResult(
        keep=kept.name,
        other=gone.name,
        at=now,
        closed=closed,
        inserted=inserted,
        conflicts=tuple(conflicts),
        aliases=aliases,
        audit_id=audit_id,
        moved=len(originals),
    )


def _end(t: dt.datetime | None) -> dt.datetime:
    return dt.datetime.max.replace(tzinfo=dt.timezone.utc) if t is None else t


def _conflicts(original: Fact, r: Fact, rows: list[Fact]) -> list[MergeConflict]:
    """The single-valued conflicts of re-filed ``r`` with the current ``rows`` (time rule 4)."""
    key = entity_key(r.object)
    others = [c for c in rows if entity_key(c.object) != key]
    out = [
        MergeConflict(
            subject=r.subject,
            predicate=r.predicate,
            kept=r.object,
            since=r.valid_from,
            ended=c.object,
            ended_version=c.id,
        )
        for c in others
        if c.valid_at(r.valid_from)
    ]
    later = [c for c in others if r.valid_from < c.valid_from < _end(r.valid_to)]
    if later:
        c = min(later, key=lambda c: c.valid_from)
        out.append(
            MergeConflict(
                subject=r.subject,
                predicate=r.predicate,
                kept=c.object,
                since=c.valid_from,
                ended=r.object,
                ended_version=original.id,
            )
        )
    return out


def _refuse_ties(
    k: Kernel,
    refiled: list[tuple[Fact, Fact]],
    current: dict[str, list[Fact]],
    keep: str,
    other: str,
) -> None:
    """Refuse two values of a single-valued predicate from the same instant (none is later)."""
    ties = []
    for _, r in refiled:
        pred = k.ontology.lookup(r.predicate)
        if pred is not None and pred.cardinality == "many":
            continue
        for c in current.get(entity_key(r.subject), ()):
            if (
                c.predicate == r.predicate
                and c.valid_from == r.valid_from
                and entity_key(c.object) != entity_key(r.object)
            ):
                ties.append(
                    f"{r.subject} {r.predicate}: {c.object!r} and {r.object!r} both from "
                    f"{fmt(r.valid_from)}"
                )
    if ties:
        raise InvalidInput(
            f"cannot merge {other!r} into {keep!r}: {len(ties)} single-valued conflict(s) with "
            f"no later value: {'; '.join(ties)}; retract the wrong value (retract(subject, "
            "predicate, object)) and merge again. Nothing was written"
        )
