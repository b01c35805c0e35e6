"""The fact candidates of :func:`graphmem.context.context` and :func:`~graphmem.context.search`.

Found by entity match (the query's spans, and the owner's words), neighbourhood and full
text, then scored and given their "was" notes; :mod:`graphmem.context` documents the rules
(docs/concepts/recall.md#rule-3) and :mod:`graphmem.context_render` renders what is chosen.
"""

from __future__ import annotations

import datetime as dt
import logging
import math
import re
import unicodedata
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from graphmem.decay import effective_importance
from graphmem.errors import InvalidInput, StoreError
from graphmem.normalize import STOPWORDS, entity_key, stem
from graphmem.store.base import Store
from graphmem.store.records import FactView

if TYPE_CHECKING:
    from graphmem.kernel import Kernel

# The warnings come under the name of the call that finds the candidates: context().
_log = logging.getLogger("graphmem.context")

#: Longest query span (in words) tried as an entity name.
MAX_SPAN = 6
#: At most this many spans are looked up (one primary-key lookup each, ~0.7 ms at 1M facts).
MAX_LOOKUPS = 24
#: Hit names of more than this many words are texts (notes): only facts *pointing at* them
#: are read (saves a query per hit).
TEXT_WORDS = 4
#: At most this many spans of 2-3 words are also looked up hyphenated (:func:`_anchors`).
JOINED_LOOKUPS = 6
#: Full-text hits whose facts join the candidates: without / with an entity match.
FTS_HITS, FTS_HITS_ANCHORED = 6, 3
#: Facts read per entity when it is the *object* (protects against hubs).
IN_LIMIT = 50
#: At most this many extra subject lookups for "was" notes (subjects not already read; one
#: query each, ~5 ms at 1M facts), best-ranked facts first.
WAS_LOOKUPS = 1

W_RELEVANCE, W_IMPORTANCE, W_RECENCY = 0.60, 0.25, 0.15
REL_SUBJECT, REL_OBJECT = 1.0, 0.85
REL_HIT_SUBJECT, REL_HIT_OBJECT = 0.6, 0.7
#: Relevance of a fact about a thing an anchored fact leads to (docs/concepts/recall.md#bridges).
REL_BRIDGE = 0.6
#: The best anchored facts whose other end is followed, and at most how many things.
BRIDGE_FROM, BRIDGES = 3, 3
#: Versions read per bridged thing as the subject.
BRIDGE_FACTS = 200
OVERLAP_WEIGHT = 0.5
#: Added to a fact's relevance times the share of its predicate's words found in the query
#: (deploy ~ deploys_with, "embeddings provider" ~ embeddings_provider).
PREDICATE_WEIGHT = 0.3
#: Words of a query that name the owner: "we", "I", "my", "the user" (docs/concepts/recall.md).
_OWNER = re.compile(
    r"(?<![\w-])(?:we|our|ours|ourselves|us|i|me|my|mine|myself|the user(?:'s)?)(?![\w-])",
    re.IGNORECASE,
)

_STOPWORDS = STOPWORDS
_WORD = re.compile(r"[^\W_]+(?:[+#]+|(?:[.'-][^\W_]+)*)", re.UNICODE)
_EDGE = ".,;:!?\"'()[]{}<>«»“”‘’`"
_CONNECTORS = frozenset({"of", "&", "de", "la", "le", "van", "von", "der", "du", "da", "del", "y"})


def _terms(text: str) -> set[str]:
    """Lower-cased, stemmed content words of a text (stop words removed).

    :func:`graphmem.normalize.terms`'s stems, but "node.js", "c++" and digits stay words: a
    fact's words are its values; a hyphenated word is also each of its words
    (docs/concepts/recall.md#the-words-of-recall).
    """
    words = _WORD.findall(unicodedata.normalize("NFKC", text).casefold().replace("_", " "))
    # "check-out" is also its words: "when do we check out?" names it
    parts = [p for w in words if "-" in w and w.replace("-", "").isalpha() for p in w.split("-")]
    return {stem(w) for w in (*words, *parts) if w and w not in _STOPWORDS}


