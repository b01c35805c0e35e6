"""Shared CLI plumbing: settings, opening the memory, error mapping and output helpers."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import json
import os
import random
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import click

from graphmem.errors import GraphmemError
from graphmem.store import DEFAULT_FILE

if TYPE_CHECKING:
    from graphmem.cli.tables import Table
    from graphmem.models import Fact

__all__ = [
    "GraphmemGroup",
    "Settings",
    "db_path",
    "echo_json",
    "fact_table",
    "json_option",
    "learned_at_option",
    "open_memory",
    "print_table",
]

DEFAULT_DB = os.path.join("~", ".graphmem", DEFAULT_FILE)


@dataclass(frozen=True)
class Settings:
    """Global options of one CLI invocation."""

    db: str | None
    engine: str
    read_only: bool
    ontology: str | None = "default"
    #: ``--scope``: the scope every command reads and writes in (docs/concepts/scopes.md).
    scope: str | None = None


class CommandError(click.ClickException):
    """A failure of a command, with its type name for ``--json`` errors and optional details."""

    def __init__(self, message: str, *, kind: str = "Error", **details: Any) -> None:
        super().__init__(message)
        self.kind = kind
        self.details = details


#: Hints of library errors that name Python calls, and what to do in CLI terms instead.
#: The library's messages are written for Python callers; the CLI maps the ones it can reach.
CLI_HINTS: tuple[tuple[str, str], ...] = (
    (
        r"reopen it without read_only=True \(CLI: without --read-only\)",
        "run the command without --read-only",
    ),
    (r"fix the clock passed to graphmem\.open\(clock=\.\.\.\)", "check the system clock"),
    (r"\(read_only=True / --read-only\)", "(--read-only)"),
    (r"reuse the open Memory or close it first \(mem\.close\(\)\)", "wait for it to finish"),
    (r"\(gm\.open\(engine=\.\.\.\) or GRAPHMEM_ENGINE\)", "(--engine or GRAPHMEM_ENGINE)"),
    (r"Pass force=True \(CLI: define-predicate --force\)", "Pass --force"),
    (
        r"ids come from WriteResult\.fact\.id or facts\(\)/history\(include_expired=True\)",
        "ids are printed by add and by history SUBJECT --include-expired --json",
    ),
    (
        r"allow them with graphmem\.open\(admission=AdmissionPolicy\(rate_limits=\{[^}]*\}\)\)",
        "write them with graphmem add-many (bulk writes have no rate limit)",
    ),
    (
        r"Raise or lift it with graphmem\.open\(admission=AdmissionPolicy\(rate_limits="
        r"\{[^}]*\}\)\) \(None = unlimited\), or use add_facts for bulk imports",
        "Wait until then, or write in bulk with graphmem add-many (no rate limit)",
    ),
    (
        r"pass the text, or leave text out \(None\) and pass mentions",
        "pass it as TEXT or on standard input",
    ),
    (r"or pass it to remember\(text\)", "or pass it to graphmem remember TEXT"),
    (r"graphmem\.open\([^)]*\)", "graphmem --db PATH"),
)


def cli_message(message: str, command: click.Command | None = None) -> str:
    """Rewrite a library error message for the CLI: hints in CLI terms, option names as flags.

    ``valid_from='x' is not a date`` becomes ``--valid-from 'x' is not a date`` when the
    command has that option (arguments keep their names: ``subject=' '`` stays).

    >>> cli_message("clock reads X; fix the clock passed to graphmem.open(clock=...)")
    'clock reads X; check the system clock'
    """
    for pattern, replacement in CLI_HINTS:
        message = re.sub(pattern, replacement, message)
    if command is None:
        return message
    flags: dict[str, str] = {}
    for param in command.params:
        if param.name is None or param.name == "as_json":
            continue
        if isinstance(param, click.Option) and param.opts:
            flags[param.name] = max(param.opts, key=len)
    if not flags:
        return message
    names = "|".join(re.escape(n) for n in sorted(flags, key=len, reverse=True))
    return re.sub(rf"(?<![\w.-])({names})=(?=\S)", lambda m: flags[m.group(1)] + " ", message)


def _json_wanted(args: Sequence[str]) -> bool:
    for arg in args:
        if arg == "--":
            return False
        if arg == "--json":
            return True
    return False


def _set_db(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        settings = ctx.find_object(Settings)
        if settings is not None:
            ctx.obj = dataclasses.replace(settings, db=value)


class GraphmemGroup(click.Group):
    """A click group whose every failure is one line on stderr and exit code 1.

    See docs/concepts/surfaces.md#the-surface-rules.

    With ``--json`` the failure is one JSON object on stderr instead:
    ``{"error": "...", "type": "InvalidInput"}`` (exit code 1 as well).
    """

    #: The module that defines each command not yet imported, by command name: a command's
    #: module is imported the first time the command is looked up (click's lazy group).
    lazy: Mapping[str, str] = MappingProxyType({})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """Return the command ``cmd_name``, importing the one module that defines it."""
        module = self.lazy.get(cmd_name)
        if module is not None and cmd_name not in self.commands:
            import importlib

            importlib.import_module(module)  # registers its commands through @cli.command
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        """Every command name, loaded or not (``--help`` then looks each one up)."""
        return sorted({*self.commands, *self.lazy})

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        """Register a command: full one-line summary, and ``--db`` after the subcommand too."""
        if cmd.short_help is None and cmd.help:
            cmd.short_help = " ".join(cmd.help.split("\n\n")[0].split())
        if not any(p.name == "db_after" for p in cmd.params):
            cmd.params.append(
                click.Option(
                    ["--db", "db_after"],
                    metavar="PATH",
                    expose_value=False,
                    callback=_set_db,
                    help="Database file (the same as graphmem --db PATH).",
                )
            )
        super().add_command(cmd, name)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Run the CLI; usage errors and graphmem errors print one line and exit 1."""
        if kwargs.get("standalone_mode", True) is False:
            return super().main(*args, **kwargs)
        kwargs["standalone_mode"] = False
        argv = kwargs.get("args", args[0] if args else None)
        as_json = _json_wanted(sys.argv[1:] if argv is None else list(argv))
        try:
            code = super().main(*args, **kwargs)
        except click.exceptions.Abort:
            _fail("aborted", "Abort", as_json=as_json)
        except click.ClickException as exc:
            hint = ""
            if isinstance(exc, click.UsageError) and exc.ctx is not None:
                hint = f" (see: {exc.ctx.command_path} --help)"
            if isinstance(exc, CommandError):
                _fail(exc.format_message(), exc.kind, as_json=as_json, **exc.details)
            kind = "Error" if type(exc) is click.ClickException else type(exc).__name__
            _fail(exc.format_message() + hint, kind, as_json=as_json)
        except BrokenPipeError:  # pragma: no cover - e.g. `graphmem facts | head`
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)

    def invoke(self, ctx: click.Context) -> Any:
        """Invoke the subcommand; map GraphmemError to a one-line error in CLI terms."""
        try:
            return super().invoke(ctx)
        except GraphmemError as exc:
            one_line = " ".join(str(exc).splitlines())  # engine messages can span lines
            name = ctx.invoked_subcommand
            command = self.get_command(ctx, name) if name else None
            raise CommandError(cli_message(one_line, command), kind=type(exc).__name__) from None


