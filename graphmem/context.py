"""Agent context (SPEC §5): the facts relevant to a query as a compact, deterministic text block.

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

How candidates are found (:mod:`graphmem.store.search` holds the queries)
    1. *Entity match*: every 1- to 6-word span of the query is normalised like an entity name
       (and resolved through aliases) and looked up by primary key; hits are the **anchors**.
    2. *Neighbourhood*: the facts whose subject or object is an anchor (1 hop). An anchor's
       whole timeline as known at ``known_at`` is read, so replaced values are at hand.
    3. *Full text*: the query's keywords (minus the anchors' own words) against the FTS index
       on entity names, which also holds every free-text note (a note's object entity is its
       text); the facts around the best 6 hits (3 when an anchor matched) join the
       candidates (for a hit named by more than 4 words — a text — only the facts pointing
       at it). Statements are matched in Python over the candidates. The index is built on
       first use (about 1 s per 100k entities); without it (ladybug offline, read-only memory
       without an index) a scan of entity names stands in, see :mod:`graphmem.store.search`.
    Bounds, so hubs cost one bounded query: 2000 versions per subject timeline, 50 facts per
    entity as the object.
    Only versions with ``recorded_at <= known_at < expired_at`` and
    ``valid_from <= valid_at < valid_to`` are served — the rule of ``facts()``: a closed version
    never appears as current. Both default to now.

How they are ranked
    ``score = 0.60 * relevance + 0.25 * importance + 0.15 * recency``, ties by subject,
    predicate, object, ``valid_from`` and id (deterministic).
    - relevance: 1.0 when the subject is an anchor, 0.85 when the object is; for full-text hits
      0.6 (subject) or 0.7 (object, e.g. a note's text) times the hit's BM25 score relative to
      the best hit; plus ``0.5 * overlap``, the share of the query's keywords (lower-cased,
      lightly stemmed) found in the fact's subject, predicate, object and statement.
    - importance: :func:`graphmem.decay.effective_importance` of the fact's importance, kind,
      access count and pinned flag, divided by 10 and capped at 1. **Age**: an ``event`` ages
      from ``valid_from`` (when it happened) to ``valid_at``; every other kind ages from
      ``recorded_at`` (when graphmem learned this version) to ``known_at`` — a fact true since
      2015 but learned yesterday is fresh knowledge, a backfilled event from 2015 is old news.
    - recency: ``exp(-days / 365)`` where days run from ``valid_from`` to ``valid_at``.

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
    footer included, stays within ``budget_tokens * 4`` characters. Lines are added best first;
    one that does not fit is skipped and a footer counts what was left out.

Side effect
    The facts rendered get ``access_count + 1`` and ``last_accessed_at = now`` in one
    transaction (bookkeeping, SPEC §2 rule 2: no interval changes, so no ``facts(valid_at,
    known_at)`` answer changes which versions it returns). Nothing is written on a read-only
    memory. As the access count feeds the decay boost, a later call may rank close facts
    differently: the output is a function of the store's state and the arguments (and the
    clock, when ``valid_at``/``known_at`` default to now).
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import re
import unicodedata
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.decay import effective_importance
from graphmem.errors import GraphmemError, InvalidInput, StoreError
from graphmem.normalize import entity_key
from graphmem.store import search
from graphmem.store.kuzu_store import KuzuStore
from graphmem.timeutil import TimeLike, to_utc

if TYPE_CHECKING:
    from graphmem.memory import Memory

__all__ = ["CHARS_PER_TOKEN", "context", "estimate_tokens"]

_log = logging.getLogger(__name__)

#: Characters per token in the budget estimate.
CHARS_PER_TOKEN = 4
#: Longest query span (in words) tried as an entity name.
MAX_SPAN = 6
#: At most this many spans are looked up (one primary-key lookup each, ~0.7 ms at 1M facts).
MAX_LOOKUPS = 24
#: Hit names of more than this many words are texts (notes): only facts *pointing at* them
#: are read (saves a query per hit).
TEXT_WORDS = 4
#: Full-text hits whose facts join the candidates: without / with an entity match.
FTS_HITS, FTS_HITS_ANCHORED = 6, 3
#: Facts read per entity when it is the *object* (protects against hubs).
IN_LIMIT = 50
#: At most this many extra subject lookups for "was" notes (subjects not already read; one
#: query each, ~5 ms at 1M facts), best-ranked facts first.
WAS_LOOKUPS = 1
#: Longest object text rendered.
MAX_OBJECT = 160

W_RELEVANCE, W_IMPORTANCE, W_RECENCY = 0.60, 0.25, 0.15
REL_SUBJECT, REL_OBJECT = 1.0, 0.85
REL_HIT_SUBJECT, REL_HIT_OBJECT = 0.6, 0.7
OVERLAP_WEIGHT = 0.5

_STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before
    being below between both but by can could did do does doing down during each few for from
    further had has have having he her here hers herself him himself his how i if in into is it
    its itself just me more most my myself no nor not now of off on once only or other our ours
    ourselves out over own same she should so some such than that the their theirs them
    themselves then there these they this those through to too under until up very was we were
    what when where which while who whom why will with would you your yours yourself
    yourselves tell know currently current today""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[^\W_]+(?:[+#]+|(?:[.'-][^\W_]+)*)", re.UNICODE)
_EDGE = ".,;:!?\"'()[]{}<>«»“”‘’`"
_CONNECTORS = frozenset({"of", "&", "de", "la", "le", "van", "von", "der", "du", "da", "del", "y"})


def estimate_tokens(text: str) -> int:
    """Return the token estimate used for budgets: ``ceil(len(text) / 4)``.

    >>> estimate_tokens("12345678"), estimate_tokens("123456789"), estimate_tokens("")
    (2, 3, 0)
    """
    return -(-len(text) // CHARS_PER_TOKEN)


def _stem(word: str) -> str:
    for suffix in ("ing", "ies", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)] + ("y" if suffix == "ies" else "")
    return word


def _terms(text: str) -> set[str]:
    """Lower-cased, stemmed content words of a text (stop words removed)."""
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold().replace("_", " "))
    return {_stem(w) for w in words if w not in _STOPWORDS}


def _keywords(query: str) -> list[str]:
    """Alphabetic keywords for the full-text index (it drops digits and stop words itself)."""
    words = re.findall(r"[^\W\d_]+", unicodedata.normalize("NFKC", query).casefold())
    return sorted({w for w in words if w not in _STOPWORDS and len(w) > 1})


def _spans(query: str) -> list[str]:
    """Candidate entity names, at most :data:`MAX_LOOKUPS`, shortest first.

    Runs of content words (stop words break a run; "of", "&", "de" ... may join two content
    words, as in "Bank of America") give every sub-span of up to :data:`MAX_SPAN` words that
    starts and ends with a content word. A trailing possessive is dropped ("Alice's" → Alice).
    """
    tokens = []
    for raw in unicodedata.normalize("NFKC", query).split():
        tok = raw.strip(_EDGE)
        for suffix in ("'s", "’s"):
            if tok.casefold().endswith(suffix):
                tok = tok[: -len(suffix)]
        tok = tok.strip(_EDGE)
        if tok:
            tokens.append(tok)
    content = [t.casefold() not in _STOPWORDS for t in tokens]
    runs: list[list[str]] = []
    run: list[str] = []
    for i, tok in enumerate(tokens):
        joins = tok.casefold() in _CONNECTORS and run and i + 1 < len(tokens) and content[i + 1]
        if content[i] or joins:
            run.append(tok)
        elif run:
            runs.append(run)
            run = []
    if run:
        runs.append(run)
    spans: dict[str, int] = {}
    for run in runs:
        for i in range(len(run)):
            for j in range(i + 1, min(i + MAX_SPAN, len(run)) + 1):
                part = run[i:j]
                if part[0].casefold() in _CONNECTORS or part[-1].casefold() in _CONNECTORS:
                    continue
                spans.setdefault(" ".join(part), j - i)
    return sorted(spans, key=lambda s: (spans[s], s))[:MAX_LOOKUPS]


@dataclass
class _Candidate:
    fact: search.FactView
    direction: str
    relevance: float = 0.0
    score: float = 0.0
    was: tuple[str, ...] = ()

    def sort_key(self) -> tuple[float, str, str, str, dt.datetime, str]:
        f = self.fact
        return (
            -self.score,
            f.subject.casefold(),
            f.predicate,
            f.object.casefold(),
            f.valid_from,
            f.id,
        )


# Whether a store's entity FTS index is usable, so it is not looked up on every call.
_INDEX_READY: weakref.WeakKeyDictionary[KuzuStore, bool] = weakref.WeakKeyDictionary()


def _index_ready(store: KuzuStore) -> bool:
    ready = _INDEX_READY.get(store)
    if ready is None:
        try:
            ready = search.ensure_entity_index(store)
        except StoreError as exc:  # e.g. a full disk: search without the index
            _log.warning("context(): cannot build the full-text index, scanning: %s", exc)
            ready = False
        _INDEX_READY[store] = ready
    return ready


def _full_text(
    store: KuzuStore, keywords: Sequence[str], exclude: set[str]
) -> tuple[dict[str, float], dict[str, str]]:
    """Return ``{entity id: score in (0, 1]}`` and ``{entity id: name}`` of the best hits."""
    if not keywords:
        return {}, {}
    use_index = _index_ready(store)
    try:
        hits = search.search_entities(
            store, keywords, limit=FTS_HITS + len(exclude), use_index=use_index
        )
    except StoreError:
        if not use_index:
            raise
        _INDEX_READY[store] = False  # the index vanished (dropped by another process?)
        hits = search.search_entities(
            store, keywords, limit=FTS_HITS + len(exclude), use_index=False
        )
    kept = [h for h in hits if h[0] not in exclude]
    return {eid: score for eid, _, score in kept}, {eid: name for eid, name, _ in kept}


def _anchors(mem: Memory, query: str) -> dict[str, str]:
    ids = set()
    for span in _spans(query):
        try:
            key = entity_key(span)
        except InvalidInput:
            continue
        ids.add(mem._aliases.get(key, key))
    return search.find_entities(mem._store, ids)


def _age_days(f: search.FactView, *, valid_at: dt.datetime, known_at: dt.datetime) -> float:
    # Events age on the world axis (when they happened), other kinds on the system axis.
    delta = valid_at - f.valid_from if f.kind == "event" else known_at - f.recorded_at
    return max(delta.total_seconds() / 86400.0, 0.0)


def _score(
    c: _Candidate, query_terms: set[str], *, valid_at: dt.datetime, known_at: dt.datetime
) -> float:
    f = c.fact
    overlap = 0.0
    if query_terms:
        fact_terms = _terms(" ".join((f.subject, f.predicate, f.object, f.statement or "")))
        overlap = len(query_terms & fact_terms) / len(query_terms)
    relevance = c.relevance + OVERLAP_WEIGHT * overlap
    eff = effective_importance(
        f.importance,
        kind=f.kind,
        age_days=_age_days(f, valid_at=valid_at, known_at=known_at),
        access_count=f.access_count,
        pinned=f.pinned,
    )
    importance = min(eff / 10.0, 1.0)
    valid_days = max((valid_at - f.valid_from).total_seconds() / 86400.0, 0.0)
    recency = math.exp(-valid_days / 365.0)
    return W_RELEVANCE * relevance + W_IMPORTANCE * importance + W_RECENCY * recency


def _clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _line(c: _Candidate) -> str:
    f = c.fact
    tags = "".join(
        f"[{t}] "
        for t in ((f.kind,) if f.kind != "fact" else ()) + (("pinned",) if f.pinned else ())
    )
    if f.predicate == "note":
        body = f"{f.subject} note: {_clip(f.object, MAX_OBJECT)}"
    else:
        body = f"{f.subject} {f.predicate} {_clip(f.object, MAX_OBJECT)}"
    when = f"since {f.valid_from.date().isoformat()}"
    if f.valid_to is not None:
        when += f", until {f.valid_to.date().isoformat()}"
    if c.was:
        when += "; was " + ", ".join(_clip(w, 60) for w in c.was)
    return f"- {tags}{body} ({when})"


def _predecessors(
    mem: Memory,
    chosen: Sequence[_Candidate],
    timelines: dict[str, list[search.FactView]],
    *,
    known_at: dt.datetime,
) -> None:
    """Fill ``was`` for single-valued facts: the objects they replaced.

    A replaced version has the same subject and predicate, another object, is known at
    ``known_at`` and ends exactly where the fact starts.
    """

    def single(predicate: str) -> bool:
        found = mem.ontology.lookup(predicate)
        return found is not None and found.cardinality == "one"

    wanted = [c for c in chosen if single(c.fact.predicate)]
    missing: list[tuple[str, str]] = []
    for c in wanted:  # best first; each lookup is one query, so only a few
        pair = (c.fact.subject_id, c.fact.predicate)
        if c.fact.subject_id not in timelines and pair not in missing:
            missing.append(pair)
    missing = missing[:WAS_LOOKUPS]
    extra: dict[str, list[search.FactView]] = {}
    for row in search.versions_of(mem._store, missing, known_at=known_at):
        extra.setdefault(row.subject_id, []).append(row)
    for c in wanted:
        f = c.fact
        versions = timelines.get(f.subject_id) or extra.get(f.subject_id, [])
        was = {
            v.object
            for v in versions
            if v.predicate == f.predicate and v.object != f.object and v.valid_to == f.valid_from
        }
        c.was = tuple(sorted(was, key=str.casefold)[:2])


def _fmt_day(t: dt.datetime) -> str:
    return (
        t.date().isoformat()
        if (t.hour, t.minute, t.second, t.microsecond) == (0,) * 4
        else (t.replace(tzinfo=None).isoformat(timespec="seconds") + "Z")
    )


def _fit(lines: Iterable[str], budget_chars: int) -> str:
    """Join lines; a text over budget (only a header can be) is cut with an ellipsis."""
    text = "\n".join(lines)
    return text if len(text) <= budget_chars else text[: budget_chars - 1] + "…"


def context(
    mem: Memory,
    query: str,
    *,
    budget_tokens: int = 800,
    valid_at: TimeLike | None = None,
    known_at: TimeLike | None = None,
) -> str:
    """Return the facts relevant to ``query`` as a compact text block for an LLM prompt.

    See the module documentation for how facts are found, ranked and rendered.

    Args:
        mem: an open memory.
        query: the agent's question or topic, e.g. ``"what does the api run on?"``.
        budget_tokens: the block never exceeds ``budget_tokens * 4`` characters (~4 characters
            per token).
        valid_at: world time (default now): only facts true then.
        known_at: system time (default now): only what graphmem believed then.

    Returns:
        A header line and one line per fact, best first; a short sentence when nothing matches
        or the memory is empty. Deterministic for the same store state and arguments.

    Raises:
        InvalidInput: a blank or non-string query, a budget below 1, or bad times.
    """
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput(f"query={query!r} must be non-empty text, e.g. 'where does Alice work?'")
    if isinstance(budget_tokens, bool) or not isinstance(budget_tokens, int) or budget_tokens < 1:
        raise InvalidInput(f"budget_tokens={budget_tokens!r} must be a positive integer, e.g. 800")
    now = mem.now()
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
    store = mem._store

    with mem._lock:
        anchors = _anchors(mem, query)
        anchor_words = {w for name in anchors.values() for w in _keywords(name)}
        keywords = [w for w in _keywords(query) if w not in anchor_words]
        hits, hit_names = _full_text(store, keywords, set(anchors))
        top = FTS_HITS_ANCHORED if anchors else FTS_HITS
        hit_ids = sorted(hits, key=lambda i: (-hits[i], i))[:top]
        ids = sorted(anchors) + hit_ids
        candidates: dict[str, _Candidate] = {}

        def offer(row: search.FactView, direction: str, relevance: float) -> None:
            c = candidates.get(row.id)
            if c is None:
                candidates[row.id] = _Candidate(row, direction, relevance)
            elif relevance > c.relevance:
                c.relevance = relevance

        # Subjects' timelines as known at known_at: what is valid now, and what it replaced.
        # A hit with a long name is a text (a note): only facts pointing at it matter.
        names = {**anchors, **{h: hit_names[h] for h in hit_ids}}
        subjects = [i for i in ids if len(names[i].split()) <= TEXT_WORDS]
        timelines: dict[str, list[search.FactView]] = {i: [] for i in subjects}
        for row in search.facts_from(store, subjects, known_at=k_at):
            timelines[row.via].append(row)
            if row.valid_at(v_at):
                rel = REL_SUBJECT if row.via in anchors else REL_HIT_SUBJECT * hits[row.via]
                offer(row, "out", rel)
        for row in search.facts_to(store, ids, known_at=k_at, valid_at=v_at, limit=IN_LIMIT):
            rel = REL_OBJECT if row.via in anchors else REL_HIT_OBJECT * hits[row.via]
            offer(row, "in", rel)

        if not candidates:
            if not search.has_facts(store):
                return _fit(["Memory is empty: no facts stored yet."], budget_chars)
            return _fit([f'No facts in memory match "{shown_query}"{when}.'], budget_chars)

        terms = _terms(query)
        for c in candidates.values():
            c.score = _score(c, terms, valid_at=v_at, known_at=k_at)
        ranked = sorted(candidates.values(), key=_Candidate.sort_key)

        n = len(ranked)
        total = f"{n} fact{'s' if n != 1 else ''}"

        def header(count: str) -> str:
            return f'Memory relevant to "{shown_query}" ({count}{when}):'

        full_room = budget_chars - len(header(total))
        part_room = budget_chars - len(header(f"{n} of {total}")) - len(_footer(n)) - 1

        def fit(cands: Sequence[_Candidate]) -> list[_Candidate]:
            if len(cands) == n and sum(1 + len(_line(c)) for c in cands) <= full_room:
                return list(cands)
            return _choose(cands, part_room)

        # Choose without the "was" notes, look those up for the chosen facts only, then drop
        # from the end whatever no longer fits.
        chosen = fit(ranked)
        _predecessors(mem, chosen, timelines, known_at=k_at)
        chosen = fit(chosen)
        left = n - len(chosen)
        out = [header(f"{len(chosen)} of {total}" if left else total), *map(_line, chosen)]
        if left and len("\n".join(out)) + 1 + len(_footer(left)) <= budget_chars:
            out.append(_footer(left))
        _bump(mem, chosen, now)
        return _fit(out, budget_chars)


def _footer(left: int) -> str:
    return f"(+{left} more not shown; raise budget_tokens)"


def _choose(ranked: Sequence[_Candidate], room: int) -> list[_Candidate]:
    """Take lines best first while they fit in ``room`` characters; skip the ones that don't."""
    chosen: list[_Candidate] = []
    used = 0
    for c in ranked:
        size = 1 + len(_line(c))
        if used + size <= room:
            chosen.append(c)
            used += size
        elif room - used < 24:  # no line is shorter than that
            break
    return chosen


def _bump(mem: Memory, chosen: Sequence[_Candidate], now: dt.datetime) -> None:
    """Count the retrieval of the rendered facts (one transaction; none when read-only)."""
    store = mem._store
    if not chosen or store.read_only:
        return
    groups: dict[tuple[str, str], list[str]] = {}
    for c in chosen:
        groups.setdefault((c.direction, c.fact.via), []).append(c.fact.id)
    try:
        with store.transaction():
            search.count_access(store, groups, at=now)
    except GraphmemError as exc:
        # Bookkeeping must never cost the caller its answer.
        _log.warning("context(): could not bump access counters: %s", exc)
