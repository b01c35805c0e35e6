"""Clauses and settings: how the reader cuts a sentence and tells a setting from a note.

A sentence is cut into clauses at "and", "but", ";" and commas that start no prepositional
phrase; a clause that is only a name waits for its verb ("Alice and Bob both work at X"); a
short item after a list is one more item. A "key: value" line is a setting when its key names
no note ("Status: done") and its value is short and no clause
(docs/concepts/text.md#log-formats).
"""

from __future__ import annotations

import re

from graphmem.text import lexicon, names
from graphmem.text.logforms import date_field
from graphmem.text.names import _FIRST_PERSON, _PERSON_PRONOUNS, _THING_PRONOUNS, is_name_like

_KEY_VALUE = re.compile(
    r"^(?P<key>[A-Za-z][\w/&.-]*(?: [\w/&.-]+){0,2})\s*(?P<sep>(?<!\d):|:(?!\d)|->|→|=>|=)\s*"
    r"(?P<value>\S.{0,40})$"
)
#: Words before a colon that head a note, not a setting ("Status: done", "feat: ...").
_NOT_KEYS = frozenset(
    """status agenda todo todos action actions next steps blockers blocker done wip eta summary
    title subject re date time when where who why how q a question answer note notes update
    updates decision decisions feat fix chore ci docs doc refactor test tests perf build style
    revert release changelog added removed changed fixed deprecated security breaking retro
    standup meeting minutes reminder heads warning important context background edit ps
    attendees owner owners goal goals risk risks idea ideas result results outcome yesterday
    today tomorrow tonight doing planned wins learned progress author authors ref refs
    signed-off-by co-authored-by reviewed-by acked-by cc bcc to from sent edited updated
    modified created""".split()  # noqa: SIM905
)
#: Labels in capitals that head a note, not a setting ("TODO: Redis").
_NOT_ACRONYM_KEYS = frozenset(["todo", "wip", "fyi", "re", "ps", "nb", "tldr", "faq", "ama"])
_VERBISH = re.compile(
    r"(?i)\b(?:is|are|was|were|be|been|will|would|should|can|could|has|have|had|do|does|did|"
    r"not|no|we|i|you|he|she|they|it|please|let)\b"
)


def _is_key(key: str, sep: str = ":", value: str = "") -> bool:
    # the head word decides: "Status: done" is a note, "status page: Statuspage" a setting;
    # before an arrow ("Stage → Proposal") no label names who speaks
    words = key.casefold().split()
    if sep != ":" and words[-1] not in _NOT_KEYS:
        return True
    # "Goal: 2,100" (a tracker's daily goal) is a setting, "Goal: ship v2" a note's head
    figure = words[-1] in _FIGURE_HEADS and _FIGURE.fullmatch(value.strip()) is not None
    # "Move date:", "Start time:": a field whose value is a date ("Date:" alone heads a mail)
    heading = (words[-1] in _NOT_KEYS and not date_field(key) and not figure) or words[0] in (
        "heads",
        "action",
        "next",
        "open",
        "follow",
    )
    if lexicon.ACRONYM.fullmatch(key.strip()):  # "APM: Datadog", "CI: GitHub Actions"
        return words[0] not in _NOT_ACRONYM_KEYS
    return not heading and not lexicon.is_speaker(key.strip())


#: A field's value that is a name of capitalised words and numbers: "Identity & Access
#: Management", "Riverside Park – Field 3".
_TITLED_NAME = re.compile(
    r"[A-Z][\w.'-]*(?: (?:&|of|and|for|[–—-]|[A-Z][\w.'-]*|\d+))* (?:[A-Z][\w.'-]*|\d+)"
)
#: Heads of a note that name a setting when a figure follows: "Goal: 2,100", "Progress: 80%".
_FIGURE_HEADS = frozenset(["goal", "goals", "result", "results", "progress"])
_FIGURE = re.compile(r"[$€£]?\d[\d,.]*\s?(?:%|[a-zA-Z]{1,5})?")


