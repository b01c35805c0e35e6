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
    assert "closed (superseded)" in legend
    assert "open-ended" in legend


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
