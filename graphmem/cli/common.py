"""Shared CLI plumbing: settings, opening the memory, error mapping and output helpers."""

from __future__ import annotations

import datetime as dt
import json
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import click
from pydantic import BaseModel

from graphmem.errors import GraphmemError
from graphmem.models import Fact

__all__ = [
    "GraphmemGroup",
    "Settings",
    "db_path",
    "echo_json",
    "fact_table",
    "json_option",
    "open_memory",
]

DEFAULT_DB = os.path.join("~", ".graphmem", "memory.kuzu")


@dataclass(frozen=True)
class Settings:
    """Global options of one CLI invocation."""

    db: str | None
    engine: str
    read_only: bool


class GraphmemGroup(click.Group):
    """A click group whose every failure is one line on stderr and exit code 1 (SPEC §6)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the CLI; usage errors and graphmem errors print one line and exit 1."""
        if kwargs.get("standalone_mode", True) is False:
            return super().main(*args, **kwargs)
        kwargs["standalone_mode"] = False
        try:
            code = super().main(*args, **kwargs)
        except click.exceptions.Abort:
            click.echo("Error: aborted", err=True)
            sys.exit(1)
        except click.ClickException as exc:
            hint = ""
            if isinstance(exc, click.UsageError) and exc.ctx is not None:
                hint = f" (see: {exc.ctx.command_path} --help)"
            click.echo(f"Error: {exc.format_message()}{hint}", err=True)
            sys.exit(1)
        except BrokenPipeError:  # pragma: no cover - e.g. `graphmem facts | head`
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: click.Context) -> Any:
        """Invoke the subcommand; map GraphmemError to a one-line ClickException."""
        try:
            return super().invoke(ctx)
        except GraphmemError as exc:
            one_line = " ".join(str(exc).splitlines())  # engine messages can span lines
            raise click.ClickException(f"{type(exc).__name__}: {one_line}") from None


def db_path(settings: Settings) -> str:
    """Return the database path of this invocation (``--db``, ``GRAPHMEM_DB`` or the default)."""
    return os.path.expanduser(settings.db or DEFAULT_DB)


@contextmanager
def open_memory(ctx: click.Context, *, read_only: bool | None = None) -> Iterator[Any]:
    """Open the memory named by the global options (kuzu imported only here)."""
    from graphmem.memory import Memory

    settings: Settings = ctx.find_object(Settings)  # type: ignore[assignment]
    ro = settings.read_only if read_only is None else (read_only or settings.read_only)
    path = db_path(settings)
    if ro and not os.path.exists(path):
        raise click.ClickException(f"no database at {path!r}; write something first or pass --db")
    with Memory(path, engine=settings.engine, read_only=ro) as mem:
        yield mem


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")


def _default(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, dt.datetime):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if hasattr(value, "value"):
        return value.value
    raise TypeError(f"cannot serialise {type(value).__name__}")


def echo_json(value: Any) -> None:
    """Print a value as indented JSON (models, datetimes and enums included)."""
    click.echo(json.dumps(value, default=_default, ensure_ascii=False, indent=2))


def fact_table(facts: Sequence[Fact], *, title: str | None = None, audit: bool = False) -> None:
    """Print facts as a rich table (valid interval, and system interval with ``audit``)."""
    from rich.console import Console
    from rich.table import Table

    from graphmem.timeutil import fmt

    table = Table(title=title, show_lines=False)
    for col in ("subject", "predicate", "object", "valid", *(("known", "reason") if audit else ())):
        table.add_column(col, overflow="fold")
    for f in facts:
        cells = [
            f.subject,
            f.predicate,
            f.object,
            f"{fmt(f.valid_from)} → {fmt(f.valid_to) if f.valid_to else 'open'}",
        ]
        if audit:
            cells += [
                f"{fmt(f.recorded_at)} → {fmt(f.expired_at) if f.expired_at else 'now'}",
                f.reason or "",
            ]
        table.add_row(*cells)
    Console(soft_wrap=True).print(table)
    if not facts:
        click.echo("(no facts)")
