"""A LangGraph graph whose node remembers through graphmem: a new value supersedes, history stays."""

from typing import TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore

import graphmem as gm
from graphmem.integrations.langgraph import GraphmemStore
from graphmem.timeutil import ManualClock


class State(TypedDict):
    user: str
    said: str


def remember(state: State, *, store: BaseStore) -> dict[str, str]:
    store.put(("users", state["user"]), "drink", {"likes": state["said"]})
    return {}


clock = ManualClock("2026-06-01")
with gm.open(clock=clock) as mem:
    store = GraphmemStore(mem)
    graph = StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", END)
    app = graph.compile(store=store)

    app.invoke({"user": "alice", "said": "tea"})
    clock.set("2026-06-10")
    app.invoke({"user": "alice", "said": "coffee"})

    item = store.get(("users", "alice"), "drink")
    print(item.value, "created", item.created_at.date(), "updated", item.updated_at.date())
    before = store.get_as_of(("users", "alice"), "drink", known_at="2026-06-05")
    print("believed on 2026-06-05:", before.value)
    print("versions:", [v.value["likes"] for v in store.versions(("users", "alice"), "drink")])
    print("search:", [i.key for i in store.search(("users",), query="coffee")])
    # The same item, seen as a graphmem fact: subject = namespace, source_ref = key.
    for f in mem.history("users/alice", include_expired=True):
        print(" ", f.predicate, f.source_ref, f.statement, "| closed:", f.reason)
