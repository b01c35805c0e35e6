"""Values a later line gives otherwise: the marks of docs/concepts/recall.md#restated.

The reader may miss a change ("staging upgrade done, we're on Postgres 16 now" names no
subject it can resolve), but an earlier line shown beside it ("staging is still on Postgres 14")
gives a value *of the same kind* that the later line gives otherwise. This module finds such
values with patterns and no parser, and says so on the earlier line, as a mark and never a write:
``(Postgres 14 possibly superseded: Postgres 16 per 13 Feb 2026)``.

Kinds (:func:`typed_values`): versions (``1.27``), amounts (``$240/month``), shares (``40%``),
dates (``March 10``, ``2026-02-28``), clock times (``6:40pm``), phone numbers, e-mail
addresses, numbered hosts (``pg-prod-2``), a number after a word (``Postgres 14``, ``room 214``)
and a number before a unit (``4 workers``, ``30 days``; durations are one kind).

An earlier item is marked when a later one (said after it, by ``valid_at``):

- has a word of change or ``now`` (:data:`CUE`), or is the earlier line written again with
  other figures (:func:`same_template`: a report's or a bill's line restated),
- gives another value of a kind the earlier one gives and does not repeat the earlier value,
- shares a word with it besides the values.

For the kinds beyond versions, amounts and shares, which are commoner in passing, both items give
exactly one value of the kind, and when the query has words the shared words hold one of them:
two lines about the question's topic, not two numbers that happen to share a unit.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from collections.abc import Sequence
from typing import NamedTuple

from graphmem.normalize import STOPWORDS, term_set, terms
from graphmem.recall_cues import asks_when
from graphmem.text.lexicon import ALIASES
from graphmem.unstated import stated

__all__ = [
    "CUE",
    "Item",
    "diff_pairs",
    "field_of",
    "field_said_again",
    "quoted",
    "renamed",
    "restated",
    "said_again",
    "same_template",
    "typed_values",
]

_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
#: A word of change, or "now": the later item says something moved.
CUE = re.compile(
    r"(?i)\b(?:now|no longer|anymore|any more|instead|actually|correction|corrected|correct|"
    r"switched|moved|moves|migrated|replaced|changed|changing|stopped|dropped|updated|upgraded|"
    r"downgraded|renamed|gone|retired|deprecated|deleted|removed|raised|lowered|bumped|"
    r"update|upgrade|bump|"  # a commit's imperative: "chore(deps): update typescript to v5.4.5"
    r"increased|decreased|reduced|cut|pushed|postponed|rescheduled|delayed|extended|"
    r"shortened|renewed|wrong|typo|new|starting|effective|goes to|went to|up to|down to|"
    r"goes up|went up|going up|goes down|went down|"
    r"was wrong|not quite|from now on|going forward|mistake|misquoted)\b"
    # a date it takes effect: "£21.15 a sack from 1 March", "from June"
    rf"|(?i:\bfrom\s+(?:\d{{1,2}}(?:st|nd|rd|th)?\s+)?{_MONTH}\b)"
)


def _set(words: str) -> frozenset[str]:
    return frozenset(words.split())


_MONTH_NAMES = re.findall(
    r"\w+", "january february march april may june july august september october november december"
)
#: A month's number by its first three letters, which is how a date is keyed (``_date_key``).
_MONTH_NO = {m[:3]: i for i, m in enumerate(_MONTH_NAMES, 1)}
_MONTHS = frozenset(_MONTH_NAMES) | frozenset(_MONTH_NO) | {"sept"}
#: Kinds common enough in a line about its topic that no query word need be shared.
_QUERY_FREE_KINDS = ("version", "money", "share")
#: Kinds compared only when the query asks when.
_WHEN_KINDS = ("date", "time", "weekday")
_FIXED = {
    "version": re.compile(r"(?<![\w.$€£])v?\d+(?:\.\d+)+(?![\w%]|\.\d)"),
    "money": re.compile(r"[$€£]\s?\d[\d,.]*(?:[kKmM]\b)?(?:/\w+)?"),
    "share": re.compile(r"(?<![\w.])\d+(?:\.\d+)?%"),
    "date": re.compile(
        rf"(?i)\b(?:\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}\b|"
        rf"{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b)"
    ),
    "time": re.compile(
        r"(?i)(?<![\[\d:])\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b(?!\]?:)|"
        r"(?<![\[\d:])\b\d{1,2}:\d{2}\s?(?:utc|gmt|[ecmp][sd]?t|ce[s]?t|bst|ist)\b|"
        r"(?<=\bat )\d{1,2}:\d{2}\b(?![:\]])"  # "reminders at 6:30"
    ),
    # a weekly day: "Thursdays", "every Thursday", "Thu 15:00" ("last Friday" is one day)
    "weekday": re.compile(
        r"(?i)\b(?:every\s+(?:mon|tues|wednes|thurs|fri|satur|sun)day|"
        r"(?:mon|tues|wednes|thurs|fri|satur|sun)days)\b|"
        r"(?-i:\b(?:Mon|Tue|Tues|Wed|Thu|Thur|Thurs|Fri|Sat|Sun)\b)\.?(?=\s*\d{1,2}[:.]\d{2})|"
        # "weekly on Monday", "Wednesday, 15:00"
        r"(?<=weekly on )(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|"
        r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day(?=,?\s*\d{1,2}[:.]\d{2})"
    ),
    "temperature": re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?\s?°\s?[CF]\b"),
    "phone": re.compile(r"(?<![\w.+-])\+?\d{2,4}[ -]\d{3}[ -]\d{3,4}(?![\w.-])|\b\d{3}-\d{4}\b"),
    "email": re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+"),
    "url": re.compile(r"(?i)\bhttps?://[^\s<>()\[\]\"'`]+"),
}
#: A span of clock times, one value: "2-4pm", "10:30-12", "11:00 – 11:30" (one side has a
#: colon or am/pm, so "2024-2025" and a score are none).
_TIME_SPAN = re.compile(
    r"(?i)(?<![\w:./-])(\d{1,2}(?::\d{2})?\s?(?:am|pm)?)\s?(?:[-–]|to)\s?"
    r"(\d{1,2}(?::\d{2})?\s?(?:am|pm)?)(?![\w:/]|[.,]\d)"
)
#: A 24-hour clock time written alone: "backup 02:30", "moves to 10:00", "19:00 start" (not a
#: deadline, "back by 11:30"). One at a line's start, or after a date, is its timestamp
#: (``_stamp``).
_CLOCK = re.compile(r"(?<![\w:./\[-])(?<!by )(?:[01]\d|2[0-3]):[0-5]\d(?![\w:\]]|\.\d)")
_HOST = re.compile(r"\b([a-z][a-z0-9]*(?:-[a-z0-9]+)*-)\d+\b")
_NAMED = re.compile(r"(?i)\b([a-z][\w+#]*)[ \t]+(v?\d{1,4}(?:\.\d+)*)\b(?![%:/.,]?\d|\.\s)")
_COUNT = re.compile(r"(?i)(?<![\w.$€£:/-])(\d+(?:\.\d+)?)\s?([a-z][a-z/]*)")
#: Units of time (as :func:`_unit` leaves them): durations are one kind of value.
_DURATION = _set("s sec secs second ms min mins minute h hr hrs hour day week month year")
#: Words a number after or before them does not make a kind of value.
_NOT_UNITS = (
    STOPWORDS
    | _MONTHS
    | _set(
        "at on in to by of is are was were be from with for and or about than over under the a "
        "am pm st nd rd th x n no"
    )
)
_NOT_NAMED = _NOT_UNITS | _set(
    "last next first top up down around approx every per each only just item step phase week day q "
    "mon tue tues wed thu thur thurs fri sat sun monday tuesday wednesday thursday friday saturday "
    "sunday"
)


#: A character without which a text gives no value of any kind (:func:`typed_values`).
_MAY_HOLD = re.compile(r"[\d@]|://|(?i:day)s?\b")


@functools.lru_cache(maxsize=8192)
def _has_cue(text: str) -> bool:
    """Whether a later text says a change, outside its pieces that only ask or plan one.

    docs/concepts/recall.md#not-stated
    """
    return CUE.search(text) is not None and CUE.search(stated(text)) is not None


class Item(NamedTuple):
    """A line, a note or a fact shown: its text, when it was said, and a tie order.

    ``label``: what the line was said under, its speaker or its label ("Target launch" of
    "Target launch: April 14"); its words are shared only when the query holds them too, so
    two lines of one speaker do not share a topic by the speaker's name.
    """

    id: str
    text: str
    when: dt.datetime
    order: tuple[str, ...] = ()
    label: str = ""


def _unit(word: str) -> str:
    w = word.casefold().rstrip("/")
    w = w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
    return "duration" if w in _DURATION else w


def typed_values(text: str) -> dict[str, dict[str, str]]:
    """The values of each kind a text gives: ``{kind: {canonical: as written}}``.

    Canonical forms let two spellings of one value agree: ``$12`` and ``$12/month``,
    ``2pm`` and ``14:00 UTC``, ``July 1`` and ``2026-07-01`` (module documentation).

    >>> typed_values("PG 14 minimum")["n:postgres"]  # a technology's aliases are one name
    {'postgres 14': 'PG 14'}
    >>> sorted((k, sorted(v.values())) for k, v in typed_values(
    ...     "staging is on Postgres 14, 4 workers, lands at 6:40pm").items())
    [('n:postgres', ['Postgres 14']), ('time', ['6:40pm']), ('u:worker', ['4 workers'])]
    """
    return {kind: dict(values) for kind, values in _typed(text).items()}


@functools.lru_cache(maxsize=8192)
def _typed(text: str) -> dict[str, dict[str, str]]:
    """:func:`typed_values`, cached and shared: read, never changed.

    The same lines are shown again and again (a context call asks for each up to three times).
    """
    if not _MAY_HOLD.search(text):  # every kind has a digit, an "@", a url's "://" or a day
        return {}
    out: dict[str, dict[str, str]] = {}

    def add(kind: str, canonical: str, written: str) -> None:
        out.setdefault(kind, {}).setdefault(canonical, written)

    spans: list[tuple[str, str]] = []
    plain = text  # without its spans of clock times, for the kinds a span's parts would give
    for m in _TIME_SPAN.finditer(text):
        a, b = m.group(1).strip(), m.group(2).strip()
        if (":" in a + b or re.search(r"(?i)[ap]m", a + b)) and not _stamp(text, m.start()):
            half = re.search(r"(?i)[ap]m$", b)
            if half and not re.search(r"(?i)[ap]m$", a):  # "2-4pm": both afternoon
                a += half.group(0)
            ends = [_canonical("time", x) for x in (a, b)]
            if all(re.fullmatch(r"(?:[01]\d|2[0-3]):[0-5]\d", e) for e in ends):
                spans.append(("-".join(ends), m.group(0).strip()))
                plain = plain[: m.start()] + " " * (m.end() - m.start()) + plain[m.end() :]
    for kind, rx in _FIXED.items():
        for m in rx.finditer(text if kind == "weekday" else plain):  # "Thu 15:00–15:30"
            written = m.group(0).rstrip(".,")
            shown = written.lstrip("vV") if kind == "version" else written
            # thousands ("£48k") and plain amounts ("£1,180/mo") are different kinds of money
            key = kind + ("-k" if kind == "money" and written[-1:] in "kKmM" else "")
            add(key, _canonical(kind, written), shown)
    for m in _CLOCK.finditer(plain):
        if not _stamp(plain, m.start()):
            add("time", m.group(0), m.group(0))
    for canonical, written in spans:
        add("time", canonical, written)
    for m in _HOST.finditer(plain.casefold()):
        add("h:" + m.group(1), m.group(0), m.group(0))
    for m in _NAMED.finditer(plain):
        word = ALIASES.get(m.group(1).casefold(), m.group(1)).casefold()  # "PG 14": postgres
        if word not in _NOT_NAMED and not word.isdigit():
            add("n:" + word, f"{word} {m.group(2).casefold().lstrip('v')}", m.group(0))
    for m in _COUNT.finditer(plain):
        unit = m.group(2).casefold()
        if unit not in _NOT_UNITS:
            add("u:" + _unit(unit), f"{float(m.group(1)):g} {_unit(unit)}", m.group(0))
    return out


def _stamp(text: str, start: int) -> bool:
    """Whether a clock time at ``start`` is a line's timestamp: only a date or marks before it."""
    line = text[text.rfind("\n", 0, start) + 1 : start]
    return re.fullmatch(r"[\W\d_]*", line) is not None or bool(re.search(r"\d{4}\W*$", line))


