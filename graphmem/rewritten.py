"""Lines written again with another value: a field, a diff's removed line, a log line.

The marks of docs/concepts/recall.md#restated that need no word of change: a field given
another value (:func:`~graphmem.restated.field_said_again`), a diff pasted in a session says
which line it replaced (:func:`diff_lines`), and a log, a report or a form states its lines
again, word for word but for one value (:func:`template_moved`). Marks on what is shown,
never writes.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

from graphmem.normalize import term_set, terms
from graphmem.restated import Item, diff_pairs, field_said_again

__all__ = ["diff_lines", "template_moved", "written_again"]


def written_again(
    items: Sequence[Item],
    *,
    valid_at: dt.datetime,
    query: str,
    skip: frozenset[str] = frozenset(),
) -> dict[str, tuple[str, dt.datetime | None]]:
    """Each item's mark of this module: ``{id: (mark, when, or None for the line itself)}``.

    Fields said again (:func:`~graphmem.restated.field_said_again`), then :func:`diff_lines`
    and :func:`template_moved` for the items not marked before.
    """
    out: dict[str, tuple[str, dt.datetime | None]] = {}
    out |= field_said_again(items, valid_at=valid_at, query=query, skip=skip)
    out |= diff_lines(items, skip=skip | frozenset(out))
    out |= template_moved(items, valid_at=valid_at, query=query, skip=skip | frozenset(out))
    return out


#: A unified diff's header line: "@@ -2,10 +2,10 @@", "diff --git a/Makefile b/Makefile".
_HUNK = re.compile(r"@@ -\d|diff --git |\+\+\+ [ab]/")
#: Two lines of code or config, not prose: no sentence's end, at most eight words each.
_CODE = re.compile(r"- (?:\S*[^\s.!?]\s?){1,8}\+ (?:\S*[^\s.!?]\s?){1,8}")


def diff_lines(
    items: Sequence[Item], *, skip: frozenset[str] = frozenset()
) -> dict[str, tuple[str, dt.datetime | None]]:
    """A diff's removed lines in a session, and earlier lines that said them.

    "- reverse_proxy localhost:8080" followed by "+ reverse_proxy api-v2.internal:9000" in one
    session (:func:`diff_pairs` of the two, or any two short lines of code in a session that
    shows a hunk's header, "@@ -2,10 +2,10 @@"): the removed line reads ``(reverse_proxy
    localhost:8080 replaced: reverse_proxy api-v2.internal:9000)``, and a line said before it
    that holds the removed part (the Caddyfile pasted in March) reads the same ``per`` the
    diff's date (docs/concepts/recall.md#field-said-again). Items are lines whose ``order``
    is ``(said, session, number)``. Returns ``{id: (mark, when, or None for the line itself)}``.
    """
    at = {(i.order[1], i.order[2]): i for i in items if len(i.order) == 3}
    # sessions that show a hunk's header: their "-" and "+" lines are a diff's, whatever
    # their first words
    hunks = {i.order[1] for i in items if len(i.order) == 3 and _HUNK.match(i.text)}
    out: dict[str, tuple[str, dt.datetime | None]] = {}
    removed: list[tuple[str, str, Item]] = []
    for i in items:
        if len(i.order) != 3 or not i.text.startswith("- ") or i.id in skip:
            continue
        after = at.get((i.order[1], f"{int(i.order[2]) + 1:09d}"))
        if after is None or not after.text.startswith("+ "):
            continue
        pairs = diff_pairs(f"{i.text} {after.text}")[:1]
        if not pairs and i.order[1] in hunks and _CODE.fullmatch(f"{i.text} {after.text}"):
            pairs = [(i.text[2:], after.text[2:])]  # "-\tflake8 src" "+\truff check src"
        for old, new in pairs:
            out[i.id] = (f"{old} replaced: {new}", None)
            removed.append((old, new, i))
    for old, new, d in removed:
        gone = " ".join(old.casefold().split())
        for i in items:
            if (
                i.id not in out
                and i.id not in skip
                and (i.when, i.order) < (d.when, d.order)
                and (len(i.order) < 2 or i.order[1] != d.order[1])
                and gone in " ".join(i.text.casefold().split())
            ):
                out[i.id] = (f"{old} replaced: {new}", d.when)
    return out


#: A log line's source before its message: "restic-backup.sh[9120]: ", "Jonas W.: ".
_SOURCE = re.compile(r"^.*?\S(?:\]|\))?:\s+(?=\S)")
#: A token that can be a value: a figure, an identifier's character, a capital inside.
_VALUE_LIKE = re.compile(r"[\d:/._@#-]|^[A-Z]")


def _message(text: str) -> list[str]:
    return (_SOURCE.sub("", text, count=1) if ": " in text else text).split()


#: A log source's process id, "restic-backup.sh[9120]:".
_STAMP = re.compile(r"\[\d+\]:?$")
#: A line's leading time stamp, "02:30:01", "[09:14]".
_CLOCK = re.compile(r"\[?\d{1,2}:\d{2}")
_EDGES = ",;:()[]\"'`"


def _bare(word: str) -> str:
    return word.strip(_EDGES).casefold()


def _one_value(mine: list[str], theirs: list[str]) -> tuple[str, str] | None:
    """The one word two lines of the same words give otherwise, if it looks like a value."""
    if len(mine) != len(theirs) or len(mine) < 3:
        return None
    pairs = enumerate(zip(mine, theirs, strict=True))
    diff = [j for j, (a, b) in pairs if _bare(a) != _bare(b)]
    if len(diff) != 1 or _STAMP.search(mine[diff[0]]) or (diff[0] == 0 and _CLOCK.match(mine[0])):
        return None  # a log's process id or its time stamp: the same line said again
    old, new = (w.strip(_EDGES) for w in (mine[diff[0]], theirs[diff[0]]))
    return (old, new) if _VALUE_LIKE.search(old) and _VALUE_LIKE.search(new) else None


def template_moved(
    items: Sequence[Item],
    *,
    valid_at: dt.datetime,
    query: str,
    skip: frozenset[str] = frozenset(),
) -> dict[str, tuple[str, dt.datetime]]:
    """Items a later item writes again word for word but for one value.

    "restic-backup.sh[9120]: using repository s3:.../orchard-backups-prod" in March's journal
    and "restic-backup.sh[44120]: using repository b2:orchard-restic:/prod" in May's: a log,
    a report or a form states its lines again, with no word of change
    (docs/concepts/recall.md#restated). The lines, or their messages after a log's source,
    have the same words but for one, at least three words, and the one that differs looks like
    a value on both sides (a figure, an identifier, a name: "=== worker (Standard-1X): ..."
    and "=== worker (Performance-M): ..."); the line shares a word with the question.
    Returns ``{id: ("<old> possibly superseded: <new>", when the later item was said)}``.
    """
    query_words = frozenset(terms(query))
    if not query_words:
        return {}
    # the whole line, or its message after a log's source ("=== worker (Standard-1X): ...")
    words = {i.id: i.text.split() for i in items}
    said = {i.id: _message(i.text) for i in items}
    ordered = sorted(
        (i for i in items if i.when <= valid_at and 3 <= len(words[i.id]) <= 20),
        key=lambda i: (i.when, i.order, i.id),
    )
    out: dict[str, tuple[str, dt.datetime]] = {}
    for k, c in enumerate(ordered):
        mine = words[c.id]
        if c.id in skip or not term_set(c.text) & query_words:
            continue
        for n in ordered[k + 1 :]:
            if n.when <= c.when:
                continue
            moved = _one_value(mine, words[n.id]) or _one_value(said[c.id], said[n.id])
            if moved:
                out[c.id] = (f"{moved[0]} possibly superseded: {moved[1]}", n.when)
                break
    return out
