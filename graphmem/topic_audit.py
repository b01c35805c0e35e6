"""The topic-file audit: the lines of a memory directory that memory knows to be out of date.

See docs/concepts/topic-files.md#audit.

Synthesis' honest limit is that "the index lies": a topic file's pointer is valid but the
knowledge behind it is stale, and engagement scores cannot see it. graphmem knows which claims
sessions superseded, so :func:`topic_audit` reads each topic file and the routing index with
the text reader (:func:`graphmem.text.pipeline.read`) and compares every claim with the facts:

- a claim is matched to the facts by its **subject and object** (entity ids, aliases resolved),
  not by its relation alone: relations may be open-ended names, and a change statement may not
  name one. When the claim names a relation the subject has with that object, only that
  relation's versions count;
- the claim is **stale** when memory's current knowledge (every version not closed in system
  time: what memory knows today, however late it learned it) holds versions of that pair,
  none valid at ``now`` (valid time) and one ended by then. The row names the stale value, the
  value that replaced it (the version of the same subject and relation valid now) or that it
  ended, the valid time of the change (``since``) and the session that said so (the replacing
  version's source, else the session named by the closed version's reason);
- a claim no fact records is checked against the session lines that name it
  (:func:`_from_sessions`): a change statement that found no fact to change writes nothing,
  but its line keeps it;
- a claim memory agrees with, knows nothing about, that is negative (it says the value ended)
  or that dates itself to the past, is not listed.

It also lists the routing index's entries that point to a missing file, or to a file that
triage calls ARCHIVE. Advisory only: nothing in the directory is modified.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from graphmem.errors import InvalidInput
from graphmem.kernel import kernel_of
from graphmem.normalize import terms
from graphmem.text.pipeline import read
from graphmem.timeutil import TimeLike, to_utc
from graphmem.topic_file_scores import (
    ROUTING_INDEX,
    StaleLine,
    TopicFileList,
    normal_path,
    routing_links,
)
from graphmem.topic_files import Scan, TopicFile, lines_with, scan, triage_scan
from graphmem.topics import _window_start
from graphmem.triage import Recommendation

if TYPE_CHECKING:
    from graphmem.kernel import Kernel, MemoryLike
    from graphmem.models import Fact
    from graphmem.store.records import LineRow
    from graphmem.text.claims import Claim
    from graphmem.topic_files import StrPath

__all__ = ["topic_audit"]

_FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
#: The newest session lines read per claim that no fact records (:func:`_from_sessions`).
_SESSION_LINES = 50
#: At most this many session lines are read by one audit's fallback (about 2-3 ms each).
_SESSION_READS = 1000
_UNKNOWN: Literal["unknown"] = "unknown"
_SAID_IN = re.compile(r"from session (.+?)(?:; said: .*)?$")


@dataclass(frozen=True)
class _Said:
    """A claim of a file, where it stands, and its entity ids."""

    file: str
    line: int
    text: str
    claim: Claim
    subject_id: str
    object_id: str


_LINK = re.compile(r"!?\[([^\]\n]*)\]\([^)\n]*\)")
_WIKI = re.compile(r"\[\[(?:[^\]|\n]*\|)?([^\]\n]*)\]\]")
_EMPHASIS = re.compile(r"(\*\*|__|`)")
_STARTS_BLOCK = re.compile(r"^\s{0,3}(?:#{1,6}\s|[-*+]\s|\d{1,9}[.)]\s|>|\|)")


def _plain(line: str) -> str:
    """A markdown line as prose: links as their text, no emphasis or code marks."""
    return _EMPHASIS.sub("", _WIKI.sub(r"\1", _LINK.sub(r"\1", line)))


def _blocks(text: str) -> list[tuple[int, str]]:
    """The prose blocks of a markdown text: ``(first line, text)``, read one at a time.

    A heading, a list item, a quote or a table row starts a block, a blank line ends one, and
    other lines continue the block above (a wrapped paragraph). Fenced code and front matter
    are left out. Each line keeps its own line in the block, so sentences map back to lines.
    """
    blocks: list[tuple[int, list[str]]] = []
    fence: str | None = None
    lines = text.split("\n")
    front = bool(lines) and lines[0].strip() == "---"
    current: list[str] | None = None
    for n, line in enumerate(lines, start=1):
        if front:
            if n > 1 and line.strip() in ("---", "..."):
                front = False
            continue
        m = _FENCE.match(line)
        if fence is not None:
            if m and m.group(1)[0] == fence:
                fence = None
            continue
        if m:
            fence, current = m.group(1)[0], None
            continue
        if not line.strip():
            current = None
            continue
        if current is None or _STARTS_BLOCK.match(line):
            current = []
            blocks.append((n, current))
        current.append(_plain(line))
    return [(n, "\n".join(b)) for n, b in blocks]


def _locate(text: str, sentences: Sequence[str]) -> list[int | None]:
    """The offset in ``text`` where each sentence starts (whitespace aside), in order."""
    chars = [(c, i) for i, c in enumerate(text) if not c.isspace()]
    squeezed = "".join(c for c, _ in chars)
    cursor = 0
    out: list[int | None] = []
    for s in sentences:
        key = "".join(s.split())
        j = squeezed.find(key, cursor) if key else -1
        if j < 0 and key:
            j = squeezed.find(key)
        if j < 0:
            out.append(None)
            continue
        out.append(chars[j][1])
        cursor = j + len(key)
    return out


def _entity(kernel: Kernel, name: str | None) -> str | None:
    if not name or not name.strip():
        return None
    try:
        return kernel.entity_id(name)
    except InvalidInput:
        return None


def _claims(kernel: Kernel, f: TopicFile, at: dt.datetime) -> list[_Said]:
    lines = f.text.split("\n")
    out: list[_Said] = []
    for first, block in _blocks(f.text):
        reading = read(block, at=at, owner=kernel.owner)
        offsets = _locate(block, [s for s, _ in reading])
        last = first
        for (_sentence, claims), offset in zip(reading, offsets, strict=True):
            if offset is not None:
                last = first + block.count("\n", 0, offset)
            for c in claims:
                if not c.polarity or c.object is None:
                    continue  # "no longer": agrees with an end; "ended, whatever the value"
                if c.valid_to is not None and c.valid_to <= at:
                    continue  # dated to the past by the text itself: history, not a claim of now
                sid, oid = _entity(kernel, c.subject), _entity(kernel, c.object)
                if sid is None or oid is None:
                    continue
                n = last if offset is not None else _line_of(lines, c, last)
                out.append(_Said(f.rel, n, lines[n - 1].strip(), c, sid, oid))
    return out


def _line_of(lines: Sequence[str], c: Claim, near: int) -> int:
    """The first line from ``near`` naming the claim's object (the reader changed the text)."""
    obj = (c.object or "").casefold()
    for n in range(near, len(lines) + 1):
        if obj and obj in lines[n - 1].casefold():
            return n
    return near


