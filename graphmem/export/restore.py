"""Restoring an export: validate every record, check the history, write it as one change set.

An import replays history as recorded, it does not re-decide it: the same ids and system
times, only into an empty memory, and refused (nothing written) when a record is invalid or
the history is one ``graphmem check`` would call broken. The store's last-write marker becomes
the newest system time imported (docs/concepts/time.md#rule-8).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from graphmem.errors import InvalidInput
from graphmem.export.records import TransferReport, _Dump
from graphmem.models import Fact, Predicate
from graphmem.store.base import Snapshot
from graphmem.store.schema import SCHEMA_VERSION
from graphmem.timeutil import to_utc
from graphmem.writes import build_fact

if TYPE_CHECKING:
    from graphmem.kernel import Kernel


def _new_id(value: Any, seen: set[str], what: str) -> str:
    """Return an exported id after checking it is a non-empty string not ``seen`` yet; add it."""
    if not isinstance(value, str) or not value:
        raise InvalidInput(f"{what} id={value!r} must be a non-empty string")
    if value in seen:
        raise InvalidInput(f"{what} {value!r} appears twice")
    seen.add(value)
    return value


def _time(value: Any, where: str, *, required: bool = True) -> dt.datetime | None:
    if value is None and not required:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{where}={value!r} must be an ISO-8601 time string with an offset")
    return to_utc(value, name=where)


def _validate(
    dump: _Dump,
) -> tuple[
    list[Predicate],
    list[dict[str, Any]],
    list[dict[str, Any]],
    list[tuple[str, str, Fact]],
    list[dict[str, Any]],
]:
    counts = dump.header.get("counts")
    if isinstance(counts, Mapping):
        found = {
            "predicates": len(dump.predicates),
            "entities": len(dump.entities),
            "sessions": len(dump.sessions),
            "facts": len(dump.facts),
            "audit": len(dump.audit),
        }
        for what, n in found.items():
            if what in counts and counts[what] != n:
                raise InvalidInput(
                    f"the export header announces {counts[what]!r} {what} but the file holds "
                    f"{n}: it is truncated or was edited; nothing imported"
                )
    predicates = []
    for p in dump.predicates:
        where = p.get("_where", "predicate")
        try:
            predicates.append(
                Predicate.model_validate({k: v for k, v in p.items() if k != "_where"})
            )
        except ValidationError as exc:
            err = exc.errors()[0]
            loc = ".".join(str(x) for x in err["loc"])
            raise InvalidInput(f"{where}: predicate {loc}: {err['msg']}") from exc
    entities: list[dict[str, Any]] = []
    known: set[str] = set()
    for e in dump.entities:
        where = e.get("_where", "entity")
        eid = _new_id(e.get("id"), known, f"{where}: entity")
        for key in ("name", "kind"):
            if e.get(key) is not None and not isinstance(e[key], str):
                raise InvalidInput(f"{where}: entity {key}={e[key]!r} must be a string")
        aliases = e.get("aliases") or []
        if not isinstance(aliases, list) or not all(isinstance(a, str) for a in aliases):
            raise InvalidInput(f"{where}: entity aliases={aliases!r} must be a list of strings")
        entities.append(
            {"id": eid, "name": e.get("name"), "kind": e.get("kind"), "aliases": aliases}
        )
    sessions: list[dict[str, Any]] = []
    seen_sessions: set[str] = set()
    for s in dump.sessions:
        where = s.get("_where", "session")
        session_id = _new_id(s.get("id"), seen_sessions, f"{where}: session")
        row: dict[str, Any] = {
            "id": session_id,
            "started_at": _time(s.get("started_at"), f"{where}: started_at"),
            "ended_at": _time(s.get("ended_at"), f"{where}: ended_at", required=False),
            # Exports older than schema 2 carry no system time for sessions: their start.
            "recorded_at": _time(s.get("recorded_at"), f"{where}: recorded_at", required=False),
        }
        for key in ("title", "text", "summary", "source"):
            if s.get(key) is not None and not isinstance(s[key], str):
                raise InvalidInput(f"{where}: session {key}={s[key]!r} must be a string")
            row[key] = s.get(key)
        mentions = s.get("mentions") or {}
        if not isinstance(mentions, Mapping):
            raise InvalidInput(f"{where}: mentions must map entity ids to counts")
        for eid, n in mentions.items():
            if eid not in known:
                raise InvalidInput(f"{where}: mentions unknown entity {eid!r}")
            if isinstance(n, bool) or not isinstance(n, int):
                raise InvalidInput(f"{where}: mention count {n!r} of {eid!r} must be an integer")
        row["mentions"] = dict(mentions)
        sessions.append(row)
    facts: list[tuple[str, str, Fact]] = []
    fids: set[str] = set()
    for f in dump.facts:
        where = f.get("_where", "fact")
        sid, oid = f.get("subject_id"), f.get("object_id")
        for name, value in (("subject_id", sid), ("object_id", oid)):
            if value not in known:
                raise InvalidInput(f"{where}: {name}={value!r} is not an exported entity")
        body = {k: v for k, v in f.items() if k not in ("subject_id", "object_id", "_where")}
        try:
            fact = build_fact(body)
        except InvalidInput as exc:
            raise InvalidInput(f"{where}: {exc}") from exc
        if fact.id in fids:
            raise InvalidInput(f"{where}: fact version id {fact.id!r} appears twice")
        fids.add(fact.id)
        facts.append((str(sid), str(oid), fact))
    audit: list[dict[str, Any]] = []
    for a in dump.audit:
        where = a.get("_where", "audit")
        if not isinstance(a.get("id"), str) or not a["id"]:
            raise InvalidInput(f"{where}: audit id={a.get('id')!r} must be a non-empty string")
        for key in ("action", "detail"):
            if a.get(key) is not None and not isinstance(a[key], str):
                raise InvalidInput(f"{where}: audit {key}={a[key]!r} must be a string")
        audit.append(
            {
                "id": a["id"],
                "at": _time(a.get("at"), f"{where}: at", required=False),
                "action": a.get("action"),
                "detail": a.get("detail"),
            }
        )
    return predicates, entities, sessions, facts, audit


def _check_history(
    dump: _Dump,
    predicates: list[Predicate],
    entities: list[dict[str, Any]],
    facts: list[tuple[str, str, Fact]],
    last_write: dt.datetime | None,
) -> None:
    """Refuse an import whose history ``graphmem check`` would call broken (nothing written).

    The imported rows go through the checker's own rules (:func:`graphmem.check.check_rows`):
    dangling or cyclic ``superseded_by`` chains, two versions of a single-valued fact valid at
    once, impossible intervals. The first error is raised, naming the record that holds it.

    Raises:
        InvalidInput: an invariant is broken.
    """
    from graphmem.check import CODES, check_rows
    from graphmem.store.schema import FACT_COLUMNS

    cols = [c for c, _ in FACT_COLUMNS if c != "fid"]

    where = {f.id: w.get("_where", "fact") for (_, _, f), w in zip(facts, dump.facts, strict=True)}
    names = {e["id"]: e["name"] for e in entities}
    rows = [
        {"subject_id": s, "subject": f.subject, "object_id": o, "object_name": names.get(o)}
        | {"fid": f.id}
        | {c: getattr(f, c) for c in cols}
        for s, o, f in facts
    ]
    meta = {"schema_version": str(SCHEMA_VERSION)}
    if last_write is not None:
        meta["last_write"] = last_write.isoformat()
    problems, omitted = check_rows(
        rows,
        entities=entities,
        predicates=[p.model_dump() for p in predicates],
        meta=meta,
    )
    errors = [p for p in problems if p.severity == "error"]
    if errors:
        first = errors[0]
        at = next((where[f] for f in first.fids if f in where), "the file")
        more = len(errors) - 1 + sum(n for c, n in omitted.items() if CODES[c][0] == "error")
        raise InvalidInput(
            f"{at}: broken history ({first.code}: {first.message})"
            + (f" and {more} more error(s)" if more else "")
            + "; nothing imported: fix the export, or import an intact backup"
        )


def _restore(kernel: Kernel, dump: _Dump, fmt: str) -> TransferReport:

    predicates, entities, sessions, facts, audit = _validate(dump)
    instants = [
        t for _, _, f in facts for t in (f.recorded_at, f.expired_at, f.last_accessed_at) if t
    ]
    instants += [a["at"] for a in audit if a["at"] is not None]
    marker = _time(dump.header.get("last_write"), "header last_write", required=False)
    if marker is not None:
        instants.append(marker)
    last_write = max(instants, default=None)
    _check_history(dump, predicates, entities, facts, last_write)
    store = kernel.store
    with kernel.lock:
        counts = store.content_counts()
        if any(counts.values()):
            held = ", ".join(f"{n:,} {what}" for what, n in counts.items() if n)
            raise InvalidInput(
                f"memory {kernel.where!r} is not empty ({held}); an import restores "
                "a whole history and only goes into an empty memory: import into a new "
                "database (graphmem --db NEW_PATH import FILE)"
            )
        snapshot = Snapshot(
            meta=dump.meta,
            predicates=predicates,
            entities=entities,
            facts=facts,
            sessions=sessions,
            audit=audit,
        )
        # The import restores its own history: it writes at its newest instant, not now.
        with kernel.uow.write(at=last_write or kernel.now(), marker=last_write is not None) as w:
            w.changes.snapshot = snapshot
        kernel.reload()  # the kernel caches the ontology, the aliases and the marker
    return dump.report(fmt, last_write)
