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

import re
import threading
from dataclasses import dataclass
from typing import Any

from graphmem.errors import ExtraUnavailable
from graphmem.text.lexicon import is_speaker

__all__ = ["Sentence", "sentences"]

_TURN = re.compile(r"^\s*(?:[-*>]\s*)?(?:\*\*)?(?P<who>[A-Za-z][\w .'-]{0,30}?)(?:\*\*)?\s*:\s+")
_LOCK = threading.Lock()
_NLP: list[Any] = []
_ABBREVIATION = re.compile(
    r"(?:^|\s)(?:Dr|Mr|Mrs|Ms|Prof|St|Inc|Ltd|Co|Jr|Sr|Mt|vs|etc|e\.g|i\.e|approx|No)\.$"
)
#: Longest text handed to spaCy at once (its own limit is 1,000,000 characters).
_CHUNK = 100_000


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


def _turns(text: str) -> list[tuple[str | None, str]]:
    """Cut text into (speaker, text) turns; plain paragraphs have no speaker."""
    turns: list[tuple[str | None, str]] = []
    for line in text.splitlines():
        if not line.strip():
            turns.append((None, ""))  # a paragraph break
            continue
        m = _TURN.match(line)
        if m and is_speaker(m.group("who").strip()):
            turns.append((m.group("who").strip(), line[m.end() :]))
            continue
        if turns and turns[-1][1] and not line.lstrip().startswith(("-", "*", "•")):
            speaker, prev = turns[-1]
            turns[-1] = (speaker, f"{prev} {line.strip()}")
        else:
            turns.append((turns[-1][0] if turns and turns[-1][1] else None, line.strip()))
    return [(s, t) for s, t in turns if t.strip()]


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
                )
            ):
                # "Socket.IO", "Node.js", "Dr. Mensah": a full stop inside a name
                glue = "" if not text[start - 1].isspace() else " "
                out[-1] = Sentence(out[-1].text + glue + s, speaker, i)
            else:
                out.append(Sentence(s, speaker, i))
    return out
