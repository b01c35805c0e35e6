"""Text tables for the CLI (docs/concepts/surfaces.md#tables).

A small renderer in rich's look (a heavy head, light body) that does only what the CLI's
tables need: columns that fit a width, cells that wrap between words, a word too long for its
column cut with ``…``, right-justified numbers, and columns that never wrap. It costs a few
milliseconds for a few hundred rows, where importing and running rich cost about a hundred
(docs/concepts/surfaces.md#startup).

>>> t = Table(title="2 facts")
>>> t.add_column("subject")
>>> t.add_column("n", justify="right", no_wrap=True)
>>> t.add_row("Ada", "7")
>>> t.add_row("Grace Hopper", "12")
>>> for line in t.render(40):
...     print(line)
       2 facts
┏━━━━━━━━━━━━━━┳━━━━┓
┃ subject      ┃  n ┃
┡━━━━━━━━━━━━━━╇━━━━┩
│ Ada          │  7 │
│ Grace Hopper │ 12 │
└──────────────┴────┘
"""

from __future__ import annotations

import os
import sys
import unicodedata
from dataclasses import dataclass, field
from typing import Literal

__all__ = ["Column", "Table", "cell_len", "output_width", "stdout_is_terminal", "wrap"]

ELLIPSIS = "…"


def cell_len(text: str) -> int:
    """Columns ``text`` takes on a terminal: wide East Asian characters 2, combining marks 0.

    >>> cell_len("abc"), cell_len("日本"), cell_len("e" + chr(0x301))
    (3, 4, 1)
    """
    if text.isascii():
        return len(text)
    n = 0
    for ch in text:
        if unicodedata.combining(ch):
            continue
        n += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return n


def _cut(word: str, width: int) -> str:
    """``word`` in ``width`` columns: whole when it fits, else its start and ``…``."""
    if cell_len(word) <= width:
        return word
    out, used = [], 0
    for ch in word:
        w = cell_len(ch)
        if used + w > width - 1:
            break
        out.append(ch)
        used += w
    return "".join(out) + ELLIPSIS


