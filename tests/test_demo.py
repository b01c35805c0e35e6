"""``graphmem demo``, the README's first command: it replays the sample and tells its story."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

import graphmem as gm
from graphmem.cli import cli
from graphmem.datasets import sample
from graphmem.demo import demo_schedule, learning_schedule

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


def test_the_demo_tells_its_story(db_path: str) -> None:
    out = CliRunner().invoke(cli, ["--db", db_path, "--engine", ENGINE, "demo", "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["facts"] == len(sample())
    assert report["decisions"]["supersede"] > 0
    answers = "\n".join(report["answers"])
    # A history, an as-of answer, a belief revision and why it changed.
    assert "Where did Albert Einstein work?" in answers
    assert "Swiss Patent Office" in answers
    assert "as believed on" in answers
    assert "as known on" in answers
    assert "why: superseded by" in answers
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        assert mem.count_versions() == report["versions"]


def test_a_second_demo_on_the_same_db_is_refused(db_path: str) -> None:
    CliRunner().invoke(cli, ["--db", db_path, "--engine", ENGINE, "demo", "--json"])
    again = CliRunner().invoke(cli, ["--db", db_path, "--engine", ENGINE, "demo"])
    assert again.exit_code == 1
    assert "already exists" in again.output


def test_batches_of_a_decade_keep_every_row_in_order() -> None:
    yearly = learning_schedule(sample())
    decades = demo_schedule()
    assert len(decades) < len(yearly)
    assert [r for _, rows in decades for r in rows] == [r for _, rows in yearly for r in rows]
    days = [day for day, _ in decades]
    assert days == sorted(days)
    for day, rows in decades:  # learned on the span's last event day, never before a row starts
        assert all(row["valid_from"] <= day for row in rows)


def test_a_span_under_a_year_is_refused() -> None:
    with pytest.raises(gm.InvalidInput, match="years=0"):
        learning_schedule(sample(), years=0)
