"""An OpenAI Agents SDK session over a graphmem memory: ``GraphmemSession(session_id, mem)``.

See docs/integrations/openai-agents.md.

>>> import asyncio
>>> import graphmem as gm
>>> from graphmem.integrations.openai_agents import GraphmemSession
>>> async def demo(mem):
...     session = GraphmemSession("chat-1", mem)
...     await session.add_items([{"role": "user", "content": "Hi, I'm Alice"}])
...     await session.add_items([{"role": "assistant", "content": "Hello Alice!"}])
...     print(await session.pop_item())
...     print(await session.get_items())
>>> with gm.open() as mem:
...     asyncio.run(demo(mem))
{'role': 'assistant', 'content': 'Hello Alice!'}
[{'role': 'user', 'content': "Hi, I'm Alice"}]

The SDK's ``Session`` is a protocol (``get_items``, ``add_items``, ``pop_item``,
``clear_session``): this class implements it without importing the SDK. Each item is a fact of
the subject ``openai-agents/<session id>`` keyed by its position (``source_ref``
``00000001``, ``00000002``, ...); ``pop_item`` and ``clear_session`` end items
(``retract``), they never erase them, so the whole conversation stays in history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInput
from graphmem.integrations.keyed import KeyedItems, Stored
from graphmem.normalize import check_text

if TYPE_CHECKING:
    from graphmem.memory import Memory

__all__ = ["PREDICATE", "GraphmemSession"]

#: The multi-valued predicate a session's items are facts of.
PREDICATE = "session_item"
#: The first namespace label of every session (its subject is ``openai-agents/<id>``).
ROOT = "openai-agents"


class GraphmemSession:
    """Conversation memory for the OpenAI Agents SDK (``Runner.run(..., session=...)``).

    Args:
        session_id: the conversation's id; sessions with different ids never share items.
        memory: an open memory (``graphmem.open(...)``).
        session_settings: the SDK's ``SessionSettings`` (its ``limit`` is the default of
            :meth:`get_items`), or ``None``.

    Raises:
        InvalidInput: a blank ``session_id`` or something that is not a memory.
    """

    def __init__(self, session_id: str, memory: Memory, *, session_settings: Any = None) -> None:
        if not check_text(session_id, what="session_id").strip():
            raise InvalidInput(f"session_id={session_id!r} is blank; pass the conversation's id")
        self.session_id = session_id
        self.session_settings = session_settings
        self.memory = memory
        self._items = KeyedItems(memory, predicate=PREDICATE, what="the OpenAI Agents session")
        self._namespace = (ROOT, session_id)

    def _current(self) -> list[Stored]:
        return sorted(self._items.items(self._namespace), key=lambda s: s.key)

    def _limit(self, limit: int | None) -> int | None:
        if limit is None and self.session_settings is not None:
            limit = getattr(self.session_settings, "limit", None)
            if isinstance(self.session_settings, Mapping):
                limit = self.session_settings.get("limit")
        if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)):
            raise InvalidInput(f"limit={limit!r} must be an integer or None")
        return limit

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """Return the conversation, oldest first; with ``limit``, its latest ``limit`` items.

        ``limit`` defaults to ``session_settings.limit``; ``0`` returns none and a negative
        limit all (the SDK's SQLite session's rules).

        Raises:
            InvalidInput: a limit that is not an integer.
        """
        n = self._limit(limit)
        items = [s.value for s in self._current()]
        if n is None or n < 0:
            return items
        return items[max(0, len(items) - n) :] if n else []

    async def add_items(self, items: Sequence[Any]) -> None:
        """Append items (JSON objects) to the conversation, in one write.

        Raises:
            InvalidInput: an item that is not a JSON object (nothing is written).
        """
        if isinstance(items, (str, bytes, Mapping)) or not isinstance(items, Sequence):
            raise InvalidInput(
                f"items={items!r} is not a list of items; pass e.g. "
                "[{'role': 'user', 'content': '...'}]"
            )
        if not items:
            return
        # The next position follows every position ever used (ended ones too), so a popped
        # item's key is never reused: its history stays its own.
        used = self._items.keys_ever(self._namespace)
        start = 1 + max((int(k) for k in used if k.isdigit()), default=0)
        self._items.put_many(
            (self._namespace, f"{start + i:08d}", item) for i, item in enumerate(items)
        )

    async def pop_item(self) -> Any:
        """Remove and return the latest item (it ends; history keeps it); ``None`` when empty."""
        current = self._current()
        if not current:
            return None
        last = current[-1]
        self._items.delete(self._namespace, last.key)
        return last.value

    async def clear_session(self) -> None:
        """End every item of the conversation in one write (history keeps them)."""
        self._items.delete_all(self._namespace)
