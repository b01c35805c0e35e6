"""Agent context: the facts and session lines relevant to a query, as one text block.

See docs/concepts/recall.md#rule-3.

:func:`context` returns a :class:`~graphmem.episodic.Context` (a ``str`` with ``.text`` and
``.items``); :func:`search` returns the same candidates as scored
:class:`~graphmem.episodic.SearchItem` rows. Facts are this module's; session lines (the
episodic layer: what was said, dated) are :mod:`graphmem.episodic`'s. :func:`context` runs
named stages (docs/concepts/recall.md#the-stages): :func:`gather` (which ranks) reads the
store, then :func:`graphmem.context_pack.pack` and :func:`graphmem.context_pack.render` work
on plain values.

>>> import graphmem as gm
>>> from graphmem.timeutil import ManualClock
>>> clock = ManualClock("2026-06-10")
>>> with gm.open(clock=clock) as mem:
...     _ = mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
...     _ = mem.add_fact("api", "runs_on", "Go", valid_from="2026-06-01")
...     _ = mem.add_fact("api", "deploys_with", "Docker", valid_from="2024-01-01")
...     print(mem.context("What does the api run on?"))
Memory relevant to "What does the api run on?" (2 facts):
- api runs_on Go (since 2026-06-01; was Laravel)
- api deploys_with Docker (since 2024-01-01)

How candidates are found (:mod:`graphmem.store.kuzu.search` holds the queries)
    1. *Entity match*: every 1- to 6-word span of the query is normalised like an entity name
       (and resolved through aliases) and looked up by primary key, spans of 2-3 words also
       hyphenated ("checkout service": ``checkout-service``); hits are the **anchors**.
       The words "we", "our", "us", "I", "me", "my" and "the user" anchor the memory's owner
       (``Memory.owner``, ``self`` by default: the subject the text pipeline gives "we deploy
       with ..." claims).
    2. *Neighbourhood*: the facts whose subject or object is an anchor (1 hop). An anchor's
       whole timeline as known at ``known_at`` is read, so replaced values are at hand.
    3. *Full text*: the query's keywords (minus the words of the anchors that have a current
       fact: "Translations", whose only fact was closed, leaves its word in, so the note "the
       in-house team handles translations" is found) against the FTS index
       on entity names, which also holds every free-text note (a note's object entity is its
       text); the facts around the best 6 hits (3 when such an anchor matched) join the
       candidates (for a hit named by more than 4 words — a text — only the facts pointing
       at it). Statements are matched in Python over the candidates. The index is built on
       first use (about 1 s per 100k entities); without it (ladybug offline, read-only memory
       without an index) a scan of entity names stands in, see :mod:`graphmem.store.kuzu.search`.
    4. *Bridges*: when the query holds words that none of the anchors' facts holds ("In which
       city is Bob's employer headquartered?"), the things at the other end of the 3 best
       anchored facts (Globex, of ``Bob works_at Globex``) are read like anchors, at most 3
       of them, one hop and no further; their facts join with relevance 0.6
       (docs/concepts/recall.md#bridges).
    Bounds, so hubs cost one bounded query: 2000 versions per subject timeline, 50 facts per
    entity as the object.
    Only versions with ``recorded_at <= known_at < expired_at`` and
    ``valid_from <= valid_at < valid_to`` are served — the rule of ``facts()``: a closed version
    never appears as current. Both default to now.

How they are ranked
    ``score = 0.60 * relevance + 0.25 * importance + 0.15 * recency``, ties by subject,
    predicate, object, ``valid_from`` and id (deterministic).
    - relevance: 1.0 when the subject is an anchor, 0.85 when the object is, 0.6 for a
      bridge's facts; for full-text hits
      0.6 (subject) or 0.7 (object, e.g. a note's text) times the hit's BM25 score relative to
      the best hit; plus ``0.5 * overlap``, the share of the query's keywords (lower-cased,
      lightly stemmed) found in the fact's subject, predicate, object and statement; plus
      ``0.3 * predicate``, the share of the predicate's own words found in the query (deploy ~
      ``deploys_with``, run ~ ``runs_on``, "embeddings provider" ~ ``embeddings_provider``),
      so among an anchor's facts the one the question is about comes first.
    - importance: :func:`graphmem.decay.effective_importance` of the fact's importance, kind,
      access count and pinned flag, divided by 10 and capped at 1. **Age**: an ``event`` ages
      from ``valid_from`` (when it happened) to ``valid_at``; every other kind ages from
      ``recorded_at`` (when graphmem learned this version) to ``known_at`` — a fact true since
      2015 but learned yesterday is fresh knowledge, a backfilled event from 2015 is old news.
    - recency: ``exp(-days / 365)`` where days run from ``valid_from`` to ``valid_at``.

Session lines
    The lines found by :func:`graphmem.episodic.line_candidates` (BM25 with the anchors' names
    and aliases, the source lines of the best on-topic facts and the turns around the best
    hits, fused by rank; a line's score is relative to the best line's, in ``(0, 1]``) render
    as ``- [8 May 2023] Speaker: text``; a line stating a value since superseded ends with
    ``(superseded D: predicate object)``. Lines that say the same thing fold into the best
    of them, which notes how often and when it was said (docs/concepts/recall.md#echo-folding);
    a fact whose statement a shown line of its session holds is dropped as a duplicate
    (unless it notes what it replaced). Consecutive lines of a session merge into one passage.

Rendering and budget
    One line per fact: ``- subject predicate object (since D[, until D][; was X])``, a
    ``[kind]`` tag for kinds other than ``fact`` and ``[pinned]`` for pinned facts; a free-text
    note renders as ``- subject note: text``. ``was X`` names the value a single-valued fact
    replaced: a version of the same subject and predicate, known at ``known_at``, with another
    object and a ``valid_to`` equal to this fact's ``valid_from`` (free for anchored subjects,
    whose timeline is read anyway; one query per other subject, at most 1 per call). Objects
    longer than 160 characters are cut with ``…``.
    Tokens are estimated as ``ceil(characters / 4)`` (:func:`estimate_tokens`, the usual ~4
    characters per token of English with GPT/Claude tokenizers; it undercounts scripts such as
    CJK, where a character is closer to a token); the whole block, header and
    footer included, stays within ``budget_tokens * 4`` characters. The header counts what is
    shown: ``(2 facts, 3 session lines)``, ``(2 of 9 facts, ...)``. Everything is shown when it
    fits; otherwise the *on-topic* facts (holding a word of the query besides the names it
    anchors on; every fact when the query is only names) are taken best first up to
    :data:`FACT_SHARE` (40 %) of the room (not those a line candidate already says), then
    session lines best first, then the other
    facts, then the lines right after and before the lines shown (context, score 0); whatever
    does not fit is skipped and a footer counts what was left out. Facts come first in the
    block, then the passages, best first.

Side effect
    The facts rendered get ``access_count + 1`` and ``last_accessed_at = now`` in one
    transaction (bookkeeping, docs/concepts/time.md#rule-2: no interval changes, so no
    ``facts(valid_at, known_at)`` answer changes which versions it returns). Nothing is written on a
    read-only
    memory. As the access count feeds the decay boost, a later call may rank close facts
    differently: the output is a function of the store's state and the arguments (and the
    clock, when ``valid_at``/``known_at`` default to now).
"""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from graphmem.context_facts import _Candidate, _gather_facts
from graphmem.context_facts import _spans as _spans  # re-exported: tests check the spans
from graphmem.context_pack import FACT_SHARE, Frame, Gathered, pack, render
from graphmem.context_render import (
    _clip,
    _covered,
    _dedupe,
    _fact_item,
    _fit,
    _fmt_day,
    _grounds,
    _line_item,
    excerpt,
)
from graphmem.episodic import (
    SAID_AGAIN,
    Context,
    LineCandidate,
    SearchItem,
    Semantic,
    line_candidates,
    mark_neighbours,
)
from graphmem.errors import GraphmemError, InvalidInput
from graphmem.kernel import kernel_of
from graphmem.normalize import terms
from graphmem.restated import Item, diff_pairs, field_said_again, renamed, restated, said_again
from graphmem.said_ended import fact_marks
from graphmem.timeutil import TimeLike, to_utc
from graphmem.trust import dispute_notes

