"""The two last stages of :func:`graphmem.context.context`: pack the budget, render the block.

``context()`` runs four named stages (docs/concepts/recall.md#the-stages):

1. **gather** (:func:`graphmem.context.gather`, the only stage that reads the store): the fact
   candidates around the query's anchors and full-text hits, and the session lines;
2. **rank**, inside gather: facts by :func:`graphmem.context_facts._score`, lines by the
   fused ranks of :func:`graphmem.episodic.line_candidates`, echoes folded
   (:func:`graphmem.context_render._dedupe`);
3. **pack** (:func:`pack`): what fits ``budget_tokens``, in the order of the module
   documentation of :mod:`graphmem.context`;
4. **render** (:func:`render`): the text block and its items.

Pack and render take plain values (a :class:`Gathered`, a :class:`Frame` and a function that
returns a line's neighbours), so they are tested without a store.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

from graphmem.context_facts import _Candidate
from graphmem.context_render import (
    Sized,
    _block_size,
    _fact_item,
    _line,
    _line_item,
    _lines_block,
)
from graphmem.episodic import LineCandidate, SearchItem
from graphmem.store.records import LineRow

__all__ = ["FACT_SHARE", "Frame", "Gathered", "Packed", "footer", "pack", "render"]

#: Share of the room that facts may take first when session lines compete for it.
FACT_SHARE = 0.4

#: A line's neighbours in its session: ``(the line before, the line after)``, each or ``None``.
Neighbours = Callable[[LineRow], tuple[LineRow | None, LineRow | None]]
Chosen = Mapping[str, LineCandidate | LineRow]


@dataclass(frozen=True)
class Frame:
    """The block's fixed parts: the query as shown, the as-of note and the room."""

    query: str  #: the query as the header shows it (clipped)
    when: str  #: ``"; valid at D, known at D"`` or ``""``
    budget_chars: int


@dataclass
class Gathered:
    """What the gather and rank stages found, best first.

    ``cover`` maps a fact to the line that says it (same session, its statement in the line):
    shown with that line, the fact is dropped as a duplicate.
    """

    facts: list[_Candidate]
    lines: list[LineCandidate]
    cover: dict[str, str] = field(default_factory=dict)

    @cached_property
    def fact_lines(self) -> dict[str, str]:
        """Each fact's rendered line, by fact id."""
        return {c.fact.id: _line(c) for c in self.facts}

    @cached_property
    def line_ids(self) -> dict[str, LineCandidate]:
        """The ranked lines by id, best first."""
        return {c.line.id: c for c in self.lines}

    def dups(self, chosen: Chosen) -> set[str]:
        """The facts a chosen line already says."""
        return {f for f, line_id in self.cover.items() if line_id in chosen}


@dataclass
class Packed:
    """What fits: the facts shown (best first) and the lines shown by id (ranked or neighbour)."""

    facts: list[_Candidate]
    lines: dict[str, LineCandidate | LineRow]


def footer(left: int) -> str:
    """The last line when something did not fit."""
    return f"(+{left} more not shown; raise budget_tokens)"


def _n(n: int, what: str) -> str:
    return f"{n} {what}{'s' if n != 1 else ''}"


def header(frame: Frame, cf: int, cl: int, nf: int, nl: int) -> str:
    """The first line: what is shown of how many (``2 of 9 facts, 3 session lines``)."""
    parts = []
    if nf:
        parts.append(f"{cf} of {_n(nf, 'fact')}" if cf < nf else _n(nf, "fact"))
    if nl:
        parts.append(f"{cl} of {_n(nl, 'session line')}" if cl < nl else _n(nl, "session line"))
    return f'Memory relevant to "{frame.query}" ({", ".join(parts)}{frame.when}):'


class _Sizer:
    """The length of the whole block for a choice: header, lines and the footer when due."""

    def __init__(self, g: Gathered, frame: Frame) -> None:
        self.g, self.frame = g, frame
        self.sizes: dict[str, Sized] = {}  # by line id (_block_size)

    def __call__(self, facts: Sequence[_Candidate], chosen: Chosen) -> int:
        g = self.g
        gone = g.dups(chosen)
        kept = [c for c in facts if c.fact.id not in gone]
        nf, nl = len(g.facts) - len(gone), len(g.lines)
        cf, cl = len(kept), sum(1 for i in chosen if i in g.line_ids)
        n = len(header(self.frame, cf, cl, nf, nl))
        n += sum(1 + len(g.fact_lines[c.fact.id]) for c in kept)
        n += _block_size(chosen, self.sizes)
        left = nf - cf + nl - cl
        return n + (1 + len(footer(left)) if left else 0)


