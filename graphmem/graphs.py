"""Graphs of a memory: networkx snapshots at a point of both time axes.

:func:`to_networkx` turns the answer of ``facts(valid_at=V, known_at=K)`` into a
``networkx.MultiDiGraph``: nodes are entity ids (with ``name`` and ``kind``), and every fact
version of the snapshot is one edge keyed by its id, carrying all :class:`~graphmem.models.Fact`
fields. :func:`neighborhood` is the part of a snapshot within ``hops`` of one entity, in both
directions (the same node set and edges as ``networkx.ego_graph(G, e, hops, undirected=True)``).

>>> import graphmem as gm
>>> with gm.open(clock=lambda: gm.to_utc("2026-06-10")) as mem:
...     _ = mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
...     _ = mem.add_fact("api", "runs_on", "Go", valid_from="2026-06-01")
...     G = to_networkx(mem, valid_at="2025-01-01")
...     [(u, v, d["predicate"]) for u, v, d in G.edges(data=True)]
[('api', 'laravel', 'runs_on')]
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

import networkx as nx  # type: ignore[import-untyped,unused-ignore]  # no stubs in the venv

from graphmem.errors import InvalidInput, NotFound
from graphmem.kernel import kernel_of
from graphmem.store.records import Edge
from graphmem.timeutil import TimeLike, to_utc

if TYPE_CHECKING:
    from graphmem.kernel import Kernel, MemoryLike

__all__ = ["neighborhood", "to_networkx"]


def _snapshot_times(
    kernel: Kernel, valid_at: TimeLike | None, known_at: TimeLike | None
) -> tuple[dt.datetime, dt.datetime]:
    now = kernel.now()
    v = now if valid_at is None else to_utc(valid_at, name="valid_at")
    k = now if known_at is None else to_utc(known_at, name="known_at")
    return v, k


def _graph(
    kernel: Kernel, edges: Iterable[Edge], nodes: Iterable[str], v: dt.datetime, k: dt.datetime
) -> nx.MultiDiGraph:
    edges = list(edges)
    ids = set(nodes) | {s for s, _, _ in edges} | {o for _, o, _ in edges}
    return _build_graph(kernel.store.entity_rows(sorted(ids)), edges, v, k)


def _build_graph(
    entities: Iterable[Mapping[str, Any]],
    edges: Iterable[Edge],
    v: dt.datetime,
    k: dt.datetime,
) -> nx.MultiDiGraph:
    """Build the graph from entity rows (``id``, ``name``, ``kind``) and edges, in that order."""
    G = nx.MultiDiGraph(valid_at=v, known_at=k)
    for row in entities:
        G.add_node(row["id"], name=row["name"] or row["id"], kind=row["kind"] or "entity")
    for s, o, fact in edges:
        G.add_edge(s, o, key=fact.id, **fact.model_dump())
    return G


def _check_hops(hops: object) -> int:
    if isinstance(hops, bool) or not isinstance(hops, int) or hops < 0:
        raise InvalidInput(f"hops={hops!r} must be a non-negative integer (0 = the entity alone)")
    return hops


def to_networkx(
    mem: MemoryLike,
    *,
    valid_at: TimeLike | None = None,
    known_at: TimeLike | None = None,
    subject: str | None = None,
    hops: int | None = None,
) -> nx.MultiDiGraph:
    """Return a snapshot as a ``networkx.MultiDiGraph`` whose edges are fact versions.

    The edges are exactly the versions ``mem.facts(valid_at=, known_at=)`` returns (both
    default to now), one per version, keyed by the version id, with every Fact field as an
    attribute (aware UTC datetimes, ``None`` for open ends). Nodes are entity ids with ``name``
    and ``kind``; ``G.graph`` holds the resolved ``valid_at`` and ``known_at``.

    Args:
        mem: the memory.
        valid_at: world time of the snapshot (default now).
        known_at: system time: what was believed then (default now).
        subject: keep only this subject's facts (as ``facts(subject=)``); with ``hops``, its
            neighbourhood instead (see :func:`neighborhood`).
        hops: the neighbourhood radius around ``subject``; needs ``subject``.

    Returns:
        The snapshot graph.

    Raises:
        InvalidInput: bad times or names, a negative ``hops``, or ``hops`` without ``subject``.
        NotFound: ``hops`` is given and no entity is named ``subject``.
    """
    kernel = kernel_of(mem)
    if hops is not None:
        if subject is None:
            raise InvalidInput(
                f"hops={hops!r} needs subject=...: a neighbourhood is taken around one entity"
            )
        return neighborhood(kernel, subject, hops=hops, valid_at=valid_at, known_at=known_at)
    v, k = _snapshot_times(kernel, valid_at, known_at)
    sid = None if subject is None else kernel.entity_id(subject, what="subject")
    edges = kernel.store.snapshot_edges(valid_at=v, known_at=k, subject_id=sid)
    return _graph(kernel, edges, (), v, k)


def neighborhood(
    mem: MemoryLike,
    entity: str,
    *,
    hops: int = 1,
    valid_at: TimeLike | None = None,
    known_at: TimeLike | None = None,
) -> nx.MultiDiGraph:
    """Return the snapshot subgraph within ``hops`` of an entity, following edges both ways.

    The nodes are the entities at most ``hops`` facts away (in either direction) in the
    snapshot ``facts(valid_at=, known_at=)``, and the edges are every snapshot version between
    two of them — the induced subgraph, as ``networkx.ego_graph(..., undirected=True)``. The
    entity itself is always a node, even when it has no fact at that time.

    Args:
        mem: the memory.
        entity: the entity's name or alias.
        hops: the radius, ``>= 0`` (``0``: the entity and its self-loops).
        valid_at: world time of the snapshot (default now).
        known_at: system time: what was believed then (default now).

    Returns:
        A ``networkx.MultiDiGraph`` shaped like :func:`to_networkx`'s.

    Raises:
        NotFound: no entity has that name.
        InvalidInput: a negative or non-integer ``hops``, bad times or a blank name.
    """
    kernel = kernel_of(mem)
    hops = _check_hops(hops)
    v, k = _snapshot_times(kernel, valid_at, known_at)
    eid = kernel.entity_id(entity, what="entity")
    with kernel.lock:  # the store queries of one search see no write in between
        found = kernel.store.ball(eid, hops, valid_at=v, known_at=k)
    if found is None:
        raise NotFound(
            f"no entity named {entity!r} in memory {kernel.where!r}; check the "
            "spelling or list subjects with facts()"
        )
    entities, edges = found
    edges.sort(key=lambda e: (e[2].subject, e[2].predicate, e[2].valid_from, e[2].id))
    return _build_graph(entities, edges, v, k)
