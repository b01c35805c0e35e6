"""The graph page (graphmem.view): self-contained, its data the memory's versions, its filter
the rule of facts(valid_at=, known_at=). The browser half is tests/test_view_browser.py."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.cli import cli
from graphmem.timeutil import ManualClock
from graphmem.view import graph_html, show, view_data, visible_ids
from graphmem.view.data import FOLD_LIMIT, instant
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
UTC = dt.timezone.utc
ROOT = Path(__file__).resolve().parents[1]


def embedded(page: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="graphmem-data">(.*?)</script>', page)
    assert found, "no embedded data"
    return json.loads(found.group(1))  # type: ignore[no-any-return]


def small(clock: ManualClock) -> gm.Memory:
    mem = backends.memory(clock=clock)
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01", source="s-1")
    mem.add_fact("api", "owned_by", "Team A", valid_from="2024-01-01")
    mem.add_fact("Team A", "uses", "Postgres", valid_from="2023-01-01")
    clock.set("2026-06-10")
    mem.add_fact("api", "runs on", "Go", source="s-42", statement="We moved the API to Go")
    mem.retract("Team A", "uses", "Postgres", at="2026-03-01")
    return mem


@pytest.fixture
def memory(clock: ManualClock) -> Any:
    with small(clock) as mem:
        yield mem


def test_the_page_requests_nothing_from_the_network(memory: gm.Memory) -> None:
    page = show(memory).html
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I)
    assert not re.search(r"<link\b|<script[^>]*\bsrc=|@import|url\(\s*['\"]?https?:", page, re.I)
    # the only URL is the SVG namespace, an identifier that is never fetched
    assert set(re.findall(r"https?://[^\s\"'<>)]+", page)) == {"http://www.w3.org/2000/svg"}


def test_the_embedded_versions_are_every_version(memory: gm.Memory) -> None:
    data = embedded(show(memory).html)
    names = [e["n"] for e in data["entities"]]
    stored = {
        f.id: f for name in names for f in memory.history(name, include_expired=True)
    }  # every subject's versions, current and closed
    assert {r["id"] for r in data["versions"]} == set(stored)
    for r in data["versions"]:
        f = stored[r["id"]]
        assert (names[r["s"]], r["p"], names[r["o"]]) == (f.subject, f.predicate, f.object)
        assert (r["vf"], r.get("vt"), r["ra"], r.get("ea")) == (
            instant(f.valid_from),
            instant(f.valid_to),
            instant(f.recorded_at),
            instant(f.expired_at),
        )
        assert (r.get("why"), r.get("by"), r.get("src")) == (f.reason, f.superseded_by, f.source)


def test_the_chains_are_why(memory: gm.Memory) -> None:
    data = embedded(show(memory).html)
    chains: dict[int, set[str]] = {}
    for r in data["versions"]:
        chains.setdefault(r["c"], set()).add(r["id"])
    for r in data["versions"]:
        assert chains[r["c"]] == {v.id for v in memory.why(r["id"]).chain}, r


def test_the_filter_at_every_step_is_facts(memory: gm.Memory) -> None:
    data = view_data(memory)
    assert data["meta"]["valid_at"] == data["meta"]["now"] == instant(memory.now())
    for v in data["valid_steps"]:
        for k in data["known_steps"]:
            t, s = dt.datetime.fromisoformat(v + "+00:00"), dt.datetime.fromisoformat(k + "+00:00")
            want = sorted(f.id for f in memory.facts(valid_at=t, known_at=s))
            assert visible_ids(data, t, s) == want, (v, k)


# -- the property: any memory, any instant ---------------------------------------------------

SUBJECTS = ["alice", "bob", "carol"]
OBJECTS = ["A", "B", "C"]
PREDICATES = ["works_at", "uses"]  # single-valued, multi-valued
YEARS = list(range(2000, 2010))

op = st.tuples(
    st.sampled_from(["add", "add", "retract"]),
    st.sampled_from(SUBJECTS),
    st.sampled_from(PREDICATES),
    st.sampled_from(OBJECTS),
    st.sampled_from(YEARS),
    st.one_of(st.none(), st.integers(1, 4)),
    # the clock's step before the write: none, a microsecond, a second (a backfill), a year
    st.sampled_from([0, 1, 1_000_000, 365 * 86400 * 10**6]),
)


@pytest.mark.slow  # a long property: CI's slow family runs it
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    st.lists(op, min_size=1, max_size=10),
    st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=8),
)
def test_the_embedded_filter_is_facts_on_any_memory(ops: list[Any], probes: Any) -> None:
    clock = ManualClock("2010-01-01")
    with backends.memory(clock=clock) as mem:
        for kind, s, p, o, y, length, step in ops:
            clock.set(mem.now() + dt.timedelta(microseconds=step))
            start = dt.datetime(y, 1, 1, tzinfo=UTC)
            if kind == "add":
                end = None if length is None else start.replace(year=y + length)
                mem.add_fact(s, p, o, valid_from=start, valid_to=end)
            else:
                with contextlib.suppress(gm.NotFound):
                    mem.retract(s, p, o, at=start)
        data = view_data(mem)
        vs = [dt.datetime.fromisoformat(x + "+00:00") for x in data["valid_steps"]]
        ks = [dt.datetime.fromisoformat(x + "+00:00") for x in data["known_steps"]]
        # the steps themselves (interval ends) and instants a microsecond either side
        for i, j in probes:
            for dv in (-1, 0, 1):
                for dk in (-1, 0, 1):
                    v = vs[i % len(vs)] + dt.timedelta(microseconds=dv)
                    k = ks[j % len(ks)] + dt.timedelta(microseconds=dk)
                    want = sorted(f.id for f in mem.facts(valid_at=v, known_at=k))
                    assert visible_ids(data, v, k) == want


# -- the neighbourhood, the scope, large memories --------------------------------------------


def test_subject_and_hops_keep_the_neighbourhood_at_any_time(memory: gm.Memory) -> None:
    data = view_data(memory, subject="Team A", hops=1)
    names = {e["n"] for e in data["entities"]}
    assert names == {"Team A", "api", "Postgres"}
    assert [data["entities"][i]["n"] for i in data["subject"]] == ["Team A"]
    assert len(view_data(memory, subject="Team A", hops=2)["entities"]) == 5
    only = view_data(memory, subject="Team A", hops=0)
    assert [e["n"] for e in only["entities"]] == ["Team A"]
    assert only["versions"] == []


def test_scope_keeps_the_named_predicates(memory: gm.Memory) -> None:
    data = view_data(memory, scope=["runs on"])  # an alias resolves
    assert {r["p"] for r in data["versions"]} == {"runs_on"}
    assert data["meta"]["scope"] == ["runs_on"]


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"subject": "nobody"}, gm.NotFound, "'nobody'"),
        ({"subject": "api", "hops": -1}, gm.InvalidInput, "hops=-1"),
        ({"hops": True}, gm.InvalidInput, "hops=True"),
        ({"scope": ["flies_to"]}, gm.InvalidInput, "'flies_to'"),
        ({"valid_at": "yesteryear"}, gm.InvalidInput, "valid_at"),
    ],
)
def test_bad_input_names_the_value(
    memory: gm.Memory, kwargs: dict[str, Any], error: type[Exception], words: str
) -> None:
    with pytest.raises(error) as info:
        show(memory, **kwargs)
    assert words in str(info.value)
    assert isinstance(info.value, gm.GraphmemError)


def test_bad_paths_are_refused_and_nothing_is_written(memory: gm.Memory, tmp_path: Path) -> None:
    with pytest.raises(gm.InvalidInput, match="is a directory"):
        graph_html(memory, tmp_path)
    with pytest.raises(gm.InvalidInput, match="create it first"):
        graph_html(memory, tmp_path / "missing" / "graph.html")
    assert list(tmp_path.iterdir()) == []


def test_graph_html_writes_the_page_and_shows_inline(memory: gm.Memory, tmp_path: Path) -> None:
    out = tmp_path / "graph.html"
    view = graph_html(memory, out, valid_at="2025-01-01")
    assert out.read_text(encoding="utf-8") == view.html
    assert view.path == str(out)
    assert (view.entities, view.versions) == (5, 6)
    assert embedded(view.html)["meta"]["valid_at"] == "2025-01-01T00:00:00.000000"
    inline = view._repr_html_()
    assert inline.startswith("<iframe srcdoc=")
    assert "<script" not in inline
    assert str(view).startswith(f"graph page in {out}: 5 entities, 6 fact versions")


def test_a_value_cannot_close_the_script(clock: ManualClock) -> None:
    with backends.memory(clock=clock) as mem:
        mem.add_fact("x</script><script>alert(1)</script>", "likes", "y")
        page = show(mem).html
    assert page.count("</script>") == 2  # the data's and the viewer's
    assert "x</script>" in embedded(page)["entities"][0]["n"]


def test_large_memories_fold_and_lay_out_deterministically(clock: ManualClock) -> None:
    rows = [
        {"subject": f"p{i}", "predicate": "works_at", "object": f"org{i % 37}"}
        for i in range(FOLD_LIMIT + 100)
    ]
    with backends.memory(clock=clock) as mem:
        mem.add_facts(rows)
        one, two = view_data(mem), view_data(mem)
    assert one["entities"] == two["entities"]  # seeded layout and groups
    assert one["meta"]["fold_by"] == "hub"
    assert len(one["entities"]) > FOLD_LIMIT
    assert 1 < len(one["groups"]) <= 41
    assert all(0 <= e["x"] <= 1000 and 0 <= e["y"] <= 1000 for e in one["entities"])


# -- CLI and packaging -------------------------------------------------------------------------


def test_cli_writes_the_page(db_path: str, tmp_path: Path) -> None:
    runner = CliRunner()
    base = ["--db", db_path, "--engine", ENGINE]
    assert runner.invoke(cli, [*base, "add", "api", "runs_on", "Laravel"]).exit_code == 0
    out = tmp_path / "g.html"
    done = runner.invoke(cli, [*base, "view", "--subject", "api", "--out", str(out), "--json"])
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    assert (report["entities"], report["versions"]) == (2, 1)
    assert report["bytes"] == out.stat().st_size
    assert embedded(out.read_text(encoding="utf-8"))["meta"]["subject"] == "api"
    bad = runner.invoke(cli, [*base, "view", "--subject", "nobody", "--out", str(out)])
    assert bad.exit_code == 1
    assert bad.stderr.startswith("Error: NotFound: no entity named 'nobody'")


def test_the_page_assets_ship_as_package_data() -> None:
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    found = re.search(r"^graphmem = \[(.*)\]$", text, re.M)
    assert found, "no package-data line for graphmem in pyproject.toml"
    shipped = re.findall(r'"([^"]+)"', found.group(1))
    for name in ("template.html", "viewer.js", "viewer.css"):
        assert (ROOT / "graphmem" / "view" / name).is_file()
        assert any(Path("view", name).match(p) for p in shipped), (name, shipped)
