"""Integrity checks: verify the invariants a trusted memory must hold (``graphmem check``).

:func:`check` scans the whole store once and returns a :class:`CheckReport`. Each problem has
a stable ``code`` (see :data:`CODES`), a severity and a message naming the versions involved.
``error`` means an invariant is broken (``report.ok`` is false, ``graphmem check`` exits 1);
``warning`` is suspicious but consistent; ``info`` is worth knowing and legitimate.

Two decisions worth stating:

- A version created and replaced at the very same system instant (two writes at one clock
  reading) has ``recorded_at == expired_at``: an empty system interval that no ``known_at``
  query can see. That is legitimate (reported as ``info``); ``expired_at < recorded_at`` is an
  error.
- "No overlap" for single-valued predicates is checked at every system instant, not only for
  current knowledge: what we believed at any past ``known_at`` must have been consistent too.
  Redefining a predicate from ``many`` to ``one`` after writing overlapping values breaks this
  invariant for the old data (the message says so).

>>> import graphmem as gm
>>> with gm.open(clock=lambda: gm.to_utc("2026-06-10")) as mem:
...     _ = mem.add_fact("api", "runs_on", "Go")
...     print(check(mem).ok)
True
"""

from __future__ import annotations

import datetime as dt
import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import ValidationError

from graphmem.errors import IntegrityError
from graphmem.kernel import kernel_of
from graphmem.models import Fact
from graphmem.store.schema import SCHEMA_VERSION, TABLES
from graphmem.timeutil import UTC

if TYPE_CHECKING:
    from graphmem.kernel import MemoryLike

__all__ = [
    "CODES",
    "CheckReport",
    "Problem",
    "check",
    "check_rows",
    "check_sessions",
    "versions",
]

Severity = Literal["error", "warning", "info"]

#: Every problem code, its severity and what it means.
CODES: dict[str, tuple[Severity, str]] = {
    "schema-version": ("error", "the Meta schema_version is missing or not this graphmem's"),
    "schema-tables": ("error", "a table of the graphmem schema is missing"),
    "fid-missing": ("error", "a version has no id (fid)"),
    "fid-duplicate": ("error", "two versions share an id (Kuzu does not enforce rel keys)"),
    "valid-interval": ("error", "valid_from is missing or valid_to <= valid_from"),
    "system-interval": ("error", "recorded_at is missing or expired_at < recorded_at"),
    "empty-system-interval": (
        "info",
        "created and replaced at the same instant (recorded_at == expired_at): never visible",
    ),
    "last-write-missing": ("error", "versions exist but the last-write marker is missing"),
    "system-time-future": (
        "error",
        "a recorded_at/expired_at is later than the store's last-write marker",
    ),
    "last-write-behind": (
        "warning",
        "the last-write marker is behind one bulk insert (a crash between its two commits; "
        "repaired when the store is next opened for writing)",
    ),
    "superseded-by-dangling": ("error", "superseded_by names no existing version"),
    "superseded-by-self": ("error", "a version names itself as its successor"),
    "superseded-current": ("error", "a current version (expired_at empty) has superseded_by"),
    "superseded-by-cycle": ("error", "superseded_by links form a cycle (no version is last)"),
    "successor-time": (
        "error",
        "a successor was not recorded at the instant its predecessor expired",
    ),
    "overlap-single-valued": (
        "error",
        "two versions of a single-valued (subject, predicate) known at the same system instant "
        "are valid at the same instant",
    ),
    "unreadable-version": ("error", "a stored version does not load as a Fact"),
    "predicate-invalid": ("error", "a predicate definition has an invalid cardinality"),
    "predicate-undefined": ("warning", "versions use a predicate with no definition"),
    "alias-conflict": ("error", "one alias resolves to two entities"),
    "mention-dangling": ("error", "a MENTIONS edge whose session or entity does not load"),
    "mention-duplicate": ("error", "a session has two MENTIONS edges to one entity"),
    "mention-count": ("error", "a MENTIONS edge has a missing or non-positive count"),
    "session-invalid": ("error", "a session has no start time, or ends before it starts"),
    "entity-unfindable": (
        "error",
        "an entity a lookup by its id does not find, or finds twice: versions written to it "
        "were lost (a value the server's index could not look up; docs/falkordb.md)",
    ),
    "checkpoint-restored": (
        "info",
        "this open found a Kuzu checkpoint killed half-way and replayed the write-ahead log over "
        "the copy of the file taken before it: no commit was lost "
        "(docs/concepts/storage.md#checkpoint-base)",
    ),
    "entity-orphan": (
        "warning",
        "an entity no fact, session mention or alias refers to (left by a session write cut "
        "short, a rewritten session or a purge of what named it)",
    ),
}