def _canonical(kind: str, written: str) -> str:
    w = " ".join(written.casefold().split())
    if kind == "money":
        m = re.match(r"([$€£])\s?([\d,.]+)([km]?)", w)
        if m:
            number = m.group(2).replace(",", "").rstrip(".")
            return m.group(1) + (number[:-3] if number.endswith(".00") else number) + m.group(3)
    if kind == "version":
        return w.lstrip("v")
    if kind == "time":
        m = re.match(r"(\d{1,2})(?::(\d{2}))?\s?(am|pm)?", w)
        if m:
            hour = (
                int(m.group(1)) % 12 + (12 if m.group(3) == "pm" else 0)
                if m.group(3)
                else int(m.group(1))
            )
            return f"{hour:02d}:{m.group(2) or '00'}"
    if kind == "date":
        return _date_key(w)
    if kind == "weekday":
        return w.removeprefix("every ")[:3]  # "Thursdays", "Thu", "every thursday"
    if kind == "temperature":
        return w.replace(" ", "")  # "58 °C" and "58°C"
    return w


def _date_key(w: str) -> str:
    iso = re.fullmatch(r"(\d{4})-(\d{2})-(\d{2})", w)
    if iso:
        return w
    day = re.search(r"\d{1,2}", w)
    month = re.search(r"[a-z]{3}", w)
    if day is None or month is None:
        return w
    number = _MONTH_NO.get(month.group(0), 0)
    return f"{number:02d}-{int(day.group(0)):02d}"


