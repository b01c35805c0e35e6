"""The breadth-first walk behind ``ball()`` (the neighbourhood of an entity), for both backends.

Each backend reads the snapshot edges at a set of nodes its own way (the Kuzu backend by node
offset); the walk over them is the same.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, TypeVar

__all__ = ["breadth_first"]

N = TypeVar("N", bound=Hashable)


def breadth_first(
    start: Iterable[N],
    hops: int,
    edges_at: Callable[[list[N]], Iterable[Sequence[Any]]],
    key: int,
) -> tuple[set[N], set[N], dict[Any, Sequence[Any]]]:
    """Walk ``hops`` edges out from ``start``, following edges both ways.

    Args:
        start: the nodes to start from.
        hops: how many edges away to go.
        edges_at: the rows of every edge at the given nodes (out and in), each with its two ends
            first and the version id at ``key``.
        key: where a row holds its version id.

    Returns:
        The nodes reached (``start`` included), the nodes at the radius (``start`` when
        ``hops`` is 0; empty when the walk stopped early), and the rows of every edge at a node
        closer than the radius (those edges end inside the ball), by version id.

    >>> graph = [("a", "b", "f1"), ("b", "c", "f2"), ("c", "d", "f3")]
    >>> at = lambda ids: [e for e in graph if e[0] in ids or e[1] in ids]
    >>> seen, radius, rows = breadth_first({"a"}, 2, at, 2)
    >>> sorted(seen), sorted(radius), sorted(rows)
    (['a', 'b', 'c'], ['c'], ['f1', 'f2'])
    """
    seen = set(start)
    frontier = set(seen)
    rows: dict[Any, Sequence[Any]] = {}
    for _ in range(hops):
        reached: set[N] = set()
        for row in edges_at(sorted(frontier, key=str)):
            rows[row[key]] = row
            reached.update(n for n in row[:2] if n not in seen)
        seen |= reached
        frontier = reached
        if not frontier:
            break
    return seen, frontier, rows
