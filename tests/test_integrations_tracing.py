"""OpenTelemetry spans for every public call of a memory; graphmem works without OpenTelemetry.

See docs/integrations/tracing.md.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import graphmem as gm
from graphmem import tracing

pytest.importorskip(
    "opentelemetry.sdk", reason="opentelemetry-sdk is not installed (pip install -e '.[dev]')"
)

from opentelemetry import trace  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import SimpleSpanProcessor  # noqa: E402
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter  # noqa: E402


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    # A provider of the test's own, not the process-wide one: later tests run untraced.
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.reset(provider)
    yield exporter
    tracing.reset()
    provider.shutdown()


def _by_name(exporter: InMemorySpanExporter) -> dict[str, Any]:
    return {s.name: s for s in exporter.get_finished_spans()}


def test_public_calls_make_spans_with_decisions_and_counts(
    spans: InMemorySpanExporter, mem: gm.Memory, clock: Any
) -> None:
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
    clock.advance(days=1)
    mem.add_fact("api", "runs_on", "Go", valid_from="2026-01-01")
    got = _by_name(spans)
    write = got["graphmem.add_fact"]
    assert write.attributes["graphmem.decision"] == "supersede"
    assert write.attributes["graphmem.superseded"] == 1
    assert write.attributes["graphmem.engine"] == mem.engine
    spans.clear()
    mem.add_facts([{"subject": "a", "predicate": "likes", "object": x} for x in "xyz"])
    mem.facts(subject="api")
    got = _by_name(spans)
    assert got["graphmem.add_facts"].attributes["graphmem.count"] == 3
    assert got["graphmem.add_facts"].attributes["graphmem.decisions.add"] == 3
    assert got["graphmem.facts"].attributes["graphmem.count"] == 1
    assert "graphmem.now" not in got


def test_an_error_is_recorded_on_its_span(spans: InMemorySpanExporter, mem: gm.Memory) -> None:
    with pytest.raises(gm.NotFound):
        mem.retract("nobody", "works_at")
    span = _by_name(spans)["graphmem.retract"]
    assert span.status.status_code == trace.StatusCode.ERROR
    assert any(e.name == "exception" for e in span.events)


def test_the_integrations_calls_are_traced_too(spans: InMemorySpanExporter, mem: gm.Memory) -> None:
    pytest.importorskip("langgraph", reason="LangGraph is not installed")
    from graphmem.integrations.langgraph import GraphmemStore

    store = GraphmemStore(mem)
    store.put(("users", "alice"), "prefs", {"theme": "dark"})
    names = {s.name for s in spans.get_finished_spans()}
    assert {"graphmem.add_facts", "graphmem.facts", "graphmem.define_predicate"} <= names


def test_graphmem_works_without_opentelemetry(
    monkeypatch: pytest.MonkeyPatch, mem: gm.Memory
) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry", None)  # import opentelemetry fails
    tracing.reset()
    try:
        assert mem.add_fact("api", "runs_on", "Go").decision == "add"
        assert tracing._get_tracer() is None
    finally:
        tracing.reset()


def test_importing_graphmem_imports_no_optional_framework() -> None:
    code = (
        "import sys, graphmem, graphmem.integrations, graphmem.tracing;"
        "import graphmem.integrations.keyed, graphmem.integrations.openai_agents;"
        "heavy = ('opentelemetry', 'langgraph', 'agents', 'openai');"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
