"""The user's vocabulary as writes: entity declarations and predicate definitions.

Both go through the unit of work (:mod:`graphmem.kernel`) as one change set each. A predicate
definition that changes something is recorded as an audit record (it shows in ``changes()``);
one already in force writes nothing.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInput
from graphmem.kernel import TIMELESS
from graphmem.models import Entity, Predicate
from graphmem.normalize import clean_name, clean_subject, entity_key
from graphmem.ontology import Ontology

if TYPE_CHECKING:
    from graphmem.kernel import Kernel

__all__ = ["define", "define_entity"]


def define_entity(k: Kernel, name: str, *, kind: str, aliases: Sequence[str]) -> Entity:
    """Declare an entity with its kind and aliases (checked by the caller).

    Raises:
        InvalidInput: an alias that already names another entity.
    """
    with k.uow.write(at=TIMELESS, marker=False) as w:
        eid = k.entity_id(clean_subject(name, what="name"))
        keys = sorted({entity_key(clean_subject(a, what="alias")) for a in aliases} - {eid})
        for key in keys:
            owner = k.aliases.get(key)
            if owner not in (None, eid) or (owner is None and k.store.get_entity(key) is not None):
                raise InvalidInput(
                    f"alias {key!r} already names entity {owner or key!r}; choose another alias"
                )
        current = k.store.get_entity(eid)
        merged = tuple(sorted(set(current.aliases if current else ()) | set(keys)))
        ent = Entity(
            id=eid,
            name=current.name if current else clean_name(name),
            kind=kind,
            aliases=merged,
        )
        w.changes.entities.append(ent)
    for key in keys:
        k.aliases[key] = eid
    return ent


def define(
    k: Kernel, spec: Predicate | dict[str, Any], *, force: bool, persist: bool = True
) -> Predicate:
    """Apply one definition (``define_predicate`` and ontology files); record a change.

    A :class:`Predicate` applies the fields it was built with (``model_fields_set``).
    ``persist=False`` changes the ontology in force only (a read-only memory).

    Raises:
        InvalidInput: a cardinality change of a predicate with stored versions without
            ``force``, or a definition the ontology refuses.
    """
    if isinstance(spec, Predicate):
        spec = {f: getattr(spec, f) for f in spec.model_fields_set}
    fields = dict(spec)
    with k.lock:
        trial = Ontology(k.ontology.predicates())
        change = trial.define(fields.pop("name"), **fields)
        if not change.changed:
            return change.predicate
        if not persist:
            k.ontology = trial
            return change.predicate
        with k.uow.write() as w:
            old, new = change.previous, change.predicate
            if old is not None and old.cardinality != new.cardinality and not force:
                n = k.store.count_predicate_versions(old.name)
                if n:
                    raise InvalidInput(
                        f"predicate {old.name!r} has {n} stored fact version(s) written as "
                        f"{old.cardinality}-valued; cardinality={new.cardinality!r} would apply "
                        "to later writes only (stored versions are not rewritten). Pass "
                        "force=True (CLI: define-predicate --force) to change it anyway, or "
                        "define a new predicate name for the new meaning"
                    )
            w.changes.predicates.extend([*change.updated, new])
            # The id sorts by time: same-time records keep their order.
            audit_id = f"a{time.time_ns():016x}{uuid.uuid4().hex[:8]}"
            detail = json.dumps(change.record(), sort_keys=True)
            w.changes.audit.append((audit_id, "predicate", detail))
        k.ontology = trial
        return new


def define_predicate(
    kernel: Kernel,
    name: str,
    *,
    cardinality: str | None,
    aliases: Sequence[str],
    inverse: str | None,
    symmetric: bool | None,
    description: str | None,
    force: bool,
) -> Predicate:
    """Check a predicate definition's arguments and define it (``Memory.define_predicate``).

    Raises:
        InvalidInput: a bad cardinality, name, alias, flag or description.
    """
    from graphmem.normalize import check_text, predicate_name

    if cardinality is not None and cardinality not in ("one", "many"):
        raise InvalidInput(
            f"cardinality={cardinality!r} is invalid; use 'one' (single-valued) or 'many'"
        )
    for alias in aliases:
        predicate_name(clean_name(alias, what="alias"))  # a clear error for unusable aliases
    if symmetric is not None and not isinstance(symmetric, bool):
        raise InvalidInput(f"symmetric={symmetric!r} must be True or False")
    if not isinstance(force, bool):
        raise InvalidInput(f"force={force!r} must be True or False")
    if description is not None:
        check_text(description, what="description")
    spec = {
        "name": predicate_name(clean_name(name, what="predicate")),
        "cardinality": cardinality,
        "aliases": tuple(aliases),
        "inverse": None if inverse is None else predicate_name(inverse),
        "symmetric": symmetric,
        "description": description,
    }
    return define(kernel, {k: v for k, v in spec.items() if v is not None}, force=force)
