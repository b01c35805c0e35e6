"""``merge_entities(keep, other)``: one audited write that makes two entities one.

docs/concepts/decisions.md#merging-entities. The tests taking only ``mem`` run again on a
FalkorDB server (``tests/test_falkordb_memory.py``); the property runs on the embedded store.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graphmem as gm
from graphmem.cli import cli
from graphmem.errors import InvalidInput, NotFound
from graphmem.timeutil import ManualClock
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


def _objects(facts: list[gm.Fact]) -> list[tuple[str, str, str]]:
    return sorted((f.subject, f.predicate, f.object) for f in facts)


def _state(mem: gm.Memory, **query: Any) -> list[tuple[Any, ...]]:
    """An answer as comparable rows (every field a query returns)."""
    return sorted(
        (f.id, f.subject, f.predicate, f.object, f.valid_from, f.valid_to, f.recorded_at)
        for f in mem.facts(**query)
    )


def _postgres(mem: gm.Memory, clock: ManualClock) -> None:
    clock.set("2026-01-01")
    mem.add_fact("Postgres", "uses", "MVCC", valid_from="2020-01-01", source="s-1")
    mem.add_fact("api", "uses", "Postgres", valid_from="2024-01-01")
    mem.add_fact(
        "PostgreSQL",
        "license",
        "PostgreSQL License",
        valid_from="1996-07-08",
        statement="PostgreSQL is released under the PostgreSQL License",
        importance=7,
        source="s-2",
    )
    mem.add_fact("billing", "uses", "PostgreSQL", valid_from="2025-01-01", source_ref="cfg:db")


# -- the merge ----------------------------------------------------------------------------------


def test_merge_refiles_subject_and_object_facts(mem: gm.Memory, clock: ManualClock) -> None:
    _postgres(mem, clock)
    before = _state(mem, valid_at="2026-01-01", known_at="2026-01-01")
    believed = _objects(mem.believed(on="2026-01-01"))
    clock.set("2026-02-01")
    result = mem.merge_entities("Postgres", "PostgreSQL")

    assert (result.keep, result.other, result.moved) == ("Postgres", "PostgreSQL", 2)
    assert len(result.closed) == len(result.inserted) == 2
    assert result.conflicts == ()
    assert result.aliases == ("postgresql",)
    assert str(result).startswith(
        "merged 'PostgreSQL' into 'Postgres' on 2026-02-01: 2 versions re-filed (2 closed, "
        "2 written); 'postgresql' now resolves to 'Postgres'"
    )
    # keep shows both sets; other resolves to keep, as subject and as object
    assert _objects(mem.facts(subject="Postgres")) == [
        ("Postgres", "license", "PostgreSQL License"),
        ("Postgres", "uses", "MVCC"),
    ]
    assert _objects(mem.facts(subject="PostgreSQL")) == _objects(mem.facts(subject="postgres"))
    assert _objects(mem.facts(object="PostgreSQL")) == [
        ("api", "uses", "Postgres"),
        ("billing", "uses", "Postgres"),
    ]
    # everything but the id and the system interval is kept
    license_ = mem.facts(subject="Postgres", predicate="license")[0]
    assert license_.statement == "PostgreSQL is released under the PostgreSQL License"
    assert (license_.importance, license_.source, str(license_.valid_from.date())) == (
        7,
        "s-2",
        "1996-07-08",
    )
    billing = mem.facts(subject="billing")[0]
    assert billing.source_ref == "cfg:db"
    assert billing.id in result.inserted
    # the old versions are closed, not edited
    closed = [f for f in mem.history("billing", include_expired=True) if f.expired_at]
    assert [(f.object, f.reason, f.superseded_by) for f in closed] == [
        ("PostgreSQL", "merged into 'Postgres'", billing.id)
    ]
    # the audit view of either name shows the versions the merge closed
    audit = mem.history("PostgreSQL", include_expired=True)
    assert [(f.subject, f.object, f.reason) for f in audit if f.expired_at] == [
        ("PostgreSQL", "PostgreSQL License", "merged into 'Postgres'")
    ]
    assert _objects(mem.history("postgres", include_expired=True)) == [
        ("PostgreSQL", "license", "PostgreSQL License"),
        ("Postgres", "license", "PostgreSQL License"),
        ("Postgres", "uses", "MVCC"),
    ]
    assert _objects(mem.facts(subject="postgresql", known_at="2026-01-01")) == [
        ("PostgreSQL", "license", "PostgreSQL License"),
        ("Postgres", "uses", "MVCC"),
    ]
    # what was believed before the merge is unchanged
    assert _state(mem, valid_at="2026-01-01", known_at="2026-01-01") == before
    assert _objects(mem.believed(on="2026-01-01")) == believed
    assert mem.check().ok, mem.check().problems


def test_later_writes_resolve_to_keep(mem: gm.Memory, clock: ManualClock) -> None:
    mem.define_entity("PostgreSQL", kind="tool", aliases=["pgsql"])
    mem.add_fact("PostgreSQL", "version", "16", valid_from="2025-01-01")
    mem.add_fact("Postgres", "uses", "MVCC", valid_from="2020-01-01")
    clock.advance(days=1)
    result = mem.merge_entities("Postgres", "PostgreSQL")
    assert result.aliases == ("pgsql", "postgresql")
    clock.advance(days=1)
    mem.add_fact("pgsql", "version", "17", valid_from="2026-01-02")
    mem.add_fact("api", "uses", "PostgreSQL")
    assert _objects(mem.facts(subject="postgres")) == [
        ("Postgres", "uses", "MVCC"),
        ("Postgres", "version", "17"),
    ]
    assert _objects(mem.facts(object="Postgres")) == [("api", "uses", "Postgres")]
    assert mem.check().ok, mem.check().problems


def test_the_later_valid_from_stays_current(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("Postgres", "version", "15", valid_from="2024-01-01")  # keep's, earlier
    mem.add_fact("PostgreSQL", "version", "16", valid_from="2025-06-01")  # other's, later
    mem.add_fact("Dr. Ana Ruiz", "lives_in", "Madrid", valid_from="2025-01-01")  # keep's, later
    mem.add_fact("Ana", "lives_in", "Sevilla", valid_from="2019-01-01")  # other's, earlier
    clock.set("2026-02-01")

    pg = mem.merge_entities("Postgres", "PostgreSQL")
    assert [str(c) for c in pg.conflicts] == [
        "Postgres version: '16' from 2025-06-01 stays, '15' ends there"
    ]
    assert [(f.object, f.valid_from.year, f.valid_to) for f in mem.history("postgres")] == [
        ("15", 2024, gm.to_utc("2025-06-01")),
        ("16", 2025, None),
    ]
    ended = mem.get_fact(pg.conflicts[0].ended_version)
    assert ended.expired_at == gm.to_utc("2026-02-01")
    assert ended.reason is not None
    assert ended.reason.startswith("superseded by '16' from 2025-06-01 (version is single-valued)")
    assert ended.reason.endswith("(merging 'PostgreSQL' into 'Postgres')")

    clock.advance(days=1)
    ana = mem.merge_entities("Dr. Ana Ruiz", "Ana")
    assert [str(c) for c in ana.conflicts] == [
        "Dr. Ana Ruiz lives_in: 'Madrid' from 2025-01-01 stays, 'Sevilla' ends there"
    ]
    assert [(f.object, f.valid_to) for f in mem.history("Ana", "lives_in")] == [
        ("Sevilla", gm.to_utc("2025-01-01")),
        ("Madrid", None),
    ]
    assert [f.object for f in mem.facts(subject="Ana", valid_at="2020-01-01")] == ["Sevilla"]
    # Names resolve as they do now: before the merge, Ana and Dr. Ana Ruiz were two beliefs.
    assert _objects(mem.believed(on="2026-01-15", subject="Ana")) == [
        ("Ana", "lives_in", "Sevilla"),
        ("Dr. Ana Ruiz", "lives_in", "Madrid"),
    ]
    assert mem.check().ok, mem.check().problems


def test_values_from_the_same_instant_are_refused(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("Postgres", "version", "15", valid_from="2024-01-01")
    mem.add_fact("PostgreSQL", "version", "16", valid_from="2024-01-01")
    mem.add_fact("PostgreSQL", "uses", "MVCC", valid_from="2020-01-01")
    clock.advance(days=1)
    count = mem.count_versions()
    with pytest.raises(InvalidInput) as err:
        mem.merge_entities("Postgres", "PostgreSQL")
    message = str(err.value)
    assert "Postgres version: '15' and '16' both from 2024-01-01" in message
    assert "retract the wrong value" in message
    assert "Nothing was written" in message
    assert mem.count_versions() == count
    assert _objects(mem.facts(subject="PostgreSQL")) == [
        ("PostgreSQL", "uses", "MVCC"),
        ("PostgreSQL", "version", "16"),
    ]
    mem.retract("PostgreSQL", "version", "16", at="2024-01-01")
    clock.advance(days=1)
    assert mem.merge_entities("Postgres", "PostgreSQL").moved == 1
    assert _objects(mem.facts(subject="postgresql")) == [
        ("Postgres", "uses", "MVCC"),
        ("Postgres", "version", "15"),
    ]


def test_duplicates_join_what_keep_holds(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("Postgres", "uses", "MVCC", valid_from="2020-01-01")
    mem.add_fact("PostgreSQL", "uses", "MVCC", valid_from="2021-01-01")
    mem.add_fact("Postgres", "lives_in", "Berkeley", valid_from="2020-01-01")
    mem.add_fact("PostgreSQL", "lives_in", "Berkeley", valid_from="2019-01-01")
    clock.advance(days=1)
    result = mem.merge_entities("Postgres", "PostgreSQL")
    assert result.conflicts == ()
    rows = [(f.predicate, f.object, f.valid_from.year) for f in mem.history("Postgres")]
    assert sorted(rows) == [("lives_in", "Berkeley", 2019), ("uses", "MVCC", 2020)]
    assert all(f.access_count == 0 for f in mem.history("Postgres"))
    assert mem.check().ok, mem.check().problems


def test_a_fact_between_the_two(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("PostgreSQL", "forked_from", "Postgres", valid_from="1996-01-01")
    mem.add_fact("Postgres", "knows", "PostgreSQL", valid_from="1996-01-01")
    clock.advance(days=1)
    result = mem.merge_entities("Postgres", "PostgreSQL")
    assert result.moved == 2
    assert _objects(mem.facts(subject="Postgres")) == [
        ("Postgres", "forked_from", "Postgres"),
        ("Postgres", "knows", "Postgres"),
    ]
    assert mem.check().ok, mem.check().problems


def test_bad_merges_are_clear_errors(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("Postgres", "uses", "MVCC")
    mem.define_entity("Postgres", aliases=["pg"])
    mem.remember("we should vacuum weekly", subject="Postgres")
    count = mem.count_versions()
    with pytest.raises(InvalidInput, match="are the same entity 'Postgres'; pass two different"):
        mem.merge_entities("Postgres", "pg")
    with pytest.raises(NotFound, match=r"other='Nobody' names no entity .*check the spelling"):
        mem.merge_entities("Postgres", "Nobody")
    with pytest.raises(NotFound, match=r"keep='Nobody' names no entity"):
        mem.merge_entities("Nobody", "Postgres")
    with pytest.raises(InvalidInput, match=r"keep=' ' is empty"):
        mem.merge_entities(" ", "Postgres")
    note = next(f for f in mem.facts(subject="Postgres") if f.predicate == "note")
    with pytest.raises(InvalidInput, match="is the text of a note, not an entity"):
        mem.merge_entities("Postgres", note.object)
    assert mem.count_versions() == count


def test_a_merge_is_audited(mem: gm.Memory, clock: ManualClock) -> None:
    _postgres(mem, clock)
    clock.set("2026-02-01")
    result = mem.merge_entities("Postgres", "PostgreSQL")
    changes = [str(c) for c in mem.changes(since="2026-02-01")]
    assert changes == [
        "2026-02-01 merged: 'PostgreSQL' into 'Postgres': 2 versions re-filed, 0 conflicts",
        "2026-02-01 merged: PostgreSQL license 'PostgreSQL License' [1996-07-08, open) — "
        "merged into 'Postgres'",
        "2026-02-01 merged: billing uses 'PostgreSQL' [2025-01-01, open) — merged into 'Postgres'",
    ]
    new = mem.facts(subject="Postgres", predicate="license")[0]
    assert new.id in result.inserted
    text = mem.why(new.id).describe()
    assert "2026-01-01 learned  'PostgreSQL License'" in text
    assert "2026-02-01 closed   merged into 'Postgres'" in text
    old = mem.why(result.closed[0])
    assert any(v.id in result.inserted for v in old.chain)


def test_session_mentions_stay_where_they_were_recorded(mem: gm.Memory, clock: ManualClock) -> None:
    """docs/concepts/decisions.md#merging-entities: mentions are not re-filed."""
    mem.add_session("We tuned PostgreSQL.", started_at="2026-01-01", mentions=["PostgreSQL"])
    mem.add_fact("Postgres", "uses", "MVCC")
    clock.set("2026-01-02")
    mem.merge_entities("Postgres", "PostgreSQL")
    mem.add_session("PostgreSQL again.", started_at="2026-01-02", mentions=["PostgreSQL"])
    topics = {t.topic: t.hits for t in mem.hot_topics(now="2026-01-03")}
    assert topics.get("Postgres") == 1
    assert topics.get("PostgreSQL") == 1