def _is_value(value: str, sep: str = ":") -> bool:
    if value.lstrip().startswith(("{", "[")):
        return False  # 'Arguments: {"user_id": "u_4"}': data, read field by field
    words = value.strip().rstrip(".").split()
    # "6% of eligible pay", "$1,200 per month": an amount and what it is of
    amount = len(words) > 2 and re.fullmatch(r"[$€£]?\d[\d,.]*%?", words[0]) is not None
    most = 5 if amount and words[1].casefold() in ("of", "per", "a", "an", "each") else 3
    if sep == ":" and _TITLED_NAME.fullmatch(" ".join(words)):
        most = 5  # "Identity & Access Management", "Riverside Park – Field 3": a field's name
    return 0 < len(words) <= most and not _VERBISH.search(value)


def _split_correction(text: str) -> tuple[str, str | None]:
    """Split "Alice works at Globex, not Acme" into the assertion and the value it ends."""
    m = re.search(r"(?:,|\s[—–-])?\s+(?:and\s+)?not\s+(?P<old>[^,;]+?)\s*$", text, re.IGNORECASE)
    if m and not re.search(r"\b(?:is|are|does|do)\s*$", text[: m.start()], re.I):
        old = names.value(m.group("old"))
        if old and is_name_like(old):
            return text[: m.start()], old
    return text, None


_RETRACT = re.compile(
    r"^(?:please\s+)?(?:disregard|ignore|forget|scratch|strike)\s+"
    r"(?:what\s+(?:i|we)\s+(?:said|told you|"
    r"wrote|mentioned)|my\s+(?:earlier|previous|last)\s+(?:note|message|comment|remark)|that)\s+"
    r"(?:about|regarding|on)\s+(?P<rest>.+?)(?:\s*[,;—–-]\s*(?:that|it|this)\s+.*)?$",
    re.IGNORECASE,
)
_NOT_TRUE = re.compile(
    r"(?i)^(?:it|that|this)\s+is\s+(?:not true|false|wrong|incorrect|not the case)\s+that\s+"
    r"(?P<rest>.+)$"
)
_SO_DOES = re.compile(r"(?i)^(?:so|as)\s+(?:does|do|did|is|are|has|have)\s+(?P<s>.+)$")
_LEAD_NAME = re.compile(r"^([A-Z][\w.-]*(?:\s+[A-Z][\w.-]*)*)\s+(?:is|are|was|has|had)\b")
_PARTICIPLE = re.compile(
    r"(?i)^(?:hosted|built|written|deployed|owned|led|powered|maintained|managed|based|located|"
    r"implemented|run|headed|shipped|released)\b"
)
_APPOSITION = re.compile(
    r"\b(?P<own>my|our)\s+(?P<rel>manager|boss|wife|husband|partner|lead|tech lead|team lead)"
    r"\s+(?P<name>[A-Z][\w.-]+)\b",
    re.IGNORECASE,
)


def _bare_name(clause: str) -> bool:
    """A clause that is only a name, waiting for its verb ("Alice and Bob both work at X")."""
    words = clause.split()
    return (
        0 < len(words) <= 4
        and (words[0][:1].isupper() or words[0].casefold() in ("the", "our"))
        and words[0].casefold()
        not in (
            "in",
            "at",
            "on",
            "after",
            "before",
            "during",
            "since",
            "for",
            "with",
            "yesterday",
            "today",
            "then",
        )
    )


_PLURAL = re.compile(
    r"(?i)^(?:\S+\s+){0,3}?(?:both\s+|all\s+)?(?:are|work|live|use|run|report|lead|own|"
    r"prefer|like|deploy|listen|were)\b"
)


_NOT_NAMES = frozenset(
    """the we i it our my this that they he she you and but so monday tuesday wednesday
    thursday friday saturday sunday january february march april may june july august
    september october november december today yesterday
    your yours what which how why whose his her him them me us its their these those such
    absolutely definitely totally honestly seriously literally exactly certainly probably
    hopefully luckily unfortunately sadly anyway bet yes yeah yep nope wow oh ok okay sure
    hey hi hello thanks lol haha aww omg btw""".split()  # noqa: SIM905
)
_VERB_FIRST = re.compile(
    r"(?i)^(?:is|are|was|has|have|joined|left|moved|works|lives|uses|leads|owns|reports|"
    r"prefers|likes|switched|migrated|runs|became|started|quit|stopped|no longer|now|still|"
    r"hosted|built|written|deployed|owned|led|powered|maintained|managed|based|located|"
    r"implemented|headed|listens|deploys|loves|enjoys|relies|depends)\b"
)