def restated(
    items: Sequence[Item],
    *,
    valid_at: dt.datetime,
    query: str = "",
    skip: frozenset[str] = frozenset(),
) -> dict[str, tuple[str, dt.datetime]]:
    """Each item (not in ``skip``) whose value a later item gives otherwise, and its mark.

    Returns ``{id: ("<old> possibly superseded: <new>", when the later item was said)}``;
    ``query`` is the question the items are shown for: kinds beyond versions, amounts and
    shares need a shared word of it, and dates and clock times are compared only when it asks
    when (:func:`~graphmem.recall_cues.asks_when`): logs are full of them in passing.
    """
    query_words = frozenset(terms(query))
    dates = bool(query) and asks_when(query)
    typed = {i.id: _typed(i.text) for i in items}
    if not dates:
        typed = {
            k: {kind: v for kind, v in t.items() if kind not in _WHEN_KINDS}
            for k, t in typed.items()
        }
    if not any(typed.values()):
        return {}
    by_id = {i.id: i for i in items}
    later = sorted(
        (i for i in items if i.when <= valid_at and typed[i.id]),
        key=lambda i: (i.when, i.order, i.id),
    )  # the first later item that gives another value, whatever the input order
    out: dict[str, tuple[str, dt.datetime]] = {}
    for c in items:
        if c.id in skip or not typed[c.id]:
            continue
        for n in later:
            if (n.when, n.order) <= (c.when, c.order) or n.id == c.id:
                continue
            if not _has_cue(n.text) and not same_template(c.text, n.text):
                continue
            found = _differs(typed[c.id], typed[n.id], by_id[c.id], by_id[n.id], query_words)
            if found:
                gone, news = found
                out[c.id] = (f"{gone} possibly superseded: {news}", n.when)
                break
    return out


