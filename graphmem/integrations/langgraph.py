"""A LangGraph store over a graphmem memory: ``GraphmemStore(mem)``.

See docs/integrations/langgraph.md.

>>> import graphmem as gm
>>> from graphmem.integrations.langgraph import GraphmemStore
>>> with gm.open() as mem:
...     store = GraphmemStore(mem)
...     store.put(("users", "alice"), "prefs", {"theme": "dark"})
...     store.put(("users", "alice"), "prefs", {"theme": "light"})
...     print(store.get(("users", "alice"), "prefs").value)
...     print([v.value for v in store.versions(("users", "alice"), "prefs")])
{'theme': 'light'}
[{'theme': 'dark'}, {'theme': 'light'}]

A namespace is a subject (a scope) and a key an identity key (``source_ref``): a put under an
existing key supersedes the old value, which stays in history; a delete ends the value
(``retract``), it never erases it. Importing this module needs ``langgraph``
(``pip install 'graphmem[langgraph]'``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphmem.errors import ExtraUnavailable, InvalidInput
from graphmem.integrations.keyed import KeyedItems, Stored

try:
    from langgraph.store.base import (
        BaseStore,
        GetOp,
        InvalidNamespaceError,
        Item,
        ListNamespacesOp,
        MatchCondition,
        Op,
        PutOp,
        Result,
        SearchItem,
        SearchOp,
    )
except ImportError as exc:  # pragma: no cover - CI installs the extra
    raise ExtraUnavailable(
        f"graphmem.integrations.langgraph needs LangGraph ({exc}); install it with: "
        "pip install 'graphmem[langgraph]'"
    ) from exc

if TYPE_CHECKING:
    from graphmem.memory import Memory
    from graphmem.timeutil import TimeLike

__all__ = ["PREDICATE", "GraphmemStore", "InvalidNamespace"]

#: The multi-valued predicate the store's items are facts of.
PREDICATE = "store_item"


class InvalidNamespace(InvalidInput, InvalidNamespaceError):
    """A namespace LangGraph does not accept; both a graphmem and a LangGraph error."""


def _check_namespace(namespace: object, *, write: bool) -> tuple[str, ...]:
    """Check a namespace as LangGraph's stores do (docs/integrations/langgraph.md#namespaces)."""
    if not isinstance(namespace, tuple):
        raise InvalidNamespace(
            f"namespace={namespace!r} is not a tuple of labels; pass e.g. ('users', 'alice')"
        )
    if write and not namespace:
        raise InvalidNamespace("namespace=() is empty; an item needs at least one label")
    if write and namespace[0] == "langgraph":
        raise InvalidNamespace(
            f"namespace={namespace!r} starts with 'langgraph', a root LangGraph keeps for "
            "itself; use another first label"
        )
    for label in namespace:
        if not isinstance(label, str) or not label or "." in label or "\x00" in label:
            raise InvalidNamespace(
                f"namespace={namespace!r} has the label {label!r}; labels are non-empty text "
                "without '.' or NUL"
            )
    return namespace


