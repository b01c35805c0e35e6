"""Readable results in Jupyter and in print: HTML tables and one-line texts (stdlib only).

Jupyter shows an object by calling its ``_repr_html_``; :class:`~graphmem.models.Fact`,
:class:`~graphmem.audit.Explanation`, :class:`~graphmem.audit.Change`,
:class:`~graphmem.hotness.TopicScore` and :class:`~graphmem.triage.TopicTriage` have one, and
the lists that :class:`~graphmem.Memory` returns (``facts``, ``history``, ``believed``,
``changes``, ``hot_topics``, ``triage``) are :class:`ResultList` s: plain ``list`` s (equal to
lists, JSON-serialisable) that render as one table and print one item per line. ``context``
returns a :class:`ContextText`, a ``str`` that Jupyter shows as its lines.

Every value is escaped with :func:`html.escape`; tables stop after :data:`MAX_ROWS` rows and
say how many were left out.

>>> import datetime as dt
>>> from graphmem.models import Fact
>>> t = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)
>>> f = Fact(id="f1", subject="api", predicate="runs_on", object="<Go>", valid_from=t,
...          recorded_at=t + dt.timedelta(days=9))
>>> print(f)
api runs_on <Go> [2026-06-01 → now) learned 2026-06-10
>>> "&lt;Go&gt;" in f._repr_html_() and "<Go>" not in f._repr_html_()
True
>>> facts = FactList([f])
>>> facts == [f], isinstance(facts, list)
(True, True)
"""

from __future__ import annotations

import datetime as dt
import html
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from graphmem.timeutil import fmt

__all__ = [
    "CELL_CHARS",
    "MAX_ROWS",
    "ContextText",
    "FactList",
    "ResultList",
    "clip",
    "fact_text",
    "table",
]

#: Tables show at most this many rows, then a row saying how many more there are.
MAX_ROWS = 100
#: A table cell shows at most this many characters, the last one ``…`` (HTML and the CLI).
CELL_CHARS = 200
_T = TypeVar("_T")


# -- the shapes rendered: read by attribute, so this module imports none of its result types --


class Fact(Protocol):
    """A fact version as rendered (:class:`graphmem.models.Fact`)."""

    @property
    def subject(self) -> str: ...
    @property
    def predicate(self) -> str: ...
    @property
    def object(self) -> str: ...
    @property
    def valid_from(self) -> dt.datetime: ...
    @property
    def valid_to(self) -> dt.datetime | None: ...
    @property
    def recorded_at(self) -> dt.datetime: ...
    @property
    def expired_at(self) -> dt.datetime | None: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def source(self) -> str | None: ...
    @property
    def source_type(self) -> str | None: ...


class Session(Protocol):
    """A session as rendered (:class:`graphmem.models.Session`)."""

    @property
    def id(self) -> str: ...
    @property
    def started_at(self) -> dt.datetime: ...
    @property
    def title(self) -> str | None: ...
    @property
    def mentions(self) -> dict[str, int]: ...


class TopicScore(Protocol):
    """A topic's hotness as rendered (:class:`graphmem.hotness.TopicScore`)."""

    @property
    def topic(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def band(self) -> object: ...
    @property
    def hits(self) -> int: ...
    @property
    def age_days(self) -> float: ...
    @property
    def plain_score(self) -> float: ...
    @property
    def idf_score(self) -> float: ...


class TopicTriage(Protocol):
    """A topic's triage as rendered (:class:`graphmem.triage.TopicTriage`)."""

    @property
    def topic(self) -> str: ...
    @property
    def recommendation(self) -> object: ...
    @property
    def composite(self) -> float: ...
    @property
    def days_since_last(self) -> float | None: ...
    @property
    def n_sessions(self) -> int: ...
    @property
    def reason(self) -> str: ...


class Change(Protocol):
    """A change of knowledge as rendered (:class:`graphmem.audit.Change`)."""

    @property
    def at(self) -> dt.datetime: ...
    @property
    def action(self) -> str: ...
    @property
    def fact(self) -> Fact | None: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def detail(self) -> str | None: ...


class Explanation(Protocol):
    """A ``why`` answer as rendered (:class:`graphmem.audit.Explanation`)."""

    @property
    def fact(self) -> Fact: ...
    @property
    def chain(self) -> Sequence[Fact]: ...
    @property
    def sessions(self) -> Sequence[Session]: ...
    @property
    def sources(self) -> Sequence[str]: ...


def clip(value: object, limit: int = CELL_CHARS) -> str:
    """Return a value as a table cell: its text, cut to ``limit`` characters ending in ``…``.

    >>> clip("x" * 300)[-3:], len(clip("x" * 300)), clip(None), clip(42)
    ('xx…', 200, '', '42')
    """
    text = "" if value is None else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _cell(value: object) -> str:
    text = "" if value is None else str(value)
    if len(text) > CELL_CHARS:  # the full text stays readable in the tooltip
        return f'<span title="{html.escape(text)}">{html.escape(clip(text))}</span>'
    return html.escape(text)


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    caption: str | None = None,
    total: int | None = None,
) -> str:
    """Return an HTML table; every header and cell is escaped, rows past ``MAX_ROWS`` dropped.

    Args:
        headers: the column names.
        rows: the cells of each row (any values; ``None`` is an empty cell).
        caption: a caption above the table.
        total: the number of rows in the whole result, when ``rows`` is already cut.

    Returns:
        The HTML text.

    Examples:
        >>> table(["a"], [["<b>"]]).removeprefix('<table class="graphmem">')
        '<thead><tr><th>a</th></tr></thead><tbody><tr><td>&lt;b&gt;</td></tr></tbody></table>'
    """
    body = []
    shown = 0
    for row in rows:
        if shown == MAX_ROWS:
            break
        body.append("<tr>" + "".join(f"<td>{_cell(c)}</td>" for c in row) + "</tr>")
        shown += 1
    if total is not None and total > shown:
        body.append(
            f'<tr><td colspan="{len(headers)}"><i>… {total - shown:,} more not shown '
            f"({total:,} in all)</i></td></tr>"
        )
    cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    return (
        f'<table class="graphmem">{cap}<thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
    )


