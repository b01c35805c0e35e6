"""The reader: the sentences of one text in order, with who "he", "she" and "it" are.

:class:`Reader` keeps the state between sentences (the last person and thing named, whether the
text is lower-case chat, who is speaking), reads a sentence's dates, splits it into clauses and
tries the rules of :mod:`graphmem.text.rules` on each clause, in their order.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
from dataclasses import dataclass, field, replace
from typing import Any

from graphmem.ontology import Ontology
from graphmem.text import lexicon, logforms, names
from graphmem.text.claims import OWNER, Claim, as_plan
from graphmem.text.clauses import (
    _APPOSITION,
    _KEY_VALUE,
    _LEAD_NAME,
    _NOT_NAMES,
    _NOT_TRUE,
    _PARTICIPLE,
    _PLURAL,
    _RETRACT,
    _SO_DOES,
    _VERB_FIRST,
    _bare_name,
    _clauses,
    _is_key,
    _is_value,
    _list_item,
    _split_correction,
    unlabelled,
)
from graphmem.text.cleanup import clean, denegate
from graphmem.text.dates import find_dates
from graphmem.text.logforms import commit_statement, record_field, unclip
from graphmem.text.modality import DOCUMENT_SAYS, sentence_skipped, skipped
from graphmem.text.names import (
    _FIRST_PERSON,
    _LEAD_ADVERBS,
    _PERSON_PRONOUNS,
    _RELATION_NOUNS,
    _THING_PRONOUNS,
    _strip_det,
    is_name_like,
)
from graphmem.text.parse_claims import better_move, names_key
from graphmem.text.rules import RULES
from graphmem.text.rules.common import _MULTI, _tool_word
from graphmem.text.rules.events import booked_date, date_is_value, date_value

__all__ = ["MAX_SENTENCE", "Reader"]

_SELF_SPEAKERS = lexicon.SELF_SPEAKERS
_AGENT_SPEAKERS = frozenset({"assistant", "ai", "bot", "agent"})
#: Sentences longer than this many characters are not read for claims.
MAX_SENTENCE = 2000


_REPORTED = re.compile(
    r"^(?P<who>[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*)?|he|she|they)\s+(?:said|says|mentioned|told me|"
    r"told us|confirmed|wrote|tells me|tells us|let us know|let me know|announced)\s+(?:that\s+)?",
    re.IGNORECASE,
)


# -- the reader -----------------------------------------------------------------------------


_PLURAL_FIRST = frozenset({"we", "our", "us", "ours", "ourselves"})
#: A clock time or a range between numbers ("9:00–17:00") is a value, not a label or a dash.
_GARBLED = re.compile(
    r"[;|]|(?<!\d)[—–:]|[—–:](?!\d)|\s-\s|^(?:for|to|from|with|by|of|in|on|at|into|onto)\s",
    re.IGNORECASE,
)


#: A change given a start date: "starting 1 May", "from July 1", "effective Monday", "as of Q3".
_SCHEDULED = re.compile(
    r"(?i)\b(?:starting|effective|beginning|as of|from)\s+(?:on\s+)?"
    r"(?:\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?[a-z]{3,9}|[a-z]{3,9}\.?\s+\d{1,2}(?:st|nd|rd|th)?|"
    r"\d{4}-\d{2}-\d{2}|q[1-4]|next\s+\w+|monday|tuesday|wednesday|thursday|friday|"
    r"january|february|march|april|may|june|july|august|september|october|november|december)\b"
)
_WILL = re.compile(r"(?i)\b(?:will|'ll|is going to|are going to)\s+(be\s+)?")
#: Headers that say what follows did not happen ("Idea:", "Proposal:", "Rumour:").
_UNREAL_TOPIC = re.compile(
    r"(?i)\b(?:ideas?|proposals?|proposed|drafts?|brainstorm\w*|jokes?|rumou?rs?|wishlist|"
    r"hypothetical|options?|alternatives?|candidates?|questions?|open questions?|todo|to do|"
    r"(?:the |our |my )?plans?|next steps?|roadmap)\b"
)
#: A header that announces what follows ("heads up for future planning:", "for the record:"):
#: a cue word in it ("planning") makes no plan of what follows
#: (docs/concepts/text.md#log-formats).
_ANNOUNCED = re.compile(r"(?i)^(?:heads[- ]up|fyi|psa|reminder|update|note|for)\b")

#: The verbs of a change, as the parse reads them (graphmem.text.parse_words.CHANGE_VERBS).
_CHANGE_WORD = re.compile(
    r"(?i)\b(?:mov|migrat|switch|swap|replac|upgrad|downgrad|bump|port|rewr|transition|shift|"
    r"convert)\w*\b|\bwent from\b"
)


#: A header naming a thing's finished change: "inventory service upgrade done".
_TOPIC_THING = re.compile(
    r"(?i)^(?:the\s+)?(?P<thing>[a-z][\w-]*(?:\s+[\w-]+){0,2}?)\s+"
    r"(?:upgrade|migration|update|rollout|move|cutover|switch)"
    r"(?:\s+(?:is\s+)?(?:done|complete|completed|finished|shipped|live))?$"
)
#: Slots whose value is a person "he" or "she" may refer to next ("my partner is Dana, she ...").
_PEOPLE_SLOTS = frozenset(
    """team_lead team lead owner reports_to manager lead married_to partner wife husband
    boyfriend girlfriend spouse sister brother daughter son mother father mom dad mum
    friend roommate boss""".split()  # noqa: SIM905
)
_THEY = frozenset(["they", "their", "them"])
#: "the user" opening a statement: the owner, as "User" is.
_THE_USER = re.compile(r"(?i)(?:^|(?<=[:;]\s))the user\b(?=\s|'s\b)")
#: A sentence that joins clauses: the rule forms may read one of them only.
_JOINED = re.compile(r"\s(?:and|but|while|then)\s|;|,\s", re.IGNORECASE)


#: A person's leaving: "priya left stripe", "kwame quit".
_PERSON_LEFT = r"(?:has\s+|just\s+)?(?:left|quit|resigned from)\s+(?!the\b)\w"


#: A thing named with "the" (or a name) and a relative clause after it that says a fact of it.
_WHICH = re.compile(
    r"(?P<np>\b(?:the|our|my|its|their)\s+(?P<thing>[\w.-]+(?:\s+[\w.-]+){0,3}?)|"
    r"\b(?P<name>[A-Z][\w.-]*(?:\s+[A-Z][\w.-]*){0,2})),\s+which\s+(?=(?:is|are|was|were|"
    r"has|have|[a-z]+s)\b)"
)


#: "our support tickets are handled by Zendesk" read as the value "handled by Zendesk".
_PARTICIPLE_VALUE = re.compile(
    r"(?i)^(?:\w+ed|\w+en|run|kept|built|sent|done|made|held|set|put|paid|sold|led)\s+"
    r"(?:by|in|on|with|through|via|at|to|from|into|onto|under|behind)\s"
)
_BY_THE_WAY = re.compile(r"(?i),?\s*\bby the way\b,?")
#: A subject phrase that is no name (docs/concepts/text.md#subjects): one that opens with a
#: pronoun, a question word or an interjection ("Your love for ...", "What a day", "It feels
#: good to ...", "Absolutely, ..."), holds a question word ("amazing how nature") or ends in
#: a word that cannot end a name ("all passionate about", "You captured the").
_NOT_A_NAME = re.compile(
    r"(?i)^(?:your|yours|you|what|which|how|why|whose|me|him|them|us|it|its|their|theirs|i|we|got|"
    r"such|absolutely|definitely|totally|honestly|seriously|literally|exactly|certainly|"
    r"probably|hopefully|luckily|unfortunately|sadly|anyway|bet|yes|yeah|yep|nope|wow|oh|"
    r"ok|okay|sure|hey|hi|hello|thanks|lol|haha|aww|omg|btw)\b"
    r"|\s(?:how|what|why)\s"
    r"|\s(?:the|a|an|to|of|about|for|with|and|or|but|from|by|at|into|than|as)$"
)
#: A subject that holds a verb ("sessions are kept in cookies"): a clause, not a name.
_VERB_IN_NAME = re.compile(r"(?i)\s(?:is|are|was|were|be|been|being|has|have|had)\s")


def _garbled(claim: Claim) -> bool:
    """A rule read that took a label, a dash, a preposition or a passive verb into a name."""
    return (
        any(
            part is not None and (_GARBLED.search(part) is not None or len(part.split()) > 6)
            for part in (claim.subject, claim.object, claim.replaces)
        )
        or bool(claim.object and _PARTICIPLE_VALUE.match(claim.object))
        or bool(_VERB_IN_NAME.search(claim.subject))
    )


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
    #: The text calls the owner "the user": its "they" and "their" are the user.
    user_named: bool = False
    #: The ticket or incident the text's first sentence opens: its fields are the record's.
    record: str | None = None
    opened: bool = False
    #: The thing a notice announced and whose date a later line gives (events.booked_date).
    booked: tuple[str, str, bool, int] | None = None
    #: Open claims of the sentences the rules do not read, by their cleaned text (the second
    #: pass of :class:`graphmem.text.readers.BuiltinReader`); ``None`` in the first pass.
    parsed: dict[str, list[Any]] | None = None
    #: The cleaned sentences the rules did not read (the first pass collects them for a parse).
    unread: list[str] = field(default_factory=list)

    # -- subjects --------------------------------------------------------------------------

    def subject(self, raw: str, speaker: str | None = None) -> str | None:
        """Resolve a subject phrase to a name (or the owner), or ``None`` when unusable."""
        text = re.sub(r"^@(?=[A-Za-z][\w.-]*$)", "", raw.strip(" ,;:-—–\"'"))  # "@omari"
        # "heads up @dana nightly exports go to X": a mention before a subject addresses someone
        text = re.sub(r"^(?:@[\w.-]+[\s,]+)+(?=[A-Za-z])", "", text)
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
            r"recently|just|actually|then|too|even|again|mostly|apparently|both|all|only|"
            r"each))+$",
            "",
            text,
        )
        low = text.casefold()
        if self.record and logforms.names_record(low):  # "the account" in "Opp: Halcyon Foods"
            return self.record
        words = low.split()
        if not words:
            return None
        if low in ("the user", "user", "the user's", "user's"):
            self.user_named = True
            return self.owner  # an agent's note about its user (docs/concepts/text.md#subjects)
        if words[-1] in _THEY and self.user_named:
            return self.owner  # a note about "the user": "they" is the user
        if low in ("we all", "all of us", "the team", "our team") or words[-1] in _PLURAL_FIRST:
            # "we" in a team's log is the team, whoever types it: the owner
            # (docs/concepts/text.md#subjects); "I" is the speaker
            return self.owner
        if words[-1] in _FIRST_PERSON:
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
        if words[0] in ("our", "my", "user's"):  # "User's sister Aiko": Aiko
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
        if text.casefold() in (
            "there",
            "here",
            "everyone",
            "everybody",
            "nobody",
            "someone",
            "something",
            "everything",
            "anything",
            "nothing",
            "all",
        ):
            return None
        if _NOT_A_NAME.search(text):
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
        people = claim.predicate in _PEOPLE_SLOTS
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
        # "priya left stripe": one who left a place is a person (docs/concepts/text.md#subjects)
        person_rel = person_rel or (
            not claim.polarity
            and claim.predicate is None
            and len(s.split()) == 1
            and lexicon.category(s) is None
            and bool(
                re.search(
                    rf"\b{re.escape(s.casefold())}\s+{_PERSON_LEFT}", claim.sentence.casefold()
                )
            )
        )
        if person_rel or (
            s[:1].isupper()
            and lexicon.category(s) is None
            and len(s.split()) <= 3
            and not s.isupper()
        ):
            self.last_person = s
        self.last_thing = s

    # -- objects ---------------------------------------------------------------------------

    value = staticmethod(names.value)

    # -- sentences --------------------------------------------------------------------------

    def read(self, sentence: str, speaker: str | None = None) -> list[Claim]:
        """Return the claims of one sentence (``[]`` for questions, plans, history ...)."""
        if len(sentence) > MAX_SENTENCE:
            return []  # a log dump or a pasted file, not a statement
        if not self.opened:  # "SUP-4412 — ...": a record (docs/concepts/text.md#records)
            line = f"{speaker}: {sentence}" if speaker else sentence  # "Opp: Halcyon Foods"
            self.opened, self.record = True, logforms.record_key(line)
            if self.record and logforms.record_head(line):
                return []  # "Account: Brightline Logistics" names the record, no setting
        known = bool(speaker or (self.record and logforms.record_line(sentence)))  # "Owner: Rui"
        text, said_by, correction = clean(sentence, speaker_known=known)
        # "the coffee machine is fixed, by the way": an aside, not a passive's agent
        text = _BY_THE_WAY.sub("", text)
        speaker = said_by or speaker
        if not said_by and (booked := booked_date(self, text)) is not None:
            return booked  # "Your appointment is booked ✔" ... "Tue, Mar 5 · 10:30 AM"
        moved = logforms.record_change(text) if self.record else None
        if moved and (value := self.value(moved[1])):  # "Reassigned to Mei" in SUP-4412
            return [Claim(self.record or "", moved[0], value, change=True, sentence=sentence)]
        # "The user is a nurse": the user, not a slot "user" (docs/concepts/text.md#subjects)
        text, users = _THE_USER.subn("User", text)
        self.user_named = (
            self.user_named
            or bool(users)
            or text.startswith(("User ", "User's "))
            or bool(correction and re.match(r"(?i)(?:the )?user\b", sentence.lstrip()))
        )  # "User clarified: they ...": they are the user
        stated = commit_statement(text)
        if stated is not None:  # "refactor(search): migrate search to X": what the commit did
            text = stated
        self.agent_speaking = bool(speaker) and str(speaker).casefold() in _AGENT_SPEAKERS
        if DOCUMENT_SAYS.search(text):
            return []  # "the wiki still says we use X": a document's word, maybe stale
        m = _REPORTED.match(text)
        if m:  # "Olu said he prefers ...": what Olu says
            who = m.group("who")
            if who.casefold() not in _PERSON_PRONOUNS:
                self.last_person = self.owner if who.casefold() in ("user", "the user") else who
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
        # "They build the routing engine, which runs on JVM 21": the engine runs on JVM 21
        text = _WHICH.sub(
            lambda m: (
                f"{m.group(0)[: m.end('np') - m.start()]}, and "
                f"{m.group('thing') or m.group('name')} "
            ),
            text,
        )
        plain = text  # what the parser reads: the words as written ("Traefik does ingress")
        text = re.sub(r"(?i)(?<!so )(?<!as )\b(?:does|do|did)\s+(?!not\b)(?=[a-z]+\b)", "", text)
        # "Plan changed from Starter to Pro": "Plan: Starter → Pro"
        text = logforms.audit_change(text, is_key=lambda key: _is_key(key, "→"))
        # "Queue: Kafka (3 brokers)", "Primary Contact: Priya · priya@x.com"
        pair = _KEY_VALUE.match(logforms.first_field(text))
        # "replicas: 4 → 8": now 8; "Champion: Kari Nystrøm, Head of Ops": Kari Nystrøm
        field = logforms.field_value(pair.group("value")) if pair else ""
        said = re.split(r",\s", field)[0]
        key = pair.group("key") if pair else ""
        if is_name_like(said):  # "New champion = Sven": the champion ("new job = new pay": no)
            key = re.sub(r"(?i)^(?:new|current)\s+(?=\w)", "", key)
        sep = pair.group("sep") if pair else ":"
        keyed = bool(key) and (_is_key(key, sep, field) or bool(self.record and record_field(key)))
        # "queue: SQS", "analytics events -> Segment": settings (docs/concepts/text.md#log-formats)
        when = date_value(field, self.at) if keyed and logforms.date_field(key) else None
        said = when or said  # "Move date: Friday, June 14, 2024": the whole date is the value
        if pair and keyed and (when or _is_value(said, sep)) and (value := self.value(said)):
            if logforms.OLD_FIELD.match(key):  # "Old plan: X": whatever held X ends
                return [Claim(self.record or self.owner, None, value, polarity=False)]
            claim = Claim(
                self.record or self.owner,  # "Assignee: Jonas" in SUP-4412
                key.casefold(),
                when or value,
                valid_from=None if when else self._dates(text)[0],
                correction=correction,
                many=bool(logforms.DOCUMENT_ID.match(key.strip())),  # "Order #: 1123"
                sentence=" ".join(sentence.split()),
            )
            return [claim]
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
            done = _TOPIC_THING.match(topic.group("topic"))
            if done:  # "inventory service upgrade done: it's on PostgreSQL 16 now"
                self.last_thing = done.group("thing")
            if _UNREAL_TOPIC.search(topic.group("topic")) or (
                skipped(topic.group("topic")) and not _ANNOUNCED.match(topic.group("topic"))
            ):
                return []  # "April Fools idea: ...", "Proposal: ...": nothing happened
            text = text[topic.end() :]
            plain = re.sub(r"^[^:]{2,40}?:\s+(?=\S)", "", plain, count=1)
        full = unclip(text)  # "job queue backed by RabbitMQ", "default log level is INFO"
        if full != text:
            text = plain = full
        if _SCHEDULED.search(text):
            # "Starting 1 April payroll will be run by Remote": a dated change, not a plan
            # (docs/concepts/text.md#dates); the future start keeps the old value until then
            text = _WILL.sub(lambda m: "is " if m.group(1) else "", text)
        if not text or sentence_skipped(text) is not None:
            self._names(text)
            return []
        text = re.sub(
            r"(?i)^(?:after|following|since|given|with|per)\s+(?!(?:jan|feb|mar|apr|may|jun|jul|aug|"
            r"sep|oct|nov|dec|q[1-4]|mon|tue|wed|thu|fri|sat|sun|last|\d)\w*\b)"
            r"(?:the\s+)?[\w-]+(?:\s+[\w-]+)?"
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
        hedged = False  # a clause was a plan, a hedge or history: the parse reads the others
        plain_clauses: list[str] = []
        for dated in _clauses(text):
            vf, vt = self._dates(dated)
            if vf is None and vt is None:
                vf = sentence_dates[0]  # "Alice moved to Berlin and joined Globex in March"
            clause = self._undate(dated)
            if date_is_value(clause, dated, self.at):
                clause, vf, vt = dated, None, None
            if not clause:
                continue
            if skipped(clause) is not None:  # "..., not sure where he landed"
                self._names(clause)
                hedged = True
                continue
            plain_clauses.append(clause)
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
        changes = [c for c in out if c.change or c.replaces or c.predicate is None]
        if hedged:
            plain = ", ".join(plain_clauses)
        fallback = bool(out) and all(c.fallback for c in out)
        if plain and (
            not out
            or fallback
            or any(_garbled(c) for c in out)
            or _JOINED.search(text)
            or (changes and _CHANGE_WORD.search(text))
        ):
            # the rule forms read nothing, read a clause wrongly, or may have read one clause
            # of several: the parse reads the sentence (docs/concepts/text.md#the-parser)
            parsed = [
                replace(
                    c,
                    correction=correction,
                    also=also and c.polarity,
                    now=now,
                    polarity=c.polarity and not retract,
                )
                for c in self._parsed(plain, speaker, sentence_dates, whole)
            ]
            moves = [c for c in parsed if c.change and c.polarity]
            if not out or fallback or any(_garbled(c) for c in out):
                # a misread is never written: the parse's claims, or none (the sentence stays
                # a line of its session, or a note); a fallback reading only when the parse
                # has none
                out = parsed or [c for c in out if not _garbled(c)]
            elif changes and moves:
                # the parse tells which thing moved to which value better than the change
                # patterns do ("the on-call pager moves to X", where they read "pager";
                # "moved everything in prod to Kubernetes", where they read "prod" as the
                # value): its change claim takes the place of theirs for the same move
                out = [better_move(c, moves, self.owner) for c in out]
            else:  # only what the rules did not read: another thing's values, by name
                said = {names_key(v) for c in out for v in (c.object, c.replaces, c.subject) if v}
                told = {(c.subject, c.predicate) for c in out if c.polarity}
                values = " | ".join(c.object.casefold() for c in out if c.object)
                out.extend(
                    c
                    for c in parsed
                    if c.object
                    and names_key(c.object) not in said
                    and c.object.casefold() not in values  # "Tuesday at 8:30 AM": read
                    and (c.subject, c.predicate) not in told
                    and (
                        is_name_like(c.object)
                        or c.predicate == "role"
                        or lexicon.attribute(c.object) is not None  # "...; user is vegan"
                    )
                )
        told = {(c.subject, c.predicate) for c in out}
        out += [
            c
            for c in self._titled(whole, sentence_dates[0])
            if (c.subject, c.predicate) not in told
        ]
        if not out:
            self._names(text)
        if ended_by and out:
            first = out[0]
            out.append(replace(first, object=ended_by, polarity=False, replaces=None, change=False))
        # "affected version is 3.7.4" in a comment on a ticket: the ticket's
        if self.record and not lexicon.FIRST_PERSON.search(whole):
            out = [
                replace(c, subject=self.record)
                if c.subject == self.owner and c.predicate and logforms.names_field(c.predicate)
                else c
                for c in out
            ]
        # "they're still on Samsara" with "they" taken for Samsara: no thing is its own value
        return _together([c for c in out if names_key(c.object or "") != names_key(c.subject)])

    def _parsed(
        self,
        text: str,
        speaker: str | None,
        dates: tuple[dt.datetime | None, dt.datetime | None],
        whole: str,
    ) -> list[Claim]:
        """The claims of a sentence the rules did not read, from its parse (if it has one)."""
        from graphmem.text.parse_claims import to_claims

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

    def _titled(self, whole: str, at: dt.datetime | None) -> list[Claim]:
        """People named with a title: "Derek Lyle, Head of Fleet" (docs/concepts/text.md#titles)."""
        out = []
        for name, title, org in names.titled(whole):  # "Hannah Okafor (VP Ops, Brightline)"
            out.append(Claim(name, "role", title, valid_from=at, sentence=whole))
            if org:
                out.append(Claim(name, "works_at", org, valid_from=at, sentence=whole))
            self.last_person = name
        return out

    def _names(self, text: str) -> None:
        """A sentence without claims may still name the person "she" will refer to."""
        names = [
            (m.start(), m.group(0))
            for m in re.finditer(r"\b[A-Z][a-zß-ÿ]+(?:\s+[A-Z][a-zß-ÿ]+)*\b", text)
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
        clause = re.sub(r"(?<=\w)['’]s\s+(?=been\b)", " has ", clause)  # "everyone's been"
        positive, negated = denegate(unlabelled(clause) or clause)
        for rule in RULES:
            self.pronoun = False
            result = rule(self, positive, negated, previous, speaker)
            if result is not None:
                if self.pronoun:
                    # "he left the company" after two people: ending whatever "he" had is a
                    # guess about who "he" is; a named value still has to match a fact
                    result = [c for c in result if c.polarity or c.object is not None]
                return [as_plan(c) for c in result]
        return None


@functools.cache
def _default_ontology() -> Ontology:
    """The bundled ontology, loaded the first time a sentence needs it (not at import)."""
    return Ontology.default()


def _together(claims: list[Claim]) -> list[Claim]:
    """One sentence's values of one slot hold together.

    "built on FastAPI and runs on Uvicorn" keeps both: a later one is an addition
    (docs/concepts/text.md#open-relations).
    """
    seen: set[tuple[str, str | None]] = set()
    out = []
    for c in claims:
        known = _default_ontology().lookup(c.predicate) if c.predicate else None
        key = (c.subject, known.name if known else c.predicate)
        plain = c.polarity and not (c.change or c.replaces or c.correction)
        if plain and key in seen and c.predicate is not None:
            c = replace(c, together=True)
        if plain:
            seen.add(key)
        out.append(c)
    return out
