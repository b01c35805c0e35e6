"""Errors raised by graphmem.

Every public entry point raises a subclass of :class:`GraphmemError` whose message names the bad
value and how to fix it. Nothing is written when an error is raised. The tree::

    GraphmemError
     ├── InvalidInput (ValueError)         bad argument: the message names the value and the fix
     │    ├── ClockError                    the injected clock moved backwards
     │    │    └── BackfillOrderError       a learned_at before the newest recorded write
     │    └── RateLimited                   admission control: too many writes of a kind per hour
     ├── NotFound (KeyError)               nothing matched (retract, why, an entity name)
     ├── StoreError                        the storage engine failed
     │    ├── SchemaVersionError            the database was written by another schema version
     │    └── StoreBusy                     another process holds the database lock
     ├── IntegrityError                    `graphmem check` found a broken invariant
     └── ExtraUnavailable (ImportError)    an optional extra is not installed
"""

from __future__ import annotations

__all__ = [
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
]


class GraphmemError(Exception):
    """Base class of every error graphmem raises on purpose."""

    #: Messages longer than this are cut in the middle: a 1 MB bad value must not make a 1 MB
    #: error line (the CLI prints errors on one line).
    MAX_MESSAGE = 2000

    def __init__(self, *args: object) -> None:
        if len(args) == 1 and isinstance(args[0], str) and len(args[0]) > self.MAX_MESSAGE:
            text = args[0]
            cut = len(text) - self.MAX_MESSAGE
            args = (f"{text[:1500]} …[{cut} characters cut]… {text[-500:]}",)
        super().__init__(*args)


class InvalidInput(GraphmemError, ValueError):
    """An argument is invalid; the message names the value and the fix."""


class ClockError(InvalidInput):
    """The system clock reading is earlier than the newest recorded write."""


class BackfillOrderError(ClockError):
    """A ``learned_at`` is earlier than the newest recorded write (system time never goes back).

    A backfill records each input as learned on its own date; it must run in date order into
    a fresh memory (docs/concepts/time.md#backfilling-history).
    """


class ScopeError(InvalidInput):
    """A scope outside the memory's own, or a write on a version of another scope.

    A call may narrow the scope its memory was opened with, never widen it
    (docs/concepts/scopes.md).
    """


class RateLimited(InvalidInput):
    """Admission control refused a write: the per-kind hourly limit is reached."""


class NotFound(GraphmemError, KeyError):
    """Nothing matched the request."""

    def __str__(self) -> str:
        # KeyError quotes its argument; show the message as written.
        return str(self.args[0]) if self.args else ""


class StoreError(GraphmemError):
    """The storage engine failed."""


class SchemaVersionError(StoreError):
    """The database was created by an incompatible graphmem schema version."""


class StoreBusy(StoreError):
    """Another process holds the database; open read-only or stop the other process."""


class IntegrityError(GraphmemError):
    """A store invariant is broken (reported by ``graphmem check``)."""


class ExtraUnavailable(GraphmemError, ImportError):
    """An optional dependency is missing; the message names the extra to install."""