def _matches(value: Any, wanted: Any) -> bool:
    """LangGraph's filter rule: equality, nested dicts, and ``$eq $ne $gt $gte $lt $lte``."""
    if isinstance(wanted, dict):
        if any(k.startswith("$") for k in wanted):
            return all(_operator(value, op, arg) for op, arg in wanted.items())
        return isinstance(value, dict) and all(_matches(value.get(k), v) for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (
            isinstance(value, (list, tuple))
            and len(value) == len(wanted)
            and all(_matches(a, b) for a, b in zip(value, wanted, strict=True))
        )
    return bool(value == wanted)


_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


def _check_filter(wanted: Any) -> None:
    """Refuse an operator LangGraph does not know, before any item is compared."""
    if isinstance(wanted, dict):
        for k, v in wanted.items():
            if isinstance(k, str) and k.startswith("$") and k not in _OPERATORS:
                raise InvalidInput(
                    f"filter operator {k!r} is unknown; use $eq, $ne, $gt, $gte, $lt or $lte"
                )
            _check_filter(v)


def _operator(value: Any, op: str, arg: Any) -> bool:
    if op == "$eq":
        return bool(value == arg)
    if op == "$ne":
        return bool(value != arg)
    if op not in ("$gt", "$gte", "$lt", "$lte"):
        raise InvalidInput(
            f"filter operator {op!r} is unknown; use $eq, $ne, $gt, $gte, $lt or $lte"
        )
    try:
        a, b = float(value), float(arg)
    except (TypeError, ValueError):
        return False
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def _path_matches(cond: MatchCondition, namespace: tuple[str, ...]) -> bool:
    path = tuple(cond.path)
    if len(namespace) < len(path):
        return False
    pairs = (
        zip(namespace, path, strict=False)
        if cond.match_type == "prefix"
        else zip(reversed(namespace), reversed(path), strict=False)
    )
    return all(p == "*" or n == p for n, p in pairs)


def _item(s: Stored) -> Item:
    return Item(
        value=s.value,
        key=s.key,
        namespace=s.namespace,
        created_at=s.created_at,
        updated_at=s.updated_at,
    )


class GraphmemStore(BaseStore):
    """A LangGraph ``BaseStore`` whose items are bi-temporal facts of a graphmem memory.

    Every LangGraph store call works (``put``, ``get``, ``search``, ``delete``,
    ``list_namespaces`` and their ``a``-prefixed async forms): they all go through
    :meth:`batch`. Within a batch, reads see the memory as it was before the batch's writes,
    and the writes (the last one per key) are one ``add_facts`` call plus one ``retract``
    per deleted key, as LangGraph's ``InMemoryStore`` orders them.

    Args:
        memory: an open memory (``graphmem.open(...)``).

    Raises:
        InvalidInput: ``memory`` is not a graphmem memory.
    """

    __slots__ = ("items", "memory")

    def __init__(self, memory: Memory) -> None:
        self.items = KeyedItems(memory, predicate=PREDICATE, what="the LangGraph store")
        self.memory = memory

    # -- LangGraph's entry points -----------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run LangGraph operations: reads first (in order), then the writes as one batch.

        Raises:
            InvalidNamespace: a namespace LangGraph does not accept.
            InvalidInput: a bad key, value, filter, ``ttl`` or operation.
        """
        if isinstance(ops, (str, bytes, Mapping)) or not isinstance(ops, Iterable):
            raise InvalidInput(f"ops={ops!r} is not a list of LangGraph operations")
        results: list[Result] = []
        puts: dict[tuple[tuple[str, ...], str], PutOp] = {}
        snapshot: dict[tuple[str, ...] | None, list[Stored]] = {}
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op, snapshot))
            elif isinstance(op, SearchOp):
                results.append(self._search(op, snapshot))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list(op, snapshot))
            elif isinstance(op, PutOp):
                self._check_put(op)
                puts[(op.namespace, op.key)] = op
                results.append(None)
            else:
                raise InvalidInput(
                    f"op={op!r} is not a LangGraph operation (GetOp, SearchOp, "
                    "ListNamespacesOp or PutOp)"
                )
        self._write(list(puts.values()))
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        """The async form of :meth:`batch` (graphmem's calls are local and short: it runs here).

        Raises:
            InvalidNamespace: a namespace LangGraph does not accept.
            InvalidInput: a bad key, value, filter, ``ttl`` or operation.
        """
        return self.batch(ops)

    # -- beyond LangGraph: the time axes ----------------------------------------------------

    def get_as_of(self, namespace: tuple[str, ...], key: str, *, known_at: TimeLike) -> Item | None:
        """Return the item as the memory believed it at ``known_at`` (an earlier value).

        Raises:
            InvalidNamespace: a namespace LangGraph does not accept.
            InvalidInput: a bad time.
        """
        _check_namespace(namespace, write=False)
        found = self.items.get(namespace, key, known_at=known_at)
        return None if found is None else _item(found)

    def versions(self, namespace: tuple[str, ...], key: str) -> list[Item]:
        """Return every value the key has had, current and superseded, oldest learned first.

        Each item's ``updated_at`` is when that value was learned.

        Raises:
            InvalidNamespace: a namespace LangGraph does not accept.
            InvalidInput: a bad key.
        """
        _check_namespace(namespace, write=False)
        return [_item(s) for s in self.items.versions(namespace, key)]

    # -- the operations ---------------------------------------------------------------------

    def _scope(
        self,
        snapshot: dict[tuple[str, ...] | None, list[Stored]],
        namespace: tuple[str, ...] | None,
    ) -> list[Stored]:
        if namespace not in snapshot:
            snapshot[namespace] = self.items.items(namespace)
        return snapshot[namespace]

    def _get(self, op: GetOp, snapshot: dict[tuple[str, ...] | None, list[Stored]]) -> Item | None:
        namespace = _check_namespace(op.namespace, write=False)
        for s in self._scope(snapshot, namespace if namespace else None):
            if s.key == op.key and s.namespace == namespace:
                return _item(s)
        return None

    def _search(
        self, op: SearchOp, snapshot: dict[tuple[str, ...] | None, list[Stored]]
    ) -> list[SearchItem]:
        prefix = _check_namespace(op.namespace_prefix, write=False)
        limit, offset = op.limit, op.offset
        for name, n in (("limit", limit), ("offset", offset)):
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise InvalidInput(f"{name}={n!r} must be a non-negative integer")
        if op.filter is not None and not isinstance(op.filter, dict):
            raise InvalidInput(f"filter={op.filter!r} must be a dict such as {{'kind': 'note'}}")
        _check_filter(op.filter)
        wanted = [
            s
            for s in self._scope(snapshot, None)
            if s.namespace[: len(prefix)] == prefix
            and all(_matches(s.value.get(k), v) for k, v in (op.filter or {}).items())
        ]
        scored: list[tuple[Stored, float | None]]
        if op.query and op.query.strip():
            by_id = {s.fact.id: s for s in wanted}
            ranked = self.items.ranked(op.query, by_id, offset + limit)
            scored = [(s, score) for s, score in ranked]
        else:
            wanted.sort(key=lambda s: (-s.updated_at.timestamp(), s.namespace, s.key))
            scored = [(s, None) for s in wanted]
        return [
            SearchItem(
                namespace=s.namespace,
                key=s.key,
                value=s.value,
                created_at=s.created_at,
                updated_at=s.updated_at,
                score=score,
            )
            for s, score in scored[offset : offset + limit]
        ]

    def _list(
        self, op: ListNamespacesOp, snapshot: dict[tuple[str, ...] | None, list[Stored]]
    ) -> list[tuple[str, ...]]:
        conditions = tuple(op.match_conditions or ())
        for cond in conditions:
            _check_namespace(tuple(cond.path), write=False)
            if cond.match_type not in ("prefix", "suffix"):
                raise InvalidInput(
                    f"match_type={cond.match_type!r} is unknown; use 'prefix' or 'suffix'"
                )
        found = {s.namespace for s in self._scope(snapshot, None)}
        found = {ns for ns in found if all(_path_matches(c, ns) for c in conditions)}
        if op.max_depth is not None:
            found = {ns[: op.max_depth] for ns in found}
        return sorted(found)[op.offset : op.offset + op.limit]

    def _check_put(self, op: PutOp) -> None:
        _check_namespace(op.namespace, write=True)
        if op.ttl is not None:
            raise InvalidInput(
                f"ttl={op.ttl!r}: graphmem never expires an item (it keeps history); pass "
                "ttl=None and delete items that must end"
            )
        if op.value is None:
            KeyedItems.check_key(op.key, where=f"delete in {op.namespace!r}")
        else:
            # checked here so that a bad value fails the batch before anything is written
            self.items.row(op.namespace, op.key, op.value, None)

    def _write(self, puts: Sequence[PutOp]) -> None:
        values = [(op.namespace, op.key, op.value) for op in puts if op.value is not None]
        self.items.put_many(values)
        for op in puts:
            if op.value is None:
                self.items.delete(op.namespace, op.key)
