"""An interactive graph of a memory: one self-contained HTML page with two time sliders.

See docs/concepts/exploring.md.

- :func:`graph_html` writes the page (atomically) and returns a :class:`GraphView`;
- :func:`show` returns the same view without writing a file (Jupyter displays it inline).

The page makes no network request: its script and style are package data inlined into it, and
the memory's versions are embedded as JSON (:func:`graphmem.view.data.view_data`). Two sliders
pick a valid time and a known time; the page then draws exactly the versions
``facts(valid_at=, known_at=)`` returns, and, on request, the superseded ones faded with their
reason. Large snapshots are folded into groups (by kind, else by community) with counted links,
and only the best-connected names are labelled; the page says how much is folded or unlabelled.

>>> import graphmem as gm
>>> with gm.open(clock=lambda: gm.to_utc("2026-06-10")) as mem:
...     _ = mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
...     view = show(mem)
...     view.versions, view.entities
(1, 2)
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from graphmem.fileio import atomic_write
from graphmem.view.data import view_data, visible_ids

if TYPE_CHECKING:
    from graphmem.kernel import MemoryLike
    from graphmem.timeutil import TimeLike

__all__ = ["GraphView", "graph_html", "show", "view_data", "visible_ids"]


@dataclass(frozen=True)
class GraphView:
    """A rendered graph page: its HTML, where it was written, and what it holds."""

    html: str
    path: str | None
    entities: int
    versions: int

    def _repr_html_(self) -> str:
        # An iframe keeps the page's script and style apart from the notebook's.
        return (
            f'<iframe srcdoc="{html.escape(self.html, quote=True)}" '
            'style="width:100%;height:640px;border:1px solid #ddd" '
            'sandbox="allow-scripts"></iframe>'
        )

    def __str__(self) -> str:
        where = f" in {self.path}" if self.path else ""
        return (
            f"graph page{where}: {self.entities} entities, {self.versions} fact versions, "
            f"{len(self.html.encode('utf-8')):,} bytes"
        )


def _asset(name: str) -> str:
    return resources.files("graphmem.view").joinpath(name).read_text(encoding="utf-8")


def _page(data: dict[str, Any], title: str) -> str:
    # "<" is escaped inside the JSON so no value can close the script element.
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return (
        _asset("template.html")
        .replace("{{title}}", html.escape(title))
        .replace("{{style}}", _asset("viewer.css"))
        .replace("{{data}}", payload)
        .replace("{{script}}", _asset("viewer.js"))
    )


def show(
    mem: MemoryLike,
    *,
    subject: str | None = None,
    hops: int = 2,
    valid_at: TimeLike | None = None,
    known_at: TimeLike | None = None,
    scope: str | Iterable[str] | None = None,
) -> GraphView:
    """Return the graph page of a memory (no file written); Jupyter displays it inline.

    Args: as :func:`graph_html`.

    Raises:
        NotFound: no entity is named ``subject``.
        InvalidInput: a bad ``hops``, time or ``scope``.
    """
    data = view_data(
        mem, subject=subject, hops=hops, valid_at=valid_at, known_at=known_at, scope=scope
    )
    title = "graphmem" + (f" · {subject}" if subject else "")
    return GraphView(
        html=_page(data, title),
        path=None,
        entities=len(data["entities"]),
        versions=len(data["versions"]),
    )


def graph_html(
    mem: MemoryLike,
    path: str | os.PathLike[str],
    *,
    subject: str | None = None,
    hops: int = 2,
    valid_at: TimeLike | None = None,
    known_at: TimeLike | None = None,
    scope: str | Iterable[str] | None = None,
) -> GraphView:
    """Write the interactive graph page of a memory to ``path`` (one self-contained HTML file).

    Args:
        mem: the memory.
        path: the HTML file to write (replaced atomically).
        subject: show only the entities within ``hops`` facts of this one (at any time).
        hops: the radius around ``subject`` (``>= 0``).
        valid_at: the valid-time slider's starting instant (default now).
        known_at: the known-time slider's starting instant (default now).
        scope: only these predicates (one name or several).

    Returns:
        The :class:`GraphView` (``_repr_html_`` shows it inline in Jupyter).

    Raises:
        NotFound: no entity is named ``subject``.
        InvalidInput: a bad ``hops``, time, ``scope`` or ``path``.
    """
    from graphmem.errors import InvalidInput

    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path).strip():
        raise InvalidInput(f"path={path!r} must be the name of the HTML file to write")
    target = os.fspath(path)
    if os.path.isdir(target):
        raise InvalidInput(f"path={target!r} is a directory; pass a file name such as graph.html")
    folder = os.path.dirname(os.path.abspath(target))
    if not os.path.isdir(folder):
        raise InvalidInput(f"path={target!r}: no directory {folder!r}; create it first")
    view = show(mem, subject=subject, hops=hops, valid_at=valid_at, known_at=known_at, scope=scope)
    with atomic_write(target) as fh:
        fh.write(view.html)
    return GraphView(view.html, target, view.entities, view.versions)
