"""Session CLI verbs: ``add-session`` (one session) and ``ingest`` (JSONL or a transcript folder).

A session's text feeds hotness (its mentions) and episodic recall, and the facts it states are
written with the session as their source (``Memory.add_session``).
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import click

from graphmem.cli import cli
from graphmem.cli.common import (
    CommandError,
    echo_json,
    fmt_when,
    json_option,
    learned_at_option,
    open_memory,
)
from graphmem.errors import GraphmemError
from graphmem.timeutil import to_utc

#: Keys of one JSONL line of ``ingest`` (``id`` is ``session_id``'s short form).
JSONL_KEYS = ("text", "started_at", "id", "session_id", "title", "mentions", "source", "ended_at")
#: Transcript files ``ingest`` reads from a folder.
TRANSCRIPT_SUFFIXES = (".md", ".markdown", ".txt")
_FRONT = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.S)
_NAME_DATE = re.compile(r"(\d{4}-\d{2}-\d{2})(?:[T_ ](\d{2})[-:.h]?(\d{2})(?:[-:.]?(\d{2}))?)?")
_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.M)


@dataclass
class Item:
    """One session to write, and where it came from (for messages)."""

    where: str
    args: dict[str, Any]
    text: str = field(repr=False, default="")


def _describe(result: Any) -> str:
    fact = result.fact
    what = f"{fact.subject} {fact.predicate} {fact.object}" if fact else "(no current fact)"
    line = f"  {result.decision.value}: {what}"
    for old in result.superseded:
        line += f"\n    closed {old.subject} {old.predicate} {old.object}: {old.reason}"
    return line


def _session_of(written: Any) -> Any:
    return getattr(written, "session", written)


def _mentions(session: Any) -> str:
    top = sorted(session.mentions.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ", ".join(f"{k}×{n}" if n > 1 else k for k, n in top[:12])
    return (shown + (f" (+{len(top) - 12})" if len(top) > 12 else "")) or "–"


def _written_json(written: Any) -> dict[str, Any]:
    results = list(getattr(written, "results", None) or ())
    return {
        "session": _session_of(written).model_dump(mode="json"),
        "results": [
            {
                "decision": r.decision.value,
                "fact": None if r.fact is None else r.fact.model_dump(mode="json"),
                "superseded": [f.model_dump(mode="json") for f in r.superseded],
            }
            for r in results
        ],
    }


def _echo_written(written: Any) -> None:
    session = _session_of(written)
    title = f": {session.title}" if session.title else ""
    click.echo(f"session {session.id} ({fmt_when(session.started_at)}){title}")
    click.echo(f"  mentions: {_mentions(session)}")
    results = list(getattr(written, "results", None) or ())
    for r in results:
        click.echo(_describe(r))
    if not results:
        click.echo("  no facts extracted")


def _write(mem: Any, args: dict[str, Any], *, extract: bool, learned_at: Any = None) -> Any:
    return mem.add_session(**args, extract=extract, learned_at=learned_at)


# -- add-session -----------------------------------------------------------------------------------


@cli.command("add-session")
@click.argument("text", required=False)
@click.option(
    "--at",
    "--started-at",
    "started_at",
    metavar="TIME",
    help="When the session happened (date, ISO datetime with offset, today; default now).",
)
@click.option("--id", "--session-id", "session_id", help="Session id (the same id replaces it).")
@click.option("--title", help="A short name for the session.")
@click.option(
    "--mentions", multiple=True, help="A topic it mentions (repeatable; default: from the text)."
)
@click.option("--source", help="Where the session comes from (a channel, a file, ...).")
@click.option("--ended-at", metavar="TIME", help="When it ended.")
@click.option(
    "--extract/--no-extract", default=True, show_default=True, help="Write the facts it states."
)
@learned_at_option
@json_option
@click.pass_context
def add_session_cmd(
    ctx: click.Context,
    text: str | None,
    started_at: str | None,
    session_id: str | None,
    title: str | None,
    mentions: tuple[str, ...],
    source: str | None,
    ended_at: str | None,
    extract: bool,
    learned_at: str | None,
    as_json: bool,
) -> None:
    """Log a session TEXT ('-' or none: standard input) so hot topics and recall know it.

    Its mentions (given, or found in the text) feed hot and triage; the facts it states are
    written with the session as their source. Prints the session and each write decision.
    """
    if text is None or text == "-":
        text = sys.stdin.read()
    with open_memory(ctx) as mem:
        written = _write(
            mem,
            {
                "text": text,
                "started_at": (learned_at or mem.now()) if started_at is None else started_at,
                "session_id": session_id,
                "title": title,
                "mentions": list(mentions) or None,
                "source": source,
                "ended_at": ended_at,
            },
            extract=extract,
            learned_at=learned_at,
        )
    if as_json:
        echo_json(_written_json(written))
    else:
        _echo_written(written)


# -- ingest ---------------------------------------------------------------------------------------


def _jsonl_items(path: str) -> tuple[list[Item], list[str]]:
    from graphmem.cli.core import read_jsonl

    rows, bad = read_jsonl(path)
    items: list[Item] = []
    for n, row in rows:
        unknown = sorted(set(row) - set(JSONL_KEYS))
        if unknown:
            bad.append(f"line {n}: unknown key(s) {unknown}; use {', '.join(JSONL_KEYS)}")
            continue
        args = dict(row)
        if "id" in args:
            if "session_id" in args:
                bad.append(f"line {n}: give id or session_id, not both")
                continue
            args["session_id"] = args.pop("id")
        items.append(Item(f"line {n}", args, str(args.get("text", ""))))
    return items, bad


def _front_matter(text: str) -> tuple[dict[str, str], str]:
    m = _FRONT.match(text)
    if m is None:
        return {}, text
    meta: dict[str, str] = {}
    for line in m.group(1).splitlines():
        key, sep, value = line.partition(":")
        if sep and key.strip():
            meta[key.strip().lower()] = value.strip().strip("'\"")
    return meta, text[m.end() :]


def _name_date(name: str) -> str | None:
    m = _NAME_DATE.search(name)
    if m is None:
        return None
    day, hour, minute, second = m.groups()
    if hour is None:
        return day
    return f"{day}T{hour}:{minute}:{second or '00'}Z"


def _transcripts(root: Path) -> Iterator[Path]:
    for p in sorted(root.rglob("*")):
        if p.is_file() and p.suffix.lower() in TRANSCRIPT_SUFFIXES and not p.name.startswith("."):
            yield p


def _file_item(path: Path, root: Path) -> Item:
    """Read one transcript: front matter (date/started_at, title, id) and the text after it.

    Raises:
        CommandError: not UTF-8, or no date in the front matter or the file name.
    """
    rel = path.relative_to(root).as_posix() if path != root else path.name
    try:
        raw = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise CommandError(f"{rel}: not valid UTF-8 text ({exc.reason})") from exc
    meta, body = _front_matter(raw)
    started = meta.get("started_at") or meta.get("date") or _name_date(path.name)
    if not started:
        raise CommandError(
            f"{rel}: no date; add front matter (a first line '---', then 'date: 2026-06-01', "
            "then '---') or put the date in the file name (2026-06-01-standup.md)"
        )
    heading = _HEADING.search(body)
    args: dict[str, Any] = {
        "text": body.strip(),
        "started_at": started,
        "session_id": meta.get("id") or os.path.splitext(rel)[0],
        "title": meta.get("title") or (heading.group(1) if heading else path.stem),
        "source": rel,
    }
    if meta.get("ended_at"):
        args["ended_at"] = meta["ended_at"]
    return Item(rel, args, args["text"])


def _folder_items(path: str) -> tuple[list[Item], list[str]]:
    root = Path(path)
    files = [root] if root.is_file() else list(_transcripts(root))
    items: list[Item] = []
    bad: list[str] = []
    for f in files:
        try:
            items.append(_file_item(f, root.parent if root.is_file() else root))
        except CommandError as exc:
            bad.append(exc.format_message())
    if not files:
        bad.append(f"{path}: no transcripts ({', '.join(TRANSCRIPT_SUFFIXES)} files) in it")
    return items, bad


def _check(item: Item) -> str | None:
    """Validate one session's fields without writing; the problem, or ``None``."""
    from graphmem.normalize import check_text
    from graphmem.timeutil import to_utc

    args = item.args
    try:
        if not isinstance(args.get("text"), str) or not args["text"].strip():
            return f"{item.where}: text is missing or empty; give the session's text"
        check_text(args["text"], what="text")
        if args.get("started_at") in (None, ""):
            return f"{item.where}: started_at is missing; give when the session happened"
        if not isinstance(args["started_at"], str):
            return f"{item.where}: started_at={args['started_at']!r} is not a date string"
        start = to_utc(args["started_at"], name="started_at")
        if args.get("ended_at") is not None and to_utc(args["ended_at"], name="ended_at") < start:
            return f"{item.where}: ended_at is before started_at"
        for key in ("session_id", "title", "source"):
            value = args.get(key)
            if value is not None and not isinstance(value, str):
                return f"{item.where}: {key}={value!r} is not a string"
            if isinstance(value, str):
                check_text(value, what=key)
    except GraphmemError as exc:
        return f"{item.where}: {exc}"
    return None


