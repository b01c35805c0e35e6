"""The ``graphmem`` command line: one subcommand per verb, thin over :class:`graphmem.Memory`.

Global options: ``--db PATH`` (env ``GRAPHMEM_DB``, default ``~/.graphmem/memory.kuzu``),
``--engine``, ``--read-only``. Every read takes ``--json``. Bad input prints one line
``Error: ...`` and exits 1, without a traceback.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from graphmem.cli.common import GraphmemGroup, Settings

__all__ = ["cli", "main"]


@click.group(cls=GraphmemGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
    type=click.Choice(["kuzu", "ladybug"]),
    default="kuzu",
    show_default=True,
    envvar="GRAPHMEM_ENGINE",
    help="Embedded storage engine.",
)
@click.option("--read-only", is_flag=True, help="Open the database for reading only.")
@click.version_option(package_name="graphmem")
@click.pass_context
def cli(ctx: click.Context, db: str | None, engine: str, read_only: bool) -> None:
    """graphmem: a bi-temporal knowledge-graph memory for AI agents."""
    ctx.obj = Settings(db=db, engine=engine, read_only=read_only)


def _register() -> None:
    # Each module adds its commands to ``cli``; importing them is the registration.
    from graphmem.cli import (
        agent,  # noqa: F401
        audit,  # noqa: F401
        check,  # noqa: F401
        core,  # noqa: F401
        export,  # noqa: F401
        topics,  # noqa: F401
    )


_register()


def main(argv: list[str] | None = None) -> Any:
    """Run the CLI (the ``graphmem`` console script)."""
    return cli.main(args=argv if argv is not None else sys.argv[1:], prog_name="graphmem")
