"""The ``graphmem`` command line: one subcommand per verb, thin over :class:`graphmem.Memory`.

Global options: ``--db PATH`` (env ``GRAPHMEM_DB``, default ``~/.graphmem/memory.kuzu``),
``--engine``, ``--read-only``, ``--ontology default|none|PATH`` (env ``GRAPHMEM_ONTOLOGY``).
Every read takes ``--json``. Bad input prints one line ``Error: ...`` and exits 1, without a
traceback.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from graphmem.cli.common import GraphmemGroup, Settings
from graphmem.store import DEFAULT_ENGINE, ENGINES

__all__ = ["cli", "main"]


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
    type=click.Choice(sorted(ENGINES)),
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
@click.version_option(package_name="graphmem")
@click.pass_context
def cli(
    ctx: click.Context, db: str | None, engine: str, read_only: bool, ontology: str | None
) -> None:
    """graphmem: a bi-temporal knowledge-graph memory for AI agents.

    Dates take YYYY-MM-DD, an ISO datetime with an offset, or now, today, yesterday (wall
    clock, UTC). With --json, results are JSON on stdout and errors one JSON object on stderr.
    """
    ctx.obj = Settings(db=db, engine=engine, read_only=read_only, ontology=ontology)
    if ctx.invoked_subcommand is None:
        click.echo(ctx.get_help())


def _register() -> None:
    # Each module adds its commands to ``cli``; importing them is the registration.
    from graphmem.cli import (
        agent,  # noqa: F401
        audit,  # noqa: F401
        check,  # noqa: F401
        core,  # noqa: F401
        export,  # noqa: F401
        migrate,  # noqa: F401
        sessions,  # noqa: F401
        topic_files,  # noqa: F401
        topics,  # noqa: F401
        trust,  # noqa: F401
        view,  # noqa: F401
    )


_register()


def main(argv: list[str] | None = None) -> Any:
    """Run the CLI (the ``graphmem`` console script)."""
    return cli.main(args=argv if argv is not None else sys.argv[1:], prog_name="graphmem")
