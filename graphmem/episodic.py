"""Episodic recall: the session lines that match a query, dated and checked.

See docs/concepts/recall.md#rule-6 and docs/benchmarks.md#episodic-recall.

:func:`graphmem.context.context` and :func:`graphmem.context.search` blend these with the
current facts; this module finds, scores, checks and renders the lines. The store side (how
texts are split into lines, the BM25 index and its fallback) is :mod:`graphmem.store.kuzu.lines`.

How lines are found
    The query's words (:func:`graphmem.normalize.terms`: case-folded, stop words dropped,
    lightly stemmed), plus the words of the entities it names and of their aliases (so "Ali"
    also finds lines that say "Alice"), are ranked by BM25 over every line recorded by
    ``known_at`` (``SessionLine.recorded_at``, the system time of the write; valid time does
    not filter lines: they are what was said, when it was said).

How they are ranked (docs/benchmarks.md#locomo-recall)
    Three rankings are fused by reciprocal rank fusion (``sum(1 / (RRF_K + rank))``, rank from
    0, ``RRF_K = 60``), each found line scored by the rankings it is in:

    - **BM25**: the hits above, best first.
    - **grounding** (the join of the two layers): the best :data:`GROUND_FACTS` *on-topic*
      facts found for the query (holding a word of the query besides the names it anchors
      on), that came from a session (``source``) with a ``statement``, lend their rank to the
      line of that session holding the statement: that line is a candidate even when it
      shares no word with the query ("Where does Mel work now?" finds "I just started a new
      job at Globex" through ``Melanie works_at Globex``). A fact that matches only by a name
      lends nothing: in a two-person chat every question names a speaker, and such a fact
      would lend a line about the person, not the question.
    - **neighbours**: the turn after and the turn before each of the best
      ``max(NEIGHBOUR_HITS, limit // 4)`` BM25 hits (10 at 500 tokens, 20 at 1,000, 41 at
      2,000: a bigger block has room for more of them), in the hits' order (the answer to a
      question is often the next turn, and shares no word with it). This ranking lifts a line
      at most to just below the hit it is next to (``NEXT_TO``, 0.999 of its score): the hit
      comes first.
    - **time cues** (:mod:`graphmem.recall_cues`): for a question asking when, the found
      lines that say when ("yesterday", "last week", a month), in the order above; for a
      question naming a day or a month, the found lines said from then to a week after.
    - with the optional ``semantic(query, texts)`` seam (values in ``[0, 1]``; none by
      default), the candidates by similarity, best first.

    A line's score is its fused score relative to the best line's (in ``(0, 1]``), ties by
    line id; a superseded line (below) keeps ``0.85`` of it: still evidence of the past, but
    the current value ranks first. Neither importance nor recency weighs in: what was said in
    an old session is as good evidence as what was said yesterday.

Superseded lines (the memory-rot promise on the episodic layer)
    The text pipeline writes each claim it extracts as a fact with ``source=<session id>``
    and ``statement=<the sentence>``. A line whose session is the source of a fact version
    whose statement is contained in the line (whitespace and case aside) is *linked* to it.
    When no linked version believed at ``known_at`` is valid at ``valid_at`` and one of them
    has ended by then, the line states a past value: it is rendered with
    ``(superseded D: predicate object)``, naming the version of the same subject and
    predicate that starts where it ends, or ``(ended D)`` when none does. ``D`` is that end.

Lines a later line says ended
    A line that names a value another line shown with it says ended ("invoices moved from S3
    to R2") is marked too, when no fact marks it: ``(s3: no longer current per D)``, and the line
    that says so ``(s3: no longer current from here)`` (:mod:`graphmem.said_ended`,
    docs/concepts/recall.md#said-ended). These are marks, never writes.

Rendering
    ``- [8 May 2023] Caroline: I went to the support group.``: the session's date, the
    speaker, the text (lines longer than :data:`MAX_TEXT` characters are clipped with ``…``).
    Lines of one session that follow each other are merged into one passage (continuation
    lines indented, without the date).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from graphmem import restated as restated_lines
from graphmem.display import ContextText
from graphmem.kernel import kernel_of
from graphmem.normalize import names_phrase, term_set, terms
from graphmem.recall_cues import asks_when, has_time_cue, named_dates
from graphmem.restated import Item, field_of, renamed, restated, said_again
from graphmem.rewritten import written_again
from graphmem.said_ended import Said, Shown, marks
from graphmem.store.records import FactView, LineRow, SessionClaim

if TYPE_CHECKING:
    from graphmem.kernel import Kernel, MemoryLike

__all__ = [
    "MAX_TEXT",
    "Context",
    "LineCandidate",
    "SearchItem",
    "Semantic",
    "fmt_date",
    "line_candidates",
]

SUPERSEDED_FACTOR = 0.85
#: The mark of a line whose topic a later line says again (docs/concepts/recall.md#said-again).
SAID_AGAIN = "possibly superseded per "
#: The constant of reciprocal rank fusion (the usual 60: the first ranks differ little).
RRF_K = 60
#: How many of the best on-topic facts lend their source line.
GROUND_FACTS = 8
#: The best BM25 hits whose neighbouring lines (the turn after, the turn before) are ranked:
#: at least this many, a quarter of the lines asked for when that is more.
NEIGHBOUR_HITS = 10
#: A neighbour's place next to a hit lifts it at most to this share of the hit's fused score.
NEXT_TO = 0.999
#: The best BM25 hits whose later, changing lines are looked for (one line index query each).
SUCCESSOR_HITS = 3
#: The lines of the best on-topic facts whose later, changing lines are looked for too.
SUCCESSOR_LENT = 2
#: Lines asked of the index for each of them.
SUCCESSOR_SEARCH = 8
#: Words of more than this share of the lines are left out of that search: they tie no two
#: lines together, and scoring them scored every line (docs/benchmarks.md#episodic-recall).
SUCCESSOR_COMMON = 0.05
#: Words that say something changed or was set right.
_CHANGE_CUE = re.compile(
    r"(?i)\b(?:no longer|anymore|any more|instead|actually|correction|switched|moved|"
    r"migrated|replaced|changed|stopped|dropped|updated|upgraded|renamed|gone|retired|"
    r"deprecated|deleted|removed|decommissioned|shut down|turned off|sunset|cancell?ed|"
    r"was wrong|not quite|from now on|going forward|final|finali[sz]ed|decided|settled on|"
    r"lock(?:ed|ing) in|going with|went with|transferred|reassigned)\b"
)
#: Name-like words of a line: capitalised inside it, or holding a digit ("Atlas", "v2", "5").
_NAME_LIKE = re.compile(r"(?<=\w[\s,;:] )[A-Z][\w.-]*|\b\w*\d[\w.%/-]*")
#: Longest line text rendered.
MAX_TEXT = 600

Semantic = Callable[[str, Sequence[str]], Sequence[float]]
"""``semantic(query, texts)`` -> one similarity in ``[0, 1]`` per text (optional seam)."""

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def fmt_date(t: dt.datetime) -> str:
    """Return a date as ``8 May 2023`` (English month names, whatever the locale).

    >>> import datetime as dt
    >>> fmt_date(dt.datetime(2023, 5, 8, 13, 56))
    '8 May 2023'
    """
    return f"{t.day} {_MONTHS[t.month - 1]} {t.year}"


@dataclass(frozen=True)
class SearchItem:
    """One scored search result: a current fact or a session line.

    Attributes:
        kind: ``"fact"`` or ``"line"``.
        id: the fact version's id, or the line's id (``"<session id>#<n>"``, ``n`` from 1).
        text: the item as :func:`graphmem.context.context` renders it, without the leading
            ``"- "`` and (for lines) without the date: ``"api runs_on Go (since 2026-06-01;
            was Laravel)"`` or ``"Caroline: I went to the support group."``.
        score: the ranking score (higher is better; module documentation).
        date: a fact's ``valid_from``; a line's session start.
        session: a fact's ``source``; a line's session id.
        superseded: for a line that states a past value, the note rendered after it, e.g.
            ``"superseded 10 Jun 2026: runs_on Go"``; else ``None``.
    """

    kind: Literal["fact", "line"]
    id: str
    text: str
    score: float
    date: dt.datetime
    session: str | None = None
    superseded: str | None = None

    def __str__(self) -> str:
        return f"{self.kind} {self.id} {self.score:.3f} [{fmt_date(self.date)}] {self.text}"


class Context(ContextText):
    """What :func:`graphmem.context.context` returns: the text block and the items in it.

    A ``str`` (the text itself, shown by Jupyter as its lines; so ``print(ctx)``, ``str(ctx)``,
    ``"x" in ctx`` and returning it where a string is expected keep working) with two
    attributes: ``text`` (the same text as a plain ``str``) and ``items`` (the
    :class:`SearchItem` rows shown, best first, with their ids and scores), for runtimes that
    build their own prompt.
    """

    items: tuple[SearchItem, ...]
    query: str

    def __new__(cls, text: str, items: Iterable[SearchItem] = (), query: str = "") -> Context:
        """Create the context for ``query`` holding ``text`` and ``items``."""
        obj = super().__new__(cls, text)
        obj.items = tuple(items)
        obj.query = query
        return obj

    @property
    def text(self) -> str:
        """The text block (a plain ``str``)."""
        return str.__str__(self)

    def __repr__(self) -> str:
        return f"Context(query={self.query!r}, items={len(self.items)}, text={self.text!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Context, (self.text, self.items, self.query))


@dataclass
class LineCandidate:
    """A session line found for a query, with its score and superseded note.

    ``bm25`` is its BM25 score (0 when another ranking found it), ``relevance`` its fused
    score and ``score`` that relative to the best line's (module documentation).
    """

    line: LineRow
    bm25: float
    relevance: float = 0.0
    score: float = 0.0
    superseded: str | None = None
    #: How often and when the line was said, when echoes folded into it
    #: (docs/concepts/recall.md#echo-folding): ``"said 3×, 8 May 2023–2 Jul 2023"``.
    echo: str | None = None

    def sort_key(self) -> tuple[float, float, int, str]:
        """Best score first, ties by :func:`_place` (the line said last first)."""
        return (-self.score, *_place(self.line))


def _place(row: LineRow) -> tuple[float, int, str]:
    """A line's place among lines of equal rank: the line said last first, then by number.

    Not by id first: a session's id says when it was added, not when it was said, or the
    caller named it (docs/concepts/recall.md#how-lines-are-ranked).
    """
    return (-row.started_at.timestamp(), row.n, row.id)


def _norm(text: str) -> str:
    return " ".join(text.split()).casefold()


def line_candidates(
    mem: MemoryLike,
    query: str,
    *,
    anchors: Mapping[str, str],
    valid_at: dt.datetime,
    known_at: dt.datetime,
    limit: int,
    semantic: Semantic | None = None,
    grounds: Sequence[tuple[str, str, float]] = (),
) -> list[LineCandidate]:
    """Return the best session lines for ``query``, scored and checked, best first.

    Args:
        mem: the memory.
        query: the query text.
        anchors: ``{entity id: name}`` of the entities the query names (their names and
            aliases join the BM25 query).
        valid_at: world time: lines stating a value that ended by then are marked superseded.
        known_at: system time: only lines recorded by then, and the fact versions believed
            then.
        limit: at most this many lines.
        semantic: the optional similarity seam (module documentation).
        grounds: ``(session id, statement, score)`` of the best on-topic facts found for the
            query: the line of that session holding the statement joins the candidates, ranked
            by the fact's score (module documentation).

    Returns:
        Candidates, best first (ties by line id).
    """
    kernel = kernel_of(mem)
    store = kernel.store
    query_words = terms(query)
    extra: list[str] = []
    for eid, name in sorted(anchors.items()):
        if eid == "self":
            continue
        for alias in [name, *(a for a, owner in kernel.aliases.items() if owner == eid)]:
            extra.extend(terms(alias))
    hits = store.search_lines([*query_words, *extra], limit=limit, known_at=known_at)
    hits = sorted(hits, key=lambda h: (-h.score, *_place(h.line)))  # ties: newest first
    found: dict[str, LineRow] = {h.line.id: h.line for h in hits}
    bm25 = {h.line.id: h.score for h in hits}
    # the rankings fused (module documentation): BM25, grounding, the neighbours of the best hits
    rankings: list[list[str]] = [[h.line.id for h in hits]]
    warm = store.warm_index()  # fresh after the search (one meta read), else None: queries
    lent: dict[str, float] = {}
    for sid, statement, fact_score in grounds:
        wanted_text = _norm(statement)
        rows = warm.session_rows(sid) if warm is not None else store.session_lines(sid)
        for row in rows:
            if row.recorded_at > known_at:
                continue
            full = _norm(f"{row.speaker}: {row.text}") if row.speaker else ""
            if wanted_text and (wanted_text in _norm(row.text) or wanted_text in full):
                lent[row.id] = max(lent.get(row.id, 0.0), fact_score)
                found.setdefault(row.id, row)
                break
    rankings.append(sorted(lent, key=lambda i: (-lent[i], *_place(found[i]))))
    around: dict[str, str] = {}  # neighbour: the hit it is next to
    for h in hits[: max(NEIGHBOUR_HITS, limit // 4)]:
        before, after = store.neighbours(h.line, index=warm)
        for nb in (after, before):
            if nb is not None and nb.recorded_at <= known_at and nb.id not in around:
                around[nb.id] = h.line.id
                found.setdefault(nb.id, nb)
    if not found:
        return []
    # time cues (docs/concepts/recall.md#how-lines-are-ranked): when, and named dates
    order = list(dict.fromkeys([*(h.line.id for h in hits), *rankings[1], *around]))
    if asks_when(query):
        rankings.append([i for i in order if has_time_cue(found[i].text)])
    spans = named_dates(query)
    if spans:
        rankings.append([i for i in order if any(a <= found[i].started_at < b for a, b in spans)])
    top = {h.line.id: h.line for h in hits[:SUCCESSOR_HITS]}
    firsts = [*top.values(), *(found[i] for i in rankings[1][:SUCCESSOR_LENT])]  # facts' lines
    firsts += [found[i] for i, h in around.items() if h in top]  # a record's fields, after hits
    followers = _successors(store, firsts, set(query_words), found, known_at=known_at)
    if semantic is not None:
        ids = sorted(found)
        sims = semantic(query, [found[i].text for i in ids])
        near = {i: min(max(float(v), 0.0), 1.0) for i, v in zip(ids, sims, strict=False)}
        rankings.append(
            sorted((i for i in near if near[i] > 0), key=lambda i: (-near[i], *_place(found[i])))
        )
    fused = _fuse(rankings)
    # a neighbour's own rankings stand; its place next to a hit lifts it up to just after the hit
    lifted = _fuse([list(around)])
    for i, hit in around.items():
        fused[i] = max(fused.get(i, 0.0), min(fused.get(i, 0.0) + lifted[i], fused[hit] * NEXT_TO))
    for i, earlier in followers.items():  # what changed a line comes right after it
        fused[i] = max(fused.get(i, 0.0), fused[earlier] * NEXT_TO)
    best = max(fused.values())
    out = [
        LineCandidate(row, bm25.get(i, 0.0), fused[i], fused[i] / best) for i, row in found.items()
    ]
    _mark_superseded(kernel, out, valid_at=valid_at, known_at=known_at)
    _mark_said_ended(out, owner=kernel.owner, valid_at=valid_at, follows=followers)
    _mark_restated(out, valid_at=valid_at, query=query)
    for c in out:  # a topic said again is a pointer, not a verdict: it keeps its rank
        if c.superseded is not None and not c.superseded.startswith(SAID_AGAIN):
            c.score *= SUPERSEDED_FACTOR
    out.sort(key=LineCandidate.sort_key)
    return out


def _said_after(a: LineRow, b: LineRow) -> bool:
    """Whether line ``b`` was said after line ``a``."""
    return (b.started_at, b.recorded_at, b.session, b.n) > (
        a.started_at,
        a.recorded_at,
        a.session,
        a.n,
    ) and (b.session != a.session or b.n > a.n)


def _successors(
    store: Any,
    firsts: Sequence[LineRow],
    query_words: set[str],
    found: dict[str, LineRow],
    *,
    known_at: dt.datetime,
) -> dict[str, str]:
    """Later lines that say what changed in the first lines: ``{line id: the line it follows}``.

    "we stopped using story points, we're just counting tickets now" shares no word with "how
    does the team estimate work?", but it changes "do we still estimate in story points?":
    for each first line (the best :data:`SUCCESSOR_HITS` BM25 hits and the lines of the best
    :data:`SUCCESSOR_LENT` on-topic facts), the line index is asked for lines with the line's
    own words (not the query's); a line said later, with a word of change
    (:data:`_CHANGE_CUE`) and two of those words or one name-like one, follows it
    (docs/concepts/recall.md#what-changed-a-line). The new rows join ``found``.
    """
    out: dict[str, str] = {}
    for row in firsts:
        if row.id in out:
            continue
        own = [w for w in dict.fromkeys(terms(row.text)) if w not in query_words]
        if not own:
            continue
        names = set(terms(" ".join(_NAME_LIKE.findall(row.text))))
        hits = store.search_lines(
            own, limit=SUCCESSOR_SEARCH, known_at=known_at, common=SUCCESSOR_COMMON
        )
        for later in hits:
            nb = later.line
            if nb.id in found or nb.id in out or not _said_after(row, nb):
                continue
            if not _CHANGE_CUE.search(nb.text):
                continue
            shared = term_set(nb.text) & set(own)
            if len(shared) >= 2 or shared & names:
                out[nb.id] = row.id
                found[nb.id] = nb
                break  # one successor per hit: the best by its words
    return out


def _fuse(rankings: Sequence[Sequence[str]]) -> dict[str, float]:
    """Reciprocal rank fusion: ``sum(1 / (RRF_K + rank))`` over the rankings (rank from 0).

    >>> _fuse([["a", "b"], ["b"]]) == {"a": 1 / 60, "b": 1 / 61 + 1 / 60}
    True
    """
    out: dict[str, float] = {}
    for ranking in rankings:
        for rank, key in enumerate(ranking):
            out[key] = out.get(key, 0.0) + 1.0 / (RRF_K + rank)
    return out


def _mark_superseded(
    kernel: Kernel,
    candidates: Sequence[LineCandidate],
    *,
    valid_at: dt.datetime,
    known_at: dt.datetime,
) -> None:
    """Set ``superseded`` on lines that state a value no longer valid (module documentation)."""
    if not candidates:
        return
    store = kernel.store
    claims = store.facts_of_sessions(
        sorted({c.line.session for c in candidates}), known_at=known_at
    )
    by_session: dict[str, list[SessionClaim]] = {}
    for claim in claims:
        by_session.setdefault(claim.source, []).append(claim)
    ended: dict[int, list[SessionClaim]] = {}
    changed: dict[int, list[SessionClaim]] = {}
    stated: set[str] = set()  # lines holding a believed statement
    for i, c in enumerate(candidates):
        row = c.line
        claims = by_session.get(row.session, [])
        linked = [k for k in claims if _linked(k, row)]
        if linked:
            stated.add(row.id)
        else:
            # a line of the same session that restates a value ("assistant: Noted, Zendesk
            # for support tickets") stands or falls with it
            linked = [k for k in claims if names_phrase(k.object, _norm(row.text))]
        valid = [
            k
            for k in linked
            if k.valid_from <= valid_at and (k.valid_to is None or valid_at < k.valid_to)
        ]
        if valid:
            changed[i] = valid  # still true; say what it replaced ("left Acme and joined ...")
        past = [k for k in linked if k.valid_to is not None and k.valid_to <= valid_at]
        if past:
            # a line may hold a statement that ended beside others still true ("works at
            # Zalando. Their manager is Keiko Tanaka."): the ended one is said all the same
            ended[i] = past
    _mark_corrected(store, candidates, stated, known_at=known_at)
    if not ended and not changed:
        return
    pairs = sorted(
        {
            (k.subject_id, k.predicate)
            for group in (*ended.values(), *changed.values())
            for k in group
        }
    )
    versions: dict[tuple[str, str], list[FactView]] = {}
    for v in store.versions_of(pairs, known_at=known_at):
        versions.setdefault((v.subject_id, v.predicate), []).append(v)
    for i, valid in changed.items():
        # A line that states the current value says which value it replaced, so the old value
        # it names ("Alice left Acme") is never read as current.
        replaced = sorted(
            {
                f"{v.predicate} {_clip(v.object, 60)}"
                for k in valid
                for v in versions.get((k.subject_id, k.predicate), ())
                if v.valid_to == k.valid_from and v.object != k.object
            }
        )
        if replaced:
            note = candidates[i].superseded
            said = "replaced " + ", ".join(replaced[:2])
            candidates[i].superseded = f"{note}; {said}" if note else said
    _mark_replaced_beside(candidates, changed, ended, versions)
    for i, past in ended.items():
        note = candidates[i].superseded
        # The latest end among the linked versions is when the line stopped being true.
        # (ties by what they say: ids are random, and the mark must not change between runs)
        k = max(past, key=lambda x: (x.valid_to or x.valid_from, x.predicate, x.object, x.id))
        assert k.valid_to is not None
        successors = sorted(
            (
                v
                for v in versions.get((k.subject_id, k.predicate), ())
                if v.valid_from == k.valid_to and v.object != k.object
            ),
            key=lambda v: (v.object.casefold(), v.id),
        )
        when = fmt_date(k.valid_to)
        if i in changed:
            # only part of the line ended: name that part
            said = f"{k.predicate} {_clip(k.object, 60)}"
            if successors:
                ended_note = f"{said} superseded {when} by {_clip(successors[0].object, 60)}"
            else:
                ended_note = f"{said} no longer true since {when}"
        elif successors:
            nxt = successors[0]
            ended_note = f"superseded {when}: {nxt.predicate} {_clip(nxt.object, 80)}"
        else:
            ended_note = f"no longer true since {when}"
        candidates[i].superseded = f"{note}; {ended_note}" if note else ended_note


def _mark_replaced_beside(
    candidates: Sequence[LineCandidate],
    changed: Mapping[int, list[SessionClaim]],
    ended: Mapping[int, list[SessionClaim]],
    versions: Mapping[tuple[str, str], list[FactView]],
) -> None:
    """Mark a line naming a value that a statement of its own session replaced.

    A diff's removed line ("-MAIL_DRIVER=sendgrid" beside "+MAIL_DRIVER=postmark"), or an
    incident line naming the host a later line of it promoted, holds the old value as the
    session left it: ``(sendgrid replaced by postmark)``
    (docs/concepts/recall.md#superseded-lines-are-marked).
    """
    by_session: dict[str, list[tuple[FactView, SessionClaim]]] = {}
    for i, valid in changed.items():
        for k in valid:
            for v in versions.get((k.subject_id, k.predicate), ()):
                if v.valid_to == k.valid_from and v.object != k.object:
                    by_session.setdefault(candidates[i].line.session, []).append((v, k))
    if not by_session:
        return
    for i, c in enumerate(candidates):
        if i in changed or i in ended or c.superseded:
            continue
        text = _norm(c.line.text)
        for v, k in by_session.get(c.line.session, ()):
            if names_phrase(v.object, text) and not names_phrase(k.object, text):
                c.superseded = f"{_clip(v.object, 60)} replaced by {_clip(k.object, 60)}"
                break


def _mark_corrected(
    store: Any,
    open_lines: Sequence[LineCandidate],
    stated: set[str],
    *,
    known_at: dt.datetime,
) -> None:
    """Mark a line whose value a correction replaced.

    A correction ("actually it's Tamsin, not Tomasz") does not end the old version: it was
    never true, so it is no longer believed at all, and the value that replaced it starts
    where it did. A line stating such a value reads ``(was wrong; corrected to: reports_to
    Tamsin)``; a line whose other statements (``stated``: line ids) still hold names the part
    that was wrong: ``(age 7 was wrong; corrected to 8)``.
    """
    if not open_lines:
        return
    gone = store.facts_of_sessions(
        sorted({c.line.session for c in open_lines}), known_at=known_at, expired=True
    )
    linked = {
        c.line.id: [k for k in gone if k.source == c.line.session and _linked(k, c.line)]
        for c in open_lines
    }
    pairs = sorted({(k.subject_id, k.predicate) for ks in linked.values() for k in ks})
    if not pairs:
        return
    now: dict[tuple[str, str], list[FactView]] = {}
    for v in store.versions_of(pairs, known_at=known_at):
        now.setdefault((v.subject_id, v.predicate), []).append(v)
    for c in open_lines:
        for k in linked[c.line.id]:
            views = now.get((k.subject_id, k.predicate), [])
            if any(_norm(v.object) == _norm(k.object) for v in views):
                continue  # closed and kept, not corrected
            fixes = sorted(
                {v.object for v in views if v.valid_from <= k.valid_from and v.valid_to is None}
            )
            if len(fixes) == 1:
                fix = f"{k.predicate} {_clip(fixes[0], 80)}"
                if c.line.id in stated:  # the line's other statements still hold
                    said = f"{k.predicate} {_clip(k.object, 60)}"
                    c.superseded = f"{said} was wrong; corrected to {_clip(fixes[0], 80)}"
                else:
                    c.superseded = f"was wrong; corrected to: {fix}"
                break


def _linked(k: SessionClaim, row: LineRow) -> bool:
    """Whether a version's statement is in a line (whitespace and case aside)."""
    s = _norm(k.statement)
    texts = (_norm(row.text), _norm(f"{row.speaker}: {row.text}") if row.speaker else "")
    return bool(s) and any(s in t for t in texts if t)


def _order(row: LineRow) -> tuple[str, ...]:
    return (row.recorded_at.isoformat(), row.session, f"{row.n:09d}")


def _item(row: LineRow) -> Item:
    return Item(row.id, row.text, row.started_at, _order(row), row.speaker or "")


def mark_neighbours(
    rows: Sequence[LineRow],
    candidates: Sequence[LineCandidate],
    *,
    valid_at: dt.datetime,
    query: str,
) -> dict[str, LineCandidate | LineRow]:
    """Mark the neighbour lines shown beside ``candidates``, and the candidates by them.

    "Target launch: April 14" shown next to a hit, and "Target launch: moved to May 5" later:
    the earlier reads ``(April 14 possibly superseded: May 5 per 20 Mar 2026)``
    (docs/concepts/recall.md#restated), whichever of the two is a candidate. A candidate
    that has a mark keeps it; one without may get one here (in place). Returns the
    neighbours ``{line id: the row, or a candidate of score 0 holding its mark}``.
    """
    known = {c.line.id for c in candidates}
    fresh = {r.id: r for r in rows if r.id not in known}
    if not fresh:
        return {}
    rows_all = [c.line for c in candidates] + list(fresh.values())
    skip = frozenset(c.line.id for c in candidates if c.superseded is not None)
    found = _line_marks(rows_all, valid_at=valid_at, query=query, skip=skip)
    # A value a line says ended, named by a line of another session: the candidates were
    # marked among themselves (_mark_said_ended); a neighbour may be either line.
    unmarked = frozenset(r.id for r in rows_all if r.id not in skip and r.id not in found)
    for lid, (said, own) in _ended_marks(rows_all, unmarked, owner="", valid_at=valid_at).items():
        if not own or lid in fresh:
            found[lid] = said
    for c in candidates:
        if c.line.id in found:
            c.superseded = found[c.line.id]
    ended = session_ended(candidates)
    out: dict[str, LineCandidate | LineRow] = dict(fresh)
    for lid, row in fresh.items():
        mark = found.get(lid) or ended_here(row, ended)
        if mark:
            out[lid] = LineCandidate(row, 0.0, superseded=mark)
    return out


#: A label of two or more words, one in lower case ("Onboarding buddy", "Target launch"):
#: a field's name, not a person's (docs/concepts/recall.md#restated).
_LABEL = re.compile(r"[A-Za-z]+(?: [A-Za-z]+)+")


def _fielded(row: LineRow) -> str:
    """A line's text with its field's name ("Goal race: ... target 3:45"), else its text."""
    label = row.speaker
    if label and _LABEL.fullmatch(label) and not label.istitle():
        return f"{label}: {row.text}"
    return row.text


def _line_marks(
    rows: Sequence[LineRow], *, valid_at: dt.datetime, query: str, skip: frozenset[str]
) -> dict[str, str]:
    """The marks of :mod:`graphmem.restated` on lines: ``{line id: mark}``.

    A value a later line gives otherwise (:func:`~graphmem.restated.restated`); a field's short
    value ("Onboarding buddy: Josh Tran") whose field a later line names again by its last word,
    with a word of change, without the value ("buddy is Mei-Lin Osei instead": ``(... possibly
    replaced per 18 May 2026)``, :func:`~graphmem.restated.renamed`); a field a later time gives
    another value, a diff's removed line, a line restated with one value changed
    (:func:`~graphmem.rewritten.written_again`); a topic said again.
    """
    items = [_item(r) for r in rows]
    found = {
        lid: f"{mark} per {fmt_date(when)}"
        for lid, (mark, when) in restated(items, valid_at=valid_at, query=query, skip=skip).items()
    }
    fields = {  # its name split off as the line's speaker or not ("☐ Onboarding buddy: Li")
        i.id: (*f, i.when)
        for i in items
        if i.id not in skip
        and i.id not in found
        and (f := field_of(i)) is not None
        and _LABEL.fullmatch(f[0])
        and not f[0].istitle()
        and len(f[1].split()) <= 5
    }
    if fields:
        slots = [(lid, n.split()[-1], v, "", when) for lid, (n, v, when) in fields.items()]
        later = [i._replace(text=f"{i.label}: {i.text}") if i.label else i for i in items]
        for lid, when in renamed(slots, later, valid_at=valid_at, query=query).items():
            name, value, _ = fields[lid]
            found[lid] = f"{name}: {value} possibly replaced per {fmt_date(when)}"
    moved = written_again(items, valid_at=valid_at, query=query, skip=skip | frozenset(found))
    found |= {m: f"{k} per {fmt_date(w)}" if w else k for m, (k, w) in moved.items()}
    again = said_again(items, valid_at=valid_at, query=query, skip=skip | frozenset(found))
    for lid, when in again.items():
        found[lid] = f"{SAID_AGAIN}{fmt_date(when)}"
    found |= restated_lines.quoted(items, found, skip=skip, weak=SAID_AGAIN)
    return found


def _ended_marks(
    rows: Sequence[LineRow],
    unmarked: frozenset[str],
    *,
    owner: str,
    valid_at: dt.datetime,
    follows: Mapping[str, str] | None = None,
) -> dict[str, tuple[str, bool]]:
    """:func:`~graphmem.said_ended.marks` over lines (a field line with its field's name).

    Returns ``{line id: (mark, whether the line itself says the value ended)}`` for the lines
    of ``unmarked`` that get one.
    """
    said = [Said(r.id, _fielded(r), r.started_at, _order(r)) for r in rows]
    shown = [Shown(r.id, _fielded(r), r.started_at, _order(r)) for r in rows if r.id in unmarked]
    found = marks(shown, said, owner=owner, valid_at=valid_at, follows=follows)
    return {
        lid: (
            f"{value}: no longer current "
            + ("from here" if when is None else f"per {fmt_date(when)}"),
            when is None,
        )
        for lid, (value, when) in found.items()
    }


def _mark_said_ended(
    candidates: Sequence[LineCandidate],
    *,
    owner: str,
    valid_at: dt.datetime,
    follows: Mapping[str, str] | None = None,
) -> None:
    """Mark lines that name a value a line says ended (docs/concepts/recall.md#said-ended)."""
    rows = [c.line for c in candidates]
    unmarked = frozenset(c.line.id for c in candidates if c.superseded is None)
    found = _ended_marks(rows, unmarked, owner=owner, valid_at=valid_at, follows=follows)
    for c in candidates:
        if c.line.id in found:
            c.superseded = found[c.line.id][0]
    marked = session_ended(candidates)
    for c in candidates:
        if c.superseded is None and (mark := ended_here(c.line, marked)):
            c.superseded = mark


#: A said-ended mark in a line's marks: "sendgrid: no longer current per 15 Sep 2025".
_ENDED_MARK = re.compile(r"(?:^|; )(?P<value>[^;]+?): no longer current (?:per [^;]+|from here)")


def session_ended(lines: Iterable[LineCandidate]) -> dict[str, dict[str, str]]:
    """The values marked ended on lines, by session: ``{session: {value: its mark}}``.

    A session is one document or thread: the other lines of it naming the value speak of the
    same thing (docs/concepts/recall.md#said-ended).
    """
    out: dict[str, dict[str, str]] = {}
    for c in lines:
        for m in _ENDED_MARK.finditer(c.superseded or ""):
            value = m.group("value")
            mark = m.group(0).lstrip("; ")
            if mark.endswith("from here"):  # the line that says so: its session's date
                mark = f"{value}: no longer current per {fmt_date(c.line.started_at)}"
            out.setdefault(c.line.session, {}).setdefault(value, mark)
    return out


def ended_here(row: LineRow, marked: Mapping[str, Mapping[str, str]]) -> str | None:
    """The mark of a value its session says ended elsewhere that ``row`` names, or ``None``."""
    text = _norm(row.text)
    return next(
        (mark for value, mark in marked.get(row.session, {}).items() if names_phrase(value, text)),
        None,
    )


def _mark_restated(
    candidates: Sequence[LineCandidate], *, valid_at: dt.datetime, query: str
) -> None:
    """Mark a line whose value of a kind a later line shown with it gives otherwise.

    "k8s version in prod is 1.27", then "the upgrade to 1.29 went through, prod is on 1.29
    now": the earlier one reads ``(1.27 possibly superseded: 1.29 per 4 Feb 2025)``
    (:mod:`graphmem.restated`, docs/concepts/recall.md#restated). A mark, never a write.
    """
    skip = frozenset(c.line.id for c in candidates if c.superseded is not None)
    found = _line_marks([c.line for c in candidates], valid_at=valid_at, query=query, skip=skip)
    for c in candidates:
        if c.line.id in found:
            c.superseded = found[c.line.id]


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
