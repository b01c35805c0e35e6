"""The bitemporal diagram reads at a glance (docs/notebooks.md#the-bitemporal-diagram).

Every version is big enough to see and label, no label falls outside its axes, still-believed
versions stop at the now line (marked open-ended, never drawn into the future), the legend says
what each mark means, and a backfilled import (every write within a minute) gets a readable
system-time axis: the order of the writes, labelled with their times.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

import graphmem as gm
from graphmem.timeutil import ManualClock

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from graphmem import plot  # noqa: E402
from tests.test_plot import now_line, rectangles  # noqa: E402

MIN_PX = 15  # at 100 dpi: room for a 7.5 pt label and its padding


def drawn(fig: Any) -> Any:
    """Draw the figure on an Agg canvas (labels are placed at draw time); return the renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def assert_texts_inside_axes(fig: Any) -> list[Any]:
    """Every visible text artist of every axes lies within that axes' window extent."""
    renderer = drawn(fig)
    shown = []
    for ax in fig.axes:
        frame = ax.get_window_extent(renderer)
        for t in ax.texts:
            if not t.get_visible() or not t.get_text():
                continue
            bb = t.get_window_extent(renderer)
            where = f"{t.get_text()!r} at {bb} lies outside its axes {frame}"
            assert bb.x0 >= frame.x0 - 0.5, where
            assert bb.x1 <= frame.x1 + 0.5, where
            assert bb.y0 >= frame.y0 - 0.5, where
            assert bb.y1 <= frame.y1 + 0.5, where
            shown.append(t)
    return shown


T0 = dt.datetime(2026, 6, 10, 9, 0, tzinfo=dt.timezone.utc)


@pytest.fixture
def backfilled(mem: gm.Memory, clock: ManualClock) -> gm.Memory:
    """Six years of an API's history, written within 35 seconds (an import from transcripts)."""
    for i, (stack, since) in enumerate(
        [("Laravel", "2019-03-01"), ("Symfony", "2021-05-01"), ("Go", "2023-09-01")]
    ):
        clock.set(T0 + dt.timedelta(seconds=7 * i))
        mem.add_fact("api", "runs_on", stack, valid_from=since)
    for i, (db, since) in enumerate([("Postgres", "2019-03-01"), ("Kuzu", "2024-01-01")]):
        clock.set(T0 + dt.timedelta(seconds=30 + 5 * i))
        mem.add_fact("api", "stores_in", db, valid_from=since)
    clock.set(T0 + dt.timedelta(seconds=50))
    return mem


CASES = {
    "einstein": lambda m: plot.bitemporal(m, "Albert Einstein"),
    "einstein query": lambda m: plot.bitemporal(
        m, "Albert Einstein", "married_to", known_at="2026-06-01", valid_at="1919-06-01"
    ),
}


# -- 1. every version can be seen and labelled --------------------------------------------------


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_version_is_big_enough_to_see_and_label(einstein: gm.Memory, case: str) -> None:
    fig = CASES[case](einstein)
    renderer = drawn(fig)
    for fact_id, rect in rectangles(fig).items():
        box = rect.get_window_extent(renderer)
        assert box.height >= MIN_PX, (fact_id, box)
        assert box.width >= MIN_PX, (fact_id, box)
    labels = [t for ax in fig.axes for t in ax.texts if (t.get_gid() or "").startswith("label:")]
    assert labels
    assert all(t.get_visible() for t in labels)  # none left out for lack of room


def test_one_year_versions_are_taller_than_on_a_linear_axis(einstein: gm.Memory) -> None:
    """Closed versions learned a year apart do not pile into strips under a 150-year axis."""
    fig = plot.bitemporal(einstein, "Albert Einstein", "works_at")
    renderer = drawn(fig)
    (ax,) = fig.axes
    bern = [
        f
        for f in einstein.history("Albert Einstein", "works_at", include_expired=True)
        if f.expired_at is not None and f.object == "Charles-Ferdinand University"
    ][0]
    rect = rectangles(fig)[bern.id]
    linear = ax.get_window_extent(renderer).height * (
        (rect.get_height()) / (ax.get_ylim()[1] - ax.get_ylim()[0])
    )
    assert linear < 5  # one year of about 150: a sliver on a linear axis
    assert rect.get_window_extent(renderer).height >= MIN_PX


