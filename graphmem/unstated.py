"""Lines that ask, plan, suppose, judge or pass on a change: shown, but not as a change.

"did we switch staging to Postgres 16 already?", "might try Espoma next year", "if eu-west-1
goes down we would promote eu-central-1", "Arch would probably be nicer", "the onboarding
readme still says Gusto": the reader writes nothing from such a sentence
(docs/concepts/text.md#what-never-changes-a-fact), yet recall shows the line, and a line
naming a value reads as if it held. So an unmarked line shown in a context block gets a mark
that says how the change in it was said: ``(was asked, not a change)``, ``(was a plan, not a
change)``, ``(was an if, not a change)``, ``(was an opinion, not a change)``, ``(was
reported, not a change)`` (docs/concepts/recall.md#not-stated).

A piece (a sentence, or a line's part after a bullet, a stamp or a speaker) is read as one of
those when it names a value (a capitalised word inside it, a figure, an identifier, a quoted
word) and

- asks about a change: it ends with ``?`` or starts "did", "is", "should", ..., with a **word
  of change or choice** ("switch", "move", "use", "still", "now", "go with", "nicer",
  "pushed", ...); or it passes a question on ("asked / asking ... whether / if");
- supposes one: it starts "if", "only if", "unless", "in case", "should that", "contingency";
- plans or judges one: a plan or opinion word ("might", "would", "planning to", "I think",
  "imo") at most five words before the word of change (or, for an opinion, "be" / "do"); a
  change after a proposal's label or in a draft ("draft PR", "WIP"), any value after
  "Proposed:";
- only weighs a thing: "thinking about", "considering", "evaluate", the value within five words;
- passes one on: hearsay ("saying", "claims", "apparently", "rumour", "someone said") before a
  word of change, or a document said to say it ("the wiki still says Gusto").

A request or an offer ("can the invoices go to ...?", "we'd like to upgrade") is how a change
is often made, and a piece that says a value ended
(:func:`graphmem.said_ended.ended_values`) states one: neither is marked. A mark only, never a
write; a pure function of the line's text.
"""

from __future__ import annotations

import functools
import re

from graphmem.said_ended import ended_values
from graphmem.text.logforms import JSON_LINE, json_fields

__all__ = ["stated", "unstated"]

