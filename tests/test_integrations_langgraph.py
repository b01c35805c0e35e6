"""GraphmemStore: a LangGraph BaseStore over a memory, checked against LangGraph's InMemoryStore.

See docs/integrations/langgraph.md.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

pytest.importorskip("langgraph", reason="LangGraph is not installed (pip install -e '.[dev]')")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from langgraph.store.base import GetOp, InvalidNamespaceError, PutOp  # noqa: E402
from langgraph.store.memory import InMemoryStore  # noqa: E402

import graphmem as gm  # noqa: E402
from graphmem.integrations.langgraph import GraphmemStore, InvalidNamespace  # noqa: E402
from graphmem.timeutil import ManualClock  # noqa: E402
from tests import backends

NS = ("users", "alice")


@pytest.fixture
def store(mem: gm.Memory) -> GraphmemStore:
    return GraphmemStore(mem)


def test_put_get_search_delete_list(store: GraphmemStore, clock: ManualClock) -> None:
    store.put(NS, "prefs", {"theme": "dark", "size": 12})
    store.put(NS, "food", {"likes": ["pizza", "sushi"]})
    store.put(("users", "bob"), "prefs", {"theme": "light"})
    got = store.get(NS, "prefs")
    assert got is not None
    assert got.value == {"theme": "dark", "size": 12}
    assert (got.namespace, got.key) == (NS, "prefs")
    assert got.created_at == got.updated_at == clock()
    assert store.get(NS, "missing") is None
    assert store.get(("nobody",), "prefs") is None
    assert {i.key for i in store.search(NS)} == {"prefs", "food"}
    assert len(store.search(("users",))) == 3
    assert [i.namespace for i in store.search(("users",), filter={"theme": "light"})] == [
        ("users", "bob")
    ]
    assert store.list_namespaces() == [("users", "alice"), ("users", "bob")]
    assert store.list_namespaces(max_depth=1) == [("users",)]
    store.delete(NS, "prefs")
    assert store.get(NS, "prefs") is None
    store.delete(NS, "prefs")  # deleting what is gone is a no-op, as in LangGraph
    assert {i.key for i in store.search(NS)} == {"food"}


def test_async_forms(store: GraphmemStore) -> None:
    async def run() -> tuple[Any, ...]:
        await store.aput(NS, "k", {"v": 1})
        got = await store.aget(NS, "k")
        found = await store.asearch(NS)
        names = await store.alist_namespaces()
        await store.adelete(NS, "k")
        return got, found, names, await store.aget(NS, "k")

    got, found, names, gone = asyncio.run(run())
    assert got.value == {"v": 1}
    assert [i.key for i in found] == ["k"]
    assert names == [NS]
    assert gone is None


def test_a_put_supersedes_and_history_keeps_the_old_value(
    store: GraphmemStore, mem: gm.Memory, clock: ManualClock
) -> None:
    store.put(NS, "prefs", {"theme": "dark"})
    first = clock()
    clock.advance(minutes=5)
    store.put(NS, "prefs", {"theme": "light"})
    item = store.get(NS, "prefs")
    assert item is not None
    assert item.value == {"theme": "light"}
    assert item.created_at == first  # valid time: when the key got its first value
    assert item.updated_at == clock()  # system time: when this value was learned
    # one current fact for the key, the old value closed, never deleted
    current = mem.facts(subject="users/alice", predicate="store_item")
    assert len(current) == 1
    assert current[0].source_ref == "prefs"
    assert mem.count_versions() == 2
    old = store.get_as_of(NS, "prefs", known_at=first)
    assert old is not None
    assert old.value == {"theme": "dark"}
    assert [v.value for v in store.versions(NS, "prefs")] == [
        {"theme": "dark"},
        {"theme": "light"},
    ]
    chain = mem.why(current[0].id)
    assert "source_ref 'prefs'" in str(chain)
    # the same value again changes nothing
    clock.advance(minutes=5)
    store.put(NS, "prefs", {"theme": "light"})
    assert mem.count_versions() == 2
    assert store.get(NS, "prefs").updated_at == item.updated_at  # type: ignore[union-attr]


def test_delete_closes_never_erases(
    store: GraphmemStore, mem: gm.Memory, clock: ManualClock
) -> None:
    store.put(NS, "k", {"v": 1})
    before = clock()
    clock.advance(minutes=1)
    store.delete(NS, "k")
    assert store.get(NS, "k") is None
    assert store.get_as_of(NS, "k", known_at=before).value == {"v": 1}  # type: ignore[union-attr]
    ended = mem.history("users/alice", "store_item")
    assert len(ended) == 1
    assert ended[0].valid_to == clock()
    assert "deleted through the LangGraph store" in (
        mem.history("users/alice", include_expired=True)[0].reason or ""
    )
    clock.advance(minutes=1)
    store.put(NS, "k", {"v": 2})  # a new life for the key: a new created_at
    again = store.get(NS, "k")
    assert again is not None
    assert again.value == {"v": 2}
    assert again.created_at == clock()


def test_values_round_trip_losslessly(store: GraphmemStore) -> None:
    values = [
        {},
        {"text": "Alice no longer works at Acme"},  # a negation cue must not end the write
        {"text": "Retracted. Disregard the last note; it is wrong."},
        {"ünïcode": "日本語 – ✓", "nested": {"a": [1, 2.5, None, True, {"b": "c  d"}]}},
        {"big": 2**70, "neg": -0.0, "esc": 'line\nbreak\ttab "quoted" \\ back'},
        {"Case": "UPPER", "case": "lower"},
    ]
    for i, v in enumerate(values):
        store.put(NS, f"k{i}", v)
    for i, v in enumerate(values):
        got = store.get(NS, f"k{i}")
        assert got is not None, v
        assert got.value == v


def test_keys_and_namespaces_that_normalise_alike_stay_apart(store: GraphmemStore) -> None:
    store.put(("Users",), "K", {"v": 1})
    store.put(("users",), "K", {"v": 2})
    store.put(("users",), "k", {"v": 3})
    store.put(("users",), " k", {"v": 4})
    store.put(("a/b",), "k", {"v": 5})
    store.put(("a", "b"), "k", {"v": 6})
    assert store.get(("Users",), "K").value == {"v": 1}  # type: ignore[union-attr]
    assert store.get(("users",), "K").value == {"v": 2}  # type: ignore[union-attr]
    assert store.get(("users",), "k").value == {"v": 3}  # type: ignore[union-attr]
    assert store.get(("users",), " k").value == {"v": 4}  # type: ignore[union-attr]
    assert store.get(("a/b",), "k").value == {"v": 5}  # type: ignore[union-attr]
    store.delete(("users",), "k")
    assert store.get(("users",), "K").value == {"v": 2}  # type: ignore[union-attr]
    assert store.get(("users",), " k").value == {"v": 4}  # type: ignore[union-attr]
    assert store.list_namespaces(prefix=("a",)) == [("a", "b")]


def test_search_with_a_query_uses_graphmem_search(store: GraphmemStore) -> None:
    store.put(NS, "m1", {"text": "User prefers dark mode"})
    store.put(NS, "m2", {"text": "User likes pizza"})
    store.put(("users", "bob"), "m1", {"text": "Bob prefers dark mode too"})
    found = store.search(NS, query="dark mode")
    assert [(i.namespace, i.key) for i in found] == [(NS, "m1")]
    assert found[0].score is not None
    assert len(store.search(("users",), query="dark mode")) == 2
    assert store.search(("users",), query="dark mode", limit=1, offset=1)[0].key == "m1"
    assert store.search(NS, query="dark mode", filter={"text": "nope"}) == []


def test_filter_operators_match_langgraph(store: GraphmemStore) -> None:
    oracle = InMemoryStore()
    rows = [{"n": i, "tag": "even" if i % 2 == 0 else "odd", "d": {"x": i % 3}} for i in range(8)]
    for i, v in enumerate(rows):
        store.put(NS, f"k{i}", v)
        oracle.put(NS, f"k{i}", v)
    for flt in [
        {"tag": "odd"},
        {"n": {"$gt": 3}},
        {"n": {"$gte": 3, "$lt": 6}},
        {"n": {"$ne": 2}},
        {"d": {"x": 1}},
        {"tag": "even", "d": {"x": 0}},
        {"n": {"$eq": 7}},
    ]:
        ours = sorted(i.key for i in store.search(NS, filter=flt, limit=100))
        theirs = sorted(i.key for i in oracle.search(NS, filter=flt, limit=100))
        assert ours == theirs, flt


def test_list_namespaces_matches_langgraph(store: GraphmemStore) -> None:
    oracle = InMemoryStore()
    for ns in [("a",), ("a", "b"), ("a", "b", "c"), ("x", "b"), ("x", "y", "c"), ("b",)]:
        store.put(ns, "k", {"v": 1})
        oracle.put(ns, "k", {"v": 1})
    cases: list[dict[str, Any]] = [
        {},
        {"prefix": ("a",)},
        {"suffix": ("c",)},
        {"prefix": ("*", "b")},
        {"max_depth": 1},
        {"max_depth": 2, "prefix": ("x",)},
        {"limit": 2, "offset": 1},
    ]
    for kw in cases:
        assert store.list_namespaces(**kw) == oracle.list_namespaces(**kw), kw


def test_batch_reads_see_the_state_before_its_writes(store: GraphmemStore) -> None:
    store.put(NS, "k", {"v": 1})
    out = store.batch(
        [
            PutOp(NS, "k", {"v": 2}),
            GetOp(NS, "k"),
            PutOp(NS, "k", {"v": 3}),
            PutOp(NS, "new", {"v": 0}),
            PutOp(NS, "new", None),
        ]
    )
    oracle = InMemoryStore()
    oracle.put(NS, "k", {"v": 1})
    want = oracle.batch(
        [
            PutOp(NS, "k", {"v": 2}),
            GetOp(NS, "k"),
            PutOp(NS, "k", {"v": 3}),
            PutOp(NS, "new", {"v": 0}),
            PutOp(NS, "new", None),
        ]
    )
    assert [o.value if o else o for o in out] == [o.value if o else o for o in want]
    assert store.get(NS, "k").value == {"v": 3}  # type: ignore[union-attr]
    assert store.get(NS, "new") is None


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda s: s.put(NS, "k", {"t": (1, 2)}), "tuples"),
        (lambda s: s.put(NS, "k", {1: "x"}), "text dict keys"),
        (lambda s: s.put(NS, "k", {"x": float("nan")}), "not JSON"),
        (lambda s: s.put(NS, "k", {"x": object()}), "not JSON"),
        (lambda s: s.put(NS, "k", "text"), "not a dict"),
        (lambda s: s.put(NS, "", {"x": 1}), "non-empty"),
        (lambda s: s.put(NS, "k", {"x": "y" * 20_000}), "max_statement_chars"),
        (lambda s: s.batch([PutOp(NS, "k", {"x": 1}, ttl=5.0)]), "ttl"),
        (lambda s: s.batch([PutOp(("langgraph",), "k", {"x": 1})]), "langgraph"),
        (lambda s: s.batch([GetOp(("a.b",), "k")]), "'.'"),
        (lambda s: s.batch(["get"]), "not a LangGraph operation"),
        (lambda s: s.search(NS, filter={"n": {"$near": 1}}), "$near"),
    ],
)
def test_bad_input_raises_a_graphmem_error(
    store: GraphmemStore, mem: gm.Memory, call: Any, words: str
) -> None:
    with pytest.raises(gm.GraphmemError, match=None) as info:
        call(store)
    assert words in str(info.value)
    assert mem.count_versions() == 0


def test_a_bad_namespace_is_also_langgraphs_error(store: GraphmemStore) -> None:
    with pytest.raises(InvalidNamespaceError):
        store.batch([GetOp(("a", ""), "k")])
    assert issubclass(InvalidNamespace, gm.InvalidInput)


def test_a_bad_memory_is_refused() -> None:
    with pytest.raises(gm.InvalidInput, match="graphmem.open"):
        GraphmemStore("mem.db")  # type: ignore[arg-type]


def test_a_langgraph_graph_uses_the_store(store: GraphmemStore, clock: ManualClock) -> None:
    from typing import TypedDict

    from langgraph.graph import END, START, StateGraph
    from langgraph.store.base import BaseStore

    class State(TypedDict):
        user: str
        said: str
        seen: int

    def remember(state: State, *, store: BaseStore) -> dict[str, Any]:
        ns = ("memories", state["user"])
        store.put(ns, "last", {"said": state["said"]})
        return {"seen": len(store.search(ns))}

    graph = StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", END)
    app = graph.compile(store=store)
    first = clock()
    out = app.invoke({"user": "alice", "said": "I like tea", "seen": 0})
    assert out["seen"] == 1
    clock.advance(minutes=1)
    app.invoke({"user": "alice", "said": "I like coffee now", "seen": 0})
    assert store.get(("memories", "alice"), "last").value == {"said": "I like coffee now"}  # type: ignore[union-attr]
    before = store.get_as_of(("memories", "alice"), "last", known_at=first)
    assert before is not None
    assert before.value == {"said": "I like tea"}

    async def run() -> dict[str, Any]:
        return await app.ainvoke({"user": "bob", "said": "hello", "seen": 0})

    assert asyncio.run(run())["seen"] == 1


# -- the oracle: the same operations on LangGraph's InMemoryStore ---------------------------------

_labels = st.sampled_from(["a", "b", "Ab", "x y"])
_namespaces = st.lists(_labels, min_size=1, max_size=3).map(tuple)
_keys = st.sampled_from(["k", "K", "k2", "no longer"])
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
_values = st.dictionaries(st.sampled_from(["t", "n", "tag"]), _json, max_size=3)
_ops = st.lists(
    st.one_of(
        st.tuples(st.just("put"), _namespaces, _keys, _values),
        st.tuples(st.just("delete"), _namespaces, _keys, st.none()),
        st.tuples(st.just("get"), _namespaces, _keys, st.none()),
    ),
    max_size=12,
)
_counter = itertools.count()


@pytest.fixture(scope="module")
def shared() -> Any:
    clock = ManualClock("2026-01-01T00:00:00Z")
    with backends.memory(clock=clock) as m:
        yield GraphmemStore(m), clock


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=_ops)
def test_the_same_operations_give_what_langgraphs_store_gives(
    shared: Any, ops: list[tuple[str, tuple[str, ...], str, Any]]
) -> None:
    store, clock = shared
    root = f"run{next(_counter)}"  # each example in a namespace tree of its own
    oracle = InMemoryStore()
    for kind, ns, key, value in ops:
        ns = (root, *ns)
        clock.advance(seconds=1)
        if kind == "put":
            store.put(ns, key, value)
            oracle.put(ns, key, value)
        elif kind == "delete":
            store.delete(ns, key)
            oracle.delete(ns, key)
        else:
            ours, theirs = store.get(ns, key), oracle.get(ns, key)
            assert (ours and ours.value) == (theirs and theirs.value)

    def rows(items: Any) -> list[Any]:
        return sorted(((i.namespace, i.key, repr(i.value)) for i in items), key=repr)

    everything = oracle.search((root,), limit=1000)
    assert rows(store.search((root,), limit=1000)) == rows(everything)
    for prefix in [(root, "a"), (root, "Ab", "x y")]:
        assert rows(store.search(prefix, limit=1000)) == rows(oracle.search(prefix, limit=1000))
    assert len(store.search((root,), limit=3, offset=1)) == len(everything[1:4])
    assert store.list_namespaces(prefix=(root,)) == sorted({i.namespace for i in everything})