def _keywords(query: str) -> list[str]:
    """Alphabetic keywords for the full-text index (it stems and drops digits itself).

    docs/concepts/recall.md#the-words-of-recall
    """
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
    fact: FactView
    direction: str
    relevance: float = 0.0
    score: float = 0.0
    was: tuple[str, ...] = ()
    said_ended: str = ""  # a later line says its value ended (docs/concepts/recall.md#said-ended)
    disputed: str = ""  # docs/concepts/decisions.md#authority-and-disputes
    shown: str = ""  # a long note's pieces on the query's topic (docs/concepts/recall.md#excerpts)
    # holds a word of the query besides the anchors' names, or the query is only names
    # (docs/benchmarks.md#locomo-recall)
    on_topic: bool = False

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
_INDEX_READY: weakref.WeakKeyDictionary[Store, bool] = weakref.WeakKeyDictionary()


def _index_ready(store: Store) -> bool:
    ready = _INDEX_READY.get(store)
    if ready is None:
        try:
            ready = store.ensure_entity_index()
        except StoreError as exc:  # e.g. a full disk: search without the index
            _log.warning("context(): cannot build the full-text index, scanning: %s", exc)
            ready = False
        _INDEX_READY[store] = ready
    return ready


def _full_text(
    store: Store, keywords: Sequence[str], exclude: set[str]
) -> tuple[dict[str, float], dict[str, str]]:
    """Return ``{entity id: score in (0, 1]}`` and ``{entity id: name}`` of the best hits."""
    if not keywords:
        return {}, {}
    use_index = _index_ready(store)
    try:
        hits = store.search_entities(keywords, limit=FTS_HITS + len(exclude), use_index=use_index)
    except StoreError:
        if not use_index:
            raise
        _INDEX_READY[store] = False  # the index vanished (dropped by another process?)
        hits = store.search_entities(keywords, limit=FTS_HITS + len(exclude), use_index=False)
    kept = [h for h in hits if h[0] not in exclude]
    return {eid: score for eid, _, score in kept}, {eid: name for eid, name, _ in kept}


def _names_a_slot(kernel: Kernel, query: str, *, v_at: dt.datetime, k_at: dt.datetime) -> bool:
    """Whether the query names a relation ("the primary region", "storage").

    Text files the slots of things without a name of their own under the owner ("our primary
    region is X"), so a question naming such a relation anchors the owner too
    (docs/concepts/recall.md).
    """
    words = _terms(query)
    if _WHERE.match(query) and _holds_a_place(kernel, v_at=v_at, k_at=k_at):
        return True  # "where is the conference?" asks for a place the owner's slots hold
    for p in kernel.ontology.predicates():
        slot = _terms(p.name.replace("_", " "))
        if p.name == "note" or not slot:
            continue
        # all its words, or its head and half of them ("support hours" names
        # customer_support_hours), or a head of its own ("the family dinner" names
        # thanksgiving_dinner), or all but the kind of value ("the move" names move_date;
        # "the date" alone names no one slot)
        head = _terms(p.name.rsplit("_", 1)[-1])
        named = slot - _GENERIC_HEADS  # "the move" names move_date
        if (
            slot <= words
            or (named and named <= words)
            or (
                head <= words
                and (2 * len(slot & words) >= len(slot) or bool(head) and not head & _GENERIC_HEADS)
            )
        ):
            return True
    return False


def _holds_a_place(kernel: Kernel, *, v_at: dt.datetime, k_at: dt.datetime) -> bool:
    """Whether the owner held a slot of a place at ``v_at``, as known at ``k_at``."""
    owner = entity_key(kernel.owner)
    owner = kernel.aliases.get(owner, owner)
    places = {
        (owner, p.name)
        for p in kernel.ontology.predicates()
        if _terms(p.name.replace("_", " ")) & _PLACE_HEADS
    }
    return any(v.valid_at(v_at) for v in kernel.store.versions_of(sorted(places), known_at=k_at))


