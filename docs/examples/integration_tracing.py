"""Spans for every public call of a memory, collected in memory by the OpenTelemetry SDK."""

from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import graphmem as gm
from graphmem.timeutil import ManualClock

exporter = InMemorySpanExporter()  # in production: an OTLP exporter, a BatchSpanProcessor
provider = TracerProvider()
provider.add_span_processor(SimpleSpanProcessor(exporter))
trace.set_tracer_provider(provider)

with gm.open(clock=ManualClock("2026-06-10")) as mem:
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
    mem.add_fact("api", "runs_on", "Go", valid_from="2026-06-01")
    mem.facts(subject="api")

for span in exporter.get_finished_spans():
    attrs = {k.removeprefix("graphmem."): v for k, v in span.attributes.items()}
    print(span.name, attrs)