#: A word of change or choice: what a plan, a question or a report is about.
_CHANGE = (
    r"(?:switch\w*|swap\w*|mov(?:e|ed|es|ing)|migrat\w*|chang\w*|replac\w*|upgrad\w*|"
    r"downgrad\w*|bump\w*|promot\w*|adopt\w*|rais(?:e|ed|es|ing)|rise|rises|increas\w*|"
    r"reduc\w*|lower\w*|put\s+(?:\w+\s+)?up|go(?:es|ing)?\s+with|went\s+with|go(?:es|ing)?\s+to|"
    r"us(?:e|es|ed|ing)|still|now|already|instead|tr(?:y|ied|ying)|pick\w*|choos\w*|"
    r"push(?:ed|es|ing)?|postpon\w*|reschedul\w*|delay\w*|extend\w*|due|"
    r"new\s+(?:time|date|day|slot|venue|location|address|room)|"
    r"nicer|better|suit\w*|prefer\w*|cheaper|faster|entertain\w*|accept\w*|offer\w*|pilot\w*|"
    r"look(?:s|ed|ing)?\s+(?:at|into))"
)
_CHANGE_WORD = re.compile(rf"(?i)\b{_CHANGE}\b")
#: An opinion may judge without a word of change: "db.r6g.xlarge would probably do", "she
#: thinks it should be 150".
_JUDGED = re.compile(rf"(?i)\b(?:{_CHANGE}|be|do)\b")
_QUESTION_START = re.compile(
    r"(?i)^(?:did|do|does|is|are|was|were|should|shall|will|can|could|have|has|any\s+chance|"
    r"wonder(?:ing)?\s+if)\b"
)
#: A question passed on: "several of you emailed asking whether it could be pushed to Dec 13."
#: (a full stop ends it), "a few of you asked about moving to the library".
_ASKED = re.compile(r"(?i)\bask(?:ed|ing|s)?\s+(?:\w+\s+){0,3}?(?:whether|if|about\s+\w+ing)\b")
_IF_START = re.compile(
    r"(?i)^(?:\w+:\s*)?(?:(?:only\s+)?if|unless|in\s+case|should\s+that|in\s+the\s+event|"
    r"contingency|as\s+a\s+fallback|worst\s+case|otherwise)\b"
)
_PLAN = re.compile(
    r"(?i)\b(?:might|could|thinking\s+(?:about|of)|considering|plan\s+to|planning\s+(?:to|on)|"
    r"the\s+plan\s+for|aiming|wants?\s+to|evaluat\w*|propos\w*|suggest\w*|exploring|explore|"
    r"maybe)\b"
)
_OPINION = re.compile(
    r"(?i)\b(?:would|wouldn't|should|(?:i|we|you|they|he|she)['’]d|i\s+think|"
    r"(?:she|he|they)\s+thinks?|imo|imho|personally|felt|feel)\b"
)
#: A thing only weighed: "thinking about the place on Brackett St", "evaluate Snowflake as our
#: warehouse" (the value follows within a few words).
_WEIGHED = re.compile(
    r"(?i)\b(?:thinking\s+(?:about|of)|consider(?:ing)?|evaluat(?:e|ing)|exploring|looking\s+into|"
    r"compare\s+(?:w/|with)|shortlist(?:ed|ing)?)\b"
)
#: Hearsay: "someone at pickup said they moved it", "a letter saying our supply moves". A
#: plain "the vet says ..." relays a change as often as not, so it is no cue.
_REPORTED = re.compile(
    r"(?i)\b(?:saying|claims?|claiming|apparently|rumou?r\w*|supposedly|allegedly|heard|"
    r"(?:someone|somebody|a\s+friend|people|they)\s+(?:said|say|says))\b"
)
#: A request or an offer is how a change is often made: "can they go to billing@...?", "we'd
#: like to upgrade to Team now".
_REQUEST = re.compile(
    r"(?i)^(?:\W*(?:hi|hey|hello|ok|okay|so|also|and|sorry)\b\W*)*(?:can|could|"
    r"(?:would|will)\s+you(?!\s+ever)|please|may\s+i)\b|"
    r"\b(?:like\s+to|love\s+to|be\s+(?:happy|fine|glad)|please)\b"
)
#: "the onboarding readme still says Gusto": a document said to hold a value.
_DOC_SAYS = re.compile(
    r"(?i)\b(?:doc|docs|wiki|readme|handbook|pdf|page|website|site|sign|poster|letter|email|"
    r"notice|listing|spreadsheet|sheet|runbook|manual|guide|checklist|questionnaire|faq|form|"
    r"template|deck|slides?|file|draft|copy)\s+(?:[\w()]+\s+){0,4}?(?:still\s+)?"
    r"(?:says|said|claims|lists|shows|mentions|states)\b"
)
#: A label that makes what follows it a proposal: "Proposal: bump the timeout to 90s", "TODO:
#: move the docs to Notion" (not "Plan: Business", a subscription's plan) ...
_PROPOSED = re.compile(
    r"(?i)\b(?:proposal|proposed|ideas?|suggestion|option|todo|to-do|rfc|maybe|wishlist)\s*:\s*$"
)
#: ... and those that make a bare value one: "Proposed: Tuesday 10:00 AM" beside "Current:
#: Tuesday 9:00 AM".
_PROPOSED_VALUE = re.compile(r"(?i)\b(?:proposal|proposed|suggestion|suggested)\s*:\s*$")
#: A change not made yet: "draft PR #318: bump the base to node:20-alpine", "WIP: ...".
_DRAFT = re.compile(
    r"(?i)\b(?:draft\s+(?:pr|mr|pull\s+request|merge\s+request)|wip|do\s+not\s+merge|"
    r"don['’]t\s+merge)\b"
)
#: Pieces: sentences, a table's cells, and a line's parts after a bullet, a speaker or an arrow.
_PIECES = re.compile(r"(?<=[.!?])\s+|\s+(?:->|→)\s+|\s\|(?=\s)|\n")
_CLAUSE = re.compile(r"[,;:—–]\s|\s[-–]\s|\(|\)")
_ANAPHOR = re.compile(r"(?i)\b(?:that|this|it)\b")
#: Longest piece quoted in a mark.
_QUOTE = 60
_LEAD = re.compile(
    r"^(?:\s*\[[^\]]{1,30}\]|\s*<[^<>\s]{1,30}>|\s*\d[\d:./,-]*(?=\s)|[^\w\[<]+)*\s*"
    r"(?:\w[\w .'@-]{0,30}:\s+)?"
)
#: A proposal's label after a speaker: "nico_v: proposal: bump min python to 3.10".
_PROPOSAL_LABEL = re.compile(
    r"(?i)^(?:proposal|proposed|ideas?|suggestion|option|todo|to-do|rfc|wishlist)\s*:\s+"
)


#: Most words from a plan or opinion word to the change it is about ("might try X", "would
#: probably be nicer"): further on, the change is another clause's ("nobody could get hold of
#: a copy, so they've swapped it").
_NEAR = 5


def _after(pattern: re.Pattern[str], clause: str, start: int) -> bool:
    m = pattern.search(clause, start)
    return m is not None and len(clause[start : m.start()].split()) <= _NEAR


#: A value: a capitalised word inside a piece, a figure, an identifier ("eu-central-1",
#: "db.r6g.xlarge") or a quoted word (not "I've"); "have you tried it yet?" names none.
_VALUE = re.compile(r"(?<=\S\s)[A-Z][\w.+#&'-]*|\d|\w[._/@-]\w|(?<![\w'’])[\"“`'‘]\w")