#: A value of any kind in a line, for :func:`same_template` (figures, ids, amounts).
_FIGURE = re.compile(r"[$€£]?\d[\d,.:/%-]*\w*")


def same_template(old: str, new: str) -> bool:
    """Whether a later line is an earlier one written again with other values.

    "Recurring: Internet (Xfinity) — $65.00 monthly, split equally" and, in a later export,
    "... — $80.00 monthly, split equally": reports, bills and digests restate their lines
    with no word of change (docs/concepts/recall.md#restated). Their words besides figures
    are the same, at least three of them, in the same order.

    >>> same_template("Recurring: Internet — $65 monthly", "Recurring: Internet — $80 monthly")
    True
    >>> same_template("Rent is $1,200", "Rent is $1,300")
    False
    >>> same_template("Paid $65 to Mo for internet", "Paid $80 to Kai for groceries")
    False
    """
    a = _unfigured(old)
    return len(a) >= 3 and a == _unfigured(new) and old.casefold() != new.casefold()


@functools.lru_cache(maxsize=8192)
def _unfigured(text: str) -> tuple[str, ...]:
    """A line's words without its figures, cached: compared with every later line's."""
    return tuple(terms(_FIGURE.sub(" ", text)))


def _words(item: Item, values: set[str], query_words: frozenset[str]) -> frozenset[str]:
    """An item's words besides ``values`` (as written), and its label's the query holds."""
    text = item.text
    for v in sorted(values, key=len, reverse=True):
        text = re.sub(re.escape(v), " ", text, flags=re.IGNORECASE)
    return term_set(text) | (term_set(item.label) & query_words)


