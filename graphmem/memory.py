"""The ``Memory`` facade: one store, one clock, one ontology; every public call is one transaction.

>>> import graphmem as gm
>>> with gm.open(clock=lambda: gm.to_utc("2026-06-10")) as mem:
...     _ = mem.add_fact("api", "runs_on", "Laravel", valid_from="2024-01-01")
...     result = mem.add_fact("api", "runs_on", "Go", valid_from="2026-06-01")
...     print(result.decision, [f.object for f in mem.facts(subject="api")])
...     print([f.object for f in mem.facts(subject="api", valid_at="2025-01-01")])
supersede ['Go']
['Laravel']
"""

from __future__ import annotations

import datetime as dt
import os
import threading
from collections.abc import Iterable, Mapping, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from graphmem.admission import AdmissionPolicy, RateLimiter, check_source_type, parse_window
from graphmem.display import FactList, ResultList
from graphmem.errors import ClockError, InvalidInput, NotFound, StoreError
from graphmem.models import Decision, Entity, Fact, Predicate, TextResult, WriteResult
from graphmem.normalize import check_text, clean_name, entity_key
from graphmem.ontology import Ontology
from graphmem.store import open_store
from graphmem.temporal import new_id, plan_assert, plan_retract
from graphmem.timeutil import Clock, TimeLike, system_clock, to_utc
from graphmem.writes import FIELDS, WriteBatch, new_version, paused_gc

if TYPE_CHECKING:
    from collections.abc import Callable

    from graphmem.audit import Change, Explanation, PurgeSummary
    from graphmem.similarity import Similarity
    from graphmem.temporal import Plan

__all__ = ["Memory", "open"]

_KINDS: tuple[str, ...] = ("fact", "event", "insight", "directive", "identity")
#: Keys accepted by ``_validate``: the fact fields plus ``source_type`` (admission only).
_INPUT_FIELDS = FIELDS | {"source_type"}


def _name_list(value: object, what: str) -> tuple[str, ...]:
    """Return a list-of-names argument as a tuple: one string is one name, None is none."""
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if isinstance(value, (bytes, Mapping)) or not isinstance(value, Iterable):
        raise InvalidInput(f"{what}={value!r} must be a list of names (or one name)")
    return tuple(value)


def open(  # noqa: A001 - the public name is part of the contract: gm.open()
    path: str | os.PathLike[str] | None = None,
    *,
    clock: Clock | None = None,
    engine: str | None = None,
    read_only: bool = False,
    admission: AdmissionPolicy | None = None,
    similarity: Similarity | None = None,
    ontology: str | os.PathLike[str] | None = "default",
) -> Memory:
    """Open a memory: on disk at ``path``, or in memory when ``path`` is ``None``.

    Args:
        path: database file; created when missing. ``None`` keeps everything in memory.
        clock: callable returning the current aware datetime (system time); inject one for
            tests and backfills. Defaults to the UTC wall clock.
        engine: ``"kuzu"`` (pinned 0.11.3) or ``"ladybug"`` (``graphmem[ladybug]``); default
            ``$GRAPHMEM_ENGINE``, else ``"kuzu"``. One process can load only one of the two.
        read_only: open without write access (several processes may read at once).
        admission: admission control (importance bands, statement bounds, hourly rate
            limits per kind); default :class:`~graphmem.admission.AdmissionPolicy()`. Use
            ``AdmissionPolicy.unlimited()`` for backfills, ``AdmissionPolicy.off()`` to admit
            everything valid.
        similarity: how free-text notes are compared; default
            :func:`graphmem.similarity.default_similarity` (WordLlama's bundled model, offline;
            the lexical :func:`~graphmem.similarity.text_similarity` where it is missing). Any
            :class:`~graphmem.similarity.Similarity` plugs in.
        ontology: the predicates a new database starts with: ``"default"`` (the shipped
            general agent-memory relations), ``None`` (none: every predicate is defined by use
            or by ``define_predicate``) or the path of a JSON file in the format of
            ``graphmem/data/ontology.json``. A database that already has predicates keeps
            them: ``"default"`` and ``None`` change nothing, and a file is merged into them
            as ``define_predicate`` calls would (the file wins; changes are recorded).

    Returns:
        A :class:`Memory`, usable as a context manager.

    Raises:
        InvalidInput: a bad ``ontology`` (not ``"default"``, ``None`` or a valid file), or a
            file that changes the cardinality of a predicate with stored facts.
        StoreBusy: another process holds the database.
        SchemaVersionError: the database was written by another schema version.
    """
    return Memory(
        path,
        clock=clock,
        engine=engine,
        read_only=read_only,
        admission=admission,
        similarity=similarity,
        ontology=ontology,
    )


def _start_of(starts: Mapping[str, dt.datetime], item: object) -> dt.datetime | None:
    source = item.get("source") if isinstance(item, Mapping) else None
    return starts.get(source) if isinstance(source, str) else None


