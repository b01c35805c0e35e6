"""The predicate ontology: cardinality and aliases of relations (docs/concepts/model.md#rule-5).

A default ontology of general agent-memory relations ships with the package
(``graphmem/data/ontology.json``, mirrored in ``schemas/ontology.json``); ``gm.open(...,
ontology=)`` picks it, none, or a file of the same format, and users extend it with
``Memory.define_predicate``. Aliases map to one canonical predicate before any write decision.
The user's vocabulary wins: :meth:`Ontology.define` makes any valid name a predicate of its own,
moving it (and the aliases given) away from the predicate that had them.

>>> onto = Ontology.default()
>>> onto.resolve("works for").name
'works_at'
>>> onto.resolve("Works For").cardinality
'one'
>>> onto.resolve("uses").cardinality
'many'
>>> change = onto.define("works for", cardinality="one")
>>> change.predicate.name, change.moved
('works_for', {'works_for': 'works_at'})
>>> onto.resolve("works for").name
'works_for'
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal, NamedTuple, Union

from pydantic import ValidationError

from graphmem.errors import InvalidInput
from graphmem.models import Cardinality, Predicate
from graphmem.normalize import predicate_name

__all__ = [
    "DEFAULT_CARDINALITY",
    "Ontology",
    "OntologyChoice",
    "Redefinition",
    "choose_ontology",
    "default_predicates",
    "read_predicates",
]

#: Cardinality given to a predicate the first time it is used without a definition. "one"
#: matches ``define_predicate``'s default: a new value replaces the old one. Define the
#: predicate with ``cardinality="many"`` first for relations that accumulate.
DEFAULT_CARDINALITY: Cardinality = "one"

_FORMAT = 'a JSON object {"version": 1, "predicates": [...]} like graphmem/data/ontology.json'
OntologySource = Union[str, "os.PathLike[str]", None]


def default_predicates() -> list[Predicate]:
    """Return the predicates of the bundled default ontology."""
    raw = (Path(__file__).parent / "data" / "ontology.json").read_text("utf-8")
    # The shipped file is valid (tests/test_ontology.py validates it): built without a
    # validator, a read-only command never builds one (docs/concepts/surfaces.md#startup).
    return [
        Predicate.model_construct(**{**p, "aliases": tuple(p.get("aliases", ()))})
        for p in json.loads(raw)["predicates"]
    ]


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(x) for x in err.get("loc", ())) or "value"
    return f"{where}: {err.get('msg', 'invalid')}"


def read_predicates(path: str | os.PathLike[str]) -> list[Predicate]:
    """Read an ontology file (the format of ``graphmem/data/ontology.json``).

    Names and aliases are normalised like ``define_predicate``'s (``"Works At"`` → ``works_at``);
    ``cardinality``, ``inverse``, ``symmetric`` and ``description`` are optional.

    Raises:
        InvalidInput: the file is missing or unreadable, is not that JSON shape, holds an
            invalid entry, names a predicate twice, or gives one alias to two predicates. The
            message names the file and the entry.
    """
    shown = os.fspath(path)
    try:
        raw = Path(shown).read_text("utf-8")
    except FileNotFoundError:
        raise InvalidInput(
            f"ontology={shown!r}: no such file; pass 'default' (the shipped ontology), None "
            f"(none) or the path of {_FORMAT}"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(
            f"ontology file {shown!r} cannot be read ({exc}); pass {_FORMAT}"
        ) from None
    try:
        doc = json.loads(raw)
    except ValueError as exc:
        raise InvalidInput(
            f"ontology file {shown!r} is not valid JSON ({exc}); write {_FORMAT}"
        ) from None
    items = doc.get("predicates") if isinstance(doc, dict) else None
    if not isinstance(doc, dict) or doc.get("version") != 1 or not isinstance(items, list):
        raise InvalidInput(f"ontology file {shown!r} is not {_FORMAT}")
    out: list[Predicate] = []
    for i, item in enumerate(items):
        where = f"ontology file {shown!r}, predicates[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            raise InvalidInput(f"{where} must be an object with a string 'name'")
        aliases = item.get("aliases", [])
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise InvalidInput(f"{where} ({item['name']!r}): 'aliases' must be a list of strings")
        try:
            name = predicate_name(item["name"])
            fields: dict[str, Any] = {**item, "name": name}
            fields["aliases"] = sorted({predicate_name(a) for a in aliases} - {name})
            if isinstance(item.get("inverse"), str):
                fields["inverse"] = predicate_name(item["inverse"])
            out.append(Predicate.model_validate(fields))
        except InvalidInput as exc:
            raise InvalidInput(f"{where}: {exc}") from None
        except ValidationError as exc:
            raise InvalidInput(f"{where} ({item['name']!r}): {_first_error(exc)}") from None
    seen: set[str] = set()
    for p in out:
        if p.name in seen:
            raise InvalidInput(f"ontology file {shown!r} defines {p.name!r} twice; keep one entry")
        seen.add(p.name)
    try:
        Ontology(out)
    except InvalidInput as exc:
        raise InvalidInput(f"ontology file {shown!r}: {exc}") from None
    return out


class OntologyChoice(NamedTuple):
    """The validated ``ontology=`` argument of ``gm.open``.

    Attributes:
        kind: ``"default"`` (the shipped ontology), ``"none"`` or ``"file"``.
        predicates: the predicates it holds (none for ``"none"``).
        path: the file, for ``"file"``.
    """

    kind: Literal["default", "none", "file"]
    predicates: tuple[Predicate, ...]
    path: str | None = None


def choose_ontology(value: OntologySource) -> OntologyChoice:
    """Validate ``gm.open(ontology=...)``: ``"default"``, ``None`` or the path of a JSON file.

    >>> choose_ontology(None)
    OntologyChoice(kind='none', predicates=(), path=None)
    >>> choose_ontology("default").kind
    'default'

    Raises:
        InvalidInput: any other value, or a file :func:`read_predicates` refuses.
    """
    if value is None:
        return OntologyChoice("none", ())
    if isinstance(value, str) and value == "default":
        return OntologyChoice("default", tuple(default_predicates()))
    if isinstance(value, (str, os.PathLike)) and not isinstance(value, bytes):
        path = os.path.expanduser(os.fspath(value))
        if not path.strip():
            raise InvalidInput(
                "ontology='' is empty; pass 'default', None or the path of an ontology JSON file"
            )
        return OntologyChoice("file", tuple(read_predicates(path)), path)
    raise InvalidInput(
        f"ontology={value!r} is not 'default', None or a path; pass one of those (a path names "
        f"{_FORMAT})"
    )


class Redefinition(NamedTuple):
    """What :meth:`Ontology.define` changed.

    Attributes:
        predicate: the definition now in force.
        previous: the definition it replaced; ``None`` when the predicate is new.
        moved: ``{alias: predicate it left}`` for every name or alias taken from another
            predicate (normalised spellings).
        updated: those other predicates as they are now (without the moved aliases).
    """

    predicate: Predicate
    previous: Predicate | None
    moved: dict[str, str]
    updated: tuple[Predicate, ...]

    @property
    def changed(self) -> bool:
        """Whether anything changed (a new predicate, another definition, or a moved alias)."""
        return self.previous != self.predicate or bool(self.moved)

    def describe(self) -> str:
        """Return what changed as one human-readable line (``changes()`` shows it).

        >>> onto = Ontology.default()
        >>> onto.define("employer", cardinality="one").describe()
        'employer [one]'
        >>> onto.define("works for", aliases=["works with"]).describe()
        "works_for [one]; aliases works_with; took 'works_for' from works_at"
        >>> onto.define("uses", cardinality="one").describe()
        'uses [one] (was many)'
        """
        p, old = self.predicate, self.previous
        parts = [f"{p.name} [{p.cardinality}]"]
        if old is not None and old.cardinality != p.cardinality:
            parts[0] += f" (was {old.cardinality})"
        added = [a for a in p.aliases if old is None or a not in old.aliases]
        if added:
            parts.append("aliases " + ", ".join(added))
        if old is not None:
            for field in ("symmetric", "inverse", "description"):
                if getattr(old, field) != getattr(p, field):
                    parts.append(f"{field} {getattr(old, field)!r} -> {getattr(p, field)!r}")
        parts.extend(f"took {a!r} from {owner}" for a, owner in sorted(self.moved.items()))
        return "; ".join(parts)

    def record(self) -> dict[str, Any]:
        """Return the change as the JSON object of its audit record."""
        return {
            "predicate": self.predicate.model_dump(mode="json"),
            "previous": None if self.previous is None else self.previous.model_dump(mode="json"),
            "moved": dict(sorted(self.moved.items())),
        }


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

    def __iter__(self) -> Iterator[Predicate]:
        return iter(self.predicates())

    def __len__(self) -> int:
        return len(self._by_name)

    def lookup(self, name: str) -> Predicate | None:
        """Return the predicate a name or alias denotes, or ``None`` when unknown."""
        key = predicate_name(name)
        canonical = self._alias.get(key, key)
        return self._by_name.get(canonical)

    def single_valued(self, name: str) -> bool:
        """Whether a stored predicate name holds one value at a time (an unknown one: no)."""
        p = self._by_name.get(name)
        return p is not None and p.cardinality == "one"

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
        """Add or replace a predicate whose aliases name no other predicate (strict).

        Used to load stored and shipped definitions, which must agree with each other; a user's
        definition goes through :meth:`define`, which moves names instead of refusing them.

        Raises:
            InvalidInput: when an alias already belongs to another predicate, or the name is
                another predicate's alias.
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
        return self._put(predicate.model_copy(update={"aliases": aliases}))

    def _put(self, predicate: Predicate) -> Predicate:
        old = self._by_name.get(predicate.name)
        if old is not None:
            for alias in old.aliases:
                if self._alias.get(alias) == predicate.name:
                    del self._alias[alias]
        self._by_name[predicate.name] = predicate
        for alias in predicate.aliases:
            self._alias[alias] = predicate.name
        return predicate

    def define(
        self,
        name: str,
        *,
        cardinality: Cardinality | None = None,
        aliases: Sequence[str] = (),
        inverse: str | None = None,
        symmetric: bool | None = None,
        description: str | None = None,
    ) -> Redefinition:
        """Define or redefine a predicate; the user's vocabulary wins.

        See docs/concepts/model.md#the-data-model-rules.

        ``name`` becomes a predicate of its own even when it is another predicate's alias, and
        each alias given moves to it from whichever predicate had it. Aliases add to the ones
        the predicate already has. A field left ``None`` keeps its current value (or the
        default, for a new predicate: cardinality ``"one"``, not symmetric, no inverse, no
        description). Nothing changes when the definition is already in force
        (``Redefinition.changed`` is then false).

        Raises:
            InvalidInput: an unusable name or alias, or an alias that is another predicate's own
                name (a predicate's name never moves: use that predicate, or another alias).
        """
        key = predicate_name(name)
        keys = {predicate_name(a) for a in aliases} - {key}
        for alias in sorted(keys):
            if alias in self._by_name:
                raise InvalidInput(
                    f"alias {alias!r} of predicate {key!r} is the name of predicate {alias!r}; "
                    f"a predicate's own name cannot become an alias: pick another alias, or "
                    f"write the facts with {alias!r}"
                )
        moved = {
            a: self._alias[a]
            for a in sorted(keys | {key})
            if a in self._alias and self._alias[a] != key
        }
        updated: dict[str, Predicate] = {}
        for alias, owner in moved.items():
            was = updated.get(owner) or self._by_name[owner]
            kept = tuple(a for a in was.aliases if a != alias)
            updated[owner] = was.model_copy(update={"aliases": kept})
        previous = self._by_name.get(key)
        base = previous or Predicate(name=key, cardinality=DEFAULT_CARDINALITY)
        predicate = Predicate(
            name=key,
            cardinality=base.cardinality if cardinality is None else cardinality,
            aliases=tuple(sorted(set(base.aliases) | keys)),
            inverse=base.inverse if inverse is None else predicate_name(inverse),
            symmetric=base.symmetric if symmetric is None else symmetric,
            description=base.description if description is None else description,
        )
        change = Redefinition(predicate, previous, moved, tuple(updated.values()))
        if change.changed:
            for other in updated.values():
                self._put(other)
            self._put(predicate)
        return change

    def predicates(self) -> list[Predicate]:
        """Return every predicate, sorted by name."""
        return sorted(self._by_name.values(), key=lambda p: p.name)
