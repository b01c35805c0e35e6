"""Scopes: many users, agents and runs in one memory (docs/concepts/scopes.md).

A scope is a path of names, ``"acme/alice/agent-1"``; ``""`` is the root. Every fact version
and every session belongs to the scope it was written in. The rules:

- a read in scope ``S`` sees what was written in ``S`` and in its ancestors (``"acme"``, the
  root), never a sibling's or a descendant's;
- in ``S``'s view, a single-valued slot's version in a nearer scope hides the versions of
  farther scopes it overlaps on both time axes (the team's value yields to Alice's own);
- a write in ``S`` is recorded in ``S`` and supersedes, confirms or disputes only versions of
  ``S``; a write by id (retract, correct) reaches only a version of ``S``;
- a memory opened with a scope is pinned to it: a call may narrow it (a descendant), never
  widen it; a memory opened without one reads every scope (the operator's view, no override)
  and writes in the root.

The scope in force is a context variable, so threads and asyncio tasks sharing one memory
(an MCP server with several clients) each keep their own.
"""

from __future__ import annotations

import datetime as dt
import functools
import inspect
import re
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Protocol, TypeVar

from graphmem.errors import InvalidInput, ScopeError
from graphmem.tracing import public_methods

__all__ = [
    "MAX_DEPTH",
    "ROOT",
    "ancestors",
    "check_own_scope",
    "check_scope",
    "entered",
    "every_scope",
    "in_force",
    "nearest",
    "scoped_calls",
    "visible_set",
    "within",
    "write_scope",
]

#: The root scope: what a memory without scopes writes, and every scope's ancestor.
ROOT = ""
#: Names in a scope path, at most.
MAX_DEPTH = 8
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._@+:-]{0,63}")

#: ``None``: no call has entered a scope in this context; ``(None,)``: every scope (a memory
#: without a scope); ``(S,)``: scope ``S``.
_ACTIVE: ContextVar[tuple[str | None] | None] = ContextVar("graphmem_scope", default=None)


def check_scope(value: object, *, what: str = "scope") -> str:
    """Return the canonical spelling of a scope path (``"/"`` and ``""`` are the root).

    Raises:
        InvalidInput: not text, an empty or malformed name, or more than :data:`MAX_DEPTH`.
    """
    if not isinstance(value, str):
        raise InvalidInput(
            f"{what}={value!r} is not text; pass a path of names such as 'acme/alice/agent-1'"
        )
    path = value.strip()
    if path in ("", "/"):
        return ROOT
    names = path.strip("/").split("/")
    if len(names) > MAX_DEPTH:
        raise InvalidInput(
            f"{what}={value!r} has {len(names)} names; a scope has at most {MAX_DEPTH}"
        )
    for name in names:
        if not _NAME.fullmatch(name):
            raise InvalidInput(
                f"{what}={value!r}: {name!r} is not a scope name; use 1-64 letters, digits or "
                "'._@+:-', starting with a letter or digit, separated by '/'"
            )
    return "/".join(names)


def ancestors(scope: str) -> tuple[str, ...]:
    """The root, then every ancestor of ``scope``, then ``scope`` itself (nearest last)."""
    if not scope:
        return (ROOT,)
    names = scope.split("/")
    return (ROOT, *("/".join(names[: i + 1]) for i in range(len(names))))


def within(scope: str, base: str) -> bool:
    """Whether ``scope`` is ``base`` or one of its descendants."""
    return not base or scope == base or scope.startswith(base + "/")


def visible_set(scope: str) -> dict[str, int]:
    """``{visible scope: depth}`` of a read in ``scope``: its ancestors and itself."""
    return {s: i for i, s in enumerate(ancestors(scope))}


def in_force(pinned: str | None) -> str | None:
    """The scope of the call in progress, else ``pinned`` (the memory's); ``None``: every scope."""
    active = _ACTIVE.get()
    return pinned if active is None else active[0]


def write_scope(pinned: str | None) -> str:
    """The scope a write in progress records its versions and sessions in."""
    return in_force(pinned) or ROOT


