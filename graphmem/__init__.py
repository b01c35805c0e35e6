"""graphmem: a bi-temporal knowledge-graph memory for AI agents.

>>> import graphmem as gm
>>> with gm.open() as mem:
...     _ = mem.add_fact("Alice", "works_at", "Acme", valid_from="2020-01-01")
...     [f.object for f in mem.facts(subject="alice")]
['Acme']

Every public name loads on first use (PEP 562 ``__getattr__``): ``import graphmem`` imports
only this file and the standard library, so ``graphmem --version`` answers at once and a
command pays only for what it uses (docs/api.md#importing-graphmem). The store engine, spaCy,
pydantic and matplotlib load when a name that needs them is first read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.episodic import Context, SearchItem
    from graphmem.errors import (
        BackfillOrderError,
        ClockError,
        ExtraUnavailable,
        GraphmemError,
        IntegrityError,
        InvalidInput,
        NotFound,
        RateLimited,
        SchemaVersionError,
        ScopeError,
        StoreBusy,
        StoreError,
    )
    from graphmem.explain import Readings
    from graphmem.memory import Memory, open
    from graphmem.models import Decision, Entity, Fact, Predicate, Session, WriteResult
    from graphmem.timeutil import ManualClock, to_utc
    from graphmem.trust import Trust

__version__ = "0.1.0"

__all__ = [
    "BackfillOrderError",
    "ClockError",
    "Context",
    "Decision",
    "Entity",
    "ExtraUnavailable",
    "Fact",
    "GraphmemError",
    "IntegrityError",
    "InvalidInput",
    "ManualClock",
    "Memory",
    "NotFound",
    "Predicate",
    "RateLimited",
    "Readings",
    "SchemaVersionError",
    "ScopeError",
    "SearchItem",
    "Session",
    "StoreBusy",
    "StoreError",
    "Trust",
    "WriteResult",
    "__version__",
    "open",
    "to_utc",
]

#: The module that defines each public name (imported when the name is first read).
_LAZY = {
    **dict.fromkeys(
        (
            "BackfillOrderError",
            "ClockError",
            "ExtraUnavailable",
            "GraphmemError",
            "IntegrityError",
            "InvalidInput",
            "NotFound",
            "RateLimited",
            "SchemaVersionError",
            "ScopeError",
            "StoreBusy",
            "StoreError",
        ),
        "graphmem.errors",
    ),
    **dict.fromkeys(
        ("Decision", "Entity", "Fact", "Predicate", "Session", "WriteResult"), "graphmem.models"
    ),
    "Context": "graphmem.episodic",
    "ManualClock": "graphmem.timeutil",
    "Memory": "graphmem.memory",
    "SearchItem": "graphmem.episodic",
    "Readings": "graphmem.explain",
    "Trust": "graphmem.trust",
    "open": "graphmem.memory",
    "to_utc": "graphmem.timeutil",
}
#: Submodules reachable as ``gm.<name>`` without an explicit import (loaded on first use).
_SUBMODULES = frozenset(
    {
        "audit",
        "check",
        "context",
        "contradiction",
        "datasets",
        "decay",
        "demo",
        "episodic",
        "errors",
        "explain",
        "export",
        "graphs",
        "hotness",
        "maintenance",
        "models",
        "plot",
        "remember",
        "sessions",
        "similarity",
        "temporal",
        "timeutil",
        "topics",
        "triage",
        "trust",
    }
)


def __getattr__(name: str) -> Any:
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"graphmem.{name}")
    else:
        raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
