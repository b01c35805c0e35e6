"""What differs between the two Cypher engines in a statement they share.

docs/concepts/storage.md#one-cypher-core lists the differences, with what measured each.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from graphmem.errors import StoreError
from graphmem.models import Fact

__all__ = ["CypherHost", "Dialect"]


@dataclass(frozen=True)
class Dialect:
    """One engine's spelling of the shared statements.

    Attributes:
        name: the engine family (``"kuzu"`` or ``"falkordb"``).
        to_db: a time as the engine stores it (aware UTC in; ``None`` stays ``None``).
        from_db: a stored time back as an aware UTC datetime (``None`` stays ``None``).
        fact_return: the ``RETURN`` items of a fact version: the subject's name as
            ``subject`` (``a``), then every fact column of the edge ``r``.
        fact_from_row: a :class:`Fact` from a row of ``fact_return``.
        barrier: filters on relationship properties go behind ``WITH`` (Kuzu 0.11.3 plans them
            wrongly otherwise, docs/concepts/storage.md#with-barrier).
        lower: the engine's lower-case function.
        stored_time: the Python type of a stored time as the engine returns it (what
            :meth:`raw_time` decodes).
    """

    name: str
    to_db: Callable[[dt.datetime | None], Any]
    from_db: Callable[[Any], dt.datetime | None]
    fact_return: str
    fact_from_row: Callable[[Sequence[Any]], Fact]
    barrier: bool
    lower: str
    stored_time: type

    def raw_time(self, value: Any) -> Any:
        """A stored time as aware UTC; a value that is no time (a damaged row) as stored."""
        if isinstance(value, self.stored_time) and not isinstance(value, bool):
            try:
                return self.from_db(value)
            except (OverflowError, ValueError):
                return value
        return value

    def where(self, carry: str, conds: Sequence[str]) -> str:
        """``WHERE`` over ``conds`` (with ``WITH carry`` first where the engine needs it).

        Returns the clause with a trailing space, or ``""`` when there is no condition.
        """
        if not conds:
            return ""
        joined = " AND ".join(conds)
        return f"WITH {carry} WHERE {joined} " if self.barrier else f"WHERE {joined} "

    def aware(self, value: Any) -> dt.datetime:
        """A stored time that must be there, as an aware UTC datetime.

        Raises:
            StoreError: the store returned no time (a damaged row).
        """
        out = self.from_db(value)
        if out is None:
            raise StoreError(
                "the store returned no time where one is required; run 'graphmem check'"
            )
        return out


class CypherHost(Protocol):
    """A backend the shared reads run on: its dialect and its read executor."""

    dialect: Dialect

    def _q(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Run one parameterised read and return its rows."""
        ...