def _fail(message: str, kind: str, *, as_json: bool, **details: Any) -> None:
    """Print the error (one line, or one JSON object with ``--json``) on stderr; exit 1."""
    if as_json:
        click.echo(json.dumps({"error": message, "type": kind, **details}), err=True)
    elif kind in ("Error", "Abort") or kind.endswith(("UsageError", "Parameter", "Option")):
        click.echo(f"Error: {message}", err=True)
    else:
        click.echo(f"Error: {kind}: {message}", err=True)
    sys.exit(1)


def db_path(settings: Settings) -> str:
    """Return the database path of this invocation (``--db``, ``GRAPHMEM_DB`` or the default)."""
    return os.path.expanduser(settings.db or DEFAULT_DB)


@contextmanager
def open_memory(ctx: click.Context, *, read_only: bool | None = None) -> Iterator[Any]:
    """Open the memory named by the global options (kuzu imported only here)."""
    settings: Settings = ctx.find_object(Settings)  # type: ignore[assignment]
    ro = settings.read_only if read_only is None else (read_only or settings.read_only)
    path = db_path(settings)
    from graphmem.store import is_url

    url = is_url(path)  # a server store: no file to find or to borrow
    exists = url or os.path.exists(path)
    if ro and not exists:
        raise CommandError(
            f"no database at {path!r}; write something first or pass --db", kind="NotFound"
        )
    with open_path(
        path,
        engine=settings.engine,
        read_only=ro,
        ontology=settings.ontology,
        borrow=exists,
        scope=settings.scope,
    ) as mem:
        yield mem


@contextmanager
def open_path(
    path: str,
    *,
    engine: str,
    read_only: bool,
    ontology: str | None = "default",
    borrow: bool = True,
    scope: str | None = None,
) -> Iterator[Any]:
    """Open the memory at ``path`` (a path or URL), borrowing it from a running server.

    A running ``graphmem mcp`` lends its database between tool calls (docs/concurrency.md);
    while on loan, other borrowers (a second terminal) may hold it a moment: retried.
    """
    from graphmem.errors import StoreBusy
    from graphmem.memory import Memory
    from graphmem.store import is_url
    from graphmem.store.locks import LEND_TIMEOUT
    from graphmem.store.locks import borrow as borrowing

    with contextlib.ExitStack() as stack:
        lender = (
            stack.enter_context(borrowing(path))
            if borrow and not is_url(path) and os.path.exists(path)
            else None
        )
        deadline = time.monotonic() + LEND_TIMEOUT
        delay = 0.01
        while True:
            try:
                mem = Memory(
                    path, engine=engine, read_only=read_only, ontology=ontology, scope=scope
                )
                break
            except StoreBusy:
                if lender is None or time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.5)
        with mem:
            yield mem


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")
#: ``--learned-at DATE``: record the write as learned then (a backfill, in date order;
#: docs/concepts/time.md#backfilling-history).
learned_at_option = click.option(
    "--learned-at",
    metavar="DATE",
    help="Record it as learned then, not now (backfill old inputs oldest first).",
)


