"""The predicate ontology: cardinality and aliases of relations (SPEC §1).

A default ontology ships with the package (``graphmem/data/ontology.json``, mirrored in
``schemas/ontology.json``); users extend it with ``Memory.define_predicate``. Aliases map to one
canonical predicate before any write decision.

>>> onto = Ontology.default()
>>> onto.resolve("employer").name
'works_at'
>>> onto.resolve("Works For").cardinality
'one'
>>> onto.resolve("uses").cardinality
'many'
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from importlib import resources

from graphmem.errors import InvalidInput
from graphmem.models import Cardinality, Predicate
from graphmem.normalize import predicate_name

__all__ = ["DEFAULT_CARDINALITY", "Ontology", "default_predicates"]

#: Cardinality given to a predicate the first time it is used without a definition. "one"
#: matches ``define_predicate``'s default: a new value replaces the old one. Define the
#: predicate with ``cardinality="many"`` first for relations that accumulate.
DEFAULT_CARDINALITY: Cardinality = "one"


def default_predicates() -> list[Predicate]:
    """Return the predicates of the bundled default ontology."""
    raw = resources.files("graphmem").joinpath("data/ontology.json").read_text("utf-8")
    return [Predicate.model_validate(p) for p in json.loads(raw)["predicates"]]


class Ontology:
    """Predicates by canonical name, with an alias index."""

    def __init__(self, predicates: Iterable[Predicate] = ()) -> None:
        self._by_name: dict[str, Predicate] = {}
        self._alias: dict[str, str] = {}
        for p in predicates:
            self.add(p)

    @classmethod
    def default(cls) -> Ontology:
        """Return an ontology holding the bundled default predicates."""
        return cls(default_predicates())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.lookup(name) is not None

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(sorted(self._by_name.values(), key=lambda p: p.name))

    def __len__(self) -> int:
        return len(self._by_name)

    def lookup(self, name: str) -> Predicate | None:
        """Return the predicate a name or alias denotes, or ``None`` when unknown."""
        key = predicate_name(name)
        canonical = self._alias.get(key, key)
        return self._by_name.get(canonical)

    def resolve(self, name: str) -> Predicate:
        """Return the predicate a name denotes; unknown names get a fresh definition.

        The fresh definition has ``DEFAULT_CARDINALITY`` and is not added; the caller persists it.

        Raises:
            InvalidInput: when the name has no usable characters.
        """
        found = self.lookup(name)
        if found is not None:
            return found
        return Predicate(name=predicate_name(name), cardinality=DEFAULT_CARDINALITY)

    def add(self, predicate: Predicate) -> Predicate:
        """Add or redefine a predicate; its aliases must not name another predicate.

        Raises:
            InvalidInput: when an alias already belongs to another predicate.
        """
        aliases = tuple(sorted({predicate_name(a) for a in predicate.aliases} - {predicate.name}))
        for alias in aliases:
            owner = self._alias.get(alias, alias if alias in self._by_name else None)
            if owner is not None and owner != predicate.name:
                raise InvalidInput(
                    f"alias {alias!r} of predicate {predicate.name!r} already names predicate "
                    f"{owner!r}; pick another alias or redefine {owner!r}"
                )
        if predicate.name in self._alias and self._alias[predicate.name] != predicate.name:
            raise InvalidInput(
                f"predicate name {predicate.name!r} is already an alias of "
                f"{self._alias[predicate.name]!r}; use that predicate or another name"
            )
        old = self._by_name.get(predicate.name)
        if old is not None:
            for alias in old.aliases:
                self._alias.pop(predicate_name(alias), None)
        predicate = predicate.model_copy(update={"aliases": aliases})
        self._by_name[predicate.name] = predicate
        for alias in aliases:
            self._alias[alias] = predicate.name
        return predicate

    def predicates(self) -> list[Predicate]:
        """Return every predicate, sorted by name."""
        return sorted(self._by_name.values(), key=lambda p: p.name)
