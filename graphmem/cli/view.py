"""``graphmem view``: write the memory's interactive graph page (docs/concepts/exploring.md)."""

from __future__ import annotations

import os

import click

from graphmem.cli import cli
from graphmem.cli.common import echo_json, json_option, open_memory


@cli.command("view")
@click.option("--subject", help="Only the entities within --hops facts of this one.")
@click.option("--hops", type=int, default=2, show_default=True, help="The radius around --subject.")
@click.option("--valid-at", help="Where the valid-time slider starts (default now).")
@click.option("--known-at", help="Where the known-time slider starts (default now).")
@click.option(
    "--predicate",
    "scope",
    multiple=True,
    help="Only facts of this predicate (repeat for several; default all).",
)
@click.option(
    "-o",
    "--out",
    required=True,
    type=click.Path(dir_okay=False, writable=True),
    help="The HTML file to write, e.g. graph.html.",
)
@json_option
@click.pass_context
def view_cmd(
    ctx: click.Context,
    subject: str | None,
    hops: int,
    valid_at: str | None,
    known_at: str | None,
    scope: tuple[str, ...],
    out: str,
    as_json: bool,
) -> None:
    """Write an interactive graph of the memory as one self-contained HTML page.

    Two sliders show the graph as true at a valid time and as believed at a known time; click
    an entity for its facts, a link for its history and why. The page makes no network
    request: open it in any browser, offline.
    """
    from graphmem.view import graph_html

    with open_memory(ctx, read_only=True) as mem:
        view = graph_html(
            mem,
            out,
            subject=subject,
            hops=hops,
            valid_at=valid_at,
            known_at=known_at,
            scope=list(scope) or None,
        )
    size = os.path.getsize(out)
    if as_json:
        echo_json(
            {
                "output": os.path.abspath(out),
                "entities": view.entities,
                "versions": view.versions,
                "bytes": size,
            }
        )
    else:
        click.echo(
            f"wrote {out}: {view.entities} entities, {view.versions} fact versions, {size:,} bytes"
        )
