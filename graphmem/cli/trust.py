"""CLI verbs of provenance and trust: ``disputes``, ``resolve-dispute``, ``explain``.

See docs/concepts/decisions.md#authority-and-disputes.
"""

from __future__ import annotations

import click

from graphmem.cli import cli
from graphmem.cli.common import echo_json, json_option, open_memory


@cli.command()
@click.option("--subject", help="Only disputes about this subject.")
@click.option("--all", "include_settled", is_flag=True, help="Also the settled disputes.")
@json_option
@click.pass_context
def disputes(ctx: click.Context, subject: str | None, include_settled: bool, as_json: bool) -> None:
    """List disputed versions: writes kept beside a current fact they may not replace."""
    with open_memory(ctx, read_only=True) as mem:
        rows = mem.disputes(subject=subject, include_settled=include_settled)
    if as_json:
        echo_json(rows)
        return
    for f in rows:
        click.echo(f"{f.id}  {f}")
        click.echo(f"  {f.reason}")
    if not rows:
        click.echo("(no disputes)")


@cli.command("resolve-dispute")
@click.argument("fact_id")
@click.option(
    "--accept",
    type=click.BOOL,
    required=True,
    metavar="true|false",
    help="true: the disputed value supersedes the current one; false: the current one stays.",
)
@click.option("--reason", help="Why (kept with the settled dispute).")
@json_option
@click.pass_context
def resolve_dispute(
    ctx: click.Context, fact_id: str, accept: bool, reason: str | None, as_json: bool
) -> None:
    """Settle the dispute FACT_ID (an id from 'graphmem disputes') in one audited write."""
    with open_memory(ctx) as mem:
        result = mem.resolve_dispute(fact_id, accept=accept, reason=reason)
    if as_json:
        echo_json(result)
        return
    verdict = "accepted" if accept else "rejected"
    click.echo(f"{verdict}: {result.decision.value}" + (f": {result.fact}" if result.fact else ""))
    for f in result.superseded:
        click.echo(f"  closed {f.id}: {f.reason}")


@cli.command()
@click.argument("subject")
@click.argument("predicate")
@click.option("--at", "at", required=True, help="The date asked about.")
@json_option
@click.pass_context
def explain(ctx: click.Context, subject: str, predicate: str, at: str, as_json: bool) -> None:
    """Three readings of SUBJECT PREDICATE: true now, true at --at, believed at --at."""
    with open_memory(ctx, read_only=True) as mem:
        readings = mem.explain(subject, predicate, at=at)
    if as_json:
        echo_json(readings.to_json())
    else:
        click.echo(readings.describe())