#: At most this many problems are listed per code (the rest are counted).
MAX_PER_CODE = 20


@dataclass(frozen=True)
class Problem:
    """One finding: a stable ``code``, its severity, a message and the version ids involved."""

    code: str
    message: str
    fids: tuple[str, ...] = ()

    @property
    def severity(self) -> Severity:
        """``error``, ``warning`` or ``info`` (from :data:`CODES`)."""
        return CODES[self.code][0]

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dictionary."""
        return {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "fids": list(self.fids),
        }


@dataclass(frozen=True)
class CheckReport:
    """The result of :func:`check`: problems found and what was scanned."""

    path: str | None
    problems: tuple[Problem, ...]
    stats: Mapping[str, int] = field(default_factory=dict)
    #: Problems not listed because a code reached MAX_PER_CODE, per code.
    omitted: Mapping[str, int] = field(default_factory=dict)

    @property
    def errors(self) -> list[Problem]:
        """The broken invariants."""
        return [p for p in self.problems if p.severity == "error"]

    @property
    def ok(self) -> bool:
        """Whether every invariant holds (warnings and infos allowed)."""
        return not self.errors and not any(
            CODES[c][0] == "error" and n for c, n in self.omitted.items()
        )

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-ready dictionary (the ``graphmem check --json`` output)."""
        return {
            "ok": self.ok,
            "path": self.path,
            "stats": dict(self.stats),
            "problems": [p.to_dict() for p in self.problems],
            "omitted": dict(self.omitted),
        }

    def format(self) -> str:
        """Return a human-readable report, one problem per line."""
        where = self.path or ":memory:"
        stats = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in self.stats.items())
        lines = [f"graphmem check {where}: {stats}"]
        for p in sorted(
            self.problems, key=lambda p: ("error", "warning", "info").index(p.severity)
        ):
            lines.append(f"{p.severity.upper()} {p.code}: {p.message}")
        for code, n in sorted(self.omitted.items()):
            lines.append(f"{CODES[code][0].upper()} {code}: ... and {n} more")
        n_err = len(self.errors) + sum(n for c, n in self.omitted.items() if CODES[c][0] == "error")
        lines.append("OK: every invariant holds" if self.ok else f"BROKEN: {n_err} error(s)")
        return "\n".join(lines)

    def raise_if_broken(self) -> None:
        """Raise :class:`~graphmem.errors.IntegrityError` when an invariant is broken.

        Raises:
            IntegrityError: the message lists the first errors.
        """
        if not self.ok:
            first = "; ".join(f"{p.code}: {p.message}" for p in self.errors[:3])
            raise IntegrityError(
                f"{len(self.errors)} broken invariant(s) in {self.path or ':memory:'!r}: {first}; "
                "run 'graphmem check' for the full report"
            )


def _ts(value: Any) -> dt.datetime | None:
    """Return a stored timestamp as aware UTC (a naive one is read as UTC), else ``None``."""
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return None


def _fmt(value: dt.datetime | None) -> str:
    # shown in UTC without the offset, as every time in a report is UTC
    return "open" if value is None else value.replace(tzinfo=None).isoformat(sep=" ")


def _parse_marker(value: Any) -> dt.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return _ts(parsed)


class _Collector:
    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.omitted: dict[str, int] = defaultdict(int)
        self.per_code: dict[str, int] = defaultdict(int)

    def add(self, code: str, message: str, fids: Iterable[Any] = ()) -> None:
        if self.per_code[code] >= MAX_PER_CODE:
            self.omitted[code] += 1
            return
        self.per_code[code] += 1
        self.problems.append(Problem(code, message, tuple(str(f) for f in fids)))


