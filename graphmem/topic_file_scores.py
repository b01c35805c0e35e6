"""Topic files: the pure rules that score a memory directory's markdown files.

See docs/concepts/topic-files.md.

A memory directory holds a routing index (``MEMORY.md``) and topic files (every other
``*.md``). These functions turn plain numbers about each file (sessions that mention it, when
it was last mentioned and modified, its lines) into rows, with the formulas of
:mod:`graphmem.hotness` and :mod:`graphmem.triage`; they read no file and no store (the service
is :mod:`graphmem.topic_files`).

- :func:`file_keywords`: a topic's keywords from its file name
  (docs/concepts/topic-files.md#keywords).
- :func:`score_health`: hits, IDF-weighted hits, hotness and band per file
  (docs/concepts/topic-files.md#health).
- :func:`triage_file` / :func:`triage_files`: the four Synthesis dimensions, the composite and
  the recommendation per file (docs/concepts/topic-files.md#triage).
- :func:`routing_links`: the files a routing index links to
  (docs/concepts/topic-files.md#audit).

>>> file_keywords("kuzu-query_planner.notes.md")
('kuzu', 'query', 'planner')
>>> file_keywords("the-and.md")
()
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Generic, Literal, NamedTuple, TypeVar
from urllib.parse import unquote

from pydantic import BaseModel, ConfigDict, Field

from graphmem.errors import InvalidInput
from graphmem.hotness import Band, TopicCounts, classify, score_counts
from graphmem.normalize import STOPWORDS
from graphmem.triage import (
    Recommendation,
    actionability_score,
    composite_score,
    recency_score,
    recommend,
    recurrence_score,
    staleness_score,
)

__all__ = [
    "ACTIONABLE_LINES",
    "FILE_WORDS",
    "MAX_FILE_BYTES",
    "ROUTING_INDEX",
    "FileCounts",
    "FileTriageRow",
    "SkippedFile",
    "StaleLine",
    "TopicFileList",
    "TopicFileTriage",
    "TopicHealth",
    "file_keywords",
    "normal_path",
    "routed_files",
    "routing_links",
    "score_health",
    "triage_file",
    "triage_files",
]

#: The routing index of a memory directory: not a topic, but read by the audit.
ROUTING_INDEX = "MEMORY.md"
#: Files larger than this (1 MB) are reported and skipped, never read.
MAX_FILE_BYTES = 1024 * 1024
#: Actionability looks for prescriptive cues in this many first lines of a file.
ACTIONABLE_LINES = 50

#: Words that name the kind of file, not its topic ("debugging-notes.md" is about debugging):
#: left out of the keywords with the stop words, since sessions rarely say them.
FILE_WORDS = frozenset(
    [
        "doc",
        "docs",
        "draft",
        "general",
        "index",
        "info",
        "memories",
        "memory",
        "misc",
        "note",
        "notes",
        "overview",
        "readme",
        "stuff",
        "temp",
        "things",
        "tmp",
        "todo",
        "todos",
        "topic",
        "topics",
        "wip",
    ]
)
_SPLIT = re.compile(r"[-_.\s]+")
_SECONDS_PER_DAY = 86_400.0
_EARLIEST = dt.datetime(1, 1, 1, tzinfo=dt.timezone.utc)
_T = TypeVar("_T")


def _days(delta: dt.timedelta) -> float:
    return max(delta.total_seconds() / _SECONDS_PER_DAY, 0.0)


def file_keywords(name: str) -> tuple[str, ...]:
    """Return a topic's keywords: its file name split on ``-``, ``_`` and ``.``, stop words out.

    The directories and the ``.md`` suffix are dropped, the words case-folded; stop words
    (:data:`graphmem.normalize.STOPWORDS`), one-letter words and bare numbers are left out, as
    session search leaves them out of every line, and so are the words that name the kind of
    file (:data:`FILE_WORDS`: notes, misc, overview, ...; docs/concepts/topic-files.md#keywords).

    Args:
        name: the file's name or path (``"infra/api-migration.md"``).

    Returns:
        The keywords in file-name order, without repeats; empty when none is left.

    Raises:
        InvalidInput: ``name`` is not a string.

    Examples:
        >>> file_keywords("infra/API-Migration_2026.md")
        ('api', 'migration')
    """
    if not isinstance(name, str):
        raise InvalidInput(f"name={name!r} is not a string; pass the topic file's name")
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    if base.lower().endswith(".md"):
        base = base[:-3]
    words = (w.casefold() for w in _SPLIT.split(base))
    kept = (
        w
        for w in words
        if len(w) > 1 and not w.isdigit() and w not in STOPWORDS and w not in FILE_WORDS
    )
    return tuple(dict.fromkeys(kept))


# -- rows ----------------------------------------------------------------------------------------


class _Row(BaseModel):
    """A result row; ``row["field"]`` reads a field as ``row.field`` does."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    def __getitem__(self, key: str) -> Any:
        if key not in type(self).model_fields:
            raise KeyError(key)
        return getattr(self, key)

    def _repr_html_(self) -> str:  # Jupyter's table view
        return TopicFileList([self])._repr_html_()


class TopicHealth(_Row):
    """The health of one topic file (docs/concepts/topic-files.md#health)."""

    file: str = Field(description="Path relative to the directory, with '/' separators.")
    keywords: tuple[str, ...]
    hits: int = Field(ge=0, description="Distinct sessions in the window that mention it.")
    df: int = Field(ge=0, description="Distinct sessions up to now that mention it.")
    idf: float = Field(ge=0.0)
    weighted_hits: float = Field(ge=0.0, description="hits * idf.")
    engagement: float = Field(ge=0.0, le=1.0)
    recency: float = Field(ge=0.0, le=1.0)
    last_mention: dt.datetime | None = Field(description="Newest mentioning session, if any.")
    modified: dt.datetime = Field(description="The file's modification time.")
    age_days: float = Field(ge=0.0, description="Days since the newest mention or edit.")
    hotness: float = Field(ge=0.0, le=1.0)
    band: Band
    idf_hotness: float = Field(ge=0.0, le=1.0)
    idf_band: Band

    def __str__(self) -> str:
        words = ", ".join(self.keywords) or "no keywords"
        return (
            f"{self.file} {self.band} {self.hotness:.2f} ({self.hits} hits, weighted "
            f"{self.weighted_hits:.2f}; {words})"
        )


class TopicFileTriage(_Row):
    """The triage of one topic file (docs/concepts/topic-files.md#triage)."""

    file: str
    recommendation: Recommendation
    composite: float = Field(ge=0.0, le=1.0)
    recency: float = Field(ge=0.0, le=1.0)
    recurrence: float = Field(ge=0.0, le=1.0)
    actionability: float = Field(ge=0.0, le=1.0)
    staleness: float = Field(ge=0.0, le=1.0)
    lines: int = Field(ge=0)
    routed: bool = Field(description="Whether the routing index links the file.")
    sessions: int = Field(ge=0, description="Distinct sessions in the window that mention it.")
    days_since_last: float | None = Field(description="Days since the last mention, if any.")
    age_days: float = Field(ge=0.0, description="Days since the file was modified.")
    reason: str

    @property
    def needs_attention(self) -> bool:
        """Whether the recommendation is anything but KEEP."""
        return self.recommendation is not Recommendation.KEEP

    def __str__(self) -> str:
        return f"{self.file} {self.recommendation} {self.composite:.2f} - {self.reason}"


StaleKind = Literal["superseded", "ended", "missing", "archive"]


class StaleLine(_Row):
    """A line of a topic file or of the routing index that memory knows to be out of date.

    ``kind`` says what is wrong (docs/concepts/topic-files.md#audit): ``superseded`` (its value
    was replaced by ``current_value``), ``ended`` (its value ended and nothing replaced it),
    ``missing`` (a routing entry whose file does not exist) or ``archive`` (a routing entry
    whose file triage calls ARCHIVE).
    """

    kind: StaleKind
    file: str
    line: int = Field(ge=1, description="1-based line number.")
    text: str = Field(description="The line, without its surrounding whitespace.")
    subject: str | None = None
    predicate: str | None = None
    stale_value: str | None = Field(default=None, description="What the line says.")
    current_value: str | None = Field(default=None, description="What is true now, if any.")
    ended: bool = Field(default=False, description="The value ended with no replacement.")
    since: dt.datetime | None = Field(default=None, description="Valid time of the change.")
    learned_at: dt.datetime | None = Field(default=None, description="When memory learned it.")
    session: str | None = Field(default=None, description="The session that said so.")
    target: str | None = Field(default=None, description="A routing entry's linked path.")

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        if self.kind == "missing":
            return f"{where} links {self.target!r}, which does not exist"
        if self.kind == "archive":
            return f"{where} links {self.target!r}, which triage calls ARCHIVE"
        day = "" if self.since is None else self.since.date().isoformat()
        said = "" if self.session is None else f" (session {self.session})"
        if self.ended:
            return f"{where} {self.text!r}: {self.stale_value} ended {day}".rstrip() + said
        when = f" since {day}" if day else ""
        return f"{where} {self.text!r}: {self.stale_value} → now {self.current_value}{when}{said}"


class SkippedFile(_Row):
    """A file or folder of the directory that was not read, and why."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"


class TopicFileList(list[_T], Generic[_T]):
    """The rows of a topic-file command: a plain ``list``, with the files left out.

    Attributes:
        skipped: the :class:`SkippedFile` s of the directory (hidden, a symlink leaving it,
            not UTF-8, over 1 MB, not a regular file), reported, never read.
    """

    skipped: list[SkippedFile]

    def __init__(self, rows: Iterable[_T] = (), skipped: Iterable[SkippedFile] = ()) -> None:
        super().__init__(rows)
        self.skipped = list(skipped)

    def __str__(self) -> str:
        lines = [str(r) for r in self] or ["(no results)"]
        lines += [f"skipped {s}" for s in self.skipped]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from graphmem.display import table

        parts: list[str] = []
        if self:
            first = self[0]
            headers = [n for n in type(first).model_fields if n != "reason"]  # type: ignore[attr-defined]
            rows = ([getattr(r, h) for h in headers] for r in self)
            parts.append(table(headers, rows, caption=f"{len(self)} rows", total=len(self)))
        else:
            parts.append("<p><i>no results</i></p>")
        if self.skipped:
            parts.append(table(("path", "reason"), ([s.path, s.reason] for s in self.skipped)))
        return "".join(parts)


# -- health --------------------------------------------------------------------------------------


class FileCounts(NamedTuple):
    """One topic file's counts as of ``now``: the input row of :func:`score_health`.

    Attributes:
        file: the path relative to the directory.
        keywords: from :func:`file_keywords`.
        hits: distinct sessions dated in ``(now - window, now]`` that mention it.
        df: distinct sessions dated ``<= now`` that mention it (``>= hits``).
        last_mention: the newest mentioning session ``<= now``; ``None`` if none.
        modified: the file's modification time.
    """

    file: str
    keywords: tuple[str, ...]
    hits: int
    df: int
    last_mention: dt.datetime | None
    modified: dt.datetime


def score_health(
    counts: Sequence[FileCounts], *, now: dt.datetime, n_sessions: int
) -> list[TopicHealth]:
    """Score topic files with hotness's formula: hottest first, then by file.

    ``hotness = 0.6 * hits / max_hits + 0.4 * recency`` (docs/concepts/hotness.md#hotness), with
    ``max_hits`` over the files given and recency from the newest of the last mention and the
    file's modification time (a time after ``now`` counts as ``now``); the IDF-weighted hits
    and score are reported beside (docs/concepts/hotness.md#the-idf-variant).

    Args:
        counts: one row per file, files distinct.
        now: the aware time scored at.
        n_sessions: ``N`` of the IDF: sessions dated ``<= now`` (``>= every df``).

    Returns:
        One :class:`TopicHealth` per file, by ``hotness`` descending, then file.

    Raises:
        InvalidInput: a malformed row or count (as :func:`graphmem.hotness.score_counts`).

    Examples:
        >>> import datetime as dt
        >>> now = dt.datetime(2026, 6, 30, tzinfo=dt.timezone.utc)
        >>> rows = [FileCounts("api.md", ("api",), 4, 4, now, now),
        ...         FileCounts("old.md", ("old",), 0, 0, None, now - dt.timedelta(days=90))]
        >>> [(h.file, h.hits, str(h.band)) for h in score_health(rows, now=now, n_sessions=10)]
        [('api.md', 4, 'HOT'), ('old.md', 0, 'COLD')]
    """
    by_file = {c.file: c for c in counts}
    if len(by_file) != len(counts):
        raise InvalidInput("a file appears twice in the counts; pass one row per file")
    topic_counts = []
    for c in counts:
        seen = min(c.modified, now)
        if c.last_mention is not None:
            seen = max(seen, c.last_mention)
        topic_counts.append(TopicCounts(c.file, c.hits, c.df, seen))
    scores = score_counts(topic_counts, now=now, n_sessions=n_sessions)
    return [
        TopicHealth(
            file=s.topic,
            keywords=by_file[s.topic].keywords,
            hits=s.hits,
            df=by_file[s.topic].df,
            idf=s.idf,
            weighted_hits=s.weighted_hits,
            engagement=s.engagement,
            recency=s.recency,
            last_mention=by_file[s.topic].last_mention,
            modified=by_file[s.topic].modified,
            age_days=s.age_days,
            hotness=s.plain_score,
            band=classify(s.plain_score),
            idf_hotness=s.idf_score,
            idf_band=classify(s.idf_score),
        )
        for s in scores
    ]


# -- triage --------------------------------------------------------------------------------------


class FileTriageRow(NamedTuple):
    """One topic file's inputs to :func:`triage_file`.

    Attributes:
        file: the path relative to the directory.
        days_since_last: days since the last mentioning session, ``None`` if never.
        sessions: distinct sessions in the window that mention it.
        head: the file's first :data:`ACTIONABLE_LINES` lines.
        age_days: days since the file was modified.
        lines: the file's number of lines.
        routed: whether the routing index links it.
    """

    file: str
    days_since_last: float | None
    sessions: int
    head: str
    age_days: float
    lines: int
    routed: bool


def _reason(rec: Recommendation, row: FileTriageRow) -> str:
    n = f"{row.sessions} session{'' if row.sessions == 1 else 's'} in the window"
    if rec is Recommendation.ARCHIVE:
        return f"edited {row.age_days:.0f} days ago and mentioned in only {n}; consider archiving"
    if rec is Recommendation.PRUNE:
        return f"{row.lines} lines but mentioned in only {n}; consider splitting or pruning it"
    if rec is Recommendation.UPDATE:
        last = "never" if row.days_since_last is None else f"{row.days_since_last:.0f} days ago"
        return f"recurring ({n}) but last mentioned {last}; check it is still true"
    return f"mentioned in {n}; no action needed"


def triage_file(row: FileTriageRow) -> TopicFileTriage:
    """Triage one topic file with Synthesis' four dimensions (docs/concepts/topic-files.md#triage).

    ``recency`` from the last mentioning session, ``recurrence`` from the sessions in the
    window (3 or more: 1.0), ``actionability`` from prescriptive cues in the first 50 lines,
    ``staleness`` from the days since the file was modified (60 or more: 1.0); the composite
    and the first matching rule of ARCHIVE / PRUNE (more than 300 **lines** and recurrence
    < 0.4) / UPDATE / KEEP are :mod:`graphmem.triage`'s.

    Args:
        row: the file's inputs.

    Returns:
        The file's :class:`TopicFileTriage`.

    Raises:
        InvalidInput: a negative count or a value that is not a number.

    Examples:
        >>> t = triage_file(FileTriageRow("old.md", 61.0, 0, "notes", 61.0, 350, True))
        >>> str(t.recommendation), t.composite
        ('ARCHIVE', 0.03)
    """
    if isinstance(row.lines, bool) or not isinstance(row.lines, int) or row.lines < 0:
        raise InvalidInput(f"lines={row.lines!r} of {row.file!r} must be a non-negative int")
    if isinstance(row.age_days, bool) or not isinstance(row.age_days, (int, float)):
        raise InvalidInput(f"age_days={row.age_days!r} of {row.file!r} is not a number")
    if math.isnan(row.age_days):
        raise InvalidInput(f"age_days=nan of {row.file!r} is not a number; pass a finite value")
    recency = recency_score(row.days_since_last)
    recurrence = recurrence_score(row.sessions)
    actionability = actionability_score(row.head)
    staleness = staleness_score(row.age_days)
    rec = recommend(recency=recency, recurrence=recurrence, staleness=staleness, n_facts=row.lines)
    return TopicFileTriage(
        file=row.file,
        recommendation=rec,
        composite=composite_score(recency, recurrence, actionability, staleness),
        recency=recency,
        recurrence=recurrence,
        actionability=actionability,
        staleness=staleness,
        lines=row.lines,
        routed=bool(row.routed),
        sessions=row.sessions,
        days_since_last=row.days_since_last,
        age_days=max(float(row.age_days), 0.0),
        reason=_reason(rec, row),
    )


def triage_files(
    rows: Iterable[FileTriageRow], *, limit: int | None = None
) -> list[TopicFileTriage]:
    """Triage topic files, those needing attention first, then lowest composite, then file.

    Args:
        rows: one row per file.
        limit: keep the first ``limit`` (``None``: all).

    Returns:
        The triaged files, worst first.

    Raises:
        InvalidInput: a bad row, or a negative ``limit``.
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise InvalidInput(f"limit={limit!r} must be a non-negative int or None")
    out = sorted(
        (triage_file(r) for r in rows),
        key=lambda t: (not t.needs_attention, t.composite, t.file),
    )
    return out if limit is None else out[:limit]


# -- the routing index ---------------------------------------------------------------------------

_INLINE = re.compile(r"\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'(][^)]*)?\)")
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]\n]+\]:\s*<?(\S+?)>?(?:\s.*)?$")
_WIKI = re.compile(r"\[\[([^\]|#\n]+)(?:[#|][^\]\n]*)?\]\]")
_BARE = re.compile(r"(?<![\w/(\[.-])`?([\w./-]*[\w-]\.md)`?(?![\w/])", re.IGNORECASE)
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def _target(raw: str) -> str | None:
    raw = raw.strip()
    if not raw or raw.startswith("#") or _SCHEME.match(raw) or raw.startswith("//"):
        return None
    path = unquote(raw.split("#", 1)[0].split("?", 1)[0]).strip()
    if not path or path.endswith("/"):
        return None
    return path


