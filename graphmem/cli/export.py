"""Backup verbs: ``export`` (jsonl, graphml, node-link) and ``import`` into an empty database."""

from __future__ import annotations

import io
import os
import sys
from typing import Any

import click

from graphmem.cli import cli
from graphmem.cli.common import Progress, echo_json, json_option, open_memory


def _report_json(report: Any, **extra: Any) -> dict[str, Any]:
    return {
        "format": report.format,
        "predicates": report.predicates,
        "entities": report.entities,
        "sessions": report.sessions,
        "facts": report.facts,
        "audit": report.audit,
        "last_write": None if report.last_write is None else report.last_write.isoformat(),
        **extra,
    }


@cli.command("export")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "graphml", "node-link"]),
    default="jsonl",
    show_default=True,
    help="jsonl is the canonical backup; graphml and node-link open in graph tools.",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, writable=True),
    help="Write to FILE (default: standard output).",
)
@json_option
@click.pass_context
def export_cmd(ctx: click.Context, fmt: str, output: str | None, as_json: bool) -> None:
    """Export every fact version, entity, session and the ontology (a lossless backup).

    Restore it with ``graphmem --db NEW_PATH import FILE``.
    """
    from graphmem.export import export_memory

    with open_memory(ctx, read_only=True) as mem:
        if output is None:
            report = export_memory(mem, sys.stdout, format=fmt)
        else:
            report = export_memory(mem, output, format=fmt)
    summary = report.summary()
    if output is None:
        # Standard output holds the export itself; say what was written on stderr.
        click.echo(f"exported {summary}", err=True)
    elif as_json:
        echo_json(_report_json(report, output=os.path.abspath(output)))
    else:
        click.echo(f"exported {summary} to {output}")


@cli.command("import")
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["jsonl", "graphml", "node-link"]),
    default=None,
    help="Format of FILE (default: detected from its content).",
)
@json_option
@click.pass_context
def import_cmd(ctx: click.Context, file: str, fmt: str | None, as_json: bool) -> None:
    """Restore an export FILE ('-' for standard input) into an empty database.

    Ids, both time axes, reasons and counters are kept exactly; nothing is re-decided.
    """
    from graphmem.export import import_memory

    if file != "-" and not os.path.exists(file):
        raise click.ClickException(f"no such file: {file!r}")
    with open_memory(ctx, read_only=False) as mem:
        if file == "-":
            text = sys.stdin.read()
        else:
            try:
                with open(file, encoding="utf-8", newline="") as fh:
                    text = fh.read()
            except UnicodeDecodeError:
                text = ""  # import_memory reads it again and names the problem
        # One transaction without progress reports: the bar moves at an estimated rate and
        # reaches the end only when the restore has committed.
        records = max(text.count("\n"), 1)
        with Progress(records, label="importing", rate=20_000.0) as bar:
            bar.step(records)
            if text or file == "-":
                report = import_memory(mem, io.StringIO(text), format=fmt)
            else:
                report = import_memory(mem, file, format=fmt)
            bar.done(records)
        where = mem.path
    if as_json:
        echo_json(_report_json(report, db=where))
    else:
        click.echo(f"imported {report.summary()} into {where}")
