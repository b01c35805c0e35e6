"""Provenance and trust: authority and confidence decide supersession; disputes; explain.

See docs/concepts/decisions.md#authority-and-disputes.
"""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner
from old_schema import make_old_schema

import graphmem as gm
from graphmem.cli import cli
from graphmem.store import open_store
from graphmem.timeutil import ManualClock
from graphmem.trust import NotDisputed, Trust, gate, is_disputed, is_open_dispute
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


def objects(mem: gm.Memory, subject: str = "api", **kw: object) -> list[str]:
    return sorted(f.object for f in mem.facts(subject=subject, **kw))


# -- the rules --------------------------------------------------------------------------------


def test_lower_authority_is_disputed_and_never_current(mem: gm.Memory, clock: ManualClock) -> None:
    first = mem.add_fact("api", "runs_on", "Go", source_type="user")
    clock.set("2026-02-01")
    r = mem.add_fact("api", "runs_on", "Rust", source_type="agent", source="s-9")
    assert r.decision is gm.Decision.DISPUTE
    assert r.superseded == ()
    assert r.fact is not None
    assert is_open_dispute(r.fact)
    assert r.fact.expired_at == r.fact.recorded_at  # closed at birth
    assert "user outranks agent" in (r.fact.reason or "")
    assert first.fact is not None
    assert first.fact.id in (r.fact.reason or "")
    assert objects(mem) == ["Go"]
    assert objects(mem, known_at="2026-03-01") == ["Go"]
    assert [f.object for f in mem.history("api")] == ["Go"]
    assert "Rust" in [f.object for f in mem.history("api", include_expired=True)]
    assert [d.id for d in mem.disputes()] == [r.fact.id]
    assert mem.search("what does the api run on?", kinds="fact")[0].text.count("Rust") == 0
    report = gm.check.check(mem)
    assert report.ok
    assert not [p for p in report.problems if p.code == "empty-system-interval"]


@pytest.mark.parametrize(
    ("current", "new", "disputed"),
    [
        ("user", "agent", True),
        ("user", "tool", True),
        ("import", "system", True),
        ("tool", "tool", False),  # equal authority supersedes as today
        ("agent", "user", False),  # higher authority supersedes
        (None, "agent", False),  # an unranked version is not protected
        ("user", None, False),  # an unranked write is not refused for authority
    ],
)
def test_authority_order(
    mem: gm.Memory, clock: ManualClock, current: str | None, new: str | None, disputed: bool
) -> None:
    mem.add_fact("api", "runs_on", "Go", source_type=current)
    clock.set("2026-02-01")
    r = mem.add_fact("api", "runs_on", "Rust", source_type=new)
    assert (r.decision is gm.Decision.DISPUTE) is disputed
    assert objects(mem) == (["Go"] if disputed else ["Rust"])