# -- facts ----------------------------------------------------------------------------------------


def _valid(f: Fact) -> str:
    return f"[{fmt(f.valid_from)} → {fmt(f.valid_to) if f.valid_to else 'now'})"


def fact_text(f: Fact) -> str:
    """Return a fact version on one line: triple, valid interval, when it was learned (closed).

    >>> import datetime as dt
    >>> from graphmem.models import Fact
    >>> t = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)
    >>> fact_text(Fact(id="f", subject="api", predicate="runs_on", object="Go", valid_from=t,
    ...     valid_to=t + dt.timedelta(days=3), recorded_at=t, expired_at=t + dt.timedelta(days=5)))
    'api runs_on Go [2026-06-01 → 2026-06-04) learned 2026-06-01, closed 2026-06-06'
    """
    closed = f", closed {fmt(f.expired_at)}" if f.expired_at is not None else ""
    if f.expired_at is not None and f.expired_at == f.recorded_at and f.reason:
        # docs/concepts/decisions.md#authority-and-disputes: stored beside, never current
        if f.reason.startswith("disputed"):
            closed = f", disputed by {f.source_type or 'an unnamed source'}"
        elif f.reason.startswith("dispute "):
            closed = f", {' '.join(f.reason.split()[:2])}"
    return f"{f.subject} {f.predicate} {f.object} {_valid(f)} learned {fmt(f.recorded_at)}{closed}"


_FACT_HEADERS = ("subject", "predicate", "object", "valid", "learned", "closed", "why closed")


def _fact_cells(f: Fact) -> list[object]:
    closed = fmt(f.expired_at) if f.expired_at is not None else "current"
    return [f.subject, f.predicate, f.object, _valid(f), fmt(f.recorded_at), closed, f.reason]


def fact_html(f: Fact) -> str:
    """Return one fact version as a one-row HTML table."""
    return table(_FACT_HEADERS, [_fact_cells(f)])


# -- the other result types -----------------------------------------------------------------------


def _score_cells(s: TopicScore) -> list[object]:
    return [
        s.topic,
        f"{s.score:.2f}",
        str(s.band),
        s.hits,
        f"{s.age_days:.0f}",
        f"{s.plain_score:.2f}",
        f"{s.idf_score:.2f}",
    ]


_SCORE_HEADERS = ("topic", "score", "band", "hits", "age (days)", "plain", "idf")


def score_text(s: TopicScore) -> str:
    """Return a topic score on one line."""
    hits = f"{s.hits} session{'s' if s.hits != 1 else ''}"
    return f"{s.topic} {s.score:.2f} {s.band} ({hits}, {s.age_days:.0f} d ago)"


def _days(value: float | None) -> str:
    return "never" if value is None else f"{value:.0f}"


_TRIAGE_HEADERS = ("topic", "advice", "composite", "last mention (days)", "sessions", "reason")


def _triage_cells(t: TopicTriage) -> list[object]:
    return [
        t.topic,
        str(t.recommendation),
        f"{t.composite:.2f}",
        _days(t.days_since_last),
        t.n_sessions,
        t.reason,
    ]


def triage_text(t: TopicTriage) -> str:
    """Return a triage result on one line."""
    return f"{t.topic} {t.recommendation} {t.composite:.2f} — {t.reason}"


_CHANGE_HEADERS = ("at", "action", "fact", "valid", "reason")


def _change_cells(c: Change) -> list[object]:
    if c.fact is None:
        return [fmt(c.at), c.action, c.detail, "", c.reason]
    f = c.fact
    reason = c.reason if c.action != "learned" else ""
    return [fmt(c.at), c.action, f"{f.subject} {f.predicate} {f.object}", _valid(f), reason]


