"""A griffe extension: render graphmem's reST-flavoured docstrings as Markdown for mkdocstrings.

graphmem's docstrings follow Google style with a few reStructuredText habits that read well in
``help()`` and Sphinx but not in Markdown. This extension rewrites them, in the docs build only
(the source is never touched):

- roles such as ``:func:`~graphmem.temporal.plan_assert``` become *optional* autorefs: a link
  when the target is rendered on the API page, plain code otherwise (never a broken link);
- top-level doctest blocks (``>>>`` at the start of a paragraph) become ``pycon`` fences;
- reST "simple tables" (``====  ====`` borders) become Markdown pipe tables;
- a paragraph ending in ``::`` before an indented block ends in ``:`` (the block is code);
- reST definition lists (a term line, then its indented body) become a bold term and a
  paragraph, with blank lines added before the lists inside the body.

Configured in ``mkdocs.yml`` under the python handler's ``extensions``.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_ROLE = re.compile(r":(?:py:)?(func|class|data|attr|mod|meth|exc|obj|const):`(~?)([^`]+)`")
_BORDER = re.compile(r"^(=+)(\s+=+)+\s*$")


def _resolve(name: str, obj: griffe.Object) -> str:
    """Turn a role target into a full dotted identifier, relative names first."""
    if name.startswith("graphmem"):
        return name
    for scope in (obj if obj.is_class else obj.parent, obj.module):
        if scope is None:
            continue
        head = name.split(".", 1)[0]
        try:
            if head in scope.all_members:
                return f"{scope.path}.{name}"
        except Exception:  # noqa: BLE001 - an unresolvable alias: keep the name as written
            continue
    return name


def _roles(text: str, obj: griffe.Object) -> str:
    def repl(m: re.Match[str]) -> str:
        tilde, target = m.group(2), m.group(3).strip()
        shown = target.rsplit(".", 1)[-1] if tilde else target
        if m.group(1) in ("func", "meth") and not shown.endswith(")"):
            shown += "()"
        ident = _resolve(target, obj)
        return f'<autoref identifier="{ident}" optional><code>{shown}</code></autoref>'

    return _ROLE.sub(repl, text)


def _split_columns(border: str) -> list[tuple[int, int]]:
    return [(m.start(), m.end()) for m in re.finditer(r"=+", border)]


def _cells(line: str, cols: list[tuple[int, int]]) -> list[str]:
    out = []
    for i, (start, _) in enumerate(cols):
        end = cols[i + 1][0] if i + 1 < len(cols) else len(line)
        out.append(line[start:end].strip())
    return out


def _tables(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not _BORDER.match(line):
            out.append(line)
            i += 1
            continue
        # A simple table: border, header, border, rows ..., border.
        cols = _split_columns(line)
        j = i + 1
        block: list[str] = []
        borders = 1
        while j < len(lines) and borders < 3:
            if _BORDER.match(lines[j]):
                borders += 1
            else:
                block.append(lines[j])
            j += 1
        if borders < 3 or not block:
            out.append(line)
            i += 1
            continue
        header, *body = block
        rows: list[list[str]] = []
        for raw in body:
            cells = _cells(raw, cols)
            if rows and not cells[-1] and cells[0]:
                rows[-1][0] += " " + cells[0]  # a continuation line of the first column
            elif rows and not cells[0]:
                for k, cell in enumerate(cells):
                    if cell:
                        rows[-1][k] += " " + cell
            else:
                rows.append(cells)
        head = _cells(header, cols)
        if out and out[-1].strip():
            out.append("")
        out.append("| " + " | ".join(head) + " |")
        out.append("|" + "|".join(" --- " for _ in head) + "|")
        for row in rows:
            out.append("| " + " | ".join(c.replace("|", "\\|") for c in row) + " |")
        out.append("")
        i = j
    return out


def _doctests(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        starts_paragraph = i == 0 or not lines[i - 1].strip()
        if line.startswith(">>>") and starts_paragraph:
            out.append("```pycon")
            while i < len(lines) and lines[i].strip():
                out.append(lines[i])
                i += 1
            out.append("```")
            continue
        out.append(line)
        i += 1
    return out


def _literal_markers(lines: list[str]) -> list[str]:
    out = list(lines)
    for i, line in enumerate(out):
        if line.rstrip().endswith("::") and not line.lstrip().startswith(">>>"):
            nxt = out[i + 2] if i + 2 < len(out) else ""
            if i + 1 < len(out) and not out[i + 1].strip() and nxt.startswith("    "):
                out[i] = line.rstrip()[:-1]
    return out


_LIST_ITEM = re.compile(r"^(?:[-*+]|\d+\.)\s")
_SECTION = re.compile(r"^[A-Z][\w ]*:$")  # a Google section header such as "Args:"


def _definitions(lines: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(lines):
        term = lines[i]
        body_start = i + 1
        is_term = (
            term.strip()
            and not term.startswith((" ", ">>>", "```", "|", "-", "*"))
            and not term.rstrip().endswith((":", "::", ".", ","))
            and not _SECTION.match(term)
            and (i == 0 or not lines[i - 1].strip())
            and body_start < len(lines)
            and lines[body_start].startswith("    ")
        )
        if not is_term:
            out.append(term)
            i += 1
            continue
        j = body_start
        while j < len(lines) and (lines[j].startswith("    ") or not lines[j].strip()):
            j += 1
        body = [line[4:] for line in lines[body_start:j]]
        out.extend([f"**{term.strip()}**", ""])
        for k, line in enumerate(body):
            previous = body[k - 1] if k else ""
            starts_list = _LIST_ITEM.match(line) and not _LIST_ITEM.match(previous)
            if starts_list and previous.strip() and not previous.startswith(" "):
                out.append("")
            out.append(line)
        i = j
    return out


def convert(text: str, obj: griffe.Object) -> str:
    """Return ``text`` (a docstring) with its reST habits rewritten as Markdown."""
    lines = text.splitlines()
    lines = _literal_markers(_tables(_definitions(_doctests(lines))))
    return _roles("\n".join(lines), obj)


class RstToMarkdown(griffe.Extension):
    """Rewrite every docstring of a loaded package (see the module docstring)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        """Walk the package once it is loaded."""
        self._walk(pkg, set())

    def _walk(self, obj: griffe.Object, seen: set[str]) -> None:
        if obj.path in seen:
            return
        seen.add(obj.path)
        if obj.docstring is not None:
            obj.docstring.value = convert(obj.docstring.value, obj)
        for member in obj.members.values():
            if member.is_alias:
                continue
            self._walk(member, seen)  # type: ignore[arg-type]
