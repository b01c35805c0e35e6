"""Session texts as lines and terms: how every backend splits and normalises them.

A session text is split into lines (:func:`split_lines`); each line's ``terms`` (:func:`terms`)
are what episodic search indexes, with the same normalisation as the query's words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# The words of a text are the core's (graphmem.normalize), re-exported here.
from graphmem.normalize import stem, terms

__all__ = [
    "LINES_READ",
    "MAX_LINE",
    "REDACTED",
    "TERMS_KEY",
    "changed_terms",
    "doc_terms",
    "name_patterns",
    "names_in",
    "redact",
    "redact_session",
    "split_lines",
    "stem",
    "terms",
]

#: The meta key naming the :data:`graphmem.normalize.TERMS_VERSION` of the stored line terms
#: (docs/concepts/recall.md#how-lines-are-ranked).
TERMS_KEY = "line_terms"
#: The columns :func:`changed_terms` reads, as one Cypher query (every backend's).
LINES_READ = "MATCH (l:SessionLine) RETURN l.id, l.speaker, l.text, l.terms"


def changed_terms(rows: Sequence[Sequence[str | None]]) -> list[dict[str, str]]:
    """The lines (rows of :data:`LINES_READ`) whose terms this version computes otherwise.

    Returns ``{"id", "text", "terms"}`` with the new terms, in the rows' order.
    """
    return [
        {"id": str(r[0]), "text": r[2] or "", "terms": t}
        for r in rows
        if (t := doc_terms(r[1], r[2] or "")) != (r[3] or "")
    ]


#: Longest line kept whole; longer ones are cut at sentence ends.
MAX_LINE = 600


_SPEAKER = re.compile(r"^([^\W\d_][\w.'’ -]{0,38}?)\s*:\s+(?=\S)")


_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def split_lines(text: str | None) -> list[tuple[str | None, str]]:
    r"""Split a session text into ``(speaker, text)`` lines.

    One line per non-blank line of the text, whitespace collapsed. A ``Name: words`` prefix
    (a name of up to 40 characters starting with a letter) is the speaker. A line longer than
    :data:`MAX_LINE` characters is cut at sentence ends (a sentence longer than that at a
    space); the parts keep the speaker.

    >>> split_lines("Caroline: I went to the group.\n\nMelanie: Wow!\nJust notes")
    [('Caroline', 'I went to the group.'), ('Melanie', 'Wow!'), (None, 'Just notes')]
    """
    out: list[tuple[str | None, str]] = []
    for raw in (text or "").splitlines():
        line = " ".join(raw.split())
        if not line:
            continue
        speaker: str | None = None
        m = _SPEAKER.match(line)
        if m and len(m.group(1).split()) <= 4:
            speaker, line = m.group(1).strip(), line[m.end() :]
        out.extend((speaker, part) for part in _parts(line))
    return out


def _parts(line: str) -> list[str]:
    if len(line) <= MAX_LINE:
        return [line]
    parts: list[str] = []
    current = ""
    for sentence in _SENTENCE_END.split(line):
        while len(sentence) > MAX_LINE:
            cut = sentence.rfind(" ", 0, MAX_LINE)
            cut = cut if cut > 0 else MAX_LINE
            if current:
                parts.append(current)
                current = ""
            parts.append(sentence[:cut])
            sentence = sentence[cut:].strip()
        if current and len(current) + 1 + len(sentence) > MAX_LINE:
            parts.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}" if current else sentence
    if current:
        parts.append(current)
    return parts


def doc_terms(speaker: str | None, text: str) -> str:
    """The indexed words of a line with its speaker, as one space-separated string."""
    return " ".join(terms(f"{speaker or ''} {text}"))


# -- the privacy purge: what of a text names the purged entity (docs/concepts/time.md#rule-1) -----

#: What a redacted sentence of a session text (or a whole title) becomes.
REDACTED = "[purged]"


def name_patterns(names: Sequence[str]) -> list[re.Pattern[str]]:
    """One case-insensitive, whole-word pattern per name (longest first; blanks dropped)."""
    words = sorted({n.strip() for n in names if n and n.strip()}, key=len, reverse=True)
    return [re.compile(rf"(?<!\w){re.escape(w)}(?!\w)", re.IGNORECASE) for w in words]


def names_in(text: str | None, patterns: Sequence[re.Pattern[str]]) -> bool:
    """Whether ``text`` names any of the patterns' names."""
    return text is not None and any(p.search(text) for p in patterns)


def redact_session(
    title: str | None, text: str | None, summary: str | None, patterns: Sequence[re.Pattern[str]]
) -> tuple[str | None, str | None, str | None] | None:
    """A session's title, text and summary without what names the purged entity.

    A title that names it becomes ``[purged]``; the text and summary are :func:`redact`-ed.
    ``None`` when nothing named it.

    >>> redact_session("Alice", "Alice left. Bob stays.", None, name_patterns(["Alice"]))
    ('[purged]', '[purged] Bob stays.', None)
    """
    new = (REDACTED if names_in(title, patterns) else title, redact(text, patterns))
    out = (*new, redact(summary, patterns))
    return None if out == (title, text, summary) else out


def redact(text: str | None, patterns: Sequence[re.Pattern[str]]) -> str | None:
    r"""Replace every sentence of ``text`` that names the purged entity by ``[purged]``.

    Line by line: a line whose speaker is the entity is redacted whole, other lines sentence
    by sentence (what a sentence says about the entity goes with its name); line breaks stay,
    so the session's other lines keep their place.

    >>> p = name_patterns(["Alice"])
    >>> redact("Alice is allergic to nuts. The API runs on Go.\nalice: hi!\nBob: Hi Alice. Ok", p)
    '[purged] The API runs on Go.\n[purged]\nBob: [purged] Ok'
    >>> redact("Alice's notes", p), redact("Malice aforethought", p)
    ('[purged]', 'Malice aforethought')
    """
    if text is None or not names_in(text, patterns):
        return text
    out = []
    for line in text.split("\n"):
        if not names_in(line, patterns):
            out.append(line)
            continue
        head, body = "", line
        m = _SPEAKER.match(line.strip())
        if m and len(m.group(1).split()) <= 4:
            if names_in(m.group(1), patterns):
                out.append(REDACTED)
                continue
            head, body = line.strip()[: m.end()], line.strip()[m.end() :]
        kept = [REDACTED if names_in(s, patterns) else s for s in _SENTENCE_END.split(body)]
        # Neighbouring redacted sentences become one mark.
        merged = [s for i, s in enumerate(kept) if not (s == REDACTED and i and kept[i - 1] == s)]
        out.append(head + " ".join(merged))
    return "\n".join(out)
