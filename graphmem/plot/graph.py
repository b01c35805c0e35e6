"""A small snapshot graph: entity names on nodes, predicates on edges, a legend of kinds."""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Any

from graphmem.errors import InvalidInput
from graphmem.plot._common import _PALETTE, _axes

#: Nodes above this are too many to label legibly; draw a neighborhood() instead.
MAX_GRAPH_NODES = 300


def _layout(G: Any, seed: int) -> dict[Any, tuple[float, float]]:
    """Lay out each connected component with a seeded spring layout and pack them in rows."""
    import networkx as nx  # type: ignore[import-untyped,unused-ignore]

    simple = nx.Graph()
    simple.add_nodes_from(G.nodes)
    simple.add_edges_from((u, v) for u, v in G.edges() if u != v)
    comps = sorted(
        (sorted(c, key=str) for c in nx.connected_components(simple)),
        key=lambda c: (-len(c), str(c[0])),
    )
    boxes = []  # (nodes' positions in [-r, r], r)
    for comp in comps:
        r = 0.6 * math.sqrt(len(comp))
        if len(comp) == 1:
            boxes.append(({comp[0]: (0.0, 0.0)}, 0.5))
            continue
        sub = simple.subgraph(comp)
        raw = nx.spring_layout(sub, seed=seed, k=1.8 / math.sqrt(len(comp)), scale=r)
        boxes.append(({n: (float(p[0]), float(p[1])) for n, p in raw.items()}, r))
    area = sum((2 * r) ** 2 for _, r in boxes)
    row_width = max(max(2 * r for _, r in boxes), 1.8 * math.sqrt(area))
    pos: dict[Any, tuple[float, float]] = {}
    x = y = row_height = 0.0
    gap = 0.6
    for placed, r in boxes:
        if x > 0 and x + 2 * r > row_width:
            x, y, row_height = 0.0, y - row_height - gap, 0.0
        for n, (px, py) in placed.items():
            pos[n] = (x + r + px, y - r + py)
        x += 2 * r + gap
        row_height = max(row_height, 2 * r)
    return pos