def check_rows(
    facts: Sequence[Mapping[str, Any]],
    *,
    entities: Sequence[Mapping[str, Any]] = (),
    predicates: Sequence[Mapping[str, Any]] = (),
    meta: Mapping[str, Any] | None = None,
    tables: Iterable[str] | None = None,
) -> tuple[list[Problem], dict[str, int]]:
    """Check raw stored rows (as an ``IntegrityStore`` returns them); pure.

    Returns:
        The problems (at most :data:`MAX_PER_CODE` per code) and the omitted counts per code.
    """
    out = _Collector()
    if tables is not None:
        wanted = set(TABLES)
        for name in sorted(wanted - set(tables)):
            out.add("schema-tables", f"table {name!r} is missing from the database")
    if meta is not None:
        found = meta.get("schema_version")
        if found != str(SCHEMA_VERSION):
            out.add(
                "schema-version",
                f"schema_version is {found!r}, this graphmem needs {str(SCHEMA_VERSION)!r}",
            )
    _check_versions(facts, meta, predicates, out)
    _check_predicates(facts, predicates, out)
    live = {
        r.get(end)
        for r in facts
        if r.get("expired_at") is None
        for end in ("subject_id", "object_id")
    }
    _check_aliases(entities, live, out)
    return out.problems, dict(out.omitted)


def _check_versions(
    facts: Sequence[Mapping[str, Any]],
    meta: Mapping[str, Any] | None,
    predicates: Sequence[Mapping[str, Any]],
    out: _Collector,
) -> None:
    by_fid: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in facts:
        fid = row.get("fid")
        if not isinstance(fid, str) or not fid:
            out.add(
                "fid-missing",
                f"version {row.get('subject')!r} {row.get('predicate')} {row.get('object')!r} "
                f"has fid {fid!r}",
            )
            continue
        by_fid[fid].append(row)
    for fid, rows in by_fid.items():
        if len(rows) > 1:
            out.add("fid-duplicate", f"fid {fid!r} is used by {len(rows)} versions", [fid])

    marker: dt.datetime | None = None
    if meta is not None:
        raw_marker = meta.get("last_write")
        marker = _parse_marker(raw_marker)
        if facts and marker is None:
            out.add(
                "last-write-missing",
                f"{len(facts)} versions but the last_write marker is {raw_marker!r}",
            )

    # The one legitimate lag: a crash between a bulk COPY-only commit (inserts only, all at one
    # system instant) and the commit of its marker. Opening the store for writing repairs it.
    lag_ok = False
    if marker is not None:
        late_rec = {_ts(r.get("recorded_at")) for r in facts} - {None}
        late_rec = {t for t in late_rec if t is not None and t > marker}
        late_exp = any((_ts(r.get("expired_at")) or marker) > marker for r in facts)
        if len(late_rec) == 1 and not late_exp:
            lag_ok = True
            (at,) = late_rec
            out.add(
                "last-write-behind",
                f"the last_write marker {_fmt(marker)} is behind versions recorded at "
                f"{_fmt(at)} (a crash between a bulk commit and its marker); the next "
                "open for writing repairs it",
            )
    flagged: set[int] = set()
    empty: list[str] = []
    for i, row in enumerate(facts):
        fid = str(row.get("fid"))
        vf, vt = _ts(row.get("valid_from")), _ts(row.get("valid_to"))
        rec, exp = _ts(row.get("recorded_at")), _ts(row.get("expired_at"))
        what = f"{fid} ({row.get('subject')!r} {row.get('predicate')} {row.get('object')!r})"
        if vf is None or (row.get("valid_to") is not None and vt is None):
            out.add("valid-interval", f"{what} has valid_from={row.get('valid_from')!r}", [fid])
            flagged.add(i)
        elif vt is not None and vt <= vf:
            out.add(
                "valid-interval", f"{what}: valid_to {_fmt(vt)} <= valid_from {_fmt(vf)}", [fid]
            )
            flagged.add(i)
        if rec is None or (row.get("expired_at") is not None and exp is None):
            out.add("system-interval", f"{what} has recorded_at={row.get('recorded_at')!r}", [fid])
            flagged.add(i)
        elif exp is not None and exp < rec:
            out.add(
                "system-interval",
                f"{what}: expired_at {_fmt(exp)} < recorded_at {_fmt(rec)}",
                [fid],
            )
            flagged.add(i)
        elif (
            exp is not None
            and exp == rec
            and not str(row.get("reason") or "").startswith(("disputed", "dispute "))
        ):  # a dispute is closed at birth on purpose (docs/concepts/decisions.md#rule-9)
            empty.append(fid)
        if marker is not None and not lag_ok:
            late = [(n, t) for n, t in (("recorded_at", rec), ("expired_at", exp)) if t]
            for name, t in late:
                if t is not None and t > marker:
                    out.add(
                        "system-time-future",
                        f"{what}: {name} {_fmt(t)} is after the last write {_fmt(marker)}; "
                        "system time moved backwards",
                        [fid],
                    )
                    flagged.add(i)
        by = row.get("superseded_by")
        if by is not None:
            if by == fid:
                out.add("superseded-by-self", f"{what} names itself as superseded_by", [fid])
            elif by not in by_fid:
                out.add("superseded-by-dangling", f"{what}: superseded_by {by!r} not found", [fid])
            else:
                succ_rec = _ts(by_fid[by][0].get("recorded_at"))
                if exp is not None and succ_rec is not None and succ_rec != exp:
                    out.add(
                        "successor-time",
                        f"{what} expired at {_fmt(exp)} but its successor {by} was recorded "
                        f"at {_fmt(succ_rec)}",
                        [fid, by],
                    )
            if row.get("expired_at") is None:
                out.add(
                    "superseded-current",
                    f"{what} is current but has superseded_by {by!r}",
                    [fid],
                )
    _check_cycles(facts, by_fid, out)
    if empty:
        shown = ", ".join(empty[:5]) + (f" and {len(empty) - 5} more" if len(empty) > 5 else "")
        out.add(
            "empty-system-interval",
            f"{len(empty)} version(s) were created and replaced at the same instant "
            f"(never visible to a known_at query): {shown}",
            empty[:MAX_PER_CODE],
        )

    for i, row in enumerate(facts):
        if i in flagged or not isinstance(row.get("fid"), str):
            continue
        try:
            _to_fact(row)
        except (ValidationError, TypeError, ValueError) as exc:
            msg = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
            out.add("unreadable-version", f"{row.get('fid')}: {msg}", [str(row.get("fid"))])
            flagged.add(i)

    single = {
        p["name"] for p in predicates if p.get("cardinality") not in ("many",) and p.get("name")
    }
    defined = {p.get("name") for p in predicates}
    # One slot per scope: each scope's versions hold the rule alone (docs/concepts/scopes.md).
    groups: dict[tuple[Any, Any, Any], list[int]] = defaultdict(list)
    for i, row in enumerate(facts):
        pred = row.get("predicate")
        if i not in flagged and (pred in single or pred not in defined):
            groups[(row.get("subject_id"), pred, row.get("scope") or "")].append(i)
    for (sid, pred, _), idx in groups.items():
        _check_overlaps(sid, pred, [facts[i] for i in idx], out)


