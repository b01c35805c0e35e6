"""graphmem.plot: every figure renders to PNG (Agg), with the elements a reader relies on."""

from __future__ import annotations

import datetime as dt
import io
import sys
from typing import Any

import pytest

import graphmem as gm
from graphmem.hotness import score_topics
from graphmem.timeutil import ManualClock

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

from graphmem import plot  # noqa: E402

PNG = b"\x89PNG\r\n\x1a\n"


def png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=60)
    data = buf.getvalue()
    assert data.startswith(PNG)
    return data


def texts(fig: Any) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


@pytest.fixture
def career(mem: gm.Memory, clock: ManualClock) -> gm.Memory:
    """Learned as it happened: each job open-ended when it starts, replaced by the next one."""
    for year, employer in (
        (1908, "University of Bern"),
        (1909, "University of Zurich"),
        (1914, "Prussian Academy"),
    ):
        clock.set(f"{year}-01-01")
        mem.add_fact("Albert Einstein", "works_at", employer, valid_from=f"{year}-01-01")
    clock.set("1919-02-14")
    mem.add_fact(
        "Albert Einstein",
        "married_to",
        "Mileva Marić",
        valid_from="1903-01-06",
        valid_to="1919-02-14",
    )
    return mem


def test_timeline(career: gm.Memory) -> None:
    fig = plot.timeline(career, "Albert Einstein")
    png(fig)
    (ax,) = fig.axes
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == [
        "married_to: Mileva Marić",
        "works_at: University of Bern",
        "works_at: University of Zurich",
        "works_at: Prussian Academy",
    ]
    # two revisions learned (Zurich replaced Bern, the Academy replaced Zurich)
    assert sorted(t for t in texts(fig) if t.startswith("learned")) == [
        "learned 1909-01-01",
        "learned 1914-01-01",
    ]
    assert any(p.get_hatch() for p in ax.patches)  # closed versions are hatched
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [
        "current (believed now): married_to",
        "current (believed now): works_at",
        "closed (superseded or corrected)",
        "revised (day learned)",
        "open end (fades out)",
    ]
    assert any(isinstance(a, matplotlib.image.AxesImage) for a in ax.images)  # the fade


def test_timeline_as_known_then(career: gm.Memory) -> None:
    fig = plot.timeline(career, "Albert Einstein", "works_at", known_at="1910-06-01")
    png(fig)
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.get_yticklabels()] == [
        "University of Bern",
        "University of Zurich",
    ]
    assert "as known on 1910-06-01" in ax.get_title(loc="left")
    assert "known at 1910-06-01" in texts(fig)


def test_timeline_historic_years(mem: gm.Memory) -> None:
    mem.add_fact(
        "Granada", "ruled_by", "Emirate of Granada", valid_from="1238", valid_to="1492-01-02"
    )
    mem.add_fact("Granada", "ruled_by", "Crown of Castile", valid_from="1492-01-02")
    fig = plot.timeline(mem, "Granada")
    png(fig)
    left, right = fig.axes[0].get_xlim()
    first = matplotlib.dates.num2date(left)
    assert first.year < 1238
    assert matplotlib.dates.num2date(right).year >= 1492


def test_timeline_without_facts_and_into_an_axes(mem: gm.Memory) -> None:
    fig = plot.timeline(mem, "nobody")
    png(fig)
    assert "no facts recorded" in texts(fig)
    from matplotlib.figure import Figure

    outer = Figure()
    a, b = outer.subplots(1, 2)
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
    assert plot.timeline(mem, "api", ax=b) is outer
    png(outer)


def test_hotness() -> None:
    now = dt.datetime(2026, 6, 30, tzinfo=dt.timezone.utc)
    rows = [
        ("kuzu", "s1", now - dt.timedelta(days=2), 3),
        ("kuzu", "s2", now, 1),
        ("paris", "s2", now, 1),
        ("docker", "s3", now - dt.timedelta(days=20), 1),
        ("rust", "s4", now - dt.timedelta(days=55), 1),
    ]
    scores = score_topics(rows, now=now)
    fig = plot.hotness(scores)
    png(fig)
    (ax,) = fig.axes
    assert [t.get_text() for t in ax.get_yticklabels()] == [s.topic for s in scores]
    assert {"HOT", "WARM", "COLD"} <= set(texts(fig))
    colours = {s.topic: bar.get_facecolor() for s, bar in zip(scores, ax.patches[3:], strict=True)}
    assert colours["kuzu"] != colours["rust"]
    png(plot.hotness([], title="nothing yet"))


