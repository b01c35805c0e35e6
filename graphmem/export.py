"""Files: a memory's lossless export and import (graph snapshots are :mod:`graphmem.graphs`).

:func:`export_memory` writes *every* version ever recorded — both time axes, reasons,
``superseded_by`` chains, access counters, pins — with the entities (kinds, aliases), the
ontology, the sessions and their mentions, the audit records and the store's metadata.
:func:`import_memory` restores such a file into an **empty** memory with the same ids and system
times: it replays history as recorded, it does not re-decide it. Three formats:

- ``jsonl`` (the canonical backup): a ``header`` line with the format version, then one JSON
  record per line, each with a ``type``: ``meta``, ``predicate``, ``entity``, ``session``,
  ``fact``, ``audit``.
- ``node-link``: networkx's node-link JSON (``edges`` key) of the full-history graph: nodes
  ``entity:<id>`` and ``session:<id>``, edges for every fact version (keyed by its id) and for
  session mentions; the ontology, metadata and audit records sit in ``graph``.
- ``graphml``: the same graph as GraphML for Gephi, yEd or ``networkx.read_graphml``; lists and
  the graph-level records are JSON strings, absent values are left out.

After an import, the store's last-write marker is the newest system time imported, so the
clock can never write "before" the restored history (docs/concepts/time.md#rule-8).
"""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import networkx as nx  # type: ignore[import-untyped,unused-ignore]  # no stubs in the venv
from pydantic import ValidationError

from graphmem.errors import InvalidInput
from graphmem.fileio import atomic_write, replaceable
from graphmem.kernel import kernel_of
from graphmem.models import Fact, Predicate
from graphmem.store.base import Snapshot
from graphmem.store.kuzu.schema import SCHEMA_VERSION
from graphmem.timeutil import to_utc
from graphmem.writes import build_fact

if TYPE_CHECKING:
    from graphmem.kernel import Kernel, MemoryLike

__all__ = [
    "FORMATS",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "TransferReport",
    "export_memory",
    "from_records",
    "import_memory",
    "neighborhood",
    "to_networkx",
    "to_records",
]

#: File formats understood by :func:`export_memory` and :func:`import_memory`.
FORMATS: tuple[str, ...] = ("jsonl", "graphml", "node-link")
#: The ``format`` value of every export's header.
FORMAT_NAME = "graphmem-export"
#: Bumped when the export layout changes; imports accept this version and older ones.
FORMAT_VERSION = 1

# Metadata graphmem derives itself (the header carries the first two; the purge-rebuild count
# and a bulk write's undo record belong to one file): never exported as meta records, refused
# from a file. Every other Meta
# key is exported verbatim.
_HEADER_META = frozenset({"schema_version", "last_write", "compacted_purges", "copy_pending"})
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
# Characters XML 1.0 cannot carry at all (GraphML is XML).
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


# -- the dump: every table as JSON-ready rows ---------------------------------------------------


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
    from graphmem import __version__

    dump.header = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "schema_version": SCHEMA_VERSION,
        "graphmem": __version__,
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


def to_records(mem: MemoryLike) -> Iterator[dict[str, Any]]:
    """Yield the canonical export records of a memory (one JSON line each in ``jsonl``).

    The first record is the ``header`` (``format``, ``version``, ``schema_version``,
    ``exported_at``, ``last_write``, ``counts``), then ``meta``, ``predicate``, ``entity``,
    ``session``, ``fact`` and ``audit`` records; times are ISO-8601 strings in UTC.
    """
    kernel = kernel_of(mem)
    yield from _records(_dump(kernel))


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


def from_records(mem: MemoryLike, records: Iterable[Mapping[str, Any]]) -> TransferReport:
    """Import canonical export records (as :func:`to_records` yields) into an empty memory.

    Raises:
        InvalidInput: the memory is not empty, or a record is invalid (the message gives its
            index); nothing is written.
    """
    kernel = kernel_of(mem)
    dump = _from_records((f"record {i}", r) for i, r in enumerate(records))
    return _restore(kernel, dump, "records")


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


def _read_jsonl(lines: Iterable[str]) -> _Dump:
    def parsed() -> Iterator[tuple[str, Any]]:
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                yield f"line {n}", json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"line {n}: invalid JSON ({exc.msg})") from exc
            except RecursionError as exc:
                raise InvalidInput(f"line {n}: {_TOO_DEEP}") from exc

    return _from_records(parsed())


# -- node-link and GraphML: the full-history graph ------------------------------------------------