def _check_cycles(
    facts: Sequence[Mapping[str, Any]],
    by_fid: Mapping[str, Sequence[Mapping[str, Any]]],
    out: _Collector,
) -> None:
    """Follow every ``superseded_by`` chain once; report each cycle (self-links aside)."""
    succ = {
        str(r.get("fid")): r["superseded_by"]
        for r in facts
        if r.get("superseded_by") in by_fid and r.get("superseded_by") != r.get("fid")
    }
    state: dict[str, int] = {}  # 1: on the current walk, 2: done
    for start in succ:
        walk: list[str] = []
        node: str | None = start
        while node is not None and node not in state:
            state[node] = 1
            walk.append(node)
            node = succ.get(node)
        if node is not None and state[node] == 1:
            loop = walk[walk.index(node) :]
            out.add(
                "superseded-by-cycle",
                f"versions {' -> '.join(loop)} -> {node} supersede each other in a cycle",
                loop,
            )
        for n in walk:
            state[n] = 2


def check_sessions(
    sessions: Sequence[Mapping[str, Any]],
    mentions: Sequence[Mapping[str, Any]],
    *,
    loose_mentions: int = 0,
    orphans: Sequence[str] = (),
) -> tuple[list[Problem], dict[str, int]]:
    """Check sessions and their mentions (rows an ``IntegrityStore`` returns); pure.

    ``mentions`` are ``{session, entity, count}`` rows whose two ends loaded;
    ``loose_mentions`` counts MENTIONS edges that did not join a session and an entity;
    ``orphans`` are ids of entities nothing refers to.
    """
    out = _Collector()
    if loose_mentions:
        out.add(
            "mention-dangling",
            f"{loose_mentions} MENTIONS edge(s) do not join a stored session to a stored entity "
            "(a damaged store: restore the last backup)",
        )
    seen: set[tuple[Any, Any]] = set()
    for m in mentions:
        pair = (m.get("session"), m.get("entity"))
        if pair in seen:
            out.add(
                "mention-duplicate",
                f"session {pair[0]!r} mentions entity {pair[1]!r} through more than one edge "
                "(a session write applied twice or cut short)",
            )
        seen.add(pair)
        n = m.get("count")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            out.add(
                "mention-count",
                f"session {pair[0]!r} mentions entity {pair[1]!r} with count {n!r}",
            )
    for s in sessions:
        start, end = _ts(s.get("started_at")), _ts(s.get("ended_at"))
        if start is None:
            out.add("session-invalid", f"session {s.get('id')!r} has no started_at")
        elif end is not None and end < start:
            out.add(
                "session-invalid",
                f"session {s.get('id')!r} ends at {_fmt(end)}, before it starts at {_fmt(start)}",
            )
    if orphans:
        shown = ", ".join(repr(o) for o in orphans[:5])
        more = f" and {len(orphans) - 5} more" if len(orphans) > 5 else ""
        out.add(
            "entity-orphan",
            f"{len(orphans)} entit{'y' if len(orphans) == 1 else 'ies'} with no fact, mention "
            f"or alias: {shown}{more}",
        )
    return out.problems, dict(out.omitted)