def _list_item(clause: str) -> bool:
    if re.search(r"(?i)\b(?:is|are|was|were|so|very|too|really)\b|!", clause):
        return False  # "..., the effects are so cool!": a remark, not one more item
    words = (names.value(clause) or "").split()
    return 0 < len(words) <= 3 and words[0].casefold() not in (
        _FIRST_PERSON
        | _PERSON_PRONOUNS
        | _THING_PRONOUNS
        | {"the", "there", "this"}
        | {
            "especially",
            "mostly",
            "mainly",
            "including",
            "probably",
            "not",
            "maybe",
            "which",
            "because",
            "since",
            "except",
            "plus",
            "even",
            "just",
            "only",
        }
    )


_CLAUSE_SPLIT = re.compile(
    # "a while back" is a time, not a clause joined by "while"
    r"\s*(?:;|,?\s+(?:and then|and|but|then|(?<!\ba\s)while|whereas|so|now that)\s+|"
    r"(?<!\d),\s+(?!(?:from|to|onto|into|in|on|at|with|for|since|until|as)\b))\s*",
    re.IGNORECASE,
)


#: Weekdays either side of a joiner: "Tuesdays and Fridays" is one value, not two clauses.
_DAYS_BEFORE = re.compile(r"(?i)\b(?:mon|tues|wednes|thurs|fri|satur|sun)days$")
_DAYS_AFTER = re.compile(r"(?i)^(?:mon|tues|wednes|thurs|fri|satur|sun)days\b")


#: A weekday and its date: "Tuesday, October 22" is one date (docs/concepts/text.md#event-dates).
_WEEKDAY_BEFORE = re.compile(
    r"(?i)\b(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|(?:mon|tue|wed|thu|fri|sat|sun)\.?)$"
)
_DATE_AFTER = re.compile(
    r"(?i)^(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d|^(?:the\s+)?\d{1,2}"
    r"(?:st|nd|rd|th)\b|^\d{1,2}\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)"
)

#: A booking and its day after a comma: "the checkup is booked, Thu Oct 12 at 9:40".
_BOOKED = re.compile(r"(?i)\b(?:booked|scheduled|confirmed|rescheduled|moved|set)$")
_DAY_AFTER = re.compile(
    r"(?i)^(?:(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|"
    r"nov|dec)[a-z]*\.?\s+\d)\b"
)


def _clauses(text: str) -> list[str]:
    out: list[str] = []
    start = 0
    for m in _CLAUSE_SPLIT.finditer(text):
        if _DAYS_BEFORE.search(text[: m.start()]) and _DAYS_AFTER.match(text[m.end() :]):
            continue  # a list of weekdays (docs/concepts/text.md#schedules)
        if m.group(0).strip() == "," and (
            (_WEEKDAY_BEFORE.search(text[: m.start()]) and _DATE_AFTER.match(text[m.end() :]))
            or (_BOOKED.search(text[: m.start()]) and _DAY_AFTER.match(text[m.end() :]))
        ):
            continue  # "Tuesday, October 22"; "the checkup is booked, Thu Oct 12 at 9:40"
        out.append(text[start : m.start()])
        start = m.end()
    out.append(text[start:])
    return [c for c in out if c.strip()]


#: A slot's word before a value without a colon: "timezone Europe/Berlin".
_UNLABELLED = re.compile(r"(?P<key>[A-Za-z]+(?: [a-z]+)?)\s+(?P<value>[^\s,;].{0,40}?)\.?")


def unlabelled(clause: str) -> str | None:
    """A setting written without its colon, when its value is of the slot's own kind.

    >>> unlabelled("timezone Europe/Berlin"), unlabelled("diet vegan"), unlabelled("ship it")
    ('my timezone is Europe/Berlin', 'my diet is vegan', None)
    """
    m = _UNLABELLED.fullmatch(clause.strip())
    if m is None or lexicon.attribute(m.group("value")) != m.group("key").casefold():
        return None
    return f"my {m.group('key').casefold()} is {m.group('value')}"