def pack(
    g: Gathered,
    frame: Frame,
    neighbours: Neighbours,
    marked: Mapping[str, LineCandidate | LineRow] | None = None,
) -> Packed:
    """Choose the facts and lines that fit ``frame.budget_chars``.

    Everything when it fits. Otherwise the on-topic facts first, up to :data:`FACT_SHARE` of
    the room (not those a line candidate says); then lines, best first; then the other facts;
    then the lines right after and before the lines shown, as ``marked`` holds them (with the
    marks of docs/concepts/recall.md#restated). Whatever does not fit is skipped.
    A fact found by a name alone waits for the lines (docs/benchmarks.md#locomo-recall).
    """
    total = _Sizer(g, frame)
    budget = frame.budget_chars
    everything: dict[str, LineCandidate | LineRow] = dict(g.line_ids)
    if total(g.facts, everything) <= budget:
        return _shown(g, list(g.facts), everything)
    facts_in: list[_Candidate] = []
    lines_in: dict[str, LineCandidate | LineRow] = {}
    nf0, nl = len(g.facts), len(g.lines)
    room = budget - len(header(frame, nf0, nl, nf0, nl)) - 1 - len(footer(nf0 + nl))
    share = room * (FACT_SHARE if g.lines else 1.0)
    used = 0
    for c in g.facts:
        extra = 1 + len(g.fact_lines[c.fact.id])
        if c.on_topic and c.fact.id not in g.cover and used + extra <= share:
            facts_in.append(c)
            used += extra
    for lc in g.lines:
        lines_in[lc.line.id] = lc
        if total(facts_in, lines_in) > budget:
            del lines_in[lc.line.id]
    taken = {c.fact.id for c in facts_in} | g.dups(lines_in)
    for c in g.facts:
        if c.fact.id in taken:
            continue
        facts_in.append(c)
        if total(facts_in, lines_in) > budget:
            facts_in.pop()
    facts_in.sort(key=_Candidate.sort_key)
    rows = [
        row
        for lc in g.lines
        if lc.line.id in lines_in
        for row in neighbours(lc.line)[::-1]  # the line after first
        if row is not None
    ]
    for row in rows:
        if row.id in lines_in or row.id in everything:
            continue
        lines_in[row.id] = (marked or {}).get(row.id, row)
        if total(facts_in, lines_in) > budget:
            del lines_in[row.id]
    return _shown(g, facts_in, lines_in)


def _shown(
    g: Gathered, facts: list[_Candidate], lines: dict[str, LineCandidate | LineRow]
) -> Packed:
    gone = g.dups(lines)
    return Packed([c for c in facts if c.fact.id not in gone], lines)


def render(g: Gathered, p: Packed, frame: Frame) -> tuple[list[str], list[SearchItem]]:
    """Return the block's lines (header, facts, passages, footer when it fits) and its items.

    Facts come first, then the passages, best first; the items are the facts shown, the
    ranked lines shown, then the neighbour lines (score 0).
    """
    nf, nl = len(g.facts) - len(g.dups(p.lines)), len(g.lines)
    cf, cl = len(p.facts), sum(1 for i in p.lines if i in g.line_ids)
    left = (nf - cf) + (nl - cl)
    order = list(g.line_ids)
    out = [header(frame, cf, cl, nf, nl), *(g.fact_lines[c.fact.id] for c in p.facts)]
    out += _lines_block(p.lines, order)
    if left and len("\n".join(out)) + 1 + len(footer(left)) <= frame.budget_chars:
        out.append(footer(left))
    items = [_fact_item(c) for c in p.facts]
    items += [_line_item(p.lines[i]) for i in order if i in p.lines]
    items += [_line_item(c, 0.0) for i, c in sorted(p.lines.items()) if i not in g.line_ids]
    return out, items
