"""Adapters that put a graphmem memory where agent frameworks keep theirs.

Each adapter lives in its own module and imports its framework only when that module is
imported, so ``import graphmem.integrations`` costs nothing and needs no extra:

- :mod:`graphmem.integrations.langgraph`: :class:`~graphmem.integrations.langgraph.GraphmemStore`,
  a LangGraph ``BaseStore`` (``pip install 'graphmem[langgraph]'``; docs/integrations/langgraph.md);
- :mod:`graphmem.integrations.openai_agents`:
  :class:`~graphmem.integrations.openai_agents.GraphmemSession`, an OpenAI Agents SDK
  ``Session`` (``pip install 'graphmem[openai-agents]'``; docs/integrations/openai-agents.md).

Both keep their items as facts through :mod:`graphmem.integrations.keyed`: a namespace is a
subject (a scope), a key is an identity key (``source_ref``), so a new value supersedes the
old one, which stays in history.
"""

from __future__ import annotations

__all__: list[str] = []
