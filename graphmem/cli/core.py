"""Core CLI verbs: add, add-many, retract, correct, facts, believed, history, demo."""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import shutil
import sys
import time
from typing import IO, Any

import click

from graphmem.cli import cli
from graphmem.cli.common import (
    CommandError,
    Progress,
    Settings,
    db_path,
    echo_json,
    fact_table,
    fmt_when,
    json_option,
    learned_at_option,
    open_memory,
)
from graphmem.errors import GraphmemError

#: Bad lines ``add-many`` prints (all of them are in its ``--json`` error).
SHOWN_BAD = 20
#: Rows per transaction in ``add-many``: each chunk is atomic. Smaller chunks cost much more
#: (measured on 50k facts: 10k-row chunks 6.1 s, 2.5k-row chunks 16.9 s), so the progress bar
#: moves between chunks at the measured rate instead (:class:`~graphmem.cli.common.Progress`).
CHUNK = 10_000


def _result_json(result: Any) -> dict[str, Any]:
    return {
        "decision": result.decision.value,
        "fact": None if result.fact is None else result.fact.model_dump(mode="json"),
        "superseded": [f.model_dump(mode="json") for f in result.superseded],
    }


@cli.command()
@click.argument("subject")
@click.argument("predicate")
@click.argument("object")
@click.option("--valid-from", help="When it became true (date or ISO datetime with offset).")
@click.option("--valid-to", help="When it stopped being true (exclusive).")
@click.option("--source", help="Session/episode id.")
@click.option("--source-ref", help="Caller identity key: a later fact with it replaces this one.")
@click.option("--statement", help="Original text (a negating one invalidates).")
@click.option(
    "--kind",
    default="fact",
    show_default=True,
    type=click.Choice(["fact", "event", "insight", "directive", "identity"]),
)
@click.option("--importance", type=float, help="0-10.")
@learned_at_option
@click.option("--confidence", type=float, default=1.0, show_default=True, help="0-1.")
@click.option(
    "--source-type",
    type=click.Choice(["user", "agent", "tool", "system", "import"]),
    help="Who says it; decides what it may replace (see 'graphmem disputes').",
)
@json_option
@click.pass_context
def add(
    ctx: click.Context,
    subject: str,
    predicate: str,
    object: str,
    valid_from: str | None,  # noqa: A002
    valid_to: str | None,
    source: str | None,
    source_ref: str | None,
    statement: str | None,
    kind: str,
    importance: float | None,
    learned_at: str | None,
    confidence: float,
    source_type: str | None,
    as_json: bool,
) -> None:
    """Assert one fact: SUBJECT PREDICATE OBJECT."""
    with open_memory(ctx) as mem:
        result = mem.add_fact(
            subject,
            predicate,
            object,
            valid_from=valid_from,
            valid_to=valid_to,
            source=source,
            source_ref=source_ref,
            statement=statement,
            kind=kind,
            importance=importance,
            learned_at=learned_at,
            confidence=confidence,
            source_type=source_type,
        )
    if as_json:
        echo_json(_result_json(result))
        return
    click.echo(
        f"{result.decision.value}: {subject} {predicate} {object}"
        + (f" (id {result.fact.id})" if result.fact else "")
    )
    for f in result.superseded:
        click.echo(f"  closed {f.id}: {f.reason}")