def graph(G: Any, *, ax: Any = None, seed: int = 7, title: str | None = None) -> Any:
    """Draw a small snapshot graph with entity names on nodes and predicates on edges.

    Parallel facts between two entities are drawn as separate arcs. Node colours follow the
    entity ``kind``, explained in a legend (``entity``: named in a fact; ``topic``: first seen
    as a session mention; other kinds come from ``define_entity``); the layout is seeded, so
    the same graph draws the same way.

    Args:
        G: a graph from :func:`graphmem.graphs.to_networkx` or ``neighborhood`` (any networkx
            graph works; labels fall back to node ids and edge keys).
        ax: a matplotlib ``Axes`` to draw in (default: a new figure).
        seed: the layout seed.
        title: the figure title.

    Returns:
        The matplotlib ``Figure``.

    Raises:
        ExtraUnavailable: matplotlib is not installed.
        InvalidInput: more than ``MAX_GRAPH_NODES`` nodes (draw a neighborhood instead).
    """
    if len(G) > MAX_GRAPH_NODES:
        raise InvalidInput(
            f"the graph has {len(G):,} nodes, too many to label; draw a smaller snapshot, "
            "e.g. mem.neighborhood(entity, hops=1)"
        )
    pos = _layout(G, seed) if len(G) else {}
    xs = [p[0] for p in pos.values()] or [0.0]
    ys = [p[1] for p in pos.values()] or [0.0]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    # The figure takes the layout's proportions, so the drawing fills it at equal aspect.
    ratio = (max(ys) - min(ys) + 0.4 * span) / (max(xs) - min(xs) + 0.3 * span)
    fig, ax = _axes(ax, 9, min(max(9 * ratio, 3.5), 7.5))
    from matplotlib.patches import FancyArrowPatch

    if title:
        ax.set_title(title, loc="left", fontsize=11)
    ax.set_axis_off()
    if len(G) == 0:
        ax.text(0.5, 0.5, "empty graph", ha="center", va="center", transform=ax.transAxes)
        return fig
    kinds = sorted({str(d.get("kind", "entity")) for _, d in G.nodes(data=True)})
    kind_colour = {kd: _PALETTE[i % len(_PALETTE)] for i, kd in enumerate(kinds)}
    multi = G.is_multigraph()
    edges = (
        list(G.edges(keys=True, data=True))
        if multi
        else [(u, v, None, d) for u, v, d in G.edges(data=True)]
    )
    groups: dict[frozenset[Any], list[tuple[Any, Any, Any, dict[str, Any]]]] = defaultdict(list)
    for e in edges:
        groups[frozenset((e[0], e[1]))].append(e)
    for group in groups.values():
        n = len(group)
        canonical = (group[0][0], group[0][1])
        for i, (u, v, key, data) in enumerate(group):
            label = str(data.get("predicate", key if key is not None else ""))
            (x1, y1), (x2, y2) = pos[u], pos[v]
            if u == v:  # a self-loop: a small labelled ring above the node
                r = 0.05 * span
                ax.add_patch(
                    FancyArrowPatch(
                        (x1 - r / 2, y1 + r / 3),
                        (x1 + r / 2, y1 + r / 3),
                        connectionstyle="arc3,rad=-1.6",
                        arrowstyle="-|>",
                        mutation_scale=10,
                        color="#777777",
                    )
                )
                ax.text(x1, y1 + r * 1.4 + i * 0.03 * span, label, ha="center", fontsize=7.5)
                continue
            rad = 0.0 if n == 1 else -0.25 + 0.5 * i / (n - 1)
            if (u, v) != canonical:
                rad = -rad
            ax.add_patch(
                FancyArrowPatch(
                    (x1, y1),
                    (x2, y2),
                    connectionstyle=f"arc3,rad={rad}",
                    arrowstyle="-|>",
                    mutation_scale=12,
                    shrinkA=14,
                    shrinkB=14,
                    color="#777777",
                    linewidth=1.1,
                )
            )
            # The middle of matplotlib's arc3 curve (a quadratic Bézier).
            mx, my = (x1 + x2) / 2 + rad * (y2 - y1) / 2, (y1 + y2) / 2 - rad * (x2 - x1) / 2
            ax.text(
                mx,
                my,
                label,
                ha="center",
                va="center",
                fontsize=7.5,
                color="#333333",
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.85},
                zorder=4,
            )
    for node, data in G.nodes(data=True):
        x, y = pos[node]
        ax.scatter(
            [x],
            [y],
            s=260,
            color=kind_colour[str(data.get("kind", "entity"))],
            zorder=3,
            edgecolors="white",
            linewidths=1.5,
        )
        ax.text(
            x,
            y - 0.045 * span,
            str(data.get("name", node)),
            ha="center",
            va="top",
            fontsize=9,
            zorder=5,
            bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.8},
        )
    # Equal aspect keeps arcs and their labels where the arc3 maths puts them; the data limits
    # (not fixed axis limits) leave matplotlib free to widen one axis to fit the box.
    pad = 0.15 * span
    ax.update_datalim([(min(xs) - pad, min(ys) - pad * 1.3), (max(xs) + pad, max(ys) + pad)])
    ax.set_aspect("equal", adjustable="datalim")
    ax.autoscale_view()
    from matplotlib.lines import Line2D

    ax.legend(
        handles=[
            Line2D([], [], marker="o", ms=8, linestyle="", color=kind_colour[kd], label=_kind(kd))
            for kd in kinds
        ],
        title="node colour = entity kind",
        title_fontsize=8,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncols=min(len(kinds), 3),
        fontsize=8,
        frameon=False,
    )
    return fig


#: What the kinds graphmem gives entities mean (others are set with ``define_entity``).
KIND_MEANINGS = {
    "entity": "first seen in a fact (the default)",
    "topic": "first seen as a session mention",
}


def _kind(kind: str) -> str:
    meaning = KIND_MEANINGS.get(kind)
    return f"{kind}: {meaning}" if meaning else f"{kind} (set by define_entity)"