def _clean_cached(raw: object, what: str, names: dict[str, str] | None) -> str:
    """:func:`clean_name` through a per-call cache of string names."""
    if names is None or type(raw) is not str:
        return clean_name(raw, what=what)
    found = names.get(raw)
    if found is None:
        found = names[raw] = clean_name(raw, what=what)
    return found


class Memory:
    """A bi-temporal fact memory. Create it with :func:`graphmem.open`."""

    def __init__(
        self,
        path: str | os.PathLike[str] | None = None,
        *,
        clock: Clock | None = None,
        engine: str | None = None,
        read_only: bool = False,
        admission: AdmissionPolicy | None = None,
        similarity: Similarity | None = None,
        ontology: str | os.PathLike[str] | None = "default",
    ) -> None:
        from graphmem.ontology import choose_ontology
        from graphmem.similarity import default_similarity

        chosen = choose_ontology(ontology)  # before the store: a bad value creates nothing
        self.admission = admission if admission is not None else AdmissionPolicy()
        self.similarity: Similarity = similarity or default_similarity()
        self._rate = RateLimiter(
            self.admission,
            seed=lambda since: parse_window(self._store.get_meta("rate_window"), since),
        )
        self.path = None if path is None else os.path.expanduser(os.fspath(path))
        if self.path is not None and "://" in self.path:
            # A server URL (falkordb://host:port/graph) must never become a local directory.
            raise StoreError(
                f"{self.path!r} is a server URL, and this graphmem has no server backend: "
                "FalkorDB support is not implemented yet; open a file path (embedded Kuzu or "
                "ladybug) instead"
            )
        if self.path is not None and not read_only:
            parent = os.path.dirname(os.path.abspath(self.path))
            os.makedirs(parent, exist_ok=True)
        self._clock: Clock = clock or system_clock
        self._lock = threading.RLock()
        self._store = open_store(self.path, engine=engine, read_only=read_only)
        self.engine = self._store.engine
        self.ontology = Ontology()
        #: The subject of first-person text ("we", "our", "I") and of notes without a subject.
        self.owner = "self"
        self.closed = False
        try:
            stored = self._store.load_predicates()
            seeded = not stored
            if seeded:
                stored = Ontology(chosen.predicates).predicates()
                if stored and not read_only:
                    with self._store.transaction():
                        self._store.save_predicates(stored)
            for p in stored:
                self.ontology.add(p)
            self._aliases = self._store.load_aliases()
            self._last_write = self._store.max_system_time()
            if chosen.kind == "file" and not seeded:
                for p in chosen.predicates:  # the user's file wins over the stored definitions
                    self._define(p, force=False, persist=not read_only)
        except BaseException:
            self.close()
            raise

    # -- lifecycle ----------------------------------------------------------------------------

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the store. Further calls raise ``StoreError`` ("memory ... is closed")."""
        if not self.closed:
            from graphmem.store.locks import ClosedStore

            self._store.close()
            self._store = ClosedStore(self.path)  # type: ignore[assignment]
            self.closed = True

    def __repr__(self) -> str:
        where = self.path or ":memory:"
        return f"<graphmem.Memory {where!r} engine={self.engine!r}>"

    # -- time ---------------------------------------------------------------------------------

    def now(self) -> dt.datetime:
        """Return the clock's current reading as aware UTC.

        Raises:
            InvalidInput: the clock returned something that is not an aware datetime.
        """
        value = self._clock()
        if not isinstance(value, dt.datetime):
            raise InvalidInput(f"clock() returned {value!r}; it must return an aware datetime")
        return to_utc(value, name="clock()")

    def _tick(self) -> dt.datetime:
        """Return the system time of a write; refuse a clock that moved backwards."""
        if self._store.read_only:
            raise StoreError(
                f"memory {self.path!r} is open read-only; reopen it without read_only=True "
                "(CLI: without --read-only) to write"
            )
        now = self.now()
        if self._last_write is not None and now < self._last_write:
            raise ClockError(
                f"clock reads {now.isoformat()}, earlier than the newest recorded write "
                f"{self._last_write.isoformat()}; system time never moves backwards — fix the "
                "clock passed to graphmem.open(clock=...)"
            )
        from graphmem.store.sessions import note_write_time

        note_write_time(self._store, now)  # the system time sessions written now record
        return now

    def _time(self, value: TimeLike | None, name: str, default: dt.datetime) -> dt.datetime:
        return default if value is None else to_utc(value, name=name)

    # -- names --------------------------------------------------------------------------------

    def _entity_id(self, name: str, *, what: str = "name") -> str:
        key = entity_key(clean_name(name, what=what))
        return self._aliases.get(key, key)

    def _resolve_entities(
        self, names: Iterable[tuple[str, str]]
    ) -> tuple[dict[str, Entity], dict[str, Entity]]:
        """Map ``(name, kind)`` pairs to entities; return (by input name, new ones by id)."""
        wanted: dict[str, tuple[str, str]] = {}
        for name, kind in names:
            if name not in wanted:
                wanted[name] = (self._entity_id(name), kind)
        existing = self._store.entity_names(sorted({eid for eid, _ in wanted.values()}))
        by_name: dict[str, Entity] = {}
        new: dict[str, Entity] = {}
        for name, (eid, kind) in wanted.items():
            if eid in existing:
                by_name[name] = Entity(id=eid, name=existing[eid], kind=kind)
            else:
                ent = new.get(eid) or Entity(id=eid, name=clean_name(name), kind=kind)
                new[eid] = ent
                by_name[name] = ent
        return by_name, new

    def define_entity(
        self, name: str, *, kind: str = "entity", aliases: Sequence[str] = ()
    ) -> Entity:
        """Declare an entity with its kind and aliases; aliases resolve to it from then on.

        Raises:
            InvalidInput: blank names, or an alias that already names another entity.
        """
        aliases = _name_list(aliases, "aliases")
        if not check_text(kind, what="kind").strip():
            raise InvalidInput(f"kind={kind!r} is blank; use e.g. 'person', 'org' or 'entity'")
        with self._lock:
            eid = self._entity_id(name)
            keys = sorted({entity_key(clean_name(a, what="alias")) for a in aliases} - {eid})
            for key in keys:
                owner = self._aliases.get(key)
                if owner not in (None, eid) or (
                    owner is None and self._store.get_entity(key) is not None
                ):
                    raise InvalidInput(
                        f"alias {key!r} already names entity {owner or key!r}; choose another alias"
                    )
            current = self._store.get_entity(eid)
            merged = tuple(sorted(set(current.aliases if current else ()) | set(keys)))
            ent = Entity(
                id=eid,
                name=current.name if current else clean_name(name),
                kind=kind,
                aliases=merged,
            )
            with self._store.transaction():
                self._store.upsert_entities([ent])
            for key in keys:
                self._aliases[key] = eid
            return ent

    # -- ontology -----------------------------------------------------------------------------

    def define_predicate(
        self,
        name: str,
        *,
        cardinality: str | None = None,
        aliases: Sequence[str] = (),
        inverse: str | None = None,
        symmetric: bool | None = None,
        description: str | None = None,
        force: bool = False,
    ) -> Predicate:
        """Define (or redefine) a predicate: its cardinality and the aliases that map to it.

        The user's vocabulary wins (SPEC §1): any valid name becomes a predicate of its own,
        even one that is an alias of a shipped predicate, and each alias given moves to it from
        whichever predicate had it. The change is recorded (it shows in :meth:`changes` as
        ``defined`` or ``redefined``); facts already stored keep their predicate. Calling it
        again with a definition already in force changes, writes and records nothing.

        Args:
            name: canonical name, normalised to snake_case (``"Works At"`` → ``works_at``).
            cardinality: ``"one"`` (a new object supersedes the old) or ``"many"``; ``None``
                keeps the current one (``"one"`` for a new predicate).
            aliases: other spellings that map to this predicate before any decision; they add
                to the aliases it has.
            inverse: name of the inverse predicate; ``None`` keeps the current one.
            symmetric: whether ``a p b`` implies ``b p a``; ``None`` keeps the current value.
            description: free text for humans; ``None`` keeps the current one.
            force: change the cardinality of a predicate that has stored fact versions. The
                stored versions are not rewritten; later writes follow the new cardinality.

        Returns:
            The definition in force.

        Raises:
            InvalidInput: bad cardinality, an unusable name or alias, an alias that is another
                predicate's own name, or a cardinality change of a predicate with stored fact
                versions without ``force=True``.
        """
        from graphmem.normalize import predicate_name

        if cardinality is not None and cardinality not in ("one", "many"):
            raise InvalidInput(
                f"cardinality={cardinality!r} is invalid; use 'one' (single-valued) or 'many'"
            )
        aliases = _name_list(aliases, "aliases")
        for alias in aliases:
            predicate_name(clean_name(alias, what="alias"))  # a clear error for unusable aliases
        if symmetric is not None and not isinstance(symmetric, bool):
            raise InvalidInput(f"symmetric={symmetric!r} must be True or False")
        if not isinstance(force, bool):
            raise InvalidInput(f"force={force!r} must be True or False")
        if description is not None:
            check_text(description, what="description")
        spec = {
            "name": predicate_name(clean_name(name, what="predicate")),
            "cardinality": cardinality,
            "aliases": aliases,
            "inverse": None if inverse is None else predicate_name(inverse),
            "symmetric": symmetric,
            "description": description,
        }
        with self._lock:
            return self._define({k: v for k, v in spec.items() if v is not None}, force=force)

    def _define(
        self, spec: Predicate | dict[str, Any], *, force: bool, persist: bool = True
    ) -> Predicate:
        """Apply one definition (``define_predicate`` and ontology files); record a change.

        A :class:`Predicate` applies the fields it was built with (``model_fields_set``).
        """
        import json
        import time
        import uuid

        from graphmem.store.audit import count_predicate_versions, record_audit

        if isinstance(spec, Predicate):
            spec = {k: getattr(spec, k) for k in spec.model_fields_set}
        fields = dict(spec)
        trial = Ontology(self.ontology.predicates())
        change = trial.define(fields.pop("name"), **fields)
        if not change.changed:
            return change.predicate
        if not persist:
            self.ontology = trial
            return change.predicate
        now = self._tick()
        old, new = change.previous, change.predicate
        if old is not None and old.cardinality != new.cardinality and not force:
            n = count_predicate_versions(self._store, old.name)
            if n:
                raise InvalidInput(
                    f"predicate {old.name!r} has {n} stored fact version(s) written as "
                    f"{old.cardinality}-valued; cardinality={new.cardinality!r} would apply to "
                    "later writes only (stored versions are not rewritten). Pass force=True "
                    "(CLI: define-predicate --force) to change it anyway, or define a new "
                    "predicate name for the new meaning"
                )
        with self._store.transaction():
            self._store.save_predicates([*change.updated, new])
            record_audit(
                self._store,
                f"a{time.time_ns():016x}{uuid.uuid4().hex[:8]}",  # same-time records keep order
                at=now,
                action="predicate",
                detail=json.dumps(change.record(), sort_keys=True),
            )
            self._store.set_max_system_time(now)
        self._last_write = now
        self.ontology = trial
        return new

    def predicates(self) -> list[Predicate]:
        """Return the ontology: every predicate definition, sorted by name."""
        return self.ontology.predicates()

    # -- writes -------------------------------------------------------------------------------

    def add_fact(
        self,
        subject: str,
        predicate: str,
        object: str,  # noqa: A002 - the SPEC's name
        *,
        valid_from: TimeLike | None = None,
        valid_to: TimeLike | None = None,
        source: str | None = None,
        source_ref: str | None = None,
        statement: str | None = None,
        kind: str = "fact",
        importance: float | None = None,
        confidence: float = 1.0,
        pinned: bool = False,
        source_type: str | None = None,
    ) -> WriteResult:
        """Assert one fact and apply the write decision (SPEC §3) in one transaction.

        Args:
            subject: the subject's name (resolved through aliases and normalisation).
            predicate: a predicate name or alias; unknown ones are defined with cardinality
                ``"one"``.
            object: the object's name.
            valid_from: when it became true in the world (default: now).
            valid_to: when it stopped being true (default: open-ended).
            source: session/episode id this fact came from.
            source_ref: a caller identity key; a new fact with the same key replaces the old.
            statement: the original text; a negating one ("no longer ...") invalidates.
            kind: ``fact``, ``event``, ``insight``, ``directive`` or ``identity``.
            importance: 0–10 (default 5), clamped into the kind's band by admission control
                (:mod:`graphmem.admission`).
            confidence: 0–1.
            pinned: never decays in ranking.
            source_type: who says it: ``user`` (+1 importance), ``agent``, ``tool``,
                ``system``, ``import`` or ``None``.

        Returns:
            What the write did: ``WriteResult(decision, fact, superseded)``.

        Raises:
            InvalidInput: a bad value (the message names it and the fix); nothing is written.
            RateLimited: the kind's hourly write limit is reached; nothing is written.
            ClockError: the clock moved backwards.
        """
        item = {
            "subject": subject,
            "predicate": predicate,
            "object": object,
            "valid_from": valid_from,
            "valid_to": valid_to,
            "source": source,
            "source_ref": source_ref,
            "statement": statement,
            "kind": kind,
            "importance": importance,
            "confidence": confidence,
            "pinned": pinned,
            "source_type": source_type,
        }
        return self._write([item])[0]

    def add_facts(self, facts: Iterable[Mapping[str, Any] | Fact]) -> list[WriteResult]:
        """Assert many facts in one transaction, in order, with a constant number of queries.

        A bulk import: admission control clamps importance and checks statement bounds but
        applies no rate limit.

        Args:
            facts: dictionaries with ``add_fact``'s parameters as keys, or Fact models.

        Returns:
            One WriteResult per input, in order.

        Raises:
            InvalidInput: any bad item (the message gives its index); nothing is written.
        """
        if isinstance(facts, (str, bytes, Mapping, Fact)) or not isinstance(facts, Iterable):
            raise InvalidInput(
                f"facts={facts!r} is not a collection of facts; pass a list of dicts (one "
                "fact: add_fact, or add_facts([{...}]))"
            )
        items: list[Mapping[str, Any]] = []
        for i, f in enumerate(facts):
            if isinstance(f, Fact):
                items.append(f.model_dump(include=set(FIELDS)))
            elif isinstance(f, Mapping):
                items.append(f)
            else:
                raise InvalidInput(
                    f"facts[{i}]={f!r} is neither a mapping nor a Fact; pass dicts with keys "
                    "subject, predicate, object (and optional valid_from, valid_to, ...)"
                )
        with paused_gc(len(items)):
            return self._write(items, bulk=True)

    def validate_fact(self, item: Mapping[str, Any]) -> None:
        """Check one ``add_facts`` row without writing anything.

        Raises:
            InvalidInput: the row is invalid; the message names the field and the fix.
        """
        self._validate(-1, item, self.now())

    def _session_starts(self, items: Sequence[Mapping[str, Any]]) -> dict[str, dt.datetime]:
        """Start times of the sessions named as ``source`` by items without ``valid_from``.

        SPEC §2: valid time defaults to the session time, else now.
        """
        from graphmem.store.sessions import session_start_times

        ids = [
            it["source"]
            for it in items
            if isinstance(it, Mapping)
            and it.get("valid_from") is None
            and isinstance(it.get("source"), str)
            # text the store cannot hold is reported by _validate, not sent to a query
            and it["source"].encode("utf-8", "surrogatepass").decode("utf-8", "ignore")
            == it["source"]
        ]
        return session_start_times(self._store, ids) if ids else {}

    def _validate(
        self,
        i: int,
        item: Mapping[str, Any],
        now: dt.datetime,
        default_from: dt.datetime | None = None,
        names: dict[str, str] | None = None,
    ) -> dict[str, Any]:
        """Check one input row; return its normalised fields.

        ``names`` caches cleaned subject and object names across the rows of one call (a bulk
        write repeats them; #6).
        """
        where = f"facts[{i}]." if i >= 0 else ""
        if not _INPUT_FIELDS.issuperset(item):
            unknown = set(item) - _INPUT_FIELDS
            raise InvalidInput(
                f"{where}unknown field(s) {sorted(unknown)}; allowed: {sorted(_INPUT_FIELDS)}"
            )
        for key in ("subject", "predicate", "object"):
            if key not in item:
                raise InvalidInput(
                    f"{where}{key} is missing; every fact needs subject, predicate and object"
                )
        pred = self.ontology.resolve(item["predicate"])
        kind = item.get("kind") or "fact"
        if kind not in _KINDS:
            raise InvalidInput(f"{where}kind={kind!r} is invalid; use one of {list(_KINDS)}")
        importance = item.get("importance")
        if importance is None:
            importance = 5.0
        if (
            isinstance(importance, bool)
            or not isinstance(importance, (int, float))
            # A range test, not math.isfinite (which overflows on huge ints): NaN fails it.
            or not 0 <= importance <= 10
        ):
            raise InvalidInput(f"{where}importance={importance!r} must be a number from 0 to 10")
        confidence = item.get("confidence", 1.0)
        if confidence is None:
            confidence = 1.0
        if (
            isinstance(confidence, bool)
            or not isinstance(confidence, (int, float))
            or not 0 <= confidence <= 1
        ):
            raise InvalidInput(f"{where}confidence={confidence!r} must be a number from 0 to 1")
        for key in ("statement", "source", "source_ref"):
            value = item.get(key)
            if value is not None and not isinstance(value, str):
                raise InvalidInput(f"{where}{key}={value!r} must be a string or None")
            if value is not None:
                check_text(value, what=f"{where}{key}")
        pinned = item.get("pinned")
        if pinned is None:
            pinned = False
        if not isinstance(pinned, bool):
            raise InvalidInput(f"{where}pinned={pinned!r} must be True or False")
        # Admission control (SPEC §4): statement bounds, importance clamped into the kind's band.
        statement = item.get("statement") or None
        if statement is not None:
            self.admission.check_statement(statement, name=f"{where}statement")
        source_type = item.get("source_type")
        if source_type is not None:
            source_type = check_source_type(source_type, name=f"{where}source_type")
        importance = self.admission.clamp_importance(kind, importance, source_type=source_type)
        vf = self._time(item.get("valid_from"), f"{where}valid_from", default_from or now)
        vt = (
            None
            if item.get("valid_to") is None
            else to_utc(item["valid_to"], name=f"{where}valid_to")
        )
        if vt is not None and vt <= vf:
            raise InvalidInput(
                f"{where}valid_to={vt.isoformat()} is not after valid_from={vf.isoformat()}; "
                "intervals are [valid_from, valid_to): give a later valid_to or none"
            )
        subject = _clean_cached(item["subject"], f"{where}subject", names)
        obj = _clean_cached(item["object"], f"{where}object", names)
        # Every Fact field in declaration order (new_version completes it; ``predicate`` holds
        # the Predicate until then).
        return {
            "id": None,
            "subject": subject,
            "predicate": pred,
            "object": obj,
            "valid_from": vf,
            "valid_to": vt,
            "recorded_at": None,
            "expired_at": None,
            "statement": statement,
            "kind": kind,
            "importance": float(importance),
            "confidence": float(confidence),
            "source": item.get("source") or None,
            "source_ref": item.get("source_ref") or None,
            "superseded_by": None,
            "reason": None,
            "access_count": 0,
            "last_accessed_at": None,
            "pinned": pinned,
        }

    def _write(
        self,
        items: Sequence[Mapping[str, Any]],
        *,
        bulk: bool = False,
        planner: Callable[[int, Fact, list[Fact]], Plan] | None = None,
        also: Callable[[], None] | None = None,
    ) -> list[WriteResult]:
        """Validate, plan and apply writes in one transaction.

        ``bulk`` skips the rate limits (imports); ``planner(index, fact, current versions of
        its subject)`` replaces the structured decision rules (the text pipeline plans claims,
        ends and notes); ``also()`` runs inside the same transaction after the facts are
        written (a session joins the write of its claims).
        """
        from graphmem.contradiction import negates

        with self._lock:
            now = self._tick()
            single = len(items) == 1
            starts = self._session_starts(items)
            names: dict[str, str] = {}
            checked = []
            # One pass: validate each row and note its names (a second pass over a million
            # rows costs seconds in cache misses; #6). Nothing is written before all are valid.
            subjects: dict[str, None] = {}
            objects: dict[str, str] = {}  # name -> kind of its first use
            predicates: dict[str, Predicate] = {}
            for i, it in enumerate(items):
                c = self._validate(
                    -1 if single else i,
                    it,
                    now,
                    # a non-text source (e.g. a list) is rejected by _validate, not hashed here
                    starts.get(it["source"], now) if isinstance(it.get("source"), str) else now,
                    names,
                )
                checked.append(c)
                subjects[c["subject"]] = None
                pred = predicates[c["predicate"].name] = c["predicate"]
                objects.setdefault(c["object"], "text" if pred.name == "note" else "entity")
            entities, new_entities = self._resolve_entities(
                [(name, "entity") for name in subjects] + list(objects.items())
            )
            new_predicates = {
                name: p for name, p in predicates.items() if self.ontology.lookup(name) is None
            }
            subject_ids = sorted({entities[name].id for name in subjects})
            batch = WriteBatch(
                self._store, now, self._store.current_versions(subject_ids), entities=new_entities
            )
            results: list[WriteResult] = []
            admitted: list[str] = []
            for c in checked:
                subj, obj, pred = entities[c["subject"]], entities[c["object"]], c["predicate"]
                fact = new_version(
                    c,
                    id=new_id(),
                    subject=subj.name,
                    object=obj.name,
                    predicate=pred.name,
                    recorded_at=now,
                )
                if planner is not None:
                    plan = planner(len(results), fact, batch.versions(subj.id))
                else:
                    plan = plan_assert(
                        fact,
                        # only the source_ref rule looks across predicates
                        batch.versions(subj.id, None if fact.source_ref else pred.name),
                        cardinality=pred.cardinality,
                        negate=bool(fact.statement) and negates(fact.statement or ""),
                    )
                result = batch.apply(subj.id, plan)
                results.append(result)
                # Rate limits count what changed knowledge; a noop only reinforces (SPEC §4).
                if not bulk and result.decision is not Decision.NOOP:
                    admitted.append(c["kind"])
            self._rate.check(admitted, now=now)
            with self._store.transaction():
                if new_predicates:
                    self._store.save_predicates(list(new_predicates.values()))
                batch.flush()
                if also is not None:
                    also()
                self._store.set_max_system_time(now)
                if any(self.admission.rate_limit(k) is not None for k in admitted):
                    self._store.set_meta("rate_window", self._rate.dumps(admitted, now=now))
            for p in new_predicates.values():
                self.ontology.add(p)
            self._last_write = now
            self._rate.record(admitted, now=now)
            return results

    def retract(
        self,
        subject: str,
        predicate: str,
        object: str | None = None,  # noqa: A002 - the SPEC's name
        *,
        at: TimeLike | None = None,
        reason: str | None = None,
    ) -> WriteResult:
        """End every current version of (subject, predicate[, object]) valid at ``at``.

        The versions are closed in system time and replaced by versions ending at ``at``
        (``valid_to = at``); a version starting at ``at`` is closed without replacement.

        Args:
            subject: the subject's name.
            predicate: the predicate name or alias.
            object: only versions with this object (default: any object).
            at: when it stopped being true (default: now).
            reason: why, recorded on the closed versions.

        Returns:
            ``WriteResult(decision="invalidate", fact=first shortened version, superseded)``.

        Raises:
            NotFound: no current version of that subject and predicate is valid at ``at``.
            InvalidInput: bad names or times.
        """
        with self._lock:
            now = self._tick()
            when = self._time(at, "at", now)
            sid = self._entity_id(subject, what="subject")
            pred = self.ontology.resolve(predicate)
            oid = None if object is None else self._entity_id(object, what="object")
            targets = [
                v
                for v in self._store.current_versions([sid])[sid]
                if v.predicate == pred.name and (oid is None or entity_key(v.object) == oid)
            ]
            if reason is not None:
                check_text(reason, what="reason")
            what = f"reason: {reason}" if reason else "retracted"
            plan = plan_retract(targets, at=when, now=now, reason=what)
            if plan.decision is Decision.NOOP:
                obj = "" if object is None else f" {object!r}"
                raise NotFound(
                    f"no current fact {subject!r} {pred.name}{obj} is valid at {when.isoformat()}"
                    f" in memory {self.path or ':memory:'!r}; check facts(subject={subject!r})"
                )
            batch = WriteBatch(self._store, now, {sid: targets})
            result = batch.apply(sid, plan)
            with self._store.transaction():
                batch.flush()
                self._store.set_max_system_time(now)
            self._last_write = now
            return result

    # -- reads --------------------------------------------------------------------------------

    def facts(
        self,
        *,
        subject: str | None = None,
        predicate: str | None = None,
        object: str | None = None,  # noqa: A002 - the SPEC's name
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        limit: int | None = None,
    ) -> list[Fact]:
        """Return the fact versions true at ``valid_at`` as believed at ``known_at``.

        Both default to now: ``recorded_at <= known_at < expired_at`` and
        ``valid_from <= valid_at < valid_to`` (SPEC §2 rule 3).

        Raises:
            InvalidInput: bad names, times or limit.
        """
        now = self.now()
        if limit is not None and (
            # the store takes a 64-bit LIMIT: a bigger int failed as a StoreError (#7 fuzz)
            isinstance(limit, bool) or not isinstance(limit, int) or not 0 <= limit < 2**63
        ):
            raise InvalidInput(f"limit={limit!r} must be a non-negative integer or None")
        pred = None if predicate is None else self.ontology.resolve(predicate).name
        rows = self._store.query_facts(
            subject_id=None if subject is None else self._entity_id(subject, what="subject"),
            predicate=pred,
            object_id=None if object is None else self._entity_id(object, what="object"),
            valid_at=self._time(valid_at, "valid_at", now),
            known_at=self._time(known_at, "known_at", now),
            limit=limit,
        )
        return FactList(rows)

    def believed(
        self, *, on: TimeLike, subject: str | None = None, predicate: str | None = None
    ) -> list[Fact]:
        """Return what we believed on date ``on`` was true then: ``valid_at=on, known_at=on``.

        Raises:
            InvalidInput: a bad date.
        """
        when = to_utc(on, name="on")
        return self.facts(subject=subject, predicate=predicate, valid_at=when, known_at=when)

    def history(
        self, subject: str, predicate: str | None = None, *, include_expired: bool = False
    ) -> list[Fact]:
        """Return the timeline of a subject ordered by ``valid_from``.

        Args:
            subject: the subject's name.
            predicate: restrict to one predicate.
            include_expired: also return versions closed in system time (the audit view).

        Returns:
            Current-knowledge versions (or every version), past, present and future.

        Raises:
            InvalidInput: bad names.
        """
        sid = self._entity_id(subject, what="subject")
        pred = None if predicate is None else self.ontology.resolve(predicate).name
        rows = self._store.query_facts(
            subject_id=sid, predicate=pred, current_only=not include_expired
        )
        rows.sort(key=lambda f: (f.valid_from, f.recorded_at, f.predicate, f.id))
        return FactList(rows)

    def get_fact(self, fact_id: str) -> Fact:
        """Return one version by id.

        Raises:
            NotFound: no version has that id.
            InvalidInput: ``fact_id`` is not text.
        """
        found = self._store.get_facts([check_text(fact_id, what="fact_id")])
        if not found:
            raise NotFound(
                f"no fact version with id {fact_id!r} in memory {self.path or ':memory:'!r}"
            )
        return found[0]

    def count_versions(self) -> int:
        """Return how many fact versions are stored, current and closed."""
        return self._store.count_versions()

    def check(self) -> Any:
        """Verify the store's invariants (``graphmem check``). See :func:`graphmem.check.check`."""
        from graphmem.check import check

        return check(self)

    # -- the rest of the surface: thin delegations to the modules that own each topic ---------

    def remember(
        self,
        text: str,
        *,
        subject: str | None = None,
        at: TimeLike | None = None,
        kind: str = "insight",
        source: str | None = None,
        source_ref: str | None = None,
        importance: float | None = None,
        source_type: str | None = None,
        similarity: Similarity | None = None,
    ) -> TextResult:
        """Remember a text: its claims become facts (superseding what they replace), else a note.

        "The API runs on Laravel" becomes ``API runs_on Laravel``; a later "We migrated the API
        to Go" supersedes it. First-person words mean ``subject`` (default: the owner,
        ``"self"``). A text without claims is a note, deduplicated against the subject's notes.

        Raises:
            InvalidInput: blank or too long text, bad kind, time or importance.
            RateLimited: the kind's hourly write limit is reached.

        See :func:`graphmem.remember.remember`.
        """
        from graphmem.remember import remember

        return remember(
            self,
            text,
            subject=subject,
            at=at,
            kind=kind,
            source=source,
            source_ref=source_ref,
            importance=importance,
            source_type=source_type,
            similarity=similarity,
        )

    def why(self, fact_id: str) -> Explanation:
        """Explain a version: its supersession chain and the sessions that asserted it.

        Raises:
            NotFound: no version has that id.

        See :func:`graphmem.audit.why`.
        """
        from graphmem.audit import why

        return why(self, fact_id)

    def changes(self, *, since: TimeLike, until: TimeLike | None = None) -> list[Change]:
        """List what was learned, superseded, corrected, retracted or purged in a window.

        Raises:
            InvalidInput: bad times.

        See :func:`graphmem.audit.changes`.
        """
        from graphmem.audit import changes

        return ResultList(changes(self, since=since, until=until))

    def purge(self, subject: str, *, reason: str) -> PurgeSummary:
        """Erase every version about a subject (privacy); leaves an audit record, no content.

        The only hard delete (SPEC §2 rule 1); one transaction. On disk, the database file is
        then rebuilt from its live rows (:func:`graphmem.store.vacuum.compact`): Kuzu keeps
        deleted strings in its pages, and a purge must remove the content from the files.

        Raises:
            NotFound: no such entity.
            InvalidInput: blank reason.

        See :func:`graphmem.audit.purge`.
        """
        from graphmem.audit import purge
        from graphmem.store.vacuum import compact

        with self._lock:
            summary = purge(self, subject, reason=reason)
            self._store = compact(self._store)
            return summary

    def add_session(
        self,
        text: str | None = None,
        *,
        started_at: TimeLike,
        session_id: str | None = None,
        title: str | None = None,
        mentions: Mapping[str, int] | Iterable[str] | None = None,
        source: str | None = None,
        ended_at: TimeLike | None = None,
        summary: str | None = None,
        extract: bool = True,
    ) -> Any:
        """Record a session (episode), the facts its text states and the topics it mentions.

        The text becomes claims written with the session as ``source`` ("Alice left Acme and
        joined Globex" closes ``Alice works_at Acme``); ``extract=False`` only logs it.
        Returns a :class:`~graphmem.sessions.SessionWrite` (``.session``, ``.results``).

        See :func:`graphmem.sessions.add_session`.
        """
        from graphmem.sessions import add_session

        return add_session(
            self,
            text,
            started_at=started_at,
            session_id=session_id,
            title=title,
            mentions=mentions,
            source=source,
            ended_at=ended_at,
            summary=summary,
            extract=extract,
        )

    def sessions(self, *, since: TimeLike | None = None, until: TimeLike | None = None) -> Any:
        """Return recorded sessions, oldest first. See :func:`graphmem.sessions.sessions`."""
        from graphmem.sessions import sessions

        return sessions(self, since=since, until=until)

    def hot_topics(
        self,
        *,
        now: TimeLike | None = None,
        window_days: float = 30,
        limit: int | None = None,
        weighting: str = "plain",
    ) -> Any:
        """Rank topics by hotness as of ``now``. See :func:`graphmem.sessions.hot_topics`."""
        from graphmem.sessions import hot_topics

        found = hot_topics(self, now=now, window_days=window_days, limit=limit, weighting=weighting)
        return ResultList(found)

    def triage(
        self, *, now: TimeLike | None = None, limit: int | None = 5, window_days: float = 30
    ) -> Any:
        """Return the topics most in need of attention. See :func:`graphmem.sessions.triage`."""
        from graphmem.sessions import triage

        return ResultList(triage(self, now=now, limit=limit, window_days=window_days))

    def context(
        self,
        query: str,
        *,
        budget_tokens: int = 800,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
    ) -> Any:
        """Return the facts and session lines relevant to a query, as a block for a prompt.

        A :class:`graphmem.Context`: a ``str`` (the text) with ``.text`` and ``.items`` (the
        facts and lines shown, with ids and scores). See :func:`graphmem.context.context`.
        """
        from graphmem.context import context

        return context(
            self, query, budget_tokens=budget_tokens, valid_at=valid_at, known_at=known_at
        )

    def search(
        self,
        query: str,
        *,
        limit: int = 20,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        kinds: Sequence[str] = ("fact", "line"),
    ) -> Any:
        """Return scored facts and session lines for a query (kind, id, text, score, date, session).

        See :func:`graphmem.context.search`.
        """
        from graphmem.context import search

        return ResultList(
            search(self, query, limit=limit, valid_at=valid_at, known_at=known_at, kinds=kinds)
        )

    def neighborhood(
        self,
        entity: str,
        *,
        hops: int = 1,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
    ) -> Any:
        """Return the snapshot subgraph around an entity as a ``networkx.MultiDiGraph``.

        See :func:`graphmem.export.neighborhood`.
        """
        from graphmem.export import neighborhood

        return neighborhood(self, entity, hops=hops, valid_at=valid_at, known_at=known_at)

    def to_networkx(
        self,
        *,
        valid_at: TimeLike | None = None,
        known_at: TimeLike | None = None,
        subject: str | None = None,
        hops: int | None = None,
    ) -> Any:
        """Return a snapshot as a ``networkx.MultiDiGraph`` whose edges are fact versions.

        See :func:`graphmem.export.to_networkx`.
        """
        from graphmem.export import to_networkx

        return to_networkx(self, valid_at=valid_at, known_at=known_at, subject=subject, hops=hops)

    def ingest_text(
        self, text: str, *, at: TimeLike | None = None, source: str | None = None
    ) -> Any:
        """Extract facts from text (rule-based spaCy pipeline) and write them.

        See :func:`graphmem.extract.ingest_text`.
        """
        from graphmem.extract import ingest_text

        return ingest_text(self, text, at=at, source=source)
