"""Pictures of a memory: fact timelines, topic hotness bands and small snapshot graphs.

Each function returns a ``matplotlib.figure.Figure`` (displayed inline by Jupyter; save it with
``fig.savefig("x.png")``). Figures are built without ``pyplot``, so nothing touches global state
or needs a display. matplotlib is imported on first use: ``pip install 'graphmem[notebooks]'``.

- :func:`timeline`: a subject's fact versions as bars over valid time; what was believed is
  coloured, versions closed in system time (superseded, corrected, retracted) are grey and
  hatched, open-ended facts run to the right edge with an arrow, and the points where a belief
  was revised are marked with the day it was learned.
- :func:`hotness`: topic scores as bars over the COLD / WARM / HOT bands.
- :func:`graph`: a small snapshot graph (from ``to_networkx`` or ``neighborhood``) with entity
  names on the nodes and predicates on the edges.
"""

from __future__ import annotations

import datetime as dt
import io
import math
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graphmem.errors import ExtraUnavailable, InvalidInput
from graphmem.timeutil import TimeLike, fmt, to_utc

if TYPE_CHECKING:
    from graphmem.hotness import TopicScore
    from graphmem.memory import Memory
    from graphmem.models import Fact

__all__ = ["graph", "hotness", "timeline"]

_PALETTE = ("#1f77b4", "#2ca02c", "#9467bd", "#d62728", "#ff7f0e", "#8c564b", "#e377c2")
_GREY = "#9a9a9a"
_BANDS = (  # (label, low, high, band colour, bar colour)
    ("COLD", 0.0, 0.3, "#e6f0fa", "#4a90c2"),
    ("WARM", 0.3, 0.6, "#fdf0dc", "#f0a030"),
    ("HOT", 0.6, 1.0, "#fbe3e0", "#d9453b"),
)
#: Nodes above this are too many to label legibly; draw a neighborhood() instead.
MAX_GRAPH_NODES = 300


def _matplotlib() -> Any:
    try:
        import matplotlib
        from matplotlib.figure import Figure  # noqa: F401 - checks the install is complete
    except ImportError as exc:
        raise ExtraUnavailable(
            "graphmem.plot needs matplotlib, which is not installed; run: "
            "pip install 'graphmem[notebooks]'"
        ) from exc
    return matplotlib


_FIGURE_CLASS: Any = None


def _figure(width: float, height: float) -> Any:
    """Return a new figure that Jupyter displays as a PNG, without pyplot or a backend."""
    global _FIGURE_CLASS
    _matplotlib()  # every time: the install may be gone (or hidden) since the class was made
    if _FIGURE_CLASS is None:
        from matplotlib.figure import Figure

        class NotebookFigure(Figure):
            """A matplotlib Figure that renders itself in Jupyter (IPython's ``_repr_png_``).

            IPython only knows how to show a plain Figure once pyplot's inline backend is
            active; graphmem never touches pyplot, so its figures carry their own PNG repr.
            """

            def _repr_png_(self) -> bytes:
                buf = io.BytesIO()
                self.savefig(buf, format="png", dpi=100, bbox_inches="tight")
                return buf.getvalue()

        _FIGURE_CLASS = NotebookFigure
    return _FIGURE_CLASS(figsize=(width, height), layout="constrained")


def _axes(ax: Any, width: float, height: float) -> tuple[Any, Any]:
    """Return ``(figure, axes)``: the given axes and their figure, or a new figure's axes."""
    if ax is None:
        fig = _figure(width, height)
        return fig, fig.add_subplot()
    _matplotlib()
    return ax.figure, ax


# -- timeline -------------------------------------------------------------------------------------


def _change_point(old: Fact, new: Fact) -> dt.datetime:
    """Where on the valid-time axis a revision of ``old`` into ``new`` shows."""
    if new.object == old.object:
        if new.valid_to != old.valid_to:
            ends = [t for t in (new.valid_to, old.valid_to) if t is not None]
            return min(ends)
        if new.valid_from != old.valid_from:
            return max(new.valid_from, old.valid_from)
    return max(old.valid_from, new.valid_from)


