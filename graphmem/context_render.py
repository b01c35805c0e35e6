"""How :func:`graphmem.context.context` renders: fact lines, session-line passages and items.

One line per fact, passages of consecutive session lines, the scored items of
:func:`~graphmem.context.search`, and which facts a shown line already says
(docs/concepts/recall.md#rule-3; :mod:`graphmem.context` documents the format).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Mapping, Sequence

from graphmem.context_facts import _Candidate
from graphmem.episodic import (
    GROUND_FACTS,
    MAX_TEXT,
    LineCandidate,
    SearchItem,
    fmt_date,
)
from graphmem.normalize import term_set
from graphmem.restated import CUE
from graphmem.said_ended import ended_values
from graphmem.store.records import FactView, LineRow
from graphmem.unstated import unstated

#: Longest object text rendered.
MAX_OBJECT = 160


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


#: Longest excerpt of a long note: the pieces on the query's topic (:func:`excerpt`).
MAX_EXCERPT = 2 * MAX_OBJECT
#: A sentence's end inside a long line (not "J. Park": the next word is no name's initial).
_SENTENCE_END = re.compile(r"(?<=[a-z0-9)][.!?])\s+")


def _pieces(text: str) -> list[str]:
    """A note's lines, and a long line's sentences: what an excerpt is made of."""
    out: list[str] = []
    for line in text.splitlines():
        line = " ".join(line.split())
        if line:
            out += _SENTENCE_END.split(line) if len(line) > MAX_OBJECT else [line]
    return out


def excerpt(text: str, words: frozenset[str]) -> str:
    r"""A long note shown by its pieces that hold a query word (docs/concepts/recall.md#excerpts).

    A remembered chat log is one note; its head, clipped, may not be what the question asks.
    The note's lines (a long line's sentences) that hold most of the query's ``words``, later
    ones first at a tie, then the pieces right after them, fill up to :data:`MAX_EXCERPT`
    characters and are shown in text order, ``…`` marking what is left out. ``""`` when the
    note is short or no piece holds a query word (then the head is shown).

    >>> excerpt("Intro line.\n" * 20 + "The gate code is 9023# now.", frozenset({"gat", "cod"}))
    '… The gate code is 9023# now.'
    """
    if len(" ".join(text.split())) <= MAX_OBJECT or not words:
        return ""
    pieces = _pieces(text)
    hits = [
        i
        for n, i in sorted(
            ((len(term_set(p) & words), i) for i, p in enumerate(pieces)),
            key=lambda h: (-h[0], -h[1]),
        )
        if n
    ]
    chosen: set[int] = set()
    size = 0
    for i in [*hits, *(i + 1 for i in hits)]:  # the best pieces, then the pieces after them
        if i in chosen or i >= len(pieces) or size + len(pieces[i]) + 2 > MAX_EXCERPT:
            continue
        chosen.add(i)
        size += len(pieces[i]) + 2
    if not chosen:
        return ""
    out, prev = [], -1
    for i in sorted(chosen):
        if i != prev + 1:
            out.append("…")
        out.append(pieces[i])
        prev = i
    if prev != len(pieces) - 1:
        out.append("…")
    return " ".join(out)


#: A change asked for: "Reduce meloxicam to 1.6 ml", "increase lisinopril to 20 mg".
_TO_CHANGE = re.compile(
    r"(?i)\b(?:reduce|increase|raise|lower|change|switch|move|replace|update|upgrade|bump|cut)\b"
)
#: "hosting on my raspberry pi for now": no change, though it says "now".
_FOR_NOW = re.compile(r"(?i)\b(?:for|until|till|right|just)\s+now\b")


#: A value in a sentence: a capitalised word inside it, or a word with a digit ("7am", "B241").
_SENTENCE_VALUE = re.compile(r"(?<=\S\s)[A-Z][\w.+#&'-]*|[^\W\d]*\d[\w.:/%-]*")


def _read_span(f: FactView, text: str) -> str:
    """The words a fact was read from: its relation's first word in ``text`` to its value."""
    low = text.casefold()
    words = f.object.casefold().split()
    if not words:
        return ""
    at = low.find(" ".join(words))
    end = at + len(" ".join(words))
    if at < 0 and len(words) > 1:  # "collected mornings" of "collected on Monday mornings"
        at = low.find(words[0])
        end = low.find(words[-1], at, at + 80) + len(words[-1]) if at >= 0 else -1
    if at < 0 or end < at + len(words[-1]):
        return ""
    starts = [
        low.rfind(w, max(0, at - 80), at) for w in f.predicate.casefold().split("_") if len(w) > 2
    ]
    start = min((p for p in starts if p >= 0), default=at)
    return text[start:end]


