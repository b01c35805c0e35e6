"""The timeline: a subject's fact versions as bars over valid time.

See docs/notebooks.md#the-timeline.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from graphmem.plot._common import _GREY, _PALETTE, _axes, _clamp, _date_axis, _day, _fade
from graphmem.plot._labels import _label, _placer
from graphmem.timeutil import TimeLike, fmt, to_utc

if TYPE_CHECKING:
    from graphmem.memory import Memory
    from graphmem.models import Fact


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
