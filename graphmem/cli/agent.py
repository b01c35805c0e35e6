"""Agent-facing CLI verbs: context, mcp, ingest-text."""

from __future__ import annotations

import time
from typing import IO

import click

from graphmem.cli import cli
from graphmem.cli.common import Settings, db_path, echo_json, json_option, open_memory


@cli.command("context")
@click.argument("query")
@click.option(
    "--budget",
    "budget_tokens",
    type=click.IntRange(min=1),
    default=800,
    show_default=True,
    help="Token budget (~4 characters per token).",
)
@click.option("--valid-at", help="World time (default now): what was true then.")
@click.option("--known-at", help="System time (default now): what we believed then.")
@json_option
@click.pass_context
def context_cmd(
    ctx: click.Context,
    query: str,
    budget_tokens: int,
    valid_at: str | None,
    known_at: str | None,
    as_json: bool,
) -> None:
    """Print the facts relevant to QUERY as a compact block for an LLM prompt.

    Counts the retrieval of the facts shown (access counters), unless --read-only.
    """
    from graphmem.context import estimate_tokens

    with open_memory(ctx) as mem:
        text = mem.context(query, budget_tokens=budget_tokens, valid_at=valid_at, known_at=known_at)
    if as_json:
        echo_json({"query": query, "context": text, "tokens": estimate_tokens(text)})
    else:
        click.echo(text)


@cli.command("mcp")
@click.pass_context
def mcp_cmd(ctx: click.Context) -> None:
    """Serve the memory to an agent over MCP (stdio) until the client disconnects.

    Needs pip install 'graphmem[mcp]'. The server holds the database: stop it before writing
    from another process. Example client config:
    {"command": "graphmem", "args": ["--db", "/path/mem.kuzu", "mcp"]}
    """
    from graphmem.mcp_server import serve

    settings: Settings = ctx.find_object(Settings)  # type: ignore[assignment]
    if settings.read_only:
        raise click.ClickException("the MCP server writes (remember, forget); drop --read-only")
    serve(db_path(settings), engine=settings.engine)


@cli.command("ingest-text")
@click.argument("file", type=click.File("r", encoding="utf-8"))
@click.option("--at", help="When the text's facts became true, unless it says (default now).")
@click.option("--source", help="Session/episode id stored on every fact.")
@click.option("--dry-run", is_flag=True, help="Print the extracted facts without writing.")
@json_option
@click.pass_context
def ingest_text_cmd(
    ctx: click.Context,
    file: IO[str],
    at: str | None,
    source: str | None,
    dry_run: bool,
    as_json: bool,
) -> None:
    """Extract facts from the text in FILE ('-' for stdin) and write them.

    Rule-based extraction (spaCy, pip install 'graphmem[nlp]'): works_at, lives_in (moved to),
    runs_on, deploys_with, uses, role, and "no longer ..." negations that end facts.
    """
    from graphmem.extract import extract

    text = file.read()
    started = time.perf_counter()
    if dry_run:
        found = extract(text, at=at)
        if as_json:
            echo_json(
                [
                    {
                        "subject": f.subject,
                        "predicate": f.predicate,
                        "object": f.object,
                        "valid_from": f.valid_from,
                        "valid_to": f.valid_to,
                        "negated": f.negated,
                        "statement": f.statement,
                    }
                    for f in found
                ]
            )
        else:
            for f in found:
                click.echo(f"{'NOT ' if f.negated else ''}{f.subject} {f.predicate} {f.object}")
            click.echo(f"{len(found)} fact(s) found (dry run, nothing written)", err=True)
        return
    with open_memory(ctx) as mem:
        results = mem.ingest_text(text, at=at, source=source)
    seconds = time.perf_counter() - started
    if as_json:
        echo_json(
            {
                "results": [
                    {
                        "decision": r.decision.value,
                        "fact": None if r.fact is None else r.fact.model_dump(mode="json"),
                        "superseded": [f.model_dump(mode="json") for f in r.superseded],
                    }
                    for r in results
                ],
                "seconds": round(seconds, 3),
            }
        )
        return
    for r in results:
        what = (
            f"{r.fact.subject} {r.fact.predicate} {r.fact.object}"
            if r.fact
            else "(no current fact to end)"
        )
        click.echo(f"{r.decision.value}: {what}")
    click.echo(f"{len(results)} fact(s) from {len(text)} characters in {seconds:.2f} s", err=True)
