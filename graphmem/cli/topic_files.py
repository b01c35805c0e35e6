"""Topic-file CLI verbs: topic-health, topic-triage, topic-audit (docs/concepts/topic-files.md).

All three read a memory directory and the memory; nothing in the directory is ever changed
(``topic-triage --auto`` writes its state file and log next to the database, like
``maintain``). Rich tables by default, ``--json`` for machines.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from typing import Any

import click

from graphmem.cli import cli
from graphmem.cli.common import Settings, db_path, echo_json, json_option, open_memory
from graphmem.cli.tables import Table
from graphmem.cli.topics import (
    _never_backwards,
    _not_due,
    _num,
    _print,
    _triage_table,
    now_option,
)
from graphmem.timeutil import fmt, to_utc

window_option = click.option(
    "--window",
    "window_days",
    type=click.FloatRange(min=0, min_open=True),
    default=30.0,
    show_default=True,
    help="Window of hits and recurrence, in days.",
)
directory_argument = click.argument(
    "directory", type=click.Path(file_okay=False, dir_okay=True, path_type=str)
)


def _skipped(found: Any) -> None:
    for s in found.skipped:
        click.echo(f"skipped {s.path}: {s.reason}")


def _payload(directory: str, at: Any, found: Any) -> dict[str, Any]:
    return {
        "directory": os.path.abspath(directory),
        "now": at,
        "rows": list(found),
        "skipped": found.skipped,
    }


# -- topic-health --------------------------------------------------------------------------------


@cli.command("topic-health")
@directory_argument
@now_option
@window_option
@json_option
@click.pass_context
def topic_health(
    ctx: click.Context, directory: str, now: str | None, window_days: float, as_json: bool
) -> None:
    """Score the topic files of a memory directory (DIRECTORY/*.md but MEMORY.md) by hotness.

    Hits are the sessions in the window whose lines hold every keyword of the file name;
    hotness = 0.6 * engagement + 0.4 * recency, from the newest mention or the file's
    modification time. Nothing in DIRECTORY is changed.
    """
    with open_memory(ctx, read_only=True) as mem:
        at = mem.now() if now is None else to_utc(now, name="--now")
        found = mem.topic_health(directory, now=at, window_days=window_days)
    if as_json:
        echo_json(_payload(directory, at, found))
        return
    table = Table(title=f"topic files of {directory} as of {fmt(at)} (window {window_days:g} d)")
    table.add_column("file")
    table.add_column("keywords")
    for col in ("hits", "weighted", "hotness", "band", "idf hot.", "recency", "age (d)"):
        table.add_column(col, justify="left" if col == "band" else "right", no_wrap=True)
    for h in found:
        table.add_row(
            h.file,
            ", ".join(h.keywords) or "–",
            str(h.hits),
            _num(h.weighted_hits),
            _num(h.hotness, 3),
            str(h.band),
            _num(h.idf_hotness, 3),
            _num(h.recency),
            _num(h.age_days, 1),
        )
    _print(table)
    if not found:
        click.echo("(no topic files)")
    _skipped(found)


# -- topic-triage --------------------------------------------------------------------------------


def _files_table(rows: Sequence[Any], *, title: str) -> Table:
    return _triage_table(
        rows,
        title=title,
        name=("file", lambda t: t.file),
        counts=(
            ("lines", lambda t: str(t.lines)),
            ("routed", lambda t: "yes" if t.routed else "no"),
        ),
    )


def topic_paths(db: str, directory: str) -> Any:
    """The ``--auto`` state and log of one directory: ``<db>.topics-<hash>.maintain.*``."""
    from graphmem.maintenance import maintenance_paths

    digest = hashlib.sha256(os.path.realpath(directory).encode("utf-8")).hexdigest()[:12]
    return maintenance_paths(f"{db}.topics-{digest}")


@cli.command("topic-triage")
@directory_argument
@now_option
@window_option
@click.option(
    "--limit", type=click.IntRange(min=0), default=5, show_default=True, help="Top N files."
)
@click.option(
    "--auto",
    is_flag=True,
    help="Run only when due (never ran, or 24 h and 5 new sessions since the last run) and "
    "log the run next to the database, as maintain --auto does.",
)
@json_option
@click.pass_context
def topic_triage(
    ctx: click.Context,
    directory: str,
    now: str | None,
    window_days: float,
    limit: int,
    auto: bool,
    as_json: bool,
) -> None:
    """Triage the topic files of a memory directory: ARCHIVE, PRUNE, UPDATE or KEEP.

    Synthesis' four dimensions per file (recency of the last mentioning session, recurrence in
    the window, actionability of the first 50 lines, staleness from the modification time),
    the composite, and whether MEMORY.md links the file. Advisory: nothing in DIRECTORY is
    changed. With --auto the state is kept in <db>.topics-<hash>.maintain.json and each run
    appends one JSON line to <db>.topics-<hash>.maintain.log.jsonl (one pair per directory).
    """
    if not auto:
        with open_memory(ctx, read_only=True) as mem:
            at = mem.now() if now is None else to_utc(now, name="--now")
            found = mem.topic_triage(directory, now=at, window_days=window_days, limit=limit)
        if as_json:
            echo_json(_payload(directory, at, found))
            return
        _print(_files_table(found, title=f"topic files of {directory} as of {fmt(at)}"))
        if not found:
            click.echo("(no topic files)")
        _skipped(found)
        return
    _auto(ctx, directory, now, window_days, limit, as_json)


def _auto(
    ctx: click.Context,
    directory: str,
    now: str | None,
    window_days: float,
    limit: int,
    as_json: bool,
) -> None:
    from graphmem.maintenance import ConsolidateState, append_log
    from graphmem.sessions import session_count

    settings: Settings = ctx.find_object(Settings)  # type: ignore[assignment]
    path = db_path(settings)
    paths = topic_paths(path, directory)
    started = time.perf_counter()
    with open_memory(ctx, read_only=True) as mem:
        at = mem.now() if now is None else to_utc(now, name="--now")
        state = ConsolidateState.load(paths.state).recovered(paths.log)
        total = session_count(mem, until=at)
        new_sessions = max(total - state.session_count, 0)
        if not state.is_due(now=at, session_count=total):
            report = {
                "ran": False,
                "due": False,
                "at": at,
                "directory": os.path.abspath(directory),
                "last_run_at": state.last_run_at,
                "sessions_total": total,
                "sessions_since_last_run": new_sessions,
            }
            _not_due(report, as_json=as_json)
            return
        _never_backwards(state.last_run_at, at)
        found = mem.topic_triage(directory, now=at, window_days=window_days, limit=None)
    suggestions = [t for t in found if t.needs_attention]
    record: dict[str, Any] = {
        "at": at,
        "trigger": "auto",
        "db": path,
        "directory": os.path.abspath(directory),
        "last_run_at": state.last_run_at,
        "sessions_total": total,
        "sessions_since_last_run": new_sessions,
        "files_scanned": len(found),
        "skipped": [s.model_dump(mode="json") for s in found.skipped],
        "suggestions": [t.model_dump(mode="json") for t in suggestions[:limit]],
        "duration_ms": round((time.perf_counter() - started) * 1000, 1),
    }
    append_log(paths.log, record)  # the commit point: a kill after it still counts the run
    ConsolidateState(at, total).save(paths.state)
    if as_json:
        echo_json({"ran": True, "due": True, **record, "log": str(paths.log)})
        return
    click.echo(
        f"topic triage (auto) of {directory} as of {fmt(at)}: {len(found)} file(s), "
        f"{len(suggestions)} suggestion(s), {new_sessions} new session(s) since the last run"
    )
    if suggestions:
        _print(_files_table(suggestions[:limit], title="suggestions (nothing was changed)"))
    _skipped(found)
    click.echo(f"logged to {paths.log}")


# -- topic-audit ---------------------------------------------------------------------------------


@cli.command("topic-audit")
@directory_argument
@now_option
@json_option
@click.pass_context
def topic_audit(ctx: click.Context, directory: str, now: str | None, as_json: bool) -> None:
    """List the lines of a memory directory that memory knows to be superseded or ended.

    Each topic file and MEMORY.md is read with the text reader; a line is listed when its
    claim's value has since been replaced or ended (with the current value, when it changed
    and the session that said so), and so is a MEMORY.md entry that links a missing file or
    one triage calls ARCHIVE. Nothing in DIRECTORY is changed.
    """
    with open_memory(ctx, read_only=True) as mem:
        at = mem.now() if now is None else to_utc(now, name="--now")
        found = mem.topic_audit(directory, now=at)
    if as_json:
        echo_json(_payload(directory, at, found))
        return
    if not found:
        click.echo(f"no stale lines in {directory} as of {fmt(at)}")
    else:
        click.echo(f"{len(found)} stale line(s) in {directory} as of {fmt(at)}:")
        for row in found:
            click.echo(f"- {row}")
    _skipped(found)
