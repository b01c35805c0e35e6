"""The bitemporal diagram: valid time across, system time up.

See docs/notebooks.md#the-bitemporal-diagram.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInput
from graphmem.plot._common import (
    _PALETTE,
    _clamp,
    _darker,
    _date_axis,
    _day,
    _fade,
    _figure,
    _matplotlib,
    _short,
)
from graphmem.plot._labels import _label, _placer
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
