"""The audit trail: why a fact is what it is, what changed when, and the privacy purge.

- :func:`why` returns an :class:`Explanation`: the chain of versions of a fact, oldest to
  newest, including later corrections, and the sessions that asserted them.
- :func:`changes` lists :class:`Change` records (learned, superseded, corrected, retracted,
  merged, purged, and the ontology's defined / redefined predicates) in a system-time window,
  ordered by system time.
- :func:`purge` is the only hard delete (docs/concepts/time.md#rule-1): it removes every
  version whose subject or object is an entity, the entity, its aliases and mentions, and leaves
  an audit record that says what was purged without the content. Returns a :class:`PurgeSummary`.

>>> import graphmem as gm
>>> from graphmem.timeutil import ManualClock
>>> clock = ManualClock("2026-01-01")
>>> with gm.open(clock=clock) as mem:
...     first = mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01", source="s-1")
...     clock.set("2026-06-10")
...     _ = mem.add_fact("api", "runs on", "Go", source="s-42")
...     print(mem.why(first.fact.id).describe())  # doctest: +NORMALIZE_WHITESPACE
api runs_on 'Laravel'
  2026-01-01 learned  'Laravel' valid [2024-01-01, open) from session s-1
  2026-06-10 closed   superseded by 'Go' from 2026-06-10 (runs_on is single-valued),
  learned 2026-06-10 from session s-42
  2026-06-10 learned  'Laravel' valid [2024-01-01, 2026-06-10) from session s-1
  2026-06-10 learned  'Go' valid [2026-06-10, open) from session s-42
sessions: s-1 (not recorded), s-42 (not recorded)
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import uuid
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from graphmem.admission import shown
from graphmem.errors import InvalidInput, NotFound
from graphmem.kernel import kernel_of
from graphmem.models import Fact, Predicate, Session
from graphmem.normalize import entity_key
from graphmem.scopes import in_force
from graphmem.store.base import Purge
from graphmem.timeutil import TimeLike, fmt, to_utc
from graphmem.trust import AUDIT_ACTION, is_disputed

if TYPE_CHECKING:
    from graphmem.kernel import MemoryLike

__all__ = [
    "Change",
    "ChangeAction",
    "Explanation",
    "PurgeSummary",
    "changes",
    "classify_close",
    "purge",
    "why",
]

ChangeAction = Literal[
    "learned",
    "superseded",
    "corrected",
    "retracted",
    "merged",
    "purged",
    "defined",
    "redefined",
    "disputed",
    "resolved",
]
_RANK = {
    "defined": 0,
    "redefined": 0,
    "learned": 1,
    "corrected": 2,
    "superseded": 3,
    "retracted": 4,
    "merged": 4,
    "disputed": 4,
    "resolved": 4,
    "purged": 5,
}
# Leading phrases of the reasons graphmem writes (graphmem.temporal, graphmem.remember).
_PREFIXES: tuple[tuple[str, ChangeAction], ...] = (
    ("superseded by", "superseded"),
    ("replaced by", "superseded"),
    ("valid interval corrected", "corrected"),
    ("ended at", "retracted"),
    ("retracted from", "retracted"),
    ("merged into", "merged"),
    ("disputed", "disputed"),  # docs/concepts/decisions.md#authority-and-disputes
    ("dispute ", "disputed"),
)


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)


def _interval(f: Fact) -> str:
    return f"[{fmt(f.valid_from)}, {fmt(f.valid_to) if f.valid_to else 'open'})"


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Explanation(_Frozen):
    """Why a fact version is what it is.

    Attributes:
        fact: the version asked about, as stored now.
        chain: every version of the same fact, oldest to newest by system time, including
            the versions it replaced and later corrections: for a single-valued predicate the
            whole (subject, predicate) timeline, for a multi-valued one the versions of the
            same object, plus every version linked by ``superseded_by``.
        sessions: the recorded sessions named as ``source`` by the chain, in chain order.
        sources: every ``source`` named by the chain, in chain order, recorded or not.
    """

    fact: Fact
    chain: tuple[Fact, ...]
    sessions: tuple[Session, ...] = ()
    sources: tuple[str, ...] = ()

    def describe(self) -> str:
        """Return the explanation as human-readable lines."""
        f = self.fact
        # One line per event in system time; a close comes before what its write inserted.
        events: list[tuple[dt.datetime, int, int, str]] = []
        for i, v in enumerate(self.chain):
            src = f" from session {v.source}" if v.source else ""
            # who said it (docs/concepts/decisions.md#authority-and-disputes)
            said = f" by {v.source_type}" if v.source_type else ""
            if v.confidence != 1.0:
                said += f", confidence {v.confidence:g}"
            what = f"{_short(v.object)!r} valid {_interval(v)}{said}{src}"
            if is_disputed(v):
                pad = " " * len(fmt(v.recorded_at))
                text = f"  {fmt(v.recorded_at)} disputed {what}\n  {pad} {v.reason}"
                events.append((v.recorded_at, 1, i, text))
                continue
            text = f"  {fmt(v.recorded_at)} learned  {what}"
            events.append((v.recorded_at, 1, i, text))
            if v.expired_at is not None:
                events.append((v.expired_at, 0, i, f"  {fmt(v.expired_at)} closed   {v.reason}"))
        events.sort(key=lambda e: e[:3])
        out = [f"{f.subject} {f.predicate} {_short(f.object)!r}", *(e[3] for e in events)]
        known = {s.id: s for s in self.sessions}
        named = []
        for source in self.sources:
            s = known.get(source)
            if s is None:
                named.append(f"{source} (not recorded)")
            else:
                title = f" {s.title!r}" if s.title else ""
                named.append(f"{source} ({fmt(s.started_at)}{title})")
        if named:
            out.append("sessions: " + ", ".join(named))
        return "\n".join(out)

    def __str__(self) -> str:
        return self.describe()

    def _repr_html_(self) -> str:  # Jupyter's table view
        from graphmem.display import explanation_html

        return explanation_html(self)


class Change(_Frozen):
    """One change of knowledge in system time.

    Attributes:
        at: the system time of the change.
        action: ``learned`` (a new version), ``superseded`` (replaced by another object or
            identity), ``corrected`` (its valid interval was corrected), ``retracted`` (ended
            by a retraction or negation), ``merged`` (re-filed under another entity by
            ``merge_entities``, or the merge itself with ``detail``), ``purged`` (erased; no
            content), ``defined`` (a
            predicate was defined by ``define_predicate`` or an ontology file) or ``redefined``
            (an existing predicate changed, or names moved to it from other predicates),
            ``disputed`` (a write stored beside a current version it may not replace) or
            ``resolved`` (a dispute accepted or rejected; ``detail`` says which).
        fact: the version learned, or the version closed (with ``reason`` and
            ``superseded_by``); ``None`` for ``purged``, ``defined``, ``redefined`` and the
            record of a merge.
        replaced_by: the version named by ``fact.superseded_by``, when there is one.
        reason: why (the closed version's reason, or the purge reason).
        detail: for ``purged``, what was erased (counts and a hash of the name); for a
            merge, which entity went into which, with its counts and conflicts; for
            ``defined`` / ``redefined``, what changed (e.g. ``"employer [one]; took
            'employer' from works_at"``).
        predicate: for ``defined`` / ``redefined``, the definition as it was made.
    """

    at: dt.datetime
    action: ChangeAction
    fact: Fact | None = None
    replaced_by: Fact | None = None
    reason: str | None = None
    detail: str | None = None
    predicate: Predicate | None = None

    def __str__(self) -> str:
        if self.fact is None:
            why = f" ({self.reason})" if self.reason else ""
            return f"{fmt(self.at)} {self.action}: {self.detail or ''}{why}"
        f = self.fact
        what = f"{f.subject} {f.predicate} {_short(f.object, 60)!r} {_interval(f)}"
        if self.action == "resolved":
            why = f" ({self.reason})" if self.reason else ""
            return f"{fmt(self.at)} resolved: {self.detail}: {what}{why}"
        tail = f" — {self.reason}" if self.reason and self.action != "learned" else ""
        return f"{fmt(self.at)} {self.action}: {what}{tail}"

    def _repr_html_(self) -> str:  # Jupyter's table view
        from graphmem.display import change_html

        return change_html(self)


class PurgeSummary(_Frozen):
    """What a purge erased; the same facts as its audit record, without the content.

    Attributes:
        audit_id: id of the ``Audit`` record left behind.
        at: system time of the purge.
        subject_sha256: SHA-256 of the purged entity's normalised key (not the name).
        versions: fact versions deleted (subject or object was the entity).
        entities: entity nodes deleted (the entity and the objects of its facts left
            unconnected, such as the text nodes of its notes).
        mentions: session mentions of the entity deleted.
        sessions_redacted: sessions whose title, text or summary named it (now ``[purged]``).
        reason: the reason given.
    """

    audit_id: str
    at: dt.datetime
    subject_sha256: str
    versions: int
    entities: int
    mentions: int
    sessions_redacted: int
    reason: str


# -- why ----------------------------------------------------------------------------------------


def why(mem: MemoryLike, fact_id: str) -> Explanation:
    """Explain a version: its chain of versions and the sessions that asserted them.

    Reads the versions of the fact's subject only (one adjacency query) and the named sessions.

    Args:
        mem: the memory.
        fact_id: a version id (``WriteResult.fact.id``, ``Fact.id``).

    Returns:
        The :class:`Explanation`.

    Raises:
        NotFound: no version has that id (never written, or purged).
    """
    kernel = kernel_of(mem)
    if not isinstance(fact_id, str) or not fact_id.strip():
        raise InvalidInput(f"fact_id={shown(fact_id)} must be a non-empty version id")
    found = kernel.store.get_facts([fact_id])
    if not found:
        raise NotFound(
            f"no fact version with id {shown(fact_id)} in memory {kernel.where!r}; "
            "ids come from WriteResult.fact.id or facts()/history(include_expired=True)"
        )
    seed = found[0]
    # A merge re-files versions under another subject (docs/concepts/decisions.md#merging-
    # entities): the subject it went into and the entities merged into it belong to the chain.
    sid = entity_key(seed.subject)
    into = kernel.aliases.get(sid, sid)
    subjects = [sid, *sorted({into} | {a for a, o in kernel.aliases.items() if o == into} - {sid})]
    versions = [v for s in subjects for v in kernel.store.query_facts(subject_id=s)]
    if all(v.id != seed.id for v in versions):
        versions.append(seed)

    def slot(v: Fact) -> tuple[str, str | None]:
        pred = kernel.ontology.lookup(v.predicate)
        single = pred is not None and pred.cardinality == "one"
        return (v.predicate, None if single else entity_key(v.object))

    # A graph over the subject's versions: same slot (the timeline of a single-valued
    # predicate, or of one object of a multi-valued one) and superseded_by links both ways
    # (identity and notes replace across objects). The chain is the seed's component.
    by_id = {v.id: v for v in versions}
    groups: dict[tuple[str, str | None], list[Fact]] = {}
    replaced: dict[str, list[Fact]] = {}
    for v in versions:
        groups.setdefault(slot(v), []).append(v)
        if v.superseded_by:
            replaced.setdefault(v.superseded_by, []).append(v)
    chain: dict[str, Fact] = {}
    todo = [seed]
    while todo:
        v = todo.pop()
        if v.id in chain:
            continue
        chain[v.id] = v
        todo.extend(groups.get(slot(v), ()))
        todo.extend(replaced.get(v.id, ()))
        if v.superseded_by in by_id:
            todo.append(by_id[v.superseded_by])
    ordered = sorted(chain.values(), key=lambda v: (v.recorded_at, v.valid_from, v.id))
    sources = tuple(dict.fromkeys(v.source for v in ordered if v.source))
    sessions = kernel.store.get_sessions(list(sources))
    return Explanation(fact=seed, chain=tuple(ordered), sessions=tuple(sessions), sources=sources)


# -- changes ------------------------------------------------------------------------------------


def classify_close(reason: str | None, superseded_by: str | None) -> ChangeAction:
    """Return what closing a version did, from its reason (written by graphmem).

    >>> classify_close("superseded by 'Go' from 2026-06-01 (runs_on is single-valued)", "f1")
    'superseded'
    >>> classify_close("ended at 2026-06-01: negated by 'we no longer use X'", "f2")
    'retracted'
    >>> classify_close("valid interval corrected from [2020, open) to [2019, open)", "f3")
    'corrected'
    """
    text = (reason or "").strip().lower()
    for prefix, action in _PREFIXES:
        if text.startswith(prefix):
            return action
    return "superseded" if superseded_by else "retracted"


def _count(n: object, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _slot(f: Fact) -> tuple[str, str, str, str | None]:
    return (entity_key(f.subject), f.predicate, entity_key(f.object), f.statement)


def _merge_detail(info: dict[str, object]) -> str:
    """One line for the audit record of ``merge_entities``."""
    conflicts = info.get("conflicts")
    listed = [str(c) for c in conflicts] if isinstance(conflicts, list) else []
    text = (
        f"{info.get('other')!r} into {info.get('keep')!r}: "
        f"{_count(info.get('moved', 0), 'version')} re-filed, "
        f"{_count(len(listed), 'conflict')}"
    )
    return text + "".join(f"; {c}" for c in listed)


def _predicate_change(at: dt.datetime, info: dict[str, object]) -> Change | None:
    """Return the change an ontology audit record describes (``None`` if unreadable)."""
    from pydantic import ValidationError

    from graphmem.ontology import Redefinition

    moved = info.get("moved")
    try:
        new = Predicate.model_validate(info.get("predicate"))
        old = None if info.get("previous") is None else Predicate.model_validate(info["previous"])
    except ValidationError:
        return None
    moved = {str(k): str(v) for k, v in moved.items()} if isinstance(moved, dict) else {}
    change = Redefinition(new, old, moved, ())
    action: ChangeAction = "defined" if old is None else "redefined"
    return Change(at=at, action=action, detail=change.describe(), predicate=new)


def changes(mem: MemoryLike, *, since: TimeLike, until: TimeLike | None = None) -> list[Change]:
    """List what was learned, superseded, corrected, retracted, merged or purged in a window.

    The window is ``[since, until)`` in system time.

    Changes of the ontology (``define_predicate``, an ontology file given to ``gm.open``) are
    listed too, as ``defined`` or ``redefined`` with the new definition.

    Times are system time (when graphmem learned or closed something). A version inserted only
    to keep the past of a closed one (the shortened copy of a superseded or retracted version,
    the merged interval of a correction) is not listed as learned: the close record covers it.
    Reinforcements (``noop``) are not changes. Purged content never appears: a purge is one
    ``purged`` record with counts and a hash.

    Args:
        mem: the memory.
        since: start of the window (inclusive).
        until: end of the window (exclusive); default: no end.

    Returns:
        Change records ordered by system time (then learned before closes).

    Raises:
        InvalidInput: bad times, or ``until`` not after ``since``.
    """
    kernel = kernel_of(mem)
    start = to_utc(since, name="since")
    end = None if until is None else to_utc(until, name="until")
    if end is not None and end <= start:
        raise InvalidInput(
            f"until={end.isoformat()} is not after since={start.isoformat()}; the window is "
            "[since, until)"
        )

    def inside(t: dt.datetime | None) -> bool:
        return t is not None and start <= t and (end is None or t < end)

    rows = kernel.store.changed_between(start, end)
    by_id = {f.id: f for f in rows}
    closed_slots = {(_slot(f), f.expired_at) for f in rows if f.expired_at is not None}
    # A version re-filed by a merge is covered by the merged record of what it replaces.
    refiled = {
        (f.superseded_by, f.expired_at)
        for f in rows
        if f.superseded_by and classify_close(f.reason, f.superseded_by) == "merged"
    }
    out: list[Change] = []
    for f in rows:
        if inside(f.expired_at):
            assert f.expired_at is not None
            out.append(
                Change(
                    at=f.expired_at,
                    action=classify_close(f.reason, f.superseded_by),
                    fact=f,
                    replaced_by=by_id.get(f.superseded_by) if f.superseded_by else None,
                    reason=f.reason,
                )
            )
        if is_disputed(f):
            continue  # one record: "disputed" at its recorded_at
        if (
            inside(f.recorded_at)
            and (_slot(f), f.recorded_at) not in closed_slots
            and (f.id, f.recorded_at) not in refiled
        ):
            out.append(Change(at=f.recorded_at, action="learned", fact=f))
    for _, at, action, detail in kernel.store.audit_records(since=start, until=end):
        try:
            info = json.loads(detail)
        except ValueError:
            info = {}
        if action == "predicate" and isinstance(info, dict):
            change = _predicate_change(at, info)
            if change is not None:
                out.append(change)
            continue
        if action == AUDIT_ACTION and isinstance(info, dict):
            fid = str(info.get("fact"))
            settled = kernel.store.get_facts([fid])
            if not settled and in_force(kernel.scope) is not None:
                continue  # a dispute of a version this scope does not see (scopes.md#rule-1)
            verdict = "accepted" if info.get("accept") else "rejected"
            out.append(
                Change(
                    at=at,
                    action="resolved",
                    fact=settled[0] if settled else None,
                    reason=info.get("reason") if isinstance(info.get("reason"), str) else None,
                    detail=f"dispute {fid} {verdict}"
                    + (f": now version {info['version']}" if info.get("version") else ""),
                )
            )
            continue
        if action == "merge" and isinstance(info, dict):
            out.append(Change(at=at, action="merged", detail=_merge_detail(info)))
            continue
        if action != "purge" or not isinstance(info, dict):
            continue
        out.append(
            Change(
                at=at,
                action="purged",
                reason=info.get("reason"),
                detail=(
                    f"entity sha256:{str(info.get('subject_sha256', ''))[:16]}…: "
                    f"{_count(info.get('versions', 0), 'version')}, "
                    f"{_count(info.get('entities', 0), 'entity', 'entities')}, "
                    f"{_count(info.get('mentions', 0), 'mention')}"
                ),
            )
        )

    def key(c: Change) -> tuple[dt.datetime, int, str, str, str]:
        f = c.fact
        return (
            c.at,
            _RANK[c.action],
            f.subject if f else "",
            f.predicate if f else "",
            f.id if f else "",
        )

    return sorted(out, key=key)


# -- purge --------------------------------------------------------------------------------------


def purge(mem: MemoryLike, subject: str, *, reason: str) -> PurgeSummary:
    """Physically erase an entity and every version about it; leave an audit record.

    The only hard delete (docs/concepts/time.md#rule-1), in one transaction. Removes every fact
    version whose subject **or** object is the entity (in every system and valid time), the entity
    node with its aliases, its session mentions, objects of its facts left with no fact, mention
    or alias (such as the text nodes of its notes), and every stored sentence that names it
    (its name or an alias, whole words, any case): such a sentence of a session text or summary
    becomes ``[purged]``, a title naming it becomes ``[purged]``, a line whose speaker it is
    becomes ``[purged]``, and so does such a sentence in the statement of another fact; the
    session lines are split again from the redacted texts, and the sessions' mentions of topics
    only the redacted sentences named go, with those topics when nothing else holds them.
    Entities merged into it (``merge_entities``) are erased with it, the same way. Records an
    ``Audit`` node with the counts, the reason and the SHA-256 of the normalised
    name, never the name or the content. After it, ``why`` of a purged id raises ``NotFound``
    and nothing of it appears in ``facts``, ``history(include_expired=True)``, ``changes``,
    ``context`` or an export; answers for past ``known_at`` change accordingly (the one
    exception to docs/concepts/time.md#rule-2).

    Not covered: a sentence that refers to the entity without naming it ("She lives in
    Springfield"), and the text of a note of another subject stored as an entity name: store
    such memories with ``subject="Alice"``.

    Args:
        mem: the memory.
        subject: the entity's name or alias.
        reason: why (kept in the audit record; do not put the personal data in it).

    Returns:
        A :class:`PurgeSummary`.

    Raises:
        NotFound: no entity of that name.
        InvalidInput: blank name or reason.
        ClockError: the clock moved backwards.
    """
    kernel = kernel_of(mem)
    if not isinstance(reason, str) or not reason.strip():
        raise InvalidInput(f"reason={shown(reason)} must be a non-empty text saying why")
    store = kernel.store
    with kernel.uow.write() as w:
        eid = kernel.entity_id(subject, what="subject")
        entity = store.get_entity(eid)
        if entity is None:
            raise NotFound(
                f"no entity named {shown(subject)} in memory {kernel.where!r}; nothing to purge"
            )
        digest = hashlib.sha256(eid.encode("utf-8", "surrogatepass")).hexdigest()
        audit_id = "a" + uuid.uuid4().hex[:16]
        # The entities merged into it are the same person or thing: erased with it
        # (docs/concepts/decisions.md#merging-entities).
        merged = [
            found
            for found in (store.get_entity(a) for a in entity.aliases)
            if found is not None and found.id != eid
        ]
        names = [entity.name, *entity.aliases, *(m.name for m in merged), subject]
        detail = {"subject_sha256": digest, "reason": reason}
        w.changes.purge = Purge(
            entity_id=eid,
            names=names,
            audit_id=audit_id,
            detail=detail,
            merged=[m.id for m in merged],
        )
    now = w.at
    counts = dict(w.applied.purged) if w.applied is not None else {}
    for alias in [a for a, owner in kernel.aliases.items() if owner == eid]:
        del kernel.aliases[alias]
    return PurgeSummary(audit_id=audit_id, at=now, subject_sha256=digest, reason=reason, **counts)