def _to_fact(row: Mapping[str, Any]) -> Fact:
    data: dict[str, Any] = {"id": row.get("fid"), "subject": row.get("subject")}
    for name in Fact.model_fields:
        if name in ("id", "subject"):
            continue
        value = row.get(name)
        data[name] = _ts(value) if isinstance(value, dt.datetime) else value
    data["access_count"] = data.get("access_count") or 0
    data["pinned"] = bool(data.get("pinned"))
    data["scope"] = data.get("scope") or ""  # NULL before schema 4: the root
    for key in ("importance", "confidence"):
        v = data.get(key)
        if isinstance(v, float) and not math.isfinite(v):
            raise ValueError(f"{key}={v!r} is not finite")
    return Fact.model_validate(data)


#: (recorded_at, expired_at, valid_from, valid_to, row): a version's two intervals (UTC).
_Span = tuple[dt.datetime, dt.datetime, dt.datetime, dt.datetime, Mapping[str, Any]]


def _check_overlaps(
    sid: Any, pred: Any, rows: Sequence[Mapping[str, Any]], out: _Collector
) -> None:
    """Sweep system time: at each instant, the visible versions must not overlap in valid time."""
    far = dt.datetime.max.replace(tzinfo=UTC)
    spans: list[_Span] = []
    for r in rows:
        rec, vf = _ts(r.get("recorded_at")), _ts(r.get("valid_from"))
        exp = _ts(r.get("expired_at")) or far
        if rec is not None and vf is not None and rec < exp:  # empty intervals are never seen
            spans.append((rec, exp, vf, _ts(r.get("valid_to")) or far, r))
    spans.sort(key=lambda s: s[0])
    active: list[_Span] = []
    reported: set[tuple[str, str]] = set()
    i = 0
    while i < len(spans):
        k = spans[i][0]
        while i < len(spans) and spans[i][0] == k:
            active.append(spans[i])
            i += 1
        active = [s for s in active if k < s[1]]
        ordered = sorted(active, key=lambda s: (s[2], s[3]))
        widest: _Span | None = None  # the span reaching furthest in valid time so far
        prev: _Span | None
        for cur in ordered:
            prev, widest = widest, cur if widest is None or cur[3] > widest[3] else widest
            if prev is not None and cur[2] < prev[3]:
                a, b = prev[4], cur[4]
                pair = (str(a.get("fid")), str(b.get("fid")))
                if pair in reported:
                    continue
                reported.add(pair)
                when = "current" if prev[1] == cur[1] == far else f"known at {_fmt(k)}"
                out.add(
                    "overlap-single-valued",
                    f"{when} versions {pair[0]} ({a.get('object')!r}, valid "
                    f"[{_fmt(prev[2])}, {_fmt(_ts(a.get('valid_to')))})) and {pair[1]} "
                    f"({b.get('object')!r}, valid [{_fmt(cur[2])}, "
                    f"{_fmt(_ts(b.get('valid_to')))})) of ({sid!r}, {pred}) overlap, and "
                    f"{pred} is single-valued (if you redefined it from 'many' to 'one', "
                    "retract the extra values)",
                    pair,
                )


def _check_predicates(
    facts: Sequence[Mapping[str, Any]],
    predicates: Sequence[Mapping[str, Any]],
    out: _Collector,
) -> None:
    defined = set()
    for p in predicates:
        defined.add(p.get("name"))
        if p.get("cardinality") not in ("one", "many"):
            out.add(
                "predicate-invalid",
                f"predicate {p.get('name')!r} has cardinality {p.get('cardinality')!r}; "
                "redefine it with define_predicate(..., cardinality='one' or 'many')",
            )
    used: dict[Any, int] = defaultdict(int)
    for row in facts:
        used[row.get("predicate")] += 1
    for name, n in sorted(used.items(), key=lambda kv: str(kv[0])):
        if name not in defined:
            out.add(
                "predicate-undefined",
                f"{n} version(s) use predicate {name!r}, which has no definition; "
                "it behaves as single-valued until defined",
            )