@contextmanager
def entered(asked: str | None, pinned: str | None) -> Iterator[str | None]:
    """Run a block in the scope a call asked for, narrowed from the one in force.

    ``asked`` ``None`` keeps the scope in force (a call made by another call keeps its
    caller's), else the memory's ``pinned`` one. Yields the scope in force (``None``: all).

    Raises:
        InvalidInput: a malformed ``asked``.
        ScopeError: ``asked`` is not inside the scope in force.
    """
    active = _ACTIVE.get()
    base = pinned if active is None else active[0]
    if asked is None:
        if active is not None:
            yield base
            return
        chosen = base
    else:
        chosen = check_scope(asked)
        if base is not None and not within(chosen, base):
            raise ScopeError(
                f"scope={asked!r} is outside this memory's scope {base!r}; a call may narrow "
                f"the scope (e.g. {base + '/' if base else ''}agent-1), never widen it: open "
                "the memory with a wider scope, or none, to read or write there"
            )
    token = _ACTIVE.set((chosen,))
    try:
        yield chosen
    finally:
        _ACTIVE.reset(token)


T = TypeVar("T")


def _in_scope(method: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(method)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        with entered(kwargs.get("scope"), self._kernel.scope):
            return method(self, *args, **kwargs)

    return call


def scoped_calls(cls: type[T]) -> type[T]:
    """Run every public method of ``cls`` with a ``scope`` parameter in the scope it names.

    The scope is narrowed from the memory's own (``self._kernel.scope``) by :func:`entered`;
    inherited methods are wrapped on ``cls``.
    """
    for name, member in public_methods(cls):
        if "scope" in inspect.signature(member).parameters:
            setattr(cls, name, _in_scope(member))
    return cls


class _Versioned(Protocol):
    @property
    def predicate(self) -> str: ...
    @property
    def scope(self) -> str: ...
    @property
    def valid_from(self) -> dt.datetime: ...
    @property
    def valid_to(self) -> dt.datetime | None: ...
    @property
    def recorded_at(self) -> dt.datetime: ...


V = TypeVar("V", bound=_Versioned)


def _overlap(
    a_from: dt.datetime, a_to: dt.datetime | None, b_from: dt.datetime, b_to: dt.datetime | None
) -> bool:
    return (a_to is None or b_from < a_to) and (b_to is None or a_from < b_to)


def nearest(
    items: Sequence[V],
    scope: str,
    *,
    one: Callable[[str], bool],
    subject: Callable[[V], str],
    expired: Callable[[V], dt.datetime | None],
) -> list[V]:
    """Keep the versions a read in ``scope`` sees, in their order.

    A version of another scope than ``scope`` or its ancestors is left out. Of a single-valued
    slot (``one(predicate)``, one ``subject``), a version is left out where a version of a
    nearer scope overlaps it in valid time and in system time (``expired``: its end there).
    """
    depth = visible_set(scope)
    seen = [v for v in items if v.scope in depth]
    if len(depth) == 1:
        return seen
    slots: dict[tuple[str, str], list[V]] = {}
    for v in seen:
        if one(v.predicate):
            slots.setdefault((subject(v), v.predicate), []).append(v)
    hidden: set[int] = set()
    for versions in slots.values():
        if len({v.scope for v in versions}) < 2:
            continue
        for v in versions:
            d = depth[v.scope]
            for w in versions:
                if (
                    depth[w.scope] > d
                    and _overlap(v.valid_from, v.valid_to, w.valid_from, w.valid_to)
                    and _overlap(v.recorded_at, expired(v), w.recorded_at, expired(w))
                ):
                    hidden.add(id(v))
                    break
    return [v for v in seen if id(v) not in hidden]


def every_scope(pinned: str | None, what: str) -> None:
    """Refuse an operation that changes every scope when the call runs in one.

    Raises:
        ScopeError: a scope is in force.
    """
    scope = in_force(pinned)
    if scope is not None:
        raise ScopeError(
            f"{what} changes every scope of the memory and this call runs in scope {scope!r};"
            " do it from a memory opened without a scope"
        )


def check_own_scope(version: Any, pinned: str | None) -> None:
    """Refuse a write by id on a version of another scope than the write's.

    Raises:
        ScopeError: the version belongs to another scope (an ancestor's, seen but not owned).
    """
    scope = write_scope(pinned)
    if version.scope != scope:
        raise ScopeError(
            f"fact version {version.id!r} belongs to scope {version.scope!r}, this write to "
            f"{scope!r}; a write reaches only its own scope's versions: pass "
            f"scope={version.scope!r} from a memory allowed there"
        )
