"""Topic CLI verbs: sessions, hot, triage, maintain (docs/concepts/hotness.md).

All four only read the memory (``maintain`` writes its state file and log next to the database,
never the database itself). Rich tables by default, ``--json`` for machines.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from typing import Any

import click

from graphmem.cli import cli
from graphmem.cli.common import (
    Settings,
    db_path,
    echo_json,
    fact_table,
    json_option,
    open_memory,
    print_table,
)
from graphmem.cli.tables import Table
from graphmem.hotness import TopicScore
from graphmem.timeutil import fmt, to_utc

now_option = click.option(
    "--now", "now", metavar="TIME", help="As of this time (date or ISO datetime; default now)."
)


def _print(table: Table) -> None:
    # piped or captured: no terminal width to fit, so 160 columns (docs/concepts/surfaces.md#tables)
    print_table(table, piped_width=160)


def _num(value: float | None, places: int = 2) -> str:
    return "–" if value is None else f"{value:.{places}f}"


def _mentions(counts: dict[str, int], *, most: int = 5) -> str:
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    shown = ", ".join(f"{name}×{n}" if n > 1 else name for name, n in top[:most])
    return shown + (f" (+{len(top) - most})" if len(top) > most else "")


# -- sessions -----------------------------------------------------------------------------------


@cli.command("sessions")
@click.argument("session_id", required=False)
@click.option("--since", metavar="TIME", help="Only sessions started at or after this time.")
@click.option("--until", metavar="TIME", help="Only sessions started at or before this time.")
@click.option("--limit", type=click.IntRange(min=0), help="Only the newest N sessions.")
@json_option
@click.pass_context
def sessions_cmd(
    ctx: click.Context,
    session_id: str | None,
    since: str | None,
    until: str | None,
    limit: int | None,
    as_json: bool,
) -> None:
    """List recorded sessions, or show SESSION_ID with the facts it is the source of."""
    from graphmem.sessions import get_session, session_facts

    with open_memory(ctx, read_only=True) as mem:
        if session_id is not None:
            session = get_session(mem, session_id)
            facts = session_facts(mem, session_id, include_expired=True)
        else:
            rows = mem.sessions(since=since, until=until)
            if limit is not None:
                rows = rows[len(rows) - limit :] if limit else []
    if session_id is not None:
        if as_json:
            echo_json({"session": session, "facts": facts})
            return
        click.echo(f"session {session.id}: {session.title or '(untitled)'}")
        end = f" → {fmt(session.ended_at)}" if session.ended_at else ""
        click.echo(f"  started {fmt(session.started_at)}{end}; source {session.source or '–'}")
        click.echo(f"  mentions: {_mentions(session.mentions, most=20) or '–'}")
        fact_table(facts, title=f"facts from session {session.id}", audit=True)
        return
    if as_json:
        echo_json(rows)
        return
    from graphmem.display import clip

    table = Table(title=f"{len(rows)} session(s)")
    for col in ("id", "started", "ended", "title", "mentions"):
        table.add_column(col)
    for s in rows:
        table.add_row(
            s.id,
            fmt(s.started_at),
            fmt(s.ended_at) if s.ended_at else "",
            clip(s.title),
            clip(_mentions(s.mentions)),
        )
    _print(table)


# -- hot ---------------------------------------------------------------------------------------


def _hot_table(scores: Sequence[TopicScore], *, title: str) -> Table:
    table = Table(title=title)
    table.add_column("#", justify="right")
    table.add_column("topic", min_width=8)
    for col in ("hits", "idf", "plain", "band", "idf score", "idf band", "recency", "age (d)"):
        table.add_column(col, justify="left" if "band" in col else "right", no_wrap=True)
    for rank, s in enumerate(scores, start=1):
        table.add_row(
            str(rank),
            s.topic,
            str(s.hits),
            _num(s.idf),
            _num(s.plain_score, 3),
            str(_band(s.plain_score, s.hits)),
            _num(s.idf_score, 3),
            str(_band(s.idf_score, s.hits)),
            _num(s.recency),
            _num(s.age_days, 1),
        )
    return table


def _band(score: float, hits: int) -> str:
    from graphmem.hotness import classify

    return str(classify(score, hits=hits))


@cli.command()
@now_option
@click.option(
    "--window",
    "window_days",
    type=click.FloatRange(min=0, min_open=True),
    default=30.0,
    show_default=True,
    help="Hits window in days.",
)
@click.option(
    "--limit", type=click.IntRange(min=0), default=20, show_default=True, help="Top N topics."
)
@click.option(
    "--idf", is_flag=True, help="Rank by the IDF-weighted score instead of the plain one."
)
@json_option
@click.pass_context
def hot(
    ctx: click.Context,
    now: str | None,
    window_days: float,
    limit: int,
    idf: bool,
    as_json: bool,
) -> None:
    """Rank topics by hotness: plain and IDF-weighted scores side by side.

    IDF weighting discounts topics mentioned in nearly every session (common words), which the
    plain score ranks as falsely hot.
    """
    weighting = "idf" if idf else "plain"
    with open_memory(ctx, read_only=True) as mem:
        at = mem.now() if now is None else to_utc(now, name="--now")
        scores = mem.hot_topics(now=at, window_days=window_days, limit=limit, weighting=weighting)
    if as_json:
        echo_json(scores)
        return
    title = f"hot topics as of {fmt(at)} (window {window_days:g} d, ranked by {weighting})"
    _print(_hot_table(scores, title=title))
    if not scores:
        click.echo("(no topics: record sessions with mentions first)")


# -- triage ------------------------------------------------------------------------------------


def _triage_table(
    rows: Sequence[Any],
    *,
    title: str,
    name: tuple[str, Callable[[Any], str]] = ("topic", lambda t: t.topic),
    counts: Sequence[tuple[str, Callable[[Any], str]]] = (
        ("sess", lambda t: str(t.n_sessions)),
        ("facts", lambda t: str(t.n_facts)),
    ),
) -> Table:
    """The triage table of topics, or (``name``, ``counts``) of anything scored alike."""
    table = Table(title=title)
    table.add_column(name[0], min_width=8)
    table.add_column("advice", no_wrap=True)
    for col in ("score", "rec", "recur", "act", "stale", *(c for c, _ in counts)):
        table.add_column(col, justify="right", no_wrap=True)
    table.add_column("reason")
    for t in rows:
        table.add_row(
            name[1](t),
            str(t.recommendation),
            _num(t.composite),
            _num(t.recency),
            _num(t.recurrence),
            _num(t.actionability),
            _num(t.staleness),
            *(value(t) for _, value in counts),
            t.reason,
        )
    return table


@cli.command()
@now_option
@click.option(
    "--limit", type=click.IntRange(min=0), default=5, show_default=True, help="Top N topics."
)
@json_option
@click.pass_context
def triage(ctx: click.Context, now: str | None, limit: int, as_json: bool) -> None:
    """Topics most in need of attention: ARCHIVE, PRUNE, UPDATE or KEEP (advisory, read-only)."""
    with open_memory(ctx, read_only=True) as mem:
        at = mem.now() if now is None else to_utc(now, name="--now")
        rows = mem.triage(now=at, limit=limit)
    if as_json:
        echo_json(rows)
        return
    _print(_triage_table(rows, title=f"triage as of {fmt(at)}"))
    if not rows:
        click.echo("(no topics)")


# -- maintain ----------------------------------------------------------------------------------


def _since(last: dt.datetime | None, at: dt.datetime) -> str:
    if last is None:
        return "never ran"
    return f"{(at - last).total_seconds() / 3600:.1f} h since the last run at {fmt(last)}"


@cli.command()
@click.option(
    "--auto",
    is_flag=True,
    help="Run only when due: never ran, or at least 24 h and 5 new sessions since the last run.",
)
@now_option
@json_option
@click.pass_context
def maintain(ctx: click.Context, auto: bool, now: str | None, as_json: bool) -> None:
    """Run triage as nightly maintenance and log it next to the database.

    The state (last run, session count) is kept in <db>.maintain.json, written atomically; each
    run appends one JSON line to <db>.maintain.log.jsonl. Advisory: the database is not changed.
    """
    from graphmem.maintenance import (
        ConsolidateState,
        append_log,
        maintenance_paths,
    )
    from graphmem.sessions import session_count

    settings: Settings = ctx.find_object(Settings)  # type: ignore[assignment]
    path = db_path(settings)
    paths = maintenance_paths(path)
    started = time.perf_counter()
    with open_memory(ctx, read_only=True) as mem:
        at = mem.now() if now is None else to_utc(now, name="--now")
        state = ConsolidateState.load(paths.state).recovered(paths.log)
        total = session_count(mem, until=at)
        new_sessions = max(total - state.session_count, 0)
        due = state.is_due(now=at, session_count=total)
        if auto and not due:
            report = {
                "ran": False,
                "due": False,
                "at": at,
                "last_run_at": state.last_run_at,
                "sessions_total": total,
                "sessions_since_last_run": new_sessions,
            }
            _not_due(report, as_json=as_json)
            return
        _never_backwards(state.last_run_at, at)
        results = mem.triage(now=at, limit=None)
    suggestions = [t for t in results if t.needs_attention]
    record: dict[str, Any] = {
        "at": at,
        "trigger": "auto" if auto else "manual",
        "db": path,
        "last_run_at": state.last_run_at,
        "sessions_total": total,
        "sessions_since_last_run": new_sessions,
        "topics_scanned": len(results),
        "suggestions": [t.model_dump(mode="json") for t in suggestions],
        "duration_ms": round((time.perf_counter() - started) * 1000, 1),
    }
    append_log(paths.log, record)  # the commit point: a kill after it still counts the run
    ConsolidateState(at, total).save(paths.state)
    if as_json:
        echo_json({"ran": True, "due": due, **record, "log": str(paths.log)})
        return
    click.echo(
        f"maintenance ({record['trigger']}) as of {fmt(at)}: {len(results)} topic(s) scanned, "
        f"{len(suggestions)} suggestion(s), {new_sessions} new session(s) since the last run"
    )
    if suggestions:
        _print(_triage_table(suggestions, title="suggestions (advisory: nothing was changed)"))
    click.echo(f"logged to {paths.log}")


def _not_due(report: dict[str, Any], *, as_json: bool) -> None:
    """Say that ``--auto`` maintenance is not due (the dual threshold of docs/cli.md)."""
    from graphmem.maintenance import MIN_INTERVAL, MIN_NEW_SESSIONS

    if as_json:
        echo_json(report)
        return
    click.echo(
        f"not due: {report['sessions_since_last_run']} new session(s) (need "
        f"{MIN_NEW_SESSIONS}), {_since(report['last_run_at'], report['at'])} (need "
        f"{MIN_INTERVAL.total_seconds() / 3600:g} h); nothing run"
    )


def _never_backwards(last_run_at: Any, at: Any) -> None:
    """Refuse a ``--now`` before the last maintenance run."""
    if last_run_at is not None and at < last_run_at:
        raise click.ClickException(
            f"--now {at.isoformat()} is before the last run at "
            f"{last_run_at.isoformat()}; maintenance time never moves backwards"
        )
