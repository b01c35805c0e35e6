"""GraphmemSession: the OpenAI Agents SDK's Session protocol over a memory, against SQLiteSession.

See docs/integrations/openai-agents.md.
"""

from __future__ import annotations

import asyncio
import importlib.util
import itertools
from types import ModuleType
from typing import Any

import pytest

if importlib.util.find_spec("agents") is None:
    pytest.skip(
        "the OpenAI Agents SDK is not installed (pip install -e '.[dev]')", allow_module_level=True
    )

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import graphmem as gm  # noqa: E402
from graphmem.integrations.openai_agents import GraphmemSession  # noqa: E402
from graphmem.timeutil import ManualClock  # noqa: E402
from tests import backends


def sdk() -> ModuleType:
    """``agents.memory``, imported by the tests that use it, not at collection: importing the
    SDK takes seconds, which every xdist worker would pay to collect this file."""
    import agents.memory

    return agents.memory


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def msg(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "content": text}


def test_it_is_an_sdk_session(mem: gm.Memory) -> None:
    assert isinstance(GraphmemSession("s", mem), sdk().Session)


def test_add_get_pop_clear(mem: gm.Memory, clock: ManualClock) -> None:
    s = GraphmemSession("chat-1", mem)
    other = GraphmemSession("chat-2", mem)
    run(s.add_items([msg("user", "Hi"), msg("assistant", "Hello!")]))
    clock.advance(seconds=1)
    run(s.add_items([msg("user", "I no longer use Jenkins")]))
    run(other.add_items([msg("user", "elsewhere")]))
    assert run(s.get_items()) == [
        msg("user", "Hi"),
        msg("assistant", "Hello!"),
        msg("user", "I no longer use Jenkins"),
    ]
    assert run(s.get_items(limit=2)) == [
        msg("assistant", "Hello!"),
        msg("user", "I no longer use Jenkins"),
    ]
    assert run(s.get_items(limit=0)) == []
    clock.advance(seconds=1)
    assert run(s.pop_item()) == msg("user", "I no longer use Jenkins")
    clock.advance(seconds=1)
    run(s.add_items([msg("user", "Bye")]))
    assert run(s.get_items()) == [msg("user", "Hi"), msg("assistant", "Hello!"), msg("user", "Bye")]
    clock.advance(seconds=1)
    run(s.clear_session())
    assert run(s.get_items()) == []
    assert run(s.pop_item()) is None
    run(s.clear_session())  # clearing an empty session is fine
    assert run(other.get_items()) == [msg("user", "elsewhere")]
    # nothing was erased: every item is still in the history
    history = mem.history("openai-agents/chat-1", include_expired=True)
    assert len({f.source_ref for f in history}) == 4


def test_session_settings_limit(mem: gm.Memory) -> None:
    s = GraphmemSession("c", mem, session_settings=sdk().SessionSettings(limit=1))
    run(s.add_items([msg("user", "a"), msg("user", "b")]))
    assert run(s.get_items()) == [msg("user", "b")]
    assert len(run(s.get_items(limit=5))) == 2


def test_bad_input(mem: gm.Memory) -> None:
    with pytest.raises(gm.InvalidInput, match="session_id"):
        GraphmemSession("  ", mem)
    s = GraphmemSession("c", mem)
    with pytest.raises(gm.InvalidInput, match="not a list"):
        run(s.add_items(msg("user", "a")))  # type: ignore[arg-type]
    with pytest.raises(gm.InvalidInput, match="not a dict"):
        run(s.add_items(["just text"]))
    with pytest.raises(gm.InvalidInput, match="limit"):
        run(s.get_items(limit="3"))  # type: ignore[arg-type]
    assert mem.count_versions() == 0


_ops = st.lists(
    st.one_of(
        st.tuples(st.just("add"), st.lists(st.sampled_from(["hi", "no longer", "ok"]), max_size=3)),
        st.tuples(st.just("get"), st.one_of(st.none(), st.integers(-1, 4))),
        st.tuples(st.just("pop"), st.none()),
        st.tuples(st.just("clear"), st.none()),
    ),
    max_size=10,
)
_counter = itertools.count()


@pytest.fixture(scope="module")
def shared() -> Any:
    clock = ManualClock("2026-01-01T00:00:00Z")
    with backends.memory(clock=clock) as m:
        yield m, clock


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=_ops)
def test_the_same_calls_give_what_the_sdks_sqlite_session_gives(
    shared: Any, ops: list[Any]
) -> None:
    mem, clock = shared
    sid = f"s{next(_counter)}"
    ours, oracle = GraphmemSession(sid, mem), sdk().SQLiteSession(sid)

    async def both() -> None:
        for kind, arg in ops:
            clock.advance(seconds=1)
            if kind == "add":
                items = [msg("user", t) for t in arg]
                await ours.add_items(items)
                await oracle.add_items(items)
            elif kind == "get":
                assert await ours.get_items(arg) == await oracle.get_items(arg)
            elif kind == "pop":
                assert await ours.pop_item() == await oracle.pop_item()
            else:
                await ours.clear_session()
                await oracle.clear_session()
        assert await ours.get_items() == await oracle.get_items()

    try:
        run(both())
    finally:
        oracle.close()


def test_an_agent_run_keeps_its_conversation_in_the_session(mem: gm.Memory) -> None:
    from agents import Agent, RunConfig, Runner
    from agents.items import ModelResponse
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import ResponseOutputMessage, ResponseOutputText

    class Echo(Model):
        """A model that answers how many input items it saw (offline: no API call)."""

        async def get_response(
            self, system_instructions: Any, input: Any, *a: Any, **k: Any
        ) -> Any:
            n = len(input) if isinstance(input, list) else 1
            text = ResponseOutputText(type="output_text", text=f"seen {n}", annotations=[])
            out = ResponseOutputMessage(
                id="m", type="message", role="assistant", status="completed", content=[text]
            )
            return ModelResponse(output=[out], usage=Usage(), response_id=None)

        def stream_response(self, *a: Any, **k: Any) -> Any:
            raise NotImplementedError

    session = GraphmemSession("chat", mem)
    agent = Agent(name="echo", model=Echo())
    config = RunConfig(tracing_disabled=True)

    async def talk() -> tuple[Any, Any]:
        first = await Runner.run(agent, "Hi, I'm Alice", session=session, run_config=config)
        second = await Runner.run(agent, "What's my name?", session=session, run_config=config)
        return first.final_output, second.final_output

    assert run(talk()) == ("seen 1", "seen 3")  # the second run saw the first exchange
    items = run(session.get_items())
    assert [i.get("role") for i in items] == ["user", "assistant", "user", "assistant"]
    assert items[0]["content"] == "Hi, I'm Alice"