_WHERE = re.compile(r"(?i)\s*where\b")
#: The heads of slots that hold a place.
_PLACE_HEADS = frozenset(stem(w) for w in ("location", "located", "venue", "address", "room"))
#: Heads of slots that say what kind of value they hold, not which thing: a question that
#: names only them ("what time ...", "which date ...") names no slot of the owner.
_GENERIC_HEADS = frozenset(
    stem(w)
    for w in (  # noqa: SIM905
        "date time day hour minute week month year name number status type level count id "
        "list value kind amount price cost fee rate size"
    ).split()
)


def _anchors(
    kernel: Kernel, query: str, *, v_at: dt.datetime, k_at: dt.datetime
) -> tuple[dict[str, str], set[str]]:
    """The entities the query names (``{id: name}``), and those named only with hyphens.

    A span of 2-3 words is also looked up hyphenated, the way identifiers are written in logs
    ("the checkout service": ``checkout-service``; recall.md#bridges); an entity found only so
    keeps its words in the full-text query (notes that name it are still found).
    """
    ids = set()
    if _OWNER.search(unicodedata.normalize("NFKC", query)) or _names_a_slot(
        kernel, query, v_at=v_at, k_at=k_at
    ):
        owner = entity_key(kernel.owner)
        ids.add(kernel.aliases.get(owner, owner))
    joined: set[str] = set()
    for span in _spans(query):
        try:
            key = entity_key(span)
        except InvalidInput:
            continue
        ids.add(kernel.aliases.get(key, key))
        if 2 <= len(key.split()) <= 3 and len(joined) < JOINED_LOOKUPS:
            hyphened = key.replace(" ", "-")
            joined.add(kernel.aliases.get(hyphened, hyphened))
    found = kernel.store.find_entities(ids | joined)
    return found, {i for i in joined - ids if i in found}


def _age_days(f: FactView, *, valid_at: dt.datetime, known_at: dt.datetime) -> float:
    # Events age on the world axis (when they happened), other kinds on the system axis.
    delta = valid_at - f.valid_from if f.kind == "event" else known_at - f.recorded_at
    return max(delta.total_seconds() / 86400.0, 0.0)


def _predicate_names(kernel: Kernel, predicate: str) -> list[set[str]]:
    """The terms of a predicate's name and of each of its aliases ("role": "job title")."""
    found = kernel.ontology.lookup(predicate)
    names = [predicate, *(found.aliases if found is not None else ())]
    return [t for t in (_terms(n.replace("_", " ")) for n in names) if t]


def _score(
    c: _Candidate,
    query_terms: set[str],
    names: Sequence[set[str]],
    *,
    valid_at: dt.datetime,
    known_at: dt.datetime,
    replay: bool = False,
) -> float:
    f = c.fact
    overlap = 0.0
    if query_terms:
        fact_terms = _terms(" ".join((f.subject, f.predicate, f.object, f.statement or "")))
        overlap = len(query_terms & fact_terms) / len(query_terms)
    relevance = c.relevance + OVERLAP_WEIGHT * overlap
    if query_terms and f.predicate != "note" and names:
        # the predicate's name or one of its aliases, as much of it as the query holds
        share = max(len(query_terms & t) / len(t) for t in names)
        relevance += PREDICATE_WEIGHT * share
    eff = effective_importance(
        f.importance,
        kind=f.kind,
        age_days=_age_days(f, valid_at=valid_at, known_at=known_at),
        # The counters are not versioned: a reading as of a known_at ranks without them, so
        # it is the same however much is read later (docs/concepts/time.md#what-the-agent-was-told).
        access_count=0 if replay else f.access_count,
        pinned=f.pinned,
    )
    importance = min(eff / 10.0, 1.0)
    valid_days = max((valid_at - f.valid_from).total_seconds() / 86400.0, 0.0)
    recency = math.exp(-valid_days / 365.0)
    return W_RELEVANCE * relevance + W_IMPORTANCE * importance + W_RECENCY * recency