def _check_aliases(entities: Sequence[Mapping[str, Any]], live: set[Any], out: _Collector) -> None:
    """Report aliases with two owners, or naming an entity that has current versions.

    An alias may be the id of an entity with no current version: one merged into the alias's
    owner (docs/concepts/decisions.md#merging-entities).
    """
    ids = {e.get("id") for e in entities} & live
    owner: dict[str, Any] = {}
    for e in sorted(entities, key=lambda e: str(e.get("id"))):
        for alias in e.get("aliases") or ():
            if alias in owner and owner[alias] != e.get("id"):
                out.add(
                    "alias-conflict",
                    f"alias {alias!r} belongs to entities {owner[alias]!r} and {e.get('id')!r}",
                )
            elif alias in ids and alias != e.get("id"):
                out.add(
                    "alias-conflict",
                    f"alias {alias!r} of entity {e.get('id')!r} is also an entity's own id",
                )
            owner.setdefault(alias, e.get("id"))


def check(mem: MemoryLike) -> CheckReport:
    """Scan the store of ``mem`` and verify every invariant (one pass over all versions).

    Args:
        mem: an open memory (read-only is enough).

    Returns:
        The report; ``report.ok`` is false when an invariant is broken.

    Raises:
        StoreError: the store cannot be read.
    """
    kernel = kernel_of(mem)
    store = kernel.store
    with kernel.lock:
        tables = store.table_names()
        meta = store.raw_meta() if "Meta" in tables else {}
        facts = store.raw_facts() if {"Fact", "Entity"} <= tables else []
        entities = store.raw_entities() if "Entity" in tables else []
        predicates = store.raw_predicates() if "Predicate" in tables else []
        has_sessions = {"Session", "MENTIONS", "Entity"} <= tables
        sessions = store.raw_sessions() if has_sessions else []
        mentions = store.raw_mentions() if has_sessions else []
        loose = store.loose_mentions() if has_sessions else 0
        orphans = store.orphan_entities() if has_sessions and "Fact" in tables else []
        unfindable = store.unfindable_entities() if "Entity" in tables else []
    problems, omitted = check_rows(
        facts, entities=entities, predicates=predicates, meta=meta, tables=tables
    )
    more, more_omitted = check_sessions(sessions, mentions, loose_mentions=loose, orphans=orphans)
    problems += more
    problems += _unfindable(unfindable)
    recovered = getattr(store, "recovered", None)  # Kuzu: what this open repaired
    if isinstance(recovered, str):
        problems.append(Problem("checkpoint-restored", recovered))
    for code, n in more_omitted.items():
        omitted[code] = omitted.get(code, 0) + n
    stats = {
        "versions": len(facts),
        "current_versions": sum(1 for r in facts if r.get("expired_at") is None),
        "entities": len(entities),
        "predicates": len(predicates),
        "sessions": len(sessions),
        "mentions": len(mentions),
    }
    return CheckReport(kernel.path, tuple(problems), stats, omitted)


def _unfindable(ids: Sequence[str]) -> list[Problem]:
    """The ``entity-unfindable`` problems (at most :data:`MAX_PER_CODE`)."""
    return [
        Problem(
            "entity-unfindable",
            f"entity {eid!r} is not found by its id exactly once; versions written to it were "
            "lost: export the memory and import it into a new graph, then write them again",
        )
        for eid in ids[:MAX_PER_CODE]
    ]


def versions(mem: MemoryLike) -> list[Fact]:
    """Return every stored version, current and closed, ordered by ``recorded_at`` and id.

    An audit helper (one full scan): tests and backups compare whole stores with it.

    Raises:
        IntegrityError: a stored version does not load (run :func:`check`).
    """
    kernel = kernel_of(mem)
    out = []
    for row in kernel.store.raw_facts():
        try:
            out.append(_to_fact(row))
        except (ValidationError, ValueError) as exc:
            raise IntegrityError(
                f"version {row.get('fid')!r} does not load ({exc}); run 'graphmem check'"
            ) from exc
    return sorted(out, key=lambda f: (f.recorded_at, f.id))
