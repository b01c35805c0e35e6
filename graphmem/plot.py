"""Pictures of a memory: the bitemporal diagram, fact timelines, topic hotness, snapshot graphs.

Each function returns a ``matplotlib.figure.Figure`` (displayed inline by Jupyter; save it with
``fig.savefig("x.png")``). Figures are built without ``pyplot``, so nothing touches global state
or needs a display. matplotlib is imported on first use: ``pip install 'graphmem[notebooks]'``.

- :func:`bitemporal`: the classic bitemporal diagram (as XTDB and SQL:2011 texts draw it):
  valid time across, system time up; every stored version is a rectangle
  ``[valid_from, valid_to) × [recorded_at, expired_at)`` labelled with its object. Current
  versions are solid, closed ones light and hatched, open ends fade out at the axis edge, and a
  ``known_at`` / ``valid_at`` line shows (and outlines) the versions that query returns.
- :func:`timeline`: a subject's fact versions as bars over valid time; what was believed is
  coloured, versions closed in system time (superseded, corrected, retracted) are grey and
  hatched, open-ended bars fade out at the right edge, and the points where a belief was
  revised are marked with the day it was learned.
- :func:`hotness`: topic scores as bars over the COLD / WARM / HOT bands.
- :func:`graph`: a small snapshot graph (from ``to_networkx`` or ``neighborhood``) with entity
  names on the nodes, predicates on the edges and a legend of the node kinds.

Labels never overlap: they are placed when the figure is drawn (so at its final size), inside
their rectangle when they fit, else next to it; ``label:<fact id>`` is each label's ``gid`` and
``version:<fact id>`` each rectangle's, for tests and tooling.
"""

from __future__ import annotations

import datetime as dt
import io
import math
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from graphmem.errors import ExtraUnavailable, InvalidInput
from graphmem.timeutil import TimeLike, fmt, to_utc

if TYPE_CHECKING:
    from graphmem.hotness import TopicScore
    from graphmem.memory import Memory
    from graphmem.models import Fact

__all__ = ["bitemporal", "graph", "hotness", "timeline"]

_PALETTE = (
    "#1f77b4",
    "#2ca02c",
    "#9467bd",
    "#d62728",
    "#ff7f0e",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#bcbd22",
    "#7f7f7f",
)
_GREY = "#9a9a9a"
_BANDS = (  # (label, low, high, band colour, bar colour)
    ("COLD", 0.0, 0.3, "#e6f0fa", "#4a90c2"),
    ("WARM", 0.3, 0.6, "#fdf0dc", "#f0a030"),
    ("HOT", 0.6, 1.0, "#fbe3e0", "#d9453b"),
)
#: Nodes above this are too many to label legibly; draw a neighborhood() instead.
MAX_GRAPH_NODES = 300
# matplotlib's date numbers (days since 1970) of 0001-01-01 and 9999-12-31: axis limits past
# them fail when the ticks are formatted, so every limit is clamped into this range.
_DAY_MIN, _DAY_MAX = -719162.0, 2932896.0
_LABEL_CHARS = 32


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


_CLASSES: dict[str, Any] = {}


def _figure_class() -> Any:
    cls = _CLASSES.get("figure")
    if cls is None:
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

        cls = _CLASSES["figure"] = NotebookFigure
    return cls


def _figure(width: float, height: float) -> Any:
    """Return a new figure that Jupyter displays as a PNG, without pyplot or a backend."""
    _matplotlib()  # every time: the install may be gone (or hidden) since the class was made
    return _figure_class()(figsize=(width, height), layout="constrained")


def _axes(ax: Any, width: float, height: float) -> tuple[Any, Any]:
    """Return ``(figure, axes)``: the given axes and their figure, or a new figure's axes."""
    if ax is None:
        fig = _figure(width, height)
        return fig, fig.add_subplot()
    _matplotlib()
    return ax.figure, ax


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 1] + "…"


def _day(t: dt.datetime) -> float:
    """Return a time as a matplotlib date number (any year from 1 to 9999)."""
    import matplotlib.dates

    mdates: Any = matplotlib.dates
    return float(mdates.date2num(t))


def _clamp(x: float) -> float:
    return min(max(x, _DAY_MIN), _DAY_MAX)


