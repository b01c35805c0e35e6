"""The CLI's surfaces: sessions, one vocabulary, and the smaller surface defects.

``add-session`` and ``ingest``; the option names match the Python parameter names; ``--db``
after the subcommand; ``graphmem`` alone; ``add-many -``; JSON errors; hints in CLI terms; date
words; a closed Memory; full command summaries; short timestamps; the progress bars.
"""

from __future__ import annotations

import datetime as dt
import inspect
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

import graphmem as gm
from graphmem.cli import cli
from graphmem.cli.common import Progress, cli_message
from graphmem.timeutil import ManualClock
from tests import backends

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")

Invoke = Callable[..., Result]


@pytest.fixture
def run(db_path: str) -> Invoke:
    runner = CliRunner()

    def invoke(*args: str, input: str | None = None) -> Result:  # noqa: A002
        return runner.invoke(cli, ["--db", db_path, "--engine", ENGINE, *args], input=input)

    return invoke


def _ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


# -- sessions -------------------------------------------------------------------------------------


def test_add_session_from_argument_and_stdin(run: Invoke, db_path: str) -> None:
    out = _ok(
        run(
            "add-session",
            "We planned the Kafka migration with Alice.",
            "--at",
            "2026-06-01",
            "--id",
            "s1",
            "--title",
            "planning",
        )
    ).stdout
    assert out.startswith("session s1 (2026-06-01): planning\n")
    assert "mentions: " in out
    assert "Kafka" in out
    data = json.loads(
        _ok(
            run(
                "add-session",
                "-",
                "--started-at",
                "2026-06-02",
                "--session-id",
                "s2",
                "--json",
                input="Bob moved to Paris. We talked about Kafka again.",
            )
        ).stdout
    )
    assert data["session"]["id"] == "s2"
    assert "Kafka" in data["session"]["mentions"]
    assert all(r["decision"] in ("add", "noop", "supersede", "invalidate") for r in data["results"])
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        assert [s.id for s in mem.sessions()] == ["s1", "s2"]
        assert [t.topic for t in mem.hot_topics(now="2026-06-03")][:1] == ["Kafka"]


def test_ingest_jsonl_all_or_nothing_with_line_numbers(
    run: Invoke, db_path: str, tmp_path: Path
) -> None:
    path = tmp_path / "sessions.jsonl"
    path.write_text(
        json.dumps({"text": "We discussed Kafka.", "started_at": "2026-05-01", "id": "a"})
        + "\n"
        + "{not json\n"
        + json.dumps({"text": "Kafka again", "started_at": "2026-13-01"})
        + "\n"
        + json.dumps({"text": "x", "started_at": "2026-05-02", "when": "?"})
        + "\n"
        + json.dumps({"text": "Rust talk.", "started_at": "2026-05-03", "title": "rust"})
        + "\n",
        encoding="utf-8",
    )
    refused = run("ingest", str(path))
    assert refused.exit_code == 1
    assert "line 2: invalid JSON" in refused.stderr
    assert "line 3: started_at='2026-13-01' is not a valid date" in refused.stderr
    assert "line 4: unknown key(s) ['when']" in refused.stderr
    assert "3 bad session(s) in" in refused.stderr
    assert "nothing written" in refused.stderr
    assert not os.path.exists(db_path)
    as_json = run("ingest", str(path), "--json")
    error = json.loads(as_json.stderr.strip().splitlines()[-1])
    assert error["type"] == "InvalidInput"
    assert [m.split(":")[0] for m in error["bad_lines"]] == ["line 2", "line 3", "line 4"]
    dry = _ok(run("ingest", str(path), "--skip-bad", "--dry-run"))
    assert "would log line 1: 2026-05-01 a" in dry.stdout
    assert "would log line 5: 2026-05-03 (new id) rust" in dry.stdout
    assert not os.path.exists(db_path)
    done = _ok(run("ingest", str(path), "--skip-bad"))
    assert "logged 2 session(s), skipped 3" in done.stdout
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        sessions = mem.sessions()
        assert [s.started_at.date().isoformat() for s in sessions] == ["2026-05-01", "2026-05-03"]
        assert sessions[0].id == "a"
        assert sessions[1].title == "rust"


