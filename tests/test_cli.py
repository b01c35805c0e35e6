"""CLI behaviour of the core verbs: exit codes, one-line errors, --json, GRAPHMEM_DB, add-many."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

import graphmem as gm
from graphmem.cli import cli

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


Invoke = Callable[..., Result]


@pytest.fixture
def run(db_path: str) -> Invoke:
    runner = CliRunner()

    def invoke(*args: str, env: dict[str, str] | None = None, db: bool = True) -> Result:
        full = (["--db", db_path] if db else []) + ["--engine", ENGINE, *args]
        return runner.invoke(cli, full, env=env)

    return invoke


def _one_line_error(result: Result, kind: str) -> str:
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"Error: {kind}"), lines[0]
    return lines[0]


def _count(db_path: str) -> int:
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        return mem.count_versions()


def test_add_and_read_back_as_json(run: Invoke) -> None:
    first = run("add", "api", "runs_on", "Laravel", "--valid-from", "2024-01-01", "--json")
    assert first.exit_code == 0, first.output
    assert json.loads(first.stdout)["decision"] == "add"
    again = run("add", "api", "runs_on", "Laravel", "--valid-from", "2024-02-01", "--json")
    assert json.loads(again.stdout)["decision"] == "noop"
    go = run("add", "api", "runs_on", "Go", "--valid-from", "2026-06-01", "--json")
    data = json.loads(go.stdout)
    assert data["decision"] == "supersede"
    assert data["superseded"][0]["reason"]
    facts = json.loads(run("facts", "--subject", "api", "--json").stdout)
    assert [f["object"] for f in facts] == ["Go"]
    past = json.loads(run("facts", "--subject", "api", "--valid-at", "2025-01-01", "--json").stdout)
    assert [f["object"] for f in past] == ["Laravel"]
    believed = run("believed", "--on", "2030-01-01", "--json")
    assert believed.exit_code == 0
    assert isinstance(json.loads(believed.stdout), list)
    history = json.loads(run("history", "api", "--all", "--json").stdout)
    assert len(history) == 3
    assert run("history", "api").exit_code == 0  # the table view


@pytest.mark.parametrize(
    ("args", "kind", "fragment"),
    [
        (["add", "a", "b", "c", "--valid-from", "2026-13-45"], "InvalidInput", "2026-13-45"),
        (["add", "a", "b", "c", "--valid-from", "2026-06-10T12:00:00"], "InvalidInput", "offset"),
        (["add", "a", "b", "c", "--valid-from", "2026", "--valid-to", "2025"], "InvalidInput", ""),
        (["add", "a", "b", "c", "--importance", "nan"], "InvalidInput", "importance"),
        (["add", " ", "b", "c"], "InvalidInput", "subject"),
        (["add", "a", "!!", "c"], "InvalidInput", "predicate"),
        (["add", "a", "b", "c", "--statement", "no"], "InvalidInput", "statement"),
        (["retract", "nobody", "works_at"], "NotFound", "nobody"),
        (
            ["facts", "--valid-at", "some tuesday"],
            "InvalidInput",
            "--valid-at 'some tuesday' is not a date",
        ),
        (["believed", "--on", "x\ny"], "InvalidInput", ""),
    ],
)
def test_bad_input_is_one_line_and_exit_1(
    run: Invoke,
    args: list[str],
    kind: str,
    fragment: str,
) -> None:
    assert run("add", "seed", "is", "here").exit_code == 0
    before = _count_from(run)
    line = _one_line_error(run(*args), kind)
    assert fragment in line
    assert _count_from(run) == before  # nothing written


def _count_from(run: Invoke) -> int:
    return len(json.loads(run("history", "seed", "--include-expired", "--json").stdout))


@pytest.mark.parametrize(
    "args",
    [
        ["no-such-verb"],
        ["add", "only-one-arg"],
        ["facts", "--limit", "-1"],
        ["add-many", "/no/such.jsonl"],
    ],
)
def test_usage_errors_are_one_line_too(run: Invoke, args: list[str]) -> None:
    line = _one_line_error(run(*args), "")
    assert "--help" in line


def test_read_commands_need_an_existing_database(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.kuzu")
    result = CliRunner().invoke(cli, ["--db", missing, "facts"])
    line = _one_line_error(result, "NotFound: no database")
    assert missing in line
    assert not os.path.exists(missing)  # a read never creates a database


def test_graphmem_db_environment_variable(tmp_path: Path) -> None:
    env_db = str(tmp_path / "from-env.kuzu")
    flag_db = str(tmp_path / "from-flag.kuzu")
    runner = CliRunner()
    env = {"GRAPHMEM_DB": env_db}
    assert runner.invoke(cli, ["add", "a", "b", "c"], env=env).exit_code == 0
    assert os.path.exists(env_db)
    listed = runner.invoke(cli, ["facts", "--json"], env=env)
    assert [f["subject"] for f in json.loads(listed.stdout)] == ["a"]
    # --db wins over the environment.
    assert runner.invoke(cli, ["--db", flag_db, "add", "x", "y", "z"], env=env).exit_code == 0
    listed = runner.invoke(cli, ["--db", flag_db, "facts", "--json"], env=env)
    assert [f["subject"] for f in json.loads(listed.stdout)] == ["x"]


# -- add-many ---------------------------------------------------------------------------------

GOOD = [
    {"subject": "alice", "predicate": "works_at", "object": "ACME", "valid_from": "2020-01-01"},
    {"subject": "bob", "predicate": "works_at", "object": "Globex"},
    {"subject": "carol", "predicate": "lives_in", "object": "Paris", "statement": "she moved"},
]


def _jsonl(tmp_path: Path, lines: list[Any]) -> str:
    path = tmp_path / "facts.jsonl"
    out = b""
    for line in lines:
        if isinstance(line, dict):
            out += json.dumps(line).encode() + b"\n"
        elif isinstance(line, str):
            out += line.encode() + b"\n"
        else:
            out += line + b"\n"
    path.write_bytes(out)
    return str(path)


def _bad_file(tmp_path: Path) -> str:
    return _jsonl(
        tmp_path,
        [
            GOOD[0],  # line 1
            "",  # line 2: blank lines are skipped, and still counted
            "{not json",  # line 3
            GOOD[1],  # line 4
            "[1, 2]",  # line 5: not an object
            {"subject": "dave", "predicate": "works_at", "object": "X", "valid_from": "2026-13-01"},
            {"subject": "eve", "predicate": "works_at"},  # line 7: no object
            {"subject": "f", "predicate": "p", "object": "o", "colour": "red"},  # line 8
            b'{"subject": "g\xff", "predicate": "p", "object": "o"}',  # line 9: invalid UTF-8
            {"subject": "h", "predicate": "p", "object": "o", "importance": "NaN"},  # line 10
            GOOD[2],  # line 11
        ],
    )


def test_add_many_reports_bad_lines_and_writes_nothing(
    run: Invoke, tmp_path: Path, db_path: str
) -> None:
    assert run("add", "seed", "is", "here").exit_code == 0
    result = run("add-many", _bad_file(tmp_path))
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    numbers = [int(line.split(":")[0].split()[1]) for line in lines[:-1]]
    assert numbers == [3, 5, 6, 7, 8, 9, 10]
    assert "invalid JSON" in lines[0]
    assert "UTF-8" in lines[5]
    assert lines[-1].startswith("Error: InvalidInput: 7 bad line(s)")
    assert "nothing written" in lines[-1]
    assert _count(db_path) == 1  # only the seed


def test_add_many_skip_bad_writes_the_good_lines(run: Invoke, tmp_path: Path, db_path: str) -> None:
    result = run("add-many", _bad_file(tmp_path), "--skip-bad", "--json")
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["written"] == 3
    assert summary["skipped"] == 7
    assert "line 3" in result.stderr  # still reported
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        assert sorted(f.subject for f in mem.facts()) == ["alice", "bob", "carol"]


def test_add_many_good_file_and_bom(run: Invoke, tmp_path: Path, db_path: str) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"\n".join(json.dumps(g).encode() for g in GOOD) + b"\n")
    result = run("add-many", str(path))
    assert result.exit_code == 0, result.output
    assert "wrote 3 fact(s)" in result.stdout
    assert _count(db_path) == 3


def test_add_many_keeps_text_exactly(run: Invoke, tmp_path: Path, db_path: str) -> None:
    hostile = "') DETACH DELETE n // $param `x` \x00 \u202e ünï 👩‍👩‍👧"
    path = _jsonl(
        tmp_path,
        [
            {
                "subject": "s",
                "predicate": "said",
                "object": "o",
                "statement": hostile,
                "source": "$s",
            }
        ],
    )
    assert run("add-many", path).exit_code == 0
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        [fact] = mem.facts(subject="s")
        assert fact.statement == hostile
        assert fact.source == "$s"


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_add_session_refuses_a_blank_text(run: Invoke, db_path: str, text: str) -> None:
    assert run("add", "seed", "is", "here").exit_code == 0
    line = _one_line_error(run("add-session", text), "InvalidInput")
    assert f"text={text!r} is blank" in line
    assert "pass it as TEXT or on standard input" in line
    piped = CliRunner().invoke(cli, ["--engine", ENGINE, "--db", db_path, "add-session"], input="")
    assert _one_line_error(piped, "InvalidInput")
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        assert mem.sessions() == []
