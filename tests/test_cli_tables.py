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
from graphmem.cli.tables import Table, cell_len, wrap
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


def _printed(table: Table, piped_width: int | None) -> str:
    from graphmem.cli.common import print_table

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        print_table(table, piped_width=piped_width)
    return re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())  # a terminal gets colours


def _note_table() -> Table:
    table = Table()
    for col in ("subject", "object"):
        table.add_column(col)
    table.add_row("x", NOTE)
    return table


def test_on_a_terminal_a_table_takes_its_width(monkeypatch: pytest.MonkeyPatch) -> None:
    import graphmem.cli.tables

    monkeypatch.setattr(graphmem.cli.tables, "stdout_is_terminal", lambda: True)
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
    table = Table()
    for col in ("subject", "predicate", "object"):
        table.add_column(col)
    table.add_row("a-subject", "a_predicate", clip(text))
    out = _printed(table, width)
    assert all(len(line) <= width for line in out.splitlines())
    (row,) = _cells(out)
    assert _words_whole(row[2], text), (row[2], text)
    assert _words_whole(row[0], "a-subject")
    assert _words_whole(row[1], "a_predicate")


WORDS = st.text(alphabet=st.sampled_from("abcxyz-/.日本é"), min_size=1, max_size=30)


@settings(max_examples=100, deadline=None)
@given(
    rows=st.lists(st.lists(st.lists(WORDS, max_size=8).map(" ".join), min_size=3, max_size=3)),
    numbers=st.lists(st.integers(min_value=0, max_value=10**9)),
    width=st.integers(min_value=21, max_value=140),
)
def test_every_line_of_a_table_fits_and_lines_up(
    rows: list[list[str]], numbers: list[int], width: int
) -> None:
    table = Table(title="a title that is long enough to be wrapped when the table is narrow")
    for col in ("#", "subject", "predicate", "object"):
        table.add_column(col)
    table.add_column("n", justify="right", no_wrap=True)
    for i, row in enumerate(rows):
        table.add_row(f"r{i}", *row, str(numbers[i % len(numbers)]) if numbers else "")
    body = [line for line in table.render(width) if line[:1] in "┏┃┡│└"]
    assert len({cell_len(line) for line in body}) == 1  # borders line up, wide characters too
    assert all(cell_len(line) <= width for line in table.render(width))
    for row, shown in zip(rows, _cells("\n".join(body)), strict=True):
        for full, cell in zip(row, shown[1:], strict=False):
            assert _words_whole(cell, full), (cell, full)


@given(text=st.lists(WORDS, max_size=20).map(" ".join), width=st.integers(1, 60))
def test_wrap_keeps_every_word_in_order_and_breaks_none(text: str, width: int) -> None:
    lines = wrap(text, width)
    assert all(cell_len(line) <= width for line in lines)
    shown = " ".join(lines).split()
    assert len(shown) == len(text.split())
    for word, full in zip(shown, text.split(), strict=True):
        assert word == full or (word.endswith("…") and full.startswith(word[:-1]))


def test_a_table_keeps_natural_widths_when_they_fit_and_justifies_numbers() -> None:
    table = Table()
    table.add_column("topic")
    table.add_column("hits", justify="right", no_wrap=True)
    table.add_row("billing", "7")
    table.add_row("search", "1204")
    assert table.render(80) == [
        "┏━━━━━━━━━┳━━━━━━┓",
        "┃ topic   ┃ hits ┃",
        "┡━━━━━━━━━╇━━━━━━┩",
        "│ billing │    7 │",
        "│ search  │ 1204 │",
        "└─────────┴──────┘",
    ]