def test_hot_topics_from_memory(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-06-10")
    mem.add_session(started_at="2026-06-09", mentions={"Kuzu": 2, "Paris": 1})
    mem.add_session(started_at="2026-06-10", mentions=["kuzu"])
    png(plot.hotness(mem.hot_topics()))


def test_graph(mem: gm.Memory) -> None:
    mem.define_entity("Alice", kind="person")
    mem.add_fact("Alice", "works_at", "Acme")
    mem.add_fact("Acme", "employs", "Alice")
    mem.define_predicate("likes", cardinality="many")
    mem.add_fact("Alice", "likes", "Acme")
    mem.add_fact("Alice", "likes", "Alice")
    mem.add_fact("Granada", "ruled_by", "Castile")
    G = mem.to_networkx()
    fig = plot.graph(G, title="now")
    png(fig)
    shown = set(texts(fig))
    assert {"Alice", "Acme", "Granada", "Castile", "works_at", "employs", "ruled_by"} <= shown
    assert [t for t in texts(fig) if t == "likes"] == ["likes", "likes"]
    png(plot.graph(mem.neighborhood("Alice", hops=0)))


def test_graph_limits() -> None:
    import networkx as nx

    png(plot.graph(nx.MultiDiGraph()))
    png(plot.graph(nx.path_graph(4)))  # any networkx graph: labels fall back to ids
    with pytest.raises(gm.InvalidInput, match="neighborhood"):
        plot.graph(nx.path_graph(plot.MAX_GRAPH_NODES + 1))


def test_missing_matplotlib(monkeypatch: pytest.MonkeyPatch, mem: gm.Memory) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    with pytest.raises(gm.ExtraUnavailable, match=r"pip install 'graphmem\[notebooks\]'"):
        plot.timeline(mem, "nobody")
    with pytest.raises(ImportError):
        plot.hotness([])


# -- label placement and the bitemporal diagram ---------------------------------------------------


def drawn(fig: Any) -> Any:
    """Draw the figure with Agg (labels are placed at draw time); return the renderer."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    return canvas.get_renderer()


def assert_no_overlap(fig: Any) -> list[Any]:
    """Every visible text in the axes (labels, markers' dates, lines' names) stands alone."""
    renderer = drawn(fig)
    shown = [t for ax in fig.axes for t in ax.texts if t.get_visible() and t.get_text()]
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in shown]
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            assert not box_a.overlaps(box_b), f"labels overlap: {a!r} and {b!r}"
    return shown


def test_timeline_labels_do_not_overlap(einstein: gm.Memory) -> None:
    fig = plot.timeline(einstein, "Albert Einstein")
    shown = assert_no_overlap(fig)
    learned = sorted(t.get_text() for t in shown if t.get_text().startswith("learned"))
    # married_to's two revisions (the end the sample gave, today's correction) are both readable
    assert {"learned 1920-01-01", "learned 2026-06-02"} <= set(learned)
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "works_at: Prussian Academy of Sciences" in ticks  # a row with a current bar


def test_timeline_row_without_a_current_version_says_so(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("Albert Einstein", "works_at", "Humboldt University", valid_from="1914-01-01")
    clock.advance(days=1)
    # single-valued, from the same day: the first version is closed over all its valid time
    mem.add_fact("Albert Einstein", "works_at", "Prussian Academy", valid_from="1914-01-01")
    fig = plot.timeline(mem, "Albert Einstein")
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "Humboldt University\n(no current value)" in ticks
    assert "Prussian Academy" in ticks


def rectangles(fig: Any) -> dict[str, Any]:
    return {
        p.get_gid().removeprefix("version:"): p
        for ax in fig.axes
        for p in ax.patches
        if (p.get_gid() or "").startswith("version:")
    }


def now_line(ax: Any) -> float:
    """The now line's place on the system-time axis (a date number)."""
    (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == "now"]
    return float(line.get_ydata()[0])


def test_bitemporal_rectangles_are_the_versions(einstein: gm.Memory) -> None:
    from matplotlib.dates import date2num

    versions = einstein.history("Albert Einstein", include_expired=True)
    fig = plot.bitemporal(einstein, "Albert Einstein")
    png(fig)
    assert [ax.get_title(loc="left") for ax in fig.axes] == [
        "born_in",
        "works_at",
        "married_to",
        "died_in",
    ]
    drawn_ = rectangles(fig)
    assert set(drawn_) == {f.id for f in versions}  # one rectangle per version, no other
    for f in versions:
        rect = drawn_[f.id]
        ax = rect.axes
        assert ax.get_title(loc="left") == f.predicate
        right, now = ax.get_xlim()[1], now_line(ax)
        x0, y0 = rect.get_xy()
        x1, y1 = x0 + rect.get_width(), y0 + rect.get_height()
        assert x0 == pytest.approx(date2num(f.valid_from))
        assert y0 == pytest.approx(date2num(f.recorded_at))
        # open valid ends run to the axis edge; still-believed versions up to the now line
        assert x1 == pytest.approx(right if f.valid_to is None else date2num(f.valid_to))
        assert y1 == pytest.approx(now if f.expired_at is None else date2num(f.expired_at))
        assert bool(rect.get_hatch()) is (f.expired_at is not None)  # closed ones hatched
    # every version is labelled with its object
    labels = {
        t.get_gid(): t.get_text()
        for ax in fig.axes
        for t in ax.texts
        if (t.get_gid() or "").startswith("label:")
    }
    assert labels == {f"label:{f.id}": f.object for f in versions}
    shown = assert_no_overlap(fig)
    assert {t.get_gid() for t in shown} >= set(labels)  # none left out for lack of room


def test_bitemporal_missing_version_fails_the_check(einstein: gm.Memory) -> None:
    fig = plot.bitemporal(einstein, "Albert Einstein", "works_at")
    drawn_ = rectangles(fig)
    one = next(iter(drawn_.values()))
    one.remove()
    ids = {f.id for f in einstein.history("Albert Einstein", "works_at", include_expired=True)}
    assert set(rectangles(fig)) != ids


def test_bitemporal_query_lines_outline_the_answer(einstein: gm.Memory) -> None:
    kwargs = {"valid_at": "1913-06-01", "known_at": "1925-01-01"}
    fig = plot.bitemporal(einstein, "Albert Einstein", "works_at", **kwargs)
    png(fig)
    (ax,) = fig.axes
    answer = einstein.facts(subject="Albert Einstein", predicate="works_at", **kwargs)
    assert [f.object for f in answer] == ["ETH Zurich"]  # between Prague and the Academy
    outlined = {i for i, p in rectangles(fig).items() if p.get_linewidth() > 2}
    assert outlined == {f.id for f in answer}
    title = ax.get_title(loc="left")
    assert "facts(valid_at=1913-06-01, known_at=1925-01-01) → ETH Zurich" in title
    assert {"known_at 1925-01-01", "valid_at 1913-06-01"} <= {t.get_text() for t in ax.texts}
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert {
        "known_at (the query)",
        "valid_at (the query)",
        "returned by the query",
        "light, hatched: closed version (superseded, corrected or retracted)",
    } <= set(legend)
    assert_no_overlap(fig)
    # known_at alone: every version believed then, over all valid time
    fig = plot.bitemporal(einstein, "Albert Einstein", "works_at", known_at="1925-01-01")
    versions = einstein.history("Albert Einstein", "works_at", include_expired=True)
    k = gm.to_utc("1925-01-01")
    outlined = {i for i, p in rectangles(fig).items() if p.get_linewidth() > 2}
    assert outlined == {f.id for f in versions if f.known_at(k)}
    assert len(outlined) == 5  # four ended jobs and the Academy, open-ended then


def test_bitemporal_years_1_to_9999_and_days_in_2026(mem: gm.Memory, clock: ManualClock) -> None:
    from matplotlib.dates import date2num, num2date

    clock.set("2026-06-10")
    mem.add_fact("calendar", "starts", "year one", valid_from="0001-01-01", valid_to="1490-01-01")
    clock.set("2026-06-11")
    mem.add_fact("calendar", "starts", "Granada", valid_from="1490-01-01", valid_to="9999-12-31")
    clock.set("2026-06-12")
    mem.add_fact("calendar", "starts", "Castile", valid_from="1492-01-02")
    fig = plot.bitemporal(mem, "calendar", valid_at="1491-01-01")
    png(fig)
    (ax,) = fig.axes
    left, right = ax.get_xlim()
    assert num2date(left).year == 1
    assert num2date(right).year == 9999
    # system time spans days of 2026: its ticks are days, not centuries
    bottom, top = ax.get_ylim()
    assert num2date(bottom).date() <= dt.date(2026, 6, 10) < num2date(top).date()
    assert top - bottom < 10
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert len(ticks) >= 2
    assert all(ticks)
    assert set(rectangles(fig)) == {f.id for f in mem.history("calendar", include_expired=True)}
    year_one = next(
        f for f in mem.history("calendar", include_expired=True) if f.object == "year one"
    )
    assert rectangles(fig)[year_one.id].get_x() == pytest.approx(date2num(year_one.valid_from))
    assert_no_overlap(fig)


def test_bitemporal_into_an_axes_and_errors(career: gm.Memory) -> None:
    from matplotlib.figure import Figure

    outer = Figure()
    a, b = outer.subplots(1, 2)
    assert plot.bitemporal(career, "Albert Einstein", "married_to", ax=b) is outer
    png(outer)
    assert b.get_legend() is not None
    with pytest.raises(gm.InvalidInput, match="pass predicate="):
        plot.bitemporal(career, "Albert Einstein", ax=a)
    with pytest.raises(gm.InvalidInput, match="known_at"):
        plot.bitemporal(career, "Albert Einstein", known_at="not a date")
    fig = plot.bitemporal(career, "nobody")
    png(fig)
    assert "no facts recorded" in texts(fig)


def test_graph_legend_explains_kinds(mem: gm.Memory) -> None:
    mem.add_fact("api", "runs_on", "Kuzu")
    mem.add_session(started_at="2026-06-01", mentions=["ladybug"])
    mem.define_entity("Alice", kind="person")
    mem.add_fact("Alice", "owns", "api")
    mem.add_fact("Kuzu", "forked_as", "ladybug")  # ladybug stays a topic
    fig = plot.graph(mem.to_networkx())
    png(fig)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == [
        "entity: first seen in a fact (the default)",
        "person (set by define_entity)",
        "topic: first seen as a session mention",
    ]
