"""Builders and the cross-backend comparison of the contract suite (no engine knowledge here)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from graphmem.models import Entity, Fact, Session
from graphmem.store.base import Applied, ChangeSet

UTC = dt.timezone.utc
T0 = dt.datetime(2026, 1, 1, tzinfo=UTC)


def h(n: float) -> dt.datetime:
    """``n`` hours after :data:`T0` (aware UTC)."""
    return T0 + dt.timedelta(hours=n)


def fact(
    fid: str,
    subject: str,
    obj: str,
    *,
    pred: str = "works_at",
    vf: float = 0,
    vt: float | None = None,
    rec: float = 0,
    **kw: Any,
) -> Fact:
    """A current version ``subject -pred-> obj``, valid ``[h(vf), h(vt))``, recorded ``h(rec)``."""
    return Fact(
        id=fid,
        subject=subject,
        predicate=pred,
        object=obj,
        valid_from=h(vf),
        valid_to=None if vt is None else h(vt),
        recorded_at=h(rec),
        **kw,
    )


def edge(f: Fact) -> tuple[str, str, Fact]:
    """An insert row whose entity ids are the lower-cased names."""
    return (f.subject.lower(), f.object.lower(), f)


def ins(at: float, *facts: Fact, **kw: Any) -> ChangeSet:
    """A change set inserting ``facts`` at ``h(at)`` (their ids: lower-cased names)."""
    return ChangeSet(at=h(at), inserts=[edge(f) for f in facts], **kw)


def ent(eid: str, name: str | None = None, kind: str = "entity", *aliases: str) -> Entity:
    return Entity(id=eid, name=name or eid.title(), kind=kind, aliases=tuple(aliases))


def session(sid: str, start: float, text: str | None = None, **kw: Any) -> Session:
    return Session(id=sid, started_at=h(start), text=text, **kw)


def by_id(facts: list[Fact]) -> list[Fact]:
    return sorted(facts, key=lambda f: f.id)


class Pair:
    """The store under test and a reference embedded store fed the same change sets."""

    def __init__(self, store: Any, ref: Any | None) -> None:
        self.store = store
        self.ref = ref

    def apply(self, changes: ChangeSet) -> Applied:
        """Apply to both; both must report the same :class:`Applied`."""
        got: Applied = self.store.apply(changes)
        if self.ref is not None:
            want = self.ref.apply(changes)
            assert got == want, "apply() reports differ between the backend and the reference"
        return got

    def ask(self, read: Callable[[Any], Any], *, norm: Callable[[Any], Any] | None = None) -> Any:
        """``read(store)``; equal to ``read(reference)`` (after ``norm`` for unordered answers)."""
        got = read(self.store)
        if self.ref is not None:
            want = read(self.ref)
            a, b = (got, want) if norm is None else (norm(got), norm(want))
            assert a == b, f"the backend answers {a!r:.600}, the embedded reference {b!r:.600}"
        return got

    def fails(self, changes: ChangeSet) -> tuple[BaseException | None, BaseException | None]:
        """Apply a change set expected to fail; return the errors (``None``: it did not fail)."""
        errors: list[BaseException | None] = []
        for s in (self.store, self.ref):
            if s is None:
                errors.append(None)
                continue
            try:
                s.apply(changes)
            except Exception as exc:  # noqa: BLE001 - returned to the test
                errors.append(exc)
            else:
                errors.append(None)
        return errors[0], errors[1]