def routing_links(text: str) -> Iterator[tuple[int, str, str]]:
    r"""Yield the local files a routing index links to: ``(line number, line, target)``.

    Markdown links (``[API](api.md)``, ``[api]: api.md``), wiki links (``[[api]]``, read as
    ``api.md``) and bare or backticked ``*.md`` paths count; web addresses and anchors do not.
    Targets are as written, without ``#anchor`` or ``?query`` (percent-escapes decoded).

    Args:
        text: the routing index's text.

    Yields:
        One ``(1-based line, stripped line, target)`` per distinct target of a line.

    Examples:
        >>> idx = "- [API](api.md#stack) and `infra/db.md`\n- [[deploy]]\n- https://x.io/a.md"
        >>> list(routing_links(idx))  # doctest: +NORMALIZE_WHITESPACE
        [(1, '- [API](api.md#stack) and `infra/db.md`', 'api.md'),
         (1, '- [API](api.md#stack) and `infra/db.md`', 'infra/db.md'),
         (2, '- [[deploy]]', 'deploy.md')]
    """
    for n, raw_line in enumerate(text.split("\n"), start=1):
        line = raw_line.strip()
        found: list[str] = []
        found.extend(m.group(1) for m in _INLINE.finditer(raw_line))
        ref = _REFERENCE.match(raw_line)
        if ref:
            found.append(ref.group(1))
        for w in _WIKI.finditer(raw_line):
            name = w.group(1).strip()
            found.append(name if name.lower().endswith(".md") else name + ".md")
        rest = _INLINE.sub(" ", raw_line)
        rest = re.sub(r"[a-zA-Z][a-zA-Z0-9+.-]*://\S+", " ", rest)
        if not _REFERENCE.match(rest):
            found.extend(m.group(1) for m in _BARE.finditer(rest))
        targets = [t for t in (_target(f) for f in found) if t is not None]
        for t in dict.fromkeys(targets):
            yield n, line, t


def routed_files(text: str, present: Iterable[str]) -> set[str]:
    """Return those of ``present`` (paths relative to the index's folder) the index links."""
    wanted = {normal_path(t) for _, _, t in routing_links(text)}
    return {p for p in present if normal_path(p) in wanted}


def normal_path(path: str) -> str:
    """Return a relative path with ``/`` separators, ``.`` and inner ``..`` resolved.

    >>> normal_path("./infra/../api.md")
    'api.md'
    """
    parts: list[str] = []
    for part in path.replace("\\", "/").split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts:
                parts.pop()
            else:
                parts.append("..")
            continue
        parts.append(part)
    return "/".join(parts)
