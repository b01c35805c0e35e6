"""Fact input rows: the checks every written fact passes before anything is planned.

``add_fact``, ``add_facts``, the JSONL import's rows and the text pipeline's claims all become
rows checked here (names, kind, importance, confidence, texts, admission bounds, the valid-time
interval); a bad row raises :class:`~graphmem.errors.InvalidInput` naming its index, field and
value, and nothing is written.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphmem.admission import check_source_type
from graphmem.errors import InvalidInput
from graphmem.models import significant
from graphmem.normalize import MAX_SUBJECT, check_text, clean_name, clean_subject
from graphmem.timeutil import to_utc

if TYPE_CHECKING:
    from graphmem.kernel import Kernel

__all__ = ["FIELDS", "INPUT_FIELDS", "KINDS", "session_starts", "validate"]

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
        "source_type",
    }
)

KINDS: tuple[str, ...] = ("fact", "event", "insight", "directive", "identity")
#: Keys accepted by :func:`validate`: the fact fields (``source_type`` included) and
#: ``cardinality`` (of a predicate the memory does not know yet: the text reader's open
#: relations, docs/concepts/text.md#open-relations).
INPUT_FIELDS = FIELDS | {"source_type", "cardinality"}


def clean_cached(
    raw: object, what: str, names: dict[str, str] | None, *, subject: bool = False
) -> str:
    """Clean a name through a per-call cache of string names.

    :func:`clean_name`, or for a ``subject`` :func:`clean_subject`.
    """
    clean = clean_subject if subject else clean_name
    if names is None or type(raw) is not str:
        return clean(raw, what=what)
    found = names.get(raw)
    if found is None:
        found = names[raw] = clean(raw, what=what)
    elif subject and len(found) > MAX_SUBJECT:  # cached as an object: too long for a subject
        clean_subject(found, what=what)
    return found


def session_starts(k: Kernel, items: Sequence[Mapping[str, Any]]) -> dict[str, dt.datetime]:
    """Start times of the sessions named as ``source`` by items without ``valid_from``.

    docs/concepts/time.md#the-time-rules: valid time defaults to the session time, else now.
    """
    ids = [
        it["source"]
        for it in items
        if isinstance(it, Mapping)
        and it.get("valid_from") is None
        and isinstance(it.get("source"), str)
        # text the store cannot hold is reported by _validate, not sent to a query
        and it["source"].encode("utf-8", "surrogatepass").decode("utf-8", "ignore") == it["source"]
    ]
    return k.store.session_start_times(ids) if ids else {}


def validate(
    k: Kernel,
    i: int,
    item: Mapping[str, Any],
    now: dt.datetime,
    default_from: dt.datetime | None = None,
    names: dict[str, str] | None = None,
    *,
    bound_subject: bool = True,
) -> dict[str, Any]:
    """Check one input row; return its normalised fields.

    ``names`` caches cleaned subject and object names across the rows of one call (a bulk
    write repeats them; docs/benchmarks.md#results). ``bound_subject``: refuse a subject longer
    than :data:`~graphmem.normalize.MAX_SUBJECT` characters (docs/errors.md#size-bounds).
    """
    where = f"facts[{i}]." if i >= 0 else ""
    if not INPUT_FIELDS.issuperset(item):
        unknown = set(item) - INPUT_FIELDS
        raise InvalidInput(
            f"{where}unknown field(s) {sorted(unknown)}; allowed: {sorted(INPUT_FIELDS)}"
        )
    for key in ("subject", "predicate", "object"):
        if key not in item:
            raise InvalidInput(
                f"{where}{key} is missing; every fact needs subject, predicate and object"
            )
    pred = k.ontology.resolve(item["predicate"])
    cardinality = item.get("cardinality")
    if cardinality is not None:
        if cardinality not in ("one", "many"):
            raise InvalidInput(
                f"{where}cardinality={cardinality!r} is invalid; use 'one' or 'many'"
            )
        if k.ontology.lookup(pred.name) is None:
            pred = pred.model_copy(update={"cardinality": cardinality})
        elif pred.cardinality != cardinality:
            raise InvalidInput(
                f"{where}cardinality={cardinality!r} but predicate {pred.name!r} is "
                f"{pred.cardinality!r}-valued; leave cardinality out, or change the predicate "
                "with define_predicate"
            )
    kind = item.get("kind") or "fact"
    if kind not in KINDS:
        raise InvalidInput(f"{where}kind={kind!r} is invalid; use one of {list(KINDS)}")
    importance = item.get("importance")
    if importance is None:
        importance = 5.0
    if (
        isinstance(importance, bool)
        or not isinstance(importance, (int, float))
        # A range test, not math.isfinite (which overflows on huge ints): NaN fails it.
        or not 0 <= importance <= 10
    ):
        raise InvalidInput(f"{where}importance={importance!r} must be a number from 0 to 10")
    confidence = item.get("confidence", 1.0)
    if confidence is None:
        confidence = 1.0
    if (
        isinstance(confidence, bool)
        or not isinstance(confidence, (int, float))
        or not 0 <= confidence <= 1
    ):
        raise InvalidInput(f"{where}confidence={confidence!r} must be a number from 0 to 1")
    for key in ("statement", "source", "source_ref"):
        value = item.get(key)
        if value is not None and not isinstance(value, str):
            raise InvalidInput(f"{where}{key}={value!r} must be a string or None")
        if value is not None:
            check_text(value, what=f"{where}{key}")
    pinned = item.get("pinned")
    if pinned is None:
        pinned = False
    if not isinstance(pinned, bool):
        raise InvalidInput(f"{where}pinned={pinned!r} must be True or False")
    # Admission control (docs/concepts/hotness.md): statement bounds, importance clamped into
    # the kind's band.
    statement = item.get("statement") or None
    if statement is not None:
        k.admission.check_statement(statement, name=f"{where}statement")
    source_type = item.get("source_type")
    if source_type is not None:
        source_type = check_source_type(source_type, name=f"{where}source_type")
    importance = k.admission.clamp_importance(kind, importance, source_type=source_type)
    vf = k.time(item.get("valid_from"), f"{where}valid_from", default_from or now)
    vt = None if item.get("valid_to") is None else to_utc(item["valid_to"], name=f"{where}valid_to")
    if vt is not None and vt <= vf:
        raise InvalidInput(
            f"{where}valid_to={vt.isoformat()} is not after valid_from={vf.isoformat()}; "
            "intervals are [valid_from, valid_to): give a later valid_to or none"
        )
    subject = clean_cached(item["subject"], f"{where}subject", names, subject=bound_subject)
    obj = clean_cached(item["object"], f"{where}object", names)
    # Every Fact field in declaration order (new_version completes it; ``predicate`` holds
    # the Predicate until then).
    return {
        "id": None,
        "subject": subject,
        "predicate": pred,
        "object": obj,
        "valid_from": vf,
        "valid_to": vt,
        "recorded_at": None,
        "expired_at": None,
        "statement": statement,
        "kind": kind,
        "importance": significant(importance),
        "confidence": significant(confidence),
        "source": item.get("source") or None,
        "source_ref": item.get("source_ref") or None,
        "superseded_by": None,
        "reason": None,
        "access_count": 0,
        "last_accessed_at": None,
        "pinned": pinned,
        "source_type": source_type,
        "scope": "",  # the write's scope, set when it is applied
    }