#: A change's destination without a name: "will you ever move streams to weekends??".
_MOVED_TO = re.compile(rf"(?i)\b{_CHANGE}\s+(?:\w+\s+){{0,3}}?(?:to|onto|into)\s+\w{{3,}}")


def _names_value(body: str) -> bool:
    return _VALUE.search(body) is not None


def _judged(clauses: list[str]) -> bool:
    return any(
        (m := _OPINION.search(clause)) and _after(_JUDGED, clause, m.end()) for clause in clauses
    )


def _body(piece: str) -> str:
    """A piece without its bullet, stamp or speaker ("[14:02] Ben: ", "- ")."""
    return _LEAD.sub("", piece.strip(), count=1) if ":" in piece else piece.strip(" -*•>\t")


def _kind(body: str) -> str | None:
    """How the piece ``body`` (:func:`_body`) only asks, plans, ... a change; else ``None``."""
    if _DOC_SAYS.search(body):
        return "was reported"
    if any((m := _WEIGHED.search(c)) and _after(_VALUE, c, m.end()) for c in _CLAUSE.split(body)):
        return "was a plan"
    if _ASKED.search(body):  # "a few of you asked if it's Monday": whatever it asks
        return "was asked"
    if not _JUDGED.search(body):
        return None
    if body.rstrip(" )\"'").endswith("?"):  # what is asked is the last clause
        # an aside in brackets is no clause of its own: "went with the purple (#7C3AED) as ...?"
        last = _CLAUSE.split(re.sub(r"\([^()]*\)", " ", body))[-1].strip()
        if not _CHANGE_WORD.search(last):  # "..., is that right?" asks about the clause before
            if not (_ANAPHOR.search(last) and len(last.split()) <= _NEAR + 1):
                return None
        else:
            body = last
        asked = True
    else:  # "did we switch to X" without its mark; not "Will try." (a full stop)
        asked = _QUESTION_START.match(body) is not None and not body.endswith((".", "!"))
    if _REQUEST.search(body):
        return None
    clauses = _CLAUSE.split(body)
    if not _CHANGE_WORD.search(body):
        return "was an opinion" if _judged(clauses) else None
    if asked:
        return "was asked"
    if _IF_START.match(body):
        return "was an if"
    for clause in clauses:
        if (m := _PLAN.search(clause)) and _after(_CHANGE_WORD, clause, m.end()):
            return "was a plan"
        if (m := _OPINION.search(clause)) and _after(_JUDGED, clause, m.end()):
            return "was an opinion"
        if (m := _REPORTED.search(clause)) and _after(_CHANGE_WORD, clause, m.end()):
            return "was reported"
    return None


@functools.lru_cache(maxsize=8192)
def _pieces(text: str) -> tuple[tuple[str, str, str | None], ...]:
    """Each piece of ``text``, its body, and its :func:`_kind` if it names a value (else None)."""
    out = []
    if JSON_LINE.match(text):  # a chatbot's event: what its text says ("Want me to switch ...?")
        text = "\n".join(json_fields(text)) or text
    for piece in (p.strip() for p in _PIECES.split(text)):
        if piece:
            body = _body(piece)
            if proposal := _PROPOSAL_LABEL.match(body):
                body = body[proposal.end() :]
            kind = None
            if _names_value(body) or _MOVED_TO.search(body):
                kind = _kind(body)
                # a change after a proposal's label ("Proposal: bump ..."), which _body drops
                label = piece[: -len(body)]
                changed = _CHANGE_WORD.search(body) is not None
                proposed = changed and (_PROPOSED.search(label) or _DRAFT.search(piece))
                if kind is None and (proposed or _PROPOSED_VALUE.search(label)):
                    kind = "was a plan"
            out.append((piece, body, kind if kind and not ended_values(piece) else None))
    return tuple(out)


def unstated(text: str) -> str | None:
    """The mark of a line whose change was asked, planned, supposed, judged or passed on.

    >>> unstated("wen: did we switch staging to postgres 16 already?")
    'was asked, not a change'
    >>> unstated("might try espoma rose-tone next year since it was on sale")
    'was a plan, not a change'
    >>> unstated("we moved staging to Postgres 16 last night") is None
    True
    >>> unstated("we dropped Zendesk, should we try Intercom?") is None  # it says Zendesk ended
    True
    """
    pieces = _pieces(text)
    body, kind = next(((b, k) for _, b, k in pieces if k), ("", None))
    if kind is None:
        return None
    if len(pieces) == 1:
        return f"{kind}, not a change"
    quote = body if len(body) <= _QUOTE else body[: _QUOTE - 1].rstrip() + "…"
    return f'{kind}, not a change: "{quote}"'


def stated(text: str) -> str:
    """What ``text`` states: its pieces :func:`unstated` reads as no change taken out.

    >>> stated("dave: is the match at Lincoln Park now?? someone said so")
    'someone said so'
    """
    return "\n".join(p for p, _, kind in _pieces(text) if kind is None)
