"""Open claims from a dependency parse: who, which relation, what value (pure).

The rule reader (:mod:`graphmem.text.rules`) knows the relations of the ontology and the change
forms; text written elsewhere uses every verb there is ("Invoices are stored in S3", "Alerts go
out through PagerDuty", "Support tickets are handled by Zendesk"). This module reads such a
sentence from a trained parse (:func:`graphmem.text.nlp.parse`) into *open* claims: the relation
is named from the verb and its preposition, as people write it ("stored in", "goes through",
"handled by", "costs"), so it maps onto the ontology where a predicate or alias matches
("runs on" → ``runs_on``) and stays a user-visible relation where none does
(docs/concepts/text.md#open-relations).

It works on any object shaped like a spaCy ``Span`` (tokens with ``text``, ``lemma_``, ``pos_``,
``tag_``, ``dep_``, ``head``, ``children``, ``i``); it imports no parser itself. What it does not
decide: who "we" or "she" is, how a value is cleaned, and whether the relation changes anything —
the reader and the resolver do that on the claims it returns, exactly as for rule-read claims.

Clauses it reads, per verb of the sentence:

- active: ``S <verb> [prep] O`` ("alerts go through PagerDuty", "the plan costs $20");
- passive: ``S is <participle> <prep|by> O`` ("invoices are stored in S3", "tickets are handled
  by Zendesk");
- copular with a preposition or a list membership: "support is in Intercom", "Acme Corp is one
  of our customers";
- endings: "Redis is gone", "X was retired";
- changes: "A was swapped for B", "X went from 14 to 16", "we moved everything to Y",
  "invoices moved from S3 to R2".

It skips a clause that is hedged (a modal, a condition, a clause under "want", "plan", "think",
"say"), a clause in the simple past of a verb that is not a change (history: "Ana worked at
Acme"), and one whose subject or value is a bare pronoun the reader cannot use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from graphmem.text.lexicon import attribute, plan_tier
from graphmem.text.parse_values import count_of, meeting_time, runs_software
from graphmem.text.parse_words import (
    _CLOCK,
    _DATEISH,
    _FIRST,
    _MANY_PASSIVE,
    _MODIFIERS,
    _NOT_NAMES,
    _NOUNS,
    _ORIGINS,
    _PRESENT,
    _PRONOUNS,
    _SUBJECTS,
    _TIME_WORDS,
    _WEEKDAYS,
    CHANGE_VERBS,
    CONDITIONS,
    ENDED,
    ENDING_VERBS,
    HEDGING,
    INCEPTION_VERBS,
    LIGHT_VERBS,
    MANY_VERBS,
    MEMBERSHIP,
    MODALS,
    NOT_VALUE_PREPS,
    PHRASAL_CHANGES,
    RELATIONS,
    VALUE_VERBS,
    third_person,
)

__all__ = ["Open", "phrase", "third_person", "verb_taken_for_noun", "with_subject"]

Token = Any  # a spaCy Token (duck-typed: this module imports no parser)


@dataclass(frozen=True)
class Open:
    """One claim read from a parse, before the reader resolves its names.

    Attributes:
        subject: the subject phrase as written ("the mobile app", "we"), or ``None`` when the
            clause states a change of a value without a thing ("Jenkins was swapped for X").
        relation: the relation as people write it ("stored in", "goes through"), or ``None``
            for a change or an ending that does not name it.
        object: the value phrase, or ``None`` for an ending of whatever the subject had.
        polarity: ``False`` for an ending ("Redis is gone", "no longer goes through X").
        replaces: the old value a change names ("from S3", "swapped A for ...").
        change: the clause states a change (a change verb).
        many: the relation holds many values at once ("talks to", "one of our customers").
        object_is_subject: an ending whose phrase is the *value* that ended ("Redis is
            gone": whatever held Redis), so the reader files it under the owner.
    """

    subject: str | None
    relation: str | None
    object: str | None
    polarity: bool = True
    replaces: str | None = None
    change: bool = False
    many: bool = False
    object_is_subject: bool = False
    moved: bool = False  # the subject itself moved or relocates ("the user is moving to X")


def _children(tok: Token, *deps: str) -> list[Token]:
    return [c for c in tok.children if c.dep_ in deps]


def phrase(tok: Token) -> str:
    """The noun phrase a token heads: its modifiers to the left, compounds and numbers after.

    "the billing service", "Postgres 16", "$20", "ap-south-1".
    """
    span = {tok.i}
    stack = [tok]
    while stack:
        t = stack.pop()
        for c in t.children:
            if c.dep_ in _MODIFIERS and (c.i < tok.i or c.dep_ in ("compound", "nummod")):
                if c.dep_ == "npadvmod" and c.i > tok.i:
                    continue  # "$20 a seat": the rate is not part of the value
                span.add(c.i)
                stack.append(c)
            elif c.dep_ in ("flat", "appos") and c.i == max(span) + 1:
                span.add(c.i)
                stack.append(c)
            elif (
                c.dep_ == "conj"
                and t.i == tok.i
                and c.i == max(span) + 2
                and tok.doc[c.i - 1].text == "&"
                and c.text[:1].isupper()
            ):
                span.update((c.i - 1, c.i))  # "Saffron & Smoke", "Johnson & Johnson": one name
                stack.append(c)
            elif (
                c.dep_ == "prep"
                and c.lower_ == "of"
                and t.i == tok.i
                and tok.pos_ == "NOUN"
                and c.i == max(span) + 1
            ):
                # "head of data", "VP of Sales": the role is the whole phrase
                span.update(x.i for x in c.subtree)
    doc = tok.doc
    start, end = min(span), max(span)
    # "250 req/s": tokens written without a space between are one word
    while end + 1 < len(doc) and not doc[end].whitespace_ and doc[end + 1].text[0] not in _STOPS:
        end += 1
    return str(doc[start : end + 1].text)


#: What ends a word written without spaces: punctuation between words or at a sentence's end.
_STOPS = frozenset(".,;:!?)]}\"'’…")  # and "'s", "n't"


def _is_pronoun(text: str) -> bool:
    return text.casefold() in _PRONOUNS


def _subject(verb: Token) -> Token | None:
    found = _children(verb, *_SUBJECTS)
    if found:
        return found[0]
    nouns = [
        c
        for c in verb.children
        if c.i < verb.i
        and (
            (c.dep_ in ("compound", "npadvmod", "dep") and c.pos_ in _NOUNS)
            or (c.dep_ == "amod" and ("-" in c.text or "." in c.text))  # "search-service"
        )
    ]
    if nouns and verb.dep_ == "ROOT":
        return nouns[-1]  # "Staging runs on Fly.io": "Staging" tagged a compound of "runs"
    if verb.dep_ in ("conj", "xcomp") and verb.head.i != verb.i:
        return _subject(verb.head)  # "alerts go through X and page the on-call"
    if verb.dep_ == "acl" and verb.head.dep_ == "ROOT" and verb.head.pos_ in _NOUNS:
        return verb.head  # a headline: "Aurora budget approved at $1.2M"
    return None


def _hedged(verb: Token) -> bool:
    """Whether a clause is a wish, a plan, a condition, a report, a request or a question."""
    if verb.dep_ in ("ccomp", "xcomp") and _imperative(verb.head):
        return True  # "help me write the checklist": a request, not a statement
    t = verb
    for _ in range(6):
        for c in t.children:
            if c.dep_ in ("aux", "auxpass") and c.lemma_.casefold() in MODALS:
                return True
            if c.dep_ == "mark" and c.lemma_.casefold() in CONDITIONS:
                return True
            if (  # "we plan to move": an infinitive clause under another verb
                c.dep_ == "aux"
                and c.lemma_.casefold() == "to"
                and t.i == verb.i
                and t.head.i != t.i
                and t.head.lemma_.casefold() in HEDGING
            ):
                return True
        if t.dep_ in ("ccomp", "xcomp", "advcl") and t.head.lemma_.casefold() in HEDGING:
            return True
        if t.dep_ == "advcl" and any(
            c.dep_ == "mark" and c.lemma_.casefold() in CONDITIONS for c in t.children
        ):
            return True
        if t.head.i == t.i:
            break
        t = t.head
    return False


def _indefinite(tok: Token) -> bool:
    """Whether a phrase is no value of its own: "a startup", "no date", "three times", "17/12".

    An indefinite phrase that holds a name stays a value ("a single EC2 instance"), and so
    does one that is a name ("a Kindle", "a 2015 Golf"; docs/concepts/text.md#open-relations).
    """
    if _DATEISH.fullmatch(tok.text) or tok.lemma_.casefold() in ("time", "times"):
        return True
    if any(c.dep_ == "det" and c.lower_ == "no" for c in tok.children):
        return True
    return any(
        c.dep_ == "det" and c.lower_ in ("a", "an", "some", "another", "any", "every")
        for c in tok.children
    ) and not any(
        (t.pos_ == "PROPN" and t.text[:1].isupper()) or _capital(t)
        for t in tok.subtree
        if t.i != tok.i or t.dep_ in ("dobj", "pobj")
    )


def _person(tok: Token) -> bool:
    """A subject that can live somewhere: a name, a pronoun for people, "I"/"we"."""
    return tok.pos_ == "PROPN" or tok.lower_ in ("i", "we", "he", "she", "they", "you")


def _imperative(verb: Token) -> bool:
    """A verb in the base form without a subject, at the start: "help me ...", "make it ..."."""
    return (
        verb.dep_ == "ROOT"
        and verb.tag_ == "VB"
        and not any(c.dep_ in _SUBJECTS or c.dep_ == "aux" for c in verb.children)
    )


def _negated(verb: Token) -> bool:
    """Whether a verb is negated: "not", "never", "no longer", "anymore"."""
    for c in verb.children:
        low = c.lower_
        if c.dep_ == "neg" or low in ("never", "anymore"):
            return True
        if low in ("longer", "more") and any(g.lower_ == "no" for g in c.children):
            return True
    return False


def _past(verb: Token) -> bool:
    """Simple past without a present auxiliary: history ("Ana worked at Acme")."""
    if verb.tag_ != "VBD":
        return False
    return not any(c.dep_ in ("aux", "auxpass") for c in verb.children)


def _value_preps(verb: Token) -> list[tuple[str, Token]]:
    """(preposition, its object) pairs of a verb, values only ("in S3", "through X")."""
    out = []
    for prep in _children(verb, "prep", "agent", "dative"):
        word = prep.lower_
        objs = _children(prep, "pobj")
        if not objs:
            continue
        obj = objs[0]
        if word in NOT_VALUE_PREPS and word not in ("for",):
            continue
        if obj.pos_ in _NOT_NAMES and "-" not in obj.text and not obj.text[:1].isupper():
            continue  # "from now on": "on" is no value; "valuable", "much": no values
        after = obj.doc[obj.right_edge.i + 1] if obj.right_edge.i + 1 < len(obj.doc) else None
        if word == "from" and after is not None and after.lower_ in ("on", "onward", "onwards"):
            continue  # "owns sign-off from 4.0 on": when it starts, no value
        day = obj.lower_.removesuffix("s")
        if (
            (day in _TIME_WORDS or obj.lemma_.casefold() in _TIME_WORDS)
            # "on Eastern Time" is a time zone, "on Tuesdays" a time
            and (obj.pos_ != "PROPN" or day in _WEEKDAYS)
        ) or (word == "at" and (_CLOCK.fullmatch(obj.text) or obj.pos_ == "NUM")):
            continue
        out.append((word if prep.dep_ != "agent" else "by", obj))
        if word == "as":  # "works as a data analyst at Acme": the employer too
            out.extend(
                (p.lower_, o)
                for p in _children(obj, "prep")
                if p.lower_ in ("at", "for", "with")
                for o in _children(p, "pobj")
            )
    return out


def _no_purpose(preps: list[tuple[str, Token]]) -> list[tuple[str, Token]]:
    """Beside a value, "for" and no name is a purpose: "talks to Stripe for card payments".

    A change keeps it: "switched to Fastmail for personal email" names what changed.
    """
    if len(preps) < 2:
        return preps
    return [(w, o) for w, o in preps if w != "for" or _named(o)]


def _passive_conj(verb: Token) -> bool:
    """A participle joined to a passive: "Images are built by X and pushed to GHCR"."""
    return (
        verb.dep_ == "conj"
        and verb.tag_ in ("VBN", "VBD")
        and not _children(verb, *_SUBJECTS, "dobj")
        and any(c.dep_ == "auxpass" for c in verb.head.children)
    )


def _subject_text(verb: Token, subj: Token) -> str:
    """The subject as written; for a verb the tagger took for a noun, its modifiers too."""
    if subj.lower_ in _FIRST:
        return str(subj.text)
    if subj.head.i == verb.i and subj.dep_ in ("compound", "npadvmod", "dep"):
        # "the on-call pager moves to X": "on-call" hangs on "moves"
        mods = [c for c in verb.lefts if c.dep_ in ("compound", "amod", "nmod", "poss")]
        # with their own modifiers: "the billing service talks to X" is the billing service
        start = min([c.left_edge.i for c in mods] + [subj.left_edge.i])
        return str(verb.doc[start : subj.i + 1].text)
    return phrase(subj)


def _change(verb: Token, subj: Token | None) -> list[Open]:
    """A change: "A was swapped for B", "invoices moved from S3 to R2", "we moved X to Go"."""
    lemma = verb.lemma_.casefold()
    passive = any(c.dep_ == "auxpass" for c in verb.children)
    dobj = (_children(verb, "dobj") or [None])[0]
    gerund = None
    if dobj is None:
        # "We migrated billing from Laravel to Go": "billing" tagged a gerund;
        # "upgraded staging Kubernetes to 1.30": the gerund and its object name the thing
        dobj = next((c for c in _children(verb, "xcomp") if c.tag_ == "VBG"), None)
        gerund = dobj
    preps = dict(_value_preps(verb))
    if (
        not passive
        and dobj is None
        and lemma in ("replace", "swap")
        and subj is not None
        and subj.lower_ not in _FIRST
        and not _is_pronoun(subj.text)
        and not _person(subj)
        and ({"with", "by", "for"} & preps.keys())
    ):
        passive = True  # a log's clipped passive: "ingress-nginx replaced with Traefik"
    if dobj is not None:  # "migrate the billing service from Laravel to Go"
        preps = dict(_value_preps(dobj)) | preps
    new_tok = preps.get("to") or preps.get("onto") or preps.get("into")
    old_tok = preps.get("from")
    thing: str | None = None
    swaps = lemma in ("replace", "swap") or (
        lemma == "switch" and ("for" in preps or "with" in preps)
    )
    if (
        lemma == "replace"
        and not passive
        and dobj is not None
        and subj is not None
        and "with" not in preps
        and subj.lower_ not in _FIRST
        and not _is_pronoun(subj.text)
    ):
        # "RS256 replaces HS256 for token signing": the subject is the new value
        return [Open(None, None, phrase(subj), replaces=phrase(dobj), change=True)]
    if swaps and (dobj is not None or passive):
        # "replaced A with B", "swapped A for B", "A was swapped for B"
        old_tok = dobj if dobj is not None else subj
        new_tok = preps.get("with") or preps.get("for") or new_tok
        if passive and lemma == "replace":
            old_tok, new_tok = subj, preps.get("by") or preps.get("with")
        thing = None if passive or subj is None else subj.text
    else:
        inside = (
            [
                o
                for p in _children(dobj, "prep") + _children(verb, "prep")
                if p.lower_ in ("in", "on", "for", "of")
                for o in _children(p, "pobj")
            ]
            if dobj is not None
            else []
        )
        if dobj is not None and dobj.lower_ in ("everything", "all") and inside:
            thing = phrase(inside[0])  # "we moved everything in prod to Kubernetes"
        elif gerund is not None and _children(gerund, "dobj"):
            end = max(t.i for t in _children(gerund, "dobj")[0].subtree)
            thing = str(verb.doc[gerund.i : end + 1].text)
        elif dobj is not None and not _is_pronoun(dobj.text):
            thing = phrase(dobj)
        elif dobj is not None and dobj.lower_ in ("it", "this", "that"):
            thing = dobj.text
        elif _owners_slot(subj, preps.get("for")):
            # "we switched to Linear for issue tracking": the owner's slot "issue tracking"
            thing = phrase(preps["for"])
        elif subj is not None:
            thing = _subject_text(verb, subj)
    if new_tok is None and _range(verb):  # "went from 13 to 15", read as one range
        old_tok, new_tok = _range(verb)  # type: ignore[misc]
    if new_tok is None or _is_pronoun(new_tok.text):
        return []
    old = phrase(old_tok) if old_tok is not None else None
    moved = lemma in ("move", "relocate") and dobj is None and not passive
    return [Open(thing, None, phrase(new_tok), replaces=old, change=True, moved=moved)]


def _owners_slot(subj: Token | None, slot: Token | None) -> bool:
    """Whether "for X" after the owner's change names the owner's slot X (a common noun)."""
    return bool(
        subj is not None
        and slot is not None
        and subj.lower_ in (*_FIRST, "user")
        and _common(slot)
        and not _indefinite(slot)
        and slot.lower_ not in _TIME_WORDS
    )


def _range(verb: Token) -> tuple[Token, Token] | None:
    """``(old, new)`` of "from 13 to 15" parsed as a range: "to" hangs on "from"."""
    for p in _children(verb, "prep"):
        if p.lower_ != "from":
            continue
        olds = _children(p, "pobj")
        for q in _children(p, "prep") + [q for o in olds for q in _children(o, "prep")]:
            news = _children(q, "pobj")
            if q.lower_ == "to" and olds and news:
                return olds[0], news[0]
    return None


def _lemma(verb: Token) -> str:
    """A verb's lemma; for a verb the tagger took for a plural noun, the word less its "s"."""
    if verb.pos_ in _NOUNS and verb.lower_.endswith("s"):
        return str(verb.lower_[:-1])  # "leaves" (not "leaf"), "talks", "posts"
    return str(verb.lemma_.casefold())


def _clause(verb: Token) -> list[Open]:
    lemma = _lemma(verb)
    subj = _subject(verb)
    negated = _negated(verb)
    preps_of = dict(_value_preps(verb))
    if (
        lemma in CHANGE_VERBS
        or (lemma == "go" and "from" in preps_of and ("to" in preps_of or _range(verb)))
        or (
            subj is not None  # "decision: fail over to the replica" names nothing that moved
            and any((lemma, p.lower_) in PHRASAL_CHANGES for p in _children(verb, "prt"))
        )
    ):
        if negated or _hedged(verb):
            return []
        return _change(verb, subj)
    if _hedged(verb):
        return []
    passive = any(c.dep_ == "auxpass" for c in verb.children) or _passive_conj(verb)
    preps = _no_purpose(_value_preps(verb))
    if lemma in VALUE_VERBS and not negated:
        # "Aurora budget revised upward to $2.1M", "(we) raised the limit to 250 req/s"
        to = [o for w, o in preps if w in ("to", "at")]
        moved = _children(verb, "dobj") or ([subj] if subj is not None else [])
        if to and moved and not _is_pronoun(to[0].text) and not _is_pronoun(moved[0].text):
            thing, slot = _slot_phrase(moved[0])
            return [Open(thing, slot, phrase(to[0]), change=True)]
    if subj is None:
        return []
    if lemma in ("go", "become", "turn") and not negated and not passive:
        # "I went fully vegan last week", "she became vegetarian": a diet from then on
        for c in [*_children(verb, "acomp"), *_children(verb, "attr"), *_children(verb, "dobj")]:
            if slot := attribute(c.text):
                return [Open(_subject_text(verb, subj), slot, c.text)]
    if (
        _past(verb)
        and not passive
        and lemma not in ENDING_VERBS | INCEPTION_VERBS
        # "Acme signed up on the free plan": a plan taken is held from then on
        and (lemma == "be" or not any(plan_tier(phrase(o)) for _, o in preps))
    ):
        return []
    if lemma in INCEPTION_VERBS and verb.tag_ == "VBG":
        return []  # "I'm joining a startup": not yet
    subject = _subject_text(verb, subj)
    if _is_pronoun(subject) and subj.lower_ not in ("it", "they", "this"):
        return []
    if subj.pos_ == "NUM" or any(c.dep_ == "nummod" for c in subj.children):
        return []  # "14 minutes ends to end": a quantity, not a thing
    if subj.pos_ not in ("NOUN", "PROPN", "PRON", "X") and "-" not in subj.text:
        return []  # "Connecting with people boosts your mood": an activity, not a thing
    if lemma == "be":
        return _copula(verb, subject, negated)
    if lemma in ENDING_VERBS and not _children(verb, "dobj") and not negated:
        # "Globex churned": whatever held Globex ends
        return [Open(None, None, subject, polarity=False, object_is_subject=True)]
    if lemma == "have" and not passive and not negated and (count := count_of(verb)):
        return [Open(subject, count[0], count[1])]
    word = verb.text.casefold()
    if passive:
        if word in ENDED or lemma in ENDED:
            return [Open(None, None, subject, polarity=False, object_is_subject=True)]
        head = word
    elif lemma in LIGHT_VERBS and not (
        lemma == "go" or (lemma == "come" and any(w in _ORIGINS and _named(o) for w, o in preps))
    ):  # "alerts go through PagerDuty", "keys come from Vault": a route, not a light verb
        particle = _children(verb, "prt")
        named = [(w, o) for w, o in preps if _named(o) and not _indefinite(o)]
        if not particle or not named or _children(verb, "dobj") or verb.tag_ not in _PRESENT:
            return []
        # a phrasal verb is no light verb: "errors show up in Sentry"
        head = f"{third_person(lemma)} {particle[0].lower_}"
        return [
            Open(subject, f"{head} {w}", phrase(o), polarity=not negated)
            for w, o in named[:1]
            if not _is_pronoun(o.text)
        ]
    else:
        # "I picked up Portuguese": the particle is part of the relation
        head = " ".join([third_person(lemma), *(p.lower_ for p in _children(verb, "prt")[:1])])
    dobj = _children(verb, "dobj", "attr")
    if dobj and not preps and not passive:
        preps = _value_preps(dobj[0])  # "stores its data in Redis": "in" hangs on "data"
    if (
        dobj
        and _capital(dobj[0])
        and not re.fullmatch(r"[A-Z]{2,5}s?", dobj[0].text)  # "CI", "JWTs": a kind of thing
        and not any(_named(o) for _, o in preps)
    ):
        preps = []  # "they use Dentrix for scheduling": the name is the value
    if dobj and not preps:
        obj = dobj[0]
        if _is_pronoun(obj.text) or _indefinite(obj) or not _named(obj):
            return []  # "Ivan joined the call": a verb and a thing, no value
        if re.match(r"(?i)(?:up|down) to\b", phrase(obj)):
            return []  # "rent is going up to $2,550": an amount that moved, the rules' form
        return [Open(subject, head, phrase(obj), polarity=not negated, many=lemma in MANY_VERBS)]
    if (
        preps
        and dobj
        # "we run CI on Jenkins": an acronym names a kind of thing as a common noun does
        and (dobj[0].pos_ == "NOUN" or re.fullmatch(r"[A-Z]{2,5}", dobj[0].text))
        and not _indefinite(dobj[0])
    ):
        # "search-service stores its data in Redis", "we send alerts through PagerDuty":
        # the object names the relation with the verb
        mods = [c for c in dobj[0].lefts if c.dep_ in ("compound", "amod") and c.pos_ != "ADJ"]
        thing = " ".join([*(m.lower_ for m in mods), dobj[0].lower_])  # "the web app"
        return [
            Open(subject, f"{head} {thing} {word}", phrase(obj), polarity=not negated)
            for word, obj in preps[:1]
            if not _is_pronoun(obj.text) and not _indefinite(obj)
        ]
    if preps and not dobj:
        many = lemma in MANY_VERBS and (not passive or lemma in _MANY_PASSIVE)
        out = []
        for word, obj in preps:  # "works as a data analyst at Acme": both
            relation = RELATIONS.get(f"{head} {word}", f"{head} {word}")
            if _is_pronoun(obj.text) or relation is None or (_indefinite(obj) and word != "as"):
                continue
            if relation == "lives in" and not _person(subj):
                relation = "stored in"  # "sessions live in Redis"
            out.append(Open(subject, relation, phrase(obj), polarity=not negated, many=many))
        return out
    return []


def _named(tok: Token) -> bool:
    """A value with a name: a proper noun, a number, an amount, an identifier ("v2", "gpt-4")."""
    text = tok.text
    return bool(
        tok.pos_ in ("PROPN", "NUM")
        or _capital(tok)
        or any(ch.isdigit() for ch in text)
        or any(c.dep_ == "compound" and (c.pos_ == "PROPN" or _capital(c)) for c in tok.lefts)
        or any(c.text in "$€£¥" for c in tok.lefts)
    )


def _common(tok: Token) -> bool:
    """A common noun; in lower-case chat the tagger's proper nouns are common nouns too."""
    return bool(tok.pos_ == "NOUN" or (tok.pos_ == "PROPN" and tok.text.islower()))


def _capital(tok: Token) -> bool:
    """A capitalised word inside a sentence: a name whatever the tagger says ("Northwind")."""
    return bool(tok.i > 0 and tok.text[:1].isupper())


def _slot_phrase(subj: Token | None) -> tuple[str | None, str | None]:
    """A slot written as one phrase: "project Aurora lead" is ("project Aurora", "lead").

    A thing's slot written as one noun phrase: the head noun names the relation, the words
    before it the thing (the owner's when none is a name).
    """
    if subj is None:
        return None, None
    mods = [c for c in subj.lefts if c.dep_ in ("compound", "amod", "nmod", "poss")]
    names = [c for c in mods if c.pos_ == "PROPN" or c.dep_ == "poss" or _capital(c)]
    if not names:
        return "our", phrase(subj).casefold().removeprefix("the ").removeprefix("our ")
    start = min(c.i for c in mods if c.dep_ != "amod")  # "project Aurora", not "new"
    thing_end = max(c.i for c in names)
    doc = subj.doc
    thing = str(doc[start : thing_end + 1].text).removesuffix("'s").removesuffix("’s")
    slot = " ".join(t.text for t in doc[thing_end + 1 : subj.i + 1] if t.dep_ != "case")
    return thing, slot.casefold()


def _copula(verb: Token, subject: str, negated: bool) -> list[Open]:
    """A copula: "support is in Intercom", "Acme is one of our customers", "Redis is gone"."""
    for c in verb.children:
        if c.dep_ == "acomp" and c.lower_ in ENDED and not negated:
            return [Open(None, None, subject, polarity=False, object_is_subject=True)]
        slot = attribute(c.text) if c.dep_ in ("acomp", "attr") else None
        if slot and attribute(phrase(c)) == slot:  # "I'm vegan"; "02:00 UTC" is no timezone
            return [Open(subject, slot, c.text, polarity=not negated)]
        if c.dep_ == "acomp" and c.lower_ == "allergic":
            return [
                Open(subject, "allergic to", phrase(o), polarity=not negated, many=True)
                for p in _children(c, "prep")
                for o in _children(p, "pobj")
            ]
    attrs = _children(verb, "attr") or [
        c for c in _children(verb, "acomp") if "-" in c.text or any(ch.isdigit() for ch in c.text)
    ]  # "ingress is nginx-ingress": a name the tagger took for an adjective
    when = meeting_time(verb, attrs)
    if when and not negated:  # "the standup is at 09:15", "planning is Mondays at 10:00"
        return [Open(subject, "time", when)]
    if attrs and attrs[0].lower_ == "one":
        # "Acme Corp is one of our customers": a member of the owner's customers
        of = [p for p in _children(attrs[0], "prep") if p.lower_ == "of"]
        objs = _children(of[0], "pobj") if of else []
        if objs and any(c.dep_ == "poss" for c in objs[0].children):
            owner = next(c for c in objs[0].children if c.dep_ == "poss")
            return [
                Open(
                    owner.text, objs[0].lemma_.casefold(), subject, polarity=not negated, many=True
                )
            ]
        return []
    if attrs:
        return _is_a(verb, subject, attrs[0], negated)
    preps = _value_preps(verb)
    if preps and not _children(verb, "acomp"):  # "latency is bad at p99": a description
        word, obj = preps[0]
        if _is_pronoun(obj.text) or word not in ("in", "on", "at", "with", "behind"):
            return []
        value = phrase(obj)
        # "I'm on Eastern Time": a timezone; "is (still) on Postgres 13" as the rules read it
        on_name = word == "on" and _named(obj)
        relation = attribute(value) or ("runs on" if on_name else f"is {word}")
        out = [Open(subject, relation, value, polarity=not negated)]
        subj = _subject(verb)
        if word in ("on", "in") and subj is not None and _person(subj) and not negated:
            # "I'm on the platform team at Klarna": the team, and the employer
            out.extend(
                Open(subject, "works at", phrase(o))
                for p in _children(obj, "prep")
                if p.lower_ == "at" and obj.lemma_.casefold() in ("team", "squad", "department")
                for o in _children(p, "pobj")
                if _named(o) and not _indefinite(o)
            )
        return out
    return []


def _is_a(verb: Token, subject: str, attr: Token, negated: bool) -> list[Open]:
    """An "X is Y": the owner's slot ("support hours are 9 to 5"), a membership ending."""
    subj = _subject(verb)
    if subj is None:
        return []
    dets = {c.lower_ for c in attr.children if c.dep_ in ("det", "poss")}
    if negated:
        # "Globex is no longer a customer / our vendor": the owner's relation to it ends
        if attr.pos_ == "NOUN" and dets & {"a", "an", "our", "my"}:
            return [Open("our", attr.lemma_.casefold(), subject, polarity=False, many=True)]
        return []
    if dets & {"a", "an"} and attr.lemma_.casefold() in MEMBERSHIP:
        # "Pied Piper is a customer too": one of the owner's customers
        return [Open("our", attr.lemma_.casefold(), subject, many=True)]
    if _common(subj) and any(
        c.dep_ == "compound" and (c.pos_ == "PROPN" or _capital(c)) for c in subj.lefts
    ):
        thing, slot = _slot_phrase(subj)  # "project Aurora lead is Sarah Chen"
        return [Open(thing, slot, phrase(attr))]
    value = phrase(attr)
    if runs_software(subj, value):
        # "orders-db is PostgreSQL 14": what a thing runs (docs/concepts/text.md#versions)
        return [Open(subject, "runs", value)]
    # "the Pro plan is $24", "Enterprise SLA is 99.95%": a quantity of a named thing
    quantity = any(ch.isdigit() for ch in value) and len(list(subj.subtree)) > 1
    if (not _common(subj) and not quantity) or any(c.dep_ == "poss" for c in subj.children):
        return []  # names and "our X is Y" are the rule forms' (docs/concepts/text.md)
    if dets & {"a", "an", "no", "some"} or attr.pos_ in ("ADJ", "PRON") or _is_pronoun(attr.text):
        return []  # "the plan is a good one": a description, not a value
    words = [t for t in subj.subtree if t.dep_ not in ("det", "punct")]
    if not words or len(words) > 4 or (any(t.pos_ == "PROPN" for t in words) and not quantity):
        return []
    slot = " ".join(t.text for t in sorted(words, key=lambda t: t.i))
    return [Open("our", slot.casefold(), phrase(attr))]


def _verbs(tokens: Iterable[Token]) -> list[Token]:
    out = []
    for t in tokens:
        has_subject = any(c.dep_ in _SUBJECTS for c in t.children)
        if t.pos_ in ("VERB", "AUX") and (
            t.dep_ in ("ROOT", "conj", "ccomp", "advcl", "parataxis")
        ):
            if t.pos_ == "AUX" and t.dep_ != "ROOT" and not has_subject:
                continue
            out.append(t)
        elif (
            t.dep_ == "acl" and t.tag_ == "VBN" and t.head.dep_ == "ROOT" and t.head.pos_ in _NOUNS
        ):
            out.append(t)  # "Aurora budget approved at $1.2M"
        elif t.pos_ in _NOUNS and t.dep_ == "ROOT" and (has_subject or _noun_verb(t)):
            out.append(t)  # "The mobile app talks to the gateway": "talks" tagged a noun
    return out


def _noun_verb(tok: Token) -> bool:
    """A verb tagged as a plural noun: "The webhook posts to X" (a noun before, a preposition)."""
    return (
        tok.lower_.endswith("s")
        and any(c.dep_ == "compound" and c.i == tok.i - 1 for c in tok.children)
        and any(c.dep_ == "prep" for c in tok.children)
    )


def verb_taken_for_noun(doc: Sequence[Token]) -> int | None:
    """Where a verb the tagger took for a noun starts a sentence's predicate, if it did.

    After a hyphenated or compound subject the small model tags the verb a plural noun and
    finds no verb at all ("billing-service stores invoices in MySQL", "checkout-service
    migrates from Redis to PostgreSQL"); the caller parses "It stores invoices in MySQL" instead
    (docs/concepts/text.md#the-parser).
    """
    tokens = list(doc)
    if any(t.pos_ in ("VERB", "AUX") for t in tokens):
        return None
    for k in range(1, len(tokens) - 1):
        t, before, after = tokens[k], tokens[k - 1], tokens[k + 1]
        if (
            t.pos_ in _NOUNS
            and t.text.islower()
            and t.text.endswith("s")
            and not t.text.endswith(("ss", "us", "is", "ics"))
            # a noun phrase before it ends in a noun or an identifier ("billing-service"),
            # not in an adjective ("the nightly exports land in GCS": "exports" is the noun)
            and (before.pos_ in (*_NOUNS, "X") or "-" in before.text)
            and all(b.pos_ in (*_NOUNS, "ADJ", "X", "DET", "NUM", "PUNCT") for b in tokens[:k])
            and after.pos_ in (*_NOUNS, "ADP", "DET", "NUM", "ADJ", "PRON")
        ):
            return k
    return None


def with_subject(opens: list[Open], subject: str) -> list[Open]:
    """The open claims of "It <predicate>" with ``subject`` for "It"."""
    return [replace(o, subject=subject) if o.subject == "It" else o for o in opens]