def _session_of(closed: Sequence[Fact], k: Fact) -> str | None:
    """The session named by the reason of the version closed into ``k`` (an end's source)."""
    for v in closed:
        if v.superseded_by == k.id and v.reason:
            m = _SAID_IN.search(v.reason)
            if m:
                return m.group(1).strip()
    return None


def _stale(
    kernel: Kernel, said: _Said, history: Sequence[Fact], at: dt.datetime
) -> StaleLine | Literal["unknown"] | None:
    known = [v for v in history if v.expired_at is None]  # what memory knows today
    ids: dict[str, str | None] = {}

    def oid(v: Fact) -> str | None:
        if v.object not in ids:
            ids[v.object] = _entity(kernel, v.object)
        return ids[v.object]

    same = [v for v in known if oid(v) == said.object_id]
    named = said.claim.predicate and kernel.ontology.lookup(said.claim.predicate)
    if named and any(v.predicate == named.name for v in same):
        same = [v for v in same if v.predicate == named.name]
    if not same:
        return _UNKNOWN  # no fact of it: the sessions may still say (see _from_sessions)
    if any(v.valid_at(at) for v in same):
        return None  # memory agrees
    past = [v for v in same if v.valid_to is not None and v.valid_to <= at]
    if not past:
        return None  # only a future value: nothing is out of date yet
    k = max(past, key=lambda v: (v.valid_to or v.valid_from, v.recorded_at, v.id))
    assert k.valid_to is not None
    rivals = [v for v in known if v.predicate == k.predicate and oid(v) != said.object_id]
    current = sorted((v for v in rivals if v.valid_at(at)), key=lambda v: (v.valid_from, v.id))
    successors = sorted(
        (v for v in rivals if v.valid_from == k.valid_to), key=lambda v: (v.recorded_at, v.id)
    )
    closed = [v for v in history if v.expired_at is not None]
    session = next((v.source for v in successors if v.source), None)
    session = session or _session_of(closed, k)
    if session is None and not any(v.superseded_by == k.id for v in closed):
        session = k.source  # ended by its own stated end: the session that said it
    learned = successors[0].recorded_at if successors else k.recorded_at
    return StaleLine(
        kind="superseded" if current else "ended",
        file=said.file,
        line=said.line,
        text=said.text,
        subject=k.subject,
        predicate=k.predicate,
        stale_value=k.object,
        current_value=", ".join(dict.fromkeys(v.object for v in current)) or None,
        ended=not current,
        since=k.valid_to,
        learned_at=learned,
        session=session,
    )