def test_ingest_a_folder_of_transcripts(run: Invoke, db_path: str, tmp_path: Path) -> None:
    folder = tmp_path / "transcripts"
    (folder / "team").mkdir(parents=True)
    (folder / "2026-04-02-standup.md").write_text(
        "# Standup\n\nWe talked about Kubernetes.\n", encoding="utf-8"
    )
    (folder / "team" / "retro.md").write_text(
        "---\ndate: 2026-04-05T15:00:00Z\ntitle: Retro\n---\nKubernetes upgrade went well.\n",
        encoding="utf-8",
    )
    (folder / "notes.txt").write_text("no date anywhere", encoding="utf-8")
    refused = run("ingest", str(folder))
    assert refused.exit_code == 1
    assert "notes.txt: no date" in refused.stderr
    _ok(run("ingest", str(folder), "--skip-bad"))
    again = _ok(run("ingest", str(folder), "--skip-bad", "--json"))  # same ids: replaced
    assert json.loads(again.stdout)["written"] == 2
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        sessions = mem.sessions()
    assert [(s.id, s.title) for s in sessions] == [
        ("2026-04-02-standup", "Standup"),
        ("team/retro", "Retro"),
    ]
    assert sessions[1].started_at == dt.datetime(2026, 4, 5, 15, tzinfo=dt.timezone.utc)
    assert "Kubernetes" in sessions[0].mentions


# -- one vocabulary -------------------------------------------------------------------------------

#: CLI options and MCP arguments that are not the kebab/snake form of a Python parameter name
#: of graphmem.open or a Memory method, and why (docs/agents.md, "One vocabulary").
ALLOWED = {
    "db": "the database path (gm.open's path, named like sqlite-utils')",
    "json": "output format",
    "version": "click's version flag",
    "help": "click's help flag",
    "id": "short form of --session-id in add-session",
    "all": "deprecated alias of --include-expired (history), removed in the next release",
    "budget": "deprecated alias of --budget-tokens (context), removed in the next release",
    "include_superseded": "deprecated MCP alias of include_expired (history)",
    "skip_bad": "add-many/ingest: keep the good lines",
    "dry_run": "preview without writing",
    "yes": "purge: skip the confirmation",
    "keep": "demo: keep the demo database",
    "many": "define-predicate: cardinality='many' as a flag",
    "one": "define-predicate: cardinality='one' as a flag",
    "not_symmetric": "define-predicate: symmetric=False",
    "alias": "define-predicate: one of aliases (repeatable)",
    "no_extract": "add-session/ingest: extract=False",
    "format": "export/import format",
    "output": "export: the output file",
    "window": "hot: window_days",
    "idf": "hot: weighting='idf'",
    "auto": "maintain: run only when due",
    "on": "believed(on=)",
    "from": "migrate: the source store, a path or URL (no Python call: export + import)",
    "to": "migrate: the target store, a path or URL",
    "out": "view: graphmem.view.graph_html(mem, path)",
    "transport": "mcp: graphmem.mcp_server.serve(transport=)",
    "host": "mcp --transport http: serve(host=)",
    "port": "mcp --transport http: serve(port=)",
    "token_file": "mcp --transport http: the file holding serve(token=)",
}


def _python_names() -> set[str]:
    names = set(inspect.signature(gm.open).parameters)
    for name, fn in inspect.getmembers(gm.Memory, inspect.isfunction):
        if not name.startswith("_"):
            names |= set(inspect.signature(fn).parameters) - {"self"}
    return names


def _cli_names() -> dict[str, set[str]]:
    found: dict[str, set[str]] = {}

    def walk(command: click.Command, path: str) -> None:
        for param in command.params:
            if isinstance(param, click.Option):
                for opt in (*param.opts, *param.secondary_opts):
                    if opt.startswith("--"):
                        found.setdefault(opt[2:].replace("-", "_"), set()).add(path)
        if isinstance(command, click.Group):
            ctx = click.Context(command)
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None, name
                walk(sub, f"{path} {name}")

    walk(cli, "graphmem")
    return found