def read_jsonl(path: str) -> tuple[list[tuple[int, dict[str, Any]]], list[str]]:
    """Read a JSONL file (``-``: standard input): ``(line number, object)`` rows and bad lines."""
    good: list[tuple[int, dict[str, Any]]] = []
    bad: list[str] = []
    # Binary, decoded line by line: invalid UTF-8 is a bad line, never silently replaced.
    with contextlib.ExitStack() as stack:
        fh: IO[bytes] = (
            sys.stdin.buffer if path == "-" else stack.enter_context(builtins.open(path, "rb"))
        )
        for n, raw in enumerate(fh, start=1):
            if b"\0" in raw:
                # A binary file (an image, an archive): one error, not one per "line".
                lines = n + sum(1 for _ in fh)
                where = "standard input" if path == "-" else repr(path)
                raise CommandError(
                    f"{where} is a binary file, not JSONL (a NUL byte on line {n}; {lines} "
                    "line(s) read); nothing written; pass a UTF-8 text file with one fact object "
                    "per line",
                    kind="InvalidInput",
                )
            try:
                line = raw.decode("utf-8-sig" if n == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                bad.append(f"line {n}: not valid UTF-8 (byte {raw[exc.start]:#04x} at {exc.start})")
                continue
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                bad.append(f"line {n}: invalid JSON ({exc.msg})")
                continue
            except RecursionError:
                bad.append(f"line {n}: the JSON is nested too deeply to parse; use flat objects")
                continue
            if not isinstance(row, dict):
                bad.append(f"line {n}: expected a JSON object, got {type(row).__name__}")
                continue
            good.append((n, row))
    return good, bad


@cli.command("add-many")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--skip-bad", is_flag=True, help="Write the good lines even if some are bad.")
@learned_at_option
@json_option
@click.pass_context
def add_many(
    ctx: click.Context, file: str, skip_bad: bool, learned_at: str | None, as_json: bool
) -> None:
    """Assert the facts of a JSONL FILE ('-': standard input), one fact object per line.

    Keys are add's fields: subject, predicate, object, valid_from, valid_to, source,
    source_ref, statement, kind, importance. Bad lines are reported with their line numbers.
    By default nothing is written when any line is bad; with --skip-bad the good lines are.
    """
    rows, bad = read_jsonl(file)
    with open_memory(ctx) as mem:
        checked: list[dict[str, Any]] = []
        for n, row in rows:
            try:
                mem.validate_fact(row)
            except GraphmemError as exc:
                bad.append(f"line {n}: {exc}")
                continue
            checked.append(row)
        bad.sort(key=lambda m: int(m.split(":")[0].split()[1]))
        if not as_json or skip_bad:  # with --json, a refusal carries them in its JSON error
            for message in bad[:SHOWN_BAD]:
                click.echo(message, err=True)
            if len(bad) > SHOWN_BAD:
                click.echo(f"... and {len(bad) - SHOWN_BAD} more bad line(s)", err=True)
        if bad and not skip_bad:
            raise CommandError(
                f"{len(bad)} bad line(s) in {file}; nothing written (use --skip-bad to write "
                f"the {len(checked)} good line(s))",
                kind="InvalidInput",
                bad_lines=bad,
            )
        counts: dict[str, int] = {}
        started = time.perf_counter()
        with Progress(len(checked), label="writing") as bar:
            for i in range(0, len(checked), CHUNK):
                chunk = checked[i : i + CHUNK]
                bar.step(len(chunk))
                for result in mem.add_facts(chunk, learned_at=learned_at):
                    counts[result.decision.value] = counts.get(result.decision.value, 0) + 1
                bar.done(len(chunk))
        seconds = time.perf_counter() - started
    summary = {
        "written": len(checked),
        "skipped": len(bad),
        "bad_lines": bad,
        "decisions": counts,
        "seconds": round(seconds, 3),
    }
    if as_json:
        echo_json(summary)
    else:
        click.echo(
            f"wrote {len(checked)} fact(s), skipped {len(bad)} bad line(s) in "
            f"{seconds:.2f} s: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        )


@cli.command()
@click.argument("subject", required=False)
@click.argument("predicate", required=False)
@click.argument("object", required=False)
@click.option("--id", "fact_id", metavar="FACT_ID", help="End this one fact version instead.")
@click.option("--at", help="When it stopped being true (default: now).")
@click.option("--reason", help="Why; recorded on the closed versions.")
@json_option
@click.pass_context
def retract(
    ctx: click.Context,
    subject: str | None,
    predicate: str | None,
    object: str | None,  # noqa: A002
    fact_id: str | None,
    at: str | None,
    reason: str | None,
    as_json: bool,
) -> None:
    """End SUBJECT PREDICATE [OBJECT], or --id FACT_ID, at a time (default now).

    History is kept: the version is closed and replaced by one ending at --at. For a value
    that was never true, use correct.
    """
    if fact_id is None and (subject is None or predicate is None):
        raise click.UsageError("pass SUBJECT PREDICATE [OBJECT], or --id FACT_ID")
    with open_memory(ctx) as mem:
        result = mem.retract(subject, predicate, object, fact_id=fact_id, at=at, reason=reason)
    if as_json:
        echo_json(_result_json(result))
        return
    click.echo(f"invalidate: closed {len(result.superseded)} version(s)")
    for f in result.superseded:
        click.echo(f"  {f.subject} {f.predicate} {f.object}: {f.reason}")


@cli.command()
@click.argument("fact_id")
@click.argument("new_object")
@click.option("--reason", help="Why; recorded on the corrected version.")
@learned_at_option
@json_option
@click.pass_context
def correct(
    ctx: click.Context,
    fact_id: str,
    new_object: str,
    reason: str | None,
    learned_at: str | None,
    as_json: bool,
) -> None:
    """Correct a wrong fact: NEW_OBJECT replaces version FACT_ID's value from its start.

    The old value was never true (a mistake), not outdated: the version is closed as
    corrected (what was believed before stays answerable with --known-at), and the same
    subject, predicate and dates get NEW_OBJECT.
    """
    with open_memory(ctx) as mem:
        result = mem.correct(fact_id, new_object, reason=reason, learned_at=learned_at)
    if as_json:
        echo_json(_result_json(result))
        return
    f = result.fact
    click.echo(
        f"{result.decision.value}: "
        + (f"{f.subject} {f.predicate} {f.object} (id {f.id})" if f else "(no new version)")
    )
    for old in result.superseded:
        click.echo(f"  closed {old.id}: {old.reason}")


@cli.command()
@click.option("--subject", help="Subject name.")
@click.option("--predicate", help="Predicate name or alias.")
@click.option("--object", "object_", help="Object name.")
@click.option("--valid-at", help="World time (default now).")
@click.option("--known-at", help="System time: what we believed then (default now).")
@click.option("--limit", type=click.IntRange(min=0), help="At most this many rows.")
@click.option(
    "--source-type",
    type=click.Choice(["user", "agent", "tool", "system", "import"]),
    help="Only the facts said by this source.",
)
@json_option
@click.pass_context
def facts(
    ctx: click.Context,
    subject: str | None,
    predicate: str | None,
    object_: str | None,
    valid_at: str | None,
    known_at: str | None,
    limit: int | None,
    source_type: str | None,
    as_json: bool,
) -> None:
    """List facts true at --valid-at as believed at --known-at (both default to now)."""
    with open_memory(ctx, read_only=True) as mem:
        rows = mem.facts(
            subject=subject,
            predicate=predicate,
            object=object_,
            valid_at=valid_at,
            known_at=known_at,
            limit=limit,
            source_type=source_type,
        )
    if as_json:
        echo_json(rows)
    else:
        fact_table(rows)


@cli.command()
@click.option("--on", "on", required=True, help="The date: what we believed then was true then.")
@click.option("--subject", help="Subject name.")
@click.option("--predicate", help="Predicate name or alias.")
@json_option
@click.pass_context
def believed(
    ctx: click.Context, on: str, subject: str | None, predicate: str | None, as_json: bool
) -> None:
    """What we believed on a date (valid_at = known_at = --on), and what became of it.

    The last column says whether each belief still stands or when it was revised, and why.
    """
    with open_memory(ctx, read_only=True) as mem:
        rows = mem.believed(on=on, subject=subject, predicate=predicate)
    if as_json:
        echo_json(rows)
    else:
        fact_table(rows, title=f"believed on {on}", changed=_since_then)


def _since_then(f: Any) -> str:
    """What became of a belief: still held, or revised when and why."""
    if f.expired_at is None:
        return "still believed"
    return f"revised {fmt_when(f.expired_at)}: {f.reason or 'closed'}"


@cli.command()
@click.argument("subject")
@click.argument("predicate", required=False)
@click.option(
    "--include-expired",
    "include_expired",
    is_flag=True,
    help="Include versions closed in system time (the audit view).",
)
@click.option(
    "--all",
    "all_",
    is_flag=True,
    help="Deprecated: the old name of --include-expired (removed in the next release).",
)
@json_option
@click.pass_context
def history(
    ctx: click.Context,
    subject: str,
    predicate: str | None,
    include_expired: bool,
    all_: bool,
    as_json: bool,
) -> None:
    """The timeline of SUBJECT [PREDICATE], ordered by valid_from."""
    if all_:
        click.echo("note: --all is deprecated; use --include-expired", err=True)
        include_expired = True
    with open_memory(ctx, read_only=True) as mem:
        rows = mem.history(subject, predicate, include_expired=include_expired)
    if as_json:
        echo_json(rows)
    else:
        fact_table(rows, title=f"history of {subject}", audit=include_expired)


@cli.command()
@click.option("--keep", is_flag=True, help="Keep an existing demo database instead of rebuilding.")
@json_option
@click.pass_context
def demo(ctx: click.Context, keep: bool, as_json: bool) -> None:
    """Build a memory from the bundled careers and marriages and ask it questions.

    Uses --db if given, else a demo database next to the default one
    (~/.graphmem/demo.kuzu), rebuilt on each run.
    """
    from graphmem.demo import demo_schedule, run_demo
    from graphmem.memory import Memory
    from graphmem.timeutil import ManualClock

    settings: Settings = ctx.find_object(Settings)  # type: ignore[assignment]
    path = (
        db_path(settings)
        if settings.db
        else os.path.join(os.path.dirname(db_path(settings)), "demo.kuzu")
    )
    if os.path.exists(path) and not keep:
        if settings.db:
            raise click.ClickException(
                f"{path!r} already exists; the demo needs a new database path (or omit --db)"
            )
        for p in (path, path + ".wal"):
            if os.path.isdir(p):
                shutil.rmtree(p)
            elif os.path.exists(p):
                os.remove(p)
    clock = ManualClock("0001-01-01")
    started = time.perf_counter()
    with Memory(path, clock=clock, engine=settings.engine, ontology=settings.ontology) as mem:
        schedule = demo_schedule()
        with click.progressbar(
            range(sum(len(rows) for _, rows in schedule)),
            label="replaying the sample",
            file=sys.stderr,
        ) as bar:
            report = run_demo(mem, clock.set, schedule=schedule, progress=bar.update)
    wall = time.perf_counter() - started
    if as_json:
        echo_json(
            {
                "db": path,
                "facts": report.facts,
                "writes": report.writes,
                "versions": report.versions,
                "decisions": report.decisions,
                "seconds": round(wall, 3),
                "answers": report.lines,
            }
        )
        return
    click.echo(f"graphmem demo — database {path} (engine {settings.engine})\n")
    for line in report.lines:
        click.echo(line)
    click.echo(
        f"\nDone in {wall:.2f} s. Explore it: graphmem --db {path} history "
        "'Albert Einstein' works_at --include-expired"
    )
