"""Topic files: the health and triage of a memory directory's markdown files, from sessions.

See docs/concepts/topic-files.md.

A memory directory (Claude Code's ``memory/`` folder, Synthesis' layout) holds a routing index
(``MEMORY.md``) and topic files: every other ``*.md`` under it. This module reads the directory
(:func:`scan`), counts the sessions whose lines mention each topic through the store's session
search (:meth:`~graphmem.store.base.SearchStore.search_lines`, the index behind episodic
recall), and scores the files with :mod:`graphmem.topic_file_scores`:

- :func:`topic_health`: hits, IDF-weighted hits, hotness and band per file;
- :func:`topic_triage`: Synthesis' four dimensions, composite and recommendation per file.

The audit of the files' content against the facts is :mod:`graphmem.topic_audit`.

**Advisory only.** Nothing in the directory is written, renamed or touched: files are opened
for reading only. Hidden files and folders, symlinks that leave the directory, files that are
not regular files, not UTF-8 or larger than 1 MB are reported in ``skipped`` and never read
or followed (docs/concepts/topic-files.md#what-is-read).
"""

from __future__ import annotations

import datetime as dt
import os
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from graphmem.errors import InvalidInput, NotFound
from graphmem.kernel import kernel_of
from graphmem.normalize import terms
from graphmem.timeutil import TimeLike, to_utc
from graphmem.topic_file_scores import (
    ACTIONABLE_LINES,
    MAX_FILE_BYTES,
    ROUTING_INDEX,
    FileCounts,
    FileTriageRow,
    SkippedFile,
    TopicFileList,
    TopicFileTriage,
    TopicHealth,
    file_keywords,
    routed_files,
    score_health,
    triage_files,
)
from graphmem.topics import _window_start

if TYPE_CHECKING:
    from graphmem.kernel import Kernel, MemoryLike
    from graphmem.store.base import Store
    from graphmem.store.records import LineRow

__all__ = ["Scan", "TopicFile", "lines_with", "scan", "topic_health", "topic_triage"]

_SECONDS_PER_DAY = 86_400.0
#: First page of a session search; a full page is asked again, this many times larger.
_PAGE = 2_000
_GROWTH = 8
StrPath = str | os.PathLike[str]


@dataclass(frozen=True)
class TopicFile:
    """One markdown file read from the directory.

    Attributes:
        rel: its path relative to the directory, with ``/`` separators.
        text: its content (UTF-8).
        modified: its modification time (aware UTC).
        lines: its number of lines.
    """

    rel: str
    text: str
    modified: dt.datetime
    lines: int


@dataclass
class Scan:
    """What :func:`scan` found in a directory."""

    root: Path
    topics: list[TopicFile] = field(default_factory=list)
    index: TopicFile | None = None
    skipped: list[SkippedFile] = field(default_factory=list)


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def _root(path: StrPath) -> Path:
    try:
        raw = os.fspath(path)
    except TypeError:
        raise InvalidInput(f"path={path!r} is not a path; pass the memory directory") from None
    if not isinstance(raw, str) or not raw.strip():
        raise InvalidInput(f"path={path!r} is empty; pass the memory directory")
    root = Path(raw).expanduser()
    if not root.exists():
        raise NotFound(f"directory {raw!r} does not exist; pass the memory directory's path")
    if not root.is_dir():
        raise InvalidInput(f"path={raw!r} is not a directory; pass the memory directory")
    return root.resolve()


