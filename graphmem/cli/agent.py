"""Agent-facing CLI verbs: context, search, mcp, ingest-text."""

from __future__ import annotations

import time
from typing import IO, Any

import click

from graphmem.cli import cli
from graphmem.cli.common import (
    CommandError,
    Settings,
    db_path,
    echo_json,
    json_option,
    learned_at_option,
    open_memory,
)


@cli.command("context")
@click.argument("query")
@click.option(
    "--budget-tokens",
    "--budget",
    "budget_tokens",
    type=click.IntRange(min=1),
    default=800,
    show_default=True,
    help="Token budget (~4 characters per token; --budget is the deprecated old name).",
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
    """Print the facts and session lines relevant to QUERY as a block for an LLM prompt.

    Current facts (with what they replaced) and the best session lines, each with its
    session's date; lines stating a value since superseded are marked. Counts the retrieval
    of the facts shown (access counters), unless --read-only.
    """
    from graphmem.context import estimate_tokens

    with open_memory(ctx) as mem:
        text = mem.context(query, budget_tokens=budget_tokens, valid_at=valid_at, known_at=known_at)
    if as_json:
        echo_json(
            {
                "query": query,
                "context": str(text),
                "tokens": estimate_tokens(text),
                "items": [_item_json(i) for i in text.items],
            }
        )
    else:
        click.echo(text)


def _item_json(item: Any) -> dict[str, Any]:
    return {
        "kind": item.kind,
        "id": item.id,
        "text": item.text,
        "score": item.score,
        "date": item.date,
        "session": item.session,
        "superseded": item.superseded,
    }


@cli.command("search")
@click.argument("query")
@click.option(
    "--limit", type=click.IntRange(min=1), default=20, show_default=True, help="At most N items."
)
@click.option("--valid-at", help="World time (default now): what was true then.")
@click.option("--known-at", help="System time (default now): what we believed then.")
@click.option(
    "--kinds",
    type=click.Choice(["fact", "line", "all"]),
    default="all",
    show_default=True,
    help="Facts, session lines, or both.",
)
@json_option
@click.pass_context
def search_cmd(
    ctx: click.Context,
    query: str,
    limit: int,
    valid_at: str | None,
    known_at: str | None,
    kinds: str,
    as_json: bool,
) -> None:
    """Print the facts and session lines matching QUERY, scored, best first.

    The candidates of 'graphmem context', one per line: kind, id, score, date and text.
    Writes nothing.
    """
    wanted = ("fact", "line") if kinds == "all" else (kinds,)
    with open_memory(ctx) as mem:
        items = mem.search(query, limit=limit, valid_at=valid_at, known_at=known_at, kinds=wanted)
    if as_json:
        echo_json([_item_json(i) for i in items])
        return
    if not items:
        click.echo(f'Nothing in memory matches "{query}".')
    for i in items:
        click.echo(str(i))


@cli.command("mcp")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio: one client; http: streamable HTTP at http://HOST:PORT/mcp, any number of apps.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP: address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True)
@click.option(
    "--token-file",
    type=click.Path(exists=True, dir_okay=False),
    help="HTTP: a file holding the bearer token clients must send (needed off loopback).",
)
@click.pass_context
def mcp_cmd(
    ctx: click.Context, transport: str, host: str, port: int, token_file: str | None
) -> None:
    """Serve the memory to agents over MCP until the client disconnects (stdio) or Ctrl-C.

    Needs pip install 'graphmem[mcp]'. The server lends the database to the CLI between tool
    calls, so other graphmem commands work while it runs (docs/concurrency.md). Client
    config (docs/agents.md), with the absolute path of your virtual environment's graphmem:
    {"command": "/abs/path/.venv/bin/graphmem", "args": ["--db", "/abs/path/mem.kuzu", "mcp"]}
    With --transport http one server owns the memory and several apps share it at
    {"url": "http://127.0.0.1:8765/mcp"}; binding another address than loopback needs
    --token-file (requests without "Authorization: Bearer <token>" get 401).
    """
    from graphmem.mcp_server import check_http, serve

    settings: Settings = ctx.find_object(Settings)  # type: ignore[assignment]
    if settings.read_only:
        raise click.ClickException("the MCP server writes (remember, forget); drop --read-only")
    token = None
    if token_file is not None:
        if transport != "http":
            raise click.UsageError("--token-file applies to --transport http")
        with open(token_file, encoding="utf-8") as fh:
            token = fh.read().strip()
    if transport == "http":
        check_http(host, token)  # before the database is opened
    serve(
        db_path(settings),
        engine=settings.engine,
        ontology=settings.ontology,
        transport=transport,
        host=host,
        port=port,
        token=token,
        scope=settings.scope,
    )


@cli.command("ingest-text")
@click.argument("file", type=click.File("rb"))
@click.option("--at", help="When the text's facts became true, unless it says (default now).")
@click.option("--source", help="Session/episode id stored on every fact.")
@click.option("--dry-run", is_flag=True, help="Print the extracted facts without writing.")
@learned_at_option
@json_option
@click.pass_context
def ingest_text_cmd(
    ctx: click.Context,
    file: IO[bytes],
    at: str | None,
    source: str | None,
    dry_run: bool,
    learned_at: str | None,
    as_json: bool,
) -> None:
    """Read the text in FILE ('-' for stdin) as claims and write them (like remember).

    Change statements ("we migrated the API to Go") close the value they replace; "no longer"
    ends a fact; text without claims is kept as a note. --dry-run prints the claims only
    ("?" where the relation is resolved against the graph when writing).
    """
    from graphmem.extract import extract

    raw = file.read()
    try:
        # Universal newlines, as a text-mode read gives them.
        text = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
    except UnicodeDecodeError as exc:
        name = getattr(file, "name", "-")
        raise CommandError(
            f"{'standard input' if name in ('-', '<stdin>') else repr(name)} is not UTF-8 text "
            f"(byte {raw[exc.start]:#04x} at offset {exc.start}); ingest-text reads text: pass "
            "a UTF-8 .txt or .md file",
            kind="InvalidInput",
        ) from None
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
                        "polarity": f.polarity,
                        "replaces": f.replaces,
                        "sentence": f.sentence,
                    }
                    for f in found
                ]
            )
        else:
            for f in found:
                was = f" (replaces {f.replaces})" if f.replaces else ""
                what = f"{f.subject} {f.predicate or '?'} {f.object or '*'}{was}"
                click.echo(f"{'' if f.polarity else 'NOT '}{what}")
            click.echo(f"{len(found)} claim(s) found (dry run, nothing written)", err=True)
        return
    with open_memory(ctx) as mem:
        results = mem.ingest_text(text, at=at, source=source, learned_at=learned_at)
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