def test_a_purge_erases_the_merged_entity_too(mem: gm.Memory, clock: ManualClock) -> None:
    mem.add_fact("Dr. Ana Ruiz", "lives_in", "Madrid", valid_from="2025-01-01")
    mem.add_fact("Ana", "lives_in", "Sevilla", valid_from="2019-01-01")
    mem.add_fact("Bob", "knows", "Ana")
    mem.add_session("Ana called about the move.", started_at="2026-01-01", mentions=["Ana"])
    clock.advance(days=1)
    mem.merge_entities("Dr. Ana Ruiz", "Ana")
    clock.advance(days=1)
    summary = mem.purge("Ana", reason="asked to be forgotten")
    assert (summary.versions, summary.entities, summary.mentions) == (5, 4, 1)
    assert mem.facts(known_at="2026-01-01") == []
    assert mem.history("Bob", include_expired=True) == []
    assert "Ana" not in (mem.sessions()[0].text or "")
    with pytest.raises(NotFound):
        mem.purge("Dr. Ana Ruiz", reason="again")
    report = mem.check()
    assert report.ok, report.problems


def test_a_merged_memory_exports_and_imports(mem: gm.Memory, clock: ManualClock) -> None:
    import io

    from graphmem.export import export_memory, import_memory

    _postgres(mem, clock)
    clock.set("2026-02-01")
    mem.merge_entities("Postgres", "PostgreSQL")
    buffer = io.StringIO()
    export_memory(mem, buffer)
    buffer.seek(0)
    with backends.memory(clock=clock) as copy:
        import_memory(copy, buffer)
        assert _objects(copy.facts(subject="PostgreSQL")) == _objects(mem.facts(subject="Postgres"))
        assert _state(copy, known_at="2026-01-15") == _state(mem, known_at="2026-01-15")
        report = copy.check()
        assert report.ok, report.problems


