"""Slot rules: instructions, copular and possessive statements, roles.

"update my Z, it is O", "set our Z to O"; "our/the/X's Z is O" and "O is our/X's Z" (the slot Z
becomes the predicate, e.g. ``embeddings_provider``), "the Z of T is O", "B is the new Z [of T]",
"the new Z is B", "Z is now B"; roles ("Alice is the CTO", "was promoted to VP of Sales").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from graphmem.text import lexicon
from graphmem.text.claims import Claim
from graphmem.text.names import (
    _FIRST_PERSON,
    _PERSON_PRONOUNS,
    _PLACE_TIME,
    _THING_PRONOUNS,
    is_name_like,
)
from graphmem.text.rules.common import _S, _is_role, _subj

if TYPE_CHECKING:
    from graphmem.text.reader import Reader

_ROLE_RE = re.compile(
    _S + r"(?:is|became|has become|was promoted to|got promoted to|works as|was named|"
    r"was appointed|was hired as|is now|joined as|started as|am|are)\s+(?:now\s+)?"
    r"(?P<art>the\s+|a\s+|an\s+|our\s+|their\s+)?(?P<new>new\s+)?(?P<o>.+?)"
    r"(?:\s+(?P<prep>at|of|for|in)\s+(?P<org>[\w&.' -]*))?$",
    re.IGNORECASE,
)


#: A role that names its employer last: "tech lead for the checkout team at Verdant".
_AT_ORG = re.compile(r"(?P<v>.+?\s+(?:for|of)\s+.+?)\s+at\s+(?P<org>[A-Z][\w&.' -]*)$")


def _update_mine(
    r: Reader, c: str, neg: bool, prev: str | None, spk: str | None
) -> list[Claim] | None:
    """Read instructions: "update my email, it is sam@x.com now", "set our timezone to CET"."""
    m = re.match(
        r"^(?:please\s+)?(?:update|change|set|switch)\s+(?P<own>my|our)\s+(?P<z>[\w -]+?)"
        r"(?:\s+to|\s*,\s*(?:it|that)\s+is)\s+(?P<o>.+)$",
        c,
        re.IGNORECASE,
    )
    if not m or neg:
        return None
    obj = r.value(m.group("o"), keep_prepositions=True)
    if not obj or not (is_name_like(obj) or r.chat):
        return []
    return [Claim(r.first_person(spk), m.group("z").strip(), obj, change=True)]


#: A span of clock hours: "9:00–17:00", "8 to 4", "10am-6pm", "7-15 cet", "20:00 to 08:00".
_HOUR = r"\d{1,2}(?::\d{2})?\s*(?:am|pm)?"
_ZONE = r"utc|gmt|cet|cest|eet|wet|bst|est|edt|cst|cdt|mst|mdt|pst|pdt|ist|jst|aest"
_HOURS_RE = re.compile(
    _S + r"(?:(?:usually|normally|typically|generally|mostly|now|currently)\s+)?"
    r"(?:works?|working|(?:is|are|am|'m)\s+(?:(?:usually|normally|now|currently)\s+)?"
    r"(?:on|online|working|available|in))\s+(?:from\s+)?"
    rf"(?P<o>{_HOUR}\s*(?:-|–|—|to|until|till)\s*{_HOUR}(?:\s+(?:{_ZONE}|(?-i:[A-Z][a-z]+) time))?)"
    r"(?:\s+(?:now|these days|each day|every day|on weekdays))?(?:\s*[,;.!](?!\d).*)?$",
    re.IGNORECASE,
)


def _hours(r: Reader, c: str, neg: bool, prev: str | None, spk: str | None) -> list[Claim] | None:
    """Working hours said with a verb: the slot "working hours".

    "I usually work 8 to 4", "the user works 10:00–18:00", "I'm on 10 to 6", "i'm online 7-15
    cet" (docs/concepts/text.md#open-relations).
    """
    m = _HOURS_RE.match(c)
    if not m or neg:
        return None
    who = _subj(r, m.group("s"), prev, spk)
    if not who:
        return None
    hours = _PLACE_TIME.sub("", " ".join(m.group("o").split()))
    return [Claim(who, "working hours", hours)]


_DAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?"
#: Days a thing recurs on: "Tuesdays and Thursdays", "every other Friday", "Mon/Wed/Fri",
#: "weekdays"; a weekday alone ("on Tuesday") is a date, not a schedule.
_DAYS = (
    rf"(?:every\s+(?:other\s+)?{_DAY}|{_DAY}s(?:\s*(?:,|&|\+|and|or)\s*{_DAY}s)*|"
    rf"{_DAY}(?:\s*/\s*{_DAY})+|weekdays|weekends|every\s+(?:week)?day)"
)
_CLOCK = (
    r"\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)?(?:\s*[-–]\s*\d{1,2}(?:[:.]\d{2})?\s*(?:am|pm)?)?"
    r"(?:\s+(?-i:[A-Z]{2,4})\b)?"
)
SCHEDULE = re.compile(
    _S + r"(?P<v>is|are|happens|happen|runs|run|takes place|is held|are held|is served|"
    r"are served|stays|stay|remains|remain|is still|are still|moves|moved|is moving|has moved|"
    r"switches|switched|shifts|shifted|changes|changed)\s+(?:to\s+)?(?:on\s+)?"
    rf"(?P<o>{_DAYS}(?:(?:\s+at|,)?\s+{_CLOCK}(?!\d))?)(?=$|[,;.(]|\s+(?![\d-]))",
    re.IGNORECASE,
)


def _schedule(
    r: Reader, c: str, neg: bool, prev: str | None, spk: str | None
) -> list[Claim] | None:
    """When a thing recurs: "PE is on Mondays and Thursdays", "moves to Tuesdays".

    Also "dnd is every other Friday at 7" (docs/concepts/text.md#schedules).
    """
    m = SCHEDULE.match(c)
    if not m or neg:
        return None
    moved = m.group("v").casefold().split()[-1].startswith(("mov", "switch", "shift", "chang"))
    raw = m.group("s")
    if not raw.strip() or re.fullmatch(r"(?i)\s*(?:it|this|that|they)\s*", raw):
        return None  # "so it's Tuesdays and Fridays now": which thing is not said
    who = _subj(r, raw, prev, spk)
    if not who or who == r.owner:
        return None  # "we are on Mondays": no thing of its own
    return [Claim(who, "schedule", " ".join(m.group("o").split()), change=moved)]


def _copular(r: Reader, c: str, neg: bool, prev: str | None, spk: str | None) -> list[Claim] | None:
    # "the new Z is B" / "our Z is B" / "X's Z is B" / "the Z of T is B" / "Z is now B"
    m = re.match(
        r"^(?:(?P<own>our|my|your|their|the|his|her|its)\s+|(?P<poss>[\w .&-]+?)'s?\s+)"
        r"(?P<new>(?:new|renewal|revised|updated)\s+)?(?P<z>[\w -]+?)"
        r"(?:\s+of\s+(?P<t>[\w .&-]+?))?\s+"
        r"(?:is|are|=|has been|have been)\s+(?P<now>now\s+)?(?P<o>.+)$",
        c,
        re.IGNORECASE,
    )
    if m:
        slot, owner_name = m.group("z"), m.group("poss") or m.group("t")
        if m.group("poss") and m.group("t"):  # "Initech's point of contact": one slot
            slot, owner_name = f"{slot} of {m.group('t')}", m.group("poss")
        return _slot_claim(
            r,
            m.group("own"),
            owner_name,
            slot,
            m.group("o"),
            neg,
            change=bool(m.group("new") or m.group("now")),
            speaker=spk,
            chat=r.chat,
        )
    # "B is the new Z [of T]" / "B is our Z" / "B is X's Z" / "Alice is the CTO"
    m = _ROLE_RE.match(c)
    if m:
        subject_raw, value = m.group("s"), m.group("o")
        value = re.sub(r"(?i)^(?:still|now|also|currently|actually|officially)\s+", "", value)
        possessive = re.match(r"(?i)^(?:my|our|his|her|their|[\w.-]+'s)\s", value) or (
            (m.group("art") or "").strip().casefold() in ("our", "their")
        )
        value = r.value(value, keep_prepositions=True) or value
        org = m.group("org")
        title_head = value.casefold().split()[-1] if value.split() else ""
        if org and (
            not org[:1].isupper()
            or (
                m.group("prep").casefold() == "of"
                and title_head
                in (
                    "vp",
                    "head",
                    "director",
                    "chief",
                    "president",
                    "manager",
                    "lead",
                    "dean",
                    "chair",
                )
            )
        ):  # "head of design", "VP of Sales": part of the title
            value, org = f"{value} {m.group('prep')} {org}", None
        at = _AT_ORG.match(value) if org is None else None
        if at:  # "the tech lead for the checkout team at Verdant": the team's, at the employer
            value, org = at.group("v"), at.group("org")
        article = (m.group("art") or "").strip().casefold()
        title = re.split(r"(?i)\s+(?:for|of)\s+", value, maxsplit=1)[0]  # "lead for the X team"
        # "the new team lead" is the owner's; "the tech lead for the checkout team", a role
        lead = (
            title.casefold().endswith("lead")
            and (article in ("a", "an", "") or (article == "the" and title != value))
            and len(value.split()) <= 7
        )
        # "I'm a pharmacist at Boots": any word ending like a job, with its employer
        loose = bool(org) and article in ("a", "an")
        if not possessive and (_is_role(value, loose=loose) or (lead and len(title.split()) <= 3)):
            subject = _subj(r, subject_raw, prev, spk)
            if not subject:
                return []
            role = r.value(value, keep_prepositions=True) or value
            out = [Claim(subject, "role", role, polarity=not neg)]
            if org and not neg:
                out.append(Claim(subject, "works_at", r.value(org) or org))
            return out
    m = re.match(
        r"^(?:(?:our|my|the)\s+)?new\s+(?P<z>[\w -]+?)(?:\s+as of\s+\w+|\s+starting\s+\w+)?\s*"
        r"[:=—–-]\s*(?P<o>.+)$",
        c,
        re.IGNORECASE,
    )
    if (
        m
        and not neg
        and (
            " ".join(m.group("z").casefold().split()) in lexicon.SLOT_PREDICATES
            or re.search(
                r"(?i)(?:manager|lead|owner|provider|contact|vendor|host|tool|address)$",
                m.group("z").strip(),
            )
        )
    ):  # "New manager as of Monday: Henrik." (not "new customer: Pinecrest")
        obj = r.value(m.group("o"), keep_prepositions=True)
        if obj and is_name_like(obj):
            return [Claim(r.first_person(spk), m.group("z").strip(), obj, change=True)]
    m = re.match(
        r"^(?P<s>.+?)\s+(?:has|have|got)\s+(?:a\s+)?new\s+(?P<z>[\w -]+?)\s*(?::|,|-|is)\s*"
        r"(?P<o>.+)$",
        c,
        re.IGNORECASE,
    )
    if m and not neg:  # "Hugo has a new email: hugo@..."
        subject = _subj(r, m.group("s"), prev, spk)
        obj = r.value(m.group("o"), keep_prepositions=True)
        if subject and obj:
            return [Claim(subject, m.group("z").strip(), obj, change=True)]
        return []
    m = re.match(
        r"^(?P<b>.+?)\s+(?:is|are)\s+(?P<now>now\s+)?(?:(?P<own>our|my|the|his|her|their)\s+|"
        r"(?P<poss>[\w .&-]+?)'s\s+)(?P<new>new\s+)?(?P<z>[\w -]+?)"
        r"(?:\s+(?:of|for|on)\s+(?P<t>.+))?$",
        c,
        re.IGNORECASE,
    )
    if (
        m
        and not re.search(r",|\b(?:is|are)\b", m.group("b"), re.IGNORECASE)
        # "Payday is the 25th of each month": a date, not the 25th slot of a month
        and not re.match(r"\d", m.group("z"))
    ):
        value = m.group("b")
        if value.casefold().split()[-1] in _FIRST_PERSON | _PERSON_PRONOUNS | _THING_PRONOUNS:
            value = _subj(r, value, prev, spk) or ""
        return _slot_claim(
            r,
            m.group("own"),
            m.group("poss") or m.group("t"),
            m.group("z"),
            value,
            neg,
            change=bool(m.group("new") or m.group("now")),
            speaker=spk,
            chat=r.chat,
        )
    return None


#: A kin or pet slot with the name after it: "daughter Emma", "dog Rex".
_KIN_NAMED = re.compile(
    r"(?i:(?P<kin>daughter|son|kid|child|sister|brother|wife|husband|partner|boyfriend|"
    r"girlfriend|fianc[eé]e?|mom|dad|mother|father|cousin|aunt|uncle|niece|nephew|grandma|"
    r"grandpa|grandmother|grandfather|dog|cat|puppy|kitten|friend|manager|boss))"
    r"\s+(?P<name>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?)"
)
#: An age: "7", "3 years old", "14 yrs".
_AGE = re.compile(r"(?P<n>\d{1,3})(?:\s*(?:years?|yrs?)(?:\s+old)?)?")


#: The term an amount is for, after it: "$868.40 for this 6-month period", "$120 for the year".
_FOR_A_TERM = re.compile(
    r"(?i)(?<=\d)\s+for\s+(?:this|the|each|every|your|one|a)\s+(?:[\w\u2010-\u2015-]+\s+){0,2}?"
    r"(?:period|term|month|year|quarter|cycle|semester|season)\s*[.!]?$"
)


def _slot_claim(
    r: Reader,
    own: str | None,
    owner_name: str | None,
    slot: str,
    value: str,
    neg: bool,
    *,
    change: bool,
    speaker: str | None,
    chat: bool,
) -> list[Claim]:
    slot = re.sub(
        r"(?i)(?:\s+(?:again|now|too|anymore|still|currently|today))+$", "", " ".join(slot.split())
    ).strip(" -")
    words = slot.casefold().split()
    if (
        not words
        or len(words) > 4
        or words[-1] in lexicon.SLOT_STOPWORDS
        or any(w in ("is", "are", "was", "were", "be", "been", "not", "and", "or") for w in words)
    ):
        return []
    own_low = (own or "").casefold()
    named = _KIN_NAMED.fullmatch(" ".join(slot.split()))
    if named and (owner_name or own_low in ("our", "my", "their", "his", "her")) and not neg:
        # "my daughter Emma is 7": who Emma is to the owner, and her age
        kin = _slot_claim(
            r, own, owner_name, named["kin"], named["name"], neg,
            change=False, speaker=speaker, chat=chat,
        )  # fmt: skip
        age = _AGE.fullmatch(value.strip().rstrip("."))
        return kin + ([Claim(named["name"], "age", age["n"], change=change)] if age else [])
    if owner_name:
        subject = r.subject(owner_name, speaker)
    elif own_low == "our":
        subject = r.owner  # "our" in a team's log is the team's, whoever types it
    elif own_low == "my":
        subject = r.first_person(speaker)
    elif own_low == "your":
        if speaker is not None and not r.agent_speaking:
            return []  # "Sam: your plan is ...": whom Sam speaks to is not said
        subject = r.owner  # a notice: "your premium is $868.40" (docs/concepts/text.md#notices)
    elif own_low == "their" and r.user_named:
        subject = r.owner  # a note about "the user": "their" is the user's
    elif own_low in ("his", "her", "their"):
        subject = r.last_person
    elif own_low == "its":
        subject = r.last_thing
    else:
        subject = r.owner  # "the team lead is Bob": ours
    value = re.sub(r"(?i)^(?:called|named)\s+(?=\S)", "", value)  # "my dog is called Biscuit"
    obj = r.value(value, keep_prepositions=True)
    if subject is None or obj is None:
        return []
    obj = _FOR_A_TERM.sub("", obj)  # "$868.40 for this 6-month period": the amount
    if _is_role(slot) and own_low == "the" and not owner_name:
        # "the CTO is Alice": Alice's role
        return [Claim(obj, "role", slot, polarity=not neg)]
    known = " ".join(words) in lexicon.SLOT_PREDICATES
    if (
        own_low == "the"
        and not owner_name
        and not (
            change or known or (is_name_like(obj) and not chat) or any(ch.isdigit() for ch in obj)
        )
    ):
        return []  # "the weather is nice", "the coffee machine is broken"
    if own_low == "your" and not (is_name_like(obj) or any(ch.isdigit() for ch in obj)):
        return []  # "your tickets are valid for the new date": no value to keep
    setting = words[0] == "default"  # "the default log level is warn": a setting's value
    if not (is_name_like(obj) or chat or own_low in ("our", "my") or owner_name or setting):
        return []
    if obj.casefold().startswith(("a ", "an ", "very ", "so ", "too ", "not ", "quite ", "being ")):
        return []
    return [Claim(subject, slot, obj, polarity=not neg, change=change)]


#: "Emma is 8", "it is 10.20.0.15", "prod is 1.29 now": a thing and a typed value, no slot named.
_BARE = re.compile(
    r"^(?P<s>[\w][\w .&'/-]{0,40}?)\s+(?:is|are)\s+(?P<now>now\s+)?"
    r"(?P<o>(?:[^,;]|,(?=\d{3}\b))+?)"  # "€1,520": a thousands comma is part of the value
    r"(?:\s+now)?(?:\s*(?:,(?!\d{3}\b)|;).*)?$",
    re.IGNORECASE,
)
#: The kinds of value a bare "S is V" may be about: one slot of the same kind or none.
_BARE_KINDS = frozenset({"number", "version", "email", "diet", "money", "percent"})


def _bare_copula(
    r: Reader, c: str, neg: bool, prev: str | None, spk: str | None
) -> list[Claim] | None:
    """A value placed by the slots its subject already has: "Emma is 8" after "Emma is 7".

    The claim names no relation, so it is resolved against the subject's current facts like a
    change ("the one single-valued relation whose value is of the same kind"); with none or
    several the sentence stays a note (docs/concepts/text.md#resolution-against-the-graph).
    "it" with no thing to refer to is the owner's ("actually it's 10.20.0.15").
    """
    m = _BARE.match(c)
    if m is None or neg:
        return None
    from graphmem.text.resolve import _family, _quantity  # the resolver's own kinds

    raw = m.group("o").strip()
    value = r.value(raw) if raw else None
    if not value or (_family(value) or _quantity(value)) not in _BARE_KINDS:
        return None
    who = m.group("s").strip()
    subject: str | None
    if who.casefold() in _THING_PRONOUNS:
        subject = r.last_thing or r.owner
    elif who[:1].isupper() or who.casefold() in _FIRST_PERSON:
        subject = _subj(r, who, prev, spk)
    else:
        return None
    if not subject:
        return None
    return [Claim(subject, None, value, change=True, now=bool(m.group("now")), fallback=True)]