def test_confidence_floor(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("api", "runs_on", "Go", confidence=0.9)
    clock.set("2026-02-01")
    low = mem.add_fact("api", "runs_on", "Rust", confidence=0.3)
    assert low.decision is gm.Decision.DISPUTE
    assert "confidence 0.3 is below the floor 0.5" in (low.fact.reason or "")  # type: ignore[union-attr]
    at_floor = mem.add_fact("api", "runs_on", "Zig", confidence=0.5)
    assert at_floor.decision is gm.Decision.SUPERSEDE
    # a low-confidence value may be replaced by another low one
    clock.set("2026-03-01")
    mem.add_fact("db", "version", "15", confidence=0.2)
    assert mem.add_fact("db", "version", "16", confidence=0.1).decision is gm.Decision.SUPERSEDE


def test_configured_trust(clock: ManualClock) -> None:
    with backends.memory(clock=clock, trust=Trust(order=("agent", "user"))) as mem:
        mem.add_fact("api", "runs_on", "Go", source_type="agent")
        assert mem.add_fact("api", "runs_on", "Rust", source_type="user").decision is (
            gm.Decision.DISPUTE
        )
        # a type left out of the order ranks below every listed one
        assert mem.add_fact("api", "runs_on", "Zig", source_type="tool").decision is (
            gm.Decision.DISPUTE
        )
    with backends.memory(clock=clock, trust=Trust(confidence_floor=0.0)) as mem:
        mem.add_fact("api", "runs_on", "Go")
        assert mem.add_fact("api", "runs_on", "Rust", confidence=0.01).decision is (
            gm.Decision.SUPERSEDE
        )


def test_negation_and_retraction_of_a_higher_authority(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("alice", "works_at", "Acme", source_type="user")
    clock.set("2026-02-01")
    r = mem.add_fact(
        "alice",
        "works_at",
        "Acme",
        statement="Alice no longer works at Acme",
        source_type="agent",
    )
    assert r.decision is gm.Decision.DISPUTE
    assert (r.fact.reason or "").startswith("disputed end: agent ends 'Acme'")  # type: ignore[union-attr]
    assert objects(mem, "alice") == ["Acme"]
    clock.set("2026-02-02")
    accepted = mem.resolve_dispute(r.fact.id, accept=True)  # type: ignore[union-attr]
    assert accepted.decision is gm.Decision.INVALIDATE
    assert objects(mem, "alice") == []
    assert objects(mem, "alice", valid_at="2026-01-15") == ["Acme"]


def test_multi_valued_add_is_never_disputed(mem: gm.Memory) -> None:
    mem.add_fact("alice", "uses", "vim", source_type="user")
    assert mem.add_fact("alice", "uses", "emacs", source_type="agent").decision is gm.Decision.ADD
    # a duplicate of a user's fact from the agent is a reinforcement, not a dispute
    assert mem.add_fact("alice", "uses", "vim", source_type="agent").decision is gm.Decision.NOOP


def test_free_text_note_of_a_user_is_protected(mem: gm.Memory, clock: ManualClock) -> None:
    mem.remember("The weekly demo happens on Fridays at ten", subject="team", source_type="user")
    clock.set("2026-02-01")
    r = mem.remember(
        "The weekly demo happens on Fridays at eleven", subject="team", source_type="agent"
    )
    decisions = {str(x.decision) for x in r.results}
    if "dispute" in decisions:  # the similarity band made it a supersession attempt
        notes = [f.object for f in mem.facts(subject="team", predicate="note")]
        assert notes == ["The weekly demo happens on Fridays at ten"]


def test_batch_same_call(mem: gm.Memory) -> None:
    results = mem.add_facts(
        [
            {"subject": "api", "predicate": "runs_on", "object": "Go", "source_type": "user"},
            {"subject": "api", "predicate": "runs_on", "object": "Rust", "source_type": "agent"},
        ]
    )
    assert [str(r.decision) for r in results] == ["add", "dispute"]
    assert objects(mem) == ["Go"]


def test_gate_is_pure() -> None:
    import datetime as dt

    from graphmem.temporal import plan_assert

    t = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    cur = gm.Fact(
        id="f1", subject="api", predicate="runs_on", object="Go", valid_from=t,
        recorded_at=t, source_type="user",
    )  # fmt: skip
    new = cur.model_copy(
        update={"id": "f2", "object": "Rust", "source_type": "agent",
                "valid_from": t + dt.timedelta(days=1), "recorded_at": t + dt.timedelta(days=1)}
    )  # fmt: skip
    plan = gate(plan_assert(new, [cur], cardinality="one"), new, Trust())
    assert plan.decision is gm.Decision.DISPUTE
    assert not plan.closes
    assert plan.fact is not None
    assert is_disputed(plan.fact)
    assert gate(plan_assert(new, [cur], cardinality="one"), new, Trust(order=("agent",))).closes


# -- resolve_dispute --------------------------------------------------------------------------


def test_accept_supersedes_from_the_disputed_valid_from(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("api", "runs_on", "Go", source_type="user", valid_from="2025-01-01")
    clock.set("2026-02-01")
    r = mem.add_fact("api", "runs_on", "Rust", source_type="agent", valid_from="2025-06-01")
    clock.set("2026-03-01")
    done = mem.resolve_dispute(r.fact.id, accept=True, reason="user confirmed")  # type: ignore[union-attr]
    assert done.decision is gm.Decision.SUPERSEDE
    assert done.fact is not None
    assert done.fact.object == "Rust"
    assert done.fact.source_type == "agent"
    assert done.fact.valid_from == gm.to_utc("2025-06-01")
    assert objects(mem) == ["Rust"]
    assert objects(mem, valid_at="2025-03-01") == ["Go"]
    assert mem.disputes() == []
    settled = mem.disputes(include_settled=True)
    assert len(settled) == 1
    assert (settled[0].reason or "").startswith("dispute accepted")
    assert "user confirmed" in (settled[0].reason or "")
    # what we believed before the resolution is unchanged
    assert objects(mem, known_at="2026-02-15") == ["Go"]
    actions = [c.action for c in mem.changes(since="2026-01-01")]
    assert actions.count("disputed") == 1
    assert actions.count("resolved") == 1


def test_reject_closes_with_a_reason(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("api", "runs_on", "Go", source_type="user")
    clock.set("2026-02-01")
    r = mem.add_fact("api", "runs_on", "Rust", source_type="agent")
    clock.set("2026-02-02")
    done = mem.resolve_dispute(r.fact.id, accept=False, reason="wrong service")  # type: ignore[union-attr]
    assert done.decision is gm.Decision.NOOP
    assert done.fact is not None
    assert (done.fact.reason or "").startswith("dispute rejected on 2026-02-02: wrong service")
    assert mem.get_fact(r.fact.id).reason == done.fact.reason  # type: ignore[union-attr]
    assert objects(mem) == ["Go"]
    assert mem.disputes() == []
    assert "dispute rejected" in str(mem.history("api", include_expired=True))


def test_resolve_bad_input_writes_nothing(mem: gm.Memory, clock: ManualClock) -> None:
    current = mem.add_fact("api", "runs_on", "Go", source_type="user")
    clock.set("2026-02-01")
    r = mem.add_fact("api", "runs_on", "Rust", source_type="agent")
    before = mem.count_versions()
    with pytest.raises(gm.NotFound, match="no fact version with id 'nope'"):
        mem.resolve_dispute("nope", accept=True)
    with pytest.raises(NotDisputed, match="not disputed; resolve_dispute takes the id of an open"):
        mem.resolve_dispute(current.fact.id, accept=True)  # type: ignore[union-attr]
    with pytest.raises(gm.InvalidInput, match="accept='yes' must be True"):
        mem.resolve_dispute(r.fact.id, accept="yes")  # type: ignore[union-attr,arg-type]
    mem.resolve_dispute(r.fact.id, accept=False)  # type: ignore[union-attr]
    with pytest.raises(NotDisputed, match="already settled"):
        mem.resolve_dispute(r.fact.id, accept=True)  # type: ignore[union-attr]
    assert mem.count_versions() == before
    assert objects(mem) == ["Go"]


def test_bad_trust_and_source_type() -> None:
    with pytest.raises(gm.InvalidInput, match="names 'usr', not a source type"):
        Trust(order=("usr",))
    with pytest.raises(gm.InvalidInput, match="names a source type twice"):
        Trust(order=("user", "user"))
    with pytest.raises(gm.InvalidInput, match=r"confidence_floor=1.5\) must be a number from 0"):
        Trust(confidence_floor=1.5)
    with pytest.raises(gm.InvalidInput, match="must be a graphmem.Trust"):
        gm.open(trust={"order": ["user"]})  # type: ignore[arg-type]


def test_bad_write_input_names_the_value(mem: gm.Memory) -> None:
    with pytest.raises(gm.InvalidInput, match="source_type='boss' is invalid"):
        mem.add_fact("api", "runs_on", "Go", source_type="boss")
    with pytest.raises(gm.InvalidInput, match="confidence=1.2 must be a number from 0 to 1"):
        mem.add_fact("api", "runs_on", "Go", confidence=1.2)
    with pytest.raises(gm.InvalidInput, match="source_type='boss' is invalid"):
        mem.facts(source_type="boss")
    assert mem.count_versions() == 0


# -- who said it, everywhere ------------------------------------------------------------------


def test_source_type_is_stored_and_filtered(mem: gm.Memory) -> None:
    mem.add_fact("api", "runs_on", "Go", source_type="user", confidence=0.8, source="s-1")
    mem.add_fact("api", "uses", "Redis", source_type="tool")
    mem.add_fact("api", "uses", "Kafka")
    assert [f.object for f in mem.facts(source_type="tool")] == ["Redis"]
    assert [f.object for f in mem.facts(subject="api", source_type="user", limit=5)] == ["Go"]
    assert mem.facts(source_type="user", limit=0) == []
    go = mem.facts(source_type="user")[0]
    assert (go.source_type, go.confidence, go.source) == ("user", 0.8, "s-1")
    text = mem.why(go.id).describe()
    assert "'Go' valid [2026-01-01, open) by user, confidence 0.8 from session s-1" in text


def test_why_shows_the_dispute(mem: gm.Memory, clock: ManualClock) -> None:
    first = mem.add_fact("api", "runs_on", "Go", source_type="user")
    clock.set("2026-02-01")
    mem.add_fact("api", "runs_on", "Rust", source_type="agent")
    text = mem.why(first.fact.id).describe()  # type: ignore[union-attr]
    assert "2026-02-01 disputed 'Rust' valid [2026-02-01, open) by agent" in text
    assert "disputed: agent says 'Rust' from 2026-02-01, but 'Go' by user stays current" in text


def test_session_speakers_carry_their_source_type(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_session(
        "user: We deploy with Docker Compose.\nassistant: Noted, the api runs on Go.",
        started_at="2026-01-01",
    )
    by = {f.object: f.source_type for f in mem.facts()}
    assert by == {"Docker Compose": "user", "Go": "agent"}
    clock.set("2026-02-01")
    mem.add_session("assistant: We deploy with Kubernetes now.", started_at="2026-02-01")
    assert [f.object for f in mem.facts(predicate="deploys_with")] == ["Docker Compose"]
    assert [d.object for d in mem.disputes()] == ["Kubernetes"]
    clock.set("2026-03-01")
    mem.add_session("user: We deploy with Kubernetes now.", started_at="2026-03-01")
    assert [f.object for f in mem.facts(predicate="deploys_with")] == ["Kubernetes"]


# -- explain ----------------------------------------------------------------------------------


def test_explain_three_readings(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01", source_type="tool")
    clock.set("2026-06-10")
    mem.add_fact("api", "runs_on", "Go", valid_from="2025-06-01", source_type="user")
    r = mem.explain("api", "runs on", at="2026-03-01")
    assert [f.object for f in r.now] == ["Go"]
    assert [f.object for f in r.then] == ["Go"]
    assert [f.object for f in r.believed] == ["Laravel"]
    assert r.believed[0].source_type == "tool"
    assert r.predicate == "runs_on"
    early = mem.explain("api", "runs_on", at="2024-06-01")
    assert [f.object for f in early.then] == ["Laravel"]
    assert early.believed == ()
    assert "believed: nothing" in str(early)
    assert json.loads(json.dumps(r.to_json()))["believed"][0]["source_type"] == "tool"


# -- context ----------------------------------------------------------------------------------


def test_context_notes_open_disputes(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("api", "runs_on", "Go", source_type="user")
    clock.set("2026-02-01")
    r = mem.add_fact("api", "runs_on", "Rust", source_type="agent")
    text = str(mem.context("what does the api run on?"))
    assert "- api runs_on Go (since 2026-01-01) (disputed by agent on 2026-02-01: Rust)" in text
    assert "Rust" not in text.replace("disputed by agent on 2026-02-01: Rust", "")
    before = str(mem.context("api", known_at="2026-01-15", valid_at="2026-01-15"))
    assert "disputed" not in before
    during = str(mem.context("api", known_at="2026-02-01T12:00Z", valid_at="2026-02-01T12:00Z"))
    clock.set("2026-02-02")
    mem.resolve_dispute(r.fact.id, accept=False)  # type: ignore[union-attr]
    assert "disputed" not in str(mem.context("what does the api run on?"))
    after = str(mem.context("api", known_at="2026-02-01T12:00Z", valid_at="2026-02-01T12:00Z"))
    assert after == during
    assert "disputed by agent" in after


def test_context_as_of_bumps_no_counter(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("api", "runs_on", "Go")
    clock.set("2026-02-01")
    mem.context("api", known_at="2026-01-15", valid_at="2026-01-15")
    assert mem.facts()[0].access_count == 0
    mem.context("api")
    assert mem.facts()[0].access_count == 1


# -- schema upgrade ---------------------------------------------------------------------------


def test_schema_2_database_is_upgraded_in_place(db_path: str, clock: ManualClock) -> None:
    store = open_store(db_path, engine=ENGINE)
    with gm.open(store=store, clock=clock) as mem:
        mem.add_fact("api", "runs_on", "Go")
        make_old_schema(store, "2")  # no source_type or scope columns
    clock.set("2026-02-01")
    store = open_store(db_path, engine=ENGINE)
    with gm.open(store=store, clock=clock) as mem:
        assert store.get_meta("schema_version") == "4"
        assert [(f.object, f.source_type) for f in mem.facts()] == [("Go", None)]
        # an unranked version is not protected
        assert mem.add_fact("api", "runs_on", "Rust", source_type="agent").decision is (
            gm.Decision.SUPERSEDE
        )
        assert gm.check.check(mem).ok


# -- CLI and MCP ------------------------------------------------------------------------------


def test_cli(db_path: str) -> None:
    runner = CliRunner()
    env = {"GRAPHMEM_ENGINE": ENGINE}

    def run(*args: str) -> str:
        result = runner.invoke(cli, ["--db", db_path, *args], env=env)
        assert result.exit_code == 0, result.output
        return result.output

    run("add", "api", "runs_on", "Go", "--source-type", "user", "--valid-from", "2024-01-01")
    out = run("add", "api", "runs_on", "Rust", "--source-type", "agent", "--confidence", "0.9")
    assert out.startswith("dispute: api runs_on Rust")
    listed = json.loads(run("disputes", "--json"))
    assert [d["object"] for d in listed] == ["Rust"]
    assert listed[0]["source_type"] == "agent"
    assert "disputed: agent says 'Rust'" in run("disputes")
    assert "Go" in run("facts", "--source-type", "user")
    assert "(no facts)" in run("facts", "--source-type", "agent")
    readings = json.loads(run("explain", "api", "runs_on", "--at", "2025-01-01", "--json"))
    assert [f["object"] for f in readings["now"]] == ["Go"]
    assert "now:" in run("explain", "api", "runs_on", "--at", "2025-01-01")
    out = run("resolve-dispute", listed[0]["id"], "--accept", "true")
    assert out.startswith("accepted: supersede")
    assert "(no disputes)" in run("disputes")
    bad = runner.invoke(
        cli, ["--db", db_path, "resolve-dispute", listed[0]["id"], "--accept", "false"]
    )
    assert bad.exit_code == 1
    assert "already settled" in bad.output


def test_mcp_tools(clock: ManualClock) -> None:
    pytest.importorskip("mcp")
    from mcp_tools import call_tool

    from graphmem.mcp_server import build_server

    with backends.memory(clock=clock) as mem:
        mem.add_fact("api", "runs_on", "Go", source_type="user", source="s-1")
        server = build_server(mem)
        clock.set("2026-02-01")
        out = call_tool(server, "remember", subject="api", predicate="runs_on", object="Rust")
        assert out.startswith("dispute: api runs_on Rust")
        assert "[by agent]" in out
        listed = call_tool(server, "disputes")
        assert "disputed: agent says 'Rust'" in listed
        fid = listed.rsplit("(id ", 1)[1].rstrip(")")
        facts = call_tool(server, "facts_as_of", subject="api")
        assert "[by user, session s-1]" in facts
        readings = call_tool(server, "explain", subject="api", predicate="runs_on", at="2026-01-15")
        assert "believed: 'Go'" in readings
        assert "disputed: 'Rust'" in readings
        out = call_tool(server, "resolve_dispute", fact_id=fid, accept=False)
        assert out.startswith("noop")
        assert "dispute rejected" in out
        assert call_tool(server, "disputes") == "No open disputes."
        said = call_tool(
            server,
            "remember",
            subject="api",
            predicate="runs_on",
            object="Zig",
            source_type="user",
        )
        assert said.startswith("supersede")


def test_falkordb_schema_2_graph_is_upgraded(falkordb_url: str, clock: ManualClock) -> None:
    store = open_store(falkordb_url)
    with gm.open(store=store, clock=clock) as mem:
        mem.add_fact("api", "runs_on", "Go")
        store._w("MATCH (m:Meta {key: 'schema_version'}) SET m.value = '2'", {})  # type: ignore[attr-defined]
    clock.set("2026-02-01")
    store = open_store(falkordb_url)
    with gm.open(store=store, clock=clock) as mem:
        assert store.get_meta("schema_version") == "4"
        assert [(f.object, f.source_type) for f in mem.facts()] == [("Go", None)]
        mem.add_fact("api", "runs_on", "Rust", source_type="agent", confidence=0.2)
        assert [d.object for d in mem.disputes()] == ["Rust"]
        d = mem.disputes()[0]
        mem.resolve_dispute(d.id, accept=False)
        assert (mem.get_fact(d.id).reason or "").startswith("dispute rejected")
        assert [f.object for f in mem.facts()] == ["Go"]