def change_html(c: Change) -> str:
    """Return one change as a one-row HTML table."""
    return table(_CHANGE_HEADERS, [_change_cells(c)])


def _session_cells(s: Session) -> list[object]:
    mentions = ", ".join(f"{k} ×{n}" if n != 1 else k for k, n in sorted(s.mentions.items()))
    return [s.id, fmt(s.started_at), s.title, mentions]


_SESSION_HEADERS = ("session", "started", "title", "mentions")


def explanation_html(e: Explanation) -> str:
    """Return a ``why`` explanation: the fact, its versions in system time, its sessions."""
    f = e.fact
    events: list[tuple[Any, int, int, list[object]]] = []
    for i, v in enumerate(e.chain):
        src = v.source or ""
        events.append(
            (v.recorded_at, 1, i, [fmt(v.recorded_at), "learned", v.object, _valid(v), src])
        )
        if v.expired_at is not None:
            events.append(
                (v.expired_at, 0, i, [fmt(v.expired_at), "closed", v.object, _valid(v), v.reason])
            )
    events.sort(key=lambda ev: ev[:3])
    caption = f"why: {f.subject} {f.predicate} {f.object} {_valid(f)}"
    parts = [
        table(
            ("when", "event", "object", "valid", "source / reason"),
            [ev[3] for ev in events],
            caption=caption,
        )
    ]
    known = {s.id for s in e.sessions}
    missing = [s for s in e.sources if s not in known]
    if e.sessions or missing:
        rows = [_session_cells(s) for s in e.sessions]
        rows += [[s, "", "(not recorded)", ""] for s in missing]
        parts.append(table(_SESSION_HEADERS, rows, caption="sessions"))
    return "".join(parts)


# -- lists ----------------------------------------------------------------------------------------


#: The table of each result type, by its defining module and name: a subclass renders as
#: its base, and this module imports none of them (it is a core module below them all).
_RENDERERS: dict[tuple[str, str], tuple[Sequence[str], Callable[[Any], list[object]]]] = {
    ("graphmem.models", "Fact"): (_FACT_HEADERS, _fact_cells),
    ("graphmem.hotness", "TopicScore"): (_SCORE_HEADERS, _score_cells),
    ("graphmem.triage", "TopicTriage"): (_TRIAGE_HEADERS, _triage_cells),
    ("graphmem.audit", "Change"): (_CHANGE_HEADERS, _change_cells),
    ("graphmem.models", "Session"): (_SESSION_HEADERS, _session_cells),
}


def _renderer(item: object) -> tuple[Sequence[str], Callable[[Any], list[object]]] | None:
    """Return the table headers and the cells function for an item type, if known."""
    for cls in type(item).__mro__:
        found = _RENDERERS.get((cls.__module__, cls.__qualname__))
        if found is not None:
            return found
    return None


class ResultList(list[_T]):
    """A ``list`` of results that Jupyter shows as one table and ``print`` as one per line.

    It is a real ``list``: it compares equal to a plain list with the same items, serialises
    to JSON as a list, and slicing it gives a plain list. ``repr`` is the list's.
    """

    def __str__(self) -> str:
        if not self:
            return "(no results)"
        return "\n".join(str(item) for item in self)

    def _repr_html_(self) -> str:
        if not self:
            return "<p><i>no results</i></p>"
        first = self[0]
        found = _renderer(first)
        kinds = {type(item) for item in self}
        if found is None or len(kinds) > 1:  # unknown or mixed items: one text cell each
            return table(("item",), ([str(i)] for i in self), total=len(self))
        headers, cells = found
        n = len(self)
        caption = f"{n:,} {type(first).__name__.lower()}{'s' if n != 1 else ''}"
        if type(first).__name__ == "Fact":
            caption = f"{n:,} fact version{'s' if n != 1 else ''}"
        return table(headers, (cells(i) for i in self), caption=caption, total=n)


class FactList(ResultList[_T]):
    """The fact versions ``facts()``, ``history()`` and ``believed()`` return: a plain list."""


class ContextText(str):
    """The text block ``context()`` returns: a ``str`` that Jupyter shows as its lines."""

    __slots__ = ()

    def _repr_html_(self) -> str:
        lines = self.split("\n")
        head, rest = lines[0], lines[1:]
        items = "".join(f"<li>{html.escape(x[2:])}</li>" for x in rest if x.startswith("- "))
        notes = "".join(f"<i>{html.escape(x)}</i>" for x in rest if not x.startswith("- "))
        body = f"<ul>{items}</ul>" if items else ""
        return f'<div class="graphmem"><b>{html.escape(head)}</b>{body}{notes}</div>'

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:  # IPython's plain-text view
        p.text(str(self))
