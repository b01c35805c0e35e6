"""The bitemporal diagram: valid time across, system time up.

See docs/notebooks.md#the-bitemporal-diagram.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInput
from graphmem.plot import _scale
from graphmem.plot._common import (
    _PALETTE,
    _clamp,
    _darker,
    _day,
    _fade,
    _figure,
    _matplotlib,
    _short,
)
from graphmem.plot._labels import _label, _placer
from graphmem.plot._scale import Knots, knots
from graphmem.timeutil import TimeLike, fmt, to_utc

if TYPE_CHECKING:
    from graphmem.memory import Memory
    from graphmem.models import Fact


def _answer(hits: list[Fact], k: dt.datetime | None, v: dt.datetime | None) -> str:
    objects = ", ".join(dict.fromkeys(_short(f.object) for f in hits)) or "nothing"
    if k is not None and v is not None:
        return f"facts(valid_at={fmt(v)}, known_at={fmt(k)}) → {objects}"
    if k is not None:
        return f"known at {fmt(k)}: {objects}"
    assert v is not None
    n = len(hits)
    return f"valid at {fmt(v)}: {n} version{'s' if n != 1 else ''} over system time ({objects})"


#: Below this ratio of recorded span to valid span, system time is drawn in order of recording.
ORDER_RATIO = 1e-3
_SECOND = 1 / 86400  # in matplotlib date numbers (days)


@dataclass
class _Axis:
    """Where an axis starts and ends, how it is stretched, and which instants it ticks."""

    low: float
    high: float
    knots: Knots
    ticks: list[float]


def _valid_axis(versions: list[Fact], v: dt.datetime | None) -> tuple[_Axis, float]:
    """The valid-time axis, shared by every panel; also where the open-end fade zone starts.

    Each interval between two valid instants gets at least a readable width; open ends (no
    ``valid_to`` yet) run on into a fade zone after the last instant.
    """
    points = {_day(f.valid_from) for f in versions} | {
        _day(f.valid_to) for f in versions if f.valid_to
    }
    if v is not None:
        points.add(_day(v))
    ordered = sorted(points)
    first, last = ordered[0], ordered[-1]
    span = max(last - first, 30.0)
    is_open = any(f.valid_to is None for f in versions)
    left = _clamp(first - 0.03 * span)
    right = _clamp(last + (0.16 if is_open else 0.03) * span)
    edges = ([left] if left < first else []) + ordered + ([right] if right > last else [])
    fixed = {0: 0.03} if left < first else {}
    if right > last:
        fixed[len(edges) - 2] = 0.13 if is_open else 0.03
    return _Axis(left, right, knots(edges, fixed, equal=False, least=0.05), ordered), last


def _system_axis(
    versions: list[Fact], now: dt.datetime, k: dt.datetime | None, *, order: bool
) -> tuple[_Axis, float]:
    """One panel's system-time axis, and where on it the now line is.

    It ends at now: current versions are drawn up to the now line, never past it. When the
    last write happened at now itself, the now line sits one second above it, so that the
    versions recorded then still show. In ``order`` mode every interval between two recorded
    instants gets the same height.
    """
    points = {_day(f.recorded_at) for f in versions} | {
        _day(f.expired_at) for f in versions if f.expired_at
    }
    if k is not None and k <= now:
        points.add(_day(k))
    ordered = sorted(points)
    now_y = max(_day(now), ordered[-1] + _SECOND)
    span = now_y - ordered[0]
    bottom = ordered[0] - max(0.04 * span, _SECOND)
    top = now_y + max(0.02 * span, _SECOND)
    edges = [bottom, *ordered, now_y, top]
    # the bottom margin, and room above the now line for its label
    fixed = {0: 0.04, len(edges) - 2: 0.09}
    return _Axis(bottom, top, knots(edges, fixed, equal=order, least=0.25), ordered), now_y


def _order_mode(versions: list[Fact], valid: _Axis) -> tuple[bool, str]:
    """Whether system time is drawn in order of recording, and the axis note saying so.

    A backfilled import writes years of history within a minute: on a time scale that minute
    is one line. When every write falls within ``ORDER_RATIO`` of the valid-time span, the
    axis shows the order of the writes instead (docs/notebooks.md#the-bitemporal-diagram).
    """
    instants = {f.recorded_at for f in versions} | {f.expired_at for f in versions if f.expired_at}
    if len(instants) < 2:
        return False, ""
    seconds = (max(instants) - min(instants)).total_seconds()
    valid_days = valid.ticks[-1] - valid.ticks[0]
    if seconds >= ORDER_RATIO * max(valid_days, 1.0) * 86400:
        return False, ""
    return (
        True,
        f"in order of recording, not to scale:\n{len(instants)} instants within {_span(seconds)}",
    )


def _span(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h"
    return f"{seconds / 86400:.0f} days"


def _bitemporal_panel(
    ax: Any,
    versions: list[Fact],
    *,
    now: dt.datetime,
    k: dt.datetime | None,
    v: dt.datetime | None,
    valid: _Axis,
    fade_at: float,
    order: bool,
    note: str,
) -> None:
    from matplotlib.colors import to_rgba
    from matplotlib.patches import Rectangle
    from matplotlib.transforms import offset_copy

    system, now_y = _system_axis(versions, now, k, order=order)
    left, right, bottom = valid.low, valid.high, system.low
    placer = _placer(ax)
    objects = list(dict.fromkeys(f.object for f in versions))
    colour = {o: _PALETTE[i % len(_PALETTE)] for i, o in enumerate(objects)}
    query = k is not None or v is not None

    def returned(f: Fact) -> bool:
        return query and (k is None or f.known_at(k)) and (v is None or f.valid_at(v))

    hits = [f for f in versions if returned(f)]
    # The arrow of a current version: its tip on the now line, 6 points in from the left edge.
    tip = offset_copy(ax.transData, fig=ax.figure, x=6, units="points")
    # Closed versions first, so current ones (and the query's answer) are drawn on top.
    for f in sorted(versions, key=lambda f: (f.expired_at is None, returned(f))):
        x0, y0 = _day(f.valid_from), _day(f.recorded_at)
        x1 = right if f.valid_to is None else _day(f.valid_to)
        current = f.expired_at is None
        y1 = now_y if f.expired_at is None else _day(f.expired_at)
        c = colour[f.object]
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
        if current:  # still believed: an arrow up to the now line, never past it
            ax.annotate(
                "",
                xy=(x0, now_y),
                xycoords=tip,
                xytext=(0, -13),
                textcoords="offset points",
                arrowprops={
                    "arrowstyle": "-|>",
                    "color": _darker(c, 0.5),
                    "linewidth": 1.2,
                    "shrinkA": 0,
                    "shrinkB": 0,
                },
                zorder=6,
                gid=f"open:{f.id}",
            )
        placer.obstacles.append((x0, x1, y0, y1))
        text = _label(ax, _short(f.object), colour=_darker(c, 0.45), gid=f"label:{f.id}")
        if hit:
            text.set_fontweight("bold")
        placer.add(text, (x0, x1, y0, y1), inside=True, own=len(placer.obstacles) - 1)

    ax.axhline(now_y, color="#555555", linestyle="--", linewidth=1.0, zorder=6, gid="now")
    placer.add(
        _label(ax, f"now ({fmt(now)})", colour="#555555"),
        (left, left, now_y, now_y),
        inside=False,
    )
    red = "#c0392b"
    k_y = None if k is None else min(_day(k), now_y)
    if k_y is not None:
        ax.axhline(k_y, color=red, linewidth=1.3, zorder=6)
        placer.add(
            _label(ax, f"known_at {fmt(k)}", colour=red),
            (left, left, k_y, k_y),
            inside=False,
        )
    if v is not None:
        ax.axvline(_day(v), color=red, linewidth=1.3, linestyle="-.", zorder=6)
        placer.add(
            _label(ax, f"valid_at {fmt(v)}", colour=red),
            (_day(v), _day(v), bottom, bottom),
            inside=False,
        )
    if k_y is not None and v is not None:
        ax.plot(_day(v), k_y, marker="o", ms=7, color=red, markeredgecolor="white", zorder=8)
    if any(f.valid_to is None for f in versions) and right > fade_at:
        _fade(ax, fade_at, right, bottom, now_y, across=True)
    title = versions[0].predicate
    if query:
        title += "\n" + _answer(hits, k, v)
    ax.set_title(title, loc="left", fontsize=10)
    _scale.apply(ax.xaxis, valid.knots, valid.ticks)
    _scale.apply(ax.yaxis, system.knots, system.ticks)
    ax.set_xlim(left, right)
    ax.set_ylim(bottom, system.high)
    ax.set_xlabel("valid time: when it was true in the world →", fontsize=8.5)
    ylabel = "system time: when it was known ↑"
    ax.set_ylabel(ylabel + ("\n" + note if note else ""), fontsize=8.5)
    ax.tick_params(labelsize=8)
    ax.grid(color="#ececec")
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
    (superseded, corrected, retracted) are a light hatched wash with a dashed edge. System
    time ends at a dashed now line: still-believed versions run up to it (never past it) with
    an arrow. Valid-time open ends (no ``valid_to`` yet) run to the right edge and fade out.
    Every interval between the instants versions start and end at keeps a readable size; when
    all writes fall within ``ORDER_RATIO`` of the valid-time span (a backfilled import), system
    time is drawn in order of recording and the axis says so. A horizontal line at ``known_at``
    and/or a vertical line at ``valid_at`` shows a query: the versions it returns are outlined
    in black and named in the panel title (with both, that is
    ``mem.facts(valid_at=, known_at=)``, the point where the lines cross). Any year from 1 to
    9999 works.

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
    panels = [[f for f in versions if f.predicate == p] for p in predicates]
    order, note = False, ""
    if versions:
        # One valid-time scale for all panels, so they line up; each panel's system time
        # runs over its own writes, up to now.
        valid, fade_at = _valid_axis(versions, v)
        order, note = _order_mode(versions, valid)
    if ax is None:
        heights = [
            max(2.3, min(6.5, 1.3 + 0.32 * len(_system_axis(panel, now, k, order=order)[0].ticks)))
            for panel in panels
        ] or [2.0]
        fig = _figure(10, sum(heights) + 1.5)
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
    for a, panel in zip(axes, panels, strict=True):
        _bitemporal_panel(
            a, panel, now=now, k=k, v=v, valid=valid, fade_at=fade_at, order=order, note=note
        )
    if ax is None:
        fig.legend(handles=_legend(k, v), loc="outside lower center", ncols=2, **_LEGEND)
    else:  # beside the caller's axes, which may share the figure with others
        ax.legend(handles=_legend(k, v), loc="upper left", bbox_to_anchor=(1.01, 1.0), **_LEGEND)
    return fig


_LEGEND = {"fontsize": 8, "frameon": False}


def _legend(k: dt.datetime | None, v: dt.datetime | None) -> list[Any]:
    """What each mark means, in words: the picture needs no page beside it."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    grey = (0.45, 0.45, 0.45)
    handles: list[Any] = [
        Patch(
            facecolor=(*grey, 0.55),
            edgecolor="#444444",
            label="solid: current version (believed now)",
        ),
        Patch(
            facecolor=(*grey, 0.13),
            edgecolor="#666666",
            hatch="////",
            linestyle=(0, (3, 2)),
            label="light, hatched: closed version (superseded, corrected or retracted)",
        ),
        Line2D(
            [],
            [],
            color="#555555",
            marker="^",
            markersize=7,
            linestyle="",
            label="arrow at the now line: still believed, no end in system time",
        ),
        Patch(
            facecolor=(*grey, 0.2),
            edgecolor="none",
            label="fading out to the right: no end in valid time yet",
        ),
        Line2D([], [], color="#555555", linestyle="--", linewidth=1.0, label="now"),
    ]
    red = "#c0392b"
    if k is not None:
        handles.append(Line2D([], [], color=red, linewidth=1.3, label="known_at (the query)"))
    if v is not None:
        handles.append(
            Line2D([], [], color=red, linewidth=1.3, linestyle="-.", label="valid_at (the query)")
        )
    if k is not None or v is not None:
        handles.append(
            Patch(facecolor="none", edgecolor="black", linewidth=2, label="returned by the query")
        )
    return handles