def timeline(
    mem: Memory,
    subject: str,
    predicate: str | None = None,
    known_at: TimeLike | None = None,
    *,
    ax: Any = None,
) -> Any:
    """Draw a subject's fact versions as bars over valid time.

    One row per (predicate, object). Versions believed at ``known_at`` are coloured bars
    (one colour per predicate); versions already closed in system time by then are thin grey
    hatched bars below them, with a marker where the revision applies and the day it was
    learned. Open-ended versions run to the right edge and end in an arrow. A dotted line marks
    ``known_at`` on the valid-time axis. Historic years (1490) work.

    Args:
        mem: the memory.
        subject: the subject's name.
        predicate: only this predicate (default: all of the subject's predicates).
        known_at: draw what was recorded by then (default now): later versions are left out,
            and versions closed after it count as believed.
        ax: a matplotlib ``Axes`` to draw in (default: a new figure).

    Returns:
        The matplotlib ``Figure``.

    Raises:
        ExtraUnavailable: matplotlib is not installed.
        InvalidInput: bad names or time.
    """
    k = mem.now() if known_at is None else to_utc(known_at, name="known_at")
    versions = [
        f for f in mem.history(subject, predicate, include_expired=True) if f.recorded_at <= k
    ]
    by_id = {f.id: f for f in versions}

    def believed(f: Fact) -> bool:
        return f.expired_at is None or f.expired_at > k

    lanes: dict[tuple[str, str], list[Fact]] = defaultdict(list)
    for f in versions:
        lanes[(f.predicate, f.object)].append(f)
    order = sorted(lanes, key=lambda key: (min(f.valid_from for f in lanes[key]), key))
    predicates = sorted({p for p, _ in order})
    colour = {p: _PALETTE[i % len(_PALETTE)] for i, p in enumerate(predicates)}

    fig, ax = _axes(ax, 10, min(1.6 + 0.5 * max(len(order), 1), 14))
    import matplotlib.dates
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    mdates: Any = matplotlib.dates  # partly untyped; used as a plain module
    name = versions[0].subject if versions else subject
    what = predicate or "all predicates"
    ax.set_title(f"{name} — {what}, as known on {fmt(k)}", loc="left", fontsize=11)
    if not versions:
        ax.text(0.5, 0.5, "no facts recorded", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig

    times = [f.valid_from for f in versions] + [f.valid_to for f in versions if f.valid_to]
    lo, latest = min(times), max(times)
    # Open-ended bars run on to known_at, unless it is far beyond the data (historic facts
    # seen from today): then a margin after the last date keeps the bars readable.
    reach = max(dt.timedelta(days=4018), (latest - lo) / 2)
    hi = max(latest, min(k, latest + reach))
    pad = max((hi - lo) * 0.04, dt.timedelta(days=30))
    left, right = lo - pad, hi + pad
    x0 = mdates.date2num(left)
    x_end = mdates.date2num(right)
    points: list[tuple[float, float, str]] = []

    for row, key in enumerate(order):
        y = len(order) - 1 - row
        for f in sorted(lanes[key], key=lambda v: (v.recorded_at, v.valid_from)):
            start = mdates.date2num(f.valid_from)
            end = x_end if f.valid_to is None else mdates.date2num(f.valid_to)
            if believed(f):
                ax.barh(y + 0.1, end - start, left=start, height=0.45, color=colour[f.predicate])
                if f.valid_to is None:
                    ax.plot(x_end, y + 0.1, marker=">", ms=9, color=colour[f.predicate])
            else:
                ax.barh(
                    y - 0.27,
                    end - start,
                    left=start,
                    height=0.18,
                    color="#e4e4e4",
                    edgecolor=_GREY,
                    hatch="////",
                    linewidth=0.6,
                )
                if f.valid_to is None:
                    ax.plot(x_end, y - 0.27, marker=">", ms=6, color=_GREY)
                successor = by_id.get(f.superseded_by or "")
                at = f.valid_to if successor is None else _change_point(f, successor)
                if at is not None and f.expired_at is not None:
                    label = f"learned {fmt(f.expired_at)}"
                    points.append((mdates.date2num(at), y - 0.27, label))

    width = x_end - x0
    last_label: dict[float, float] = {}
    for px, py, label in sorted(points):
        ax.plot(px, py, marker="X", ms=8, color="#333333", markeredgecolor="white", zorder=5)
        if len(points) > 16:
            continue  # too many to label legibly; the legend explains the markers
        # Labels sit under the closed bar; one too close to its lane neighbour goes above it,
        # and labels near the right edge extend to the left.
        crowded = px - last_label.get(py, -math.inf) < 0.12 * width
        last_label[py] = -math.inf if crowded else px
        at_right = px > x0 + 0.8 * width
        ax.annotate(
            label,
            (px, py),
            xytext=(-4 if at_right else 4, 6 if crowded else -9),
            textcoords="offset points",
            ha="right" if at_right else "left",
            fontsize=7.5,
            color="#444444",
            zorder=6,
        )
    if left <= k <= right:
        ax.axvline(mdates.date2num(k), color="#555555", linestyle=":", linewidth=1)
        ax.annotate(
            f"known at {fmt(k)}",
            (mdates.date2num(k), 0.0),
            xycoords=("data", "axes fraction"),
            xytext=(-3, 4),
            textcoords="offset points",
            ha="right",
            fontsize=7.5,
            color="#555555",
        )

    labels = [f"{p}: {o}" if len(predicates) > 1 else o for p, o in order]
    ax.set_yticks(range(len(order) - 1, -1, -1), labels=labels)
    ax.set_ylim(-0.7, len(order) - 0.4)
    ax.set_xlim(x0, x_end + (x_end - x0) * 0.01)
    ax.xaxis_date()
    locator = mdates.AutoDateLocator(minticks=4, maxticks=10)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    ax.set_xlabel("valid time (when it was true in the world)")
    ax.grid(axis="x", color="#eeeeee")
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    handles: list[Any] = [Patch(color=colour[p], label=f"believed: {p}") for p in predicates]
    if any(not believed(f) for f in versions):
        handles.append(
            Patch(facecolor="#e4e4e4", edgecolor=_GREY, hatch="////", label="closed (superseded)")
        )
    if points:
        handles.append(
            Line2D([], [], marker="X", color="#333333", linestyle="", label="belief revised")
        )
    if any(f.valid_to is None for f in versions):
        handles.append(Line2D([], [], marker=">", color=_GREY, linestyle="", label="open-ended"))
    ax.legend(
        handles=handles,
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        fontsize=8,
        frameon=False,
    )
    return fig


# -- hotness --------------------------------------------------------------------------------------


def hotness(scores: Sequence[TopicScore], *, ax: Any = None, title: str | None = None) -> Any:
    """Draw topic hotness scores as bars over the COLD, WARM and HOT bands.

    Args:
        scores: :class:`~graphmem.hotness.TopicScore` items (e.g. ``mem.hot_topics()``),
            drawn in the given order from the top.
        ax: a matplotlib ``Axes`` to draw in (default: a new figure).
        title: the figure title (default "Topic hotness").

    Returns:
        The matplotlib ``Figure``.

    Raises:
        ExtraUnavailable: matplotlib is not installed.
    """
    scores = list(scores)
    fig, ax = _axes(ax, 8, min(1.5 + 0.38 * max(len(scores), 1), 14))
    ax.set_title(title or "Topic hotness", loc="left", fontsize=11, pad=18)
    for label, lo, hi, band, _ in _BANDS:
        ax.axvspan(lo, hi, color=band, zorder=0)
        ax.text(
            (lo + hi) / 2,
            1.0,
            label,
            transform=ax.get_xaxis_transform(),
            ha="center",
            va="bottom",
            fontsize=9,
            fontweight="bold",
            color=[c for n, _, _, _, c in _BANDS if n == label][0],
        )
    if not scores:
        ax.text(0.5, 0.5, "no topics", ha="center", va="center", transform=ax.transAxes)
    bar_colour = {label: c for label, _, _, _, c in _BANDS}
    n = len(scores)
    for i, s in enumerate(scores):
        y = n - 1 - i
        ax.barh(y, s.score, height=0.6, color=bar_colour[str(s.band)], zorder=2)
        hits = f"{s.hits} session{'s' if s.hits != 1 else ''}"
        text = f"{s.score:.2f} · {hits} · {s.age_days:.0f} d ago"
        inside = s.score > 0.62
        ax.text(
            s.score - 0.01 if inside else s.score + 0.01,
            y,
            text,
            ha="right" if inside else "left",
            va="center",
            fontsize=8,
            color="white" if inside else "#333333",
            zorder=3,
        )
    ax.set_yticks(range(n - 1, -1, -1), labels=[s.topic for s in scores])
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.6, max(n, 1) - 0.4)
    ax.set_xlabel("hotness = 0.6 · engagement + 0.4 · recency")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig


# -- graph ----------------------------------------------------------------------------------------


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
    entity ``kind``; the layout is seeded, so the same graph draws the same way.

    Args:
        G: a graph from :func:`graphmem.export.to_networkx` or ``neighborhood`` (any networkx
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
    if len(kinds) > 1:
        from matplotlib.lines import Line2D

        ax.legend(
            handles=[
                Line2D([], [], marker="o", linestyle="", color=kind_colour[kd], label=kd)
                for kd in kinds
            ],
            loc="lower right",
            fontsize=8,
            frameon=False,
        )
    return fig
