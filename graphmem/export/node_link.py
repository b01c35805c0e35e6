"""The ``node-link`` export format: networkx's node-link JSON of the full-history graph.

Nodes ``entity:<id>`` and ``session:<id>``, edges for every fact version (keyed by its id) and
for session mentions (``edges`` key); the header, the ontology, the metadata and the audit
records sit in ``graph``. :mod:`graphmem.export.graphml` writes the same graph as GraphML.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import IO, Any

from graphmem.errors import InvalidInput
from graphmem.export.records import (
    _SESSION_FIELDS,
    _TOO_DEEP,
    _check_header,
    _check_meta_key,
    _Dump,
)

__all__ = ["read", "write"]


def write(dump: _Dump, out: IO[str]) -> None:
    """Write ``dump`` as one indented node-link JSON document."""
    json.dump(_node_link(dump), out, ensure_ascii=False, indent=1)
    out.write("\n")


def read(text: str) -> _Dump:
    """Read a node-link export (the message of a bad document says where)."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(
            f"node-link: invalid JSON at line {exc.lineno} ({exc.msg}); is this an export?"
        ) from exc
    except RecursionError as exc:
        raise InvalidInput(f"node-link: {_TOO_DEEP}") from exc
    return _from_node_link(doc, "node-link")


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