def _own_words(f: FactView) -> str:
    """The sentence a fact without a session was read from, if it says more than the fact.

    It says a change, or a value the fact lost ("collected on Monday mornings" read as
    ``collected mornings``): docs/concepts/recall.md#own-words
    """
    if f.source is not None or not f.statement or f.predicate == "note":
        return ""
    text = " ".join(f.statement.split())
    cues = _FOR_NOW.sub("", text)
    triple = term_set(f"{f.subject} {f.predicate.replace('_', ' ')} {f.object}")
    if not CUE.search(cues) and not _TO_CHANGE.search(cues):
        if all(term_set(v) <= triple for v in _SENTENCE_VALUE.findall(_read_span(f, text))):
            return ""
    elif not term_set(text) - triple - term_set(" ".join(CUE.findall(text))):
        return ""  # "We migrated the API to Go." says no more than the fact and its change
    if len(text) > MAX_OBJECT:
        at = text.casefold().find(f.object.casefold())
        start = max(0, at - MAX_OBJECT // 2) if at >= 0 else 0
        cut = text[start : start + MAX_OBJECT]
        text = ("…" if start else "") + cut + ("…" if start + MAX_OBJECT < len(text) else "")
    gone = [v for v in ended_values(text) if v != f.object.casefold()]
    return f'said: "{text}"' + (f"; {gone[0]} no longer current" if gone else "")


def _line(c: _Candidate) -> str:
    f = c.fact
    tags = "".join(
        f"[{t}] "
        for t in ((f.kind,) if f.kind != "fact" else ()) + (("pinned",) if f.pinned else ())
    )
    said_ended = c.said_ended
    if f.predicate == "note":
        shown = c.shown or _clip(f.object, MAX_OBJECT)
        body = f"{f.subject} note: {shown}"
        if not said_ended:  # docs/concepts/recall.md#not-stated
            said_ended = unstated(shown) or ""
    else:
        body = f"{f.subject} {f.predicate} {_clip(f.object, MAX_OBJECT)}"
        said = _own_words(f)
        if said:
            body += f" ({said})"
    when = f"since {f.valid_from.date().isoformat()}"
    if f.valid_to is not None:
        when += f", until {f.valid_to.date().isoformat()}"
    if c.was:
        when += "; was " + ", ".join(_clip(w, 60) for w in c.was)
    if said_ended:
        when += "; " + said_ended
    disputed = f" ({c.disputed})" if c.disputed else ""
    return f"- {tags}{body} ({when}){disputed}"


def _fmt_day(t: dt.datetime) -> str:
    return (
        t.date().isoformat()
        if (t.hour, t.minute, t.second, t.microsecond) == (0,) * 4
        else (t.replace(tzinfo=None).isoformat(timespec="seconds") + "Z")
    )


def _fit(lines: Iterable[str], budget_chars: int) -> str:
    """Join lines; a text over budget (only a header can be) is cut with an ellipsis."""
    text = "\n".join(lines)
    return text if len(text) <= budget_chars else text[: budget_chars - 1] + "…"


def _fact_item(c: _Candidate) -> SearchItem:
    f = c.fact
    return SearchItem(
        kind="fact",
        id=f.id,
        text=_line(c)[2:],
        score=round(c.score, 6),
        date=f.valid_from,
        session=f.source,
    )


def _line_item(c: LineCandidate | LineRow, score: float | None = None) -> SearchItem:
    row = c.line if isinstance(c, LineCandidate) else c
    return SearchItem(
        kind="line",
        id=row.id,
        text=line_text(c),
        score=round(c.score if isinstance(c, LineCandidate) else (score or 0.0), 6),
        date=row.started_at,
        session=row.session,
        superseded=c.superseded if isinstance(c, LineCandidate) else None,
    )


def _grounds(ranked: Sequence[_Candidate]) -> list[tuple[str, str, float]]:
    """The best on-topic facts read from a session: ``(source, statement, score)``.

    A fact that matches the query only by a name lends no line (see :mod:`graphmem.episodic`).
    """
    out = []
    for c in ranked:
        if c.on_topic and c.fact.source and c.fact.statement:
            out.append((c.fact.source, c.fact.statement, c.score))
            if len(out) == GROUND_FACTS:
                break
    return out


def _covered(
    ranked: Sequence[_Candidate], found: Sequence[LineCandidate], same: Mapping[str, str]
) -> dict[str, str]:
    """Return ``{fact id: line id}`` for facts whose statement a line of their session holds.

    ``found`` are all line candidates, ``same`` maps each to the kept line saying the same
    (:func:`_dedupe`): the id returned. Facts with a "was" note are never covered (the line
    does not say what they replaced).
    """
    by_session: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for lc in found:
        row = lc.line
        texts = (_norm_text(row.text),) + (
            (_norm_text(f"{row.speaker}: {row.text}"),) if row.speaker else ()
        )
        by_session.setdefault(row.session, []).append((same.get(row.id, row.id), texts))
    out: dict[str, str] = {}
    for c in ranked:
        f = c.fact
        if c.was or not f.source or f.source not in by_session:
            continue
        said_text = _norm_text(f.statement or (f.object if f.predicate == "note" else ""))
        if not said_text:
            continue
        for line_id, texts in by_session[f.source]:
            if any(said_text in t for t in texts):
                out[f.id] = line_id
                break
    return out


def _norm_text(text: str) -> str:
    return " ".join(text.split()).casefold()


#: Near-duplicate lines fold when the smaller word set holds at least this share of the
#: larger's (and is part of it): docs/concepts/recall.md#echo-folding.
ECHO_SHARE = 0.8
#: Lines of fewer words than this never fold as near-duplicates (only as exact repeats).
ECHO_MIN_WORDS = 3


#: A token holding a digit ("02:30", "$16.99", "v1.27"): the indexed words leave numbers out,
#: so a line differing only in one ("export 02:30", "export 05:00") says something else.
_FIGURE = re.compile(r"[^\s,;()]*\d[^\s,;()]*")


def _dedupe(cands: Sequence[LineCandidate]) -> tuple[list[LineCandidate], dict[str, str]]:
    """Fold lines that say the same thing into the best of them (echo folding).

    Exact repeats (same speaker and text) and near-duplicates (same speaker, neither marked
    superseded, every indexed word and every figure of the folded line in the kept one and at
    least :data:`ECHO_SHARE` of its words) fold into the best-ranked line, which then notes how
    often and from when to when it was said (docs/concepts/recall.md#echo-folding): the
    folded lines say nothing the kept one does not, so no value is hidden and no superseded
    value is shown as current. Deterministic: candidates come best first (ties in their order).

    Returns the kept lines and ``{line id: id of the kept line saying the same}`` for the
    exact repeats (what a fact's statement in one of them is covered by).
    """
    kept: dict[tuple[str, str], str] = {}
    same: dict[str, str] = {}
    out: list[LineCandidate] = []
    groups: dict[str, list[LineCandidate]] = {}
    words: dict[str, frozenset[str]] = {}
    numbers: dict[str, frozenset[str]] = {}  # tokens holding a digit: times, amounts, versions
    homes: dict[str, list[LineCandidate]] = {}  # the kept lines not superseded, by speaker
    for c in cands:
        speaker = (c.line.speaker or "").casefold()
        key = (speaker, " ".join(c.line.text.split()).casefold())
        if key in kept:
            same[c.line.id] = kept[key]
            groups[kept[key]].append(c)
            continue
        mine = term_set(c.line.text)
        figures = frozenset(_FIGURE.findall(c.line.text.casefold()))
        home = None
        if c.superseded is None and len(mine) >= ECHO_MIN_WORDS:
            home = next(
                (
                    k
                    for k in homes.get(speaker, ())
                    if mine <= words[k.line.id]
                    and len(mine) >= ECHO_SHARE * len(words[k.line.id])
                    and figures <= numbers[k.line.id]
                ),
                None,
            )
        if home is not None:
            groups[home.line.id].append(c)
            continue
        kept[key] = same[c.line.id] = c.line.id
        words[c.line.id] = mine
        numbers[c.line.id] = figures
        groups[c.line.id] = [c]
        out.append(c)
        if c.superseded is None:  # a line others may fold into (kept in order, by speaker)
            homes.setdefault(speaker, []).append(c)
    for c in out:
        group = groups[c.line.id]
        if len(group) > 1:
            first = min(g.line.started_at for g in group)
            last = max(g.line.started_at for g in group)
            when = fmt_date(first)
            if first.date() != last.date():
                when += f"–{fmt_date(last)}"
            c.echo = f"said {len(group)}×, {when}"
    return out, same


#: What :func:`_block_size` keeps of a line: its place, the place before it, and its length
#: with the newline, dated and continued.
Sized = tuple[tuple[str, int], tuple[str, int], int, int]


def _block_size(chosen: Mapping[str, LineCandidate | LineRow], sizes: dict[str, Sized]) -> int:
    """Characters (newlines included) of :func:`_lines_block` for ``chosen``, without it.

    ``sizes`` keeps each line's figures by id between calls (a packing asks again and again).
    """
    parts = []
    for c in chosen.values():
        r = c.line if isinstance(c, LineCandidate) else c
        size = sizes.get(r.id)
        if size is None:
            size = sizes[r.id] = (
                (r.session, r.n),
                (r.session, r.n - 1),
                1 + len(render_line(c)),
                1 + len(render_line(c, dated=False)),
            )
        parts.append(size)
    present = {p[0] for p in parts}
    return sum(p[3] if p[1] in present else p[2] for p in parts)


def _lines_block(chosen: Mapping[str, LineCandidate | LineRow], order: Sequence[str]) -> list[str]:
    """Render chosen lines as passages: consecutive lines of a session merge (module docs).

    Passages come in the order of their best line in ``order`` (the ids, best first).
    """
    rank = {lid: i for i, lid in enumerate(order)}
    by_session: dict[str, list[LineCandidate | LineRow]] = {}
    for c in chosen.values():
        row = c.line if isinstance(c, LineCandidate) else c
        by_session.setdefault(row.session, []).append(c)
    passages: list[tuple[int, list[str]]] = []
    for items in by_session.values():
        rows = sorted(items, key=lambda c: (c.line if isinstance(c, LineCandidate) else c).n)
        current: list[str] = []
        best = len(rank)
        prev_n = None
        for c in rows:
            row = c.line if isinstance(c, LineCandidate) else c
            if prev_n is not None and row.n == prev_n + 1:
                current.append(render_line(c, dated=False))
            else:
                if current:
                    passages.append((best, current))
                current, best = [render_line(c)], len(rank)
            best = min(best, rank.get(row.id, len(rank)))
            prev_n = row.n
        if current:
            passages.append((best, current))
    passages.sort(key=lambda p: (p[0], p[1][0]))
    return [line for _, block in passages for line in block]


def line_text(c: LineCandidate | LineRow, superseded: str | None = None) -> str:
    """Return a line as ``Speaker: text`` with its superseded and echo notes (no date)."""
    row = c.line if isinstance(c, LineCandidate) else c
    note = c.superseded if isinstance(c, LineCandidate) else superseded
    echo = c.echo if isinstance(c, LineCandidate) else None
    body = _clip(row.text, MAX_TEXT)
    text = f"{row.speaker}: {body}" if row.speaker else body
    if note is None:  # docs/concepts/recall.md#not-stated
        note = unstated(row.text)
    notes = "; ".join(n for n in (note, echo) if n)
    return f"{text} ({notes})" if notes else text


def render_line(c: LineCandidate | LineRow, *, dated: bool = True) -> str:
    """Return a line as rendered in a context block.

    ``dated``: the first line of a passage, ``- [8 May 2023] ...``; else a continuation of
    the passage above, indented.
    """
    row = c.line if isinstance(c, LineCandidate) else c
    if dated:
        return f"- [{fmt_date(row.started_at)}] {line_text(c)}"
    return f"  {line_text(c)}"