def _read(path: Path, rel: str, root: Path, skipped: list[SkippedFile]) -> TopicFile | None:
    """Read one ``*.md`` file, or report why not (never following a link out of ``root``)."""
    try:
        info = path.lstat()
        if stat.S_ISLNK(info.st_mode):
            target = path.resolve()
            if not _inside(target, root):
                skipped.append(SkippedFile(path=rel, reason="symlink leaving the directory"))
                return None
            info = target.stat()
            path = target
        if not stat.S_ISREG(info.st_mode):
            skipped.append(SkippedFile(path=rel, reason="not a regular file"))
            return None
        if info.st_size > MAX_FILE_BYTES:
            skipped.append(
                SkippedFile(path=rel, reason=f"larger than 1 MB ({info.st_size:,} bytes)")
            )
            return None
        with open(path, "rb") as fh:  # read only: nothing in the directory is ever changed
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        skipped.append(SkippedFile(path=rel, reason=f"cannot be read: {exc.strerror or exc}"))
        return None
    if len(raw) > MAX_FILE_BYTES:
        skipped.append(SkippedFile(path=rel, reason="larger than 1 MB"))
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        skipped.append(SkippedFile(path=rel, reason=f"not UTF-8 (byte {exc.start})"))
        return None
    text = text.removeprefix("\ufeff")
    lines = text.count("\n") + (1 if text and not text.endswith("\n") else 0)
    modified = dt.datetime.fromtimestamp(info.st_mtime, tz=dt.timezone.utc)
    return TopicFile(rel=rel, text=text, modified=modified, lines=lines)


def scan(path: StrPath, *, index: str = ROUTING_INDEX) -> Scan:
    """Read the topic files and the routing index of a memory directory, read-only.

    Every ``*.md`` file under ``path`` (any case of ``.md``, in subfolders too) is a topic,
    except the routing index ``index`` at the top. Hidden files and folders (a name starting
    with ``.``), symlinks whose target leaves the directory, symlinked folders, files that are
    not regular files, not UTF-8 or larger than 1 MB are listed in ``skipped`` and never read
    or followed.

    Args:
        path: the memory directory.
        index: the routing index's file name at the top of the directory.

    Returns:
        The :class:`Scan`: topics sorted by relative path, the index (or ``None``), skipped.

    Raises:
        NotFound: ``path`` does not exist.
        InvalidInput: ``path`` is not a directory, or ``index`` is not a plain file name.
    """
    if not isinstance(index, str) or not index or "/" in index or "\\" in index:
        raise InvalidInput(f"index={index!r} is not a file name; pass e.g. 'MEMORY.md'")
    root = _root(path)
    found = Scan(root=root)
    for folder, dirs, files in os.walk(root, followlinks=False):
        here = Path(folder)
        keep = []
        for d in sorted(dirs):
            rel = (here / d).relative_to(root).as_posix()
            if d.startswith("."):
                found.skipped.append(SkippedFile(path=rel + "/", reason="hidden folder"))
            elif (here / d).is_symlink():
                leaves = not _inside((here / d).resolve(), root)
                why = "symlink leaving the directory" if leaves else "symlinked folder"
                found.skipped.append(SkippedFile(path=rel + "/", reason=f"{why} (not followed)"))
            else:
                keep.append(d)
        dirs[:] = keep
        for name in sorted(files):
            if not name.lower().endswith(".md"):
                continue
            rel = (here / name).relative_to(root).as_posix()
            if name.startswith("."):
                found.skipped.append(SkippedFile(path=rel, reason="hidden file"))
                continue
            got = _read(here / name, rel, root, found.skipped)
            if got is None:
                continue
            if rel.casefold() == index.casefold():  # MEMORY.md at the top, in any case
                found.index = got
            else:
                found.topics.append(got)
    found.topics.sort(key=lambda f: f.rel)
    found.skipped.sort(key=lambda s: s.path)
    return found


# -- sessions mentioning a topic -----------------------------------------------------------------


def lines_with(store: Store, words: Sequence[str]) -> list[LineRow]:
    """Every session line holding one of ``words`` (index terms), through session search."""
    limit = _PAGE
    while True:
        hits = store.search_lines(list(words), limit=limit)
        if len(hits) < limit:
            return [h.line for h in hits]
        limit *= _GROWTH


def _sessions_with(store: Store, term: str) -> dict[str, dt.datetime]:
    """``{session: started_at}`` of every session with a line holding ``term``."""
    return {line.session: line.started_at for line in lines_with(store, [term])}


@dataclass(frozen=True)
class _Mentions:
    hits: int
    df: int
    last: dt.datetime | None


