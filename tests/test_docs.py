"""The docs stay true: every code block is checked, the CLI reference is current, the site builds.

Rules for ``docs/`` (STYLE "Docs", typer's ``docs_src`` approach). Every fenced code block in a
page is one of:

- a ``pycon`` doctest (``>>>``), run here page by page in one namespace per page;
- a ``console`` session (``$ graphmem ...`` lines, each followed by its expected output), run
  here with click's ``CliRunner`` against a fresh database per page; ``...`` matches anything,
  whitespace is normalised, and an ``Error:`` line means the command must exit with status 1;
- an include of a file under ``docs/examples/`` (``--8<-- "name"``): every ``examples/*.py`` runs
  here, and its standard output must equal ``examples/<name>.out`` when that file exists;
- in ``docs/cli.md`` only: the generated ``--help`` text (checked against the CLI itself).

``benchmarks.md`` (its commands run for many minutes; its numbers come from ``python -m
benchmarks.run``) and ``concurrency.md`` are not held to these rules.
Set ``GRAPHMEM_DOCS_REGEN=1`` to rewrite the ``.out`` files and ``docs/cli.md`` from the code.
"""

from __future__ import annotations

import builtins
import doctest
import importlib.util
import inspect
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

import graphmem as gm
from graphmem import errors
from graphmem.cli import cli

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
NOT_OURS = {"benchmarks.md", "concurrency.md"}
REGEN = os.environ.get("GRAPHMEM_DOCS_REGEN") == "1"

PAGES = sorted(
    p for p in DOCS.rglob("*.md") if p.name not in NOT_OURS and "examples" not in p.parts
)
EXAMPLE_FILES = sorted(EXAMPLES.glob("*.py"))
FENCE = re.compile(
    r"^(?P<indent>[ ]*)```(?P<lang>[\w-]*)[^\n]*\n(?P<body>.*?)^(?P=indent)```[ ]*$", re.M | re.S
)
SNIPPET = re.compile(r'^\s*--8<--\s+"(?P<name>[^"]+)"\s*$')
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


