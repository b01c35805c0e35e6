"""``graphmem check``: verify the store's invariants; exit 1 with a report when one is broken."""

from __future__ import annotations

import click
from pydantic import ValidationError

from graphmem.check import CheckReport, Problem, check
from graphmem.cli import cli
from graphmem.cli.common import Settings, db_path, echo_json, json_option, open_memory
from graphmem.errors import SchemaVersionError


@cli.command("check")
@json_option
@click.pass_context
def check_cmd(ctx: click.Context, as_json: bool) -> None:
    """Verify the store's invariants (read-only); exit 1 with a report when one is broken.

    Checks: no overlapping versions of a single-valued (subject, predicate) at any system
    instant; valid_to > valid_from; recorded_at <= expired_at; superseded_by points to an
    existing version recorded when its predecessor expired; no system time after the store's
    last write; unique version ids; loadable versions; predicate definitions; aliases; schema
    version. See graphmem.check.CODES for every problem code.
    """
    settings: Settings = ctx.find_object(Settings)  # type: ignore[assignment]
    try:
        with open_memory(ctx, read_only=True) as mem:
            report = check(mem)
    except SchemaVersionError as exc:
        report = CheckReport(db_path(settings), (Problem("schema-version", str(exc)),))
    except ValidationError as exc:  # a corrupt predicate or entity row fails the open itself
        msg = f"the store does not load: {exc.errors()[0]['msg']}"
        report = CheckReport(db_path(settings), (Problem("unreadable-version", msg),))
    if as_json:
        echo_json(report.to_dict())
    else:
        click.echo(report.format())
    if not report.ok:
        raise click.ClickException(
            f"{len(report.errors)} broken invariant(s) in {report.path or db_path(settings)!r}"
        )
