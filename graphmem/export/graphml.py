"""The ``graphml`` export format: the node-link graph as GraphML (Gephi, yEd, networkx).

Lists and the graph-level records are JSON strings, absent values are left out; text XML 1.0
cannot hold (control characters) is refused with the formats that can.
"""

from __future__ import annotations

import io
import json
import re
from typing import IO, Any

import networkx as nx  # type: ignore[import-untyped,unused-ignore]  # no stubs in the venv

from graphmem.errors import InvalidInput
from graphmem.export.node_link import _from_node_link, _node_link
from graphmem.export.records import _TOO_DEEP, _Dump

__all__ = ["read", "write"]

# Characters XML 1.0 cannot carry at all (GraphML is XML).
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")

_GRAPHML_JSON_GRAPH = ("meta", "predicates", "audit", "counts")
_GRAPHML_JSON_ATTR = ("aliases",)


def write(dump: _Dump, out: IO[str]) -> None:
    """Write ``dump`` as a GraphML document."""
    _write_graphml(dump, out)


def read(text: str) -> _Dump:
    """Read a GraphML export."""
    return _read_graphml(text)


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