def wrap(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` columns, broken only between words.

    A word longer than the width is cut and ends in ``…``; it is never split across lines.

    >>> wrap("the billing service runs on Go", 12)
    ['the billing', 'service runs', 'on Go']
    >>> wrap("see https://example.com/a/very/long/path now", 10)
    ['see', 'https://e…', 'now']
    """
    width = max(width, 1)
    lines: list[str] = []
    for para in text.split("\n"):
        line, used = "", 0
        for word in para.split():
            word = _cut(word, width)
            w = cell_len(word)
            if line and used + 1 + w <= width:
                line, used = f"{line} {word}", used + 1 + w
                continue
            if line:
                lines.append(line)
            line, used = word, w
        lines.append(line)
    return lines


@dataclass
class Column:
    """One column: its header, justification and whether its cells may wrap."""

    header: str
    justify: Literal["left", "right"] = "left"
    no_wrap: bool = False
    min_width: int = 1
    cells: list[str] = field(default_factory=list)

    def natural(self) -> int:
        """The width that shows the header and every cell on one line."""
        lines = (line for cell in self.cells for line in cell.split("\n"))
        return max([cell_len(self.header), *map(cell_len, lines)])

    def floor(self) -> int:
        """The narrowest this column should go before words are cut."""
        if self.no_wrap:
            return self.natural()
        longest = max(
            (cell_len(w) for c in [self.header, *self.cells] for w in c.split()), default=1
        )
        return max(self.min_width, min(longest, 12))


class Table:
    """Rows under a header, rendered to fit a width (docs/concepts/surfaces.md#tables)."""

    def __init__(self, title: str | None = None) -> None:
        self.title = title
        self.columns: list[Column] = []

    def add_column(
        self,
        header: str,
        *,
        justify: Literal["left", "right"] = "left",
        no_wrap: bool = False,
        min_width: int | None = None,
    ) -> None:
        """Add a column; add every column before the first row."""
        self.columns.append(Column(header, justify, no_wrap, min_width or 1))

    def add_row(self, *cells: str) -> None:
        """Add a row of one text per column."""
        if len(cells) != len(self.columns):
            raise ValueError(f"a row of {len(cells)} cells for {len(self.columns)} columns")
        for column, cell in zip(self.columns, cells, strict=True):
            column.cells.append(cell)

    def widths(self, width: int) -> list[int]:
        """Each column's width so the table fits ``width`` when it can.

        Columns keep their natural width when all fit; otherwise the widest wrapping columns
        give up columns first, down to their floors, then below them (words get cut).
        """
        natural = [c.natural() for c in self.columns]
        room = width - (3 * len(self.columns) + 1)  # "│ " before each cell, " │" after the last
        if sum(natural) <= room:
            return natural
        for floors in ([c.floor() for c in self.columns], [1] * len(self.columns)):
            cap = _cap(natural, floors, room)
            if cap is not None:
                return _capped(natural, floors, cap)
        return [1] * len(self.columns)

    def render(self, width: int) -> list[str]:
        """The table's lines, at most ``width`` columns wide when the columns allow it."""
        widths = self.widths(width)
        total = sum(widths) + 3 * len(widths) + 1
        lines: list[str] = []
        if self.title:
            for line in wrap(self.title, total):
                pad = (total - cell_len(line)) // 2
                lines.append(" " * pad + line)

        def rule(left: str, mid: str, right: str, fill: str) -> str:
            return left + mid.join(fill * (w + 2) for w in widths) + right

        lines.append(rule("┏", "┳", "┓", "━"))
        lines += self._row([c.header for c in self.columns], widths, "┃")
        lines.append(rule("┡", "╇", "┩", "━"))
        for i in range(len(self.columns[0].cells) if self.columns else 0):
            lines += self._row([c.cells[i] for c in self.columns], widths, "│")
        lines.append(rule("└", "┴", "┘", "─"))
        return lines

    def _row(self, cells: list[str], widths: list[int], bar: str) -> list[str]:
        wrapped = [
            [_cut(" ".join(cell.split()), w)] if column.no_wrap else wrap(cell, w)
            for column, cell, w in zip(self.columns, cells, widths, strict=True)
        ]
        height = max(len(w) for w in wrapped)
        out = []
        for k in range(height):
            parts = []
            for column, lines, w in zip(self.columns, wrapped, widths, strict=True):
                text = lines[k] if k < len(lines) else ""
                pad = " " * (w - cell_len(text))
                parts.append(pad + text if column.justify == "right" else text + pad)
            out.append(bar + " " + f" {bar} ".join(parts) + " " + bar)
        return out


def _capped(natural: list[int], floors: list[int], cap: int) -> list[int]:
    """Each column's width when none may pass ``cap`` unless its floor is above it."""
    return [min(n, max(f, cap)) for n, f in zip(natural, floors, strict=True)]


def _cap(natural: list[int], floors: list[int], room: int) -> int | None:
    """The largest cap at which the columns fit ``room``, or ``None`` when none does."""
    lo, hi = 1, max(natural)
    if sum(_capped(natural, floors, lo)) > room:
        return None
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum(_capped(natural, floors, mid)) <= room:
            lo = mid
        else:
            hi = mid - 1
    return lo


def stdout_is_terminal() -> bool:
    """Whether standard output is a terminal (tests replace this)."""
    return sys.stdout.isatty()


def output_width(piped_width: int | None) -> int:
    """The width to render at (docs/concepts/surfaces.md#tables).

    On a terminal: ``$COLUMNS``, else the terminal's width. Piped or captured:
    ``piped_width``, or with ``None`` ``$COLUMNS``, else 80.
    """
    columns = os.environ.get("COLUMNS", "")
    env = int(columns) if columns.isdigit() and int(columns) > 0 else None
    if stdout_is_terminal():
        if env is not None:
            return env
        try:
            return os.get_terminal_size(sys.stdout.fileno()).columns
        except (OSError, ValueError):
            return 80
    if piped_width is not None:
        return piped_width
    return env if env is not None else 80
