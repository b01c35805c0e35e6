"""benchmarks/memvara_peer.py: the rows memvara gets, the side-by-side table, the missing env.

See docs/benchmarks.md#memvara. The round trip through the worker runs only where memvara's own
env (benchmarks/.venv-memvara) exists: the test run never creates it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from benchmarks import data
from benchmarks import memvara_peer as mp
from benchmarks.run import T0, probes

UTC = dt.timezone.utc


def test_claims_keep_every_field_in_utc() -> None:
    cet = dt.timezone(dt.timedelta(hours=1))
    rows = [
        {"subject": "E1", "predicate": "p00", "object": "E2", "valid_from": data.BASE},
        {
            "subject": "E3",
            "predicate": "p01",
            "object": "E4",
            "valid_from": dt.datetime(2000, 1, 1, 1, tzinfo=cet),
            "valid_to": dt.datetime(2001, 1, 1, tzinfo=UTC),
        },
    ]
    assert mp.claims(rows) == [
        ["E1", "p00", "E2", "1990-01-01T00:00:00+00:00", None],
        ["E3", "p01", "E4", "2000-01-01T00:00:00+00:00", "2001-01-01T00:00:00+00:00"],
    ]


def test_workload_is_the_data_graphmem_gets() -> None:
    n, q = 500, 12
    spec = mp.workload(n, q, T0)
    assert spec["facts"] == mp.claims(data.facts(n))
    assert spec["predicates"] == data.predicates()
    assert [tuple(p) for p in spec["probes"]] == [(s, p, mp.iso(v)) for s, p, v in probes(n, q)]
    # the warm-up calls write too: 20 more rows than measured, the same ones graphmem writes
    assert spec["writes"] == mp.claims(data.single_writes(n, q + 20))
    assert spec["writes"][:q] == mp.claims(data.single_writes(n, q))
    assert spec["recorded_at"] < spec["known_at"]


def _result(system: str, facts: int, **extra: object) -> dict[str, object]:
    base: dict[str, object] = {
        "system": system,
        "facts": facts,
        "ingest_s": 2.0,
        "ingest_facts_per_s": facts // 2,
        "versions": facts - 1,
        "peak_rss_mb": 50,
        "disk_mb": 1.5,
    }
    return {**base, **extra}


def test_side_by_side_needs_a_memvara_row() -> None:
    assert mp.side_by_side([_result("sqlite", 10_000)]) == []


def test_side_by_side_groups_sizes_and_marks_what_a_system_lacks() -> None:
    timing = {"p50_ms": 0.5, "p95_ms": 1.25, "n": 300}
    results = [
        _result("memvara", 100_000, search=timing, ingest_peak_rss_mb=90, serve_peak_rss_mb=80),
        _result("sqlite", 10_000, add_fact=timing),
        _result("memvara", 10_000, search=timing),
        _result("append-sqlite", 10_000),  # not a row of this table
        {"system": "replay-kuzu"},
    ]
    lines = mp.side_by_side(results)
    assert len(lines) == 2 + 3
    assert [line.split(" | ")[0] for line in lines[2:]] == ["| sqlite", "| memvara", "| memvara"]
    cells = lines[2].strip("| ").split(" | ")
    assert cells[:5] == ["sqlite", "10,000", "2.0 (5,000)", "9,999", "0.50 / 1.25"]
    assert cells[5:11] == ["–"] * 6
    assert lines[4].strip("| ").split(" | ")[-2:] == ["90 / 80", "1.5"]
    assert lines[0].count("|") == lines[1].count("|") == lines[2].count("|")


def test_a_missing_env_is_named_with_how_to_create_it(tmp_path: Path) -> None:
    assert mp.venv_python(tmp_path) is None
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "python").touch()
    assert mp.venv_python(tmp_path) is None  # an env without memvara in it
    assert f"pip install memvara=={mp.VERSION} pysqlite3-binary" in mp.SETUP


@pytest.mark.slow  # a long test: CI's slow family runs it
@pytest.mark.skipif(
    mp.venv_python() is None,
    reason=f"memvara's env is absent ({mp.VENV}); see docs/benchmarks.md#memvara",
)
def test_the_worker_ingests_and_serves(tmp_path: Path) -> None:
    out = mp.work_memvara(200, 5, str(tmp_path), T0)
    assert out["system"] == "memvara"
    assert out["decisions"]["added"] > 0
    assert 0 < out["versions"] <= 200 + out["decisions"]["closed"]
    for key in ("asof_query", "current_of_subject", "history_slot", "search", "add_fact"):
        assert out[key]["n"] == 5
    assert out["remember"]["n"] == 100
    assert out["peak_rss_mb"] >= out["serve_peak_rss_mb"]