def _mentions(
    kernel: Kernel,
    keywords: Sequence[tuple[str, ...]],
    *,
    at: dt.datetime,
    start: dt.datetime,
) -> list[_Mentions]:
    """Per topic: sessions in ``(start, at]`` (hits) and up to ``at`` that mention it.

    A session mentions a topic when its lines, together, hold every keyword of the topic
    (normalised as session search normalises words), or when it mentions an entity whose name
    holds every keyword (``add_session(mentions=[...])``; docs/concepts/topic-files.md#health).
    One search per distinct word, shared by the topics that use it; the sessions are read for
    their mentions only when a mentioned entity's name can match a topic.
    """
    wanted = [frozenset(t for k in kws for t in terms(k)) for kws in keywords]
    found: dict[str, dict[str, dt.datetime]] = {}
    for word in sorted(set().union(*wanted)):
        found[word] = {s: t for s, t in _sessions_with(kernel.store, word).items() if t <= at}
    by_mention = _mentioning(kernel, wanted, at=at, start=start)
    out: list[_Mentions] = []
    for words, named in zip(wanted, by_mention, strict=True):
        if not words:
            out.append(_Mentions(0, 0, None))
            continue
        ordered = sorted(words, key=lambda w: len(found[w]))
        sessions = dict(found[ordered[0]])
        for w in ordered[1:]:
            sessions = {s: t for s, t in sessions.items() if s in found[w]}
        sessions.update(named)
        hits = sum(1 for t in sessions.values() if t > start)
        out.append(_Mentions(hits, len(sessions), max(sessions.values(), default=None)))
    return out


def _mentioning(
    kernel: Kernel, wanted: Sequence[frozenset[str]], *, at: dt.datetime, start: dt.datetime
) -> list[dict[str, dt.datetime]]:
    """Per topic: ``{session: started_at}`` of the sessions mentioning an entity named like it.

    An entity is named like a topic when its name holds every keyword of the topic; only
    sessions started by ``at`` count.
    """
    out: list[dict[str, dt.datetime]] = [{} for _ in wanted]
    names: dict[str, frozenset[str]] = {}

    def matches(name: str) -> list[int]:
        if name not in names:
            names[name] = frozenset(terms(name))
        held = names[name]
        return [i for i, words in enumerate(wanted) if words and words <= held]

    store = kernel.store
    if not any(matches(m.name) for m in store.mention_counts(now=at, start=start)):
        return out  # no mentioned entity is named like a topic: nothing to read
    for session in store.read_sessions(until=at):
        for name, count in session.mentions.items():
            if count > 0:
                for i in matches(name):
                    out[i][session.id] = session.started_at
    return out


def _as_of(kernel: Kernel, now: TimeLike | None) -> dt.datetime:
    return kernel.now() if now is None else to_utc(now, name="now")


def _days(delta: dt.timedelta) -> float:
    return max(delta.total_seconds() / _SECONDS_PER_DAY, 0.0)


def topic_health(
    mem: MemoryLike,
    path: StrPath,
    *,
    now: TimeLike | None = None,
    window_days: float = 30,
    index: str = ROUTING_INDEX,
) -> TopicFileList[TopicHealth]:
    """Score each topic file of a memory directory by how much sessions talk about it.

    See docs/concepts/topic-files.md#health.

    Every ``*.md`` under ``path`` but the routing index is a topic, its keywords from its file
    name (:func:`~graphmem.topic_file_scores.file_keywords`). ``hits`` are the distinct
    sessions started in ``(now - window_days, now]`` whose lines hold every keyword, the IDF
    weight from the sessions up to ``now``; ``hotness = 0.6 * engagement + 0.4 * recency``,
    recency from the newest mention or the file's modification time; HOT ``>= 0.6``, WARM
    ``>= 0.3``, COLD below. Nothing in the directory is modified.

    Args:
        mem: the memory whose sessions count.
        path: the memory directory.
        now: the time to score at (default: the memory's clock).
        window_days: the hits window, in days (> 0).
        index: the routing index's file name (not a topic).

    Returns:
        A :class:`~graphmem.topic_file_scores.TopicFileList` of
        :class:`~graphmem.topic_file_scores.TopicHealth`, hottest first; ``.skipped`` lists
        the files not read.

    Raises:
        NotFound: ``path`` does not exist.
        InvalidInput: ``path`` is not a directory, or a bad time or window.
    """
    kernel = kernel_of(mem)
    at = _as_of(kernel, now)
    start = _window_start(at, window_days)
    found = scan(path, index=index)
    return TopicFileList(_health(kernel, found, at=at, start=start), found.skipped)


