"""The README stays true: its Python example runs, its set-up commands are the CI's."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_python_examples_run_and_print_what_the_readme_shows(tmp_path, monkeypatch, capsys):
    codes = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    shown = re.findall(r"```text\n(.*?)```", README, flags=re.S)
    assert len(codes) == len(shown) == 2
    monkeypatch.chdir(tmp_path)
    outs = []
    for code, want in zip(codes, shown, strict=True):
        exec(compile(code, "README.md", "exec"), {})
        outs.append(capsys.readouterr().out)
        assert outs[-1] == want
    # The belief that changed: Laravel believed on June 5, Go known for June 5 since June 10.
    believed, known = outs[0].splitlines()[2], outs[0].splitlines()[3]
    assert believed.startswith("api runs_on Laravel")
    assert known.startswith("api runs_on Go")
    # Text: the replaced values are never shown as current.
    assert "was Laravel" in outs[1]
    assert "was Acme" in outs[1]


def test_command_line_section_names_real_commands():
    from click.testing import CliRunner

    from graphmem.cli import cli

    (section,) = re.findall(r"## The command line\n\n```bash\n(.*?)```", README, flags=re.S)
    for line in section.splitlines():
        name = line.split()[1]
        result = CliRunner().invoke(cli, [name, "--help"])
        assert result.exit_code == 0, line
        for flag in re.findall(r"\s(--[a-z-]+)", line.split("#")[0]):
            assert flag in result.output, f"{line}: {flag}"


def test_two_setup_commands_and_ci_runs_the_test_one():
    commands = re.findall(r"```bash\n(python3 -m venv.*?)\n```", README)
    assert len(commands) == 2
    assert commands[0].endswith("graphmem demo")
    assert commands[1].endswith("pytest")
    assert commands[1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
