"""Sessions: writing them (their text becomes claims), reading them, the mentions in text.

Topic hotness and triage over sessions are :mod:`graphmem.topics` (re-exported here).

A **session** (episode) is something the agent lived through: a chat, a meeting, a run. It is
stored as a node that ``MENTIONS`` entities (topics) with a count, and it is the provenance of
the facts written with ``source=session_id`` (:func:`session_facts` lists them). Mention names
resolve to entities exactly like fact subjects do (normalised, aliases), so "Kubernetes" in a
session and "kubernetes" in a fact are one node.

>>> import graphmem as gm
>>> with gm.open(clock=lambda: gm.to_utc("2026-06-10")) as mem:
...     w = mem.add_session("Alice joined Globex.", started_at="2026-06-09", session_id="s1")
...     [(f.subject, f.predicate, f.object) for f in session_facts(mem, "s1")]
[('Alice', 'works_at', 'Globex')]
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphmem.errors import InvalidInput, NotFound
from graphmem.kernel import kernel_of
from graphmem.models import Entity, Fact, Session, WriteResult
from graphmem.normalize import MAX_ID, check_size, check_text, clean_subject
from graphmem.timeutil import TimeLike, to_utc

if TYPE_CHECKING:
    from graphmem.kernel import Kernel, MemoryLike

__all__ = [
    "MAX_NGRAM",
    "SESSION_FIELDS",
    "SessionWrite",
    "add_session",
    "add_sessions",
    "get_session",
    "hot_topics",
    "mentions_in_text",
    "session_count",
    "session_facts",
    "sessions",
    "topic_terms",
    "triage",
]

#: Keys accepted by :func:`add_sessions` for one session (``add_session``'s parameters).
SESSION_FIELDS = frozenset(
    {"text", "started_at", "session_id", "title", "mentions", "source", "ended_at", "summary"}
)
#: Longest entity name, in words, that :func:`mentions_in_text` looks for.
MAX_NGRAM = 4
#: Longest candidate name, in characters, that :func:`mentions_in_text` looks up.
MAX_MENTION = 200

#: Words of a text where known names are looked up (case kept; never ranks:
#: docs/concepts/recall.md#the-words-of-recall).
_TOKEN = re.compile(r"\w+(?:[.+#'’-]+\w+)*[+#]*")

MentionsArg = Mapping[str, int] | Iterable[str] | None


# -- writing sessions ------------------------------------------------------------------------


@dataclass(frozen=True)
class SessionWrite:
    """What :func:`add_session` did: the stored session and the writes its text made.

    ``results`` holds one :class:`~graphmem.models.WriteResult` per fact written, ended or
    noted from the text (empty when the session has no text or ``extract=False``). The
    session's own fields read through: ``write.id`` is ``write.session.id``, and so on.
    """

    session: Session
    results: tuple[WriteResult, ...] = ()

    def __getattr__(self, name: str) -> Any:
        # The session's fields (id, started_at, mentions, text, ...) read through.
        if name in Session.model_fields:
            return getattr(self.session, name)
        raise AttributeError(f"'SessionWrite' object has no attribute {name!r}")


_ids = threading.Lock()
_last_us = 0


def session_id() -> str:
    """A fresh session id that sorts after every id this process made before it.

    The creation time in microseconds (kept increasing within the process), then 32 random
    bits. Two sessions of one instant are told apart by the order they were added, not by
    chance (docs/concepts/recall.md#how-lines-are-ranked); ids of other processes stay
    unique by their random part.
    """
    global _last_us
    with _ids:
        _last_us = max(time.time_ns() // 1000, _last_us + 1)
        now = _last_us
    return f"s{now:013x}{os.urandom(4).hex()}"


def add_session(
    mem: MemoryLike,
    text: str | None = None,
    *,
    started_at: TimeLike,
    session_id: str | None = None,
    title: str | None = None,
    mentions: MentionsArg = None,
    source: str | None = None,
    ended_at: TimeLike | None = None,
    summary: str | None = None,
    extract: bool = True,
) -> SessionWrite:
    """Record a session, the facts its text states and the topics it mentions, in one transaction.

    The text goes through the text pipeline (:mod:`graphmem.text`): "Alice left Acme and
    joined Globex" ends ``Alice works_at Acme`` and adds ``Alice works_at Globex``, with the
    session as each fact's ``source`` and the sentence as its ``statement``; valid time
    defaults to ``started_at``. The text itself is kept with the session (not as a note).

    Args:
        mem: the memory.
        text: the session's text (transcript or notes).
        started_at: when it happened; hotness counts it from then.
        session_id: its id (default: a fresh one). Re-adding an id replaces that session and
            its mentions, so the call is idempotent.
        title: a short title.
        mentions: the topics it mentions, as ``{name: count}`` or an iterable of names (1 each;
            a repeated name counts again; one string is one name). ``None`` with ``text``
            looks for existing entity names in the text (:func:`mentions_in_text`); ``None``
            without text, or an empty collection, records no mention.
        source: where it came from (a channel, a file, a tool).
        ended_at: when it ended (not before ``started_at``).
        summary: a summary of the text.
        extract: read the text for claims (default); ``False`` only logs the session.

    Returns:
        A :class:`SessionWrite`: the stored :class:`~graphmem.models.Session` (its mentions
        keyed by entity display name) and the WriteResults of the facts its text stated.

    Raises:
        InvalidInput: a bad value (the message names it and the fix); nothing is written.
        ClockError: the memory's clock moved backwards.
    """
    kernel = kernel_of(mem)
    item = {
        "text": text,
        "started_at": started_at,
        "session_id": session_id,
        "title": title,
        "mentions": mentions,
        "source": source,
        "ended_at": ended_at,
        "summary": summary,
    }
    return _write(kernel, [item], single=True, extract=extract)[0]


def add_sessions(
    mem: MemoryLike, items: Iterable[Mapping[str, Any] | Session], *, extract: bool = True
) -> list[Session]:
    """Record many sessions in one transaction with a constant number of store queries.

    Large batches are bulk-copied into the store (10,000 sessions with 40,000 mentions over
    1,000 topics load in about a second on Kuzu, most of it resolving names). A later item
    with the same id replaces an earlier one, as consecutive :func:`add_session` calls would.

    Args:
        mem: the memory.
        items: dictionaries with :func:`add_session`'s parameters as keys
            (:data:`SESSION_FIELDS`), or :class:`~graphmem.models.Session` models.
        extract: read each session's text for claims (default), in the same transaction.

    Returns:
        The stored sessions, in input order.

    Raises:
        InvalidInput: any bad item (the message gives its index); nothing is written.
        ClockError: the memory's clock moved backwards.
    """
    kernel = kernel_of(mem)
    rows: list[Mapping[str, Any]] = []
    for i, item in enumerate(items):
        if isinstance(item, Session):
            rows.append(
                {
                    "session_id": item.id,
                    "started_at": item.started_at,
                    "ended_at": item.ended_at,
                    "title": item.title,
                    "text": item.text,
                    "summary": item.summary,
                    "source": item.source,
                    "mentions": dict(item.mentions),
                }
            )
        elif isinstance(item, Mapping):
            rows.append(item)
        else:
            raise InvalidInput(
                f"sessions[{i}]={item!r} is neither a mapping nor a Session; pass dicts with "
                "keys started_at and optional mentions, text, session_id, ..."
            )
    return [w.session for w in _write(kernel, rows, single=False, extract=extract)]


def _optional_str(where: str, key: str, value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidInput(f"{where}{key}={value!r} must be a string or None")
    return value


def _mention_names(where: str, mentions: object) -> dict[str, int]:
    """Return ``{clean name: count}`` from a mapping, an iterable of names or one name."""
    pairs: Iterable[tuple[object, object]]
    if isinstance(mentions, str):
        pairs = [(mentions, 1)]
    elif isinstance(mentions, Mapping):
        pairs = mentions.items()
    elif isinstance(mentions, Iterable):
        pairs = ((name, 1) for name in mentions)
    else:
        raise InvalidInput(
            f"{where}mentions={mentions!r} is not a mapping or a list of names; pass "
            "{'Kubernetes': 2} or ['Kubernetes', 'Paris']"
        )
    out: dict[str, int] = {}
    for name, count in pairs:
        clean = clean_subject(name, what=f"{where}mentions name")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise InvalidInput(
                f"{where}mentions[{name!r}]={count!r} must be a positive int: how many times "
                "the session mentions it"
            )
        out[clean] = out.get(clean, 0) + count
    return out


def _check(
    i: int, item: Mapping[str, Any], single: bool
) -> tuple[dict[str, Any], dict[str, int] | None]:
    """Validate one input; return the session's fields (no mentions yet) and mention names."""
    where = "" if single else f"sessions[{i}]."
    unknown = set(item) - SESSION_FIELDS
    if unknown:
        raise InvalidInput(
            f"{where}unknown field(s) {sorted(unknown)}; allowed: {sorted(SESSION_FIELDS)}"
        )
    if item.get("started_at") is None:
        raise InvalidInput(f"{where}started_at is missing; pass when the session happened")
    started = to_utc(item["started_at"], name=f"{where}started_at")
    ended = None
    if item.get("ended_at") is not None:
        ended = to_utc(item["ended_at"], name=f"{where}ended_at")
        if ended < started:
            raise InvalidInput(
                f"{where}ended_at={ended.isoformat()} is before started_at="
                f"{started.isoformat()}; pass a later end or none"
            )
    sid = _optional_str(where, "session_id", item.get("session_id"))
    if sid is not None:
        sid = check_size(
            check_text(sid, what=f"{where}session_id"), what=f"{where}session_id", limit=MAX_ID
        ).strip()
        if not sid:
            raise InvalidInput(f"{where}session_id is blank; pass a non-blank id or None")
    text = _optional_str(where, "text", item.get("text"))
    if text is not None and not text.strip():
        shown = repr(text) if len(text) <= 20 else f"<{len(text):,} whitespace characters>"
        raise InvalidInput(
            f"{where}text={shown} is blank: a session is its transcript or summary; pass the "
            "text, or leave text out (None) and pass mentions"
        )
    for key in ("text", "title", "summary", "source"):
        if item.get(key) is not None:  # a transcript may be long; 1 MB is not a session
            check_text(item[key], what=f"{where}{key}")
    fields = {
        "id": sid or session_id(),
        "started_at": started,
        "ended_at": ended,
        "title": _optional_str(where, "title", item.get("title")),
        "text": text,
        "summary": _optional_str(where, "summary", item.get("summary")),
        "source": _optional_str(where, "source", item.get("source")),
    }
    raw = item.get("mentions")
    return fields, None if raw is None else _mention_names(where, raw)


def _write(
    kernel: Kernel, items: Sequence[Mapping[str, Any]], *, single: bool, extract: bool = True
) -> list[SessionWrite]:
    from graphmem.text import pipeline

    store = kernel.store
    with kernel.lock:
        kernel.uow.tick()  # refuse a read-only store or a clock gone back before reading
        checked = [_check(i, item, single) for i, item in enumerate(items)]
        if not checked:
            return []
        # Text becomes claims (docs/concepts/decisions.md#rule-7). A session stored
        # already with the same text
        # was read then: reading it again would only reinforce what it said.
        same = _unchanged(store, [f for f, _ in checked]) if extract else set()
        to_read = [
            i for i, (f, _) in enumerate(checked) if extract and f["text"] and f["id"] not in same
        ]
        read = pipeline.read_texts(
            kernel,
            [(checked[i][0]["text"], checked[i][0]["started_at"]) for i in to_read],
            owner=kernel.owner,
        )
        readings: list[pipeline.Reading] = [[] for _ in checked]
        for i, reading in zip(to_read, read, strict=True):
            readings[i] = reading
        with kernel.uow.write() as w:
            # One unit of work, planned in a straight line (docs/concepts/text.md#one-write):
            # the sessions' mentions, the claims' facts, then the sessions and new topics.
            stored, written, new = _sessions(kernel, checked, readings)
            segments = [
                pipeline.Segment(f["text"] or "", f["started_at"], f["id"], is_session=True)
                for f, _ in checked
            ]
            planned = (
                pipeline.plan(kernel, w, segments, readings, owner=kernel.owner)
                if any(readings)
                else None
            )
            w.changes.entities.extend(new)
            w.changes.sessions.extend(written)
        if planned is None:
            return [SessionWrite(s) for s in stored]
        planned.committed()
        return [SessionWrite(s, tuple(r)) for s, r in zip(stored, planned.results, strict=True)]


def _sessions(
    kernel: Kernel,
    checked: Sequence[tuple[dict[str, Any], dict[str, int] | None]],
    readings: Sequence[Sequence[tuple[str, Sequence[Any]]]],
) -> tuple[list[Session], list[tuple[Session, dict[str, int]]], list[Entity]]:
    """The sessions of checked inputs with their mentions resolved (reads only).

    Returns the session of each input, the sessions to store with their mention counts by
    entity id (a later input with the same id replaces an earlier one), and the topic
    entities they create.
    """
    # Explicit names resolve like fact subjects; new ones become topic entities.
    names = sorted({n for _, m in checked if m for n in m})
    implicit = [i for i, (f, m) in enumerate(checked) if m is None and f["text"]]
    # The speakers of a session's turns and the owner are not its topics
    # (docs/concepts/hotness.md#what-is-a-topic).
    skip = {i: _speaker_ids(kernel, checked[i][0]["text"]) for i in implicit}
    terms = {
        i: {
            t: c
            for t, c in topic_terms(checked[i][0]["text"], readings[i], kernel.owner).items()
            if kernel.entity_id(t) not in skip[i]
        }
        for i in implicit
    }
    wanted = sorted(set(names) | {t for found in terms.values() for t in found})
    by_name, new = kernel.resolve_entities((n, "topic") for n in wanted)
    # Sessions without explicit mentions: existing entity names found in their text, and
    # the topics it names (the claims' subjects and objects, proper nouns).
    found = _find_mentions(kernel, [checked[i][0]["text"] for i in implicit])
    from_text = {
        i: {eid: hit for eid, hit in counts.items() if eid not in skip[i]}
        for i, counts in zip(implicit, found, strict=True)
    }
    for i in implicit:
        for term, count in terms[i].items():
            ent = by_name[term]
            if ent.id not in from_text[i]:
                from_text[i][ent.id] = (ent, count)

    written: dict[str, tuple[Session, dict[str, int]]] = {}
    stored_sessions: list[Session] = []
    for i, (fields, names_in) in enumerate(checked):
        ids: dict[str, int] = {}
        shown: dict[str, int] = {}
        if names_in is not None:
            pairs = [(by_name[n], c) for n, c in names_in.items()]
        else:
            pairs = list(from_text.get(i, {}).values())
        for ent, count in pairs:
            ids[ent.id] = ids.get(ent.id, 0) + count
            shown[ent.name] = shown.get(ent.name, 0) + count
        stored = Session(**fields, mentions=dict(sorted(shown.items())))
        written.pop(stored.id, None)  # a later item with the same id replaces it
        written[stored.id] = (stored, ids)
        stored_sessions.append(stored)
    return stored_sessions, list(written.values()), list(new.values())


def _speaker_ids(kernel: Kernel, text: str) -> set[str]:
    r"""Entity ids of the owner and of the speakers of ``text``'s ``Name: words`` turns.

    >>> import graphmem as gm
    >>> with gm.open() as mem:
    ...     sorted(_speaker_ids(kernel_of(mem), "Alice: hi Bob\nBob: hi\nno speaker here"))
    ['alice', 'bob', 'self']
    """
    from graphmem.store.textlines import split_lines

    names = {speaker for speaker, _ in split_lines(text) if speaker} | {kernel.owner}
    return {kernel.entity_id(name) for name in names}


def _unchanged(store: Any, fields: Sequence[Mapping[str, Any]]) -> set[str]:
    """Ids of the sessions stored already with the same text."""
    ids = [f["id"] for f in fields if f["text"]]
    if not ids:
        return set()
    stored = {s.id: s.text for s in store.read_sessions(ids=ids)}
    return {f["id"] for f in fields if f["text"] and stored.get(f["id"]) == f["text"]}


_PROPER = re.compile(r"\b[A-Z][\w+#.&-]*[\w+#](?:\s+(?:of\s+)?[A-Z][\w+#.&-]*[\w+#])*")
_NOT_TOPICS = frozenset(
    """the a an we i it its our my this that these those they he she you your their his her
    and but so or if yes no hi hey ok okay thanks thank please user assistant today
    yesterday tomorrow monday tuesday wednesday thursday friday saturday sunday january
    february march april may june july august september october november december
    correction update note fyi btw also then now there here what when where why how who
    which should could would will can do did does is are was were after before since
    last next this""".split()  # noqa: SIM905
)


def topic_terms(
    text: str, reading: Sequence[tuple[str, Sequence[Any]]], owner: str
) -> dict[str, int]:
    """The topics a text names: its claims' subjects and objects, and its proper nouns.

    Counts are occurrences in the text (at least 1). Values that are not topics (numbers,
    e-mail addresses, long phrases), the owner and common capitalised words are left out.

    >>> topic_terms("We moved the API to Go. Kuzu is fast; so is Kuzu.", [], "self")
    {'API': 1, 'Go': 1, 'Kuzu': 2}
    """
    from graphmem.text.lexicon import category

    names: dict[str, None] = {}
    for _, claims in reading:
        for c in claims:
            for value in (c.subject, c.object):
                if value and value != owner:
                    names[value] = None
    proper: dict[str, int] = {}
    initial: set[str] = set()
    for m in _PROPER.finditer(text):
        words = m.group(0).split()
        popped = 0
        while words and words[0].casefold() in _NOT_TOPICS:
            words.pop(0)
            popped += 1
        if not words:
            continue
        name = " ".join(words)
        before = text[: m.start()].rstrip()
        if len(words) == 1 and not popped and (not before or before[-1] in ".!?:;\n\"'"):
            initial.add(name)  # "Moved k8s to ...": capitalised because it starts a sentence
            continue
        proper[name] = proper.get(name, 0) + 1
        names[name] = None
    out: dict[str, int] = {}
    low = text.casefold()
    seen: set[str] = set()
    for name in names:
        key = name.casefold()
        if key in seen or key in _NOT_TOPICS or len(name.split()) > 4 or len(name) < 2:
            continue
        if category(name) in ("number", "email", "version") or not any(ch.isalpha() for ch in name):
            continue
        seen.add(key)
        count = proper.get(name) or len(re.findall(rf"(?<!\w){re.escape(key)}(?!\w)", low))
        out[name] = max(count, 1) + sum(1 for n in initial if n == name)
    return dict(sorted(out.items()))


# -- mentions found in text -----------------------------------------------------------------


def _candidates(text: str) -> tuple[list[str], dict[tuple[int, int], str]]:
    """Tokenise ``text``; return the tokens and ``{(start, length): phrase}`` to look up."""
    tokens = _TOKEN.findall(text)
    digits = [w.isdigit() for w in tokens]
    phrases: dict[tuple[int, int], str] = {}
    for i in range(len(tokens)):
        numbers, size = True, 0  # of tokens[i : i + n], grown one word at a time
        for n in range(1, min(MAX_NGRAM, len(tokens) - i) + 1):
            numbers = numbers and digits[i + n - 1]
            size += len(tokens[i + n - 1])
            if numbers or (n == 1 and size < 2):
                continue  # bare numbers and single letters are not topics
            if size > MAX_MENTION:
                continue  # a run of 1 MB is no name
            phrases[(i, n)] = " ".join(tokens[i : i + n])
    return tokens, phrases


def _find_mentions(kernel: Kernel, texts: Sequence[str]) -> list[dict[str, tuple[Entity, int]]]:
    """Count existing entity names in each text: one store query for all texts."""
    if not texts:
        return []
    parsed = [_candidates(t) for t in texts]
    key_of: dict[str, str] = {}
    for _, phrases in parsed:
        for phrase in phrases.values():
            if phrase not in key_of:
                key_of[phrase] = kernel.entity_id(phrase)
    names = kernel.store.entity_names(sorted(set(key_of.values())))
    out: list[dict[str, tuple[Entity, int]]] = []
    for tokens, phrases in parsed:
        counts: dict[str, tuple[Entity, int]] = {}
        i = 0
        while i < len(tokens):
            step = 1
            for n in range(min(MAX_NGRAM, len(tokens) - i), 0, -1):  # longest match first
                candidate = phrases.get((i, n))
                eid = None if candidate is None else key_of[candidate]
                if eid is not None and eid in names:
                    ent, seen = counts.get(eid, (Entity(id=eid, name=names[eid]), 0))
                    counts[eid] = (ent, seen + 1)
                    step = n
                    break
            i += step
        out.append(counts)
    return out


def mentions_in_text(mem: MemoryLike, text: str) -> dict[str, int]:
    """Find the names of existing entities in a text: the fallback when no mentions are given.

    Cheap and deterministic, no NLP: the text is split into word tokens, and runs of up to
    :data:`MAX_NGRAM` tokens are looked up as entity names (normalised, aliases included) in one
    store query. Matches are taken left to right, longest first, and do not overlap. Bare
    numbers and single characters are ignored. Only entities the memory already knows are found;
    automatic extraction of new ones plugs into ``add_session(mentions=...)`` later.

    Args:
        mem: the memory.
        text: the text to scan.

    Returns:
        ``{entity display name: occurrences}``.

    Raises:
        InvalidInput: ``text`` is not a string.

    Examples:
        >>> import graphmem as gm
        >>> with gm.open(clock=lambda: gm.to_utc("2026-06-10")) as mem:
        ...     _ = mem.add_fact("New York", "located_in", "USA")
        ...     mentions_in_text(mem, "Flew to new york; New York is big, York is not.")
        {'New York': 2}
    """
    kernel = kernel_of(mem)
    if not isinstance(text, str):
        raise InvalidInput(f"text={text!r} is not a string")
    [found] = _find_mentions(kernel, [text])
    return {ent.name: n for ent, n in sorted(found.values(), key=lambda p: p[0].name)}


# -- reading sessions ------------------------------------------------------------------------


def sessions(
    mem: MemoryLike, *, since: TimeLike | None = None, until: TimeLike | None = None
) -> list[Session]:
    """Return recorded sessions started within ``[since, until]``, oldest first.

    Args:
        mem: the memory.
        since: only sessions started at or after this time.
        until: only sessions started at or before this time.

    Returns:
        Sessions with their mentions (entity display name -> count).

    Raises:
        InvalidInput: a bad time.
    """
    kernel = kernel_of(mem)
    lo = None if since is None else to_utc(since, name="since")
    hi = None if until is None else to_utc(until, name="until")
    return kernel.store.read_sessions(since=lo, until=hi)


def session_count(mem: MemoryLike, *, until: TimeLike | None = None) -> int:
    """Return how many sessions are recorded (started at or before ``until``, if given).

    Raises:
        InvalidInput: a bad time.
    """
    kernel = kernel_of(mem)
    hi = None if until is None else to_utc(until, name="until")
    return kernel.store.count_sessions(until=hi)


def get_session(mem: MemoryLike, session_id: str) -> Session:
    """Return one session by id.

    Raises:
        NotFound: no session has that id.
    """
    kernel = kernel_of(mem)
    found = kernel.store.read_sessions(ids=[session_id])
    if not found:
        raise NotFound(
            f"no session with id {session_id!r} in memory {kernel.where!r}; "
            "list them with sessions()"
        )
    return found[0]


def session_facts(mem: MemoryLike, session_id: str, *, include_expired: bool = False) -> list[Fact]:
    """Return the facts a session is the provenance of (written with ``source=session_id``).

    Args:
        mem: the memory.
        session_id: the session (or any ``source`` label facts were written with).
        include_expired: also return versions closed in system time since.

    Returns:
        The versions, ordered by ``recorded_at``, subject, predicate and id.

    Raises:
        NotFound: there is neither a session with that id nor a fact with that source.
    """
    kernel = kernel_of(mem)
    fids = kernel.store.session_fact_ids(session_id)
    if not fids and not kernel.store.existing_session_ids([session_id]):
        raise NotFound(
            f"no session and no fact with source {session_id!r} in memory "
            f"{kernel.where!r}; list sessions with sessions()"
        )
    facts = [f for f in kernel.store.get_facts(fids) if include_expired or f.is_current]
    return sorted(facts, key=lambda f: (f.recorded_at, f.subject, f.predicate, f.id))


# Hot topics and triage used to live here; they are imported from here by existing code.
from graphmem.topics import hot_topics, triage  # noqa: E402
