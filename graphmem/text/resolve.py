"""Turn claims into writes, resolving change statements against the graph (pure).

A claim that names its relation ("Alice works at Globex") becomes a write as it is. A change
statement that does not ("We migrated the API to Go") is resolved against the **current facts
of its subject** only — never a scan of the graph:

1. it names the value it replaces ("replaced Jenkins with GitHub Actions", "moved from AWS to
   GCP", "took over billing from Grace"): the subject's one relation whose current value is
   that value. For a first-person subject ("we") whose own facts do not hold the value, the
   facts pointing at the replaced value are asked instead (one bounded lookup by the value);
2. otherwise the one single-valued relation of the subject whose current value is of the same
   family as the new one (Go and Laravel are both a stack, Postgres 16 and Postgres 13 both a
   database; a number never replaces a name), or the one single-valued relation it has;
3. otherwise the relation the verb implies (``Claim.hint``: "moved to Berlin" is where one
   lives), when the subject has no value for it yet.

When none of these gives exactly one relation the claim is **not** written as a fact: the
caller keeps the sentence as a note. A wrong supersession is worse than a missed one.

Other rules applied here: "also" never supersedes a single-valued relation (kept as a note);
"We no longer deploy with X. We use Y now." gives ``deploys_with Y`` (a value that takes the
place of one just ended); "Correction: ..." replaces the old value from the old value's start
(the old belief was wrong, not outdated); "left" / "no longer" / "dropped X" end the subject's
matching current facts.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from graphmem.models import Fact, Predicate
from graphmem.normalize import predicate_name
from graphmem.ontology import DEFAULT_CARDINALITY
from graphmem.text import lexicon
from graphmem.text.claims import Claim
from graphmem.text.lexicon import spellings

__all__ = ["Action", "Resolver"]

#: Families of value categories that may replace one another in one relation.
_FAMILY = {
    "language": "stack",
    "framework": "stack",
    "database": "database",
    "cloud": "infra",
    "deploy": "infra",
    "ci": "ci",
    "llm": "llm",
    "number": "number",
    "email": "email",
    "version": "version",
    "diet": "diet",
    "timezone": "timezone",
}
_TYPED = frozenset({"number", "email", "version", "timezone"})
#: Head nouns a thing's name may carry or drop ("billing" / "the billing service").
GENERIC_HEADS = (
    "service",
    "app",
    "api",
    "team",
    "project",
    "system",
    "platform",
    "pipeline",
    "cluster",
    "server",
    "environment",
    "database",
)
#: Facts read per replaced value when "we" names no fact holding it.
INCOMING_LIMIT = 20


@dataclass(frozen=True)
class Action:
    """One write a text asks for: assert a fact, or end the current versions it names."""

    op: str  # "assert" | "end"
    subject: str
    predicate: str
    object: str
    valid_from: dt.datetime
    valid_to: dt.datetime | None
    claim: Claim


@dataclass(frozen=True)
class _Value:
    predicate: str
    object: str
    valid_from: dt.datetime
    valid_to: dt.datetime | None


def _family(value: str) -> str | None:
    cat = lexicon.category(value)
    return None if cat is None else _FAMILY.get(cat, cat)


def compatible(new: str, old: str) -> bool:
    """Whether ``new`` can take the place of ``old`` in one relation.

    >>> compatible("Go", "Laravel"), compatible("Go", "8080"), compatible("Acme", "Globex")
    (True, False, True)
    """
    a, b = _family(new), _family(old)
    if a is None or b is None:
        return not ({a, b} & _TYPED)
    return a == b


@dataclass
class Resolver:
    """Resolves the claims of one write call, in order, over the subjects' current facts.

    Args:
        key: the entity id of a name (normalised, aliases resolved).
        current: the current versions (not closed in system time) of subject ids, per id.
        incoming: current versions whose object is an entity id (bounded).
        lookup: the ontology entry of a predicate name or alias (``None`` when unknown).
        owner: the subject of first-person statements.
    """

    key: Callable[[str], str]
    current: Callable[[Sequence[str]], Mapping[str, Sequence[Fact]]]
    incoming: Callable[[str], Sequence[Any]]
    lookup: Callable[[str], Predicate | None]
    owner: str
    _state: dict[str, list[_Value]] = field(default_factory=dict)
    _ended: list[tuple[str, str]] = field(default_factory=list)

    def predicate(self, name: str, *, many: bool = False) -> Predicate:
        """The relation a slot word names: the ontology's, else a general one, else new.

        A new relation holds one value unless ``many`` (an open relation such as "talks to",
        docs/concepts/text.md#open-relations).
        """
        found = self.lookup(name)
        if found is None:
            general = lexicon.SLOT_PREDICATES.get(
                " ".join(name.casefold().replace("_", " ").split())
            )
            found = None if general is None else self.lookup(general)
        cardinality = "many" if many else DEFAULT_CARDINALITY
        return found or Predicate(name=predicate_name(name), cardinality=cardinality)

    def _split_thing(self, c: Claim, start: dt.datetime) -> Claim | None:
        """Read "the grpc gateway port" as the grpc gateway's port when only that reads."""
        words = c.subject.split()
        if len(words) < 2 or self._values(c.subject, start):
            return None
        for k in range(len(words) - 1, 0, -1):
            head, slot = " ".join(words[:k]), " ".join(words[k:])
            if self._known(slot) and self._values(head, start):
                return replace(c, subject=head, predicate=slot)
        return None

    def _known(self, slot: str) -> bool:
        return self.lookup(slot) is not None or " ".join(slot.casefold().split()) in (
            lexicon.SLOT_PREDICATES
        )

    def prefetch(self, subjects: Iterable[str]) -> None:
        """Read the current facts of many subjects at once (one store query)."""
        wanted = sorted({self.key(s) for s in subjects} - set(self._state))
        if wanted:
            found = self.current(wanted)
            for sid in wanted:
                self._state[sid] = [
                    _Value(f.predicate, f.object, f.valid_from, f.valid_to)
                    for f in found.get(sid, ())
                    if f.predicate != "note"
                ]

    def _values(self, subject: str, at: dt.datetime) -> list[_Value]:
        sid = self.key(subject)
        if sid not in self._state:
            self.prefetch([subject])
        return [v for v in self._state[sid] if v.valid_to is None or v.valid_to > at]

    def _record(self, a: Action) -> None:
        sid = self.key(a.subject)
        values = self._state.setdefault(sid, [])
        same = [v for v in values if v.predicate == a.predicate]
        if a.op == "end":
            keep = [v for v in same if self.key(v.object) != self.key(a.object)]
            self._ended.append((sid, a.predicate))
        elif self.predicate(a.predicate, many=a.claim.many).cardinality == "one":
            keep = [v for v in same if v.valid_to is not None and v.valid_to <= a.valid_from]
        else:
            keep = same
        values[:] = [v for v in values if v.predicate != a.predicate] + keep
        if a.op == "assert":
            values.append(_Value(a.predicate, a.object, a.valid_from, a.valid_to))

    def resolve(self, claim: Claim, at: dt.datetime) -> list[Action] | None:
        """Return the writes of one claim, or ``None`` when it must stay a note."""
        start = claim.valid_from or at
        subject = claim.subject
        if subject != self.owner:
            subject = self._filed_under(subject, start)
        if subject != claim.subject:
            claim = replace(claim, subject=subject)
        slot = self._owners_slot(claim, start)
        if slot is not None:
            # "the on-call pager moves to incident.io" after "on-call pager: Opsgenie": the
            # owner's on_call_pager (docs/concepts/text.md#resolution-against-the-graph)
            claim = replace(claim, subject=self.owner, predicate=slot)
        actions = self._resolve(claim, start)
        for a in actions or ():
            self._record(a)
        return actions

    def _owners_slot(self, claim: Claim, start: dt.datetime) -> str | None:
        """The owner's relation a change names as its subject, when the thing has no facts."""
        if claim.predicate is not None or claim.subject == self.owner:
            return None
        if self._values(claim.subject, start):
            return None
        try:
            slot = predicate_name(claim.subject)
        except ValueError:
            return None
        held = {v.predicate for v in self._values(self.owner, start)}
        return slot if slot in held else None

    def _filed_under(self, subject: str, start: dt.datetime) -> str:
        """The name a thing is known under: "billing" is "the billing service" we know.

        Only when the name as written has no current facts and exactly one variant has: its
        other spellings under the technology aliases, the name without or with a generic head
        noun, or a person's first name. One bounded look-up of a few ids, never a scan
        (docs/concepts/text.md#names).
        """
        if self._values(subject, start):
            return subject
        words = subject.split()
        variants = spellings(subject)[1:] + [f"{subject} {head}" for head in GENERIC_HEADS]
        if len(words) > 1 and words[-1].casefold() in GENERIC_HEADS:
            variants.insert(0, " ".join(words[:-1]))
        if 1 < len(words) <= 3 and all(w[:1].isupper() for w in words):
            variants.insert(0, words[0])  # "Hannah Ode" is the Hannah we know
        self.prefetch(variants)
        found = list(dict.fromkeys(self.key(v) for v in variants if self._values(v, start)))
        if len(found) != 1:
            return subject
        return next(v for v in variants if self.key(v) == found[0])

    def _act(self, op: str, c: Claim, s: str, p: str, o: str, start: dt.datetime) -> Action:
        end = c.valid_to if op == "assert" else None
        if end is not None and end <= start:
            end = None  # an end before the start is no interval: keep what is known
        return Action(op, s, self.predicate(p, many=c.many).name, o, start, end, c)

    def _resolve(self, c: Claim, start: dt.datetime) -> list[Action] | None:
        if c.predicate is None:
            return self._change(c, start)
        c = self._split_slot(c, start)
        assert c.predicate is not None
        pred = self.predicate(c.predicate, many=c.many)
        if not c.polarity:
            return self._ends(c, c.subject, pred.name, c.object, start)
        assert c.object is not None
        if (
            pred.cardinality == "one"
            and c.also
            and not c.change
            and any(
                v.predicate == pred.name and self.key(v.object) != self.key(c.object)
                for v in self._values(c.subject, start)
            )
        ):
            return None  # "Alice also works at Globex": an addition, never a supersession
        name = pred.name
        if c.now and pred.cardinality == "many":
            # "We no longer deploy with X. We use Y now.": Y takes the place of X.
            sid = self.key(c.subject)
            ended = [p for s, p in self._ended if s == sid]
            if ended and self.predicate(ended[-1]).cardinality == "one":
                name = ended[-1]
        out: list[Action] = []
        if c.replaces and self.predicate(name, many=c.many).cardinality == "many":
            out.append(self._act("end", c, c.subject, name, c.replaces, start))
        if c.correction and self.predicate(name, many=c.many).cardinality == "one":
            # The old value was wrong, not outdated: the new one replaces it from its start.
            olds = [
                v
                for v in self._values(c.subject, start)
                if v.predicate == name
                and self.key(v.object) != self.key(c.object)
                and v.valid_from <= start
            ]
            if len(olds) == 1 and c.valid_from is None:
                start = olds[0].valid_from
        out.append(self._act("assert", c, c.subject, name, c.object, start))
        return out

    def _split_slot(self, c: Claim, start: dt.datetime) -> Claim:
        """Read "the platform team lead is Kenji" as the platform team's team_lead."""
        assert c.predicate is not None
        words = c.predicate.split()
        if c.subject != self.owner or len(words) < 2 or self._known(c.predicate):
            return c
        for k in range(1, len(words)):
            head, slot = " ".join(words[:k]), " ".join(words[k:])
            if not self._known(slot):
                continue
            name = self.predicate(slot).name
            if any(v.predicate == name for v in self._values(head, start)):
                return replace(c, subject=head, predicate=slot)
        return c

    def _ends(
        self, c: Claim, subject: str, predicate: str | None, obj: str | None, start: dt.datetime
    ) -> list[Action] | None:
        values = self._values(subject, start)
        hits = [
            v
            for v in values
            if (predicate is None or v.predicate == predicate)
            and (obj is None or self.key(v.object) == self.key(obj))
        ]
        if not hits and predicate is None and obj is not None and subject == self.owner:
            found = self._incoming(obj, start)
            return [self._act("end", c, s, v.predicate, v.object, start) for s, v in found] or None
        if not hits:
            # Nothing current to end ("Bob no longer works at Acme" about a Bob we knew
            # nothing of, or a value this text replaced already): nothing to write.
            return []
        return [self._act("end", c, subject, v.predicate, v.object, start) for v in hits]

    def _incoming(self, obj: str, start: dt.datetime) -> list[tuple[str, _Value]]:
        out = []
        for f in list(self.incoming(self.key(obj)))[:INCOMING_LIMIT]:
            if f.predicate != "note" and f.valid_at(start):
                out.append((f.subject, _Value(f.predicate, f.object, f.valid_from, f.valid_to)))
        return out

    def _change(self, c: Claim, start: dt.datetime) -> list[Action] | None:
        if not c.polarity:
            return self._ends(c, c.subject, None, c.object, start)
        assert c.object is not None
        new = c.object
        split = self._split_thing(c, start)
        if split is not None:  # "changed the grpc gateway port to 50052": its port
            return self._resolve(split, start)
        if c.replaces:
            return self._replace(c, new, c.replaces, start)
        values = self._values(c.subject, start)
        held = {v.predicate for v in values if self.key(v.object) == self.key(new)}
        if len(held) == 1:  # "went back to Terraform": a value it has already
            return [self._act("assert", c, c.subject, held.pop(), new, start)]
        people = c.hint in lexicon.PEOPLE_SLOTS
        slots: dict[str, list[str]] = {}
        for v in values:
            pred = self.predicate(v.predicate)
            if (
                pred.cardinality == "one"
                and v.valid_from <= start
                and (pred.name in lexicon.PEOPLE_SLOTS) == people
            ):
                slots.setdefault(v.predicate, []).append(v.object)
        if c.hint and c.hint in slots:
            return [self._act("assert", c, c.subject, c.hint, new, start)]
        # A relation the text named once ("retries", "talks to") is no slot for a change
        # that names none: only the ontology's relations and values of one family are.
        fits = [
            p
            for p, olds in slots.items()
            if all(compatible(new, o) for o in olds)
            and (
                self.lookup(p) is not None
                or (_family(new) is not None and all(_family(o) == _family(new) for o in olds))
            )
        ]
        same_family = [
            p
            for p in fits
            if _family(new) is not None and all(_family(o) == _family(new) for o in slots[p])
        ]
        chosen = same_family if len(same_family) == 1 else fits
        if len(chosen) == 1:
            return [self._act("assert", c, c.subject, chosen[0], new, start)]
        if not chosen:
            # "The worker isn't on Node.js anymore, we moved it to Deno": the slot just ended
            sid = self.key(c.subject)
            ended = list(dict.fromkeys(p for s, p in self._ended if s == sid))
            if len(ended) == 1:
                return [self._act("assert", c, c.subject, ended[0], new, start)]
        if not slots and c.hint:
            return [self._act("assert", c, c.subject, c.hint, new, start)]
        return None

    def _replace(self, c: Claim, new: str, old: str, start: dt.datetime) -> list[Action] | None:
        old_key = self.key(old)
        subjects = [c.subject] + ([self.owner] if c.subject != self.owner else [])
        found: list[tuple[str, _Value]] = []

        def holds(value: str) -> bool:  # "replaced Kong" names "Kong 3.4" too
            k = self.key(value)
            return k == old_key or k.startswith(old_key + " ")

        for s in subjects:
            found = [(s, v) for v in self._values(s, start) if holds(v.object)]
            if found:
                break
        if not found and c.subject == self.owner:
            found = self._incoming(old, start)  # "we" names no fact of its own holding it
        elif not found and not self._values(c.subject, start):
            # "Leaflet was swapped for MapLibre GL for vector tiles": a thing we hold nothing
            # of; the fact holding the named old value is the one, if only one does or only
            # one shares a word with the thing (docs/concepts/text.md#resolution-against-the-graph)
            # A named thing ("Heidi took over Payments from Grace", who owns Billing) or a
            # person's slot is never another thing's: those need a shared word too.
            found = [(s, v) for s, v in self._incoming(old, start) if holds(v.object)]
            plain = c.subject == c.subject.casefold() and not any(
                v.predicate in lexicon.PEOPLE_SLOTS for _, v in found
            )
            if not plain or len({(self.key(s), v.predicate) for s, v in found}) > 1:
                words = _content_words(c.subject)
                found = [(s, v) for s, v in found if _content_words(s) & words]
        slots = {(self.key(s), v.predicate): (s, v) for s, v in found}
        if len(slots) == 1:
            subject, v = next(iter(slots.values()))
            out = []
            if self.predicate(v.predicate).cardinality == "many":
                out.append(self._act("end", c, subject, v.predicate, v.object, start))
            out.append(self._act("assert", c, subject, v.predicate, new, start))
            return out
        if not slots and c.hint:
            return [self._act("assert", c, c.subject, c.hint, new, start)]
        return None


def _content_words(name: str) -> set[str]:
    """A name's words less determiners and plural ``s`` ("all scheduled jobs" -> job, scheduled)."""
    skip = {"the", "a", "an", "all", "our", "my", "their", "its", "every", "each", "some"}
    return {w.removesuffix("s") for w in name.casefold().split() if w not in skip and len(w) > 2}
