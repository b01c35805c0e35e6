"""An OpenAI Agents SDK session kept in graphmem: pop and clear end items, history keeps them."""

import asyncio

import graphmem as gm
from graphmem.integrations.openai_agents import GraphmemSession
from graphmem.timeutil import ManualClock


async def main(mem: gm.Memory, clock: ManualClock) -> None:
    session = GraphmemSession("chat-42", mem)
    await session.add_items(
        [
            {"role": "user", "content": "Book a table for two"},
            {"role": "assistant", "content": "Which evening?"},
        ]
    )
    clock.set("2026-06-01T10:01:00Z")
    await session.add_items([{"role": "user", "content": "Friday, 8pm"}])
    print("latest 2:", await session.get_items(limit=2))
    clock.set("2026-06-01T10:02:00Z")
    print("popped:", await session.pop_item())
    print("now:", [i["content"] for i in await session.get_items()])
    clock.set("2026-06-01T10:03:00Z")
    await session.clear_session()
    print("after clear:", await session.get_items())
    # Runner.run(agent, "...", session=session) uses the same four calls.


clock = ManualClock("2026-06-01T10:00:00Z")
with gm.open(clock=clock) as mem:
    asyncio.run(main(mem, clock))
    kept = mem.history("openai-agents/chat-42", include_expired=True)
    print("versions kept:", len(kept), "| items:", sorted({f.source_ref for f in kept}))
