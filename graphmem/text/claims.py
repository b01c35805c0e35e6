"""Claims from one sentence: who, what relation, which value, asserted or ended, since when.

Pure rules over strings (standard library only; the tokenizer and sentence splitter live in
:mod:`graphmem.text.nlp`). Each sentence is read in five steps:

1. **Clean-up**: a speaker prefix (``user:``) is removed, leading discourse words ("fyi",
   "btw", "quick update") are dropped, contractions are expanded; "Correction:" and
   "actually" mark a correction.
2. **Modality**: a question, plan, wish, conditional or hypothesis ("should we move to Rust?",
   "we plan to move to AWS", "if we switched to Go") and reported history ("he used to work
   at Oracle") give no claim, so they can never supersede anything.
3. **Dates** are read and taken out of the sentence (:mod:`graphmem.text.dates`).
4. **Negation** ("no longer", "isn't ... anymore", "stopped using", "does not") is taken out
   too and remembered as the clause's polarity.
5. **Clauses** ("Alice left Acme and joined Globex") are matched against the rules below, in
   order; the first rule that matches a clause gives its claims.

Rules, in order (S subject, O object, T thing, A old value, B new value):

- change with old and new value: "S moved/migrated/switched/... [T] from A to B",
  "S replaced A with B", "A was replaced by B", "B replaced A", "S swapped A for B",
  "ownership of T moved to B", "S took over T [from A]", "S handed T over to B";
- change without the old value: "S migrated/ported/rewrote/upgraded/bumped/switched/moved [T]
  to/in/onto B", "B is the new Z [of T]", "the new Z is B", "Z is now B";
- verbs: port ("listens on port N"), works_at, lives_in, located_in, written_in, runs_on,
  hosted_on, deploys_with, reports_to, owner ("Grace owns billing" is billing's owner),
  team_lead ("Bob leads the platform team"), member_of, married_to, prefers, likes, uses,
  version, role ("Alice is the CTO", "was promoted to VP of Sales");
- negative verbs: "S left O" (works_at), "moved out of O" (lives_in), "dropped / got rid of /
  retired / deprecated O" (whatever the subject's current facts say about O);
- copular and possessive: "our/the/X's Z is O" and "O is our/X's Z" (the slot Z becomes the
  predicate, e.g. ``embeddings_provider``), "the Z of T is O".

A change statement that does not say which relation it changes carries ``predicate=None``;
:mod:`graphmem.text.resolve` finds the relation in the graph, or keeps the text as a note.

>>> from graphmem.text.claims import read_sentence
>>> said = read_sentence("Alice left Acme and joined Globex.")
>>> [(c.subject, c.predicate, c.object, c.polarity) for c in said]
[('Alice', None, 'Acme', False), ('Alice', 'works_at', 'Globex', True)]
>>> said = read_sentence("We migrated the API to Go.")
>>> [(c.subject, c.predicate, c.object, c.replaces) for c in said]
[('API', None, 'Go', None)]
>>> read_sentence("Should we move the API to Rust?")
[]
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from graphmem.text import lexicon
from graphmem.text.dates import find_dates

__all__ = ["OWNER", "Claim", "Reader", "read_sentence"]

#: The placeholder subject of first-person statements ("we", "our", "I"); the writer maps it to
#: the memory's owner subject (``"self"`` by default).
OWNER = "self"


@dataclass(frozen=True)
class Claim:
    """One statement a sentence makes about the world.

    Attributes:
        subject: who or what it is about (``OWNER`` for "we"/"our"/"I").
        predicate: the relation, or ``None`` for a change statement that does not name it
            ("we migrated the API to Go"): resolved against the graph before writing.
        object: the value, or ``None`` for "ended, whatever the value" ("Alice doesn't work
            there anymore").
        polarity: ``True`` asserts, ``False`` ends the fact.
        valid_from: when it became true (or stopped, for an end), if the text says.
        valid_to: when it stops being true, if the text says.
        replaces: the old value a change statement names ("replaced Jenkins with ...").
        change: the sentence states a change ("migrated", "is the new", "is now").
        hint: the relation a change most likely means when the graph cannot tell ("Alice
            moved to Berlin": lives_in).
        correction: "Correction: ..." or "actually ...": the new value replaces the old one
            from the old one's start (the old belief was wrong, not outdated).
        also: "also", "too", "as well": an addition that never supersedes.
        now: "now" or "instead" (a value that takes the place of one ended just before).
        many: a relation the memory does not know yet holds many values ("talks to").
        sentence: the sentence it came from.
    """

    subject: str
    predicate: str | None
    object: str | None
    polarity: bool = True
    valid_from: dt.datetime | None = None
    valid_to: dt.datetime | None = None
    replaces: str | None = None
    change: bool = False
    hint: str | None = None
    correction: bool = False
    also: bool = False
    now: bool = False
    many: bool = False
    sentence: str = ""


# -- clean-up --------------------------------------------------------------------------------

_SPEAKER = re.compile(r"^\s*(?:\*\*)?(?P<who>[A-Za-z][\w .'-]{0,30}?)(?:\*\*)?\s*:\s+(?=\S)")
_SELF_SPEAKERS = lexicon.SELF_SPEAKERS
_CONTRACTIONS = [
    (r"\b(it|that|there|he|she|what|who)'s been\b", r"\1 has been"),
    (r"\b(it|that|there|he|she|what|who)'s\b", r"\1 is"),
    (r"\b(we|they|you)'re\b", r"\1 are"),
    (r"\bi'm\b", "I am"),
    (r"\b(we|they|you|i)'ve\b", r"\1 have"),
    (r"\b(we|they|you|i|he|she|it)'ll\b", r"\1 will"),
    (r"\b(we|they|you|i|he|she|it)'d\b", r"\1 would"),
    (r"\bwon't\b", "will not"),
    (r"\bcan't\b", "cannot"),
    (r"\b(is|are|was|were|does|do|did|has|have|had|could|would|should)n't\b", r"\1 not"),
]
_CORRECTION = re.compile(
    r"^(?:correction|to correct(?: that| myself)?|actually|sorry|my bad|wait|erratum|"
    r"i was wrong|we were wrong|scratch that)\b[\s:,—–-]*",
    re.IGNORECASE,
)
_DISCOURSE = re.compile(
    r"^(?:(?:" + "|".join(re.escape(w) for w in lexicon.DISCOURSE) + r")\b[\s:,!.—–-]*)+",
    re.IGNORECASE,
)
_WORD = re.compile(r"[\w'+#.-]*\w[+#]*|[+#]+")


def _words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def clean(sentence: str, *, speaker_known: bool = False) -> tuple[str, str | None, bool]:
    """Return the sentence without speaker, discourse words and contractions.

    Returns:
        ``(text, speaker, correction)``.

    >>> clean("user: fyi the staging db's on postgres 13")
    ("the staging db's on postgres 13", 'user', False)
    >>> clean("Correction: Alice works at Globex.")
    ('Alice works at Globex', None, True)
    """
    text = " ".join(sentence.replace("’", "'").replace("`", "'").split())
    speaker = None
    m = None if speaker_known else _SPEAKER.match(text)
    if m and lexicon.is_speaker(m.group("who")) and not _DISCOURSE.fullmatch(m.group("who")):
        speaker = m.group("who").strip()
        text = text[m.end() :]
    correction = False
    for _ in range(3):
        before = text
        text = _DISCOURSE.sub("", text)
        m = _CORRECTION.match(text)
        if m:
            correction = True
            text = text[m.end() :]
        if text == before:
            break
    for pattern, repl in _CONTRACTIONS:
        text = re.sub(pattern, repl, text, flags=re.IGNORECASE)
    text = _PREAMBLE.sub("", text)
    return text.strip().rstrip(".!;:").strip(), speaker, correction


_PREAMBLE = re.compile(
    r"^(?:(?:can|could|would|will) you (?:please )?|please )?"
    r"(?:note|remember|record|log|keep in mind|"
    r"be aware|know) (?:down )?(?:that )?(?=\S)|^(?:just )?so you know,?\s+|^for the record,?\s+",
    re.IGNORECASE,
)


_REPORTED = re.compile(
    r"^(?P<who>[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*)?|he|she|they)\s+(?:said|says|mentioned|told me|"
    r"told us|confirmed|wrote|tells me|tells us|let us know|let me know|announced)\s+(?:that\s+)?",
    re.IGNORECASE,
)


_CONDITIONAL_START = frozenset(
    """if unless when whenever whether suppose supposing imagine assuming hypothetically once
    maybe perhaps""".split()  # noqa: SIM905
)


def sentence_skipped(text: str) -> str | None:
    """Why a whole sentence gives no claim: a question or a conditional; else ``None``.

    Cues inside one clause (a plan, a hedge, history) skip only that clause
    (:func:`skipped`): "Kwame left Deloitte and is taking time off before deciding what's next"
    still says that he left.
    """
    low = text.casefold().strip()
    if low.endswith("?"):
        return "question"
    words = _words(low)
    if not words:
        return "empty"
    if words[0] in _CONDITIONAL_START or " ".join(words[:2]) in ("what if", "in case"):
        return "conditional"
    if words[0] in _QUESTION_START:
        return "question"
    return None


_QUESTION_START = frozenset(
    """should shall could would can do does did is are was were will what why how when where
    who which whom whose have has any anyone anybody""".split()  # noqa: SIM905
)


def skipped(text: str) -> str | None:
    """Say why a sentence gives no claim (question, plan, hypothesis, history), else ``None``.

    >>> skipped("we should move to Rust"), skipped("He used to work at Oracle")
    ('hypothetical', 'history')
    >>> skipped("We moved to Rust") is None
    True
    """
    low = text.casefold().strip()
    if low.endswith("?"):
        return "question"
    words = _words(low)
    if not words:
        return "empty"
    # A capitalised word inside the sentence is a name ("Hope House", "Will Smith"), not a cue.
    said = _WORD.findall(text.strip())
    cues = [w.casefold() for i, w in enumerate(said) if i == 0 or not w[:1].isupper()]
    if any(w in lexicon.HYPOTHETICAL for w in cues):
        return "hypothetical"
    padded = f" {' '.join(words)} "
    if any(f" {p} " in padded for p in lexicon.HYPOTHETICAL_PHRASES):
        return "hypothetical"
    if any(f" {p} " in padded for p in lexicon.PAST):
        return "history"
    return None


# -- negation ----------------------------------------------------------------------------------

_NEG_TAIL = re.compile(r"\s*\b(?:any ?more|any longer)\b", re.IGNORECASE)
_NEG_RULES = [
    (re.compile(r"\bno longer\b\s*", re.IGNORECASE), ""),
    (re.compile(r"\b(is|are|was|were|am)\s+not\b\s*", re.IGNORECASE), r"\1 "),
    (re.compile(r"\b(?:does|do|did)\s+not\b\s*", re.IGNORECASE), ""),
    (re.compile(r"\b(?:has|have)\s+not\s+been\b\s*", re.IGNORECASE), "is "),
    (re.compile(r"\bnot\s+(?=(?:using|working|living|running|deploying)\b)", re.IGNORECASE), ""),
    (re.compile(r"\bnever\b\s*", re.IGNORECASE), ""),
]
_STOPPED = re.compile(
    r"\b(?:stopped|quit|ceased|have stopped|has stopped|stop)\s+"
    r"(?P<verb>using|working|living|running|deploying|hosting|relying|reporting)\b",
    re.IGNORECASE,
)


def denegate(text: str) -> tuple[str, bool]:
    """Take the negation out of a clause; return ``(positive text, negated)``.

    >>> denegate("Alice doesn't work at Acme anymore".replace("n't", " not"))
    ('Alice work at Acme', True)
    >>> denegate("we stopped using Jenkins")
    ('we using Jenkins', True)
    """
    negated = False
    m = _STOPPED.search(text)
    if m:
        text = text[: m.start()] + m.group("verb") + text[m.end() :]
        negated = True
    for rule, repl in _NEG_RULES:
        new = rule.sub(repl, text, count=1)
        if new != text:
            text, negated = new, True
            break
    if negated or _NEG_TAIL.search(text):
        had_tail = _NEG_TAIL.search(text) is not None
        text = _NEG_TAIL.sub("", text)
        negated = negated or had_tail
    return " ".join(text.split()), negated


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
    r"\s+(?:now|instead|anymore|any more|too|as well|again|already|for now|these days|today|"
    r"full[- ]time|permanently|officially|in production|in prod|for good|going forward|"
    r"from now on|at last|finally|then|right now|currently|lately|by default|as planned|"
    r"a lot|very much|so much|there|here|again|though|anyway|these days|nowadays|apparently|"
    r"probably|mostly|honestly|tbh|lol|btw|fwiw|imo|finally|at last|so far|back|like usual|"
    r"as usual)$",
    re.IGNORECASE,
)
_OBJECT_STOP = re.compile(
    r"\s+(?:because|since|so that|so|which|who|where|while|whereas|although|though|after|"
    r"before|when|as|with|via|using|for|in|at|on|from|during|and then|but|except|unlike|"
    r"than|instead of|rather than|over|thanks to|due to|per|like|without|by|now that|"
    r"behind|across|throughout|until|till|through|everywhere|once|starting|bc|b/c|cause|cuz|"
    r"w/|w/o)\s+.*$|"
    r"\s+(?:everywhere|so far|for now)$|\s*[,;].*$|\s+\(.*$|\s+to\s+(?!be\b)[a-z]+\b.*$",
    re.IGNORECASE,
)
_MAX_NAME_WORDS = 8
#: Sentences longer than this many characters are not read for claims.
MAX_SENTENCE = 2000


def _strip_det(text: str) -> str:
    return _DETERMINERS.sub("", text.strip()).strip()


def is_name_like(text: str) -> bool:
    """Whether a value looks like a name or a value (capitals, digits, @) rather than prose."""
    return any(ch.isupper() or ch.isdigit() for ch in text) or "@" in text


# -- the reader -----------------------------------------------------------------------------


@dataclass
class Reader:
    """Reads the sentences of one text in order, keeping who "he", "she" and "it" are.

    Args:
        at: the time the text speaks from (relative dates resolve against it).
        owner: the subject of first-person statements.
    """

    at: dt.datetime = field(default_factory=lambda: dt.datetime.now(dt.timezone.utc))
    owner: str = OWNER
    last_person: str | None = None
    last_thing: str | None = None
    chat: bool = False
    grammatical: str | None = None
    clause_ends: bool = False
    agent_speaking: bool = False
    pronoun: bool = False
    #: Open claims of the sentences the rules do not read, by their cleaned text (the second
    #: pass of :class:`graphmem.text.readers.BuiltinReader`); ``None`` in the first pass.
    parsed: dict[str, list[Any]] | None = None
    #: The cleaned sentences the rules did not read (the first pass collects them for a parse).
    unread: list[str] = field(default_factory=list)

    # -- subjects --------------------------------------------------------------------------

    def subject(self, raw: str, speaker: str | None = None) -> str | None:
        """Resolve a subject phrase to a name (or the owner), or ``None`` when unusable."""
        text = raw.strip(" ,;:-—–\"'")
        for _ in range(3):
            text = _LEAD_ADVERBS.sub("", text).strip(" ,")
        if ", " in text:
            text = text.rsplit(", ", 1)[1]
        text = re.split(r"\s+(?:that|which|who|whose)\s+", text, maxsplit=1)[0]
        # "Deploys for the mobile backend changed ...": the mobile backend's deploys
        text = re.sub(
            r"(?i)^(?:deploys|deployments|builds|releases|hosting|backups|alerts|logs|emails)\s+"
            r"(?:for|of)\s+",
            "",
            text,
        )
        text = re.sub(
            r"(?i)(?:\s+(?:have|has|had|will|would|did|do|does|am|is|are|was|were|been|"
            r"just))+$",
            "",
            text,
        )
        text = re.sub(
            r"(?i)(?:\s+(?:now|still|also|currently|already|finally|officially|"
            r"recently|just|actually|then|too|even|again|mostly|apparently|both|all|"
            r"each))+$",
            "",
            text,
        )
        low = text.casefold()
        words = low.split()
        if not words:
            return None
        if words[-1] in _FIRST_PERSON or low in ("we all", "all of us", "the team", "our team"):
            return self.first_person(speaker)
        if words[-1] in ("you", "your") and speaker and speaker.casefold() in _AGENT_SPEAKERS:
            return self.owner  # the agent speaking to its user: "you" is the owner
        if words[-1] in _PERSON_PRONOUNS:
            self.pronoun = True
            return self.last_person
        if words[-1] in _THING_PRONOUNS and len(words) == 1:
            return self.last_thing
        if words[0] in ("after", "before", "during", "following", "in", "at", "on", "with"):
            tail = re.findall(r"(?:[A-Z][\w.+#-]*)(?:\s+[A-Z][\w.+#-]*)*$", text)
            if not tail:
                return None
            text = tail[0]
        if words[0] in ("our", "my"):
            text = text.split(None, 1)[1] if len(words) > 1 else text
        text = _strip_det(text)
        parts = text.split()
        if (
            len(parts) > 1
            and re.fullmatch(_RELATION_NOUNS, parts[0].casefold())
            and (parts[-1][:1].isupper())
        ):
            tail = []  # "sister Ana" → Ana
            for w in reversed(parts):
                if not w[:1].isupper():
                    break
                tail.insert(0, w)
            text = " ".join(tail)
        if not text or len(text.split()) > 5 or not any(ch.isalpha() for ch in text):
            return None
        if text.casefold() in ("there", "here", "everyone", "nobody", "someone", "something"):
            return None
        return text

    def first_person(self, speaker: str | None) -> str:
        """Who "I"/"we" means in a turn: the speaker, else the owner."""
        if speaker and speaker.casefold() not in _SELF_SPEAKERS:
            return speaker
        return self.owner

    def note_subject(self, claim: Claim) -> None:
        """Remember a claim's subject for later pronouns."""
        s = claim.subject
        people = claim.predicate in (
            "team_lead",
            "team lead",
            "owner",
            "reports_to",
            "manager",
            "lead",
            "married_to",
        )
        if (
            people
            and claim.object
            and claim.polarity
            and (s == self.owner or s[:1].islower() or claim.predicate in ("team_lead", "owner"))
        ):
            self.last_person = claim.object  # "Our team lead is Bilal, and he ..."
        if s == self.owner:
            return
        person_rel = claim.predicate in ("works_at", "lives_in", "role", "reports_to", "married_to")
        if person_rel or (
            s[:1].isupper()
            and lexicon.category(s) is None
            and len(s.split()) <= 3
            and not s.isupper()
        ):
            self.last_person = s
        self.last_thing = s

    # -- objects ---------------------------------------------------------------------------

    @staticmethod
    def value(raw: str | None, *, keep_prepositions: bool = False) -> str | None:
        """Clean an object phrase: cut at clause words, drop determiners and trailing adverbs."""
        if raw is None:
            return None
        text = raw.strip(" ,;:-—–\"'")
        if not keep_prepositions:
            text = _OBJECT_STOP.sub("", text)
        else:
            text = re.sub(r"\s*[,;].*$|\s+\(.*$", "", text)
        for _ in range(3):
            text = _TRAIL_OBJECT.sub("", text).strip(" ,.")
        text = re.sub(
            r"(?i)^(?:actually|now|still|currently|really|officially|also|just)\s+", "", text
        )
        text = _strip_det(text)
        text = re.sub(r"^(?:our|my|the)\s+", "", text, flags=re.IGNORECASE).strip(" .")
        text = re.sub(
            r"(?i)^(?:[\w-]+\s+){1,2}(?:called|named)\s+", "", text
        )  # "a startup called X"
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
        ):
            return None
        return text

    # -- sentences --------------------------------------------------------------------------

    def read(self, sentence: str, speaker: str | None = None) -> list[Claim]:
        """Return the claims of one sentence (``[]`` for questions, plans, history ...)."""
        if len(sentence) > MAX_SENTENCE:
            return []  # a log dump or a pasted file, not a statement
        text, said_by, correction = clean(sentence, speaker_known=speaker is not None)
        speaker = said_by or speaker
        self.agent_speaking = bool(speaker) and str(speaker).casefold() in _AGENT_SPEAKERS
        m = _REPORTED.match(text)
        if m:  # "Olu said he prefers ...": what Olu says
            who = m.group("who")
            if who.casefold() not in _PERSON_PRONOUNS:
                self.last_person = who
            text = text[m.end() :]
        retract = _RETRACT.match(text)
        if retract:  # "Disregard what I said about the wiki being hosted on Confluence"
            text = re.sub(r"(?i)\bbeing\b", "is", retract.group("rest"))
        else:
            retract = _NOT_TRUE.match(text)  # "It is not true that Sota works at Mercari"
            if retract:
                text = retract.group("rest")
        # "update my email, it's x@y.z now": my email is now x@y.z
        text = re.sub(
            r"(?i)^(?:please\s+)?(?:update|change)\s+(my|our)\s+([\w -]+?),\s*(?:it|that)\s+is\s+",
            r"\1 \2 is now ",
            text,
        )
        # "Declan, who used to manage Siobhan, left Intercom": the relative clause is aside
        text = re.sub(r",\s+(?:who|which|whose|whom)\b[^,]*,\s*", " ", text)
        text = re.sub(r"(?i)(?<!so )(?<!as )\b(?:does|do|did)\s+(?!not\b)(?=[a-z]+\b)", "", text)
        topic = re.match(r"^(?P<topic>[^:]{2,40}?):\s+(?=\S)", text)
        slot_after_new = (
            re.search(r"(?i)\bnew\s+([\w -]+?)(?:\s+as of\s+\w+)?\s*$", topic.group("topic"))
            if topic
            else None
        )
        if (
            topic
            and not re.search(r"(?i)\b(?:is|are|was|uses?|runs?)\b", topic.group("topic"))
            and not (
                slot_after_new
                and (
                    slot_after_new.group(1).casefold() in lexicon.SLOT_PREDICATES
                    or re.search(
                        r"(?i)(?:manager|lead|owner|provider|contact|email|address|number|phone)$",
                        slot_after_new.group(1),
                    )
                )
            )
        ):
            # "Catching up with Priyanka: she left Stripe", "Research log: the baseline is X"
            self._names(topic.group("topic"))
            text = text[topic.end() :]
        if not text or sentence_skipped(text) is not None:
            self._names(text)
            return []
        text = re.sub(
            r"(?i)^(?:after|following|since|given|with|per)\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?"
            r",?\s+(?=(?:the|our|my|their|its)\s)",
            "",
            text,
        )  # "after the ablations the ..."
        # Lower-case chat ("fyi the staging db is on postgres 13") has no capitals to go by.
        self.chat = text == text.casefold()
        whole = " ".join(sentence.split())
        sentence_dates = self._dates(text)
        also = bool(re.search(r"\b(?:also|too|as well|additionally|in addition)\b", text, re.I))
        now = bool(re.search(r"\b(?:now|instead|these days|nowadays)\b", text, re.I))
        text = re.sub(r"\b(?:also|additionally|in addition)\b\s*", "", text, flags=re.I)
        text, ended_by = _split_correction(text)
        out: list[Claim] = []
        subject: str | None = None
        waiting: list[str] = []  # "Alice and Bob both work at Acme": subjects before the verb
        for dated in _clauses(text):
            vf, vt = self._dates(dated)
            if vf is None and vt is None:
                vf = sentence_dates[0]  # "Alice moved to Berlin and joined Globex in March"
            clause = self._undate(dated)
            if not clause:
                continue
            if skipped(clause) is not None:  # "..., not sure where he landed"
                self._names(clause)
                continue
            self.clause_ends = vt is not None
            found = self._clause_claims(clause, subject, speaker, out)
            if found is None and _bare_name(clause) and not out:
                waiting.append(clause)
                continue
            if found:
                subject = self.grammatical or found[0].subject
                if waiting and _PLURAL.match(clause):
                    extra = [self.subject(w, speaker) for w in waiting]
                    found = [replace(c, subject=w) for w in extra if w for c in found] + found
                    waiting = []
            else:
                lead = _LEAD_NAME.match(clause)
                subject = lead.group(1) if lead else subject
                self._names(clause)  # "Fatima got promoted, her role is ...": her is Fatima
                continue
            for c in found:
                c = replace(
                    c,
                    valid_from=c.valid_from or vf,
                    valid_to=c.valid_to if c.valid_to is not None else vt,
                    correction=correction or c.correction,
                    also=also and c.polarity,
                    now=now,
                    polarity=c.polarity and not retract,
                    sentence=whole,
                )
                if (
                    c.valid_to is not None
                    and c.valid_from is not None
                    and c.valid_to <= c.valid_from
                ):
                    c = replace(c, valid_to=None)
                out.append(c)
                self.note_subject(c)
        out.extend(self._appositions(text, speaker, sentence_dates, whole))
        if not out:
            out = self._parsed(text, speaker, sentence_dates, whole)
            for i, c in enumerate(out):
                out[i] = replace(
                    c,
                    correction=correction,
                    also=also and c.polarity,
                    now=now,
                    polarity=c.polarity and not retract,
                )
        if not out:
            self._names(text)
        if ended_by and out:
            first = out[0]
            out.append(replace(first, object=ended_by, polarity=False, replaces=None, change=False))
        return out

    def _parsed(
        self,
        text: str,
        speaker: str | None,
        dates: tuple[dt.datetime | None, dt.datetime | None],
        whole: str,
    ) -> list[Claim]:
        """The claims of a sentence the rules did not read, from its parse (if it has one)."""
        from graphmem.text.parse import to_claims

        key = self._undate(text)
        if len(key.split()) < 2 or not any(ch.isalpha() for ch in key):
            return []
        if self.parsed is None:
            self.unread.append(key)
            return []
        opens = self.parsed.get(key)
        return to_claims(self, opens, speaker, whole, *dates) if opens else []

    def _clause_claims(
        self, clause: str, subject: str | None, speaker: str | None, before: list[Claim]
    ) -> list[Claim] | None:
        self.grammatical = None
        m = _SO_DOES.match(clause)
        if m and before:  # "dana reports to omar and so does luis"
            who = self.subject(m.group("s"), speaker)
            return [replace(before[-1], subject=who)] if who else []
        found = self._clause(clause, subject, speaker)
        if not found and subject and _VERB_FIRST.match(clause):
            # "Quinn is back and is the team lead again": the clause's subject is Quinn
            who = "we" if subject == self.owner else subject
            glue = " is " if _PARTICIPLE.match(clause) else " "
            found = self._clause(f"{who}{glue}{clause}", subject, speaker)
        if found is None:
            last = before[-1] if before else None
            if (
                last
                and last.object
                and last.predicate in _MULTI
                and _list_item(clause)
                and (
                    self.chat
                    or is_name_like(clause)
                    or _tool_word(clause)
                    or last.object == last.object.casefold()
                )  # "tennis and running"
            ):
                item = self.value(clause)  # "we use Redis and Postgres": one more value
                if item:
                    return [replace(last, object=item)]
        return found

    def _appositions(
        self,
        text: str,
        speaker: str | None,
        dates: tuple[dt.datetime | None, dt.datetime | None],
        whole: str,
    ) -> list[Claim]:
        """Appositions: "My manager Wei lives in Singapore" says Wei is my manager too."""
        out = []
        for m in _APPOSITION.finditer(text):
            owner = (
                self.first_person(speaker) if m.group("own").casefold() in ("my", "our") else None
            )
            if owner is None or not m.group("name")[:1].isupper():
                continue
            out.append(
                Claim(
                    owner,
                    m.group("rel").casefold(),
                    m.group("name"),
                    valid_from=dates[0],
                    sentence=whole,
                )
            )
        return out

    def _names(self, text: str) -> None:
        """A sentence without claims may still name the person "she" will refer to."""
        names = [
            (m.start(), m.group(0))
            for m in re.finditer(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b", text)
            if m.group(0).split()[0].casefold() not in _NOT_NAMES
            and lexicon.category(m.group(0)) is None
            # "a postcard from Porto": a place, not who "she" is
            and not re.search(r"(?i)\b(?:from|in|at|to|into|near|via|of)\s*$", text[: m.start()])
        ]
        names = [
            (
                at,
                n.split(None, 1)[1]
                if at == 0
                and " " in n
                and re.match(
                    r"(?:Met|Saw|Called|Caught|Talked|Spoke|Asked|Told|Pinged|Messaged|Emailed|"
                    r"Visited|Thanked|Interviewed|Hired)\b|\w+ed\b",
                    n,
                )
                else n,
            )
            for at, n in names
        ]
        later = [n for at, n in names if at > 0]
        if later or names:
            self.last_person = (later or [names[0][1]])[-1]

    def _dates(self, text: str) -> tuple[dt.datetime | None, dt.datetime | None]:
        vf: dt.datetime | None = None
        vt: dt.datetime | None = None
        for when, role, _ in find_dates(text, self.at):
            if role == "end":
                vt = vt or when
            elif vf is None:
                vf = when
        return vf, vt

    def _undate(self, text: str) -> str:
        spans = [span for _, _, span in find_dates(text, self.at)]
        for start, end in reversed(spans):
            text = text[:start] + " " + text[end:]
        return " ".join(text.split()).strip(" ,")

    def _clause(self, clause: str, previous: str | None, speaker: str | None) -> list[Claim] | None:
        """Claims of one clause; ``None`` when it has no verb we know (maybe a list item)."""
        positive, negated = denegate(clause)
        for rule in _RULES:
            self.pronoun = False
            result = rule(self, positive, negated, previous, speaker)
            if result is not None:
                if self.pronoun:
                    # "he left the company" after two people: ending whatever "he" had is a
                    # guess about who "he" is; a named value still has to match a fact
                    result = [c for c in result if c.polarity or c.object is not None]
                return result
        return None


def _split_correction(text: str) -> tuple[str, str | None]:
    """Split "Alice works at Globex, not Acme" into the assertion and the value it ends."""
    m = re.search(r",?\s+(?:and\s+)?not\s+(?P<old>[^,;]+?)\s*$", text, re.IGNORECASE)
    if m and not re.search(r"\b(?:is|are|does|do)\s*$", text[: m.start()], re.I):
        old = Reader.value(m.group("old"))
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
_RELATION_NOUNS = (
    "manager|boss|sister|brother|wife|husband|partner|cousin|mom|dad|mother|father|son|"
    "daughter|friend|colleague|coworker|co-worker|teammate|neighbor|neighbour|client|customer|"
    "mentor|lead|report"
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
    september october november december today yesterday""".split()  # noqa: SIM905
)
_VERB_FIRST = re.compile(
    r"(?i)^(?:is|are|was|has|have|joined|left|moved|works|lives|uses|leads|owns|reports|"
    r"prefers|likes|switched|migrated|runs|became|started|quit|stopped|no longer|now|still|"
    r"hosted|built|written|deployed|owned|led|powered|maintained|managed|based|located|"
    r"implemented|headed|listens|deploys|loves|enjoys|relies|depends)\b"
)


def _list_item(clause: str) -> bool:
    words = (Reader.value(clause) or "").split()
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
    r"\s*(?:;|,?\s+(?:and then|and|but|then|while|whereas|so|now that)\s+|"
    r",\s+(?!(?:from|to|onto|into|in|on|at|with|for|since|until|as)\b))\s*",
    re.IGNORECASE,
)


def _clauses(text: str) -> list[str]:
    return [c for c in _CLAUSE_SPLIT.split(text) if c.strip()]


# -- rules ----------------------------------------------------------------------------------

Rule = Callable[["Reader", str, bool, "str | None", "str | None"], "list[Claim] | None"]
_RULES: list[Rule] = []
_MULTI = frozenset({"uses", "likes", "member_of", "knows", "depends_on", "works_on", "owns"})


def _rule(fn: Rule) -> Rule:
    _RULES.append(fn)
    return fn


def _subj(r: Reader, raw: str | None, previous: str | None, speaker: str | None) -> str | None:
    if raw is None or not raw.strip() or raw.strip().casefold() in ("and", "but", "then"):
        # "bumped the staging db to postgres 16": chat without a subject is the speaker's own
        found = previous or (
            r.first_person(speaker) if raw is not None and not raw.strip() else None
        )
    else:
        found = r.subject(raw, speaker)
    r.grammatical = found
    return found


_S = r"^(?P<s>.*?)\s*\b"
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
    if (
        verb in ("moved", "relocated")
        and subject
        and (
            subject in (r.owner, r.last_person)
            or (all(w[:1].isupper() for w in subject.split()) and lexicon.category(subject) is None)
        )
        and lexicon.category(new) is None
        and (is_name_like(new) or r.chat)
    ):
        return "lives_in"
    if verb in ("upgraded", "bumped") and lexicon.category(new) in ("version", "number"):
        return "version"
    return _HINTS.get(verb)


_AGENT_SPEAKERS = frozenset({"assistant", "ai", "bot", "agent"})


def _thing(r: Reader, raw: str | None) -> tuple[str | None, str | None]:
    """A changed thing: ``(entity, None)`` or ``(None, slot)`` for "our embeddings provider"."""
    if raw is None or not raw.strip():
        return None, None
    text = re.sub(r"^[a-z]+ing\s+(?=(?:the|our|my|its)\b|[A-Z])", "", raw.strip().strip(","))
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


@_rule
def _replaced(
    r: Reader, c: str, neg: bool, prev: str | None, spk: str | None
) -> list[Claim] | None:
    pats = [
        (
            r"^(?P<a>.+?)\s+(?:was|has been|got|is|were|have been)\s+"
            r"(?:replaced|superseded|swapped out)"
            r"\s+(?:by|with|for)\s+(?P<b>.+?)(?:\s+(?:for|in|on)\s+(?P<t>.+))?$",
            True,
        ),
        (
            _S
            + r"(?:replaced|have replaced|has replaced|swapped out|swapped|substituted|traded)\s+"
            r"(?P<a>.+?)\s+(?:out\s+)?(?:with|for|by)\s+(?P<b>.+?)(?:\s+(?:for|in|on)\s+(?P<t>.+))?$",
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


@_rule
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
        _S + r"(?:handed|handed over|passed|gave)\s+(?P<t>.+?)\s+(?:over\s+)?to\s+(?P<b>.+)$",
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


@_rule
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
    m = passive or active
    if m is None or neg:
        return None
    gd = m.groupdict()
    verb = gd["v"]
    if m is active and re.match(r"(?i)^(?:to|from)\b", (gd.get("t") or "")):
        return None
    new = _bare_value(r.value(gd["b"]))
    if not new or not (is_name_like(new) or r.chat or _tool_word(new)):
        return []  # "switched to a local fiber company": a description, not a value
    old = _bare_value(r.value(gd.get("a"))) if gd.get("a") else None
    if m is passive:
        thing, slot = _thing(r, gd["t"])
        subject = thing or r.owner
    else:
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


def _bare_value(value: str | None) -> str | None:
    """Return the value a slot holds: "port 6379" → "6379", "version 2.1" → "2.1"."""
    if value is None:
        return None
    return re.sub(r"(?i)^(?:port|version|v(?=\d))\s*(?=[\d.]+$)", "", value) or value


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
        r"began working at|got hired by|was hired by|got a job at|is hired by|signed with)\s+"
        r"(?P<o>.+)",
        "works_at",
        "sp",
    ),
    (r"(?:is|are) (?:now )?(?:employed|hired)\s+(?:at|by)\s+(?P<o>.+)", "works_at", "sp"),
    (r"(?:is|are)\s+(?:now\s+)?at\s+(?P<o>[A-Z][\w.&' -]*)$", "works_at", "person"),
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
        r"(?:owns|own|maintains|maintain|is responsible for|are responsible for|is in charge of)\s+"
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
        r"(?:prefers|prefer|preferred|favors|favours)\s+(?P<o>.+?)(?:\s+(?:over|to)\s+.+)?$",
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
    (r"(?:is|are)\s+(?:now\s+)?(?:on|at)\s+(?:version|v)\s?(?P<o>[\w.]+)", "version", "sp"),
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
_ON_NOT_PLATFORM = re.compile(
    r"(?i)\b(?:team|squad|call|leave|vacation|holiday|board|committee|track|schedule|hold|"
    r"fire|time|duty|rotation|break|site|record|it|board|list|top|way|phone|line|mute|pto)$"
)


@_rule
def _verbs(r: Reader, c: str, neg: bool, prev: str | None, spk: str | None) -> list[Claim] | None:
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
        if direction == "past" and (neg or not r.clause_ends):
            return []  # "Alice worked at Acme": true once, but until when?
        if obj is None:
            return [Claim(subject, pred, None, polarity=False)] if neg else []
        if pred in ("works_at", "lives_in", "married_to", "located_in") and not (
            is_name_like(obj) or r.chat
        ):
            return []  # "joined the call", "lives in fear"
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


def _tool_word(value: str) -> bool:
    """Whether a value is a tool's name ("npm", "cron"): one word, not an English inflection."""
    return (
        " " not in value
        and len(value) >= 2
        and not re.search(r"(?:ed|ing|ly|ness|tion)$", value)
        and value.casefold() not in _NOT_TOOLS
    )


_NOT_TOOLS = frozenset(
    """it them this that these those everything something anything nothing time money
    tabs spaces less more much many some all both less fewer most""".split()  # noqa: SIM905
)


def _person_like(r: Reader, subject: str, raw: str) -> bool:
    low = raw.strip().casefold().split()
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
        item = Reader.value(part)
        if item:
            yield item


@_rule
def _negative_verbs(
    r: Reader, c: str, neg: bool, prev: str | None, spk: str | None
) -> list[Claim] | None:
    m = re.match(_S + r"(?:left|quit)\s+for\s+(?P<b>.+)$", c, re.IGNORECASE)
    if m and not neg:  # "Zainab left for Canva"
        subject, new = _subj(r, m.group("s"), prev, spk), r.value(m.group("b"))
        if subject and new and is_name_like(new):
            return [Claim(subject, None, new, change=True, hint="works_at")]
    m = re.match(
        _S + r"(?:left|has left|have left|quit|resigned from|was laid off from|"
        r"was fired from|departed|exited)\s+(?P<o>.+?)(?:\s+for\s+(?P<b>.+))?$",
        c,
        re.IGNORECASE,
    )
    if m and not neg:
        subject, obj = _subj(r, m.group("s"), prev, spk), r.value(m.group("o"))
        if not subject or not obj or obj.casefold() in ("company", "the company", "job", "team"):
            return [Claim(subject, "works_at", None, polarity=False)] if subject else []
        if not is_name_like(obj) and not r.chat:
            return []
        new = r.value(m.group("b")) if m.group("b") else None
        if new and is_name_like(new):  # "Eoin left Dublin for Galway"
            return [Claim(subject, None, new, replaces=obj, change=True)]
        # "left Acme", "left Dublin", "left the platform team": whatever holds that value
        return [Claim(subject, None, obj, polarity=False, hint="works_at")]
    m = re.match(
        _S + r"(?:stepped down|resigned|retired|was removed|stepped away)\s+(?:as|from)\s+"
        r"(?:the\s+|our\s+|their\s+)?(?P<o>.+)$",
        c,
        re.IGNORECASE,
    )
    if m and not neg:  # "Beatrix stepped down as chair of the board"
        subject, obj = (
            _subj(r, m.group("s"), prev, spk),
            r.value(m.group("o"), keep_prepositions=True),
        )
        if subject and obj and _is_role(obj, loose=True):
            return [Claim(subject, "role", obj, polarity=False)]
        return [Claim(subject, None, obj, polarity=False)] if subject and obj else []
    m = re.match(
        r"^(?P<t>.+?)\s+(?:has|have)\s+no\s+(?P<z>[\w -]+?)"
        r"(?:\s+(?:for now|yet|anymore|at the moment|"
        r"right now))?$",
        c,
        re.IGNORECASE,
    )
    if m and not neg:  # "the payments team has no lead for now"
        thing = r.subject(m.group("t"), spk)
        if thing and len(m.group("z").split()) <= 3:
            return [Claim(thing, m.group("z"), None, polarity=False)]
    m = re.match(_S + r"(?:moved out of|moved away from)\s+(?P<o>.+)$", c, re.IGNORECASE)
    if m and not neg:
        subject, obj = _subj(r, m.group("s"), prev, spk), r.value(m.group("o"))
        return [Claim(subject, "lives_in", obj, polarity=False)] if subject and obj else []
    m = re.match(
        _S + r"(?:dropped|got rid of|retired|deprecated|sunset|sunsetted|decommissioned|"
        r"ditched|abandoned|removed|turned off|shut down|phased out|killed)\s+(?P<o>.+)$",
        c,
        re.IGNORECASE,
    )
    if m and not neg:
        subject, obj = _subj(r, m.group("s"), prev, spk), r.value(m.group("o"))
        return [Claim(subject, None, obj, polarity=False)] if subject and obj else []
    return None


_ROLE_RE = re.compile(
    _S + r"(?:is|became|has become|was promoted to|got promoted to|works as|was named|"
    r"was appointed|was hired as|is now|joined as|started as|am|are)\s+(?:now\s+)?"
    r"(?P<art>the\s+|a\s+|an\s+|our\s+|their\s+)?(?P<new>new\s+)?(?P<o>.+?)"
    r"(?:\s+(?P<prep>at|of|for|in)\s+(?P<org>[\w&.' -]*))?$",
    re.IGNORECASE,
)


def _is_role(text: str, *, loose: bool = False) -> bool:
    """A job title: "CTO", "release manager", "head of design", "chair of the board".

    ``loose`` (after "as a"): any word ending like a job ("geologist", "technician").
    """
    words = [w for w in re.split(r"[\s/]+", text.casefold()) if w]
    if not words or len(words) > 5:
        return False
    if any(
        w in ("a", "an") or (w.endswith("ing") and w not in lexicon.ROLE_MODIFIERS) for w in words
    ):
        return False  # "hiring a CTO" is no title
    if "of" in words:  # "head of design", "VP of Sales", "chair of the board"
        head = words[: words.index("of")]
        return bool(head) and head[-1] in lexicon.ROLES | {"chair", "dean", "vp"}
    if words[0] in ("vp", "head", "director", "chief") and len(words) > 1:
        return True
    if words[-1] in lexicon.ROLES and len(words) <= 3:
        return True
    return (
        loose
        and len(words) <= 3
        and bool(re.search(r"(?:ist|er|or|ian|ant|ent|ect|eer|ive)$", words[-1]))
    )


@_rule
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


@_rule
def _copular(r: Reader, c: str, neg: bool, prev: str | None, spk: str | None) -> list[Claim] | None:
    # "the new Z is B" / "our Z is B" / "X's Z is B" / "the Z of T is B" / "Z is now B"
    m = re.match(
        r"^(?:(?P<own>our|my|their|the|his|her|its)\s+|(?P<poss>[\w .&-]+?)'s?\s+)"
        r"(?P<new>new\s+)?(?P<z>[\w -]+?)(?:\s+of\s+(?P<t>[\w .&-]+?))?\s+"
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
        article = (m.group("art") or "").strip().casefold()
        lead = value.casefold().endswith("lead") and article in ("a", "an", "")
        if not possessive and (_is_role(value) or (lead and len(value.split()) <= 3)):
            subject = _subj(r, subject_raw, prev, spk)
            if not subject:
                return []
            out = [Claim(subject, "role", r.value(value) or value, polarity=not neg)]
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
    if m:
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
    if owner_name:
        subject = r.subject(owner_name, speaker)
    elif own_low in ("our", "my"):
        subject = r.first_person(speaker)
    elif own_low in ("his", "her", "their"):
        subject = r.last_person
    elif own_low == "its":
        subject = r.last_thing
    else:
        subject = r.owner  # "the team lead is Bob": ours
    obj = r.value(value, keep_prepositions=True)
    if subject is None or obj is None:
        return []
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
    if not (is_name_like(obj) or chat or own_low in ("our", "my") or owner_name):
        return []
    if obj.casefold().startswith(("a ", "an ", "very ", "so ", "too ", "not ", "quite ", "being ")):
        return []
    return [Claim(subject, slot, obj, polarity=not neg, change=change)]


def read_sentence(
    sentence: str, *, at: dt.datetime | None = None, owner: str = OWNER
) -> list[Claim]:
    """Return the claims of one sentence read on its own (no pronoun context).

    Args:
        sentence: one sentence.
        at: the time it speaks from (default now).
        owner: the subject of first-person statements.
    """
    reader = Reader(at=at or dt.datetime.now(dt.timezone.utc), owner=owner)
    return reader.read(sentence)
