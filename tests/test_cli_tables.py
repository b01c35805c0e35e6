"""CLI tables: readable in 80 columns, words never broken, the terminal's width on a tty.

See docs/concepts/surfaces.md#tables.
"""

from __future__ import annotations

import contextlib
import io
import os
import re

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from graphmem.cli import cli
from graphmem.display import CELL_CHARS, clip

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")
URL = "https://github.com/acme/payments-infrastructure/blob/main/terraform/README.md"
NOTE = (
    "The billing service must always retry idempotent Stripe webhooks with exponential "
    "backoff before alerting the on-call engineer"
)


def _cells(output: str) -> list[list[str]]:
    """The text of each column, joined across the lines of each row."""
    rows: list[list[str]] = []
    for line in output.splitlines():
        if line.startswith("│"):
            parts = [p.strip() for p in line.strip("│").split("│")]
            if rows and not parts[0]:  # a continuation line of the row above
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], parts, strict=True)]
            else:
                rows.append(parts)
    return rows


def _words_whole(shown: str, full: str) -> bool:
    """Every word shown is a whole word of ``full``, or a prefix of one cut with ``…``."""
    words = full.split()
    for w in shown.split():
        if w.endswith("…"):
            if not any(x.startswith(w[:-1]) for x in words):
                return False
        elif w not in words:
            return False
    return True


@pytest.fixture
def db(tmp_path: object) -> str:
    path = os.path.join(str(tmp_path), "t.kuzu")
    runner = CliRunner()
    base = ["--db", path, "--engine", ENGINE]
    assert runner.invoke(cli, [*base, "add", "payments-service-eu-west-1", "deployed_with", URL])
    assert runner.invoke(cli, [*base, "add", "self", "note", NOTE]).exit_code == 0
    return path


@pytest.mark.parametrize("args", [["facts"], ["history", "self", "--include-expired"]])
def test_a_piped_table_fits_80_columns_and_breaks_no_word(db: str, args: list[str]) -> None:
    out = CliRunner().invoke(cli, ["--db", db, "--engine", ENGINE, *args], env={"COLUMNS": ""})
    assert out.exit_code == 0, out.output
    assert max(len(line) for line in out.stdout.splitlines()) <= 80
    for row in _cells(out.stdout):
        for shown in row:
            assert _words_whole(shown, " ".join([URL, NOTE, "payments-service-eu-west-1"])) or (
                "→" in shown or shown in ("deploys_with", "note", "self", "")
            ), shown


def test_columns_sets_the_width_of_a_piped_fact_table(db: str) -> None:
    out = CliRunner().invoke(cli, ["--db", db, "--engine", ENGINE, "facts"], env={"COLUMNS": "60"})
    assert max(len(line) for line in out.stdout.splitlines()) <= 60


def _printed(table: object, piped_width: int | None) -> str:
    from graphmem.cli.common import print_table

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_table(table, piped_width=piped_width)
    return re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())  # a terminal gets colours


def _note_table() -> object:
    from rich.table import Table

    table = Table()
    for col in ("subject", "object"):
        table.add_column(col)
    table.add_row("x", NOTE)
    return table


def test_on_a_terminal_a_table_takes_its_width(monkeypatch: pytest.MonkeyPatch) -> None:
    import rich.console

    monkeypatch.setattr(rich.console.Console, "is_terminal", property(lambda self: True))
    monkeypatch.setenv("COLUMNS", "150")
    widths = [len(line) for line in _printed(_note_table(), 40).splitlines()]
    assert 80 < max(widths) <= 150  # the whole note on one line, not piped_width
    monkeypatch.setenv("COLUMNS", "50")
    assert max(len(line) for line in _printed(_note_table(), 160).splitlines()) <= 50


def test_piped_a_table_takes_piped_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "150")
    assert max(len(line) for line in _printed(_note_table(), 40).splitlines()) <= 40


def test_a_long_cell_is_clipped_like_the_notebook_tables(tmp_path: object) -> None:
    path = os.path.join(str(tmp_path), "long.kuzu")
    long = " ".join(["word"] * 2_000)
    base = ["--db", path, "--engine", ENGINE]
    assert CliRunner().invoke(cli, [*base, "add", "self", "note", long]).exit_code == 0
    out = CliRunner().invoke(cli, [*base, "facts"], env={"COLUMNS": ""})
    (row,) = _cells(out.stdout)
    assert len(row[2]) <= CELL_CHARS + 20  # wrapped lines joined with spaces
    assert row[2].endswith("…")


@settings(max_examples=50, deadline=None)
@given(
    text=st.lists(
        st.text(alphabet=st.sampled_from("abcdefghij-_/."), min_size=1, max_size=40), max_size=12
    ).map(" ".join),
    width=st.integers(min_value=40, max_value=120),
)
def test_no_word_is_ever_broken(text: str, width: int) -> None:
    from rich.table import Table

    table = Table()
    for col in ("subject", "predicate", "object"):
        table.add_column(col, overflow="fold")  # print_table makes it ellipsis
    table.add_row("a-subject", "a_predicate", clip(text))
    out = _printed(table, width)
    assert all(len(line) <= width for line in out.splitlines())
    (row,) = _cells(out)
    assert _words_whole(row[2], text), (row[2], text)
    assert _words_whole(row[0], "a-subject")
    assert _words_whole(row[1], "a_predicate")
