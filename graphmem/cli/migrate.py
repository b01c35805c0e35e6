"""``graphmem migrate --from SRC --to DST``: copy a whole memory between stores.

SRC and DST are database paths (the embedded engines) or server URLs (``falkordb://...``), in
either direction. The copy is the lossless export/import (:func:`graphmem.export.to_records`
then :func:`graphmem.export.from_records`, both through the store protocol): every version
with both time axes, chains and reasons, entities with aliases, predicates, sessions with
their mentions, audit records and metadata. The target must be empty; it is written with one
change set (all or nothing). ``--dry-run`` reads the source and checks the target, writing
nothing.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

import click

from graphmem.cli import cli
from graphmem.cli.common import CommandError, Settings, echo_json, json_option, open_path
from graphmem.errors import StoreError

__all__ = ["migrate_cmd"]


def _is_url(target: str) -> bool:
    from graphmem.store import is_url

    return is_url(target)


def _where(target: str) -> str:
    """How the summary names a store (a URL without its password)."""
    if _is_url(target):
        from graphmem.store.falkordb.connection import redact

        return redact(target)
    return os.path.abspath(os.path.expanduser(target))


def _open(target: str, settings: Settings, *, read_only: bool) -> Any:
    """Open a store; a database that ``graphmem mcp`` serves is borrowed from it."""
    path = target if _is_url(target) else os.path.expanduser(target)
    return open_path(path, engine=settings.engine, read_only=read_only, ontology=None)


def _counts(target: str, settings: Settings) -> dict[str, int]:
    """What a store holds (entities, facts, sessions, audit), read through a read-only open."""
    from graphmem.store import open_store
    from graphmem.store.locks import borrow

    path = target if _is_url(target) else os.path.expanduser(target)
    with borrow(path) if not _is_url(path) else contextlib.nullcontext():
        store = open_store(path, engine=settings.engine, read_only=True)
        try:
            counts: dict[str, int] = store.content_counts()
            return counts
        finally:
            store.close()


@cli.command("migrate")
@click.option("--from", "src", required=True, metavar="SRC", help="Source: a path or a URL.")
@click.option("--to", "dst", required=True, metavar="DST", help="Target (empty): a path or URL.")
@click.option("--dry-run", is_flag=True, help="Read the source and check the target only.")
@json_option
@click.pass_context
def migrate_cmd(ctx: click.Context, src: str, dst: str, dry_run: bool, as_json: bool) -> None:
    """Copy every version, entity, session, predicate and audit record from SRC to DST.

    SRC and DST are database paths or server URLs (falkordb://[password@]host:port/graph),
    in either direction; DST must be empty. The global --db is not used.
    """
    from graphmem.export import from_records, to_records

    settings: Settings = ctx.find_object(Settings)  # type: ignore[assignment]
    if not _is_url(src) and not os.path.exists(os.path.expanduser(src)):
        raise CommandError(
            f"no database at {src!r}; pass an existing path or a URL", kind="NotFound"
        )
    if _where(src) == _where(dst):
        raise CommandError(
            f"--from and --to name the same store ({_where(src)}); pick another target"
        )
    with _open(src, settings, read_only=True) as source:
        records = list(to_records(source))
        header = records[0] if records else {}
        counts = dict(header.get("counts") or {})
    summary: dict[str, Any] = {"from": _where(src), "to": _where(dst), **counts}
    target_exists = _is_url(dst) or os.path.exists(os.path.expanduser(dst))
    if dry_run:
        held: dict[str, int] = {}
        if target_exists:
            try:
                held = {k: v for k, v in _counts(dst, settings).items() if v}
            except StoreError as exc:  # a URL whose graph does not exist yet: empty
                if "does not exist" not in str(exc):
                    raise
        summary.update(dry_run=True, target_empty=not held)
        if as_json:
            echo_json(summary)
            return
        what = ", ".join(f"{n:,} {k}" for k, n in counts.items())
        state = (
            "empty"
            if not held
            else "NOT empty (" + ", ".join(f"{n:,} {k}" for k, n in held.items()) + ")"
        )
        click.echo(f"would copy {what} from {summary['from']} to {summary['to']} (target {state})")
        if held:
            raise CommandError(
                f"the target {summary['to']} is not empty; migrate into an empty store"
            )
        return
    with _open(dst, settings, read_only=False) as target:
        report = from_records(target, records)
    copied = _counts(dst, settings)
    expected = {k: counts.get(k) for k in ("entities", "facts", "sessions", "audit")}
    if {k: copied.get(k) for k in expected} != expected:
        raise CommandError(
            f"the copy in {summary['to']} holds {copied}, the source {expected}; run "
            "'graphmem check' on both"
        )
    if as_json:
        echo_json(
            {
                **summary,
                "last_write": None if report.last_write is None else report.last_write.isoformat(),
            }
        )
    else:
        what = report.summary().rsplit(" (", 1)[0]
        click.echo(f"migrated {what} from {summary['from']} to {summary['to']}")