def _date_axis(axis: Any, *, cap: float = math.inf) -> None:
    """Put dates on an axis, with no tick after ``cap`` (system time has no future)."""
    import matplotlib.dates

    mdates: Any = matplotlib.dates  # partly untyped; used as a plain module
    cls = _CLASSES.get("locator")
    if cls is None:

        class CappedLocator(mdates.AutoDateLocator):  # type: ignore[misc]
            cap = math.inf

            def __call__(self) -> list[float]:
                return [t for t in super().__call__() if t <= self.cap]

        cls = _CLASSES["locator"] = CappedLocator
    axis.axis_date()
    locator = cls(minticks=3, maxticks=8)
    locator.cap = cap
    axis.set_major_locator(locator)
    if axis.axis_name == "x":
        axis.set_major_formatter(mdates.ConciseDateFormatter(locator))
    else:  # a y offset ("2026-Jun") would sit under the title: full dates on the ticks instead
        formats = ["%Y", "%Y-%m", "%Y-%m-%d"] + ["%Y-%m-%d %H:%M"] * 2 + ["%Y-%m-%d %H:%M:%S"]
        axis.set_major_formatter(
            mdates.ConciseDateFormatter(
                locator, formats=formats, zero_formats=formats, show_offset=False
            )
        )


def _fade(ax: Any, x0: float, x1: float, y0: float, y1: float, *, across: bool) -> None:
    """Fade everything drawn in the box out towards its far edge (right, or top if not across).

    A white image from transparent to opaque lies over the open ends of bars and rectangles:
    the reader sees them dissolve instead of stopping at the axis edge.
    """
    import numpy as np

    ramp = np.linspace(0.0, 0.92, 64) ** 1.3
    rgba = np.ones((1, 64, 4)) if across else np.ones((64, 1, 4))
    if across:
        rgba[0, :, 3] = ramp
    else:
        rgba[:, 0, 3] = ramp
    ax.imshow(
        rgba,
        extent=(x0, x1, y0, y1),
        origin="lower",
        aspect="auto",
        interpolation="bilinear",
        zorder=4,
    )


# -- label placement ------------------------------------------------------------------------------


