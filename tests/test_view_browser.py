"""The graph page in a real headless browser: Debian's chromium driven by playwright.

Slow (a browser start and a dozen seconds in all): CI runs them in its ``-m slow`` step. Skipped,
with the reason, where /usr/bin/chromium or the playwright package is absent (CI
installs both: .ci/run). Playwright's own browser downloads are never used.
"""

from __future__ import annotations

import datetime as dt
import io
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import graphmem as gm
from graphmem.timeutil import ManualClock
from graphmem.view import graph_html
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.slow

if not os.path.exists(CHROMIUM):
    pytest.skip(
        f"no browser at {CHROMIUM}: apt-get install chromium to run the page in a browser",
        allow_module_level=True,
    )
sync_api = pytest.importorskip(
    "playwright.sync_api", reason="playwright is not installed: pip install playwright"
)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


class Page:
    """A loaded page with its console errors and every request it made."""

    def __init__(self, browser: Any, path: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1200, "height": 800})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        start = time.perf_counter()
        self.page.goto(path.as_uri())
        self.page.wait_for_function("window.graphmemView && window.graphmemView.ready")
        self.seconds = time.perf_counter() - start
        self.url = path.as_uri()

    def js(self, code: str) -> Any:
        return self.page.evaluate(code)

    def slide(self, which: str, index: int) -> None:
        self.js(
            f"(() => {{ const e = document.getElementById({which!r}); e.value = {index};"
            " e.dispatchEvent(new Event('input')); })()"
        )

    def drawn_edges(self) -> list[str]:
        return sorted(
            self.js(
                "[...document.querySelectorAll('#edges line.live:not(.hidden)')]"
                ".map(e => e.dataset.id)"
            )
        )

    def close(self) -> None:
        self.page.close()


def when(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text + "+00:00")


@pytest.fixture
def small(tmp_path: Path) -> Iterator[tuple[gm.Memory, Path]]:
    clock = ManualClock("2026-01-01")
    with backends.memory(clock=clock) as mem:
        mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01", source="s-1")
        mem.add_fact("api", "owned_by", "Team A", valid_from="2024-01-01")
        mem.add_fact("Team A", "uses", "Postgres", valid_from="2023-01-01")
        clock.set("2026-01-01T00:00:20Z")  # a backfill: every known time within a minute
        mem.add_fact("api", "runs on", "Go", valid_from="2025-06-01", source="s-42")
        clock.set("2026-01-01T00:00:40Z")
        mem.retract("Team A", "uses", "Postgres", at="2025-03-01")
        path = tmp_path / "graph.html"
        graph_html(mem, path)
        yield mem, path


def test_the_page_loads_offline_and_the_sliders_show_facts(browser: Any, small: Any) -> None:
    mem, path = small
    page = Page(browser, path)
    try:
        assert page.errors == []
        assert page.requests == [page.url]  # the file itself, nothing else
        steps_v = page.js("graphmemView.validSteps")
        steps_k = page.js("graphmemView.knownSteps")
        assert len(steps_k) == 3  # three instants within a minute: each is its own step
        seen = set()
        for i in range(len(steps_v)):
            for j in range(len(steps_k)):
                page.slide("valid", i)
                page.slide("known", j)
                v, k = page.js("graphmemView.validAt"), page.js("graphmemView.knownAt")
                assert (v, k) == (steps_v[i], steps_k[j])
                want = sorted(f.id for f in mem.facts(valid_at=when(v), known_at=when(k)))
                assert page.js("graphmemView.live") == want
                assert page.drawn_edges() == want
                seen.add(tuple(want))
        assert len(seen) > 3  # the sliders really move through different snapshots
        assert page.errors == []
        assert page.requests == [page.url]
    finally:
        page.close()


