"""Names and values in a phrase: pronouns, determiners, and the clean-up of an object phrase.

Shared by the reader (:mod:`graphmem.text.reader`) and the rules (:mod:`graphmem.text.rules`).
"""

from __future__ import annotations

import re

from graphmem.text import lexicon

__all__ = ["is_name_like", "value"]

# -- names ----------------------------------------------------------------------------------

_FIRST_PERSON = frozenset({"we", "our", "us", "i", "my", "me", "ours", "myself", "ourselves"})
_PERSON_PRONOUNS = frozenset({"he", "she", "they", "him", "her", "them", "his", "their"})
_THING_PRONOUNS = frozenset({"it", "its", "this", "that"})
_DETERMINERS = re.compile(
    r"^(?:the|a|an|our|my|their|his|her|its|your|this|that|these|those|some)\s+", re.IGNORECASE
)
_LEAD_ADVERBS = re.compile(
    r"^(?:and|but|so|then|now|also|recently|finally|officially|just|already|currently|"
    r"today|since then|as of now|meanwhile|eventually|lately|now that|yes|thus|hence|"
    r"therefore|luckily|unfortunately|fortunately|apparently|basically|as planned|both|"
    r"no|yes|well|honestly|actually)\b[\s,]*",
    re.IGNORECASE,
)
_TRAIL_OBJECT = re.compile(
    r"\s+(?:now|instead|manually|automatically|by hand|anymore|any more|too|as well|again|"
    r"already|for now|these days|today|"
    r"full[- ]time|permanently|officially|in production|in prod|for good|going forward|"
    r"from now on|at last|finally|then|right now|currently|lately|by default|as planned|"
    r"a lot|very much|so much|there|here|again|though|anyway|these days|nowadays|apparently|"
    r"probably|mostly|honestly|tbh|lol|btw|fwiw|imo|finally|at last|so far|back|like usual|"
    r"as usual|recently|just recently|earlier|yesterday|tonight|this (?:morning|afternoon|"
    r"evening|week|weekend|month|year)|last (?:night|week|weekend|month|year|"
    r"monday|tuesday|wednesday|thursday|friday|saturday|sunday)|"
    r"(?:a|one|two|three|few|couple of) (?:days?|weeks?|months?|years?) ago)$",
    re.IGNORECASE,
)
#: An unmeasured time back after a value ("moved to Cloudflare a while back", "some time ago").
_WHILE_AGO = re.compile(
    r"\s+(?:a\s+(?:little\s+|good\s+)?while|some\s+time|a\s+bit)\s+(?:back|ago)\b.*$",
    re.IGNORECASE,
)
_OBJECT_STOP = re.compile(
    r"\s+(?:because|since|so that|so|which|who|where|while|whereas|although|though|after|"
    # "prefers morning reminders at 7:00": a clock time stays with the value
    r"before|when|as|with|via|using|for|in|at(?!\s+\d{1,2}(?::\d{2}|\s?[ap]m)\b)|on|from|"
    r"during|and then|but|except|unlike|"
    r"than|instead of|rather than|over|thanks to|due to|per|like|without|by|now that|"
    r"behind|across|throughout|until|till|through|everywhere|once|starting|bc|b/c|cause|cuz|"
    r"w/|w/o)\s+.*$|"
    r"\s+(?:everywhere|so far|for now)$|\s*(?:,(?!\d{3}\b)|;).*$|\s+\(.*$|"
    r"\s+to\s+(?!be\b)[a-z]+\b.*$",
    re.IGNORECASE,
)
_MAX_NAME_WORDS = 8
#: "€1,450 a month", "$20 per seat": the amount is the value, the rate its unit.
#: A place's clock after hours ("9:00–17:00 London time"): the hours are the value.
_PLACE_TIME = re.compile(r"(?<=\d)\s+[A-Z][a-z]+\s+time$")
_RATE = re.compile(
    r"(?<=\d)\s+(?:a|an|per|each|every)\s+(?:month|year|week|day|hour|seat|user|head|person|"
    r"mo|yr|hr|license|licence)\b.*$",
    re.IGNORECASE,
)


def _strip_det(text: str) -> str:
    return _DETERMINERS.sub("", text.strip()).strip()


def is_name_like(text: str) -> bool:
    """Whether a value looks like a name or a value (capitals, digits, @) rather than prose."""
    return any(ch.isupper() or ch.isdigit() for ch in text) or "@" in text


_RELATION_NOUNS = (
    "manager|boss|sister|brother|wife|husband|partner|cousin|mom|dad|mother|father|son|"
    "daughter|friend|colleague|coworker|co-worker|teammate|neighbor|neighbour|client|customer|"
    "mentor|lead|report"
)


#: Kinds of thing an identifier is named with: "the bucket evt-raw-eu", "the export_v2 flag".
_KINDS = (
    r"(?:bucket|repo|repository|branch|topic|queue|table|(?:feature )?flag|env var|"
    r"environment variable|variable|var|channel|namespace|folder|directory|image|secret|"
    r"endpoint|path|workspace|cron ?job|job|index|schema)"
)
#: An identifier: words joined by "-" or "_", or a path ("partner-inbound", "AUTH_SECRET").
_IDENT = r"(?P<id>(?=[\w./-]*[-_/])[A-Za-z0-9./][\w./-]*[\w/])"
_KIND_AND_ID = re.compile(rf"(?i:(?:[A-Za-z]+\s+)?{_KINDS})\s+{_IDENT}")
_ID_AND_KIND = re.compile(rf"{_IDENT}\s+(?i:{_KINDS})")