def _placer(ax: Any) -> Any:
    """Return the axes' label placer (an artist that places labels when the axes are drawn)."""
    cls = _CLASSES.get("placer")
    if cls is None:
        from matplotlib.artist import Artist
        from matplotlib.lines import Line2D
        from matplotlib.transforms import Bbox, IdentityTransform

        class LabelPlacer(Artist):
            """Places text labels next to their anchors, without overlaps, at draw time.

            Each label has an anchor box (a rectangle or a point, in data coordinates). It goes
            inside its box when it fits, else beside it, nearest first; a label set off from
            its anchor gets a thin leader line. The placer draws before the labels (lowest
            zorder), so they are drawn where it put them, at the figure's final size.
            """

            def __init__(self, axes: Any) -> None:
                super().__init__()
                self.axes = axes
                self.host: Any = axes
                self.set_zorder(-100)
                self.labels: list[tuple[Any, tuple[float, float, float, float], bool, int]] = []
                self.obstacles: list[tuple[float, float, float, float]] = []
                self.leaders: list[Any] = []

            def add(
                self,
                text: Any,
                box: tuple[float, float, float, float],
                *,
                inside: bool,
                own: int = -1,
            ) -> None:
                """Place ``text`` at ``box`` (x0, x1, y0, y1 in data units), inside if allowed.

                ``own`` is the index of the label's own obstacle (which it may cover).
                """
                text.set_in_layout(False)
                self.labels.append((text, box, inside, own))

            def _display(self, box: tuple[float, float, float, float]) -> Any:
                x0, x1, y0, y1 = box
                (a, b), (c, d) = self.host.transData.transform([(x0, y0), (x1, y1)])
                return Bbox.from_extents(min(a, c), min(b, d), max(a, c), max(b, d))

            def _candidates(
                self, box: Any, inside: bool, w: float, h: float
            ) -> Iterator[tuple[float, float, str, str, float, bool]]:
                """Yield (x, y, ha, va, rotation, needs_leader) in display pixels."""
                clip = Bbox.intersection(box, self.host.bbox) or box
                cx, cy = (clip.x0 + clip.x1) / 2, (clip.y0 + clip.y1) / 2
                if inside and w + 6 <= clip.width and h + 4 <= clip.height:
                    yield cx, cy, "center", "center", 0.0, False
                if inside and h + 4 <= clip.width and w + 6 <= clip.height:
                    yield cx, cy, "center", "center", 90.0, False
                if inside and w + 6 <= clip.width and h + 4 <= clip.height:
                    for fy in (0.25, 0.75, 0.1, 0.9):
                        yield cx, clip.y0 + fy * clip.height, "center", "center", 0.0, False
                for gap in (2.0, 12.0, 26.0, 44.0):
                    lead = gap > 2.0
                    for fx in (0.0, 0.5, 0.25, 0.75):
                        x = clip.x0 + 3 + fx * max(clip.width - 6, 0)
                        yield x, clip.y1 + gap, "left" if fx == 0 else "center", "bottom", 0, lead
                        yield x, clip.y0 - gap, "left" if fx == 0 else "center", "top", 0, lead
                    yield clip.x1 + gap + 1, cy, "left", "center", 0.0, lead
                    yield clip.x0 - gap - 1, cy, "right", "center", 0.0, lead
                    yield clip.x1 + gap, clip.y0 + 2, "left", "bottom", 90.0, lead
                    yield clip.x0 - gap, clip.y0 + 2, "right", "bottom", 90.0, lead

            def draw(self, renderer: Any) -> None:
                if not self.get_visible():
                    return
                inv = self.host.transData.inverted()
                frame = self.host.bbox
                placed: list[Any] = []
                boxes = [self._display(b) for b in self.obstacles]
                self.leaders = []
                # Labels that fit in their own box first, then the smallest boxes first.
                order = sorted(
                    self.labels,
                    key=lambda item: (
                        not item[2],
                        self._display(item[1]).width * self._display(item[1]).height,
                    ),
                )
                for text, box, inside, own in order:
                    text.set_visible(True)
                    anchor = self._display(box)
                    text.set_rotation(0)
                    text.set_position(inv.transform((anchor.x0, anchor.y0)))
                    base = text.get_window_extent(renderer)
                    best: tuple[float, tuple[Any, ...]] | None = None
                    for x, y, ha, va, rot, lead in self._candidates(
                        anchor, inside, base.width, base.height
                    ):
                        text.set_position(inv.transform((x, y)))
                        text.set_ha(ha)
                        text.set_va(va)
                        text.set_rotation(rot)
                        bb = text.get_window_extent(renderer).expanded(1.0, 1.0).padded(1.5)
                        if not frame.contains(bb.x0, bb.y0) or not frame.contains(bb.x1, bb.y1):
                            continue
                        if any(bb.overlaps(p) for p in placed):
                            continue
                        within = anchor.contains(bb.x0, bb.y0) and anchor.contains(bb.x1, bb.y1)
                        # Inside its own box a label is free: it is read as that box's name.
                        cost = (
                            0.0
                            if inside and within
                            else sum(
                                _area(Bbox.intersection(bb, o))
                                for i, o in enumerate(boxes)
                                if i != own
                            )
                        )
                        if best is None or cost < best[0]:
                            best = (cost, (x, y, ha, va, rot, lead, bb))
                        if cost == 0:
                            break
                    if best is None:  # nowhere free: leave it out rather than overprint
                        text.set_visible(False)
                        continue
                    x, y, ha, va, rot, lead, bb = best[1]
                    text.set_position(inv.transform((x, y)))
                    text.set_ha(ha)
                    text.set_va(va)
                    text.set_rotation(rot)
                    placed.append(bb)
                    if lead:
                        near = (
                            min(max(x, anchor.x0), anchor.x1),
                            min(max(y, anchor.y0), anchor.y1),
                        )
                        end = (min(max(near[0], bb.x0), bb.x1), min(max(near[1], bb.y0), bb.y1))
                        line = Line2D(
                            [near[0], end[0]],
                            [near[1], end[1]],
                            color="#888888",
                            linewidth=0.6,
                            transform=IdentityTransform(),  # display pixels, as placed
                        )
                        line.set_figure(self.host.figure)
                        line.draw(renderer)
                        self.leaders.append(line)

        cls = _CLASSES["placer"] = LabelPlacer
    for artist in ax.artists:
        if isinstance(artist, cls):
            return artist
    placer = cls(ax)
    ax.add_artist(placer)
    return placer


def _area(b: Any) -> float:
    return 0.0 if b is None else float(b.width * b.height)