# -- the time rules -----------------------------------------------------------------------------

NAMES = ("ana", "ann", "bob", "x", "y")
DAYS = [f"2020-0{m}-01" for m in range(1, 8)]


@st.composite
def _memories(draw: st.DrawFn) -> list[tuple[str, str, str, str, str | None]]:
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        start = draw(st.integers(0, len(DAYS) - 2))
        end = draw(st.one_of(st.none(), st.integers(start + 1, len(DAYS) - 1)))
        rows.append(
            (
                draw(st.sampled_from(NAMES[:3])),
                draw(st.sampled_from(("lives_in", "uses"))),
                draw(st.sampled_from(NAMES)),
                DAYS[start],
                None if end is None else DAYS[end],
            )
        )
    return rows


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(rows=_memories(), pair=st.sampled_from([("ana", "ann"), ("ann", "ana"), ("ana", "x")]))
def test_answers_known_before_a_merge_never_change(
    rows: list[tuple[str, str, str, str, str | None]], pair: tuple[str, str]
) -> None:
    """docs/concepts/time.md#rule-2: any facts(valid_at=V, known_at=K) with K before the merge
    is identical before and after it, whether it merges, resolves conflicts or refuses."""
    clock = ManualClock("2026-01-01")
    with backends.memory(clock=clock) as mem:
        for i, (s, p, o, vf, vt) in enumerate(rows):
            clock.set(f"2026-01-{i + 1:02d}")
            mem.add_fact(s, p, o, valid_from=vf, valid_to=vt)
        knowns = [f"2026-01-{i + 1:02d}" for i in range(len(rows))]
        points = [(v, k) for v in DAYS for k in knowns]
        before = {pt: _state(mem, valid_at=pt[0], known_at=pt[1]) for pt in points}
        clock.set("2026-02-01")
        keep, other = pair
        try:
            mem.merge_entities(keep, other)
        except NotFound:
            return  # a name never written
        except InvalidInput as exc:
            refused = str(exc)
        else:
            refused = "both from"
        assert "both from" in refused
        after = {pt: _state(mem, valid_at=pt[0], known_at=pt[1]) for pt in points}
        assert after == before
        report = mem.check()
        assert report.ok, report.problems