def test_superseded_edges_fade_with_their_reason(browser: Any, small: Any) -> None:
    mem, path = small
    page = Page(browser, path)
    try:
        day = "2024-01-01T00:00:00.000000"
        page.slide("valid", page.js(f"graphmemView.validSteps.indexOf({day!r})"))
        assert page.js("graphmemView.validAt") == "2024-01-01T00:00:00.000000"
        faded = page.js("graphmemView.faded")
        assert faded  # Laravel's open version, and Postgres's (retracted from 2025-03-01)
        page.js("document.getElementById('superseded').click()")
        shown = page.js(
            "[...document.querySelectorAll('#edges line.faded:not(.hidden)')]"
            ".map(e => e.dataset.id)"
        )
        assert sorted(shown) == faded
        page.page.wait_for_function("!graphmemView.moving")  # the layout has settled
        box = page.js(
            f"""(() => {{ const b = document.querySelector('#edges line[data-id="{faded[0]}"]')"""
            ".getBoundingClientRect(); return [b.x + b.width / 2, b.y + b.height / 2]; })()"
        )
        page.page.mouse.click(*box)  # a real click on the middle of the dashed line
        panel = page.page.inner_text("#panel").lower()  # the headings are in capitals
        assert "history of" in panel
        assert "why" in panel
        assert mem.get_fact(faded[0]).reason.split(":")[0].lower() in panel
        assert page.errors == []
    finally:
        page.close()


def test_search_and_a_click_show_an_entitys_facts(browser: Any, small: Any) -> None:
    _, path = small
    page = Page(browser, path)
    try:
        page.page.fill("#search", "team")
        assert "names match" in page.page.inner_text("#panel")
        page.page.click("#panel a")
        panel = page.page.inner_text("#panel")
        assert panel.startswith("Team A")
        assert "facts about it" in panel.lower()
        assert page.errors == []
    finally:
        page.close()


def test_a_screenshot_is_not_blank(browser: Any, small: Any) -> None:
    PIL = pytest.importorskip("PIL.Image", reason="Pillow (a matplotlib dependency) reads PNGs")
    _, path = small
    page = Page(browser, path)
    try:
        png = page.page.screenshot()
        image = PIL.open(io.BytesIO(png)).convert("RGB")
        graph = image.crop((0, 60, 860, 740))  # the drawing, without bars and panel
        colours = graph.getcolors(maxcolors=1 << 20) or []
        assert len(colours) > 20, "the graph area is one colour"
    finally:
        page.close()


def test_a_thousand_entities_open_quickly_and_fold(browser: Any, tmp_path: Path) -> None:
    clock = ManualClock("2020-01-01")
    rows = []
    for i in range(700):
        rows.append({"subject": f"person {i}", "predicate": "works_at", "object": f"org {i % 150}"})
        rows.append(
            {"subject": f"person {i}", "predicate": "knows", "object": f"person {(i * 7) % 700}"}
        )
    rows += [
        {"subject": f"org {i}", "predicate": "based_in", "object": f"city {i}"} for i in range(150)
    ]
    with backends.memory(clock=clock) as mem:
        mem.add_facts(rows)
        clock.set("2021-01-01")
        mem.add_facts(
            [
                {"subject": f"person {i}", "predicate": "works_at", "object": f"org {i % 9}"}
                for i in range(300)
            ]
        )
        view = graph_html(mem, tmp_path / "big.html")
        assert view.entities == 1000
        page = Page(browser, tmp_path / "big.html")
        try:
            assert page.seconds < 2.0, f"opened in {page.seconds:.2f} s"
            assert page.errors == []
            assert page.requests == [page.url]
            assert page.js("graphmemView.folded") is True
            assert "folded into" in page.page.inner_text("#status")
            page.slide("known", 0)
            k = page.js("graphmemView.knownAt")
            v = page.js("graphmemView.validAt")
            want = sorted(f.id for f in mem.facts(valid_at=when(v), known_at=when(k)))
            assert page.js("graphmemView.live") == want
        finally:
            page.close()