def _from_sessions(kernel: Kernel, unknown: Sequence[_Said], at: dt.datetime) -> list[StaleLine]:
    """Stale lines that no fact records but a session's own words do.

    A change statement that found no fact to change ("We migrated the API from Laravel to Go",
    said before memory knew what the API ran on) writes nothing, but its session line keeps
    it. For a claim memory has no fact of, the newest session lines (started by ``at``) that
    name its object and subject are read: the newest one that speaks of the pair decides. It
    agrees when it asserts the value, supersedes it when it is a change statement that names
    the value as the one replaced, ends it when it says the value ended. At most
    :data:`_SESSION_LINES` lines per claim and :data:`_SESSION_READS` per audit are read.
    """
    store = kernel.store
    owner = _entity(kernel, kernel.owner)
    claims: dict[str, list[Claim]] = {}
    # Per object's words: the lines started by ``at`` holding one of them, newest first.
    naming: dict[tuple[str, ...], list[tuple[LineRow, frozenset[str]]]] = {}
    picked: dict[tuple[str, str], list[LineRow]] = {}
    budget = _SESSION_READS
    out: list[StaleLine] = []
    for s in unknown:
        key = (s.subject_id, s.object_id)
        words = tuple(sorted(set(terms(s.claim.object or ""))))
        if key not in picked:
            if words not in naming:
                rows = [r for r in lines_with(store, words) if r.started_at <= at] if words else []
                rows.sort(key=lambda r: (r.started_at, r.recorded_at, r.id), reverse=True)
                naming[words] = [(r, frozenset(terms(r.text))) for r in rows]
            subject = set() if s.subject_id == owner else set(terms(s.claim.subject))
            picked[key] = [
                r
                for r, held in naming[words]
                if held.issuperset(words) and (not subject or subject & held)
            ][:_SESSION_LINES]
        for row in picked[key]:
            if row.id not in claims:
                if budget <= 0:
                    break
                budget -= 1
                reading = read(row.text, at=row.started_at, owner=kernel.owner)
                claims[row.id] = [c for _, cs in reading for c in cs]
            verdict = _verdict(kernel, s, claims[row.id])
            if verdict is None:
                continue
            kind, c = verdict
            if kind != "agrees":
                out.append(
                    StaleLine(
                        kind=kind,
                        file=s.file,
                        line=s.line,
                        text=s.text,
                        subject=c.subject,
                        predicate=c.predicate or c.hint,
                        stale_value=s.claim.object,
                        current_value=c.object if kind == "superseded" else None,
                        ended=kind == "ended",
                        since=c.valid_from or row.started_at,
                        learned_at=row.recorded_at,
                        session=row.session,
                    )
                )
            break
    return out