def _label(ax: Any, text: str, *, colour: Any = "#333333", gid: str | None = None) -> Any:
    """Return a small label text, positioned later by the axes' placer."""
    return ax.text(
        0.0,
        0.0,
        text,
        fontsize=7.5,
        color=colour,
        gid=gid,
        zorder=7,
        bbox={"boxstyle": "round,pad=0.12", "fc": "white", "ec": "none", "alpha": 0.75},
    )


def _darker(colour: str, by: float = 0.35) -> tuple[float, float, float]:
    from matplotlib.colors import to_rgb

    r, g, b = to_rgb(colour)
    return (r * (1 - by), g * (1 - by), b * (1 - by))


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


def _sub_rows(bars: list[tuple[float, float]]) -> list[int]:
    """Give each closed bar a sub-row so that bars overlapping in valid time do not share one."""
    ends: list[float] = []
    rows = []
    for start, end in bars:
        for i, last in enumerate(ends):
            if start >= last:
                ends[i] = end
                rows.append(i)
                break
        else:
            ends.append(end)
            rows.append(len(ends) - 1)
    return rows


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
    hatched bars below them (one line each where they overlap), with a ✖ where the revision
    applies and the day it was learned. Open-ended bars fade out at the right edge. A row whose
    versions are all closed says "(no current value)". A dotted line marks ``known_at`` on the
    valid-time axis. Historic years (1490) work.

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

    # Row geometry, top to bottom: the believed bar, then one thin line per overlapping
    # closed bar.
    closed_rows: dict[tuple[str, str], list[tuple[Fact, int]]] = {}
    heights = []
    for key in order:
        closed = sorted(
            (f for f in lanes[key] if not believed(f)), key=lambda v: (v.valid_from, v.recorded_at)
        )
        subs = _sub_rows(
            [(_day(f.valid_from), _day(f.valid_to) if f.valid_to else math.inf) for f in closed]
        )
        closed_rows[key] = list(zip(closed, subs, strict=True))
        heights.append(0.75 + 0.24 * max(max(subs, default=-1) + 1, 1))
    fig, ax = _axes(ax, 10, min(1.8 + 0.5 * sum(heights), 14))
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    name = versions[0].subject if versions else subject
    what = predicate or "all predicates"
    ax.set_title(f"{name} — {what}, as known on {fmt(k)}", loc="left", fontsize=11)
    if not versions:
        ax.text(0.5, 0.5, "no facts recorded", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig

    times = [_day(f.valid_from) for f in versions] + [
        _day(f.valid_to) for f in versions if f.valid_to
    ]
    lo, latest = min(times), max(times)
    # Open-ended bars run on to known_at, unless it is far beyond the data (historic facts
    # seen from today): then a margin after the last date keeps the bars readable.
    reach = max(4018.0, (latest - lo) / 2)
    hi = max(latest, min(_day(k), latest + reach))
    pad = max((hi - lo) * 0.04, 30.0)
    x0, fade_at = _clamp(lo - pad), _clamp(hi + pad)
    x_end = _clamp(fade_at + max((hi - lo) * 0.1, 60.0))
    tail = (x_end - x0) * 0.07
    placer = _placer(ax)
    points: list[tuple[float, float, str]] = []
    ticks: list[float] = []
    labels: list[str] = []
    top = sum(heights)
    y_row = top
    for key, height in zip(order, heights, strict=True):
        y_row -= height
        y = y_row + height - 0.35  # the believed bar's centre
        ticks.append(y)
        current = [f for f in lanes[key] if believed(f)]
        label = f"{key[0]}: {key[1]}" if len(predicates) > 1 else key[1]
        if not current:
            label += "\n(no current value)" if known_at is None else "\n(not believed then)"
        labels.append(label)
        for f in current:
            start = _day(f.valid_from)
            end = x_end if f.valid_to is None else _day(f.valid_to)
            bar = ax.barh(y, end - start, left=start, height=0.42, color=colour[f.predicate])
            bar[0].set_gid(f"version:{f.id}")
            placer.obstacles.append((start, end, y - 0.21, y + 0.21))
        for f, sub in closed_rows[key]:
            yc = y - 0.36 - 0.24 * sub
            start = _day(f.valid_from)
            end = x_end if f.valid_to is None else _day(f.valid_to)
            successor = by_id.get(f.superseded_by or "")
            at = f.valid_to if successor is None else _change_point(f, successor)
            if f.valid_to is None and at is not None:
                # A closed open-ended bar fades out soon after its revision instead of
                # running hatched to the edge: what matters is where it was revised.
                end = min(x_end, max(_day(at), start) + tail)
                _fade(ax, end - tail * 0.8, end, yc - 0.09, yc + 0.09, across=True)
            bar = ax.barh(
                yc,
                end - start,
                left=start,
                height=0.16,
                color="#e4e4e4",
                edgecolor=_GREY,
                hatch="////",
                linewidth=0.6,
            )
            bar[0].set_gid(f"version:{f.id}")
            placer.obstacles.append((start, end, yc - 0.08, yc + 0.08))
            if at is not None and f.expired_at is not None:
                points.append((_day(at), yc, f"learned {fmt(f.expired_at)}"))

    for px, py, text in sorted(points):
        ax.plot(px, py, marker="X", ms=8, color="#333333", markeredgecolor="white", zorder=5)
        if len(points) <= 16:  # more are too many to label legibly; the legend explains them
            placer.add(_label(ax, text, colour="#444444"), (px, px, py, py), inside=False)
    if x0 <= _day(k) <= x_end:
        ax.axvline(_day(k), color="#555555", linestyle=":", linewidth=1)
        placer.add(
            _label(ax, f"known at {fmt(k)}", colour="#555555"),
            (_day(k), _day(k), -0.05, -0.05),
            inside=False,
        )
    if any(f.valid_to is None for f in versions):
        _fade(ax, fade_at, x_end, -0.3, top, across=True)

    ax.set_yticks(ticks, labels=labels)
    ax.set_ylim(-0.3, top)
    ax.set_xlim(x0, x_end)
    _date_axis(ax.xaxis)
    ax.set_xlabel("valid time (when it was true in the world)")
    ax.grid(axis="x", color="#eeeeee")
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    when = "now" if known_at is None else f"on {fmt(k)}"
    handles: list[Any] = [
        Patch(
            color=colour[p],
            label=f"current (believed {when}): {p}"
            if len(predicates) > 1
            else f"current (believed {when})",
        )
        for p in predicates
    ]
    if any(not believed(f) for f in versions):
        handles.append(
            Patch(
                facecolor="#e4e4e4",
                edgecolor=_GREY,
                hatch="////",
                label="closed (superseded or corrected)",
            )
        )
    if points:
        handles.append(
            Line2D([], [], marker="X", color="#333333", linestyle="", label="revised (day learned)")
        )
    if any(f.valid_to is None for f in versions):
        handles.append(Patch(color=colour[predicates[0]], alpha=0.3, label="open end (fades out)"))
    ax.legend(
        handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False
    )
    return fig


# -- bitemporal -----------------------------------------------------------------------------------


def _answer(hits: list[Fact], k: dt.datetime | None, v: dt.datetime | None) -> str:
    objects = ", ".join(dict.fromkeys(_short(f.object) for f in hits)) or "nothing"
    if k is not None and v is not None:
        return f"facts(valid_at={fmt(v)}, known_at={fmt(k)}) → {objects}"
    if k is not None:
        return f"known at {fmt(k)}: {objects}"
    assert v is not None
    n = len(hits)
    return f"valid at {fmt(v)}: {n} version{'s' if n != 1 else ''} over system time ({objects})"


def _limits(
    versions: list[Fact], now: dt.datetime, k: dt.datetime | None, v: dt.datetime | None
) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Return ``(low, last data, edge)`` for valid time and for system time.

    Open ends run from the last data value to the edge, where they fade out.
    """
    xs = [_day(f.valid_from) for f in versions] + [_day(f.valid_to) for f in versions if f.valid_to]
    ys = [_day(f.recorded_at) for f in versions] + [
        _day(f.expired_at) for f in versions if f.expired_at
    ]
    ys.append(_day(now))
    if v is not None:
        xs.append(_day(v))
    if k is not None:
        ys.append(_day(k))

    def limits(values: list[float], least: float, fade: float) -> tuple[float, float, float]:
        lo, hi = min(values), max(values)
        span = max(hi - lo, least)
        return _clamp(lo - 0.03 * span), hi, _clamp(hi + fade * span)

    # System time ends now: the room above it shows the current versions (recorded up to now)
    # as tall enough to see, even when everything was recorded at one instant (least: 1 day).
    return limits(xs, 30.0, 0.14), limits(ys, 1.0, 0.2)


def _bitemporal_panel(
    ax: Any,
    versions: list[Fact],
    *,
    now: dt.datetime,
    k: dt.datetime | None,
    v: dt.datetime | None,
    limits: tuple[tuple[float, float, float], tuple[float, float, float]],
) -> None:
    from matplotlib.colors import to_rgba
    from matplotlib.patches import Rectangle

    (left, x_hi, right), (bottom, y_hi, top) = limits
    placer = _placer(ax)
    objects = list(dict.fromkeys(f.object for f in versions))
    colour = {o: _PALETTE[i % len(_PALETTE)] for i, o in enumerate(objects)}
    query = k is not None or v is not None

    def returned(f: Fact) -> bool:
        return query and (k is None or f.known_at(k)) and (v is None or f.valid_at(v))

    hits = [f for f in versions if returned(f)]
    # Closed versions first, so current ones (and the query's answer) are drawn on top.
    for f in sorted(versions, key=lambda f: (f.expired_at is None, returned(f))):
        x0, y0 = _day(f.valid_from), _day(f.recorded_at)
        x1 = right if f.valid_to is None else _day(f.valid_to)
        y1 = top if f.expired_at is None else _day(f.expired_at)
        c = colour[f.object]
        current = f.expired_at is None
        hit = returned(f)
        # Current versions are solid; closed ones a light wash, hatched in the object's colour.
        ax.add_patch(
            Rectangle(
                (x0, y0),
                x1 - x0,
                y1 - y0,
                facecolor=to_rgba(c, 0.55 if current else 0.13),
                edgecolor="black" if hit else _darker(c),
                linewidth=2.2 if hit else (1.1 if current else 0.8),
                linestyle="-" if current or hit else (0, (3, 2)),
                hatch=None if current else "////",
                gid=f"version:{f.id}",
                zorder=5 if hit else (3 if current else 2),
            )
        )
        placer.obstacles.append((x0, x1, y0, y1))
        text = _label(ax, _short(f.object), colour=_darker(c, 0.45), gid=f"label:{f.id}")
        if hit:
            text.set_fontweight("bold")
        placer.add(text, (x0, x1, y0, y1), inside=True, own=len(placer.obstacles) - 1)

    ax.axhline(_day(now), color="#777777", linestyle="--", linewidth=0.8, zorder=6)
    placer.add(
        _label(ax, f"now ({fmt(now)})", colour="#555555"),
        (left, left, _day(now), _day(now)),
        inside=False,
    )
    red = "#c0392b"
    if k is not None:
        ax.axhline(_day(k), color=red, linewidth=1.3, zorder=6)
        placer.add(
            _label(ax, f"known_at {fmt(k)}", colour=red),
            (left, left, _day(k), _day(k)),
            inside=False,
        )
    if v is not None:
        ax.axvline(_day(v), color=red, linewidth=1.3, linestyle="-.", zorder=6)
        placer.add(
            _label(ax, f"valid_at {fmt(v)}", colour=red),
            (_day(v), _day(v), bottom, bottom),
            inside=False,
        )
    if k is not None and v is not None:
        ax.plot(_day(v), _day(k), marker="o", ms=7, color=red, markeredgecolor="white", zorder=8)
    if any(f.valid_to is None for f in versions) and right > x_hi:
        _fade(ax, x_hi, right, bottom, top, across=True)
        placer.add(
            _label(ax, "open: no end yet →", colour="#777777"),
            (x_hi, right, bottom, y_hi),
            inside=True,
        )
    if top > y_hi:  # every current version runs up into it
        _fade(ax, left, right, y_hi + 0.4 * (top - y_hi), top, across=False)
    title = versions[0].predicate
    if query:
        title += "\n" + _answer(hits, k, v)
    ax.set_title(title, loc="left", fontsize=10)
    ax.set_xlim(left, right)
    ax.set_ylim(bottom, top)
    _date_axis(ax.xaxis)
    _date_axis(ax.yaxis, cap=y_hi)
    ax.set_xlabel("valid time: when it was true in the world →", fontsize=8.5)
    ax.set_ylabel("system time: when it was known ↑", fontsize=8.5)
    ax.tick_params(labelsize=8)
    ax.grid(color="#f0f0f0")
    ax.set_axisbelow(True)


def bitemporal(
    mem: Memory,
    subject: str,
    predicate: str | None = None,
    *,
    ax: Any = None,
    known_at: TimeLike | None = None,
    valid_at: TimeLike | None = None,
) -> Any:
    """Draw the bitemporal diagram of a subject: valid time across, system time up.

    Every stored version (``history(..., include_expired=True)``) is a rectangle
    ``[valid_from, valid_to) × [recorded_at, expired_at)`` labelled with its object, one
    colour per object. Current versions (not closed in system time) are solid; closed ones
    (superseded, corrected, retracted) are a light hatched wash with a dashed edge. Open ends
    (no ``valid_to`` yet, or still believed) run to the axis edge and fade out there; a dashed
    line marks now. A horizontal line at ``known_at`` and/or a vertical line at ``valid_at``
    shows a query: the versions it returns are outlined in black and named in the panel
    title (with both, that is ``mem.facts(valid_at=, known_at=)``, the point where the lines
    cross). Any year from 1 to 9999 works.

    Args:
        mem: the memory.
        subject: the subject's name.
        predicate: only this predicate (default: one panel per predicate).
        ax: a matplotlib ``Axes`` to draw one predicate in (default: a new figure).
        known_at: draw the system-time line of this query.
        valid_at: draw the valid-time line of this query.

    Returns:
        The matplotlib ``Figure``.

    Raises:
        ExtraUnavailable: matplotlib is not installed.
        InvalidInput: bad names or times, or ``ax`` with several predicates to draw.
    """
    k = None if known_at is None else to_utc(known_at, name="known_at")
    v = None if valid_at is None else to_utc(valid_at, name="valid_at")
    versions = mem.history(subject, predicate, include_expired=True)
    now = mem.now()
    predicates = list(dict.fromkeys(f.predicate for f in versions))
    if ax is not None and len(predicates) > 1:
        raise InvalidInput(
            f"{subject!r} has {len(predicates)} predicates ({', '.join(sorted(predicates))}) "
            "and ax= holds one panel; pass predicate=, or leave ax=None for one panel each"
        )
    name = versions[0].subject if versions else subject
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    if ax is None:
        heights = [
            max(2.4, min(6.0, 1.6 + 0.3 * sum(f.predicate == p for f in versions)))
            for p in predicates
        ] or [2.0]
        fig = _figure(10, sum(heights) + 1.2)
        axes = list(
            fig.subplots(len(heights), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[
                :, 0
            ]
        )
        fig.suptitle(
            f"{name}: what was true (valid time) × when it was known (system time)",
            x=0.01,
            ha="left",
            fontsize=11,
        )
    else:
        fig, axes = ax.figure, [ax]
        _matplotlib()
    if not versions:
        axes[0].text(
            0.5, 0.5, "no facts recorded", ha="center", va="center", transform=axes[0].transAxes
        )
        axes[0].set_axis_off()
        return fig
    # One valid-time and one system-time range for all panels: they line up, and a predicate
    # with one version (born_in) still shows on the scale of the subject's life.
    limits = _limits(versions, now, k, v)
    for a, p in zip(axes, predicates, strict=True):
        panel = [f for f in versions if f.predicate == p]
        _bitemporal_panel(a, panel, now=now, k=k, v=v, limits=limits)
    grey = "#888888"
    handles: list[Any] = [
        Patch(facecolor=(0.45, 0.45, 0.45, 0.55), edgecolor="#444444", label="current version"),
        Patch(
            facecolor=(0.45, 0.45, 0.45, 0.13),
            edgecolor="#666666",
            hatch="////",
            linestyle=(0, (3, 2)),
            label="closed version (superseded or corrected)",
        ),
        Patch(facecolor=(0.45, 0.45, 0.45, 0.2), edgecolor="none", label="open end (fades out)"),
        Line2D([], [], color=grey, linestyle="--", linewidth=0.8, label="now"),
    ]
    if k is not None:
        handles.append(Line2D([], [], color="#c0392b", linewidth=1.3, label="known_at"))
    if v is not None:
        handles.append(
            Line2D([], [], color="#c0392b", linewidth=1.3, linestyle="-.", label="valid_at")
        )
    if k is not None or v is not None:
        handles.append(
            Patch(facecolor="none", edgecolor="black", linewidth=2, label="returned by the query")
        )
    if ax is None:
        fig.legend(handles=handles, loc="outside lower center", ncols=4, fontsize=8, frameon=False)
    else:
        ax.legend(
            handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False
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
