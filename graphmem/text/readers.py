"""Readers: what turns a text into claims, and the protocol a caller's own reader implements.

Every path that takes text (``remember``, ``add_session(s)``, ``ingest_text``, the CLI and the
MCP tools) asks the memory's reader for the claims of the text, then resolves them against the
graph and writes them under the time rules (docs/concepts/text.md#readers). The reader is
pluggable: ``gm.open(..., reader=my_reader)`` takes any object with a ``read`` method of the
:class:`Reader` protocol, for instance one that asks an LLM. Its claims go through graphmem's
entity resolution, slot resolution and time rules unchanged.

The built-in reader (:class:`BuiltinReader`) reads each sentence with the rule forms of
:mod:`graphmem.text.rules` and, for a sentence the rules do not read, from a trained
dependency parse (:mod:`graphmem.text.parse`); parses of a whole call are made in one batch.

>>> import datetime as dt
>>> at = dt.datetime(2026, 6, 10, tzinfo=dt.timezone.utc)
>>> [(c.subject, c.predicate, c.object) for c in BuiltinReader().read("Alice works at Acme.",
...     at=at, owner="self")]
[('Alice', 'works_at', 'Acme')]
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol, runtime_checkable

from graphmem.text.claims import Claim
from graphmem.text.nlp import parse, sentences
from graphmem.text.parse import verb_taken_for_noun, with_subject
from graphmem.text.parse_joined import open_claims
from graphmem.text.reader import Reader as SentenceReader

__all__ = ["BuiltinReader", "Reader", "Reading", "group"]

#: Where a sentence joins two statements without a conjunction: ";", a spaced dash.
_CLAUSE_BREAK = re.compile(r";|\s[—–-]\s")
#: The claims of a text, sentence by sentence: ``[(sentence, [claims ...]), ...]``.
Reading = list[tuple[str, list[Claim]]]


@runtime_checkable
class Reader(Protocol):
    """What graphmem needs of a reader: the claims a text makes.

    ``read(text, *, at, owner)`` returns :class:`~graphmem.text.claims.Claim` objects:
    ``subject``, ``predicate`` (a relation name or alias of the ontology, any other relation
    name, or ``None`` for a change that does not name it: resolved against the graph),
    ``object`` (``None`` with ``polarity=False`` ends whatever the subject had),
    ``polarity``, ``valid_from``/``valid_to`` (when the text says), ``replaces`` (the old value
    a change names), ``correction``, ``many`` (an unknown relation holds many values), and
    ``sentence`` (the sentence it was read from; it becomes the fact's ``statement``). First-
    person statements use ``owner`` as their subject. ``at`` is when the text speaks from
    (relative dates resolve against it). A text with nothing to claim returns ``[]``.
    """

    def read(self, text: str, *, at: dt.datetime, owner: str) -> Sequence[Claim]:
        """Return the claims of ``text``."""
        ...


class BuiltinReader:
    """graphmem's own reader: rule forms, then a dependency parse (docs/concepts/text.md).

    Args:
        parser: ``True`` (default) parses the sentences the rules do not read with the trained
            English pipeline when one is installed; ``False`` reads the rule forms only.
    """

    def __init__(self, *, parser: bool = True) -> None:
        self.parser = parser

    def read(self, text: str, *, at: dt.datetime, owner: str) -> list[Claim]:
        """Return the claims of ``text`` (see :class:`Reader`)."""
        return [c for _, claims in self.readings([(text, at)], owner=owner)[0] for c in claims]

    def readings(self, texts: Sequence[tuple[str, dt.datetime]], *, owner: str) -> list[Reading]:
        """Read many texts at once: the sentences and their claims, per text.

        Two passes: the rule forms find the sentences they cannot read, those are parsed in
        one batch, and the texts that had such a sentence are read again with their parses
        (the reader keeps who "she" and "it" are, so a text is read in order as a whole).
        """
        split = [sentences(text) for text, _ in texts]
        out: list[Reading] = []
        wanted: dict[str, None] = {}
        again: list[int] = []
        # what the first pass saw around each sentence: the second pass reuses a sentence's
        # claims when it reaches it in the same state and it asked for no parse
        seen: dict[int, list[_Trace]] = {}
        for i, ((_, at), sents) in enumerate(zip(texts, split, strict=True)):
            reader = SentenceReader(at=at, owner=owner)
            reading: Reading = []
            trace = []
            for s in sents:
                before, asked, whole = _state(reader), len(reader.unread), _carried(reader)
                reading.append((s.text, reader.read(s.text, s.speaker)))
                trace.append(
                    _Trace(
                        before,
                        tuple(reader.unread[asked:]),
                        _state(reader),
                        whole,
                        _carried(reader),
                    )
                )
            out.append(reading)
            if reader.unread:
                wanted.update(dict.fromkeys(reader.unread))
                again.append(i)
                seen[i] = trace
        if not wanted or not self.parser:
            return out
        # A semicolon joins two statements; the parser reads them as one clause under the
        # other ("lead is Sarah; kickoff planned"), so each part is parsed on its own.
        parts = {text: [p for p in _CLAUSE_BREAK.split(text) if p.strip()] for text in wanted}
        flat = [p for ps in parts.values() for p in ps]
        docs = parse(flat)
        if docs is None:
            return out
        opens = {p: open_claims(d) for p, d in zip(flat, docs, strict=True)}
        # The model learned from punctuated text: a part without its full stop that read as
        # nothing is parsed again with one, so its last word is not taken for punctuation
        # ("backed by RabbitMQ"). Only then: "$1.2M." would be one token.
        bare = [p for p, o in opens.items() if not o and _NAME_LAST.fullmatch(p.split()[-1])]
        for p, d in zip(bare, parse([p.rstrip() + "." for p in bare]) or [], strict=True):
            opens[p] = open_claims(d)
        # A verb the tagger took for a noun after a hyphenated or compound subject
        # ("billing-service stores invoices in MySQL"): the predicate is parsed again after
        # "It", and "It" is the subject as written (docs/concepts/text.md#the-parser).
        taken: dict[str, tuple[str, str]] = {}
        for p, d in zip(flat, docs, strict=True):
            k = verb_taken_for_noun(d)
            word = d[k].text if k is not None else ""
            if k is None or (
                opens[p] and all(word not in (o.subject or "").split() for o in opens[p])
            ):
                continue  # none, or read without the noun-tagged word in a subject
            taken[p] = (str(d[:k].text), "It " + str(d[k:].text))
        again_docs = (parse([a for _, a in taken.values()]) or []) if taken else []
        for (p, (subject, _)), d in zip(taken.items(), again_docs, strict=True):
            found = with_subject(open_claims(d), subject)
            if found:
                opens[p] = found
        parsed = {text: [o for p in ps for o in opens[p]] for text, ps in parts.items()}
        for i in again:
            reader = SentenceReader(at=texts[i][1], owner=owner, parsed=parsed)
            first = out[i]
            out[i] = []
            for k, s in enumerate(split[i]):
                t = seen[i][k]
                if not t.asked and _state(reader) == t.before:
                    out[i].append(first[k])  # read as in the first pass: same claims
                    reader.last_person, reader.last_thing, reader.user_named = t.after
                elif not any(parsed.get(key) for key in t.asked) and _carried(reader) == t.whole:
                    # the parse read nothing in what it asked for, and the reader is where the
                    # first pass had it: reading it again would read what the first pass read
                    # (docs/concepts/text.md#speed)
                    out[i].append(first[k])
                    vars(reader).update(t.left)
                else:
                    out[i].append((s.text, reader.read(s.text, s.speaker)))
        return out


_State = tuple[str | None, str | None, bool]


class _Trace(NamedTuple):
    """What the first pass saw around a sentence (the second pass may reuse its claims)."""

    before: _State
    #: the cleaned texts it asked the parser for, in order
    asked: tuple[str, ...]
    after: _State
    #: everything the reader carried into the sentence, and out of it (see :func:`_carried`)
    whole: tuple[tuple[str, Any], ...]
    left: tuple[tuple[str, Any], ...]


#: A part that ends in a name or an amount, without its full stop ("... by RabbitMQ").
_NAME_LAST = re.compile(r"\W*\w*[A-Z0-9][\w.$]*[%+#]?")


def _state(reader: SentenceReader) -> _State:
    """What a sentence reader carries to the next sentence: who "she", "it", "they" are."""
    return reader.last_person, reader.last_thing, reader.user_named


def _carried(reader: SentenceReader) -> tuple[tuple[str, Any], ...]:
    """All a sentence reader carries between sentences (its fields but the parses it asks)."""
    return tuple((k, v) for k, v in vars(reader).items() if k not in ("parsed", "unread"))


def group(text: str, claims: Sequence[Claim]) -> Reading:
    """The reading of a caller's reader: its claims grouped by sentence, in text order.

    Sentences of ``text`` that no claim came from are listed with no claims (so ``remember``
    keeps them as a note: no text is lost); a claim without a sentence speaks for the text.
    """
    if not isinstance(claims, Sequence) or not all(isinstance(c, Claim) for c in claims):
        from graphmem.errors import InvalidInput

        raise InvalidInput(
            f"the reader returned {type(claims).__name__}; a reader's read() must return a "
            "list of graphmem.text.claims.Claim"
        )
    by_sentence: dict[str, list[Claim]] = {}
    for c in claims:
        said = c.sentence or text
        by_sentence.setdefault(said, []).append(c if c.sentence else _with_sentence(c, text))
    covered = " ".join(by_sentence)
    reading: Reading = [(s.text, []) for s in sentences(text) if s.text.rstrip(".!") not in covered]
    return list(by_sentence.items()) + reading


def _with_sentence(claim: Claim, text: str) -> Claim:
    from dataclasses import replace

    return replace(claim, sentence=text)