# -- 2. no label outside the axes ------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(CASES))
def test_bitemporal_labels_stay_inside_the_axes(einstein: gm.Memory, case: str) -> None:
    shown = assert_texts_inside_axes(CASES[case](einstein))
    assert any(t.get_text().startswith("now (") for t in shown)


def test_backfilled_and_small_axes_labels_stay_inside(backfilled: gm.Memory) -> None:
    assert_texts_inside_axes(plot.bitemporal(backfilled, "api"))
    from matplotlib.figure import Figure

    outer = Figure(figsize=(7, 3))
    a, b = outer.subplots(1, 2)
    plot.bitemporal(backfilled, "api", "runs_on", ax=b)
    assert_texts_inside_axes(outer)


def test_timeline_labels_stay_inside_the_axes(einstein: gm.Memory, backfilled: gm.Memory) -> None:
    shown = assert_texts_inside_axes(plot.timeline(einstein, "Albert Einstein"))
    assert any(t.get_text().startswith("learned") for t in shown)
    assert_texts_inside_axes(plot.timeline(einstein, "Albert Einstein", known_at="1921-01-01"))
    assert_texts_inside_axes(plot.timeline(backfilled, "api"))


# -- 3. still-believed versions stop at now -------------------------------------------------------


def test_current_versions_run_up_to_now_and_are_marked_open(einstein: gm.Memory) -> None:
    fig = plot.bitemporal(einstein, "Albert Einstein")
    renderer = drawn(fig)
    rects = rectangles(fig)
    versions = einstein.history("Albert Einstein", include_expired=True)
    for ax in fig.axes:
        now = now_line(ax)
        now_px = ax.transData.transform([(0, now)])[0][1]
        assert ax.get_ylim()[1] > now  # room above the line for its label, nothing else
        arrows = {
            t.get_gid().removeprefix("open:"): t
            for t in ax.texts
            if (t.get_gid() or "").startswith("open:")
        }
        for f in (f for f in versions if rects[f.id].axes is ax):
            rect = rects[f.id]
            top = rect.get_y() + rect.get_height()
            assert top <= now + 1e-9  # never into the future
            assert rect.get_window_extent(renderer).y1 <= now_px + 0.5
            if f.expired_at is None:
                assert top == pytest.approx(now)
                arrow = arrows.pop(f.id)  # the open-ended mark, its tip on the now line
                assert arrow.xy[1] == pytest.approx(now)
                assert arrow.arrow_patch.get_window_extent(renderer).y1 <= now_px + 1.5
        assert not arrows  # closed versions carry no arrow
    # the now line is the clock's now (the correction was written now: one second above it)
    assert now_line(fig.axes[0]) == pytest.approx(
        matplotlib.dates.date2num(einstein.now()) + 1 / 86400
    )


def test_now_is_the_clock_when_the_last_write_was_earlier(backfilled: gm.Memory) -> None:
    fig = plot.bitemporal(backfilled, "api")
    for ax in fig.axes:
        assert now_line(ax) == pytest.approx(matplotlib.dates.date2num(backfilled.now()))


# -- 4. the legend explains the marks --------------------------------------------------------------


