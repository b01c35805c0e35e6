"""The README stays true: its Python example runs, its set-up commands are the CI's."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_python_example_runs(tmp_path, monkeypatch, capsys):
    (code,) = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "supersede" in out
    assert "'Go'" in out
    assert "'Laravel'" in out


def test_two_setup_commands_and_ci_runs_the_test_one():
    commands = re.findall(r"```bash\n(python3 -m venv.*?)\n```", README)
    assert len(commands) == 2
    assert commands[0].endswith("graphmem demo")
    assert commands[1].endswith("pytest")
    assert commands[1] in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