def _default(value: Any) -> Any:
    if hasattr(value, "model_dump"):  # a pydantic model (pydantic is not imported for this)
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


def fact_table(
    facts: Sequence[Fact],
    *,
    title: str | None = None,
    audit: bool = False,
    changed: Callable[[Fact], str] | None = None,
) -> None:
    """Print facts as a table (valid interval, and system interval with ``audit``).

    Times are dates at midnight UTC, else UTC to the second; ``changed`` adds a last column
    (``believed`` uses it to say what became of each belief since).
    """
    from graphmem.cli.tables import Table
    from graphmem.display import clip

    fmt = fmt_when
    table = Table(title=title)
    scoped = any(f.scope for f in facts)  # several scopes shown: say whose (scopes.md)
    for col in ("subject", "predicate", "object", "valid", *(("known", "reason") if audit else ())):
        table.add_column(col)
    if scoped:
        table.add_column("scope")
    if changed is not None:
        table.add_column("since then")
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
        if scoped:
            cells.append(f.scope or "/")
        if changed is not None:
            cells.append(changed(f))
        table.add_row(*(clip(c) for c in cells))
    print_table(table, piped_width=None)
    if not facts:
        click.echo("(no facts)")


def print_table(table: Table, *, piped_width: int | None = 160) -> None:
    """Print a table at the terminal's width (docs/concepts/surfaces.md#tables).

    On a terminal the table fits its width; piped or captured, ``piped_width`` columns
    (``None``: ``$COLUMNS``, else 80). A cell wraps between words: a word too long for its
    column ends in ``…`` instead of being broken across lines. Callers cut long texts with
    :func:`graphmem.display.clip` (:data:`~graphmem.display.CELL_CHARS` characters).
    """
    from graphmem.cli.tables import output_width

    click.echo("\n".join(table.render(output_width(piped_width))))


def fmt_when(value: dt.datetime | None) -> str:
    """Format an instant for a table: a date at midnight UTC, else minutes or seconds (UTC).

    >>> fmt_when(dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc))
    '2026-06-01'
    >>> fmt_when(dt.datetime(2026, 6, 1, 9, 30, 5, 123456, tzinfo=dt.timezone.utc))
    '2026-06-01 09:30:05'
    """
    if value is None:
        return "…"
    v = value.astimezone(dt.timezone.utc)
    if (v.hour, v.minute, v.second, v.microsecond) == (0, 0, 0, 0):
        return v.date().isoformat()
    return v.strftime(
        "%Y-%m-%d %H:%M" if (v.second, v.microsecond) == (0, 0) else "%Y-%m-%d %H:%M:%S"
    )


class Progress:
    """A progress bar on stderr that moves between the updates of long, indivisible steps.

    Each step (one transaction of ``add-many``, the restore of ``import``) reports only when it
    ends. While one runs, the bar advances at the rate measured over the steps done so far
    (``rate`` rows per second before the first one ends), and stops short of the step's end
    until the step really has ended: smooth, and never ahead of what is written.
    """

    def __init__(self, length: int, *, label: str, rate: float = 5000.0) -> None:
        self.length = length
        self.label = label
        self.rate = rate
        self._done = 0
        self._target = 0
        self._step_started = time.monotonic()
        self._started = self._step_started
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._bar: Any = None
        self._shown = 0
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Progress:
        self._bar = click.progressbar(length=max(self.length, 1), label=self.label, file=sys.stderr)
        self._bar.__enter__()
        self._thread = threading.Thread(target=self._tick, daemon=True, name="gm-progress")
        self._thread.start()
        return self

    def step(self, size: int) -> None:
        """Announce a step of ``size`` rows that starts now."""
        with self._lock:
            self._target = min(self._done + size, self.length)
            self._step_started = time.monotonic()

    def done(self, size: int) -> None:
        """Record that the current step's ``size`` rows are written."""
        with self._lock:
            self._done = min(self._done + size, self.length)
            elapsed = time.monotonic() - self._started
            if self._done and elapsed > 0:
                self.rate = self._done / elapsed
        self._show()

    def _tick(self) -> None:
        while not self._stop.wait(0.1):
            self._show()

    def _show(self) -> None:
        with self._lock:
            guess = self._done + int(self.rate * (time.monotonic() - self._step_started))
            shown = max(self._done, min(guess, self._target - 1))
            delta, self._shown = shown - self._shown, max(self._shown, shown)
            if delta > 0 and self._bar is not None:
                self._bar.update(delta)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._bar.__exit__(*exc)