def test_every_cli_option_and_mcp_argument_is_a_python_name() -> None:
    python = _python_names()
    strays = {
        f"--{name.replace('_', '-')} ({', '.join(sorted(where))})"
        for name, where in _cli_names().items()
        if name not in python and name not in ALLOWED
    }
    assert not strays, f"CLI options without a Python name: {sorted(strays)}"
    pytest.importorskip("mcp")
    from graphmem.mcp_server import build_server

    with backends.memory() as mem:
        server = build_server(mem)
        import anyio

        tools = anyio.run(server.list_tools)
    for tool in tools:
        args = set(
            tool.input_schema["properties"]
            if hasattr(tool, "input_schema")
            else tool.inputSchema["properties"]
        )
        assert args - python - set(ALLOWED) == set(), tool.name


def test_deprecated_names_still_work(run: Invoke) -> None:
    _ok(run("add", "api", "runs_on", "Laravel", "--valid-from", "2024-01-01"))
    _ok(run("add", "api", "runs_on", "Go", "--valid-from", "2026-01-01"))
    new = _ok(run("history", "api", "--include-expired", "--json"))
    old = _ok(run("history", "api", "--all", "--json"))
    assert json.loads(old.stdout) == json.loads(new.stdout)
    assert len(json.loads(new.stdout)) == 3  # Laravel, its shortened copy, Go
    assert "--all is deprecated; use --include-expired" in old.stderr
    assert "deprecated" in _ok(run("history", "--help")).stdout.lower()
    a = _ok(run("context", "api", "--budget-tokens", "50", "--json"))
    b = _ok(run("context", "api", "--budget", "50", "--json"))
    assert json.loads(a.stdout)["context"] == json.loads(b.stdout)["context"]


def test_remember_from_stdin_with_valid_from(run: Invoke, db_path: str) -> None:
    out = _ok(
        run(
            "remember",
            "-",
            "--valid-from",
            "2026-02-01",
            "--json",
            input="we deploy with Docker Compose",
        )
    )
    fact = json.loads(out.stdout)["fact"]
    assert fact["valid_from"].startswith("2026-02-01")
    _ok(run("remember", "we review on Mondays", "--at", "yesterday"))


# -- smaller things -------------------------------------------------------------------------------


def test_graphmem_alone_prints_help_and_exits_0() -> None:
    result = CliRunner().invoke(cli, [], prog_name="graphmem")
    assert result.exit_code == 0
    assert result.stdout.startswith("Usage: graphmem")
    assert "add-session" in result.stdout


def test_help_shows_full_command_summaries() -> None:
    out = CliRunner().invoke(cli, ["--help"], terminal_width=200).stdout
    commands = out[out.index("Commands:") :]
    assert "..." not in commands
    assert "ingest  " in out or "ingest " in out
    line = next(x for x in out.splitlines() if x.strip().startswith("believed "))
    assert line.rstrip().endswith("and what became of it.")


def test_db_after_the_subcommand(run: Invoke, db_path: str, tmp_path: Path) -> None:
    other = str(tmp_path / "other.kuzu")
    runner = CliRunner()
    _ok(runner.invoke(cli, ["--engine", ENGINE, "add", "api", "runs_on", "Go", "--db", other]))
    out = _ok(runner.invoke(cli, ["--engine", ENGINE, "facts", "--json", "--db", other])).stdout
    assert [f["object"] for f in json.loads(out)] == ["Go"]
    assert not os.path.exists(db_path)


def test_add_many_reads_stdin(run: Invoke, db_path: str) -> None:
    lines = "".join(
        json.dumps({"subject": f"s{i}", "predicate": "uses", "object": "Go"}) + "\n"
        for i in range(5)
    )
    out = _ok(run("add-many", "-", "--json", input=lines))
    assert json.loads(out.stdout)["written"] == 5
    with gm.open(db_path, engine=ENGINE, read_only=True) as mem:
        assert mem.count_versions() == 5


def test_errors_under_json_are_json(run: Invoke) -> None:
    missing = run("facts", "--json")
    assert json.loads(missing.stderr) == {
        "error": f"no database at {missing.stderr.split(chr(39))[1]!r}; write something first "
        "or pass --db",
        "type": "NotFound",
    }
    _ok(run("add", "api", "runs_on", "Go"))
    result = run("facts", "--valid-at", "2020-13-01", "--json")
    assert result.exit_code == 1
    assert result.stdout == ""
    error = json.loads(result.stderr)
    assert error["type"] == "InvalidInput"
    assert error["error"].startswith("--valid-at '2020-13-01' is not a valid date")
    usage = run("facts", "--bogus", "--json")
    assert usage.exit_code == 1
    assert json.loads(usage.stderr)["type"] == "NoSuchOption"
    plain = run("facts", "--valid-at", "2020-13-01")
    assert plain.stderr.startswith("Error: InvalidInput: --valid-at '2020-13-01'")