def test_the_legend_says_what_each_mark_means(einstein: gm.Memory) -> None:
    fig = plot.bitemporal(einstein, "Albert Einstein")
    (legend,) = fig.legends
    entries = [t.get_text() for t in legend.get_texts()]
    assert entries == [
        "solid: current version (believed now)",
        "light, hatched: closed version (superseded, corrected or retracted)",
        "arrow at the now line: still believed, no end in system time",
        "fading out to the right: no end in valid time yet",
        "now",
    ]
    # each entry's swatch is drawn the way the versions are
    solid, hatched = legend.legend_handles[:2]
    assert not solid.get_hatch()
    assert hatched.get_hatch() == "////"
    assert solid.get_facecolor()[3] > hatched.get_facecolor()[3]


# -- 5. a backfilled import: system time in order of recording ------------------------------------


def test_backfilled_import_gets_an_order_scale(backfilled: gm.Memory) -> None:
    fig = plot.bitemporal(backfilled, "api")
    renderer = drawn(fig)
    runs_on, stores_in = fig.axes
    for ax in fig.axes:
        label = ax.get_ylabel()
        assert "in order of recording, not to scale" in label
        assert "5 instants within 35 s" in label  # the subject's writes, 09:00:00 to 09:00:35
    # one tick per distinct write, labelled with its time (the date once)
    ticks = [t.get_text() for t in runs_on.get_yticklabels() if t.get_text()]
    assert ticks == ["2026-06-10 09:00", "09:00:07", "09:00:14"]
    assert [t.get_text() for t in stores_in.get_yticklabels() if t.get_text()] == [
        "2026-06-10 09:00:30",
        "09:00:35",
    ]
    # equal steps between writes seconds apart, and the step up to now (15 s later) too
    steps = [*runs_on.get_yticks(), now_line(runs_on)]
    ys = [runs_on.transData.transform([(0, y)])[0][1] for y in steps]
    gaps = [b - a for a, b in zip(ys, ys[1:], strict=False)]
    assert gaps == pytest.approx([gaps[0]] * len(gaps), rel=1e-6)
    for rect in rectangles(fig).values():
        assert rect.get_window_extent(renderer).height >= MIN_PX
    # the data stay times: a rectangle still starts at its recorded_at
    go = backfilled.history("api", "runs_on")[-1]
    rect = rectangles(fig)[go.id]
    assert rect.get_y() == pytest.approx(matplotlib.dates.date2num(go.recorded_at))


def test_a_history_learned_over_years_keeps_a_time_scale(einstein: gm.Memory) -> None:
    fig = plot.bitemporal(einstein, "Albert Einstein")
    drawn(fig)
    for ax in fig.axes:
        assert ax.get_ylabel() == "system time: when it was known ↑"
    # ticks on the years things were learned, not on a round-number grid
    ticks = [t.get_text() for t in fig.axes[1].get_yticklabels() if t.get_text()]
    learned = {
        text
        for f in einstein.history("Albert Einstein", "works_at", include_expired=True)
        for t in (f.recorded_at, f.expired_at)
        if t is not None
        for text in (str(t.year), t.date().isoformat())  # a year, or a day not on 1 January
    }
    assert ticks[0] == "1902"
    assert len(ticks) >= 4
    assert set(ticks) <= learned
    assert ticks == sorted(ticks)


def test_order_scale_threshold(mem: gm.Memory, clock: ManualClock) -> None:
    """Writes a day apart about a one-year history are drawn to scale; a minute apart, in order."""
    clock.set("2026-01-01")
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2025-01-01")
    clock.set("2026-01-02")
    mem.add_fact("api", "runs_on", "Go", valid_from="2025-06-01")
    fig = plot.bitemporal(mem, "api")
    assert "not to scale" not in fig.axes[0].get_ylabel()
    mem.add_fact("api", "hosted_on", "Fly", valid_from="2025-01-01")
    clock.set(gm.to_utc("2026-01-02") + dt.timedelta(seconds=40))
    mem.add_fact("api", "hosted_on", "Hetzner", valid_from="2025-09-01")
    fig = plot.bitemporal(mem, "api", "hosted_on")
    assert "in order of recording" in fig.axes[0].get_ylabel()