def _health(
    kernel: Kernel, found: Scan, *, at: dt.datetime, start: dt.datetime
) -> list[TopicHealth]:
    keywords = [file_keywords(f.rel) for f in found.topics]
    with kernel.lock:  # several queries: no write of this memory in between
        mentions = _mentions(kernel, keywords, at=at, start=start)
        n_sessions = kernel.store.count_sessions(until=at)
    counts = [
        FileCounts(f.rel, kws, m.hits, m.df, m.last, f.modified)
        for f, kws, m in zip(found.topics, keywords, mentions, strict=True)
    ]
    return score_health(counts, now=at, n_sessions=max(n_sessions, *(m.df for m in mentions), 0))


def topic_triage(
    mem: MemoryLike,
    path: StrPath,
    *,
    now: TimeLike | None = None,
    window_days: float = 30,
    limit: int | None = 5,
    index: str = ROUTING_INDEX,
) -> TopicFileList[TopicFileTriage]:
    """Triage each topic file of a memory directory: ARCHIVE, PRUNE, UPDATE or KEEP.

    See docs/concepts/topic-files.md#triage.

    Synthesis' four dimensions per file: ``recency`` of the last session that mentions it,
    ``recurrence`` from the sessions in the window that do (3 or more: 1.0), ``actionability``
    from prescriptive cues in its first 50 lines, ``staleness`` from the days since it was
    modified (60 or more: 1.0); the composite and the recommendation, first match of ARCHIVE,
    PRUNE (more than 300 lines and recurrence < 0.4), UPDATE, KEEP. ``routed`` says whether the
    routing index links the file. Advisory: nothing in the directory is modified.

    Args:
        mem: the memory whose sessions count.
        path: the memory directory.
        now: the time to triage at (default: the memory's clock).
        window_days: the lookback window of recurrence, in days (> 0).
        limit: keep the first ``limit`` files (``None``: all).
        index: the routing index's file name (not a topic).

    Returns:
        A :class:`~graphmem.topic_file_scores.TopicFileList` of
        :class:`~graphmem.topic_file_scores.TopicFileTriage`, those needing attention first,
        then by lowest composite; ``.skipped`` lists the files not read.

    Raises:
        NotFound: ``path`` does not exist.
        InvalidInput: ``path`` is not a directory, or a bad time, window or limit.
    """
    kernel = kernel_of(mem)
    at = _as_of(kernel, now)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 0):
        raise InvalidInput(f"limit={limit!r} must be a non-negative int or None")
    start = _window_start(at, window_days)
    found = scan(path, index=index)
    return TopicFileList(_triage(kernel, found, at=at, start=start, limit=limit), found.skipped)


def _triage(
    kernel: Kernel, found: Scan, *, at: dt.datetime, start: dt.datetime, limit: int | None
) -> list[TopicFileTriage]:
    keywords = [file_keywords(f.rel) for f in found.topics]
    with kernel.lock:
        mentions = _mentions(kernel, keywords, at=at, start=start)
    routed = routed_files(found.index.text, (f.rel for f in found.topics)) if found.index else set()
    rows = [
        FileTriageRow(
            file=f.rel,
            days_since_last=None if m.last is None else _days(at - m.last),
            sessions=m.hits,
            head="\n".join(f.text.split("\n")[:ACTIONABLE_LINES]),
            age_days=_days(at - f.modified),
            lines=f.lines,
            routed=f.rel in routed,
        )
        for f, m in zip(found.topics, mentions, strict=True)
    ]
    return triage_files(rows, limit=limit)


def triage_scan(
    mem: MemoryLike, found: Scan, *, at: dt.datetime, window_days: float = 30
) -> list[TopicFileTriage]:
    """Triage the files of a scan already made (for the audit's routing check); all files."""
    kernel = kernel_of(mem)
    return _triage(kernel, found, at=at, start=_window_start(at, window_days), limit=None)


def topic_names(found: Scan) -> Iterable[str]:
    """The relative paths of a scan's topics."""
    return (f.rel for f in found.topics)
