"""The Cypher both backends share: reads written once, over an executor and a dialect.

The embedded backend (Kuzu 0.11.3, ladybug) and the FalkorDB backend answer most reads with the
same Cypher. Each shared read here is a function of a :class:`CypherHost` (anything with a read
executor ``_q`` and a :class:`~graphmem.store.cypher.dialect.Dialect`); a backend class takes it
as a method (``read_sessions = sessions.read_sessions``) and writes its own only where the
engine measured differently (docs/concepts/storage.md#one-cypher-core): a Kuzu planner trap, a
FalkorDB index that changes the plan, a per-id lookup that beats an ``UNWIND``.

The dialect holds what differs in a shared statement: how times are stored, how a fact row is
decoded, whether a filter on relationship properties needs a ``WITH`` barrier, the name of the
lower-case function.
"""

from __future__ import annotations

from graphmem.store.cypher.dialect import CypherHost, Dialect

__all__ = ["CypherHost", "Dialect"]
