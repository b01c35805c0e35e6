r"""Keyed JSON items over a memory: what the framework adapters share (no framework imported).

See docs/integrations/langgraph.md#how-items-are-stored.

An item is a JSON object under a ``(namespace, key)``. It is stored as one fact, written
through the public :class:`~graphmem.Memory` API:

- **subject**: the namespace, labels joined by ``/`` (``("users", "alice")`` is
  ``users/alice``); characters that name normalisation would fold (capitals, spaces, ``/``,
  non-ASCII) are written ``%xx`` (UTF-8 bytes), so two namespaces never share a subject;
- **predicate**: the adapter's own multi-valued predicate (``store_item`` for LangGraph), so
  the items of a namespace never supersede each other by cardinality;
- **object**: ``<key>: <value as JSON>``, the text graphmem's search looks in (the key written
  like a label, so two keys never share an object);
- **source_ref**: the key (an identity key: a new value of the key supersedes exactly the old
  one, docs/concepts/decisions.md#rule-1);
- **statement**: ``{"namespace": [...], "key": ..., "value": {...}}``, the exact JSON, read back
  losslessly (a statement the negation detector would take for "no longer ..." is written
  with every string character ``\uXXXX``-escaped: the same JSON, no words);
- **valid_from**: when the key got its first value (``created_at``); **recorded_at**: when
  this value was learned (``updated_at``).

A put of an existing key keeps ``valid_from`` and supersedes in system time (the old value
stays visible to ``known_at`` queries and in ``history(..., include_expired=True)``); the same
value again is a ``noop``. A delete is :meth:`graphmem.Memory.retract`: the value ends (never
erased).
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInput, NotFound

if TYPE_CHECKING:
    from graphmem.memory import Memory
    from graphmem.models import Fact, WriteResult

__all__ = ["KeyedItems", "Stored", "check_value", "decode_label", "encode_label"]

# Characters a label keeps as they are: normalisation (docs/concepts/model.md#rule-2) leaves
# them alone, and they hold no separator.
_KEEP = re.compile(r"[a-z0-9_\-]")
_ESCAPE = re.compile(r"%([0-9a-f]{2})")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+")


def encode_label(label: str) -> str:
    """Write a namespace label or key so that name normalisation cannot change it.

    >>> encode_label("users"), encode_label("Alice B"), encode_label("a/b")
    ('users', '%41lice%20%42', 'a%2fb')
    """
    return "".join(
        c if _KEEP.fullmatch(c) else "".join(f"%{b:02x}" for b in c.encode("utf-8")) for c in label
    )


def decode_label(text: str) -> str:
    """Invert :func:`encode_label`.

    >>> decode_label("%41lice%20%42")
    'Alice B'
    """
    raw = bytearray()
    i = 0
    while i < len(text):
        m = _ESCAPE.match(text, i)
        if m:
            raw.append(int(m.group(1), 16))
            i = m.end()
        else:
            raw.extend(text[i].encode("utf-8"))
            i += 1
    return raw.decode("utf-8")


def check_value(value: object, *, where: str) -> dict[str, Any]:
    """Return ``value`` as a dict when it is a JSON object that reads back equal.

    Raises:
        InvalidInput: not a mapping, or not JSON (a tuple, a non-text key, NaN, an object).
    """
    if not isinstance(value, Mapping):
        raise InvalidInput(
            f"{where}: value={value!r} ({type(value).__name__}) is not a dict; pass a JSON "
            "object such as {'text': '...'}"
        )
    value = dict(value)
    try:
        back = json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as exc:
        raise InvalidInput(
            f"{where}: value={value!r} is not JSON ({exc}); use dicts with text keys, lists, "
            "text, numbers, booleans and None"
        ) from None
    if back != value:
        raise InvalidInput(
            f"{where}: value={value!r} would read back as {back!r}; use lists instead of "
            "tuples and text dict keys"
        )
    return value


def _opaque(obj: Any) -> str:
    r"""JSON text with every string character ``\uXXXX``-escaped: the same value, no words."""
    if isinstance(obj, str):
        units = obj.encode("utf-16-be", "surrogatepass")
        return (
            '"'
            + "".join(f"\\u{units[i]:02x}{units[i + 1]:02x}" for i in range(0, len(units), 2))
            + '"'
        )
    if isinstance(obj, dict):
        return "{" + ",".join(f"{_opaque(k)}:{_opaque(v)}" for k, v in obj.items()) + "}"
    if isinstance(obj, list):
        return "[" + ",".join(_opaque(v) for v in obj) + "]"
    return json.dumps(obj)


def _statement(envelope: dict[str, Any]) -> str:
    """The statement of an item: its JSON, unless the negation detector would read it as one."""
    from graphmem.contradiction import negates

    text = json.dumps(envelope, ensure_ascii=False)
    if negates(text) or any(negates(part) for part in _SENTENCE.split(text)):
        return _opaque(envelope)
    return text


@dataclass(frozen=True)
class Stored:
    """One item as stored: its namespace, key, value, times and the fact version holding it."""

    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    created_at: dt.datetime
    updated_at: dt.datetime
    fact: Fact


def _decode(fact: Fact) -> Stored | None:
    """The item a fact version holds, or ``None`` for a fact that is not an item."""
    try:
        env = json.loads(fact.statement or "")
        namespace, key, value = env["namespace"], env["key"], env["value"]
    except (ValueError, TypeError, KeyError):
        return None
    if not isinstance(value, dict) or not isinstance(key, str) or not isinstance(namespace, list):
        return None
    return Stored(tuple(namespace), key, value, fact.valid_from, fact.recorded_at, fact)


class KeyedItems:
    """JSON items keyed by ``(namespace, key)``, one fact each, under one predicate.

    Args:
        memory: an open memory; every write goes through its public API.
        predicate: the multi-valued predicate the items are facts of; defined (cardinality
            ``many``) on first use when the memory does not have it.
        what: how the adapter is named in messages and reasons (``"the LangGraph store"``).
    """

    def __init__(self, memory: Memory, *, predicate: str, what: str) -> None:
        from graphmem.memory import Memory

        if not isinstance(memory, Memory):
            raise InvalidInput(
                f"memory={memory!r} is not a graphmem memory; pass the result of graphmem.open()"
            )
        self.memory = memory
        self.predicate = predicate
        self.what = what
        self._defined = False

    def _define(self) -> None:
        """Make sure the predicate is multi-valued (a recorded definition, once)."""
        if self._defined:
            return
        p = self.memory.ontology.lookup(self.predicate)
        if p is None or p.name != self.predicate or p.cardinality != "many":
            self.memory.define_predicate(
                self.predicate,
                cardinality="many",
                description=f"an item kept by {self.what}: namespace {self.predicate} key: value",
            )
        self._defined = True

    # -- names ------------------------------------------------------------------------------

    @staticmethod
    def subject(namespace: Sequence[str]) -> str:
        """The subject that holds a namespace's items."""
        return "/".join(encode_label(label) for label in namespace)

    def _object(self, key: str, value: dict[str, Any]) -> str:
        return f"{encode_label(key)}: {json.dumps(value, ensure_ascii=False)}"

    # -- reads ------------------------------------------------------------------------------

    def items(
        self,
        namespace: Sequence[str] | None = None,
        *,
        known_at: Any = None,
        valid_at: Any = None,
    ) -> list[Stored]:
        """The items of one namespace (or of all), as believed at ``known_at`` (default now)."""
        if namespace is not None and not namespace:
            namespace = None
        subject = None if namespace is None else self.subject(namespace)
        try:
            facts = self.memory.facts(
                subject=subject, predicate=self.predicate, known_at=known_at, valid_at=valid_at
            )
        except NotFound:
            return []
        out = []
        for f in facts:
            item = _decode(f)
            if item is not None and (namespace is None or item.namespace == tuple(namespace)):
                out.append(item)
        return out

    def get(self, namespace: Sequence[str], key: str, *, known_at: Any = None) -> Stored | None:
        """The item under ``(namespace, key)``, as believed at ``known_at`` (default now)."""
        for item in self.items(namespace, known_at=known_at):
            if item.key == key:
                return item
        return None

    def versions(self, namespace: Sequence[str], key: str) -> list[Stored]:
        """Every stored version of an item, current and closed, oldest learned first."""
        self.check_key(key, where="versions")
        try:
            facts = self.memory.history(
                self.subject(namespace), self.predicate, include_expired=True
            )
        except NotFound:
            return []
        found = [s for s in map(_decode, facts) if s is not None and s.key == key]
        found = [s for s in found if s.namespace == tuple(namespace)]
        found.sort(key=lambda s: (s.fact.recorded_at, s.fact.id))
        return found

    def ranked(
        self, query: str, wanted: Mapping[str, Stored], need: int
    ) -> Iterator[tuple[Stored, float]]:
        """Yield the items of ``wanted`` (by fact id) that graphmem's search finds, best first."""
        n = max(4 * need, 20)
        while True:
            hits = self.memory.search(query, limit=n, kinds=("fact",))
            found = [(wanted[h.id], h.score) for h in hits if h.id in wanted]
            if len(found) >= need or len(hits) < n:
                yield from found
                return
            n *= 4

    # -- writes -----------------------------------------------------------------------------

    @staticmethod
    def check_key(key: object, *, where: str) -> str:
        """Return ``key`` when it is non-empty text (an empty source_ref means "none").

        Raises:
            InvalidInput: not text, or empty.
        """
        if not isinstance(key, str) or not key:
            raise InvalidInput(
                f"{where}: key={key!r} must be non-empty text (it is the item's identity key, "
                "source_ref)"
            )
        return key

    def row(
        self,
        namespace: Sequence[str],
        key: str,
        value: Mapping[str, Any],
        current: Stored | None,
    ) -> dict[str, Any]:
        """The ``add_facts`` row that stores a value (checked; nothing is written).

        Raises:
            InvalidInput: a bad key or value, or a value longer than the admission bound.
        """
        where = f"{self.what}, namespace {tuple(namespace)!r} key {key!r}"
        self.check_key(key, where=where)
        value = check_value(value, where=where)
        statement = _statement({"namespace": list(namespace), "key": key, "value": value})
        bound = self.memory.admission.max_statement_chars
        if len(statement) > bound:
            raise InvalidInput(
                f"{where}: the value is {len(statement):,} characters as JSON; at most {bound:,} "
                "are admitted: keep large documents elsewhere with a reference, or open the "
                "memory with admission=AdmissionPolicy(max_statement_chars=...)"
            )
        return {
            "subject": self.subject(namespace),
            "predicate": self.predicate,
            "object": self._object(key, value),
            "source_ref": key,
            "statement": statement,
            # the key keeps its first valid_from: created_at (docs/concepts/decisions.md#rule-1)
            "valid_from": None if current is None else current.created_at,
        }

    def put_many(
        self, items: Iterable[tuple[Sequence[str], str, Mapping[str, Any]]]
    ) -> list[WriteResult]:
        """Store values in one write (one ``add_facts`` call); each key once, the last wins."""
        last: dict[tuple[tuple[str, ...], str], Mapping[str, Any]] = {}
        for namespace, key, value in items:
            last[(tuple(namespace), key)] = value
        if not last:
            return []
        current: dict[tuple[str, ...], dict[str, Stored]] = {}
        for namespace, _ in last:
            if namespace not in current:
                current[namespace] = {s.key: s for s in self.items(namespace)}
        rows = [self.row(ns, key, value, current[ns].get(key)) for (ns, key), value in last.items()]
        self._define()
        return self.memory.add_facts(rows)

    def delete(self, namespace: Sequence[str], key: str) -> WriteResult | None:
        """End the item's value (``retract``: it stays in history); ``None`` when absent."""
        self.check_key(key, where=f"{self.what}, namespace {tuple(namespace)!r}")
        item = self.get(namespace, key)
        if item is None:
            return None
        return self.memory.retract(
            item.fact.subject,
            self.predicate,
            item.fact.object,
            reason=f"deleted through {self.what}",
        )

    def delete_all(self, namespace: Sequence[str]) -> WriteResult | None:
        """End every item of a namespace in one ``retract``; ``None`` when it has none."""
        if not self.items(namespace):
            return None
        return self.memory.retract(
            self.subject(namespace), self.predicate, reason=f"cleared through {self.what}"
        )

    def keys_ever(self, namespace: Sequence[str]) -> set[str]:
        """Every key the namespace has held, current or ended."""
        try:
            facts = self.memory.history(
                self.subject(namespace), self.predicate, include_expired=True
            )
        except NotFound:
            return set()
        return {s.key for s in map(_decode, facts) if s is not None}