def value(raw: str | None, *, keep_prepositions: bool = False) -> str | None:
    """Clean an object phrase: cut at clause words, drop determiners and trailing adverbs."""
    if raw is None:
        return None
    text = raw.strip(" ,;:-—–\"'")
    text = re.sub(r"^@(?=[A-Za-z][\w.-]*$)", "", text)  # "@wendy", a chat mention: wendy
    text = _WHILE_AGO.sub("", text)
    if not keep_prepositions:
        text = _OBJECT_STOP.sub("", text)
    else:
        text = re.sub(r"\s*(?:,(?!\d{3}\b)|;).*$|\s+\(.*$", "", text)
    text = _RATE.sub("", text)
    text = _PLACE_TIME.sub("", text)
    for _ in range(3):
        text = _TRAIL_OBJECT.sub("", text).strip(" ,.")
    text = re.sub(r"(?i)^(?:actually|now|still|currently|really|officially|also|just)\s+", "", text)
    text = _strip_det(text)
    text = re.sub(r"^(?:our|my|the)\s+", "", text, flags=re.IGNORECASE).strip(" .")
    text = re.sub(r"(?i)^(?:[\w-]+\s+){1,2}(?:called|named)\s+", "", text)  # "a startup called X"
    named = _KIND_AND_ID.fullmatch(text) or _ID_AND_KIND.fullmatch(text)
    if named:  # "SFTP bucket partner-inbound", "export_v2 flag": the identifier is the name
        text = named.group("id")
    if not text or len(text.split()) > _MAX_NAME_WORDS:
        return None
    if text.casefold() in (
        "it",
        "them",
        "this",
        "that",
        "there",
        "here",
        "one",
        "something",
        "anything",
        "nothing",
        "everything",
        "him",
        "her",
        "us",
        "me",
        "these",
        "those",
    ):
        return None
    return text


#: A person's full name with a title beside it: "Hannah Okafor (VP Ops, Brightline Logistics)",
#: "Derek Lyle, Head of Fleet", "Priya Nair, CTO of Acme," (docs/concepts/text.md#titles).
_TITLED = re.compile(
    r"(?<![\w.])(?P<name>[A-Z][a-z]+(?:[ -][A-Z][a-z]+){1,2})"
    r"(?:\s*\((?P<t1>[^(),]{2,40}?)(?:,\s*|\s+(?:at|of)\s+)(?P<o1>[A-Z][^(),]{1,40})\)"
    r"|\s*\((?P<t2>[^(),]{2,40})\)"
    r"|,\s+(?P<t3>[^,;.()]{2,40}?)(?:\s+(?P<w3>at|of)\s+(?P<o3>[A-Z][^,;()]{1,40}?))?(?=,|;|\.|$))"
)


#: A title in capitals before a full name: "CTO Imogen Price".
_TITLE_FIRST = re.compile(r"(?<![\w.])(?P<title>[A-Z]{2,4}) (?P<name>[A-Z][a-z]+ [A-Z][a-z]+)\b")
#: Words that start a sentence before a person's name and are no part of it.
_NOT_GIVEN = frozenset(["met", "saw", "spoke", "told", "call", "with", "ask", "thanks", "ping"])


def _is_title(words: str) -> bool:
    """Whether a phrase is a job title: its first or last word is a role ("VP Ops", "CTO")."""
    low = words.casefold().split()
    return bool(low) and len(low) <= 5 and (low[0] in lexicon.ROLES or low[-1] in lexicon.ROLES)


def titled(text: str) -> list[tuple[str, str, str | None]]:
    """People named with their job title, and the employer when it is said.

    >>> titled("Call with Hannah Okafor (VP Ops, Brightline Logistics).")
    [('Hannah Okafor', 'VP Ops', 'Brightline Logistics')]
    >>> titled("New point of contact is Derek Lyle, Head of Fleet.")
    [('Derek Lyle', 'Head of Fleet', None)]
    >>> titled("Met Priya Nair, CTO of Acme, at the summit."), titled("Lisbon, Porto and Faro")
    ([('Priya Nair', 'CTO', 'Acme')], [])
    >>> titled("Notes: CTO Imogen Price is champion."), titled("AWS Lambda Functions")
    ([('Imogen Price', 'CTO', None)], [])
    """
    out: list[tuple[str, str, str | None]] = [
        (m.group("name"), m.group("title"), None)
        for m in _TITLE_FIRST.finditer(text)
        if m.group("title").casefold() in lexicon.ROLES
    ]  # "CTO Imogen Price is champion"
    for m in _TITLED.finditer(text):
        title = m.group("t1") or m.group("t2") or m.group("t3")
        org = m.group("o1") or m.group("o3")
        if m.group("w3") == "of" and not lexicon.ACRONYM.fullmatch(title):
            title, org = f"{title} of {org}", None  # "Head of Fleet"; "CTO of Acme" names Acme
        name = m.group("name")
        first, _, rest = name.partition(" ")
        if " " in rest and (first.endswith("ed") or first.casefold() in _NOT_GIVEN):
            name = rest  # "Met Priya Nair, CTO of Acme": a verb before the name
        if title and _is_title(title):
            out.append((name, title.strip(), org.strip() if org else None))
    return out
