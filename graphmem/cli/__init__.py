"""The ``graphmem`` command line: one subcommand per verb, thin over :class:`graphmem.Memory`.

Global options: ``--db PATH`` (env ``GRAPHMEM_DB``, default ``~/.graphmem/memory.kuzu``),
``--engine``, ``--read-only``, ``--ontology default|none|PATH`` (env ``GRAPHMEM_ONTOLOGY``),
``--scope PATH`` (env ``GRAPHMEM_SCOPE``, docs/concepts/scopes.md).
Every read takes ``--json``. Bad input prints one line ``Error: ...`` and exits 1, without a
traceback.

A command's module is imported when the command runs (or when the commands are listed, as
``--help`` does), so ``graphmem --version`` and ``graphmem facts`` load only what they use
(docs/api.md#importing-graphmem).
"""

from __future__ import annotations

import sys
from typing import Any

import click

from graphmem import __version__
from graphmem.cli.common import GraphmemGroup, Settings
from graphmem.store import DEFAULT_ENGINE, EMBEDDED_ENGINES

__all__ = ["COMMANDS", "cli", "main"]

#: The module of ``graphmem.cli`` that defines each command; importing it registers them.
COMMANDS = {
    **dict.fromkeys(("context", "search", "mcp", "ingest-text"), "agent"),
    **dict.fromkeys(
        ("remember", "why", "changes", "purge", "merge-entities", "predicates", "define-predicate"),
        "audit",
    ),
    "check": "check",
    **dict.fromkeys(
        ("add", "add-many", "retract", "correct", "facts", "believed", "history", "demo"), "core"
    ),
    **dict.fromkeys(("export", "import"), "export"),
    "migrate": "migrate",
    **dict.fromkeys(("add-session", "ingest"), "sessions"),
    **dict.fromkeys(("topic-health", "topic-triage", "topic-audit"), "topic_files"),
    **dict.fromkeys(("sessions", "hot", "triage", "maintain"), "topics"),
    **dict.fromkeys(("disputes", "resolve-dispute", "explain"), "trust"),
    "view": "view",
}


def _ontology_option(ctx: click.Context, param: click.Parameter, value: str) -> str | None:
    """Check ``--ontology``: ``default``, ``none`` or the path of an existing file."""
    import os

    if value == "default":
        return value
    if value.strip().lower() == "none":
        return None
    if not os.path.isfile(os.path.expanduser(value)):
        raise click.BadParameter(
            f"{value!r} is not 'default', 'none' or an existing file; pass the path of an "
            "ontology JSON file (the format of graphmem/data/ontology.json)",
            ctx=ctx,
            param=param,
        )
    return value


def _scope_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Check ``--scope``: a path of names such as ``acme/alice`` (docs/concepts/scopes.md)."""
    if value is None:
        return None
    from graphmem.errors import InvalidInput
    from graphmem.scopes import check_scope

    try:
        return check_scope(value)
    except InvalidInput as exc:
        raise click.BadParameter(str(exc), ctx=ctx, param=param) from exc


@click.group(
    cls=GraphmemGroup,
    invoke_without_command=True,  # `graphmem` alone prints this help and exits 0
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.option(
    "--db",
    "db",
    envvar="GRAPHMEM_DB",
    default=None,
    metavar="PATH",
    help="Database file (env GRAPHMEM_DB; default ~/.graphmem/memory.kuzu).",
)
@click.option(
    "--engine",
    type=click.Choice(sorted(EMBEDDED_ENGINES)),
    default=DEFAULT_ENGINE,
    show_default=True,
    envvar="GRAPHMEM_ENGINE",
    help="Embedded storage engine.",
)
@click.option("--read-only", is_flag=True, help="Open the database for reading only.")
@click.option(
    "--ontology",
    "ontology",
    envvar="GRAPHMEM_ONTOLOGY",
    default="default",
    show_default=True,
    metavar="default|none|PATH",
    callback=_ontology_option,
    help="Predicates of a new database: the shipped ones, none, or a JSON file (merged into an "
    "existing database; env GRAPHMEM_ONTOLOGY).",
)
@click.option(
    "--scope",
    "scope",
    envvar="GRAPHMEM_SCOPE",
    default=None,
    metavar="PATH",
    callback=_scope_option,
    help="Read and write in this scope, e.g. acme/alice (env GRAPHMEM_SCOPE; default: every "
    "scope is read, writes go to the root).",
)
@click.version_option(__version__, package_name="graphmem")
@click.pass_context
def cli(
    ctx: click.Context,
    db: str | None,
    engine: str,
    read_only: bool,
    ontology: str | None,
    scope: str | None,
) -> None:
    """graphmem: a bi-temporal knowledge-graph memory for AI agents.

    Dates take YYYY-MM-DD, an ISO datetime with an offset, now, today, yesterday, tomorrow or a
    relative date such as 'next tuesday' or '3 days ago' (wall clock, UTC). With --json,
    results are JSON on stdout and errors one JSON object on stderr.
    """
    ctx.obj = Settings(db=db, engine=engine, read_only=read_only, ontology=ontology, scope=scope)
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


# Each module adds its commands to ``cli`` when imported: the first time one of its commands is
# looked up (``cli.get_command``), which running it and ``--help`` do.
cli.lazy = {name: f"graphmem.cli.{module}" for name, module in COMMANDS.items()}


def main(argv: list[str] | None = None) -> Any:
    """Run the CLI (the ``graphmem`` console script)."""
    return cli.main(args=argv if argv is not None else sys.argv[1:], prog_name="graphmem")
