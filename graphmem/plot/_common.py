"""What every graphmem picture shares: figures without pyplot, date axes, fades, colours.

matplotlib is imported on first use (:func:`_matplotlib` raises ``ExtraUnavailable`` without
it), so importing :mod:`graphmem.plot` costs nothing until a picture is drawn.
"""

from __future__ import annotations

import datetime as dt
import io
import math
from typing import Any

from graphmem.errors import ExtraUnavailable

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


def _darker(colour: str, by: float = 0.35) -> tuple[float, float, float]:
    from matplotlib.colors import to_rgb

    r, g, b = to_rgb(colour)
    return (r * (1 - by), g * (1 - by), b * (1 - by))
