"""Log forms: commit messages and clipped statements, read as the statements they stand for.

See docs/concepts/text.md#log-formats. A conventional commit ("feat(api): ...") says what the
commit did ("migrate X to B" is "we migrated X to B"); a list item or commit subject that
drops its verb ("job queue backed by RabbitMQ") or its article ("default log level is INFO")
reads as the full sentence. A ticket's or an incident's fields ("Assignee: Jonas" under
"SUP-4412 — Login failures") are the record's, not the writer's. An e-mail's body is its
sender's ("From: Hendrik Bos" over "I'm your new account manager").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

from graphmem.text.lexicon import ROLES, is_speaker

__all__ = [
    "DOCUMENT_ID",
    "JSON_LINE",
    "commit_line",
    "commit_statement",
    "field_value",
    "json_fields",
    "mail_sender",
    "names_field",
    "names_record",
    "record_change",
    "record_field",
    "record_head",
    "record_line",
    "record_key",
    "unclip",
    "unmerged",
    "without_aside",
    "yaml_paths",
]

#: A commit's abbreviated or full hash, as `git log --oneline` starts its lines.
GIT_HASH = r"(?-i:[0-9a-f]{7,40})"
#: A conventional commit's type and scope: "feat(api): ", "ci: ", "refactor(search)!: "
#: ("CI: GitHub Actions" in capitals is a setting).
_COMMIT = re.compile(
    # "a91c2e4 (HEAD -> main) chore: ...": a line of `git log --oneline`
    rf"^(?:{GIT_HASH}\s+(?:\([^)]*\)\s+)?)?"
    r"(?!(?-i:[A-Z]{2,}):)(?P<kind>feat|fix|chore|ci|docs|refactor|perf|build|style|revert|test|deps)"
    r"(?:\((?P<scope>[^)]{0,40})\))?!?:\s*(?=\S)",
    re.IGNORECASE,
)
#: Commits that mend or describe code: they set nothing up unless they move or bump it.
_REPAIRS = frozenset(["fix", "test", "docs", "style", "revert"])
#: A commit body without a verb that names what a part is done with: "structured logs via
#: logrus", "rate limiting using Redis" (docs/concepts/text.md#log-formats).
_DONE_WITH = re.compile(r"(?i)^[a-z][\w-]*(?:\s+[a-z][\w-]*){0,3}\s+(?:via|using)\s+(?P<v>\S+)$")
#: A scope that names a part of a system: a word or two, no path or list.
_SCOPE = re.compile(r"[a-z][\w-]*(?: [a-z][\w-]*)?")
#: The verbs a commit message starts with, in the imperative, and their past tense.
_COMMIT_VERBS = {
    # a change or an ending: what the commit did
    **{
        v: v + "d"
        for v in [
            "move",
            "migrate",
            "replace",
            "upgrade",
            "downgrade",
            "retire",
            "deprecate",
            "remove",
            "change",
        ]
    },
    **{v: v + "ed" for v in ["switch", "port", "shift", "lower"]},
    **{v: v + "d" for v in ["reschedule", "raise", "increase", "reduce", "rename"]},
    **{"drop": "dropped", "swap": "swapped", "bump": "bumped", "rewrite": "rewrote"},
    # a state the commit sets up: what now holds ("index products in Elasticsearch")
    **{
        v: v
        for v in [
            "use",
            "store",
            "index",
            "host",
            "deploy",
            "send",
            "run",
            "build",
            "sign",
            "serve",
            "route",
            "log",
            "cache",
        ]
    },
}


#: Commit verbs that tend the code rather than set something up ("fix typo in README").
_UPKEEP_VERBS = frozenset(
    """fix add update clean refactor tidy format test document improve tweak adjust rename
    revert merge wip correct simplify optimise optimize polish reword prepare release handle
    allow avoid ensure make support enable disable skip ignore check guard log print""".split()  # noqa: SIM905
)
_SETUP_PREP = re.compile(r"(?i)\b(?:on|in|with|through|via|using|into|onto|behind|to)\b")


#: Determiners and pronouns: a phrase that starts with one is no bare thing.
_NOT_A_THING = (
    "a|an|our|my|your|their|his|her|its|this|that|these|those|it|they|we|i|you|he|she|there|"
    "here|what|who|which"
)
#: A bare thing with a capital, before a person's name: "Team lead is Bob", "CFO is Ana Li".
_CAPITAL_THING = re.compile(
    rf"^(?!(?i:the|{_NOT_A_THING})\b)(?P<np>[A-Z][\w-]*(?:\s+[a-z][\w-]*){{0,2}})\s+is\s+"
    r"(?=[A-Z][a-z])"
)
#: A lower-case noun phrase without a determiner, then "is"/"are" ("default log level is X").
_BARE_THING = re.compile(
    rf"^(?!(?:the|{_NOT_A_THING}|everything|everyone|nothing|all|each|every|some|no)\b)"
    r"[a-z][\w-]*(?:\s+[a-z][\w-]*){1,3}\s+(?:is|are)\s"
)


#: A noun phrase, a past participle and a value, with no verb: "job queue backed by RabbitMQ".
_CLIPPED_PASSIVE = re.compile(
    rf"(?i)^(?!(?:{_NOT_A_THING})\b)(?P<np>(?:the\s+)?[a-z][\w-]*(?:\s+(?!(?:is|are|was|"
    r"were|be|been|being|has|have|had|gets|got|and|or)\b)[a-z][\w-]*){0,3}?)"
    r"\s+(?P<v>[a-z]+ed|built|run|written|kept|held|sent|made|done|hosted)\s+"
    r"(?:by|on|in|with|via|through|behind)\s+\S"
)
#: Participles that state a change or an ending: their own forms read them.
_NOT_CLIPPED = frozenset(
    """moved migrated switched replaced swapped upgraded downgraded bumped changed dropped
    removed deprecated retired ported renamed merged closed fixed added updated released
    shipped started stopped ended used""".split()  # noqa: SIM905
)


#: What a commit pins, and to which version: "node 18.18.2", "terraform to 1.5.7".
_PINNED = re.compile(r"(?i)(?P<thing>[a-z][\w.+-]*)\s+(?:to\s+|at\s+|@)?(?P<v>v?\d+(?:\.\d+)+)\b")


def _as_statement(body: str) -> str:
    """A commit's imperative as a statement: "migrate X to B" → "we migrated X to B".

    A verb not in the table that sets something up with a value ("provision the queue on
    Amazon MQ", "bundle the web app with webpack") reads as what we do now.
    """
    first, _, rest = body.partition(" ")
    verb = first.casefold()
    pinned = _PINNED.match(rest) if verb == "pin" else None
    if pinned:  # "pin node 18.18.2 in .nvmrc": the version node is on
        return f"we bumped {pinned.group('thing')} to {pinned.group('v')}"
    past = _COMMIT_VERBS.get(verb)
    if past and rest:
        return f"we {past} {rest}"
    # "uploads go to GCS": a plural thing and its verb, no imperative ("bundle the app with ...")
    plural = verb.endswith("s") and not verb.endswith("ss")
    if (
        rest
        and verb.isalpha()
        and not plural
        and verb not in _UPKEEP_VERBS
        and _SETUP_PREP.search(rest)
    ):
        return f"we {verb} {rest}"
    return body


def commit_statement(text: str) -> str | None:
    """A conventional commit as a statement, or ``None`` when ``text`` is not one.

    A body without a verb that names a tool ("via logrus") says what the scope uses:

    >>> commit_statement("feat(logging): structured logs via logrus")
    'the logging uses logrus'
    """
    commit = _COMMIT.match(text)
    if not commit:
        return None
    body = text[commit.end() :]
    first = body.split()[0].casefold()
    if commit.group("kind").casefold() in _REPAIRS and first not in _COMMIT_VERBS:
        return ""  # "fix(auth): refresh token race on tab focus": a repair, no setting
    scope = (commit.group("scope") or "").strip()
    done_with = _DONE_WITH.match(body.rstrip("."))
    if done_with and _SCOPE.fullmatch(scope) and first not in {*_COMMIT_VERBS, *_UPKEEP_VERBS}:
        return f"the {scope} uses {done_with.group('v')}"
    return _as_statement(body)


#: "Log level defaults to info", "the region defaults to eu-west-1".
_DEFAULTS_TO = re.compile(
    r"(?i)^(?:the\s+)?(?P<thing>[a-z][\w-]*(?:\s+[\w-]+){0,2}?)\s+defaults?\s+to\s+(?P<v>\S+(?:\s+\S+)?)$"
)


def unclip(text: str) -> str:
    """A clipped passive or a bare thing as a full sentence; other text unchanged.

    >>> unclip("job queue backed by RabbitMQ"), unclip("default log level is INFO")
    ('the job queue is backed by RabbitMQ', 'the default log level is INFO')
    """
    default = _DEFAULTS_TO.match(text)
    if default:  # "Log level defaults to info": the default log level is info
        return f"the default {default.group('thing').casefold()} is {default.group('v')}"
    clipped = _CLIPPED_PASSIVE.match(text)
    if clipped and clipped.group("v").casefold() not in _NOT_CLIPPED:
        be = " are " if clipped.group("np").casefold().endswith("s") else " is "
        text = clipped.group("np") + be + text[clipped.end("np") :].lstrip()
    capital = _CAPITAL_THING.match(text)  # "Team lead is Bob Marsh", "CFO is Nadia Brennan"
    if capital and (" " in capital.group("np") or capital.group("np").casefold() in ROLES):
        return "the " + text
    return "the " + text if _BARE_THING.match(text) else text


def first_field(text: str) -> str:
    """A line's first field, without the details after it, its aside or its key's term.

    >>> first_field("Primary Contact: Priya Anand · priya@x.com")
    'Primary Contact: Priya Anand'
    >>> first_field("Premium for this period: $742.10 (monthly EFT)")
    'Premium: $742.10'
    """
    field, *details = text.split(" · ")
    if details and ":" in field and not any(":" in d for d in details):
        text = field
    return without_aside(_KEY_TERM.sub("", text, count=1))


#: The term a field's amount is for, in its key: "Premium for this period:", "Rent for the
#: month:" (the amount's own slot, docs/concepts/text.md#notices).
_KEY_TERM = re.compile(
    r"(?i)(?<=\w)\s+for\s+(?:this|the|each|every|your|current)\s+(?:[\w-]+\s+)?"
    r"(?:period|term|month|year|quarter|cycle)(?=\s*:)"
)


def date_field(key: str) -> bool:
    """Whether a field's value is a thing's date: "Move date", "Start time", "Check-out".

    A document's own dates are none ("Statement date", "Invoice date", "Last updated").
    """
    words = key.casefold().split()
    if " ".join(words) in _DATE_KEYS:
        return True  # "Check-out: Tue 11 Jun 2024"
    return len(words) > 1 and words[-1] in ("date", "time") and words[0] not in _DOCUMENT_WORDS


#: Fields of one word whose value is a date.
_DATE_KEYS = frozenset(
    "check-in check-out checkin checkout arrival departure arrive depart deadline due".split()  # noqa: SIM905
)


_DOCUMENT_WORDS = frozenset(
    """statement invoice bill billing order transaction issue issued print posting post report
    generated created updated modified sent received last receipt payment""".split()  # noqa: SIM905
)


#: A document's own number: each confirmation, order or receipt has its own, so a new one
#: adds to the old ones and never replaces them ("Transaction ID:", "Confirmation #:").
DOCUMENT_ID = re.compile(
    r"(?i)^(?:confirmation|order|transaction|invoice|tracking|receipt|appointment|case|ticket|"
    r"booking|reservation|payment|reference|request|envelope|bill|claim)\s*(?:id|number|no\.?|#|code)$"
)
#: A field that names the value a record had: "Old plan:", "Previous address:".
OLD_FIELD = re.compile(r"(?i)(?:old|previous|former|prior)\s+\w")


#: A field's change as an audit trail writes it: "Primary Contact changed: Priya Anand → Tom
#: Gallagher", "Plan changed from Starter to Pro", "Dario changed Close Date from Oct 31 to Nov
#: 30" (docs/concepts/text.md#log-formats).
_AUDIT_CHANGE = re.compile(
    r"^(?P<key>[A-Za-z][\w/&.-]*(?: [\w/&.-]+){0,3}?) (?:was |has been )?(?:changed|updated)"
    r"(?::| from)\s*(?P<old>\S.*?)\s*(?:→|->|=>|\bto\b)\s*(?P<new>\S.*?)\.?$"
)
_AUDIT_CHANGED_BY = re.compile(
    r"^(?:[A-Z][\w.'-]*(?: [A-Z][\w.'-]*)? )?(?i:changed|updated) (?:the )?"
    r"(?P<key>[\w/&.-]+(?: [\w/&.-]+){0,3}?) from (?P<old>\S.*?)\s*(?:→|->|=>|\bto\b)\s*"
    r"(?P<new>\S.*?)\.?$"
)


def audit_change(text: str, is_key: Callable[[str], bool] = lambda key: True) -> str:
    """A field's change written as an audit trail, as the field's line; other text unchanged.

    ``is_key`` says whether the field's name is a key (not a note's word, "due date").

    >>> audit_change("Primary Contact changed: Priya Anand → Tom Gallagher (tom@qhl.com)")
    'Primary Contact: Priya Anand → Tom Gallagher'
    >>> audit_change("Sam changed from Java to Go")
    'Sam changed from Java to Go'
    """
    m = _AUDIT_CHANGE.match(text) or _AUDIT_CHANGED_BY.match(text)
    if m is None or is_speaker(m.group("key")) or not is_key(m.group("key")):
        return text  # "Sam changed from Java to Go": who changed, not which field
    new = re.sub(r"\s*\([^)]*\)$", "", m.group("new"))  # "(tgallagher@quarryhill.com)"
    return f"{m.group('key')}: {m.group('old')} → {new}"


#: A record's key at the start of a text: "SUP-4412 — ...", "#inc-2291-checkout-latency",
#: "Postmortem draft, INC-517 (...)" (docs/concepts/text.md#records). Two digits at least:
#: "GPT-4" names a thing, not a record.
_RECORD = re.compile(
    r"^\W{0,3}(?:[A-Za-z]+(?: [A-Za-z]+){0,2},\s+|"
    r"(?i:jira|linear|ticket|issue|bug|case|incident|postmortem|request|task|story)\s+)?"
    r"#?(?P<key>[A-Za-z][A-Za-z0-9]{1,9}-\d{2,7}(?:-\d{1,7})?)"
    r"(?=$|[\s:,.(\]—–-])"
)
#: A record named by a label on a text's first line: "Account: Brightline Logistics",
#: "Opp: Halcyon Foods — platform license", "Contact: Ravi Menon — Menon & Sons".
_RECORD_HEAD = re.compile(
    r"(?i)^\W{0,3}(?:account|opp|opportunity|customer|client|deal|lead|vendor|ticket|incident|"
    r"candidate|contact|donor|member|patient|supplier|tenant)\s*:\s*"
    r"(?P<key>(?-i:[A-Z])[\w&.'-]*(?: (?-i:[A-Z])[\w&.'-]*){0,3})\s*(?:$|[—–(,-])"
)
#: Keys of that form that name a standard or a version, not a record.
_NOT_RECORDS = frozenset(["covid", "sha", "iso", "utf", "rfc", "ipv", "mp", "win", "x"])
#: A record's fields by their one-word labels ("Assignee: Jonas"); a label of more words whose
#: later words are in lower case ("Root cause: ...", "Incident commander: Marco") is a field too,
#: and so is one with the ending of a common noun ("Severity"). A capitalised word alone may be
#: a person speaking ("Jonas: done").
_RECORD_FIELDS = frozenset(
    """assignee reporter requester approver reviewer owner owners priority severity status
    component environment env version region team customer account resolution type labels
    sprint epic milestone due eta duration impact cause commander ic on-call service host
    cluster plan tier budget contact vendor stage deadline estimate effort platform os browser
    device asset location outcome result amount value arr mrr seats renewal probability
    champion industry phone mobile email address website company title scribe responder
    sponsor driver""".split()  # noqa: SIM905
)
#: A tracker's fields of two words (Jira's "Affects Version/s", "Fix Version/s", ...).
_TRACKER_FIELDS = frozenset(
    [
        "affected version",
        "affects version",
        "fix version",
        "target version",
        "due date",
        "story points",
        "release date",
        "root cause",
    ]
)
_NOUN_ENDING = re.compile(r"(?i)[a-z]{2,}(?:ity|tion|ment|ance|ence|ee)$")


def record_key(first: str) -> str | None:
    """The record a text's first sentence opens ("SUP-4412 — Login failures": ``SUP-4412``).

    A record titled with a name is that name: "OPP-5521 · Harbor Dental Group" and "Harbor
    Dental Group — opp #OPP-5521" are both ``Harbor Dental Group``, as a question names it.
    """
    head = _RECORD_HEAD.match(first)
    if head:
        return head.group("key")
    key = _record_id(first)
    if key is None or not _ACCOUNT.search(first):
        return key
    names = [
        part.strip()
        for part in re.split(r"\s+[·—–|-]\s+", first)
        if key not in part and _TITLE_NAME.fullmatch(part.strip())
    ]
    return names[0] if len(names) == 1 else key


#: A customer's record (a deal, an account), which a question names by its customer's name.
_ACCOUNT = re.compile(r"(?i)\b(?:opp|opportunity|deal|account|acct|customer|client|lead)\b|\bOPP-")
#: A name in a record's title: two to four capitalised words ("Harbor Dental Group").
_TITLE_NAME = re.compile(r"[A-Z][\w&'.]*(?: (?:&|of|[A-Z][\w&'.]*)){1,3}")


def _record_id(first: str) -> str | None:
    m = _RECORD.match(first)
    if m is not None:
        key: str | None = m.group("key")
    else:
        # "Harbor Dental Group — opp #OPP-5521", "ServiceNow · Incident INC0081234": a short
        # title naming one record by its kind
        keys = set(_RECORD_ANYWHERE.findall(first)) if len(first) <= 90 else set()
        key = keys.pop() if len(keys) == 1 else None
    return None if key is None or key.split("-")[0].casefold() in _NOT_RECORDS else key


_RECORD_ANYWHERE = re.compile(
    r"(?i:opp|opportunity|ticket|incident|case|issue|deal|account|request|task|story|bug)\s*[#:]?\s*"
    r"((?-i:[A-Z][A-Z0-9]{1,9})-\d{2,7}|(?:INC|CHG|RITM|REQ|PRB|TASK|CS)\d{5,10})(?![\w-])"
)


#: A labelled line with a short value: "Assignee: Jonas", "Root cause: expired cert".
_FIELD_LINE = re.compile(r"^(?P<key>[A-Za-z][\w .'/-]{0,30}?)\s*:\s+(?P<value>\S.{0,40})$")


def record_line(sentence: str) -> bool:
    """Whether a sentence in a record is one of its fields, not someone speaking."""
    m = _FIELD_LINE.match(sentence.strip())
    if m is None:
        return False
    value = without_aside(m.group("value"))  # "Hannah (Devraj on leave)"
    return record_field(m.group("key")) and len(value.split()) <= 4


#: Words for the record a text is about ("Rick handed the account to Zoe").
_THE_RECORD = re.compile(
    r"(?:the|this)\s+(?:account|ticket|deal|opp|opportunity|incident|issue|request|case)"
)


def names_record(phrase: str) -> bool:
    """Whether a phrase names the record a text is about: "the account", "this ticket"."""
    return _THE_RECORD.fullmatch(phrase.strip().casefold()) is not None


def record_head(sentence: str) -> bool:
    """Whether a sentence only names the record it opens ("Account: Brightline Logistics")."""
    return _RECORD_HEAD.match(sentence) is not None


def record_field(label: str) -> bool:
    """Whether a label before a colon names a record's field, not a person who speaks.

    >>> [record_field(x) for x in ("Assignee", "Root cause", "Severity", "Jonas", "Dana Lee")]
    [True, True, True, False, False]
    """
    words = label.split()
    if len(words) > 1:
        return len(words) <= 3 and all(w[:1].islower() for w in words[1:])
    return label.casefold() in _RECORD_FIELDS or _NOUN_ENDING.fullmatch(label) is not None


def names_field(predicate: str) -> bool:
    """Whether a relation is named for a record's usual field (``affected_version``, ``priority``).

    >>> names_field("affected_version"), names_field("priority"), names_field("eviction")
    (True, True, False)
    """
    name = " ".join(re.split(r"[_\s]+", predicate.strip().casefold()))
    return name in _RECORD_FIELDS or name in _TRACKER_FIELDS


#: An aside in brackets at a value's end: "Hannah (Devraj out on leave)".
_ASIDE = re.compile(r"\s*\([^)]*\)?\s*$")


def without_aside(value: str) -> str:
    """A value without the aside in brackets at its end ("Done (in 3.9)": ``Done``)."""
    return _ASIDE.sub("", value)


#: A field's old and new value: "Devraj → Hannah (out on leave)".
_FIELD_MOVED = re.compile(r"^[^→>]{1,40}?\s*(?:→|->|=>)\s*(?P<new>[^→>(,;]+?)\s*(?:[(,;].*)?$")


def field_value(value: str) -> str:
    """A field's or a setting's value as it stands now, without its aside.

    >>> field_value("Devraj → Hannah (Devraj out on leave)"), field_value("Done (in 3.9)")
    ('Hannah', 'Done')
    >>> field_value("4 → 8, HPA max 16")
    '8'

    """
    value = re.sub(r"\s+#\s.*$", "", value)  # "debug  # temp": a config file's comment
    moved = _FIELD_MOVED.match(value)
    return moved.group("new") if moved else without_aside(value)


#: A change of a record's field said without a subject: "Reassigned to Mei", "Bumping
#: priority to P1", "handing IC to Yuki", "downgrading to SEV3" (docs/concepts/text.md#records).
_MOVE_VERB = r"(?:bump|rais|lower|chang|set|mov|hand|pass|revis|updat|downgrad|upgrad|escalat)"
_RECORD_MOVE = re.compile(
    r"(?i)^(?:(?P<assign>re-?assign(?:ed|ing)?)|"
    rf"{_MOVE_VERB}\w*(?:\s+(?:the\s+)?(?P<slot>[a-z][\w-]*(?: [a-z]+)?))?|"
    rf"(?P<first>[a-z][\w-]*(?: [a-z]+)?)\s+(?:was\s+|is\s+|has\s+been\s+)?{_MOVE_VERB}\w*"
    r"(?:\s+up|\s+down)?)"
    r"\s+(?:over\s+)?to\s+(?P<value>[@$€£]?[\w.,/-]*\w(?: (?-i:[A-Z])[\w.-]*\w)?)(?=$|[\s,.;!)])"
)
#: A value that says which field it is: "SEV3" a severity, "P1" a priority.
_LEVELS = ((re.compile(r"(?i)sev-?\d"), "severity"), (re.compile(r"(?i)p[0-4]"), "priority"))


def record_change(text: str) -> tuple[str, str] | None:
    """The field and new value a subjectless change in a record says, if it says one.

    >>> record_change("Reassigned to Mei since Jonas is on leave")
    ('assignee', 'Mei')
    >>> record_change("Bumping priority to P1, the whole customer is locked out")
    ('priority', 'P1')
    >>> record_change("Stage moved to Negotiation"), record_change("Amount revised to $52,000 ARR")
    (('stage', 'Negotiation'), ('amount', '$52,000 ARR'))
    >>> record_change("downgrading to SEV3"), record_change("Moving to Berlin")
    (('severity', 'SEV3'), None)
    """
    m = _RECORD_MOVE.match(text.strip())
    if m is None:
        return None
    value = m.group("value")
    if m.group("assign"):
        return "assignee", value
    slot = m.group("slot") or m.group("first")
    if slot and (record_field(slot.capitalize()) or re.fullmatch(r"[A-Z]{2,5}", slot)):
        return slot.casefold(), value
    if slot is None:
        for shape, field in _LEVELS:
            if shape.fullmatch(value):
                return field, value
    return None


#: An e-mail header line: "From: Hendrik Bos <h.bos@example.nl>", "Subject: Rate revision".
_MAIL_HEADER = re.compile(r"(?i)^\s*(from|to|cc|bcc|subject|date|sent|reply-to)\s*:\s*(.*)$")
_ADDRESS = re.compile(r"\s*<[^<>\s]+@[^<>\s]+>\s*$")


def mail_sender(lines: list[str]) -> tuple[str | None, int]:
    """An e-mail's sender and the index of its body's first line, or ``(None, 0)``.

    A text is an e-mail when it opens with a block of header lines holding "From:" with a
    name ("From: Hendrik Bos <h.bos@example.nl>", "To:", "Subject:", ...)
    (docs/concepts/text.md#log-formats).
    """
    heads: dict[str, str] = {}
    end = 0
    for i, line in enumerate(lines):
        if not line.strip():
            if heads:
                break
            continue
        m = _MAIL_HEADER.match(line)
        if m is None:
            break
        heads.setdefault(m.group(1).casefold(), m.group(2).strip())
        end = i + 1
    sender = _ADDRESS.sub("", heads.get("from", "")).strip().strip('"')
    if "from" in heads and len(heads) > 1 and "@" in sender:
        return None, end  # "From: billing@cloudvault.example": a header, with no name
    if not re.fullmatch(r"[A-Z][\w.'-]*(?:\s+[A-Za-z][\w.'-]*){0,3}", sender):
        return None, 0
    return sender, end


#: A pull or merge request (docs/concepts/text.md#pull-requests).
_PULL_REQUEST = re.compile(
    r"(?i)\b(?:pull\s+request|merge\s+request|wants\s+to\s+merge)\b|\b(?:PR|MR)\s*[#!]\d+"
)
#: A request's state that leaves it unmerged: "· OPEN", "DECLINED", "Leaving open.", "Draft PR".
_UNMERGED = re.compile(
    r"\b(?:OPEN|DECLINED|DRAFT)\b|(?i:\b(?:declined|closed\s+without\s+merg\w*|not\s+merged|"
    r"leaving\s+(?:it\s+|this\s+)?open|draft\s+(?:pr|pull\s+request|mr))\b|[·|]\s*(?:open|draft)\b|"
    r"\bstatus:\s*(?:open|draft|declined)\b)"
)
_MERGED = re.compile(r"(?i)(?<!not )(?<!without )\bmerged\b")


def unmerged(text: str) -> bool:
    """Whether a text is a pull or merge request left open, in draft or declined.

    What such a request's title and description say it changes is proposed, not done: "chore:
    migrate test runner to Vitest (spike)" over "DECLINED" changes nothing.

    >>> unmerged("Pull request #231: migrate to Vitest · DECLINED")
    True
    >>> unmerged("Pull request #240 · MERGED"), unmerged("we moved to Vitest, the branch is open")
    (False, False)
    """
    return bool(_PULL_REQUEST.search(text) and _UNMERGED.search(text) and not _MERGED.search(text))


#: A JSON object on a line of its own, maybe after a label: 'Arguments: {"home_airport": "PDX"}'
#: (an agent's tool call, a chatbot's tracker event; docs/concepts/text.md#notices).
JSON_LINE = re.compile(r"^\s*(?:[A-Za-z][\w ]{0,20}:\s*)?(\{.*\})\s*,?\s*$")
#: Keys of such an object that hold no fact: ids, stamps, scores, an event's kind.
_JSON_SKIP = frozenset(
    """id event type timestamp ts time created_at updated_at confidence score status intent
    name role sender recipient updated_fields""".split()  # noqa: SIM905
)
_JSON_SAID = frozenset(["text", "message", "content", "utterance"])


def json_fields(line: str) -> list[str]:
    """A JSON line's fields as "key: value" lines, and what its ``text`` says.

    >>> json_fields('{"user_id": "u_4", "home_airport": "SFO", "seat_pref": "aisle"}')
    ['home airport: SFO', 'seat pref: aisle']
    >>> json_fields('{"event": "slot", "name": "timezone", "value": "America/Chicago"}')
    ['timezone: America/Chicago']
    >>> json_fields('{"event": "bot", "text": "Your default stays America/Chicago."}')
    ['bot: Your default stays America/Chicago.']
    """
    m = JSON_LINE.match(line)
    try:
        obj = json.loads(m.group(1)) if m else None
    except ValueError:
        return []
    if not isinstance(obj, dict):
        return []
    name, value = obj.get("name"), obj.get("value")
    if (
        isinstance(name, str)
        and isinstance(value, (str, int, float))
        and not isinstance(value, bool)
    ):
        return [f"{name.replace('_', ' ')}: {value}"]  # a slot set: its name and value
    out = []
    who = next((obj[k] for k in ("event", "role", "sender") if isinstance(obj.get(k), str)), None)
    for key, value in obj.items():
        k = key.casefold()
        if isinstance(value, str) and k in _JSON_SAID:
            out.append(f"{who}: {value}" if who else value)  # "user: I'm in Chicago"
        elif not (
            k in _JSON_SKIP
            or k.endswith("_id")
            or isinstance(value, bool)
            or not isinstance(value, (str, int, float))
            or len(str(value)) > 60
        ):
            out.append(f"{key.replace('_', ' ')}: {value}")
    return out


def commit_line(line: str) -> bool:
    """Whether a line is a commit's subject: "chore: migrate test runner to Vitest (spike)"."""
    return _COMMIT.match(line) is not None


#: A line of a YAML mapping, maybe in a diff: "    memory: 512Mi", "-    memory: 512Mi",
#: "  limits:" (a parent), "  - name: api" (an item).
_YAML_LINE = re.compile(
    r"^(?P<indent>\s*)(?:-\s+)?(?P<key>[A-Za-z_][\w.-]*):(?:\s+(?P<value>\S.*))?$"
)
#: A diff's removed or added setting, "-  className: nginx" (a diff without its "@@" header).
_DIFF_SETTING = re.compile(r"^[+-]\s+[A-Za-z_][\w.-]*:\s")


def yaml_paths(lines: list[str]) -> list[str]:
    """A nested YAML setting named with its parent: "limits memory: 512Mi".

    In a block of YAML (a Helm values file, a manifest, also inside a diff, whose first column
    is kept), a setting under a parent key is named with it, so the two ``memory`` settings of
    ``requests:`` and ``limits:`` are two slots (docs/concepts/text.md#log-formats). A block
    without nesting, or a list of "Key: value" fields, stays as written.

    >>> yaml_paths(["resources:", "  limits:", "    memory: 512Mi", "replicas: 4"])
    ['resources:', '  limits:', '    limits memory: 512Mi', 'replicas: 4']
    >>> yaml_paths(["@@ -6,3 +6,3 @@", "   limits:", "-    memory: 512Mi", "+    memory: 1Gi"])
    ['@@ -6,3 +6,3 @@', '   limits:', '-    limits memory: 512Mi', '+    limits memory: 1Gi']
    >>> yaml_paths([" ingress:", "-  className: nginx", "+  className: traefik"])[1:]
    ['-  ingress className: nginx', '+  ingress className: traefik']
    """
    out = list(lines)
    stack: list[tuple[int, str]] = []  # the open parents: (indent, key)
    # a diff without its header: a setting removed and one added, each after its sign
    signs = {line[0] for line in lines if _DIFF_SETTING.match(line)}
    diff = signs == {"+", "-"}
    nested = 0
    for i, line in enumerate(lines):
        if line.startswith(("@@", "+++", "---", "diff --git")):
            diff, stack = True, []
            continue
        mark, body = (line[:1], line[1:]) if diff and line[:1] in ("+", "-", " ") else ("", line)
        m = _YAML_LINE.match(body)
        if m is None:
            if body.strip() and not body.lstrip().startswith("#"):
                stack = []  # prose: the block ended
            continue
        indent = len(m["indent"])
        while stack and stack[-1][0] >= indent:
            stack.pop()
        if m["value"] is None:
            stack.append((indent, m["key"]))
        elif stack and not m["value"].startswith(("|", ">", "{", "[")):
            nested += 1
            out[i] = f"{mark}{m['indent']}{stack[-1][1]} {body[m.start('key') :]}"
    return out if nested else list(lines)
