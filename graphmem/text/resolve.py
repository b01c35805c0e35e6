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
import re
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
    "region": "region",
}
_TYPED = frozenset({"number", "email", "version", "timezone", "region"})
#: Words a company's name ends with, left out when people name it short.
COMPANY_SUFFIXES = tuple(
    """Industries Inc Corp Corporation Ltd LLC GmbH Labs Group Technologies Systems
    Software""".split()  # noqa: SIM905
)
#: Head nouns a thing's name may carry or drop ("billing" / "the billing service").
GENERIC_HEADS = tuple(
    """service app api team project system platform pipeline cluster server environment
    database db job cron task worker queue""".split()  # noqa: SIM905
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

    def said_ended(
        self,
        sentence: str,
        claims: Sequence[Claim],
        at: dt.datetime,
        *,
        unresolved: Sequence[Claim],
        ended: Sequence[Action] = (),
    ) -> list[Action]:
        """End what a sentence says ended that its claims did not.

        See docs/concepts/text.md#said-ended.

        "Algolia is gone; the search page queries Typesense now" ends ``search page uses
        Algolia``: the value named with an ending cue (:func:`graphmem.said_ended.ended_values`)
        is looked up (one bounded lookup by the value), and a current fact holding it ends when
        its subject is named in the sentence or shares a word with it, or is the owner and the
        sentence speaks for the owner (first person, or a sentence that starts with its verb).
        When exactly one fact ends this way and the sentence has a change the graph could not
        place ("Jira was swapped for Linear" read with a garbled old value), its new value
        takes that fact's place.
        """
        from graphmem.said_ended import corrected, ended_values, names

        values = ended_values(sentence)
        if not values and not ended:
            return []
        start = next((c.valid_from for c in claims if c.valid_from), None) or at
        low = sentence.casefold()
        said_words = _content_words(low)
        fixes = corrected(sentence)  # "actually it's Tamsin, not Tomasz"
        mine = lexicon.FIRST_PERSON.search(sentence)
        for_owner = bool(mine or _VERB_FIRST.match(sentence) or fixes)
        kept = {self.key(c.object) for c in claims if c.polarity and c.object}
        found: list[tuple[str, _Value]] = []
        taken: list[str] = []
        for value in values:
            if any(names(value, t) for t in taken) or self.key(value) in kept:
                continue  # a shorter run of a value already looked up, or a value said to hold
            hits = []
            for s, v in self._incoming(value, start):
                if v.valid_from >= start or not names(value, v.object.casefold()):
                    continue
                if v not in self._values(s, start):
                    continue  # ended already by this text
                related = (
                    names(s.casefold(), low)
                    or bool(_content_words(s) & said_words)
                    or (_noun_slot(v.predicate) and names(v.predicate.replace("_", " "), low))
                )
                if related or (s == self.owner and for_owner):
                    hits.append((s, v))
            if hits:
                taken.append(value)
                found += hits
        claim = Claim(self.owner, None, None, polarity=False, sentence=sentence)
        out = [self._act("end", claim, s, v.predicate, v.object, start) for s, v in found]
        # what ended, by this step or by the sentence's own claims ("Redis is gone")
        gone = found + [
            (a.subject, _Value(a.predicate, a.object, a.valid_from, None)) for a in ended
        ]
        if len(gone) != 1:
            return out
        if found:
            s, v = found[0]
            new = [n for n, o in fixes if names(o, v.object.casefold())]
            if len(new) == 1 and self.predicate(v.predicate).cardinality == "one":
                # the corrected value replaces the wrong one from its start
                fix = Claim(s, v.predicate, new[0], correction=True, sentence=sentence)
                return self._resolve(fix, start) or []
        s, v = gone[0]
        changes = [c for c in unresolved if c.change and c.polarity and c.object]
        if len(changes) == 1 and changes[0].object:
            out.append(self._act("assert", changes[0], s, v.predicate, changes[0].object, start))
        elif not changes:
            heir = _takes_slot(sentence, v.predicate) if _noun_slot(v.predicate) else None
            if heir and self.key(heir) != self.key(v.object):
                # "Traefik does ingress now", "CDN cutover to CloudFront"
                taker = Claim(s, v.predicate, heir, sentence=sentence)
                out.append(self._act("assert", taker, s, v.predicate, heir, start))
        return out

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
        elif (
            self.predicate(a.predicate, many=a.claim.many).cardinality == "one"
            and not a.claim.together
        ):
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
        named = self._slot_named_otherwise(claim, start)
        if named is not None:
            claim = replace(claim, subject=named[0], predicate=named[1])
        slot = self._owners_slot(claim, start)
        if slot is not None:
            # "the on-call pager moves to incident.io" after "on-call pager: Opsgenie": the
            # owner's on_call_pager (docs/concepts/text.md#resolution-against-the-graph)
            claim = replace(claim, subject=self.owner, predicate=slot)
        actions = self._resolve(claim, start)
        for a in actions or ():
            self._record(a)
        return actions

    def _slot_named_otherwise(self, c: Claim, start: dt.datetime) -> tuple[str, str] | None:
        """The owner's slot a value was already filed under by other words, if only one fits.

        "enterprise SLA is 99.95%" after "the SLA for enterprise is 99.9%": the same words
        (less "for", "of", "the") name one slot; "the Pro plan is $24" after "the Pro plan
        costs $20": the thing the slot names has one single-valued relation whose value is of
        the new value's family (docs/concepts/text.md#resolution-against-the-graph).
        """
        if c.subject != self.owner or not c.polarity or not c.predicate or not c.object:
            return None
        try:
            name = predicate_name(c.predicate)
        except ValueError:
            return None
        mine = self._values(self.owner, start)
        if self._known(c.predicate) or any(v.predicate == name for v in mine):
            return None
        words = _slot_words(c.predicate)
        same = {v.predicate for v in mine if _slot_words(v.predicate) == words}
        if not same and len(words) > 1:
            # "support hours" after "customer support hours": a shorter name of one slot
            same = {v.predicate for v in mine if words < _slot_words(v.predicate)}
        if len(same) == 1:
            return self.owner, same.pop()
        kind = _family(c.object) or _quantity(c.object)
        if same or kind is None:
            return None
        thing = self._values(c.predicate, start)
        fits = {
            v.predicate
            for v in thing
            if self.predicate(v.predicate).cardinality == "one"
            and (_family(v.object) or _quantity(v.object)) == kind
        }
        if len(fits) == 1:
            return c.predicate, fits.pop()
        return None

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
        other spellings under the technology aliases, the name without, with or with another
        generic head noun, or a person's first name. One bounded look-up of a few ids, never a scan
        (docs/concepts/text.md#names).
        """
        if self._values(subject, start):
            return subject
        words = subject.split()
        variants = spellings(subject)[1:] + [f"{subject} {head}" for head in GENERIC_HEADS]
        if len(words) > 1 and words[-1].casefold() in GENERIC_HEADS:
            stem = " ".join(words[:-1])  # "orders database" is the "orders db" we know
            variants[:0] = [stem, *(f"{stem} {head}" for head in GENERIC_HEADS)]
        if 1 < len(words) <= 3 and all(w[:1].isupper() for w in words):
            variants.insert(0, words[0])  # "Hannah Ode" is the Hannah we know
        if len(words) == 1 and subject[:1].isupper():
            # "Vandelay" is the Vandelay Industries we know
            variants += [f"{subject} {suffix}" for suffix in COMPANY_SUFFIXES]
        self.prefetch(variants)
        found = list(dict.fromkeys(self.key(v) for v in variants if self._values(v, start)))
        if len(found) != 1:
            return subject
        return next(v for v in variants if self.key(v) == found[0])

    def _act(self, op: str, c: Claim, s: str, p: str, o: str, start: dt.datetime) -> Action:
        end = c.valid_to if op == "assert" else None
        if end is not None and end <= start:
            end = None  # an end before the start is no interval: keep what is known
        name = self.predicate(p, many=c.many).name
        if name == "port" and (m := _PORT_VALUE.match(o)):
            o = m.group(1)  # "listens on port 4000" read by the parse: the port is 4000
        return Action(op, s, name, o, start, end, c)

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
        if (c.now or c.change) and not (c.together or c.also) and name == pred.name:
            name = self._slot_of_kind(c, name, start) or name
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

    def _slot_of_kind(self, c: Claim, name: str, start: dt.datetime) -> str | None:
        """The one slot a change cue's value takes over when it names another relation.

        "Outgoing mail now goes out via Postmark" after "outgoing mail is sent by SES": the
        subject holds nothing under the new relation and exactly one single-valued slot whose
        values are of the new value's kind; with none or several, it is just another fact
        (docs/concepts/text.md#a-change-names-another-relation).
        """
        assert c.object is not None
        if c.subject == self.owner and not c.change:
            return None
        kind = _kind(c.object)
        if kind is None or self.predicate(name, many=c.many).cardinality != "one":
            return None
        values = self._values(c.subject, start)
        if any(v.predicate == name for v in values):
            return None
        slots: dict[str, list[str]] = {}
        for v in values:
            if v.valid_from <= start and self.predicate(v.predicate).cardinality == "one":
                slots.setdefault(v.predicate, []).append(v.object)
        fits = [
            p
            for p, olds in slots.items()
            if all(_kind(o) == kind for o in olds)
            and all(self.key(o) != self.key(c.object) for o in olds)
        ]
        if _noun_slot(name):
            # a slot the sentence names takes only a slot it names more or less of ("Northwind
            # rate" the "rate"); "the budget was revised to $2.1M" is its own slot
            words = _slot_words(name)
            fits = [p for p in fits if _slot_words(p) <= words or words <= _slot_words(p)]
        return fits[0] if len(fits) == 1 else None

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
            product = _PRODUCT_PART.fullmatch(obj)
            if not found and product:
                # "the Memcached cluster is deleted": what held Memcached ends
                found = self._incoming(product["name"], start)
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
        begins: dict[str, dt.datetime] = {}
        for v in values:
            pred = self.predicate(v.predicate)
            if (
                pred.cardinality == "one"
                # a correction dated before the value it corrects replaces it all the same
                and (v.valid_from <= start or c.correction)
                and (pred.name in lexicon.PEOPLE_SLOTS) == people
            ):
                slots.setdefault(v.predicate, []).append(v.object)
                begins[v.predicate] = max(v.valid_from, begins.get(v.predicate, v.valid_from))

        def assert_in(slot: str) -> list[Action]:
            # "not quite, they switched to Neovim two years ago" after "editor is VS Code"
            # (since May): Neovim replaces VS Code from its start, as corrections do
            # A value stated, not moved to ("Emma is actually 8"), replaces it from the old
            # value's start; "not quite: dns moved to Cloudflare" still says it moved.
            if not c.correction:
                begin = start
            elif c.fallback and c.valid_from is None:
                begin = begins.get(slot, start)
            else:
                begin = max(start, begins.get(slot, start))
            return [self._act("assert", c, c.subject, slot, new, begin)]

        if c.hint and c.hint in slots:
            return assert_in(c.hint)
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
            return assert_in(chosen[0])
        if not chosen:
            # "The worker isn't on Node.js anymore, we moved it to Deno": the slot just ended
            sid = self.key(c.subject)
            ended = list(dict.fromkeys(p for s, p in self._ended if s == sid))
            if len(ended) == 1:
                return [self._act("assert", c, c.subject, ended[0], new, start)]
        if not slots and c.hint:
            return [self._act("assert", c, c.subject, c.hint, new, start)]
        # with no slot at all, a migration is the relation its new value's family implies
        # ("we migrated the billing service to Go": written in Go), after rule 4
        family = None if slots else self._family_relation(c, new)
        if not values and c.subject != self.owner:
            owners = self._owners_relation(c, new, start)
            if owners is None and family:
                return [self._act("assert", c, c.subject, family, new, start)]
            return owners
        if family and not any(v.predicate == family for v in values):
            return [self._act("assert", c, c.subject, family, new, start)]
        return None

    def _family_relation(self, c: Claim, new: str) -> str | None:
        """The relation a moved thing's new value implies (rule 3), never the owner's.

        "we moved it to Fly.io", with "it" unread, names no thing; the owner's whole stack
        ("we moved everything to AWS") comes as the claim's hint instead.
        """
        if c.subject == self.owner:
            return None
        return lexicon.FAMILY_SLOTS.get(lexicon.category(new) or "")

    def _owners_relation(self, c: Claim, new: str, start: dt.datetime) -> list[Action] | None:
        """A change of a thing that one of the owner's relations names.

        "We run CI on Jenkins", then "we moved CI to GitHub Actions": the one current relation
        of the owner whose name holds every word of the thing is the slot; none, or two, and
        the change places nothing (docs/concepts/text.md#resolution-against-the-graph).
        """
        # not _content_words: it drops words of two letters, and "CI" is one
        words = [w for w in c.subject.casefold().split() if w not in ("the", "our", "my")]
        if not words:
            return None
        hits = {
            v.predicate: v
            for v in self._values(self.owner, start)
            if v.predicate != "note"
            and v.valid_from <= start
            and set(words) <= set(v.predicate.split("_")[1:])  # the verb is no thing
        }
        if not hits and lexicon.SLOT_THING.fullmatch(" ".join(words)) and c.subject.islower():
            # "we moved the default region to X", nothing stored: the owner's slot it names
            return [self._act("assert", c, self.owner, " ".join(words), new, start)]
        if len(hits) != 1:
            return None
        v = next(iter(hits.values()))
        out = []
        if self.predicate(v.predicate).cardinality == "many":
            out.append(self._act("end", c, self.owner, v.predicate, v.object, start))
        out.append(self._act("assert", c, self.owner, v.predicate, new, start))
        return out

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
        if not found and not self._values(c.subject, start):
            # "postgres went from 13 to 15" after "db: Postgres 13": the thing's version
            both = f"{c.subject} {old}"
            held = [
                (s, v)
                for s, v in self._incoming(both, start)
                if self.key(v.object) == self.key(both)
            ]
            held += [
                (self.owner, v)
                for v in self._values(self.owner, start)
                if self.key(v.object) == self.key(both)
            ]
            if len({(self.key(s), v.predicate) for s, v in held}) == 1:
                subject, v = held[0]
                named = v.object[: len(v.object) - len(old)].rstrip()  # as first written
                return [self._act("assert", c, subject, v.predicate, f"{named} {new}", start)]
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
        if len({sid for sid, _ in slots}) == 1:
            # "billing-service migrates from MySQL to PostgreSQL": every relation of its one
            # subject holding MySQL takes the new value (docs/concepts/text.md#eleventh-round)
            out = []
            for subject, v in slots.values():
                if self.predicate(v.predicate).cardinality == "many":
                    out.append(self._act("end", c, subject, v.predicate, v.object, start))
                out.append(self._act("assert", c, subject, v.predicate, new, start))
            return out
        family = self._family_relation(c, new)
        if not slots and (c.hint or family):  # no fact holds the old value: rule 3
            return [self._act("assert", c, c.subject, c.hint or family or "", new, start)]
        return None


#: A sentence that starts with its verb (a commit, a ticket, a changelog) speaks for the owner:
#: "drop GitLab CI", "OPS-488: Replaced Jenkins with Argo".
_VERB_FIRST = re.compile(
    r"(?i)^(?:[\w()!/#.-]+:\s*|[-*+]\s*)?(?:we\s+)?(?:replac|drop|remov|retir|stop|ditch|kill|"
    r"deprecat|decommission|switch|migrat|mov|swap|rip|sunset|abandon|uninstall|dump)\w*\b"
)


#: A product named with the part that runs it: "Memcached cluster", "Jenkins server".
_PRODUCT_PART = re.compile(
    r"(?:the\s+)?(?P<name>[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*)?)\s+(?:cluster|instance|server|"
    r"servers|box|node|nodes|deployment|setup|install|installation|account|subscription|"
    r"license|licence|integration|plugin)"
)


_PORT_VALUE = re.compile(r"(?i)^port\s+(\d{1,5})$")


def _quantity(value: str) -> str | None:
    """An amount's kind: ``money`` ($24, €1,450, 20 EUR), ``percent`` (99.9%), else ``None``."""
    v = value.strip()
    if re.match(r"^(?:[$€£¥]\s?\d|\d[\d.,]*\s?(?:usd|eur|gbp|dollars?|euros?)\b)", v, re.I):
        return "money"
    if re.match(r"^\d[\d.,]*\s?%$", v):
        return "percent"
    return None


_NAME = r"[A-Z][\w.+-]*(?:\s+[A-Z][\w.+-]*){0,2}"


def _kind(value: str) -> str | None:
    """A value's kind for a change that names another relation: its family or its amount.

    An untyped name ("Globex", "Berlin") has none: it could fill any relation
    (docs/concepts/text.md#a-change-names-another-relation).
    """
    return _family(value) or _quantity(value)


def _takes_slot(sentence: str, predicate: str) -> str | None:
    """The name a sentence gives a slot whose value it says ended, if it names one plainly.

    "nginx-ingress is gone, Traefik does ingress now": Traefik; "CDN cutover to CloudFront
    happened yesterday, Fastly contract lapses": CloudFront.
    """
    if len(sentence) > 2000:
        return None  # a pasted log, not a statement (the reader reads no more either)
    slot = r"\s+".join(re.escape(w) for w in predicate.split("_"))
    forms = (
        rf"(?P<new>{_NAME})\s+(?:now\s+)?(?:does|handles|runs|covers|takes\s+care\s+of|"
        rf"is\s+doing)\s+(?:the\s+|our\s+)?(?i:{slot})\b",
        rf"(?i:\b{slot})(?:\s+[\w-]+){{0,2}}?\s+(?i:to|->|→|is\s+now|now\s+is)\s+(?P<new>{_NAME})",
    )
    found = {m.group("new") for f in forms for m in re.finditer(f, sentence)}
    return found.pop() if len(found) == 1 else None


_RELATION_END = re.compile(r"_(?:by|in|on|with|to|at|from|for|of|via|through|as)$")


def _noun_slot(predicate: str) -> bool:
    """A slot named by a noun ("cdn", "error_tracking", "ingress"), not by a verb's relation."""
    verb = "_" not in predicate and predicate.endswith("s") and not predicate.endswith("ss")
    return _RELATION_END.search(predicate) is None and not verb  # "uses", "owns": verbs


def _slot_words(slot: str) -> frozenset[str]:
    """A slot's words less joiners: "SLA for enterprise" and "enterprise SLA" are one slot."""
    joiners = {"for", "of", "the", "a", "an", "on", "in"}
    return frozenset(w for w in re.split(r"[\s_]+", slot.casefold()) if w and w not in joiners)


def _content_words(name: str) -> set[str]:
    """A name's words less determiners and plural ``s`` ("all scheduled jobs" -> job, scheduled)."""
    skip = {"the", "a", "an", "all", "our", "my", "their", "its", "every", "each", "some"}
    words = (w.removesuffix("'s").removesuffix("’s") for w in _WORDS.findall(name.casefold()))
    return {w.removesuffix("s") for w in words if w not in skip and len(w) > 2}


_WORDS = re.compile(r"[\w][\w'’.+#-]*[\w+#]|\w")
