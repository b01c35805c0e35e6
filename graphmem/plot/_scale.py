"""Axes whose every interval stays readable: piecewise-linear scales through the data's instants.

A bitemporal diagram mixes a 20-year job with a 1-year one, or a life's history with the minute
it was imported in. On a linear axis the short intervals shrink to slivers nobody can see or
label. These scales keep the data in date numbers (so a rectangle still starts at
``date2num(valid_from)``) and only change where each instant is drawn:

- **time** scale: each interval between consecutive instants gets its share of the axis by
  length, but never less than a readable minimum (docs/notebooks.md#the-bitemporal-diagram);
- **order** scale: each interval gets the same share, whatever its length: the axis shows the
  order in which things were recorded, not how far apart (a backfilled import).

Ticks sit on the instants themselves, labelled with their dates (or times), and are thinned at
draw time so that their labels never collide.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

from graphmem.plot._common import _CLASSES

Knots = tuple[list[float], list[float]]


def knots(edges: Sequence[float], fixed: dict[int, float], *, equal: bool, least: float) -> Knots:
    """Return ``(data, position)`` knots: where on the axis (0 to 1) each data edge is drawn.

    ``edges`` increase strictly; segment ``i`` runs from ``edges[i]`` to ``edges[i + 1]``.
    ``fixed`` gives some segments a fixed share (margins, the fade zone). The others share
    the rest equally (``equal``) or by length, each at least ``least`` of it.
    """
    gaps = [b - a for a, b in zip(edges, edges[1:], strict=False)]
    free = [i for i in range(len(gaps)) if i not in fixed]
    room = max(1.0 - sum(fixed.values()), 0.1)
    total = sum(gaps[i] for i in free)
    if not free:
        share: dict[int, float] = {}
    elif equal or total <= 0:
        share = dict.fromkeys(free, 1.0 / len(free))
    else:
        floor = min(least, 0.6 / len(free))
        raw = {i: max(gaps[i] / total, floor) for i in free}
        norm = sum(raw.values())
        share = {i: s / norm for i, s in raw.items()}
    positions = [0.0]
    for i in range(len(gaps)):
        positions.append(positions[-1] + (fixed[i] if i in fixed else share[i] * room))
    end = positions[-1] or 1.0
    return list(edges), [p / end for p in positions]


def _piecewise(xp: list[float], fp: list[float]) -> Callable[[Any], Any]:
    """The piecewise-linear map through the knots, extended linearly past both ends."""
    import numpy as np

    x, f = np.asarray(xp, dtype=float), np.asarray(fp, dtype=float)
    low = (f[1] - f[0]) / (x[1] - x[0])
    high = (f[-1] - f[-2]) / (x[-1] - x[-2])

    def apply(values: Any) -> Any:
        v = np.asarray(values, dtype=float)
        out = np.interp(v, x, f)
        out = np.where(v < x[0], f[0] + (v - x[0]) * low, out)
        return np.where(v > x[-1], f[-1] + (v - x[-1]) * high, out)

    return apply


def stamp(day: float) -> str:
    """A date number as its shortest exact label (``1908``, ``1919-02-14``, ``09:00:07``)."""
    import matplotlib.dates

    mdates: Any = matplotlib.dates
    t: dt.datetime = mdates.num2date(day)
    t = (t + dt.timedelta(microseconds=500_000)).replace(microsecond=0)  # float rounding
    date = f"{t.year}-{t.month:02d}-{t.day:02d}"
    if (t.hour, t.minute, t.second) == (0, 0, 0):
        return str(t.year) if (t.month, t.day) == (1, 1) else date
    return f"{date} {t:%H:%M}" if t.second == 0 else f"{date} {t:%H:%M:%S}"


def _labels(values: Sequence[float]) -> list[str]:
    """Stamps, with the date left off a time on the same day as the tick before it."""
    out: list[str] = []
    last_date = ""
    for v in values:
        text = stamp(v)
        date, _, clock = text.partition(" ")
        out.append(clock if clock and date == last_date else text)
        last_date = date
    return out


def apply(axis: Any, k: Knots, ticks: Sequence[float]) -> None:
    """Give ``axis`` the scale of the knots, with (thinned) ticks on ``ticks``, labelled."""
    import matplotlib.ticker

    ticker: Any = matplotlib.ticker
    classes = _CLASSES.get("instant ticks")
    if classes is None:

        class InstantLocator(ticker.Locator):  # type: ignore[misc]
            """Ticks on the given instants, thinned so that their labels do not collide."""

            def __init__(self, values: Sequence[float]) -> None:
                self.values = sorted(set(values))

            def __call__(self) -> list[float]:
                ax = self.axis.axes
                lo, hi = sorted(self.axis.get_view_interval())
                values = [v for v in self.values if lo <= v <= hi]
                across = self.axis.axis_name == "x"
                pt = ax.figure.dpi / 72
                kept: list[float] = []
                last_end = -1e9
                for v, text in zip(values, _labels(values), strict=True):
                    point = (v, 0.0) if across else (0.0, v)
                    at = ax.transData.transform([point])[0][0 if across else 1]
                    half = (len(text) * 0.62 * 8 + 6) * pt / 2 if across else 6.5 * pt
                    if at - half >= last_end:
                        kept.append(v)
                        last_end = at + half
                return kept

        class InstantFormatter(ticker.Formatter):  # type: ignore[misc]
            def format_ticks(self, values: Sequence[float]) -> list[str]:
                return _labels(values)

            def __call__(self, x: float, pos: int | None = None) -> str:
                return stamp(x)

        classes = _CLASSES["instant ticks"] = (InstantLocator, InstantFormatter)
    locator_cls, formatter_cls = classes
    axis.axis_date()  # dates (datetime objects) drawn later on these axes still convert
    forward = _piecewise(*k)
    inverse = _piecewise(k[1], k[0])
    if axis.axis_name == "x":
        axis.axes.set_xscale("function", functions=(forward, inverse))
    else:
        axis.axes.set_yscale("function", functions=(forward, inverse))
    axis.set_major_locator(locator_cls(ticks))
    axis.set_major_formatter(formatter_cls())
    axis.set_minor_locator(ticker.NullLocator())