def _differs(
    olds_by: dict[str, dict[str, str]],
    news_by: dict[str, dict[str, str]],
    old: Item,
    new: Item,
    query_words: frozenset[str],
) -> tuple[str, str] | None:
    for kind, olds in olds_by.items():
        theirs = news_by.get(kind, {})
        if not theirs or (kind != "version" and (len(olds) != 1 or len(theirs) != 1)):
            continue
        mine, other = set(olds), set(theirs)
        if kind == "date" and not all(len(k) == 10 for k in (*mine, *other)):
            mine, other = {k[-5:] for k in mine}, {k[-5:] for k in other}
        if not (other - mine and mine - other):
            continue
        shown = {*olds.values(), *theirs.values()}
        shared = _words(old, shown, query_words) & _words(new, shown, query_words)
        if not shared:
            continue
        if kind not in _QUERY_FREE_KINDS and query_words and not shared & query_words:
            continue
        gone = [v for k, v in olds.items() if k not in theirs]
        news = [v for k, v in theirs.items() if k not in olds]
        return ", ".join(sorted(gone or olds.values())), ", ".join(sorted(news or theirs.values()))
    return None


#: Relation words too common to name a slot by themselves ("is", "uses", "runs on").
_GENERIC = _set("is be has have use run go get make do say said")


def renamed(
    facts: Sequence[tuple[str, str, str, str, dt.datetime]],
    later: Sequence[Item],
    *,
    valid_at: dt.datetime,
    query: str,
) -> dict[str, dt.datetime]:
    """Facts whose slot a later text names again, with a word of change, but not their value.

    ``facts`` are ``(id, relation, value, subject, said at)``, the subject ``""`` for the
    memory's owner. ``self release_manager Ayo``, then a note "@sven is release manager from
    v5.13" (docs/concepts/recall.md#restated): the note holds every word of the relation (and of
    the subject, when it is not the owner), says something moved, and does not name Ayo. Only
    facts whose relation shares a word with the query count. Returns ``{fact id: when the
    later text was said}``; the first later text in time wins.
    """
    query_words = frozenset(terms(query))
    ordered = sorted(
        (i for i in later if i.when <= valid_at), key=lambda i: (i.when, i.order, i.id)
    )
    words_of = {i.id: term_set(i.text) for i in ordered}
    out: dict[str, dt.datetime] = {}
    for fid, slot, value, subject, when in facts:
        need = term_set(slot) - _GENERIC
        if not need or not need & query_words:
            continue
        need |= term_set(subject)
        value_key = " ".join(value.casefold().split())
        for item in ordered:
            if item.when <= when or item.id == fid or not need <= words_of[item.id]:
                continue
            if not _has_cue(item.text) or value_key in " ".join(item.text.casefold().split()):
                continue
            out[fid] = item.when
            break
    return out


