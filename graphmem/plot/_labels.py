"""Label placement: labels placed when the axes are drawn, at the figure's final size.

Each label has an anchor box (a rectangle or a point, in data coordinates). It goes inside its
box when it fits, else beside it, nearest first, never over another label and never outside
the axes (docs/notebooks.md#the-bitemporal-diagram). ``label:<fact id>`` is each version label's
``gid``, for tests and tooling.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from graphmem.plot._common import _CLASSES


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