# -- the surfaces -------------------------------------------------------------------------------


def test_cli_round_trip(db_path: str) -> None:
    runner = CliRunner()

    def run(*args: str) -> Any:
        return runner.invoke(cli, ["--db", db_path, "--engine", ENGINE, *args])

    assert run("add", "PostgreSQL", "version", "16", "--valid-from", "2025-06-01").exit_code == 0
    assert run("add", "Postgres", "version", "15", "--valid-from", "2024-01-01").exit_code == 0
    out = run("merge-entities", "Postgres", "PostgreSQL", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert (data["keep"], data["other"], data["moved"]) == ("Postgres", "PostgreSQL", 1)
    assert data["conflicts"][0]["kept"] == "16"
    again = run("merge-entities", "Postgres", "PostgreSQL")
    assert again.exit_code == 1
    assert "are the same entity 'Postgres'" in again.stderr
    run("add", "Ana", "lives_in", "Sevilla")
    run("add", "Dr. Ana Ruiz", "lives_in", "Madrid", "--valid-from", "2020-01-01")
    text = run("merge-entities", "Dr. Ana Ruiz", "Ana")
    assert text.exit_code == 0, text.output
    assert text.stdout.startswith("merged 'Ana' into 'Dr. Ana Ruiz' on ")
    assert "conflict: Dr. Ana Ruiz lives_in: 'Sevilla' from " in text.stdout
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        assert [f.object for f in mem.facts(subject="postgresql")] == ["16"]


def test_mcp_round_trip(mem: gm.Memory, clock: ManualClock) -> None:
    pytest.importorskip("mcp")
    from mcp_tools import call_tool

    from graphmem.mcp_server import _sdk, build_server

    server = build_server(mem)
    call_tool(server, "remember", subject="PostgreSQL", predicate="version", object="16")
    call_tool(server, "remember", subject="api", predicate="uses", object="PostgreSQL")
    call_tool(server, "remember", subject="Postgres", predicate="uses", object="MVCC")
    clock.advance(days=1)
    out = call_tool(server, "merge_entities", keep="Postgres", other="PostgreSQL")
    assert out.startswith("merged 'PostgreSQL' into 'Postgres' on 2026-01-02: 2 versions")
    facts = call_tool(server, "facts_as_of", subject="PostgreSQL")
    assert "Postgres version 16" in facts
    assert "Postgres uses MVCC" in facts
    with pytest.raises(_sdk()[1], match="names no entity"):
        call_tool(server, "merge_entities", keep="Postgres", other="Nobody")
