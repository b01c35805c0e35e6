"""Change rules: a value replaced by another, with or without the old value.

"S moved/migrated/switched/... [T] from A to B", "S replaced A with B", "A was replaced by B",
"B replaced A", "S swapped A for B", "ownership of T moved to B", "S took over T [from A]",
"S handed T over to B"; without the old value: "S migrated/ported/rewrote/upgraded/bumped/
switched/moved [T] to/in/onto B".
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from graphmem.text import lexicon
from graphmem.text.claims import Claim
from graphmem.text.names import is_name_like
from graphmem.text.rules.common import _S, _subj, _tool_word

if TYPE_CHECKING:
    from graphmem.text.reader import Reader

_CHANGE_VERBS = (
    r"(?:migrated|moved|switched|ported|rewrote|re-wrote|rebuilt|re-built|upgraded|bumped|"
    r"converted|transitioned|changed|updated|shifted|swapped|replatformed|re-platformed|"
    r"have migrated|has migrated|have moved|has moved|have switched|has switched|"
    r"finished migrating|completed the migration of|finished moving|moved over|switched over|"
    r"reverted|returned|went back)"
)
_PASSIVE_CHANGE = (
    r"(?:migrated|moved|switched|ported|rewritten|re-written|rebuilt|upgraded|bumped|converted|"
    r"changed|updated|shifted|replatformed|re-platformed|transitioned)"
)
_HINTS = {
    "rewrote": "written_in",
    "re-wrote": "written_in",
    "rewritten": "written_in",
    "re-written": "written_in",
    "ported": "written_in",
    "bumped": "version",
}


def _hint(verb: str, subject: str | None, new: str, r: Reader) -> str | None:
    verb = verb.split()[-1].casefold()
    if verb in ("moved", "transferred", "switched") and re.search(
        r"(?i)\s(?:team|squad|department|group|org)$", f" {new}"
    ):
        return "team"  # "I moved to the platform team": a person's one team
    if (
        verb in ("moved", "relocated")
        and subject
        and (
            subject in (r.owner, r.last_person)
            or (all(w[:1].isupper() for w in subject.split()) and lexicon.category(subject) is None)
        )
        and lexicon.category(new) is None
        and not new[:1].isdigit()  # "nightly ETL moves to 00:30 UTC": a time, not a place
        and not re.fullmatch(r"[a-z][\w.-]*\d[\w.-]*", new)  # "db-stg-02.internal": a host
        and not re.search(r"(?i)\bv\d+(?:\.\d+)*\b|\b\d+\.\d+", new)  # "move to pgx v5": a version
        and (is_name_like(new) or r.chat)
    ):
        return "lives_in"
    if verb in ("upgraded", "bumped") and lexicon.category(new) in ("version", "number"):
        return "version"
    return _HINTS.get(verb)


def _thing(r: Reader, raw: str | None) -> tuple[str | None, str | None]:
    """A changed thing: ``(entity, None)`` or ``(None, slot)`` for "our embeddings provider"."""
    if raw is None or not raw.strip():
        return None, None
    text = re.sub(r"^[a-z]+ing\s+(?=(?:the|our|my|its)\b|[A-Z])", "", raw.strip().strip(","))
    text = re.sub(r"(?i)\s+(?:up|back|out|forward)$", "", text)  # "moved the deadline up to X"
    low = text.casefold()
    if low.startswith(("our ", "my ")) or (low.startswith("your ") and r.agent_speaking):
        return None, text.split(None, 1)[1]
    if low.startswith(("his ", "her ", "their ")) and len(text.split()) > 1:
        # "Zoe changed her email to ...": Zoe's email
        return r.grammatical or r.last_person, text.split(None, 1)[1]
    if low.startswith("its ") and len(text.split()) > 1:
        return r.last_thing, text.split(None, 1)[1]
    m = re.match(r"^(?P<owner>.+?)'s\s+(?P<slot>.+)$", text)
    if m:
        return r.subject(m.group("owner")), m.group("slot")
    name = r.subject(text)
    return name, None


def _replaced(
    r: Reader, c: str, neg: bool, prev: str | None, spk: str | None
) -> list[Claim] | None:
    pats = [
        (
            r"^(?P<a>.+?)\s+(?:was|has been|got|is|were|have been)\s+"
            r"(?:replaced|superseded|swapped out|swapped|traded)"
            r"\s+(?:by|with|for)\s+(?P<b>.+?)(?:\s+(?:for|in|on)\s+(?P<t>.+))?$",
            True,
        ),
        (
            _S
            + r"(?:replaced|have replaced|has replaced|swapped out|swapped|substituted|traded)\s+"
            r"(?!(?:for|with|by)\s)(?P<a>.+?)\s+(?:out\s+)?(?:with|for|by)\s+(?P<b>.+?)"
            r"(?:\s+(?:for|in|on)\s+(?P<t>.+))?$",
            False,
        ),
        (
            r"^(?P<b>.+?)\s+(?:replaced|has replaced|superseded|took the place of)\s+(?P<a>.+?)"
            r"(?:\s+(?:for|in|on)\s+(?P<t>.+))?$",
            True,
        ),
    ]
    for pat, passive in pats:
        m = re.match(pat, c, re.IGNORECASE)
        if not m or neg:
            continue
        old, new = r.value(m.group("a")), r.value(m.group("b"))
        if not old or not new:
            return []
        gd = m.groupdict()
        subject: str | None
        slot = None
        if gd.get("t"):
            subject, slot = _thing(r, gd["t"])
            subject = subject or r.owner
        elif passive:
            subject = r.owner
        else:
            subject = _subj(r, gd.get("s"), prev, spk) or r.owner
        return [Claim(subject, slot, new, replaces=old, change=True)]
    return None


def _ownership(
    r: Reader, c: str, neg: bool, prev: str | None, spk: str | None
) -> list[Claim] | None:
    m = re.match(
        r"^(?:the\s+)?(?:ownership|ownership of|owner of)\s+(?:of\s+)?(?P<t>.+?)\s+"
        r"(?:moved|passed|went|was transferred|transferred|was handed|shifted|changed)"
        r"(?:\s+from\s+(?P<a>.+?))?\s+to\s+(?P<b>.+)$",
        c,
        re.IGNORECASE,
    )
    if m and not neg:
        thing, new = r.subject(m.group("t")), r.value(m.group("b"))
        if not thing or not new:
            return []
        return [Claim(thing, "owner", new, replaces=r.value(m.group("a")), change=True)]
    m = re.match(
        _S + r"(?:took over|has taken over|takes over|inherited)\s+(?P<t>.+?)"
        r"(?:\s+from\s+(?P<a>.+))?$",
        c,
        re.IGNORECASE,
    )
    if m and not neg:
        new = _subj(r, m.group("s"), prev, spk)
        thing, slot = _thing(r, m.group("t"))
        if not new or not (thing or slot):
            return []
        if slot:  # "took over our on-call rotation" → self on_call_rotation
            return [Claim(r.owner, slot, new, replaces=r.value(m.group("a")), change=True)]
        return [
            Claim(
                thing or r.owner,
                None,
                new,
                replaces=r.value(m.group("a")),
                change=True,
                hint="owner",
            )
        ]
    m = re.match(
        _S + r"(?:handed|hands|hand|is handing|handed over|passed|passes|gave)\s+(?P<t>.+?)\s+"
        r"(?:over\s+)?to\s+(?P<b>.+)$",
        c,
        re.IGNORECASE,
    )
    if m and not neg:
        old = _subj(r, m.group("s"), prev, spk)
        thing, _ = _thing(r, m.group("t"))
        new = r.value(m.group("b"))
        if not thing or not new:
            return []
        return [Claim(thing, None, new, replaces=old, change=True, hint="owner")]
    return None


def _change(r: Reader, c: str, neg: bool, prev: str | None, spk: str | None) -> list[Claim] | None:
    active = re.match(
        _S
        + r"(?P<v>"
        + _CHANGE_VERBS
        + r")\s+(?:back\s+)?(?:(?!from\b|to\b|back\b|off\b)(?P<t>.+?)\s+)?"
        r"(?:(?:from|off of|off|away from)\s+(?P<a>.+?)\s+)?"
        r"(?P<prep>to|onto|into|in|over to|with|on)\s+(?P<b>.+)$",
        c,
        re.IGNORECASE,
    )
    passive = re.match(
        r"^(?P<t>.+?)\s+(?:was|has been|got|is|were|have been|is now)\s+(?P<v>"
        + _PASSIVE_CHANGE
        + r")\s+(?:(?:from|off of|off|away from)\s+(?P<a>.+?)\s+)?"
        r"(?P<prep>to|onto|into|in|over to|with|on)\s+"
        r"(?P<b>.+)$",
        c,
        re.IGNORECASE,
    )
    # "checkout-service migrates from Redis to PostgreSQL" (a decision record): in the present,
    # only with both values, since "the job moves files to S3" is what a job does
    present = re.match(
        _S + r"(?P<v>migrates|switches|moves|upgrades|transitions|cuts over)\s+"
        r"(?:(?!from\b)(?P<t>.+?)\s+)?from\s+(?P<a>.+?)\s+(?P<prep>to|onto)\s+(?P<b>.+)$",
        c,
        re.IGNORECASE,
    )
    m = passive or active or present
    if m is None or neg:
        return None
    gd = m.groupdict()
    verb = gd["v"]
    if m is not passive and re.match(r"(?i)^(?:to|from)\b", (gd.get("t") or "")):
        return None
    new = _bare_value(r.value(gd["b"]))
    role = re.fullmatch(r"(?i)(?:an?\s+|the\s+)?(?P<title>[\w -]+?)\s+(?:role|position)", gd["b"])
    if role and m is active and not gd.get("t") and not gd.get("a"):
        # "I moved into an engineering manager role": a new role
        who = _subj(r, gd.get("s"), prev, spk)
        return [Claim(who, "role", role.group("title"), change=True)] if who else []
    if not new or not (is_name_like(new) or r.chat or _tool_word(new)):
        return []  # "switched to a local fiber company": a description, not a value
    old = _bare_value(r.value(gd.get("a"))) if gd.get("a") else None
    if m is passive:
        thing, slot = _thing(r, gd["t"])
        subject = thing or r.owner
    else:  # active, or present
        raw_s = gd.get("s") or ""
        if "'s " in raw_s or raw_s.casefold().startswith(("our ", "my ")):
            thing, slot = _thing(r, raw_s)  # "the API's database changed from A to B"
            subject = thing or r.owner
            if slot:
                return [Claim(subject, slot, new, replaces=old, change=True)]
        found = _subj(r, gd.get("s"), prev, spk)
        if found is None:
            return []
        subject = found
        raw_t = (gd.get("t") or "").strip(" ,")
        if raw_t and old and re.fullmatch(r"[a-z]+s", raw_t):
            raw_t = ""  # "changed hospitals, from A to B": a kind of thing, not the thing
        thing, slot = _thing(r, raw_t or None)
        if thing:
            subject = thing
    if re.search(r"(?i)\b(?:team|squad|group|department)$", new) and not gd.get("t"):
        return [Claim(subject, "member_of", new, change=True)]  # "moved to the Oslo team"
    if gd.get("t") is None and verb.casefold().endswith(("moved", "relocated")) and new:
        hint = _hint(verb, subject, new, r)
        if hint == "lives_in":
            return [Claim(subject, "lives_in", new, replaces=old, change=True)]
    hint = _hint(verb, subject, new, r)
    if hint is None and subject == r.owner and _EVERYTHING.fullmatch(gd.get("t") or ""):
        # "we moved everything to AWS": the owner's whole stack, so its new value's family
        # (docs/concepts/text.md#resolution-against-the-graph, rule 3)
        hint = lexicon.FAMILY_SLOTS.get(lexicon.category(new) or "")
    if hint is None and verb.split()[-1].casefold() in (
        "rewrote",
        "rebuilt",
        "rewritten",
        "re-wrote",
        "re-built",
        "ported",
    ):
        # "rebuilt the blog on Ghost" is what it runs on; "rewrote it in Rust", its language
        hint = {"in": "written_in", "on": "runs_on", "with": "runs_on"}.get(gd["prep"].casefold())
    return [Claim(subject, slot, new, replaces=old, change=True, hint=hint)]


#: The owner's whole stack as the thing that moved.
_EVERYTHING = re.compile(
    r"(?i)\s*(?:everything|it all|all of it|all (?:of )?our (?:stuff|services|apps|infra)|"
    r"(?:our|the) (?:whole|entire) (?:stack|infra|infrastructure|setup))\s*"
)


#: A quantity that moved, as "thing, verb, to value"; the value opens with a number or a
#: currency sign: "$2,550", "€1,265 per FTL", "5 attempts/min".
_AMOUNT_MOVES = tuple(
    re.compile(head + r"\s+to\s+(?P<b>[$€£¥]?\d.*)$", re.IGNORECASE)
    for head in (
        r"^(?P<t>.+?)\s+(?:went|goes|is going|has gone|will go|is about to go)\s+(?:up|down)",
        r"^(?P<t>.+?)\s+(?:rose|has risen|increased|has increased|decreased|has decreased|"
        r"dropped|fell|jumped|climbed|(?:was|is being|has been|got) "
        r"(?:raised|increased|lowered|reduced|cut|bumped))",
        r"^(?:raising|increasing|bumping|lowering|reducing|cutting|upping)\s+(?P<t>.+?)"
        r"(?:\s+from\s+\S+)?",
    )
)


def _amount(r: Reader, c: str, neg: bool, prev: str | None, spk: str | None) -> list[Claim] | None:
    """A quantity that moved: "our rent went up to $2,550", "Raising her gift to $75".

    Only a value that is a quantity: "Sam went to Paris" is no such change
    (docs/concepts/text.md#amounts).
    """
    went = next((m for p in _AMOUNT_MOVES if (m := p.match(c))), None)
    if went is None or neg:
        return None
    if re.search(r"(?i)\b(?:up|down|back|to)\s+[$€£¥]?\d", went.group("b")):
        return []  # "went up to 5 and then down to 3": no one value
    new = r.value(went.group("b"))
    if not new:
        return []
    thing, slot = _thing(r, went.group("t"))
    return [Claim(thing or r.owner, slot, new, change=True)]


def _bare_value(value: str | None) -> str | None:
    """Return the value a slot holds: "port 6379" → "6379", "version 2.1" → "2.1"."""
    if value is None:
        return None
    return re.sub(r"(?i)^(?:port|version|v(?=\d))\s*(?=[\d.]+$)", "", value) or value