def _node_link(dump: _Dump) -> dict[str, Any]:
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    for e in dump.entities:
        nodes.append({**e, "id": f"entity:{e['id']}", "type": "entity", "eid": e["id"]})
    for s in dump.sessions:
        fields = {k: s[k] for k in _SESSION_FIELDS}
        nodes.append(
            {**fields, "id": f"session:{s['id']}", "type": "session", "session_id": s["id"]}
        )
        for eid, count in s["mentions"].items():
            edges.append(
                {
                    "source": f"session:{s['id']}",
                    "target": f"entity:{eid}",
                    "key": "mentions",
                    "type": "mentions",
                    "count": count,
                }
            )
    for f in dump.facts:
        body = {k: v for k, v in f.items() if k not in ("subject_id", "object_id", "source")}
        # node-link names the endpoints "source"/"target": the Fact's source is "fact_source".
        body["fact_source"] = f["source"]
        edges.append(
            {
                "source": f"entity:{f['subject_id']}",
                "target": f"entity:{f['object_id']}",
                "key": f["id"],
                "type": "fact",
                **body,
            }
        )
    graph = {
        **dump.header,
        "meta": dump.meta,
        "predicates": dump.predicates,
        "audit": dump.audit,
    }
    return {"directed": True, "multigraph": True, "graph": graph, "nodes": nodes, "edges": edges}


def _split_key(key: object, where: str) -> tuple[str, str]:
    if not isinstance(key, str) or ":" not in key:
        raise InvalidInput(f"{where}: node id {key!r} is not 'entity:<id>' or 'session:<id>'")
    kind, _, ident = key.partition(":")
    if kind not in ("entity", "session") or not ident:
        raise InvalidInput(f"{where}: node id {key!r} is not 'entity:<id>' or 'session:<id>'")
    return kind, ident


def _from_node_link(doc: Any, fmt: str) -> _Dump:
    if not isinstance(doc, Mapping) or not isinstance(doc.get("graph"), Mapping):
        raise InvalidInput(f"{fmt}: not a graphmem export (no 'graph' object with a header)")
    graph = dict(doc["graph"])
    header = {k: v for k, v in graph.items() if k not in ("meta", "predicates", "audit")}
    _check_header(header, f"{fmt} graph")
    meta = graph.get("meta") or {}
    if not isinstance(meta, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in meta.items()
    ):
        raise InvalidInput(f"{fmt} graph.meta must map strings to strings")
    for key in meta:
        _check_meta_key(key, f"{fmt} graph.meta")
    edge_list = doc.get("edges", doc.get("links"))
    if not isinstance(doc.get("nodes"), list) or not isinstance(edge_list, list):
        raise InvalidInput(f"{fmt}: 'nodes' and 'edges' must be lists")
    dump = _Dump(
        header=header,
        meta=dict(meta),
        predicates=[
            {**p, "_where": f"{fmt} graph.predicates[{i}]"}
            for i, p in enumerate(_list(graph.get("predicates"), f"{fmt} graph.predicates"))
        ],
        entities=[],
        sessions=[],
        facts=[],
        audit=[
            {**a, "_where": f"{fmt} graph.audit[{i}]"}
            for i, a in enumerate(_list(graph.get("audit"), f"{fmt} graph.audit"))
        ],
    )
    sessions: dict[str, dict[str, Any]] = {}
    for i, node in enumerate(doc["nodes"]):
        where = f"{fmt} nodes[{i}]"
        if not isinstance(node, Mapping):
            raise InvalidInput(f"{where}: expected an object")
        kind, ident = _split_key(node.get("id"), where)
        if kind == "entity":
            dump.entities.append(
                {
                    "id": ident,
                    "name": node.get("name"),
                    "kind": node.get("kind"),
                    "aliases": node.get("aliases") or [],
                    "_where": where,
                }
            )
        else:
            row = {k: node.get(k) for k in _SESSION_FIELDS}
            row.update(id=ident, mentions={}, _where=where)
            sessions[ident] = row
            dump.sessions.append(row)
    for i, edge in enumerate(edge_list):
        where = f"{fmt} edges[{i}]"
        if not isinstance(edge, Mapping):
            raise InvalidInput(f"{where}: expected an object")
        skind, session_id = _split_key(edge.get("source"), where)
        okind, oid = _split_key(edge.get("target"), where)
        if edge.get("type") == "mentions":
            count = edge.get("count")
            if skind != "session" or okind != "entity" or session_id not in sessions:
                raise InvalidInput(
                    f"{where}: a mentions edge goes from a known session to an entity"
                )
            if isinstance(count, bool) or not isinstance(count, int):
                raise InvalidInput(f"{where}: mentions count={count!r} must be an integer")
            sessions[session_id]["mentions"][oid] = count
        elif edge.get("type") == "fact":
            if skind != "entity" or okind != "entity":
                raise InvalidInput(f"{where}: a fact edge joins two entities")
            body = {
                k: v
                for k, v in edge.items()
                if k not in ("source", "target", "key", "type", "fact_source")
            }
            body["source"] = edge.get("fact_source")
            dump.facts.append({**body, "subject_id": session_id, "object_id": oid, "_where": where})
        else:
            raise InvalidInput(f"{where}: edge type {edge.get('type')!r} is not fact or mentions")
    return dump