def _predecessors(
    kernel: Kernel,
    chosen: Sequence[_Candidate],
    timelines: dict[str, list[FactView]],
    *,
    known_at: dt.datetime,
) -> None:
    """Fill ``was`` for single-valued facts: the objects they replaced.

    A replaced version has the same subject and predicate, another object, is known at
    ``known_at`` and ends exactly where the fact starts.
    """

    def single(predicate: str) -> bool:
        found = kernel.ontology.lookup(predicate)
        return found is not None and found.cardinality == "one"

    wanted = [c for c in chosen if single(c.fact.predicate)]
    missing: list[tuple[str, str]] = []
    for c in wanted:  # best first; each lookup is one query, so only a few
        pair = (c.fact.subject_id, c.fact.predicate)
        if c.fact.subject_id not in timelines and pair not in missing:
            missing.append(pair)
    missing = missing[:WAS_LOOKUPS]
    extra: dict[str, list[FactView]] = {}
    for row in kernel.store.versions_of(missing, known_at=known_at):
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


def _gather_facts(
    kernel: Kernel, query: str, *, v_at: dt.datetime, k_at: dt.datetime, replay: bool = False
) -> tuple[list[_Candidate], dict[str, list[FactView]], dict[str, str]]:
    """Find and rank the fact candidates; return them, the subjects' timelines, the anchors."""
    store = kernel.store
    anchors, hyphened = _anchors(kernel, query, v_at=v_at, k_at=k_at)
    candidates: dict[str, _Candidate] = {}

    touched: set[str] = set()  # candidates new or raised since they were scored

    def offer(row: FactView, direction: str, relevance: float) -> None:
        c = candidates.get(row.id)
        if c is None:
            candidates[row.id] = _Candidate(row, direction, relevance)
            touched.add(row.id)
        elif relevance > c.relevance:
            c.relevance = relevance
            touched.add(row.id)

    # Subjects' timelines as known at known_at: what is valid now, and what it replaced.
    # A hit with a long name is a text (a note): only facts pointing at it matter.
    timelines: dict[str, list[FactView]] = {}
    named: list[str] = []
    live: set[str] = set()  # anchors with a current fact

    def read_around(
        ids: Sequence[str], names: Mapping[str, str], hits: Mapping[str, float]
    ) -> None:
        subjects = [i for i in ids if len(names[i].split()) <= TEXT_WORDS]
        timelines.update({i: [] for i in subjects})
        for row in store.facts_from(subjects, known_at=k_at) if subjects else ():
            timelines[row.via].append(row)
            if row.valid_at(v_at):
                live.add(row.via)
                rel = REL_SUBJECT if row.via in anchors else REL_HIT_SUBJECT * hits[row.via]
                offer(row, "out", rel)
        for row in store.facts_to(ids, known_at=k_at, valid_at=v_at, limit=IN_LIMIT) if ids else ():
            live.add(row.via)
            rel = REL_OBJECT if row.via in anchors else REL_HIT_OBJECT * hits[row.via]
            offer(row, "in", rel)
            if row.via in anchors and row.predicate in NAME_PREDICATES:
                named.append(row.subject_id)  # "Tomás" is the one whose name is Tomás

    read_around(sorted(anchors), anchors, {})
    # An anchor with no current fact says nothing now ("Translations", whose vendor was
    # closed): its words stay in the full-text query, so the notes that name it are found.
    speaking = {i for i in anchors if i in live and i not in hyphened}
    anchor_words = {w for i in speaking for w in _keywords(anchors[i])}
    # A question of nothing but a thing's name asks the notes that name it too ("Where is the
    # office now?" after a note "we'll be working out of 9 Quayside Road ... Office move").
    keywords = [w for w in _keywords(query) if w not in anchor_words] or _keywords(query)
    hits, hit_names = _full_text(store, keywords, set(anchors))
    top = FTS_HITS_ANCHORED if speaking else FTS_HITS
    hit_ids = sorted(hits, key=lambda i: (-hits[i], i))[:top]
    read_around(hit_ids, hit_names, hits)
    named = [i for i in dict.fromkeys(named) if i not in timelines][:NAMED_LOOKUPS]
    if named:
        for i in named:
            timelines[i] = []
        for row in store.facts_from(named, known_at=k_at):
            timelines[row.via].append(row)
            if row.valid_at(v_at):
                offer(row, "out", REL_SUBJECT)
    terms = _terms(query)
    topic = terms - {w for name in anchors.values() for w in _terms(name)}
    predicate_names: dict[str, list[set[str]]] = {}
    said: dict[str, set[str]] = {}  # fact id: its words and its predicate's names

    def rank() -> list[_Candidate]:
        """Score the candidates offered since the last call; all of them, best first."""
        for fid in touched:
            c = candidates[fid]
            f = c.fact
            names_of = predicate_names.get(f.predicate)
            if names_of is None:
                names_of = predicate_names[f.predicate] = _predicate_names(kernel, f.predicate)
            c.score = _score(c, terms, names_of, valid_at=v_at, known_at=k_at, replay=replay)
            words = _terms(" ".join((f.subject, f.predicate, f.object, f.statement or "")))
            said[f.id] = words | {w for t in names_of for w in t}
            c.on_topic = not topic or bool(topic & said[f.id])  # a bare name: all its facts are
        touched.clear()
        return sorted(candidates.values(), key=_Candidate.sort_key)

    ranked = rank()
    bridges = _bridges(kernel, ranked, anchors, set(timelines), topic, said)
    if bridges:  # the things the best anchored facts lead to (recall.md#bridges)
        read = list(bridges)
        for i in read:
            timelines[i] = []
        for row in store.facts_from(read, known_at=k_at, limit=BRIDGE_FACTS):
            timelines[row.via].append(row)
            if row.valid_at(v_at):
                offer(row, "out", REL_BRIDGE)
        for row in store.facts_to(read, known_at=k_at, valid_at=v_at, limit=IN_LIMIT):
            offer(row, "in", REL_BRIDGE)
        ranked = rank()
    # "was" notes for the best facts (free for anchored subjects; WAS_LOOKUPS queries else).
    _predecessors(kernel, ranked[:WAS_FOR], timelines, known_at=k_at)
    return ranked, timelines, anchors