if TYPE_CHECKING:
    from graphmem.kernel import Kernel, MemoryLike
    from graphmem.store.base import Store
    from graphmem.store.lineindex import LineIndex
    from graphmem.store.records import FactView, LineRow

__all__ = [
    "CHARS_PER_TOKEN",
    "Context",
    "SearchItem",
    "FACT_SHARE",
    "context",
    "estimate_tokens",
    "gather",
    "prepare",
    "search",
]

_log = logging.getLogger(__name__)

#: Characters per token in the budget estimate.
CHARS_PER_TOKEN = 4
#: Session lines considered: at least this many, more for big budgets (budget_tokens / 12).
LINE_HITS = 40


def estimate_tokens(text: str) -> int:
    """Return the token estimate used for budgets: ``ceil(len(text) / 4)``.

    >>> estimate_tokens("12345678"), estimate_tokens("123456789"), estimate_tokens("")
    (2, 3, 0)
    """
    return -(-len(text) // CHARS_PER_TOKEN)


def _check_query(query: object) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput(f"query={query!r} must be non-empty text, e.g. 'where does Alice work?'")
    return query


def prepare(mem: MemoryLike) -> None:
    """Build the entity full-text index and the line index now, not in the first ``context()``.

    The entity index once per database (about 1 s per 100k entities; a no-op where the store
    has no full-text index or it exists); the line index is saved beside an embedded database
    for the next process (:mod:`graphmem.store.linefile`). Servers call it on open.
    """
    kernel = kernel_of(mem)
    if not kernel.store.read_only:
        kernel.store.ensure_entity_index()
        # the line index too, saved beside the database (docs/concepts/recall.md#line-index-file)
        prepare_lines = getattr(kernel.store, "prepare_lines", None)
        if prepare_lines is not None:
            prepare_lines()


def context(
    mem: MemoryLike,
    query: str,
    *,
    budget_tokens: int = 800,
    valid_at: TimeLike | None = None,
    known_at: TimeLike | None = None,
    semantic: Semantic | None = None,
) -> Context:
    """Return the facts and session lines relevant to ``query`` as a text block for a prompt.

    See the module documentation for how facts and lines are found, ranked and rendered.

    Args:
        mem: an open memory.
        query: the agent's question or topic, e.g. ``"what does the api run on?"``.
        budget_tokens: the block never exceeds ``budget_tokens * 4`` characters (~4 characters
            per token).
        valid_at: world time (default now): only facts true then.
        known_at: system time (default now): only what graphmem believed then, and only the
            sessions recorded by then.
        semantic: the optional similarity seam for session lines
            (:data:`graphmem.episodic.Semantic`).

    Returns:
        A :class:`~graphmem.episodic.Context`: a ``str`` (a header line, one line per fact and
        the session lines, best first; a short sentence when nothing matches or the memory is
        empty) whose ``items`` are the facts and lines shown, with ids and scores.
        Deterministic for the same store state and arguments.

    Raises:
        InvalidInput: a blank or non-string query, a budget below 1, or bad times.
    """
    kernel = kernel_of(mem)
    _check_query(query)
    if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int) or budget_tokens < 1:
        raise InvalidInput(f"budget_tokens={budget_tokens!r} must be a positive integer, e.g. 800")
    now = kernel.now()
    v_at = now if valid_at is None else to_utc(valid_at, name="valid_at")
    k_at = now if known_at is None else to_utc(known_at, name="known_at")
    budget_chars = budget_tokens * CHARS_PER_TOKEN
    shown_query = _clip(query.strip(), 80)
    as_of = []
    if valid_at is not None:
        as_of.append(f"valid at {_fmt_day(v_at)}")
    if known_at is not None:
        as_of.append(f"known at {_fmt_day(k_at)}")
    when = f"; {', '.join(as_of)}" if as_of else ""
    store = kernel.store

    def done(lines: Iterable[str], items: Sequence[SearchItem] = ()) -> Context:
        return Context(_fit(lines, budget_chars), items, query)

    with kernel.lock:
        replay = known_at is not None
        g = gather(
            kernel,
            query,
            v_at=v_at,
            k_at=k_at,
            replay=replay,
            line_limit=max(LINE_HITS, budget_tokens // 12),
            semantic=semantic,
        )
        if not g.facts and not g.lines:
            if replay:  # what the store holds now is not what was known at known_at
                return done([f'Nothing in memory matches "{shown_query}"{when}.'])
            has_lines = store.has_lines()
            if not has_lines and not store.has_facts():
                return done(["Memory is empty: no facts stored yet."])
            what = "facts or session lines" if has_lines else "facts"
            return done([f'No {what} in memory match "{shown_query}"{when}.'])
        warm = store.warm_index()
        frame = Frame(shown_query, when, budget_chars)
        near = _near(store, g, warm)
        neighbours = [r for pair in near.values() for r in pair if r is not None]
        # the lines found and their neighbours may restate a fact's value
        shown = {c.line.id: c.line for c in g.lines} | {r.id: r for r in neighbours}
        said = [(r.id, r.text, r.started_at) for r in shown.values()]
        _mark_restated(g.facts, query, k_at, owner=kernel.owner, lines=said)
        beside = mark_neighbours(neighbours, g.lines, valid_at=v_at, query=query)
        packed = pack(g, frame, lambda line: near[line.id], beside)
        out, items = render(g, packed, frame)
        if not replay:  # a reading as of a known_at is not a use of current knowledge
            _bump(kernel, packed.facts, now)
        return done(out, items)


def _near(
    store: Store, g: Gathered, warm: LineIndex | None
) -> dict[str, tuple[LineRow | None, LineRow | None]]:
    """Each candidate line's neighbours (before, after): from the warm index, else one read."""
    if warm is not None:
        return {c.line.id: store.neighbours(c.line, index=warm) for c in g.lines}
    ids = [f"{c.line.session}#{c.line.n + d}" for c in g.lines for d in (-1, 1)]
    found = store.get_lines(ids) if ids else {}
    return {
        c.line.id: (
            found.get(f"{c.line.session}#{c.line.n - 1}"),
            found.get(f"{c.line.session}#{c.line.n + 1}"),
        )
        for c in g.lines
    }


def gather(
    kernel: Kernel,
    query: str,
    *,
    v_at: dt.datetime,
    k_at: dt.datetime,
    replay: bool,
    line_limit: int,
    semantic: Semantic | None = None,
) -> Gathered:
    """The gather and rank stages of :func:`context`: the store's candidates, best first.

    Facts around the query's anchors and full-text hits (scored, with their dispute notes and
    what a later line says ended), the session lines (fused ranks, echoes folded) and which
    facts a line already says (docs/concepts/recall.md#the-stages).
    """
    ranked, _, anchors = _gather_facts(kernel, query, v_at=v_at, k_at=k_at, replay=replay)
    notes = dispute_notes(kernel, [(c.fact.subject_id, c.fact.predicate) for c in ranked], k_at)
    for c in ranked:
        c.disputed = notes.get((c.fact.subject_id, c.fact.predicate), "")
    found = _lines(kernel, query, ranked, anchors, v_at, k_at, line_limit, semantic)
    # what a later line says ended (docs/concepts/recall.md#said-ended)
    lines = [(lc.line.id, lc.line.text, lc.line.started_at) for lc in found]
    # a remembered sentence read into a fact says what ended as a line does ("Cancelled
    # PureGym and joined The Gym Group": a note naming PureGym is marked)
    lines += [
        (f"{c.fact.id}:said", c.fact.statement, c.fact.valid_from)
        for c in ranked
        if c.fact.source is None and c.fact.statement and c.fact.predicate != "note"
    ]
    ended = fact_marks([c.fact for c in ranked], lines, owner=kernel.owner, valid_at=v_at)
    for c in ranked:
        c.said_ended = ended.get(c.fact.id, "")
    words = frozenset(terms(query))
    for c in ranked:
        if c.fact.predicate == "note":
            c.shown = excerpt(c.fact.object, words)
    said, same = _dedupe(found)
    return Gathered(ranked, said, _covered(ranked, found, same))


def _mark_restated(
    ranked: Sequence[_Candidate],
    query: str,
    k_at: dt.datetime,
    *,
    owner: str,
    lines: Sequence[tuple[str, str, dt.datetime]] = (),
) -> None:
    """Mark facts and notes whose value a fact, note or line learned later gives otherwise.

    The facts' side of :func:`graphmem.episodic.line_candidates`' marks: "Team plan costs $20",
    then a note "the Team plan is $24 per seat now"; and a fact whose relation a later note
    names again with a word of change but without its value ("@sven is release manager from
    v5.13" after ``self release_manager Ayo``) (docs/concepts/recall.md#restated). A fact
    reads as its subject, predicate, object and the sentence it was read from; "said" is when
    it was recorded. The session lines found for the query (``(id, text, said at)``) count as
    later texts too: "03:02 pg-orders-03 promoted, it is now the PRIMARY" marks ``orders-db
    primary pg-orders-02`` read from a runbook before. Marks, never writes.
    """
    _mark_diffs(ranked)
    # no tie order: facts learned in one write are not said one after the other
    items = [Item(f.id, _said(f), f.recorded_at) for f in (c.fact for c in ranked)]
    said = [Item(lid, text, when) for lid, text, when in lines]
    skip = frozenset(c.fact.id for c in ranked if c.said_ended or c.fact.valid_to is not None)
    found = restated(items + said, valid_at=k_at, query=query, skip=skip | {i.id for i in said})
    # a note's fields said again by a later note (docs/concepts/recall.md#field-said-again)
    notes = [
        Item(f.id, f.statement or f.object, f.recorded_at)
        for f in (c.fact for c in ranked)
        if f.predicate == "note" and f.id not in skip and f.id not in found
    ]
    topical = frozenset(i.id for i in notes)
    found |= field_said_again(notes, valid_at=k_at, query=query, topical=topical)
    for c in ranked:
        if c.fact.id in found:
            mark, when = found[c.fact.id]
            c.said_ended = f"{mark} per {when.date().isoformat()}"
    slots = [
        (
            f.id,
            f.predicate.replace("_", " "),
            f.object,
            "" if f.subject == owner else f.subject,
            f.recorded_at,
        )
        for f in (c.fact for c in ranked)
        if f.id not in skip and f.id not in found and f.predicate != "note"
    ]
    again = renamed(slots, items + said, valid_at=k_at, query=query)
    for c in ranked:
        if c.fact.id in again:
            c.said_ended = f"possibly replaced per {again[c.fact.id].date().isoformat()}"
    skip |= frozenset(found) | frozenset(again) | {i.id for i in said}
    topic = said_again(items + said, valid_at=k_at, query=query, skip=skip)
    for c in ranked:
        if c.fact.id in topic:
            c.said_ended = f"{SAID_AGAIN}{topic[c.fact.id].date().isoformat()}"


def _mark_diffs(ranked: Sequence[_Candidate]) -> None:
    """Mark a diff pasted into a note, and what said its removed lines before it.

    "-version = "0.7.2" +version = "0.8.0"" (:func:`graphmem.restated.diff_pairs`): the note
    reads ``(version = "0.7.2" replaced: version = "0.8.0")``, and an earlier note or fact
    holding a removed line's words (the Cargo.toml pasted in May) reads the same ``per`` the
    diff's date. Marks, never writes.
    """
    diffs: list[tuple[list[tuple[str, str]], dt.datetime]] = []
    for c in ranked:
        if c.fact.predicate == "note" and not c.said_ended:
            pairs = diff_pairs(c.fact.object)
            if pairs:
                c.said_ended = "; ".join(f"{old} replaced: {new}" for old, new in pairs)
                diffs.append((pairs, c.fact.recorded_at))
    for c in ranked:
        if c.said_ended or not diffs:
            continue
        text = " ".join(_said(c.fact).casefold().split())
        for pairs, when in diffs:
            hits = [p for p in pairs if " ".join(p[0].casefold().split()) in text]
            if when > c.fact.recorded_at and hits:
                said = "; ".join(f"{old} replaced: {new}" for old, new in hits)
                c.said_ended = f"{said} per {when.date().isoformat()}"
                break


def _said(f: FactView) -> str:
    if f.predicate == "note":
        return f.object
    triple = f"{f.subject} {f.predicate.replace('_', ' ')} {f.object}"
    return f"{triple}. {f.statement}" if f.statement else triple


def search(
    mem: MemoryLike,
    query: str,
    *,
    limit: int = 20,
    valid_at: TimeLike | None = None,
    known_at: TimeLike | None = None,
    kinds: Sequence[str] = ("fact", "line"),
    semantic: Semantic | None = None,
) -> list[SearchItem]:
    """Return the candidates :func:`context` ranks, as scored items for callers' own prompts.

    The same facts (current at ``valid_at`` as believed at ``known_at``) and session lines
    (recorded by ``known_at``), scored as in the module documentation, merged best first (ties
    by kind then id). Nothing is written (no access counters).

    Args:
        mem: an open memory.
        query: the question or topic.
        limit: at most this many items (>= 1).
        valid_at: world time (default now).
        known_at: system time (default now).
        kinds: ``"fact"`` and/or ``"line"``.
        semantic: the optional similarity seam for lines.

    Returns:
        :class:`~graphmem.episodic.SearchItem` rows.

    Raises:
        InvalidInput: a blank query, a bad limit, kinds or time.
    """
    kernel = kernel_of(mem)
    _check_query(query)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise InvalidInput(f"limit={limit!r} must be a positive integer, e.g. 20")
    if isinstance(kinds, str):
        kinds = (kinds,)
    wanted = set(kinds)
    if not wanted or not wanted <= {"fact", "line"}:
        raise InvalidInput(f"kinds={kinds!r} must name 'fact' and/or 'line'")
    now = kernel.now()
    v_at = now if valid_at is None else to_utc(valid_at, name="valid_at")
    k_at = now if known_at is None else to_utc(known_at, name="known_at")
    with kernel.lock:
        ranked, _, anchors = _gather_facts(
            kernel, query, v_at=v_at, k_at=k_at, replay=known_at is not None
        )
        items = [_fact_item(c) for c in ranked] if "fact" in wanted else []
        if "line" in wanted:
            lim = max(limit, LINE_HITS)
            found = _lines(kernel, query, ranked, anchors, v_at, k_at, lim, semantic)
            items += [_line_item(c) for c in _dedupe(found)[0]]
    items.sort(key=lambda i: (-i.score, i.kind, i.id))
    return items[:limit]


def _lines(
    kernel: Kernel,
    query: str,
    ranked: Sequence[_Candidate],
    anchors: dict[str, str],
    v_at: dt.datetime,
    k_at: dt.datetime,
    limit: int,
    semantic: Semantic | None,
) -> list[LineCandidate]:
    """The session lines for the query, grounded on the best ranked facts' sources."""
    return line_candidates(
        kernel,
        query,
        anchors=anchors,
        valid_at=v_at,
        known_at=k_at,
        limit=limit,
        semantic=semantic,
        grounds=_grounds(ranked),
    )


def _bump(kernel: Kernel, chosen: Sequence[_Candidate], now: dt.datetime) -> None:
    """Count the retrieval of the rendered facts (one change set; none when read-only)."""
    if not chosen or kernel.store.read_only:
        return
    groups: dict[tuple[str, str], list[str]] = {}
    for c in chosen:
        groups.setdefault((c.direction, c.fact.via), []).append(c.fact.id)
    try:
        # Access counters are bookkeeping, not knowledge: no new system time, no marker.
        with kernel.uow.write(at=now, marker=False) as w:
            w.changes.access.update(groups)
    except GraphmemError as exc:
        # Bookkeeping must never cost the caller its answer.
        _log.warning("context(): could not bump access counters: %s", exc)