def _verdict(
    kernel: Kernel, s: _Said, claims: Sequence[Claim]
) -> tuple[Literal["agrees", "superseded", "ended"], Claim] | None:
    for c in claims:
        if _entity(kernel, c.subject) != s.subject_id:
            continue
        if c.polarity and c.object is not None and _entity(kernel, c.object) == s.object_id:
            return "agrees", c
        if c.polarity and c.change and c.object and _entity(kernel, c.replaces) == s.object_id:
            return "superseded", c
        if not c.polarity and _entity(kernel, c.object) == s.object_id:
            return "ended", c
    return None


def _routing(found: Scan, kernel: Kernel, at: dt.datetime, window_days: float) -> list[StaleLine]:
    index = found.index
    if index is None:
        return []
    present = {normal_path(f.rel): f.rel for f in found.topics}
    skipped = {normal_path(s.path.rstrip("/")) for s in found.skipped}
    archive: set[str] | None = None
    out: list[StaleLine] = []
    for n, line, target in routing_links(index.text):
        rel = normal_path(target)
        if rel.startswith("..") or rel in skipped or rel == normal_path(index.rel):
            continue  # outside the directory, or reported as skipped
        if rel not in present:
            if (found.root / rel).exists():
                continue  # a folder or a non-topic file
            out.append(StaleLine(kind="missing", file=index.rel, line=n, text=line, target=target))
            continue
        if archive is None:
            archive = {
                t.file
                for t in triage_scan(kernel, found, at=at, window_days=window_days)
                if t.recommendation is Recommendation.ARCHIVE
            }
        if present[rel] in archive:
            out.append(StaleLine(kind="archive", file=index.rel, line=n, text=line, target=target))
    return out


def topic_audit(
    mem: MemoryLike,
    path: StrPath,
    *,
    now: TimeLike | None = None,
    window_days: float = 30,
    index: str = ROUTING_INDEX,
) -> TopicFileList[StaleLine]:
    """List the lines of a memory directory that memory knows to be superseded or ended.

    See docs/concepts/topic-files.md#audit and the module docstring for the matching rules.
    Each topic file and the routing index are read with the text reader; every line whose claim
    memory, as of ``now``, knows to be superseded or ended is listed with the stale value, the
    current value (or that it ended), ``since`` (valid time of the change) and the session that
    said so. Routing entries that point to a missing file, or to a file triage calls ARCHIVE
    (with ``window_days``), are listed too. Nothing in the directory is modified.

    Args:
        mem: the memory.
        path: the memory directory.
        now: the time to audit at (default: the memory's clock).
        window_days: the triage window of the routing check, in days (> 0).
        index: the routing index's file name.

    Returns:
        A :class:`~graphmem.topic_file_scores.TopicFileList` of
        :class:`~graphmem.topic_file_scores.StaleLine`, by file and line; ``.skipped`` lists
        the files not read.

    Raises:
        NotFound: ``path`` does not exist.
        InvalidInput: ``path`` is not a directory, or a bad time or window.
    """
    kernel = kernel_of(mem)
    at = kernel.now() if now is None else to_utc(now, name="now")
    _window_start(at, window_days)  # a bad window is reported before any work
    found = scan(path, index=index)
    files = ([found.index] if found.index else []) + found.topics
    said = [s for f in files for s in _claims(kernel, f, at)]
    rows: dict[tuple[str, int, str], StaleLine] = {}
    with kernel.lock:  # several queries: no write of this memory in between
        history: dict[str, list[Fact]] = {}
        unknown: list[_Said] = []
        for s in said:
            if s.subject_id not in history:
                history[s.subject_id] = kernel.store.query_facts(subject_id=s.subject_id)
            row = _stale(kernel, s, history[s.subject_id], at)
            if row == _UNKNOWN:
                unknown.append(s)
            elif isinstance(row, StaleLine):
                rows.setdefault((row.file, row.line, row.stale_value or ""), row)
        for row in _from_sessions(kernel, unknown, at):
            rows.setdefault((row.file, row.line, row.stale_value or ""), row)
        routing = _routing(found, kernel, at, window_days)
    order = {f.rel: i for i, f in enumerate(files)}
    listed = sorted(rows.values(), key=lambda r: (order[r.file], r.line, r.stale_value or ""))
    merged = sorted([*listed, *routing], key=lambda r: (order[r.file], r.line))
    return TopicFileList(merged, found.skipped)
