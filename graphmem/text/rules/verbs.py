"""Verb rules: the relations of the ontology said with a verb.

port ("listens on port N"), works_at, lives_in, located_in, written_in, runs_on, hosted_on,
deploys_with, reports_to, owner ("Grace owns billing" is billing's owner), team_lead ("Bob
leads the platform team"), member_of, married_to, prefers, likes, uses, version.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from graphmem.text import lexicon, names
from graphmem.text.claims import Claim
from graphmem.text.names import (
    _FIRST_PERSON,
    _PERSON_PRONOUNS,
    _RELATION_NOUNS,
    is_name_like,
)
from graphmem.text.rules.common import _MULTI, _S, _is_role, _subj, _tool_word

if TYPE_CHECKING:
    from graphmem.text.reader import Reader

_VERBS: list[tuple[str, str, str]] = [
    # (pattern after the subject, predicate, direction: "sp" subject->object, "ps" object->subject)
    (
        r"(?:listens|is listening|listen|runs|is running|is served|serves|is exposed|is available|"
        r"is reachable)\s+on\s+port\s+(?P<o>\d+)",
        "port",
        "sp",
    ),
    (
        r"(?:works|work|working|is working|has been working|have been working|has worked|"
        r"have worked|is employed|"
        r"employed|is a contractor)\s+(?:at|for|with)\s+(?P<o>.+)",
        "works_at",
        "sp",
    ),
    (
        r"(?:joined|has joined|have joined|started at|started working at|started working for|"
        r"began working at|got hired by|was hired by|got a job at|is hired by|signed with|"
        r"got the job at|landed (?:a|the) job at|accepted (?:a|the|an) (?:job|offer|role) "
        r"(?:at|from|with)|start at|starts at|am starting at|is starting at)\s+"
        r"(?P<o>.+)",
        "works_at",
        "sp",
    ),
    (r"(?:is|are) (?:now )?(?:employed|hired)\s+(?:at|by)\s+(?P<o>.+)", "works_at", "sp"),
    (r"(?:is|are)\s+(?:now\s+|still\s+)?at\s+(?P<o>[A-Z][\w.&' -]*)$", "works_at", "person"),
    (
        r"(?:lives|live|living|is living|resides|reside|is based|are based|settled|has settled|"
        r"has lived|have lived|has been living|have been living)\s+"
        r"in\s+(?P<o>.+)",
        "lives_in",
        "sp",
    ),
    (r"(?:relocated|moved)\s+to\s+(?P<o>.+)", "lives_in", "sp"),
    (r"(?:worked|was working)\s+(?:at|for)\s+(?P<o>.+)", "works_at", "past"),
    (r"(?:lived|was living)\s+in\s+(?P<o>.+)", "lives_in", "past"),
    (r"(?:is|are)\s+(?:now\s+)?in\s+(?P<o>[A-Z][\w.' -]*)$", "lives_in", "person"),
    (r"(?:is|are)\s+(?:located|situated|headquartered)\s+in\s+(?P<o>.+)", "located_in", "sp"),
    (
        r"(?:is|are|was|has been|have been)\s+(?:written|implemented|coded|developed)\s+in\s+"
        r"(?P<o>.+)",
        "written_in",
        "sp",
    ),
    (
        r"(?:runs|run|is running|are running|running)\s+on\s+(?:top of\s+)?(?P<o>.+)",
        "runs_on",
        "sp",
    ),
    (r"(?:is|are)\s+(?:built|based)\s+(?:on|with|using|in)\s+(?P<o>.+)", "runs_on", "sp"),
    (r"(?:is|are)\s+powered\s+by\s+(?P<o>.+)", "runs_on", "sp"),
    (
        r"(?:is|are)\s+(?:hosted|deployed|running)\s+(?:on|at|in|by|to)\s+(?P<o>.+)",
        "hosted_on",
        "sp",
    ),
    (r"(?:hosts?|deploys?|deploying)\s+(?:it\s+)?(?:on|to)\s+(?P<o>.+)", "hosted_on", "sp"),
    (
        r"(?:hosts?|hosting)\s+(?P<t>(?!on\b|it\b)[\w .'-]+?)\s+(?:on|at|with|in)\s+(?P<o>.+)",
        "hosted_on",
        "tp",
    ),
    (
        r"(?:deploys?|deploying|ships?|shipping)\s+(?P<t>(?!with\b|using\b|via\b|to\b|on\b)"
        r"[\w .'-]+?)\s+(?:with|using|via|through)\s+(?P<o>.+)",
        "deploys_with",
        "tp",
    ),
    (
        r"(?:deploys?|deploying|ships?|shipping|release|releases)\s+(?:with|using|via|through|by)\s+"
        r"(?P<o>.+)",
        "deploys_with",
        "sp",
    ),
    (
        r"(?:is|are)\s+(?:deployed|shipped|released)\s+(?:with|using|via|through)\s+(?P<o>.+)",
        "deploys_with",
        "sp",
    ),
    (
        r"(?:reports|report|reporting|is reporting)\s+(?:directly\s+)?to\s+(?P<o>.+)",
        "reports_to",
        "sp",
    ),
    (r"(?:is|are)\s+managed\s+by\s+(?P<o>[A-Z].+)", "reports_to", "sp"),
    (r"(?:is|are)\s+(?:owned|maintained)\s+by\s+(?P<o>.+)", "owner", "sp"),
    (
        r"(?:owns|own|maintains|maintain|handles|handle|is handling|is responsible for|"
        r"are responsible for|is in charge of)\s+"
        r"(?P<o>.+)",
        "owner",
        "ps",
    ),
    (r"(?:is|are)\s+(?:led|headed|run)\s+by\s+(?P<o>.+)", "team_lead", "sp"),
    (
        r"(?:leads|lead|heads|is leading|is heading|manages|runs)\s+(?P<o>(?:the\s+)?.+?\s+"
        r"(?:team|squad|group|department|org|organization|project|effort|initiative|guild))$",
        "team_lead",
        "ps",
    ),
    (r"(?:leads|is leading|heads|is heading)\s+(?P<o>.+)", "team_lead", "ps"),
    (r"(?:is|are)\s+(?:a\s+)?(?:member|part)\s+of\s+(?P<o>.+)", "member_of", "sp"),
    (r"(?:is|are)\s+on\s+the\s+(?P<o>.+?\s+team)$", "member_of", "sp"),
    (
        r"(?:is married to|married|got married to|is engaged to|wed)\s+(?P<o>[A-Z].+)",
        "married_to",
        "sp",
    ),
    (
        r"(?:prefers|prefer|preferred|favors|favours)\s+"
        # "my preferred editor is VS Code": an adjective of a slot, not the verb
        r"(?!(?:[\w-]+\s+){1,3}(?:is|are|was|were)\s)"
        # "prefers replies in English": the language, not the replies
        r"(?:(?:[a-z]+\s+){1,2}(?:in|via|on|over|through)\s+(?=(?-i:[A-Z])))?"
        r"(?P<o>.+?)(?:\s+(?:over|to)\s+.+)?$",
        "prefers",
        "sp",
    ),
    (
        r"(?:likes|like|loves|love|enjoys|enjoy|is into|are into|am into|got into|gets into|"
        r"is really into|am really into)\s+(?P<o>.+)",
        "likes",
        "sp",
    ),
    (
        r"(?:uses|use|is using|are using|using|relies on|rely on|relying on|adopted|has adopted|"
        r"have adopted|started using|standardized on|standardised on|depend on|depends on)\s+"
        r"(?P<o>.+?)(?:\s+for\s+.+)?$",
        "uses",
        "sp",
    ),
    # "is on v1.27", "is at version 3" (a name that starts with a "v", "on Voyage", is none);
    # "is on 1.28": a bare dotted number is a version too ("is at 9" is a time)
    (
        r"(?:is|are)\s+(?:now\s+)?(?:(?:on|at)\s+(?:version|v)\s?|on\s+(?=\d+\.\d))"
        r"(?P<o>\d+(?:\.\d+)*[\w.]*)(?:\s+now)?$",
        "version",
        "sp",
    ),
    (r"(?:is|are)\s+used\s+by\s+(?P<o>.+)", "uses", "ps"),
    (r"(?:is|are)\s+(?:now\s+)?on\s+(?P<o>.+)", "runs_on", "weak"),
]
_VERB_RES = [
    # "is hosted on", "has been hosted on": the present perfect states what holds now
    (
        re.compile(
            _S + pat.replace(r"(?:is|are)\s+", r"(?:is|are|has been|have been)\s+(?:now\s+)?"),
            re.I,
        ),
        pred,
        d,
    )
    for pat, pred, d in _VERBS
]
#: Whether any of the verb patterns matches a clause, in one scan: the patterns' union (their
#: groups unnamed), so a clause none of them reads costs one match, not one per pattern.
_ANY_VERB = re.compile(
    re.sub(r"\(\?P<\w+>", "(?:", _S)
    + "(?:"
    + "|".join(re.sub(r"\(\?P<\w+>", "(?:", rx.pattern[len(_S) :]) for rx, _, _ in _VERB_RES)
    + ")",
    re.I,
)
_WEEKDAY = re.compile(
    r"(?i)(?:mon|tues|wednes|thurs|fri|satur|sun)days?(?:\s+after\s+.*)?|weekends?"
)
_ON_NOT_PLATFORM = re.compile(
    r"(?i)\b(?:team|squad|call|leave|vacation|holiday|board|committee|track|schedule|hold|"
    r"fire|time|duty|rotation|break|site|record|it|board|list|top|way|phone|line|mute|pto)$"
)


#: "like" after these is a preposition ("sounds like fun"), and these objects are no things.
_LIKE_NOT_VERB = re.compile(
    r"(?i)\b(?:sounds?|looks?|seems?|feels?|smells?|tastes?|something|anything|would|'d|just|"
    r"more|much|kind of|sort of|exactly|really|wow|omg)$"
)
_LIKE_NOT_OBJECT = re.compile(
    r"(?i)(?:it|that|this|them|to|a lot|what|how|when|where|the idea|you|me|him|her|us|those|"
    r"these|one|doing|being)\b"
)


_LIKER = re.compile(
    r"(?:(?i:i|we|he|she|they|you)|(?:[A-Z][\w'-]*)(?:\s+[A-Z][\w'-]*){0,2}|(?i:my|our|his|her)"
    r"\s+\w+)(?:\s+(?i:really|also|still|just|totally|absolutely|both|all))*"
)


def _verbs(r: Reader, c: str, neg: bool, prev: str | None, spk: str | None) -> list[Claim] | None:
    if not _ANY_VERB.match(c):
        return None
    for regex, pred, direction in _VERB_RES:
        m = regex.match(c)
        if not m:
            continue
        raw_s = m.group("s")
        if re.search(r"(?i)\b(?:the|a|an|new|our|my|their|his|her|its|is|are|was|were|be)$", raw_s):
            continue  # "Dana is the new lead of ...": "lead" is a noun here
        subject = _subj(r, raw_s, prev, spk)
        keep = pred in ("owner", "team_lead") and direction == "ps"
        obj = r.value(m.group("o"), keep_prepositions=keep)
        if obj is None and keep and m.group("o").strip().casefold() in ("it", "them", "that"):
            obj = r.last_thing  # "Omar owns it"
        if obj is None and m.group("o").strip(" .").casefold() in ("me", "us", "myself"):
            obj = r.first_person(spk)  # "he reports to me"
        if subject is None:
            return []
        if pred == "likes" and (
            _LIKE_NOT_VERB.search(raw_s)
            or _LIKE_NOT_OBJECT.match(m.group("o").strip())
            or not _LIKER.fullmatch(raw_s.strip(" ,"))
        ):
            # "sounds like fun", "things like bottle caps", "likes it was": not a liking;
            # who likes is a person: a pronoun or a name
            return []
        if direction == "past" and (neg or not r.clause_ends):
            return []  # "Alice worked at Acme": true once, but until when?
        if obj is None:
            return [Claim(subject, pred, None, polarity=False)] if neg else []
        if _WEEKDAY.fullmatch(obj):
            return []  # "no deploys on Fridays": a day, not a host
        if pred in ("works_at", "lives_in", "married_to", "located_in") and not (
            is_name_like(obj) or r.chat
        ):
            return []  # "joined the call", "lives in fear"
        if pred in ("lives_in", "located_in") and _TITLED_PERSON.match(obj):
            return []  # "moved Noor over to Dr. Whitfield": to a doctor, not a place
        if direction == "tp":  # "we deploy the workers with Ansible": the workers'
            t = m.group("t").strip()
            if not (
                t[:1].isupper()
                or t.casefold() in ("everything", "everything else", "it all", "all of it")
                or t.split()[0].casefold()
                in ("the", "our", "my", "its", "their", "this", "that", "each", "every", "all")
            ):
                continue  # "deploys go through Kamal": no thing
            if t.casefold() not in ("everything", "everything else", "it all", "all of it"):
                subject = r.subject(t) or subject  # "we host everything on Hetzner": ours
            direction = "sp"
        based = pred == "lives_in" and re.match(r"(?i)\s*(?:is|are)\s+based\b", c[len(raw_s) :])
        if (
            (pred == "lives_in" or direction == "person")
            and not based
            and not _person_like(r, subject, raw_s)
        ):
            return []  # "sessions live in redis", "the meeting is at Google"
        if direction == "person" and (
            any(ch.isdigit() for ch in obj)
            or obj.casefold()
            in (
                "noon",
                "midnight",
                "home",
                "work",
                "lunch",
                "school",
                "dinner",
                "breakfast",
                "office",
                "the office",
                "gym",
                "the gym",
                "church",
                "capacity",
                "risk",
                "peace",
                "war",
                "least",
                "most",
                "best",
                "first",
                "last",
                "large",
                "hand",
                "stake",
                "play",
                "rest",
                "fault",
            )
        ):
            return []  # "lunch is at noon", "Alice is at home"
        if pred == "works_at" and re.search(r"(?i)\b(?:team|squad|group|project|guild)$", obj):
            pred = "member_of"
        if pred == "runs_on" and (
            _ON_NOT_PLATFORM.search(obj)
            or (
                direction == "weak"
                and not (is_name_like(obj) or r.chat or lexicon.category(obj) or _tool_word(obj))
            )
        ):
            return []  # "Alice is on vacation"; "runs on cron" is fine
        if pred == "uses" and direction == "ps":  # "Firebase is used by our mobile apps"
            user = r.subject(m.group("o"), spk)
            return [Claim(user, "uses", subject, polarity=not neg)] if user else []
        verb = c[len(raw_s) :].split(None, 1)[0].casefold() if c[len(raw_s) :].strip() else ""
        if not raw_s.strip() and verb in (
            "use",
            "like",
            "prefer",
            "deploy",
            "host",
            "run",
            "report",
        ):
            return []  # "use CET": an instruction, not a statement
        if pred == "uses" and not (
            is_name_like(obj) or r.chat or lexicon.category(obj) or _tool_word(obj)
        ):
            return []  # "memory use dropped"
        if pred in ("team_lead", "owner") and direction == "ps":
            thing = r.subject(obj) if obj.casefold() not in ("it",) else r.last_thing
            if thing is None:
                return []
            return [Claim(thing, pred, subject, polarity=not neg)]
        if pred in _MULTI and not neg:
            return [Claim(subject, pred, o) for o in _items(obj)]
        verb = c[len(raw_s) :].strip().split(None, 1)[0].casefold()
        moved = (
            verb in ("joined", "moved", "relocated", "has", "have")
            and pred in ("works_at", "lives_in")
            and not re.match(r"(?i)\s*ha(?:s|ve)\s+(?:worked|lived|been)", c[len(raw_s) :])
        )
        out = [Claim(subject, pred, obj, polarity=not neg, change=moved)]
        role = re.search(r"(?i)\s+as\s+(?:an?\s+|the\s+|our\s+)?(?P<role>[\w /-]+)$", m.group("o"))
        if pred == "works_at" and role and _is_role(role.group("role"), loose=True) and not neg:
            out.append(Claim(subject, "role", role.group("role")))
        return out
    return None


#: A person named with a title: "Dr. Whitfield", "Mrs. Okafor".
_TITLED_PERSON = re.compile(r"(?:Dr|Mr|Mrs|Ms|Mx|Prof|Miss)\.?\s+[A-Z]")


def _person_like(r: Reader, subject: str, raw: str) -> bool:
    low = raw.strip().casefold().split()
    if low and low[-1] in ("it", "this", "that", "its"):
        return False  # "it's in the blue folder": a thing, whoever was named before
    if subject == r.owner or (low and low[-1] in _PERSON_PRONOUNS | _FIRST_PERSON):
        return True
    if (
        len(low) >= 2
        and low[0] in ("my", "our", "his", "her", "their")
        and re.fullmatch(
            _RELATION_NOUNS + "|parents|kids|family|children|grandparents|in-laws|folks", low[-1]
        )
    ):
        return True  # "my parents live in Porto"
    if r.chat:  # "nadia is based in nairobi": a lone lower-case word is a name
        return (
            len(subject.split()) == 1
            and lexicon.category(subject) is None
            and not re.search(
                r"(?i)(?:db|api|service|server|site|app|cache|queue|sessions?|data|logs?)$", subject
            )
        )
    return subject[:1].isupper() and not subject.isupper() and lexicon.category(subject) is None


def _items(value: str) -> Iterator[str]:
    for part in re.split(r"\s*(?:,|\band\b|&|\bplus\b)\s*", value):
        item = names.value(part)
        if item:
            yield item