#: Question words that name no topic: "What do we use now?", "Which one does the user run?"
_FILLER = term_set(
    "user users use uses used using run runs go goes get gets make makes do say said thing "
    "things one ones these days still again anymore week day time kind sort right"
)
#: A name in a question: a capitalised word after its first, or an identifier ("orders-db").
_QNAME = re.compile(r"(?<=\s)[A-Z][\w'-]*|\b\w+[-_.]\w[\w.-]*")
#: An earlier item of more words than this is a document, not a statement of the topic.
_SAID_AGAIN_WORDS = 25


def said_again(
    items: Sequence[Item],
    *,
    valid_at: dt.datetime,
    query: str,
    skip: frozenset[str] = frozenset(),
) -> dict[str, dt.datetime]:
    """Items whose topic, in the question's own words, a later item says again with a change.

    "user: i'm on a vegetarian diet" and, later, "user: switched to a vegan diet last month":
    for "What diet does the user follow now?" the earlier item is marked ``possibly
    superseded`` (docs/concepts/recall.md#said-again) when the later one (said after it, by
    ``valid_at``):

    - has a word of change or ``now`` (:data:`CUE`);
    - holds every word of the question's topic that the earlier one holds, two of them when the
      topic has two or more (the topic: the question's words, less its names and words such as
      "use" or "user");
    - holds the question's names that the earlier one holds, which holds one when the question
      names any (a name: a capitalised word, or an identifier such as ``orders-db``);
    - does not hold all of the earlier one's other words (that would say it again, not change
      it);

    and the earlier one is a statement, not a document (at most 25 words).

    Returns ``{item id: when the first such later item was said}``. A pointer, not a verdict:
    nothing is closed.
    """
    names = term_set(" ".join(_QNAME.findall(query)))
    topic = term_set(query) - names - _FILLER
    if not topic:
        return {}
    need_n = min(2, len(topic))
    later = sorted(
        (i for i in items if i.when <= valid_at and _has_cue(i.text)),
        key=lambda i: (i.when, i.order, i.id),
    )
    if not later:
        return {}
    query_words = term_set(query)
    words = {i.id: _words(i, set(), query_words) for i in items}
    out: dict[str, dt.datetime] = {}
    for c in items:
        if c.id in skip:
            continue
        mine = words[c.id]
        need = mine & topic
        if len(need) < need_n or len(mine) > _SAID_AGAIN_WORDS or (names and not mine & names):
            continue
        for n in later:
            if (n.when, n.order) <= (c.when, c.order) or n.id == c.id:
                continue
            theirs = words[n.id]
            if need <= theirs and (mine & names) <= theirs and mine - theirs - query_words:
                out[c.id] = n.when
                break
    return out


#: A field line: a short name, ":" or "=", a value ("image: registry.io/api:2.14.1", "- guests:
#: 18", 'rust-version = "1.70"', "☐ onboarding buddy: li wei").
_FIELD = re.compile(r"^[^\w]{0,3}([A-Za-z][\w .'/-]{0,38}?)\s*[:=]\s*(\S.*?)\s*$")
#: A diff's removed line: "-" then the line ("-timeout=30"); a list's dash has a space after it.
_REMOVED = re.compile(r"^\s*-(?=\w)")
#: A sentence's end in a value: "maybe later.", "peanuts. pretty serious one".
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
#: The speakers of a chat: never a field's name.
_ROLES = _set("user assistant me you system bot ai human agent")
#: Between two fields on one line: "Assignee: Jun Park · Due Jul 26".
_PARTS = re.compile(r"\s+·\s+")
#: A value's closing aside: "Field 3 (by the tennis courts)".
_ASIDE = re.compile(r"\s*\([^()]*\)$")
#: A value of a field: at most this many words.
_FIELD_WORDS = 6
#: A value of more than 3 words is a value only with a digit or an identifier's character.
_VALUE_MARK = re.compile(r"[\d_./:@#$€£%-]")