def _gen_cli_docs():
    spec = importlib.util.spec_from_file_location(
        "gen_cli_docs", ROOT / "scripts" / "gen_cli_docs.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def blocks(page: Path) -> list[tuple[int, str, str]]:
    """Return ``(line number, language, body)`` for every fenced block of a page."""
    text = page.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        body = "\n".join(line[len(m["indent"]) :] for line in m["body"].splitlines())
        out.append((text.count("\n", 0, m.start()) + 1, m["lang"], body))
    return out


def _rel(page: Path) -> str:
    return str(page.relative_to(ROOT))


# -- every block is of a checked kind -------------------------------------------------------------


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_code_block_is_checked(page):
    unchecked = []
    for line, lang, body in blocks(page):
        lines = [x for x in body.splitlines() if x.strip()]
        if lang in ("pycon", "console"):
            continue
        if lines and all(SNIPPET.match(x) for x in lines):
            continue
        if page.name == "cli.md" and lang == "text":
            continue  # generated --help output, see test_cli_reference_is_current
        unchecked.append(f"{_rel(page)}:{line} ```{lang}")
    assert not unchecked, (
        "code blocks must be pycon doctests, console sessions or --8<-- includes of "
        f"docs/examples/: {unchecked}"
    )


def test_every_include_exists_and_every_example_is_shown():
    included = set()
    for page in PAGES:
        for line, _, body in blocks(page):
            for x in body.splitlines():
                if m := SNIPPET.match(x):
                    assert (EXAMPLES / m["name"]).is_file(), f"{_rel(page)}:{line}: {m['name']}"
                    included.add(m["name"])
    shown = {p.name for p in EXAMPLES.iterdir() if p.suffix in (".py", ".out")}
    assert shown <= included, f"examples not included in any page: {sorted(shown - included)}"


# -- docs/examples --------------------------------------------------------------------------------


@pytest.mark.parametrize("example", EXAMPLE_FILES, ids=lambda p: p.name)
def test_example_runs_and_prints_what_the_docs_show(example, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    proc = subprocess.run(
        [sys.executable, str(example)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    expected_file = example.with_suffix(".out")
    if REGEN:
        expected_file.write_text(proc.stdout, encoding="utf-8")
    if expected_file.exists():
        got = [line.rstrip() for line in proc.stdout.splitlines()]
        want = [line.rstrip() for line in expected_file.read_text(encoding="utf-8").splitlines()]
        assert got == want


# -- pycon doctests in pages ----------------------------------------------------------------------


def _doctest_pages():
    return [p for p in PAGES if any(lang == "pycon" for _, lang, _ in blocks(p))]


@pytest.mark.parametrize("page", _doctest_pages(), ids=_rel)
def test_pycon_blocks_pass(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    globs: dict[str, object] = {"__name__": "__docs__"}
    report: list[str] = []  # doctest swaps sys.stdout while it runs: collect, then show
    for line, lang, body in blocks(page):
        if lang != "pycon":
            continue
        test = parser.get_doctest(body, globs, f"{_rel(page)}:{line}", str(page), line)
        runner.run(test, out=report.append, clear_globs=False)
        globs.update(test.globs)  # DocTest copies its globals: carry them to the next block
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, "".join(report)


# -- console sessions in pages --------------------------------------------------------------------


def _sessions(page: Path) -> list[tuple[int, str, str]]:
    """Return ``(line, command, expected output)`` for every ``$`` line of the console blocks."""
    steps = []
    for line, lang, body in blocks(page):
        if lang != "console":
            continue
        current: list = []
        for offset, text in enumerate(body.splitlines(), start=1):
            if text.startswith("$ "):
                current = [line + offset, text[2:], []]
                steps.append(current)
            else:
                assert current, f"{_rel(page)}:{line + offset}: output before any command"
                current[2].append(text)
    return [(n, cmd, "\n".join(out)) for n, cmd, out in steps]


def _console_pages():
    return [p for p in PAGES if any(lang == "console" for _, lang, _ in blocks(p))]


@pytest.mark.parametrize("page", _console_pages(), ids=_rel)
def test_console_sessions_pass(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    env = {"GRAPHMEM_DB": str(tmp_path / "default.kuzu"), "COLUMNS": "100"}
    checker = doctest.OutputChecker()
    failures = []
    for line, command, expected in _sessions(page):
        argv = shlex.split(command)
        if argv[0] == "export":
            name, _, value = argv[1].partition("=")
            env[name] = str(tmp_path / value) if name == "GRAPHMEM_DB" else value
            continue
        assert argv[0] == "graphmem", f"{_rel(page)}:{line}: only graphmem commands can be checked"
        result = runner.invoke(cli, argv[1:], env=env, prog_name="graphmem")
        output = result.output
        want_status = 1 if any(x.startswith("Error:") for x in expected.splitlines()) else 0
        if result.exit_code != want_status or not checker.check_output(
            expected.strip() + "\n", output.strip() + "\n", FLAGS
        ):
            failures.append(
                f"{_rel(page)}:{line}: $ {command}\n--- exit {result.exit_code}, expected "
                f"{want_status}\n--- expected:\n{expected}\n--- got:\n{output}"
                + (f"\n{result.exception!r}" if result.exception and want_status == 0 else "")
            )
    assert not failures, "\n\n".join(failures)


# -- the CLI reference ----------------------------------------------------------------------------


def test_cli_reference_is_current():
    gen = _gen_cli_docs()
    text = gen.render(cli)
    if REGEN:
        gen.TARGET.write_text(text, encoding="utf-8")
    current = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert current == text, "docs/cli.md is stale; run: python scripts/gen_cli_docs.py"


def test_every_cli_command_has_help_and_is_documented():
    gen = _gen_cli_docs()
    reference = (DOCS / "cli.md").read_text(encoding="utf-8")
    entries = gen.commands(cli)
    assert len(entries) > 5
    for path, command, _ in entries:
        assert (command.help or command.short_help or "").strip(), f"`{path}` has no help text"
        assert f"## `{path}`" in reference, f"`{path}` is missing from docs/cli.md"
    documented = set(re.findall(r"^## `(graphmem[^`]*)`", reference, flags=re.M))
    assert documented == {path for path, _, _ in entries}, "docs/cli.md documents stale commands"


def test_cli_commands_are_reachable_from_the_group():
    # A command whose module graphmem.cli.COMMANDS does not name is invisible.
    ctx = click.Context(cli, info_name="graphmem")
    assert set(cli.list_commands(ctx)) >= {"add", "facts", "believed", "history", "retract"}


# -- the API page and the errors page -------------------------------------------------------------


def test_api_page_renders_every_memory_method():
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    rendered = set(re.findall(r"^::: graphmem\.Memory\.(\w+)\s*$", api, flags=re.M))
    public = {
        name
        for name, value in inspect.getmembers(gm.Memory)
        if not name.startswith("_") and (inspect.isfunction(value) or isinstance(value, property))
    }
    assert public - rendered == set(), "Memory methods missing from docs/api.md"
    assert rendered - public == set(), "docs/api.md renders methods Memory does not have"


def test_api_page_covers_the_public_names():
    api = (DOCS / "api.md").read_text(encoding="utf-8")
    assert re.search(r"^::: graphmem\.errors\s*$", api, flags=re.M), "render the error tree"
    for name in gm.__all__:
        if name.startswith("__") or name in errors.__all__:
            continue
        assert re.search(rf"^::: graphmem\.(?:\w+\.)*{name}\s*$", api, flags=re.M), (
            f"graphmem.{name} is not rendered in docs/api.md"
        )


def test_errors_page_describes_every_error():
    page = (DOCS / "errors.md").read_text(encoding="utf-8")
    headings = set(re.findall(r"^##+ `(\w+)`", page, flags=re.M))
    assert headings == set(errors.__all__)


def test_errors_page_draws_the_real_tree():
    page = (DOCS / "errors.md").read_text(encoding="utf-8")
    drawn = re.findall(r"^( *)- \[`(\w+)`\]\(#\w+\)( \(also `(\w+)`\))?", page, flags=re.M)
    assert {name for _, name, _, _ in drawn} == set(errors.__all__)
    parents: list[type] = []
    for indent, name, _, builtin in drawn:
        cls = getattr(errors, name)
        depth = len(indent) // 4
        parents[depth:] = [cls]
        if depth:
            assert cls.__bases__[0] is parents[depth - 1], f"{name} is drawn under the wrong parent"
        if builtin:
            assert issubclass(cls, getattr(builtins, builtin)), f"{name} is not a {builtin}"


# -- the site builds ------------------------------------------------------------------------------


@pytest.mark.slow  # 7-8 s: the site is built in CI's slow family (.ci/run)
def test_mkdocs_build_strict(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    pytest.importorskip("mkdocstrings_handlers.python")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    started = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",  # not -q: mkdocs counts warnings only when they are logged
            "-f",
            str(ROOT / "mkdocs.yml"),
            "-d",
            str(tmp_path / "site"),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (tmp_path / "site" / "index.html").exists()
    assert time.perf_counter() - started < 60
