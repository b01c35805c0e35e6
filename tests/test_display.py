"""graphmem.display: results read well in Jupyter (escaped HTML tables) and in print."""

from __future__ import annotations

import json

import pytest

import graphmem as gm
from graphmem import display
from graphmem.timeutil import ManualClock

EVIL = "<script>alert('x')</script> & co"


@pytest.fixture
def api(mem: gm.Memory, clock: ManualClock) -> gm.Memory:
    clock.set("2026-06-01")
    s = mem.add_session(started_at="2026-06-01", title="kickoff", mentions={"api": 2})
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2026-01-01", source=s.id)
    clock.set("2026-06-10")
    mem.add_fact("api", "runs_on", EVIL, valid_from="2026-06-01", source="s2")
    return mem


def test_fact_str_is_one_short_line(api: gm.Memory) -> None:
    (now,) = api.facts(subject="api")
    assert str(now) == f"api runs_on {EVIL} [2026-06-01 → now) learned 2026-06-10"
    old = next(f for f in api.history("api", include_expired=True) if f.expired_at)
    assert (
        str(old) == "api runs_on Laravel [2026-01-01 → now) learned 2026-06-01, closed 2026-06-10"
    )
    assert repr(now).startswith("Fact(id=")  # repr stays the full model


def test_fact_lists_stay_lists(api: gm.Memory) -> None:
    for result in (
        api.facts(subject="api"),
        api.history("api", include_expired=True),
        api.believed(on="2026-06-05", subject="api"),
    ):
        assert isinstance(result, list)
        assert isinstance(result, display.FactList)
        assert result == list(result)
        assert list(result) == result
        assert repr(result) == repr(list(result))
        json.dumps([f.model_dump(mode="json") for f in result])
    history = api.history("api", include_expired=True)
    assert str(history).splitlines() == [str(f) for f in history]
    assert json.loads(json.dumps(display.FactList([1, 2]))) == [1, 2]
    assert str(display.FactList()) == "(no results)"


def rows(html: str) -> int:
    return html.count("<tr>") - 1  # minus the header


def test_html_tables_escape_and_hold_every_row(api: gm.Memory) -> None:
    history = api.history("api", include_expired=True)
    html = history._repr_html_()
    assert "<script>" not in html
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; co" in html
    assert rows(html) == len(history) == 3
    import html as html_lib

    for f in history:
        assert f"<td>{html_lib.escape(f.object)}</td>" in html
    assert "current" in html
    assert "2026-06-10" in html
    one = history[-1]._repr_html_()
    assert rows(one) == 1
    assert "<script>" not in one


def test_tables_cut_long_results() -> None:
    many = display.ResultList([f"item {i}" for i in range(display.MAX_ROWS + 5)])
    html = many._repr_html_()
    assert rows(html) == display.MAX_ROWS + 1  # plus the "more" row
    assert "5 more not shown" in html
    assert display.ResultList()._repr_html_() == "<p><i>no results</i></p>"


def test_why_and_changes(api: gm.Memory) -> None:
    (now,) = api.facts(subject="api")
    e = api.why(now.id)
    assert str(e) == e.describe()
    html = e._repr_html_()
    assert "<script>" not in html
    events = e.describe().splitlines()[1:-1]  # minus the header and the sessions line
    assert rows(html.split("</table>")[0]) == len(events) == 4  # learned, closed, cut, new
    assert "kickoff" in html  # the recorded session
    assert "<td>s2</td>" in html
    assert "(not recorded)" in html
    changes = api.changes(since="2026-01-01")
    assert isinstance(changes, display.ResultList)
    assert rows(changes._repr_html_()) == len(changes) == 3
    assert "<script>" not in changes[0]._repr_html_() + changes._repr_html_()
    assert str(changes).splitlines() == [str(c) for c in changes]


def test_hot_topics_triage_and_context(api: gm.Memory) -> None:
    scores = api.hot_topics()
    assert isinstance(scores, display.ResultList)
    assert rows(scores._repr_html_()) == len(scores) >= 1
    assert str(scores[0]).startswith("api ")
    assert "HOT" in scores[0]._repr_html_() or "WARM" in scores[0]._repr_html_()
    triage = api.triage(limit=None)
    assert rows(triage._repr_html_()) == len(triage)
    assert all(t.topic in str(triage) for t in triage)
    assert str(triage[0]) == (
        f"{triage[0].topic} {triage[0].recommendation} {triage[0].composite:.2f} — "
        f"{triage[0].reason}"
    )
    block = api.context("what does the api run on?")
    assert isinstance(block, str)
    assert isinstance(block, display.ContextText)
    html = block._repr_html_()
    assert "<script>" not in html
    assert html.count("<li>") == len(block.splitlines()) - 1