def _bridges(
    kernel: Kernel,
    ranked: Sequence[_Candidate],
    anchors: Mapping[str, str],
    read: set[str],
    topic: set[str],
    said: Mapping[str, set[str]],
) -> dict[str, str]:
    """The things the best anchored facts lead to, when the query asks beyond them.

    "In which city is Bob's employer headquartered?": Bob's facts hold no word of "city" or
    "headquartered", so the thing his best facts name (Globex, of ``Bob works_at Globex``) is
    read too (docs/concepts/recall.md#bridges). Only the :data:`BRIDGE_FROM` best facts of the
    anchors are followed, to at most :data:`BRIDGES` things not read already; none when the
    anchors' facts hold every topic word of the query.
    """
    anchored = [c for c in ranked if c.fact.via in anchors and c.fact.predicate != "note"]
    best = anchored[:BRIDGE_FROM]
    if not best or not topic:
        return {}
    covered = set().union(*(said[c.fact.id] for c in anchored))
    if topic <= covered:
        return {}
    ids: list[str] = []
    for c in best:
        f = c.fact
        if c.direction == "in":
            ids.append(f.subject_id)
            continue
        if len(f.object.split()) > TEXT_WORDS:
            continue
        try:
            key = entity_key(f.object)
        except InvalidInput:
            continue
        ids.append(kernel.aliases.get(key, key))
    wanted = [i for i in dict.fromkeys(ids) if i not in read and i not in anchors][:BRIDGES]
    return kernel.store.find_entities(wanted) if wanted else {}


#: Relations that give a thing's own name: a question naming it is about the thing.
NAME_PREDICATES = frozenset({"name", "full_name", "nickname", "goes_by", "preferred_name"})
#: At most this many things found by their name are read (one query for all).
NAMED_LOOKUPS = 2
#: Facts that get their "was" notes looked up (the best ranked).
WAS_FOR = 60