def test_hints_are_in_cli_terms(run: Invoke, db_path: str) -> None:
    _ok(run("add", "api", "runs_on", "Go"))
    result = CliRunner().invoke(
        cli, ["--db", db_path, "--engine", ENGINE, "--read-only", "add", "a", "b", "c"]
    )
    assert result.exit_code == 1
    assert "read_only=True" not in result.stderr
    assert "run the command without --read-only" in result.stderr
    missing = run("why", "nope")
    assert "WriteResult" not in missing.stderr
    assert "history SUBJECT --include-expired --json" in missing.stderr
    msg = cli_message(
        "clock reads X; fix the clock passed to graphmem.open(clock=...); "
        "use one engine per process (gm.open(engine=...) or GRAPHMEM_ENGINE)"
    )
    assert "open(" not in msg
    assert "--engine" in msg


def test_date_words(run: Invoke) -> None:
    _ok(run("add", "api", "runs_on", "Go", "--valid-from", "yesterday"))
    facts = json.loads(_ok(run("facts", "--valid-at", "today", "--json")).stdout)
    assert [f["object"] for f in facts] == ["Go"]
    yesterday = dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=1)
    assert facts[0]["valid_from"].startswith(yesterday.isoformat())
    assert json.loads(_ok(run("facts", "--known-at", "now", "--json")).stdout)
    clock = ManualClock("2026-06-10T15:30:00Z")
    assert gm.to_utc("Yesterday", clock=clock) == dt.datetime(2026, 6, 9, tzinfo=dt.timezone.utc)
    assert gm.to_utc(" now ", clock=clock) == clock()


def test_a_closed_memory_raises_a_graphmem_error(db_path: str) -> None:
    mem = gm.open(db_path, engine=ENGINE)
    mem.add_fact("api", "runs_on", "Go")
    mem.close()
    mem.close()  # twice is fine
    for call in (
        lambda: mem.facts(),
        lambda: mem.add_fact("a", "b", "c"),
        lambda: mem.history("api"),
        lambda: mem.context("api"),
        lambda: mem.sessions(),
    ):
        with pytest.raises(gm.StoreError, match=r"is closed; open it again with graphmem\.open"):
            call()
    with gm.open(db_path, engine=ENGINE) as again:  # the path was released
        assert [f.object for f in again.facts()] == ["Go"]


def test_history_in_80_columns_has_no_microseconds(db_path: str) -> None:
    clock = ManualClock("2026-06-10T09:30:05.123456Z")
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
        clock.advance(hours=1)
        mem.add_fact("api", "runs_on", "Go", valid_from="2026-06-01")
    out = _ok(
        CliRunner().invoke(
            cli,
            ["--db", db_path, "--engine", ENGINE, "history", "api", "--include-expired"],
            env={"COLUMNS": "80"},
            terminal_width=80,
        )
    ).stdout
    assert ".123456" not in out
    assert "09:30:05" in out
    assert "2024-01-01" in out


def test_believed_shows_a_belief_that_changed(db_path: str) -> None:
    clock = ManualClock("2026-01-10")
    with gm.open(db_path, engine=ENGINE, clock=clock) as mem:
        mem.add_fact("Alice", "works_at", "Acme", valid_from="2025-01-01")
        clock.set("2026-03-01")
        mem.add_fact("Alice", "works_at", "Globex", valid_from="2025-06-01")  # a correction
    out = _ok(
        CliRunner().invoke(
            cli,
            ["--db", db_path, "--engine", ENGINE, "believed", "--on", "2026-02-01"],
            terminal_width=160,
        )
    ).stdout
    assert "Acme" in out
    assert "revised 2026-03-01" in out


def test_progress_moves_during_a_long_step() -> None:
    with Progress(1000, label="writing", rate=2000) as bar:
        bar.step(1000)
        time.sleep(0.35)  # a step that reports only when it ends
        during = bar._shown
        bar.done(1000)
    assert 0 < during < 1000  # moved, and never claimed the unfinished step as done
    assert bar._shown == 1000