def field_of(item: Item) -> tuple[str, str] | None:
    """``(name, value)`` of a field line, its name as written; ``None`` for any other.

    >>> field_of(Item("1", "☐ Onboarding buddy: Li Wei", dt.datetime(2026, 1, 1)))
    ('Onboarding buddy', 'Li Wei')
    >>> field_of(Item("2", "bring his NHS card and forms", dt.datetime(2026, 1, 1), label="Dad"))
    """
    text = (f"{item.label}: {item.text}" if item.label else item.text).strip()
    if _REMOVED.match(text):
        return None  # a diff's removed line
    m = _FIELD.match(text)
    if m is None:
        return None
    name = " ".join(m.group(1).split())
    value = m.group(2).strip().strip("\"'`").strip()
    value = _ASIDE.sub("", value) or value  # "Riverside Park – Field 3 (by the courts)"
    words = value.split()
    if not value or len(name.split()) > 4 or len(words) > _FIELD_WORDS:
        return None
    if len(words) > 3 and not _VALUE_MARK.search(value):
        return None  # a sentence after a speaker's name ("dad: bring his NHS card")
    if _SENTENCE_END.search(value):
        return None  # a reply ("user: maybe later."), not a value
    return name, value


def field_said_again(
    items: Sequence[Item],
    *,
    valid_at: dt.datetime,
    query: str,
    skip: frozenset[str] = frozenset(),
    topical: frozenset[str] = frozenset(),
) -> dict[str, tuple[str, dt.datetime]]:
    """Items with a field that something said at a later time gives another value.

    "image: registry.io/api:2.14.1" in May's manifest and "image: registry.io/api:2.19.0" in
    November's (docs/concepts/recall.md#field-said-again): the earlier one reads
    ``(image: registry.io/api:2.14.1 possibly superseded: registry.io/api:2.19.0 per D)``. The
    fields are an item's lines (a session line is one line, a note may hold many). No word of
    change is needed (a document states its fields again); instead both are fields of one
    name with a short value, the only field of that name said at their time (a list of
    records names its fields once per record), said at different times, and the name or the
    value shares a word with the question (or the item does, for the ``topical`` ones: a note
    found for the question, "Location: Field 3" in a team's event). A diff's removed line
    ("-timeout=30", or "- image: postgres:14.11" beside "+ image: postgres:16.3" of its time)
    is no field: it reads ``(image: postgres:14.11 replaced: postgres:16.3 per D)``.

    Returns ``{id: (mark, when the later item was said)}``: a pointer, never a write.
    """
    query_words = frozenset(terms(query))
    if not query_words:
        return {}
    # a name that labels a sentence somewhere is a speaker's ("user: peanuts" in a chat)
    speakers = _ROLES | {
        i.label.casefold() for i in items if i.label and len(i.text.split()) > _FIELD_WORDS
    }
    fields: dict[str, dict[str, tuple[str, str]]] = {}  # id -> {name: (as written, value)}
    said: dict[tuple[dt.datetime, str], int] = {}
    added: dict[tuple[dt.datetime, str], str] = {}  # a diff's "+ name: value" lines
    taken: list[tuple[Item, str, tuple[str, str]]] = []  # its "- name: value" lines
    for i in items:
        if i.when > valid_at:
            continue
        mine: dict[str, tuple[str, str]] = {}
        # a record's line may hold several fields: "Every Sunday · Store: Sprouts (Elm Plaza)"
        parts = [(k, p) for k, ln in enumerate(i.text.splitlines()) for p in _PARTS.split(ln)]
        for k, line in parts:
            f = field_of(Item(i.id, line, i.when, label=i.label if k == 0 else ""))
            name = f[0].casefold() if f is not None else ""
            if f is None or name in speakers:
                continue
            if line.startswith("+ "):
                added.setdefault((i.when, name), f[1])
            elif line.startswith("- "):
                taken.append((i, name, f))
                continue
            said[(i.when, name)] = said.get((i.when, name), 0) + 1
            mine.setdefault(name, f)
        if mine:
            fields[i.id] = mine
    out: dict[str, tuple[str, dt.datetime]] = {}
    for i, name, (written, value) in taken:
        new = added.get((i.when, name))
        if new is None:  # a list's item, not a diff's removed line
            said[(i.when, name)] = said.get((i.when, name), 0) + 1
            fields.setdefault(i.id, {}).setdefault(name, (written, value))
        elif i.id not in skip and new.casefold() != value.casefold():
            out[i.id] = (f"{written}: {value} replaced: {new}", i.when)
    ordered = sorted((i for i in items if i.id in fields), key=lambda i: (i.when, i.order, i.id))
    for c in ordered:
        if c.id in skip:
            continue
        for name, (written, value) in fields[c.id].items():
            about = term_set(c.text if c.id in topical else f"{name} {value}")
            if said[(c.when, name)] != 1 or not about & query_words:
                continue
            n = next(
                (
                    n
                    for n in ordered
                    if n.when > c.when and name in fields[n.id] and said[(n.when, name)] == 1
                ),
                None,
            )
            if n is None:
                continue
            new = fields[n.id][name][1]
            if value.casefold() in new.casefold() or new.casefold() in value.casefold():
                continue  # said again alike: nothing moved
            out[c.id] = (f"{written}: {value} possibly superseded: {new}", n.when)
            break
    return out


