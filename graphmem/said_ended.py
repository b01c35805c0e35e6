"""Values a line says ended, so what the reader missed is not shown as current.

See docs/concepts/recall.md#said-ended.

The text reader may miss a statement ("fyi invoices are stored in S3") or a change ("heads
up, invoices moved from S3 to R2"). The lines stay in memory either way (nothing a user gave is
lost), and :func:`graphmem.context.context` shows them. This module reads, with a few
patterns and no parser, the values a line *says ended*:

- ``from X to Y`` in a line with a change verb ("moved", "migrated", "bumped" ...);
- ``replaced X with``, ``dropped X``, ``stopped using X``, ``X is gone``, ``X was swapped
  for``, ``instead of X``, ``X is no longer supported`` (or ``our Y``), ``X -> Y``, ``..., not X``
  (``£1,150 not £1,100``), ``(was X)``, ``up from X``, ``X left for``, ``X has left``, ``X stepped
  down``, ``X cancelled on me``, ``X stopped``, ``stop taking X``, ``the X acct closes``, ``X
  moved to the data team`` (none after a word of plan, wish or denial: ``thought about
  dropping X``).

A value is a run of up to four words; every run is tried, and only one that another line
names as a whole phrase counts. A line that says ``X`` ended marks:

- itself: ``(X no longer current from here)``;
- an earlier line shown beside it that names ``X`` and shares another word with it ("our
  dns is managed in route 53" before "dns moved to Cloudflare, route 53 is gone"):
  ``(X: no longer current per D)``;
- a fact shown beside it whose value names ``X``, believed before the line was said, when the
  line names the fact's subject or the subject is the owner: ``; was replaced per D?``.

These are marks on what is shown, never writes: the facts stay as stored (a wrong
supersession is worse than a missed one), and the mark says where to look.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from graphmem.normalize import STOPWORDS, terms

__all__ = ["Said", "Shown", "corrected", "ended_values", "fact_marks", "marks"]

_TOKEN = r"(?:[\w$£€%@+#./:'’-]|,(?=\d{3}\b))*[\w$%+#]"  # "£1,100": a comma of thousands
_CHANGE = re.compile(
    r"(?i)\b(?:mov|migrat|switch|swap|replac|upgrad|downgrad|bump|port|transition|shift|"
    r"chang|went|go|goes|going|rais|lower|increas|reduc|cut|jump|grew|fell|drop|updat|renam|"
    r"transfer|reassign)\w*"
)
_FROM_TO = re.compile(
    rf"(?i)\bfrom\s+(?:the\s+|our\s+)?(?P<x>{_TOKEN}(?:\s+{_TOKEN}){{0,3}}?"
    r"(?:,\s+(?:19|20)\d{2})?)"  # "from Nov 22, 2024 to Dec 6, 2024": a date and its year
    # an aside after the value: "from us-east-1 (N. Virginia) to us-east-2"
    r"(?:\s+\([^()]{0,40}\))?\s+(?:to|over to|onto|into|→|->)\s"
)
_BEFORE = re.compile(
    r"(?i)\b(?:replac(?:e|ed|es|ing)|swap(?:ped|s|ping)?|drop(?:ped|s|ping)?|ditch(?:ed|es|ing)?|"
    r"retir(?:e|ed|es|ing)|remov(?:e|ed|es|ing)|kill(?:ed|s|ing)?|deprecat(?:e|ed|es|ing)|"
    r"decommission(?:ed|s|ing)?|sunset(?:ted|ting)?|stop(?:ped|s)?\s+(?:using|taking|the)|"
    r"no\s+longer\s+(?:use|uses|using|on|in|at|with)|"
    r"(?:mov(?:e|ed|es|ing)|migrat(?:e|ed|es|ing)|switch(?:ed|es|ing)?)\s+(?:away\s+)?(?:off|from)|"
    r"g[eo]t\s+rid\s+of|turn(?:ed|s)?\s+off|shut(?:s|ting)?\s+down|abandon(?:ed|s)?|left|quit|"
    r"uninstall(?:ed|s)?|dump(?:ed|s)?|cancel(?:l?ed|s)?|phas(?:e|ed|es)\s+out|rip(?:ped|s)?\s+out|"
    r"instead\s+of|moved\s+on\s+from|(?:done|finished)\s+with|(?:gone|went)\s+off|"
    r"rolled\s+back\s+from|(?:i\s+was|we\s+were)\s+wrong\s+about|"
    # "not going back to Joe's Garage", "as of today we're officially out of Harbor Street"
    r"(?:not|never|n't\s+be)\s+going\s+back\s+to|"
    r"(?:'re|’re|are|moved|moving|finally|officially)\s+out\s+of|"
    # "ingest workers are off RabbitMQ and consuming from NATS now", "move transactional mail
    # off SendGrid"
    r"(?:(?:'re|’re|are|is|now|finally|officially)|"
    r"(?:mov(?:e|ed|es|ing)|migrat(?:e|ed|es|ing)|switch(?:ed|es|ing)?)(?:\s+[\w-]+){1,3}?)"
    r"\s+off(?=\s+(?-i:[A-Z]))"
    r"(?!\s+(?:mon|tue|wed|thu|fri|sat|sun|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))|"
    # "sold the Honda Fit", "last day at Brightwave"
    r"sold|last\s+day\s+at)"
    r"\s+(?:the\s+|our\s+|my\s+|their\s+)?(?:support\s+for\s+)?(?P<rest>.+)"
)
#: A change log's label of what went: "Removed: Hotel Carris", "✂ Cancelled: the Pro plan".
_LABEL_ENDED = re.compile(
    r"(?i)^\W*(?:removed|deleted|cancell?ed|dropped|deprecated|retired|discontinued)\s*:\s*"
    r"(?P<rest>.+)"
)
_AFTER = re.compile(
    r"(?i)\s+(?:(?:is|are|was|were|has\s+been|have\s+been|got|gets|will\s+be|"
    r"is\s+being)\s+(?:now\s+|finally\s+|officially\s+)?(?:gone|dead|deprecated|retired|"
    r"decommissioned|removed|replaced|swapped|dropped|shut\s+down|turned\s+off|sunset|deleted|"
    r"uninstalled|(?:cancell?ed|closed|terminated)(?!\s+by\b)|renamed(?=\s+to\b)|history|"
    r"no\s+more|no\s+longer\s+(?:supported|used|needed|in\s+use|maintained|available)|"
    r"no\s+longer(?=\s+(?:my|our|the|their|his|her)\s))|"
    # a note's clipped form: "Jenkins box decommissioned.", "Pingdom cancelled over the break"
    r"(?:decommissioned|retired|deleted|sunset|gone|cancell?ed|discontinued|stopped|uninstalled|"
    r"removed|archived|terminated)"
    r"(?=\s*(?:[.!;,—–&]|$|(?:and|over|last|this|yesterday|today|since|as\s+of|on\s+(?:me|us)|"
    r"in\s+(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)\b))|"
    # a person gone from a role: "Mike left for Stripe", "Rosa has left;", "Brenda stepped down"
    r"(?:has\s+|have\s+)?(?:left|quit|resigned|stepped\s+down|stood\s+down)"
    r"(?=\s*(?:[.!;,—–]|$|(?:for|to\s+join|the\s+(?:company|team)|last|this|yesterday|today|"
    r"as)\b))|"
    # "Mrs Adeyemi went on maternity leave", "Marek is out on parental leave", "Sven is out
    # sick", "Ade didn't work out"
    r"(?:went|is|are|has\s+gone|is\s+out)\s+on\s+(?:\w+\s+)?leave\b|is\s+out\s+sick\b|"
    r"(?:didn['’]t|did\s+not)\s+work\s+out\b|"
    # "Ines moved to the data team", "Omar switched teams", "Wei moved over to the Platform team",
    # "Ms Hale has moved to our Salford branch"
    r"(?:has\s+)?(?:moved|switched|transferred)\s+(?:over\s+)?(?:teams|to\s+(?:the\s+|our\s+|"
    r"another\s+|a\s+new\s+)?(?:[\w-]+\s+){0,2}"
    r"(?:team|squad|pod|branch|department|division|practice)\b)|"
    # "Stripe is read-only for old refunds", "the Canal Street unit has been handed back"
    r"(?:(?:is|are)\s+(?:now\s+)?|(?:set|made|switched)\s+(?:to\s+)?)read[-\s]only\b|"
    r"(?:has|have)\s+been\s+handed\s+back\b|"
    r"gets?\s+(?:switched|turned)\s+off\b|"
    # "X → Y", not a message's "Kenji → Dana: ..." (from one person to another)
    r"(?:contract\s+)?(?:lapses|expires|goes\s+away)|(?:→|->)(?!\s*\w[\w.'-]*(?:\s\w[\w.'-]*)?:)|"
    # "Blue Bottle on 3rd closed for good", "the Elm St branch has shut its doors"
    r"(?:has\s+|have\s+)?(?:closed|shut)\s+(?:down\s+)?(?:for\s+good|permanently|its\s+doors)\b|"
    # "Greenleaf is closing", "nagios is off as of friday"
    r"(?:is|are)\s+(?:now\s+)?(?:closing|shutting\s+down|off(?=\s+(?:as\s+of|since|from|now|"
    r"today|for\s+good)\b|\s*[.!;,—–]|\s*$))|"
    # "the twilio acct closes end of month"
    r"(?:acct|account|contract|subscription|licen[cs]e)\s+(?:closes|ends|expires|is\s+closing))"
    r"(?:\W|$)"
)
#: "Priya took over the cert rotation from Tomas": who handed it over.
_TOOK_OVER = re.compile(
    rf"(?i)\b(?:took|tak(?:e|es|en|ing))\s+over\b[^.;]{{0,60}}?\bfrom\s+(?P<x>{_TOKEN}(?:\s+{_TOKEN})?)"
)
_ANYMORE = re.compile(r"(?i)\s+any\s?more\b")
#: Markdown's struck-out value: "**Internet**: ~~Xfinity~~ → Google Fiber".
_STRUCK = re.compile(r"~~(?P<x>[^~\n]{1,60}?)~~")
#: A diff's removed line, "-FROM python:3.10-slim" or "-    image: api:1.8.2" (a bullet's dash
#: is followed by one space): its field's value is the one taken out.
_REMOVED = re.compile(
    r"^-(?:(?=[A-Za-z])|\s{2,}(?=[A-Za-z]))(?P<name>[A-Za-z][\w.-]{0,30}?)\s*(?:[:=]\s*|\s+)"
    r"(?P<x>\S.{0,80}?)\s*$"
)
_NEGATION = re.compile(r"(?i)(?:\bnot|n't|\bnever)\b")
#: A piece of text read at a time: patterns stay cheap on a pasted blob (no piece is longer).
MAX_PIECE = 400
_CONTRACT = re.compile(
    rf"(?i)(?P<x>{_TOKEN})(?:['’]s)?\s+(?:contract|subscription|licen[cs]e|trial|account|lease)\s+"
    r"(?:has\s+|was\s+)?(?:ended|expired|lapsed|cancell?ed|terminated|ran\s+out|"
    r"(?:was\s+|is\s+)?not\s+(?:being\s+)?renewed)\b"
)
#: A changelog's old value beside the new one: "$12/mo (was $9/mo)", "99.95%, up from 99.9%".
_WAS_X = re.compile(
    rf"(?i)(?:\(\s*(?:was|previously|formerly|before|from)\s+|\b(?:up|down)\s+from\s+)"
    rf"(?P<x>{_TOKEN}(?:\s+{_TOKEN}){{0,2}}?)\s*(?:\)|[,.;!]|$)"
)
#: "..., not X" ends a clause or meets an aside; after a number the comma may go ("it's £1,150
#: not £1,100, I misread the listing").
_NOT_X = re.compile(
    rf"(?i)(?:,\s*|(?<=[\d%])\s+)not\s+(?P<x>(?:(?:No|Nr|St|Dr|Mr|Mrs|Ms)\.\s+)?{_TOKEN}"
    rf"(?:\s+{_TOKEN}){{0,3}}?)"
    r"\s*(?:[.!;,(—–]|\s-\s|$)"
)
#: Words one of which every match of the patterns above holds (a pattern's literal, or part
#: of one): a text without any says nothing ended, and is not read further. Most lines have
#: none (docs/concepts/recall.md#said-ended).
_CUE_WORDS = tuple(
    """from off replac swap drop ditch retir remov kill deprecat decommission sunset stop longer
    more rid turn shut abandon left quit uninstall dump cancel phas rip instead gone dead delet
    history discontinu lapses expires away -> contract subscription licen trial account lease
    not resign stepped acct team going out sold last closing over done finished terminated uninstall
    archived closed leave sick work read handed rolled wrong stood branch department division
    practice (""".split()  # noqa: SIM905
)
#: The same, for a text with other characters than ASCII (where ``(?i)`` matches more).
_ANY_CUE = re.compile("(?i)" + "|".join(re.escape(w) for w in (*_CUE_WORDS, "→")))


def _may_say_ended(text: str) -> bool:
    """Whether ``text`` holds one of :data:`_CUE_WORDS` (case aside): else it says nothing ended."""
    if "~~" in text or _REMOVED.match(text):  # a struck-out value, a diff's removed line
        return True
    if text.isascii():  # (for ASCII, (?i) is lower-casing; a substring test is much cheaper)
        low = text.lower()
        return any(w in low for w in _CUE_WORDS)
    return _ANY_CUE.search(text) is not None


_STOP = frozenset(
    """with for by to and in on at as because since last this that these those yesterday today
    now from over into onto after before when while but so which who it them its""".split()  # noqa: SIM905
)
_DETERMINERS = frozenset({"this", "that", "these", "those", "its"})
_NOT_VALUES = STOPWORDS | frozenset(
    """it them this that everything all something anything nothing support use it's one ones thing
    things stuff way old new mr mrs ms dr miss mx""".split()  # noqa: SIM905
)


def _words(text: str) -> list[str]:
    out = []
    for raw in text.split():
        word = raw.strip(",.;:!?()[]\"'“”")
        if not word or word in "—–-":  # a dash ends the clause (docs/concepts/recall.md#said-ended)
            break
        if _ABBREVIATED.search(raw):  # "No. 14": the abbreviation's dot ends nothing
            out.append(raw.casefold())
            continue
        out.append(word.casefold())
        if raw[-1:] in ',.;:!?)"”' or len(out) == 4:  # so does a closing quote
            break
    return out


def _runs(words: list[str], *, head: bool) -> list[str]:
    """Runs of words up to a stop word after (``head``) or before the cue, longest first.

    Every contiguous run is offered ("the gcs bucket gets deleted": "gcs bucket", "gcs",
    "bucket"); none starts or ends with a stop word, none is a stop word alone.
    """
    if head:
        words = words[: next((i for i, w in enumerate(words) if w in _STOP), len(words))]
    else:
        # a determiner is the value's own ("at this store"): the word before it cuts
        cut = max((i for i, w in enumerate(words) if w in _STOP - _DETERMINERS), default=-1)
        if cut > 0 and words[cut] in ("on", "at", "in") and words[cut - 1] not in _STOP:
            # "Blue Bottle on 3rd closed for good", "3 items at this store were removed": what
            # ended is named before where it was
            return _runs(words[:cut], head=False)
        words = words[cut + 1 :]
    runs = [
        " ".join(words[i : i + n])
        for n in range(len(words), 0, -1)
        for i in range(len(words) - n + 1)
    ]
    return [
        r
        for r in runs
        if r not in _NOT_VALUES
        and len(r) > 1
        and r.split()[0] not in STOPWORDS
        and r.split()[-1] not in STOPWORDS
    ]


def ended_values(text: str) -> list[str]:
    """The runs of words a line says ended, case-folded (module documentation).

    >>> ended_values("heads up, invoices moved from S3 to R2 this morning")
    ['s3']
    >>> ended_values("nginx-ingress is gone from production")
    ['nginx-ingress']
    >>> ended_values("the gcs bucket gets deleted friday")
    ['gcs bucket', 'gcs', 'bucket']
    >>> ended_values("we dropped Zendesk last month")
    ['zendesk']
    >>> ended_values("the API runs on Go")
    []
    """
    return list(_ended_values(text))


@functools.lru_cache(maxsize=8192)
def _ended_values(text: str) -> tuple[str, ...]:
    # A pure function of the text, asked for the same lines at every context() call.
    if not _may_say_ended(text):  # (every piece is part of the text)
        return ()
    return _read_ended(text)


def _read_ended(text: str) -> tuple[str, ...]:
    """:func:`_ended_values` without the :func:`_may_say_ended` test (the tests' reference)."""
    out: list[str] = []
    if m := _REMOVED.match(text):
        out.append(m.group("x").strip("\"'`").casefold())
    for m in _STRUCK.finditer(text):
        out += _runs(_words(m.group("x")), head=True)
    for piece in _pieces(text):
        out += _ended_in(piece)
    return tuple(dict.fromkeys(out))


def _pieces(text: str) -> list[str]:
    """Sentences of at most :data:`MAX_PIECE` characters; a longer run without a stop is skipped."""
    parts: list[str] = []
    for part in re.split(r"(?<=[.!?;])\s+|\n", text):
        if parts and _ABBREVIATED.search(parts[-1]):  # "N. Virginia", "No. 41, not No. 14."
            parts[-1] = f"{parts[-1]} {part}"
        else:
            parts.append(part)
    return [p for p in parts if p.strip() and len(p) <= MAX_PIECE]


#: A piece that ends with an initial or an abbreviation, not a sentence.
_ABBREVIATED = re.compile(
    r"(?:^|\s|\()(?:[A-Z]|No|Nr|St|Dr|Mr|Mrs|Ms|Sec|Ave|Inc|Ltd|vs|approx)\.$"
)


def _before(piece: str, end: int, words: int) -> list[str]:
    """The last ``words`` words before ``end`` in the same clause, case-folded."""
    # a clause ends at a stop, a dash or an emoji ("Leith era ending 😭 Lisbon half is off")
    head = re.split(
        r"[,;:.!?]\s|\s[—–-]\s|[\U0001F300-\U0001FAFF\u2600-\u27BF]", piece[max(0, end - 120) : end]
    )[-1]
    # a quote or a code span opens it: 'summary: "Priya moved to the Risk team'
    return [w.strip("\"'`“”‘’").casefold() for w in head.split() if w.strip("\"'`“”‘’")][-words:]


#: Words before a change verb that make it a plan, a wish or a denial, not a change: "thought
#: about dropping X", "asked to swap X", "we might move from X to Y", "didn't replace X". A
#: change said to come ("will reduce from 4.10% to 3.75%") counts: it is set, with a date.
_UNDONE = frozenset(
    """to might may maybe could should would wanna considering consider considered
    thinking thought about debating discussing discussed proposed propose suggested suggest
    plan planning planned if whether not never didn't don't won't can't wasn't isn't""".split()  # noqa: SIM905
)


def _done(piece: str, start: int) -> bool:
    """Whether the change verb at ``start`` says something happened (:data:`_UNDONE`)."""
    return not _UNDONE.intersection(w.strip("(\"'") for w in _before(piece, start, 3))


def _ended_in(piece: str) -> list[str]:
    out: list[str] = []
    verb = _CHANGE.search(piece)
    if verb and _done(piece, verb.start()):
        for m in _FROM_TO.finditer(piece):
            out += _runs(_words(m.group("x")), head=True)
    if label := _LABEL_ENDED.match(piece):  # "✂ Removed: Hotel Carris (cancelled)": whole
        out += _runs(_words(label.group("rest")), head=True)[:1]
    at = 0
    while before := _BEFORE.search(piece, at):
        at = before.end()
        if re.match(r"[—–-]\s", before.group("rest")):
            # "memcached retired — Redis gives us ...": what follows a dash is no object, but
            # a verb may ("### Removed - Dropped Python 3.8")
            at = before.start("rest") + 2
        elif _done(piece, before.start()):
            out += _runs(_words(before.group("rest")), head=True)
    for m in _AFTER.finditer(piece):
        out += _runs(_before(piece, m.start(), 4), head=False)
    for m in _TOOK_OVER.finditer(piece):
        out += _runs(_words(m.group("x")), head=True)
    for m in _CONTRACT.finditer(piece):  # "yusuf's contract ended friday"
        out += _runs([re.sub(r"['’]s$", "", m.group("x").casefold())], head=True)
    for m in _ANYMORE.finditer(piece):  # "the app doesn't talk gRPC anymore"
        if _NEGATION.search(piece, 0, m.start()):
            out += _runs(_before(piece, m.start(), 2), head=False)
    for m in _NOT_X.finditer(piece):
        out += _runs(_words(m.group("x")), head=True)
    for m in _WAS_X.finditer(piece):
        out += _runs(_words(m.group("x")), head=True)
    return out


_CORRECTED = re.compile(
    rf"(?P<before>(?:{_TOKEN}\s+){{0,2}}{_TOKEN})\s*,\s*not\s+(?P<x>{_TOKEN}(?:\s+{_TOKEN}){{0,3}})"
    r"\s*(?:[.!;]|$)"
)


def corrected(text: str) -> list[tuple[str, str]]:
    """``(new, old)`` of "it's Tamsin, not Tomasz": the value said instead of the one named.

    >>> corrected("actually it's Tamsin, not Tomasz.")
    [('Tamsin', 'tomasz')]
    """
    out = []
    for m in (m for piece in _pieces(text) for m in _CORRECTED.finditer(piece)):
        words: list[str] = []
        for w in reversed(m.group("before").split()):  # the name said last
            if "'" in w or "’" in w or w.casefold() in STOPWORDS | _STOP:
                break
            if words and not (w[:1].isupper() or any(not ch.isalpha() for ch in w)):
                break  # "works at Globex": Globex; "it's tamsin": tamsin
            words.insert(0, w)
        old = _runs(_words(m.group("x")), head=True)
        if words and old:
            out.append((" ".join(words), old[0]))
    return out


def names(value: str, text: str) -> bool:
    """Whether a text names a value as a whole phrase (case-folded)."""
    return _phrase(value).search(text.casefold()) is not None


@functools.lru_cache(maxsize=4096)
def _phrase(value: str) -> re.Pattern[str]:
    # compiled once per value: re's own cache (512 patterns) churns over a context's values
    return re.compile(rf"(?<![\w$]){re.escape(value)}(?![\w%])")


def shares_words(a: str, b: str, value: str) -> bool:
    """Whether two texts share an indexed word that is not one of the value's words."""
    skip = set(terms(value))
    return bool((set(terms(a)) - skip) & (set(terms(b)) - skip))


#: A name with its version ("Node.js 18", "Python 3.9", "PG 14"): a value no other thing
#: shares, so a line naming it speaks of the same thing as a line saying it ended.
_VERSIONED = re.compile(r"(?i)[a-z][\w.+#-]*[a-z][\w+#-]*\s+(?:v?\d+(?:\.\d+)+|v?\d\d+|v\d)")


#: An identifier with a figure in it ("python:3.10-slim", "eu-central-1",
#: "registry.io/api:1.8.2"): as distinctive as a versioned name.
_IDENTIFIER = re.compile(r"(?i)(?=[^\s]*\d)(?=[^\s]*[a-z])[a-z0-9]+(?:[:/.@_-][a-z0-9]+)+")


def _versioned(value: str) -> bool:
    """Whether a value is specific enough to need no other shared word.

    An identifier, a name with a version, or a name of three words or more ("hotel carris porto
    ribeira").
    """
    if _IDENTIFIER.fullmatch(value) or len(value.split()) >= 3:
        return True
    return _VERSIONED.fullmatch(value) is not None and bool(terms(value.split()[0]))


def first_named(values: Iterable[str], text: str) -> str | None:
    """The first of ``values`` (longest runs come first) that ``text`` names."""
    return next((v for v in values if names(v, text)), None)


class Said(NamedTuple):
    """A line or a note: what was said, when, and its place among lines said the same day."""

    id: str
    text: str
    when: dt.datetime
    order: tuple[str, ...] = ()


class Shown(NamedTuple):
    """Something shown that a later line may say ended: a line, a note or a fact."""

    id: str
    text: str  # a line's or a note's text, or a fact's value
    when: dt.datetime  # when it was said, or when the fact starts
    order: tuple[str, ...] = ()
    subject: str | None = None  # a fact's subject (``None`` for lines and notes)


def _short(values: Sequence[str]) -> str:
    return next((v for v in values if len(v.split()) <= 2), values[0])


def marks(
    shown: Sequence[Shown],
    said: Sequence[Said],
    *,
    owner: str,
    valid_at: dt.datetime,
    follows: Mapping[str, str] | None = None,
) -> dict[str, tuple[str, dt.datetime | None]]:
    """What each shown item is marked with: ``(value, when)`` (module documentation).

    ``when`` is the date of the later line that says ``value`` ended, or ``None`` when the item
    is itself a line that says so. ``follows`` (``{later line id: earlier line id}``) pairs
    lines already known to be about one thing: they need share no other word.
    """
    follows = follows or {}
    ended = {s.id: ended_values(s.text) for s in said if s.when <= valid_at}
    ended = {k: v for k, v in ended.items() if v}
    if not ended:
        return {}
    by_id = {s.id: s for s in said}
    out: dict[str, tuple[str, dt.datetime | None]] = {}
    for item in shown:
        own = ended_values(item.text) if item.subject is None else []
        for sid, values in ended.items():
            s = by_id[sid]
            if sid == item.id or (s.when, s.order) <= (item.when, item.order):
                continue
            if item.subject is not None and s.when.date() <= item.when.date():
                continue  # a fact read from a line of its own day
            value = first_named(values, item.text)
            if value is None or value in own:
                continue
            if item.subject is None:
                related = follows.get(sid) == item.id or shares_words(item.text, s.text, value)
                related = related or _versioned(value)
            else:
                related = item.subject == owner or names(item.subject.casefold(), s.text)
                related = related or shares_words(item.subject, s.text, value)
            if related:
                out[item.id] = (value, s.when)
                break
        if item.id not in out and own:
            out[item.id] = (_short(own), None)
    return out


def fact_marks(
    facts: Sequence[Any],
    lines: Sequence[tuple[str, str, dt.datetime]],
    *,
    owner: str,
    valid_at: dt.datetime,
) -> dict[str, str]:
    """The mark of each current fact whose value a later line or note says ended.

    ``facts`` are fact views (``id``, ``subject``, ``predicate``, ``object``, ``valid_from``,
    ``valid_to``, ``recorded_at``); ``lines`` are ``(id, text, said at)``. Notes (predicate
    ``note``) count as lines here.
    """
    notes = [f for f in facts if f.predicate == "note"]
    said = [Said(i, text, when) for i, text, when in lines]
    said += [Said(f.id, f.object, f.valid_from, (f.recorded_at.isoformat(),)) for f in notes]
    shown = [
        Shown(f.id, f.object, f.valid_from, (f.recorded_at.isoformat(),), None)
        if f.predicate == "note"
        else Shown(f.id, f.object, f.valid_from, (), f.subject)
        for f in facts
        if f.valid_to is None
    ]
    out = {}
    for fid, (value, when) in marks(shown, said, owner=owner, valid_at=valid_at).items():
        out[fid] = (
            f"says {value} is no longer current"
            if when is None
            else f"a later line ({when.date().isoformat()}) says it was replaced"
        )
    return out