@cli.command("ingest")
@click.argument("path", type=click.Path(exists=True, allow_dash=True))
@click.option("--skip-bad", is_flag=True, help="Write the good sessions even if some are bad.")
@click.option("--dry-run", is_flag=True, help="Show what would be written; write nothing.")
@click.option(
    "--extract/--no-extract", default=True, show_default=True, help="Write the facts they state."
)
@click.option(
    "--learned-at",
    metavar="DATE|session",
    help="Record them as learned then, not now; 'session': each on its own start date "
    "(a backfill: oldest first, into a fresh memory).",
)
@json_option
@click.pass_context
def ingest_cmd(
    ctx: click.Context,
    path: str,
    skip_bad: bool,
    dry_run: bool,
    extract: bool,
    learned_at: str | None,
    as_json: bool,
) -> None:
    """Log many sessions: a JSONL file ('-': stdin) or a folder of transcripts.

    JSONL: one {"text", "started_at", "id"?, "title"?} object per line (also mentions, source,
    ended_at). Folder: every .md/.txt file below it is one session, dated by its front matter
    (date: or started_at:, and optional title: and id:) or by a date in its file name
    (2026-06-01-standup.md); its id is the file's path in the folder, so ingesting again
    replaces instead of duplicating. Bad lines or files are reported with their line numbers
    or names; by default nothing is written when any is bad (--skip-bad writes the good ones).
    With --learned-at session the sessions are written oldest first, each recorded as learned
    on its own date, so believed --on DATE answers what they had said by then.
    """
    is_jsonl = path == "-" or (os.path.isfile(path) and path.lower().endswith((".jsonl", ".json")))
    items, bad = _jsonl_items(path) if is_jsonl else _folder_items(path)
    good: list[Item] = []
    for item in items:
        problem = _check(item)
        if problem is None:
            good.append(item)
        else:
            bad.append(problem)
    if is_jsonl:  # in file order
        bad.sort(key=lambda m: int(m.split(":")[0].split()[1]))
    if not as_json:
        for message in bad:
            click.echo(message, err=True)
    if bad and not skip_bad:
        raise CommandError(
            f"{len(bad)} bad session(s) in {path}; nothing written (use --skip-bad to write the "
            f"{len(good)} good one(s))",
            kind="InvalidInput",
            bad_lines=bad,
        )
    by_session = learned_at is not None and learned_at.strip().lower() == "session"
    if by_session:
        good.sort(key=lambda i: to_utc(i.args["started_at"], name=f"{i.where}: started_at"))
    if dry_run:
        plan = [
            {
                "from": i.where,
                "session_id": i.args.get("session_id"),
                "started_at": i.args["started_at"],
                "title": i.args.get("title"),
                "characters": len(i.text),
            }
            for i in good
        ]
        if as_json:
            echo_json({"dry_run": True, "sessions": plan, "skipped": len(bad), "bad_lines": bad})
            return
        for row in plan:
            click.echo(
                f"would log {row['from']}: {row['started_at']} "
                f"{row['session_id'] or '(new id)'} {row['title'] or ''} "
                f"({row['characters']} characters)".rstrip()
            )
        click.echo(f"{len(plan)} session(s) (dry run, nothing written)", err=True)
        return
    started = time.perf_counter()
    written: list[Any] = []
    counts: dict[str, int] = {}
    with (
        open_memory(ctx) as mem,
        click.progressbar(good, label="logging sessions", file=sys.stderr) as bar,
    ):
        for item in bar:
            try:
                result = _write(
                    mem,
                    item.args,
                    extract=extract,
                    learned_at=item.args["started_at"] if by_session else learned_at,
                )
            except GraphmemError as exc:
                raise CommandError(
                    f"{item.where}: {exc} ({len(written)} session(s) before it were written)",
                    kind=type(exc).__name__,
                ) from None
            written.append(result)
            for r in getattr(result, "results", None) or ():
                counts[r.decision.value] = counts.get(r.decision.value, 0) + 1
    seconds = time.perf_counter() - started
    if as_json:
        echo_json(
            {
                "written": len(written),
                "skipped": len(bad),
                "bad_lines": bad,
                "decisions": counts,
                "sessions": [_written_json(w) for w in written],
                "seconds": round(seconds, 3),
            }
        )
        return
    for w in written:
        _echo_written(w)
    click.echo(
        f"logged {len(written)} session(s), skipped {len(bad)} in {seconds:.2f} s"
        + (": " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) if counts else "")
    )