def quoted(
    items: Sequence[Item], marks: dict[str, str], *, skip: frozenset[str], weak: str
) -> dict[str, str]:
    """A reply's quote of a marked line, with the line's mark: ``{id: mark}``.

    "> Total due: €4,280" in a reply says again what the first e-mail said; when that line
    reads ``(€4,280 possibly superseded: €4,820 per D)``, so does the quote, which would
    otherwise read as said on the reply's day. A quote keeps a mark of its own, unless the mark
    starts with ``weak`` (a topic said again). docs/concepts/recall.md#restated
    """
    said = {" ".join(i.text.split()).casefold(): i.id for i in items if not i.text.startswith(">")}
    out = {}
    for i in items:
        if not i.text.startswith(">") or i.id in skip:
            continue
        mark = marks.get(said.get(" ".join(i.text.lstrip("> ").split()).casefold(), ""), "")
        if mark and not mark.startswith(weak) and marks.get(i.id, weak).startswith(weak):
            out[i.id] = mark
    return out


#: A diff's part inside a text whose lines were joined: a sign ("-", "+", apart or not from
#: the line), then the line up to the next sign or hunk header ("-version = "0.7.2" +version =
#: "0.8.0"", "- image: postgres:14 + image: postgres:16").
_DIFF_PART = re.compile(r"(?:^|(?<=\s))([-+]) ?(?![-+\s])(.+?)(?=\s[-+] ?(?![-+\s])|\s@@|$)")


def _key(word: str) -> str:
    """A diff line's first word without its figures: a Go module's path names its major version."""
    return re.sub(r"\d+", "", word.casefold().rstrip(":="))


def diff_pairs(text: str) -> list[tuple[str, str]]:
    """The lines a diff pasted into ``text`` replaces: ``[(removed, added)]``.

    A note holding "diff --git a/Cargo.toml ... -version = "0.7.2" +version = "0.8.0" ..."
    (docs/concepts/recall.md#field-said-again): a removed part right before an added one, both
    starting with the same word but for its figures (the field or instruction: ``version``,
    ``FROM``, ``image:``, ``github.com/jackc/pgx/v4``), the added one as long as the removed one
    (what follows it is the diff's context) and not the same. Prose with dashes pairs nothing:
    the words after its signs differ.

    >>> diff_pairs('@@ -1,3 +1,3 @@ -FROM python:3.10-slim +FROM python:3.12-slim WORKDIR /app')
    [('FROM python:3.10-slim', 'FROM python:3.12-slim')]
    >>> diff_pairs("pros - cheap + fast")
    []
    """
    if "+" not in text or "-" not in text:
        return []
    parts = [(m.group(1), m.group(2).split()) for m in _DIFF_PART.finditer(text)]
    found: list[tuple[str, str]] = []
    for (sign, old), (then, new) in zip(parts, parts[1:], strict=False):
        if sign != "-" or then != "+" or len(old) < 2 or len(new) < len(old):
            continue
        new = new[: len(old)]
        if _key(old[0]) == _key(new[0]) and [w.casefold() for w in old] != [
            w.casefold() for w in new
        ]:
            found.append((" ".join(old), " ".join(new)))
    return found
