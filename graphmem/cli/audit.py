"""CLI verbs of free-text memory, the audit trail and the ontology.

``remember``, ``why``, ``changes``, ``purge``, ``merge-entities``, ``predicates``,
``define-predicate``.
"""

from __future__ import annotations

import sys

import click

from graphmem.cli import cli
from graphmem.cli.common import echo_json, json_option, learned_at_option, open_memory


@cli.command()
@click.argument("text")
@click.option("--subject", help="Whom or what it is about (default: the unnamed scope 'self').")
@click.option(
    "--at",
    "--valid-from",
    "at",
    help="When it became true (date, ISO datetime with offset, today; default now).",
)
@click.option(
    "--kind",
    default="insight",
    show_default=True,
    type=click.Choice(["fact", "event", "insight", "directive", "identity"]),
)
@click.option("--source", help="Session/episode id.")
@click.option("--source-ref", help="Caller identity key: a later memory with it replaces this one.")
@click.option("--importance", type=float, help="0-10, clamped into the kind's band.")
@click.option(
    "--source-type",
    type=click.Choice(["user", "agent", "tool", "system", "import"]),
    help="Who says it ('user' adds +1 importance).",
)
@learned_at_option
@json_option
@click.pass_context
def remember(
    ctx: click.Context,
    text: str,
    subject: str | None,
    at: str | None,
    kind: str,
    source: str | None,
    source_ref: str | None,
    importance: float | None,
    source_type: str | None,
    learned_at: str | None,
    as_json: bool,
) -> None:
    """Remember TEXT ('-': standard input): its claims become facts, else it is a note.

    "We migrated the API to Go" closes what the API ran on; "no longer ..." ends a fact. Text
    without a claim is a note, compared with the subject's current notes (add, reinforce,
    supersede or, for a negation, invalidate). Prints every write.
    """
    if text == "-":
        text = sys.stdin.read()
    with open_memory(ctx) as mem:
        result = mem.remember(
            text,
            subject=subject,
            at=at,
            kind=kind,
            source=source,
            source_ref=source_ref,
            importance=importance,
            source_type=source_type,
            learned_at=learned_at,
        )
    if as_json:
        echo_json(result)
        return
    for r in result.results or (result,):
        line = f"{r.decision.value}"
        if r.fact is not None:
            f = r.fact
            what = "note" if f.predicate == "note" else f"{f.predicate} {f.object}"
            line += f": {f.subject} {what} (id {f.id})"
        click.echo(line)
        for f in r.superseded:
            click.echo(f"  closed {f.id}: {f.reason}")


@cli.command()
@click.argument("fact_id")
@json_option
@click.pass_context
def why(ctx: click.Context, fact_id: str, as_json: bool) -> None:
    """Explain a fact version FACT_ID: its chain of versions and the sessions behind it."""
    with open_memory(ctx, read_only=True) as mem:
        explanation = mem.why(fact_id)
    if as_json:
        echo_json(explanation)
    else:
        click.echo(explanation.describe())


@cli.command()
@click.option("--since", required=True, help="Start of the system-time window (inclusive).")
@click.option("--until", help="End of the window (exclusive; default: no end).")
@json_option
@click.pass_context
def changes(ctx: click.Context, since: str, until: str | None, as_json: bool) -> None:
    """List what was learned, superseded, corrected, retracted, merged or purged in a window."""
    with open_memory(ctx, read_only=True) as mem:
        rows = mem.changes(since=since, until=until)
    if as_json:
        echo_json(rows)
        return
    for change in rows:
        click.echo(str(change))
    if not rows:
        click.echo("(no changes)")


@cli.command()
@click.argument("subject")
@click.option("--reason", required=True, help="Why it is erased (kept; no personal data).")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@json_option
@click.pass_context
def purge(ctx: click.Context, subject: str, reason: str, yes: bool, as_json: bool) -> None:
    """Erase SUBJECT and every fact about it for good (privacy); leaves an audit record."""
    if not yes:
        click.confirm(f"Permanently erase {subject!r} and every fact version about it?", abort=True)
    with open_memory(ctx) as mem:
        summary = mem.purge(subject, reason=reason)
    if as_json:
        echo_json(summary)
        return
    click.echo(
        f"purged {summary.versions} version(s), {summary.entities} entity node(s), "
        f"{summary.mentions} mention(s); redacted {summary.sessions_redacted} session(s); "
        f"audit record {summary.audit_id}"
    )


@cli.command("merge-entities")
@click.argument("keep")
@click.argument("other")
@json_option
@click.pass_context
def merge_entities(ctx: click.Context, keep: str, other: str, as_json: bool) -> None:
    """Merge entity OTHER into KEEP: its current facts move to KEEP, its name becomes an alias.

    The old versions are closed ("merged into KEEP"), never edited, so what was believed before
    stays answerable. Two values of a single-valued predicate: the later start stays current,
    the other ends there; two from the same start are refused (retract one first).
    """
    with open_memory(ctx) as mem:
        result = mem.merge_entities(keep, other)
    if as_json:
        echo_json(result)
    else:
        click.echo(str(result))


@cli.command()
@json_option
@click.pass_context
def predicates(ctx: click.Context, as_json: bool) -> None:
    """List the ontology: predicates with cardinality and aliases."""
    with open_memory(ctx, read_only=True) as mem:
        rows = mem.predicates()
    if as_json:
        echo_json(rows)
        return
    for p in rows:
        aliases = f"  (aliases: {', '.join(p.aliases)})" if p.aliases else ""
        click.echo(f"{p.name} [{p.cardinality}]{aliases}")


@cli.command("define-predicate")
@click.argument("name")
@click.option(
    "--many/--one",
    "many",
    default=None,
    help="Multi-valued or single-valued (default: keep the current; a new one is single-valued).",
)
@click.option("--alias", "aliases", multiple=True, help="Another spelling (repeatable).")
@click.option("--inverse", help="Name of the inverse predicate.")
@click.option(
    "--symmetric/--not-symmetric", default=None, help="Whether a p b implies b p a (default: keep)."
)
@click.option("--description", default=None, help="Free text for humans (default: keep).")
@click.option(
    "--force", is_flag=True, help="Change the cardinality of a predicate that has stored facts."
)
@json_option
@click.pass_context
def define_predicate(
    ctx: click.Context,
    name: str,
    many: bool | None,
    aliases: tuple[str, ...],
    inverse: str | None,
    symmetric: bool | None,
    description: str | None,
    force: bool,
    as_json: bool,
) -> None:
    """Define or redefine predicate NAME: cardinality and aliases.

    NAME may be an alias of another predicate: it becomes a predicate of its own (the alias
    moves, and the change is recorded; see `changes`). Aliases add to the ones it has.
    """
    with open_memory(ctx) as mem:
        pred = mem.define_predicate(
            name,
            cardinality=None if many is None else ("many" if many else "one"),
            aliases=aliases,
            inverse=inverse,
            symmetric=symmetric,
            description=description,
            force=force,
        )
    if as_json:
        echo_json(pred)
    else:
        click.echo(f"defined {pred.name} [{pred.cardinality}]")
