"""Claims from text, and writing them: the public face of :mod:`graphmem.text`.

:func:`extract` reads a text and returns its claims without touching a memory;
:func:`ingest_text` writes them through the same pipeline as ``remember`` and
``add_session`` (one transaction, contradiction rules applied, change statements resolved
against the graph, a text without claims kept as a note).

>>> import datetime as dt
>>> at = dt.datetime(2026, 6, 10, tzinfo=dt.timezone.utc)
>>> said = extract("Alice moved to Berlin and joined Globex. She no longer works at Acme.", at=at)
>>> for c in said:
...     print(c.subject, c.predicate, c.object, c.polarity)
Alice lives_in Berlin True
Alice works_at Globex True
Alice works_at Acme False

What the rules cover and what they leave alone is documented in :mod:`graphmem.text.claims`
(reading a sentence), :mod:`graphmem.text.rules` (the clause rules, in order) and
:mod:`graphmem.text.resolve` (change statements against the graph).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmem.errors import InvalidInput
from graphmem.kernel import kernel_of
from graphmem.models import WriteResult
from graphmem.normalize import check_text
from graphmem.text.claims import OWNER, Claim
from graphmem.timeutil import TimeLike, to_utc

if TYPE_CHECKING:
    from graphmem.kernel import MemoryLike

__all__ = ["Claim", "extract", "ingest_text"]


def extract(text: str, *, at: TimeLike | None = None, owner: str = OWNER) -> list[Claim]:
    """Return the claims of a text, in order, without writing anything.

    Args:
        text: free text: notes, a chat transcript (``user:`` / ``assistant:`` turns), ...
        at: the time the text speaks from; relative dates ("last week") resolve against it
            (default now).
        owner: the subject of first-person statements ("we", "our", "I").

    Returns:
        The claims; a change statement that does not name its relation has
        ``predicate=None`` (the writer resolves it against the graph).

    Raises:
        InvalidInput: ``text`` is not a string, or ``at`` is invalid.
    """
    import datetime as dt

    from graphmem.text.pipeline import read

    if not isinstance(text, str):
        raise InvalidInput(
            f"text={text!r} ({type(text).__name__}) is not a string; pass the text to read"
        )
    when = dt.datetime.now(dt.timezone.utc) if at is None else to_utc(at, name="at")
    return [c for _, claims in read(text, at=when, owner=owner) for c in claims]


def ingest_text(
    mem: MemoryLike,
    text: str,
    *,
    at: TimeLike | None = None,
    source: str | None = None,
) -> list[WriteResult]:
    """Write the claims of a text (or the text as a note when it has none) in one transaction.

    Args:
        mem: the memory to write to.
        text: free text (a chat turn, meeting notes, a log ...).
        at: when the text's facts became true, unless a sentence says otherwise (default now).
        source: the session/episode id, stored on every fact as provenance.

    Returns:
        One ``WriteResult`` per write, in text order.

    Raises:
        InvalidInput: ``text`` is not a string, or a bad ``at``/``source``.
    """
    kernel = kernel_of(mem)
    from graphmem.text.pipeline import Segment, write

    if not isinstance(text, str):
        raise InvalidInput(f"text={text!r} is not a string; pass the text to read")
    if source is not None and not isinstance(source, str):
        raise InvalidInput(f"source={source!r} must be a string or None")
    if not text.strip():
        return []
    check_text(text, what="text")  # at most MAX_TEXT characters, no lone surrogates
    when = kernel.now() if at is None else to_utc(at, name="at")
    [results] = write(kernel, [Segment(text, when, source)], owner=kernel.owner)
    return results
