"""The export formats, one module each, registered in one table.

A format is a module with ``write(dump, out)`` and ``read(text)`` over the canonical records
(:mod:`graphmem.export.records`): :func:`graphmem.export.export_memory` and
:func:`graphmem.export.import_memory` look the format up here. A new format is a module and a
row of :data:`REGISTRY`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from graphmem.export import graphml, jsonl, node_link
from graphmem.export.records import _Dump

__all__ = ["REGISTRY", "Format"]


@dataclass(frozen=True)
class Format:
    """One export format: how a dump is written to a text stream and read from a text."""

    name: str
    write: Callable[[_Dump, IO[str]], None]
    read: Callable[[str], _Dump]


#: Every export format by name, in the order :data:`graphmem.export.FORMATS` lists them.
REGISTRY: dict[str, Format] = {
    f.name: f
    for f in (
        Format("jsonl", jsonl.write, jsonl.read),
        Format("graphml", graphml.write, graphml.read),
        Format("node-link", node_link.write, node_link.read),
    )
}
