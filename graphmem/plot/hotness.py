"""Topic hotness as bars over the COLD, WARM and HOT bands."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graphmem.plot._common import _axes

if TYPE_CHECKING:
    from graphmem.hotness import TopicScore

_BANDS = (  # (label, low, high, band colour, bar colour)
    ("COLD", 0.0, 0.3, "#e6f0fa", "#4a90c2"),
    ("WARM", 0.3, 0.6, "#fdf0dc", "#f0a030"),
    ("HOT", 0.6, 1.0, "#fbe3e0", "#d9453b"),
)


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
