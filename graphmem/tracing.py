"""OpenTelemetry spans for the public calls of a memory; nothing at all without OpenTelemetry.

See docs/integrations/tracing.md.

:func:`instrument` wraps every public method of :class:`graphmem.Memory` once, where the class
is defined. Each call opens a span ``graphmem.<method>`` through the OpenTelemetry API
(``pip install 'graphmem[otel]'``), with these attributes:

- ``graphmem.engine``: the storage engine (``kuzu``, ``ladybug``, ``falkordb``);
- ``graphmem.decision``: what a write did (``add``, ``supersede``, ``noop``, ...), when the
  call returns one decision;
- ``graphmem.count``: how many items a call returned (facts, results, hits);
- ``graphmem.decisions.<decision>``: for a call returning many write results, how many of each;
- ``graphmem.superseded``: how many versions a write closed.

An exception is recorded on its span (status ``ERROR``). OpenTelemetry is imported on the first
call, never by ``import graphmem``; where it is missing, a call costs one global lookup. Without
a configured SDK the API's spans are no-ops. ``now()`` (a clock read, called by the other
methods) has no span.
"""

from __future__ import annotations

import functools
import inspect
from collections import Counter
from collections.abc import Callable, Sized
from typing import Any, TypeVar

from graphmem.version import package_version

__all__ = ["instrument", "reset"]

_T = TypeVar("_T")
_UNSET: Any = object()
_tracer: Any = _UNSET
#: Public methods without a span: a clock read the other methods call.
UNTRACED = frozenset({"now"})


def _get_tracer() -> Any:
    """The tracer, or ``None`` when OpenTelemetry is not installed (looked up once)."""
    global _tracer
    if _tracer is _UNSET:
        try:
            from opentelemetry import trace
        except ImportError:
            _tracer = None
        else:
            _tracer = trace.get_tracer("graphmem", package_version())
    return _tracer


def reset(provider: Any = None) -> None:
    """Look OpenTelemetry up again on the next call (after installing or hiding it).

    Args:
        provider: a ``TracerProvider`` to take the tracer from instead of the global one
            (tests, an application with providers of its own); ``None``: the global one.
    """
    global _tracer
    _tracer = _UNSET if provider is None else provider.get_tracer("graphmem", package_version())


def _describe(span: Any, result: Any) -> None:
    """Set the attributes that say what a call did (decision, counts)."""
    decision = getattr(result, "decision", None)
    if decision is not None:
        span.set_attribute("graphmem.decision", str(getattr(decision, "value", decision)))
    superseded = getattr(result, "superseded", None)
    if isinstance(superseded, Sized) and not isinstance(superseded, str):
        span.set_attribute("graphmem.superseded", len(superseded))
    results = getattr(result, "results", None)
    if isinstance(result, (list, tuple)):
        results = result
    if isinstance(results, (list, tuple)):
        span.set_attribute("graphmem.count", len(results))
        decisions = Counter(
            str(getattr(r.decision, "value", r.decision)) for r in results if hasattr(r, "decision")
        )
        for name, n in sorted(decisions.items()):
            span.set_attribute(f"graphmem.decisions.{name}", n)


def _traced(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    @functools.wraps(fn)
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        tracer = _get_tracer()
        if tracer is None:
            return fn(self, *args, **kwargs)
        attributes = {"graphmem.engine": str(getattr(self, "engine", ""))}
        with tracer.start_as_current_span(name, attributes=attributes) as span:
            result = fn(self, *args, **kwargs)
            if span.is_recording():
                _describe(span, result)
            return result

    return call


def public_methods(cls: type) -> list[tuple[str, Callable[..., Any]]]:
    """The public functions of ``cls`` and its bases (the nearest definition of each name)."""
    seen: set[str] = set()
    out: list[tuple[str, Callable[..., Any]]] = []
    for owner in cls.__mro__[:-1]:  # not object
        for name, member in list(vars(owner).items()):
            if name in seen:
                continue
            seen.add(name)
            if not name.startswith("_") and inspect.isfunction(member):
                out.append((name, member))
    return out


def instrument(cls: type[_T]) -> type[_T]:
    """Give every public method of ``cls`` (but :data:`UNTRACED`) a span per call.

    Methods ``cls`` inherits (the facade's writes and delegated reads are bases of its own
    modules) are wrapped on ``cls`` too; a base class itself is left as it is.
    """
    for name, member in public_methods(cls):
        if name not in UNTRACED:
            setattr(cls, name, _traced(member, f"graphmem.{name}"))
    return cls