def _list(value: Any, where: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise InvalidInput(f"{where} must be a list")
    return value


_GRAPHML_JSON_GRAPH = ("meta", "predicates", "audit", "counts")
_GRAPHML_JSON_ATTR = ("aliases",)


def _xml_text(value: str, where: str) -> str:
    bad = _XML_INVALID.search(value)
    if bad:
        raise InvalidInput(
            f"{where} contains the control character {bad.group()!r}, which GraphML (XML 1.0) "
            "cannot hold; export with --format jsonl (or node-link) instead"
        )
    return value


def _graphml_value(value: Any, where: str) -> Any:
    if isinstance(value, (list, dict)):
        value = json.dumps(value, ensure_ascii=False, sort_keys=True)
    if isinstance(value, str):
        return _xml_text(value, where)
    return value


def _write_graphml(dump: _Dump, out: IO[str]) -> None:
    doc = _node_link(dump)
    G = nx.MultiDiGraph()
    for key, value in doc["graph"].items():
        if value is not None:
            G.graph[key] = _graphml_value(value, f"graph attribute {key!r}")
    for node in doc["nodes"]:
        attrs = {
            k: _graphml_value(v, f"node {node['id']!r} attribute {k!r}")
            for k, v in node.items()
            if k != "id" and v is not None
        }
        G.add_node(_xml_text(node["id"], "a node id"), **attrs)
    for edge in doc["edges"]:
        attrs = {
            k: _graphml_value(v, f"edge {edge['key']!r} attribute {k!r}")
            for k, v in edge.items()
            if k not in ("source", "target", "key") and v is not None
        }
        G.add_edge(edge["source"], edge["target"], key=edge["key"], **attrs)
    buf = io.BytesIO()
    nx.write_graphml(G, buf, encoding="utf-8")
    # XML parsers turn a raw CR into LF; a character reference keeps it (statements may hold
    # Windows line ends). Every other byte of the document is written as is.
    out.write(buf.getvalue().replace(b"\r", b"&#13;").decode("utf-8"))


def _read_graphml(text: str) -> _Dump:
    try:
        G = nx.read_graphml(io.BytesIO(text.encode("utf-8")), force_multigraph=True)
    except Exception as exc:  # the XML parser raises several unrelated types
        raise InvalidInput(f"graphml: cannot parse the document: {exc}") from exc
    graph = {k: v for k, v in G.graph.items() if k not in ("node_default", "edge_default")}
    for key in _GRAPHML_JSON_GRAPH:
        if isinstance(graph.get(key), str):
            graph[key] = _json_attr(graph[key], f"graphml graph attribute {key!r}")
    nodes = []
    for n, data in G.nodes(data=True):
        node = {"id": n, **data}
        for key in _GRAPHML_JSON_ATTR:
            if isinstance(node.get(key), str):
                node[key] = _json_attr(node[key], f"graphml node {n!r} attribute {key!r}")
        nodes.append(node)
    edges = [
        {"source": u, "target": v, "key": k, **d} for u, v, k, d in G.edges(keys=True, data=True)
    ]
    doc = {"graph": graph, "nodes": nodes, "edges": edges}
    return _from_node_link(doc, "graphml")


def _json_attr(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"{where} is not valid JSON ({exc.msg})") from exc
    except RecursionError as exc:
        raise InvalidInput(f"{where}: {_TOO_DEEP}") from exc


# -- restore --------------------------------------------------------------------------------------


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
    from graphmem.store.kuzu.schema import FACT_COLUMNS

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


# -- files ----------------------------------------------------------------------------------------


def _check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise InvalidInput(f"format={fmt!r} is unknown; use one of {list(FORMATS)}")
    return fmt


def export_memory(
    mem: MemoryLike,
    target: str | os.PathLike[str] | IO[str],
    *,
    format: str = "jsonl",  # noqa: A002
) -> TransferReport:
    """Write every version and all metadata of a memory to a file or text stream.

    Args:
        mem: the memory to export (it is only read).
        target: a path or a text stream. A path is replaced atomically (temp file in its
            folder, fsync, rename): a crash or a failure leaves the previous file whole.
        format: ``"jsonl"`` (canonical backup), ``"graphml"`` or ``"node-link"``.

    Returns:
        What was written.

    Raises:
        InvalidInput: an unknown format, text GraphML cannot hold (control characters), a
            path that cannot be written, or one that must not be replaced: a file of the
            memory's own database, a directory, a device (nothing is written).
    """
    kernel = kernel_of(mem)
    _check_format(format)
    if isinstance(target, (str, os.PathLike)):
        why = replaceable(target, protected=kernel.store.capabilities.files)
        if why is not None:
            raise InvalidInput(
                f"target={os.fspath(target)!r} cannot be an export: {why}; nothing was "
                "written; pass the path of a new file (or of an earlier export) outside the "
                "database"
            )
    dump = _dump(kernel)
    if isinstance(target, (str, os.PathLike)):
        # Render first: a failure (GraphML-incompatible text) leaves no half-written file.
        buf = io.StringIO()
        _write(dump, buf, format)
        try:
            # Temp file, fsync, rename (graphmem.fileio): a crash or a full disk leaves the
            # previous backup whole.
            with atomic_write(target) as fh:
                fh.write(buf.getvalue())
        except OSError as exc:
            raise InvalidInput(
                f"target={os.fspath(target)!r} cannot be written: {exc.strerror}; any previous "
                "file there is unchanged; pass a path in an existing, writable folder with "
                "free space"
            ) from exc
    else:
        _write(dump, target, format)
    marker = dump.header.get("last_write")
    return dump.report(format, None if marker is None else to_utc(marker))


def _write(dump: _Dump, out: IO[str], fmt: str) -> None:
    if fmt == "jsonl":
        for record in _records(dump):
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    elif fmt == "node-link":
        json.dump(_node_link(dump), out, ensure_ascii=False, indent=1)
        out.write("\n")
    else:
        _write_graphml(dump, out)


def _sniff(text: str) -> str:
    head = text.lstrip()
    if head.startswith("<"):
        return "graphml"
    first = head.split("\n", 1)[0]
    try:
        rec = json.loads(first)
    except json.JSONDecodeError:
        return "node-link"
    except RecursionError:
        return "jsonl"  # not an export's header: the reader names the line
    return "jsonl" if isinstance(rec, dict) and rec.get("type") == "header" else "node-link"


def import_memory(
    mem: MemoryLike,
    source: str | os.PathLike[str] | IO[str],
    *,
    format: str | None = None,  # noqa: A002
) -> TransferReport:
    """Restore an export into an **empty** memory, keeping ids and system times exactly.

    The import bypasses the write decisions: it restores the recorded history, it does not
    re-decide it. Everything is validated first and written in one transaction; the store's
    last-write marker becomes the newest system time imported.

    Args:
        mem: an empty memory (a fresh database).
        source: a path or a text stream holding an export.
        format: ``"jsonl"``, ``"graphml"`` or ``"node-link"``; detected from the content when
            ``None``.

    Returns:
        What was imported.

    Raises:
        InvalidInput: the memory is not empty, the format is unknown, or the file is not a
            valid export (the message says where), or the path cannot be read as UTF-8 text;
            nothing is written.
    """
    kernel = kernel_of(mem)
    if format is not None:
        _check_format(format)
    if isinstance(source, (str, os.PathLike)):
        try:
            with open(source, encoding="utf-8", newline="") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) else f"not UTF-8 text ({exc.reason})"
            raise InvalidInput(
                f"source={os.fspath(source)!r} cannot be read: {why}; pass the path of a file "
                "written by export_memory (graphmem export)"
            ) from exc
    else:
        text = source.read()
    fmt = format or _sniff(text)
    if fmt == "jsonl":
        dump = _read_jsonl(text.split("\n"))
    elif fmt == "graphml":
        dump = _read_graphml(text)
    else:
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise InvalidInput(
                f"node-link: invalid JSON at line {exc.lineno} ({exc.msg}); is this an export?"
            ) from exc
        except RecursionError as exc:
            raise InvalidInput(f"node-link: {_TOO_DEEP}") from exc
        dump = _from_node_link(doc, "node-link")
    return _restore(kernel, dump, fmt)


# The snapshots used to live here; existing code imports them from here.
from graphmem.graphs import neighborhood, to_networkx  # noqa: E402
