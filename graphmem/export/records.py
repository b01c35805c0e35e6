"""The canonical export records: a memory's dump, its header, and the record stream.

Every format of :mod:`graphmem.export` is written from one :class:`_Dump` (every table as
JSON-ready rows) and read back into one; ``jsonl`` is this record stream one record a line.
The header carries the format, its version, the schema version and the counts, and metadata
graphmem derives itself is never taken from a file (docs/concepts/time.md#rule-8).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInput
from graphmem.models import Fact
from graphmem.store.schema import SCHEMA_VERSION

if TYPE_CHECKING:
    from graphmem.kernel import Kernel

__all__ = ["FORMAT_NAME", "FORMAT_VERSION", "TransferReport"]

#: The ``format`` value of every export's header.
FORMAT_NAME = "graphmem-export"
#: Bumped when the export layout changes; imports accept this version and older ones.
FORMAT_VERSION = 1

# Metadata graphmem derives itself (the header carries the first two; the purge-rebuild count,
# a bulk write's undo record and the flag of a marker kept in memory belong to one file,
# docs/concepts/storage.md#lazy-marker; the version of the stored line terms belongs to the store
# that computed them, docs/concepts/recall.md#how-lines-are-ranked): never exported as meta
# records, refused from a file. Every other Meta key is exported verbatim.
_HEADER_META = frozenset(
    {
        "schema_version",
        "last_write",
        "compacted_purges",
        "copy_pending",
        "marker_unsaved",
        "line_terms",
    }
)
_FACT_TIMES = ("valid_from", "valid_to", "recorded_at", "expired_at", "last_accessed_at")
_SYSTEM_TIMES = ("recorded_at", "expired_at", "last_accessed_at")
_SESSION_FIELDS = (
    "id",
    "started_at",
    "ended_at",
    "title",
    "text",
    "summary",
    "source",
    "recorded_at",
)
#: The message for JSON nested deeper than the parser's recursion limit (an export is never).
_TOO_DEEP = (
    "the JSON is nested too deeply to parse (an export nests at most 3 levels); is the file "
    "an export?"
)


@dataclass(frozen=True)
class TransferReport:
    """What an export or import moved."""

    format: str
    predicates: int
    entities: int
    sessions: int
    facts: int
    audit: int
    last_write: dt.datetime | None

    def summary(self) -> str:
        """Return a one-line human summary."""
        parts = [
            _count(self.facts, "fact version"),
            _count(self.entities, "entity", "entities"),
            _count(self.sessions, "session"),
            _count(self.predicates, "predicate"),
            _count(self.audit, "audit record"),
        ]
        return ", ".join(parts) + f" ({self.format})"


def _count(n: int, word: str, plural: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else plural or word + 's'}"


@dataclass
class _Dump:
    header: dict[str, Any]
    meta: dict[str, str]
    predicates: list[dict[str, Any]]
    entities: list[dict[str, Any]]
    sessions: list[dict[str, Any]]
    facts: list[dict[str, Any]]
    audit: list[dict[str, Any]]

    def report(self, fmt: str, last_write: dt.datetime | None) -> TransferReport:
        return TransferReport(
            format=fmt,
            predicates=len(self.predicates),
            entities=len(self.entities),
            sessions=len(self.sessions),
            facts=len(self.facts),
            audit=len(self.audit),
            last_write=last_write,
        )


def _iso(value: dt.datetime | None) -> str | None:
    return None if value is None else value.astimezone(dt.timezone.utc).isoformat()


def _fact_record(sid: str, oid: str, fact: Fact) -> dict[str, Any]:
    data = fact.model_dump()
    for name in _FACT_TIMES:
        data[name] = _iso(data[name])
    return {"subject_id": sid, "object_id": oid, **data}


def _dump(kernel: Kernel) -> _Dump:
    store = kernel.store
    meta = store.all_meta()
    last = store.max_system_time()
    sessions = [
        {
            **s,
            "started_at": _iso(s["started_at"]),
            "ended_at": _iso(s["ended_at"]),
            "recorded_at": _iso(s["recorded_at"]),
        }
        for s in store.all_sessions()
    ]
    audit = [{**a, "at": _iso(a["at"])} for a in store.all_audit()]
    dump = _Dump(
        header={},
        meta={k: v for k, v in meta.items() if k not in _HEADER_META},
        predicates=[p.model_dump(mode="json") for p in store.load_predicates()],
        entities=store.all_entities(),
        sessions=sessions,
        facts=[_fact_record(s, o, f) for s, o, f in store.all_facts()],
        audit=audit,
    )
    from graphmem.version import package_version

    dump.header = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "schema_version": SCHEMA_VERSION,
        "graphmem": package_version(),
        "exported_at": _iso(kernel.now()),
        "last_write": _iso(last),
        "counts": {
            "predicates": len(dump.predicates),
            "entities": len(dump.entities),
            "sessions": len(dump.sessions),
            "facts": len(dump.facts),
            "audit": len(dump.audit),
        },
    }
    return dump


# -- jsonl ----------------------------------------------------------------------------------------


def _records(dump: _Dump) -> Iterator[dict[str, Any]]:
    yield {"type": "header", **dump.header}
    for key, value in sorted(dump.meta.items()):
        yield {"type": "meta", "key": key, "value": value}
    for kind, rows in (
        ("predicate", dump.predicates),
        ("entity", dump.entities),
        ("session", dump.sessions),
        ("fact", dump.facts),
        ("audit", dump.audit),
    ):
        for row in rows:
            yield {"type": kind, **row}


def _from_records(records: Iterable[tuple[str, Mapping[str, Any]]]) -> _Dump:
    dump = _Dump({}, {}, [], [], [], [], [])
    targets = {
        "predicate": dump.predicates,
        "entity": dump.entities,
        "session": dump.sessions,
        "fact": dump.facts,
        "audit": dump.audit,
    }
    saw_header = False
    for where, rec in records:
        if not isinstance(rec, Mapping):
            raise InvalidInput(f"{where}: expected a JSON object, got {type(rec).__name__}")
        kind = rec.get("type")
        body = {k: v for k, v in rec.items() if k != "type"}
        if kind == "header":
            if saw_header:
                raise InvalidInput(f"{where}: a second header; concatenated exports can't import")
            _check_header(body, where)
            dump.header = body
            saw_header = True
        elif not saw_header:
            raise InvalidInput(
                f"{where}: the first record must be the export header "
                f'({{"type": "header", "format": "{FORMAT_NAME}", ...}}); is this a graphmem '
                "export? (to add plain facts, use add-many)"
            )
        elif kind == "meta":
            key, value = body.get("key"), body.get("value")
            if not isinstance(key, str) or not isinstance(value, str):
                raise InvalidInput(f"{where}: a meta record needs string 'key' and 'value'")
            _check_meta_key(key, where)
            dump.meta[key] = value
        elif kind in targets:
            targets[kind].append({**body, "_where": where})
        else:
            raise InvalidInput(
                f"{where}: unknown record type {kind!r}; expected one of "
                "header, meta, predicate, entity, session, fact, audit"
            )
    if not saw_header:
        raise InvalidInput("the file holds no export header; is it empty or not an export?")
    return dump


def _check_meta_key(key: str, where: str) -> None:
    """Refuse metadata graphmem derives itself: it is never taken from a file."""
    if key in _HEADER_META:
        raise InvalidInput(
            f"{where}: a meta record sets {key!r}, which graphmem sets itself (the schema "
            "version of this graphmem, the newest imported system time) and never takes from "
            "a file; remove that record"
        )


def _check_header(header: Mapping[str, Any], where: str) -> None:
    if header.get("format") != FORMAT_NAME:
        raise InvalidInput(
            f"{where}: format={header.get('format')!r} is not a graphmem export "
            f"(expected {FORMAT_NAME!r})"
        )
    version = header.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise InvalidInput(f"{where}: export version={version!r} is invalid")
    if version > FORMAT_VERSION:
        raise InvalidInput(
            f"{where}: export version {version} is newer than this graphmem reads "
            f"({FORMAT_VERSION}); upgrade graphmem"
        )
