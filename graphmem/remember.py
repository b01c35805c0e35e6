"""Free-text memories (docs/concepts/decisions.md#rule-5): ``Memory.remember(text, subject=...)``.

A memory is stored as a fact ``subject -note-> text`` (``note`` is multi-valued) with the text
as ``object`` and ``statement``. Before it is written it is compared with the **current notes of
the same subject only** (never a graph scan: unrelated memories cannot retire each other) and
:func:`graphmem.contradiction.decide_text` decides:

- ``add``: a new note;
- ``noop``: the nearest note says the same; it is reinforced (``access_count`` + 1);
- ``supersede``: the nearest note is replaced: it is closed in system time (``superseded_by``
  is the new note, ``reason`` says why) and, if it was valid before ``at``, a copy ending at
  ``at`` keeps its past (as for a single-valued predicate, docs/concepts/time.md#rule-4);
- ``invalidate``: the text negates the nearest note ("we no longer deploy with X"); the note
  ends at ``at`` through the temporal rules and the negating text is not stored as a note.

With a ``source_ref`` (a caller identity key) similarity is skipped: the note with the same
ref is replaced (or reinforced when the text is the same), otherwise the text is added.

Without a subject, notes go to the unnamed scope :data:`DEFAULT_SUBJECT` (``"self"``).

**Similarity is pluggable.** The default :func:`graphmem.similarity.text_similarity` is lexical,
offline, deterministic and fast. To use embeddings, wrap any embedding function in
:class:`graphmem.similarity.EmbeddingSimilarity` and pass it at open or per call::

    from sentence_transformers import SentenceTransformer
    from graphmem.similarity import EmbeddingSimilarity
    model = SentenceTransformer("all-MiniLM-L6-v2")
    sim = EmbeddingSimilarity(lambda t: model.encode(t).tolist())
    mem = gm.open("agent.kuzu", similarity=sim)      # or mem.remember(text, similarity=sim)

Any callable ``(a, b) -> float`` in ``[0, 1]``, symmetric, ``1.0`` for equal normalised text,
works (:class:`graphmem.similarity.Similarity`). Mind the bands of ``decide_text`` (``>= 0.97``
duplicate, ``>= 0.88`` same note): calibrate an embedding model against them.

>>> import graphmem as gm
>>> from graphmem.timeutil import ManualClock
>>> with gm.open(clock=ManualClock("2026-06-10")) as mem:
...     print(mem.remember("We deploy with Docker Compose", subject="api").decision)
...     print(mem.remember("we deploy with docker compose.", subject="api").decision)
...     print(mem.remember("We no longer deploy with Docker Compose", subject="api").decision)
...     print(len(mem.facts(subject="api", predicate="note")))
add
noop
invalidate
0
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmem.admission import shown
from graphmem.errors import InvalidInput
from graphmem.kernel import kernel_of
from graphmem.models import TextResult
from graphmem.normalize import check_unicode, clean_subject
from graphmem.notes import NOTE, negated_topic, plan_note
from graphmem.similarity import Similarity
from graphmem.timeutil import TimeLike, to_utc
from graphmem.writes import open_rows

if TYPE_CHECKING:
    from graphmem.kernel import MemoryLike

__all__ = ["DEFAULT_SUBJECT", "NOTE", "negated_topic", "plan_note", "remember"]

#: The subject of memories stored without one: the unnamed scope.
DEFAULT_SUBJECT = "self"


def remember(
    mem: MemoryLike,
    text: str,
    *,
    subject: str | None = None,
    at: TimeLike | None = None,
    kind: str = "insight",
    source: str | None = None,
    source_ref: str | None = None,
    importance: float | None = None,
    source_type: str | None = None,
    similarity: Similarity | None = None,
) -> TextResult:
    """Remember a text: its claims become facts, and a text without claims becomes a note.

    The text goes through the text pipeline (:mod:`graphmem.text`): "The API runs on Laravel"
    becomes ``API runs_on Laravel``; a later "We migrated the API to Go" supersedes it; "We no
    longer deploy with X" ends ``self deploys_with X``. A text with no claim (or a change that
    cannot be resolved to exactly one fact) is stored as a note and compared with the current
    notes of the same subject (:func:`plan_note`).

    Args:
        mem: the memory.
        text: what to remember, e.g. ``"we deploy with Docker Compose"``; any length up to the
            admission bound (default 10,000 characters).
        subject: whom or what it is about: first-person words ("we", "our", "I") mean this
            subject, and notes are stored under it; ``None`` uses the memory's owner
            (:data:`DEFAULT_SUBJECT`, ``"self"``).
        at: when it became true (valid time; default now). Relative dates in the text ("last
            week") resolve against it.
        kind: the kind of a note (``insight`` by default); facts from claims are ``fact``
            unless another kind is given.
        source: the session/episode id it came from.
        source_ref: a caller identity key: the text is stored as one note, and a later
            memory with the same key replaces it (no claim extraction: the key names the note).
        importance: 0–10, clamped into the kind's band by admission control.
        source_type: who says it (``"user"`` adds +1 importance), see
            :data:`graphmem.admission.SOURCE_TYPES`.
        similarity: override the memory's similarity for this call.

    Returns:
        A :class:`~graphmem.models.TextResult`: the weightiest ``decision`` and its ``fact``,
        every closed version in ``superseded``, and one WriteResult per write in ``results``.

    Raises:
        InvalidInput: blank or out-of-bounds text, bad kind, time or importance.
        RateLimited: the kind's hourly write limit is reached (nothing is written).
        ClockError: the clock moved backwards.
    """
    kernel = kernel_of(mem)
    from graphmem.text.pipeline import Segment, summarize, write

    if not isinstance(text, str) or not text.strip():
        raise InvalidInput(f"text={shown(text)} is empty or not a string; pass the statement")
    kernel.admission.check_statement(text, name="text")
    check_unicode(text, what="text")  # the reader cannot read an unpaired surrogate
    sim = similarity or kernel.similarity
    owner = kernel.owner if subject is None else clean_subject(subject, what="subject")
    if source_ref is not None:
        item = {
            "subject": owner,
            "predicate": NOTE,
            "object": text,
            "statement": text,
            "valid_from": at,
            "kind": kind,
            "importance": importance,
            "source": source,
            "source_ref": source_ref,
            "source_type": source_type,
        }
        with kernel.uow.write() as w:
            rows = open_rows(kernel, w, [item])
            for row in rows:
                rows.apply(row, plan_note(row.fact, rows.versions(row.subject_id), similarity=sim))
            rows.fill(w.changes)
        rows.committed()
        return summarize(rows.results)
    when = kernel.now() if at is None else to_utc(at, name="at")
    [results] = write(
        kernel,
        [Segment(text, when, source)],
        owner=owner,
        kind="fact" if kind == "insight" else kind,
        note_kind=kind,
        importance=importance,
        source_type=source_type,
        similarity=sim,
    )
    return summarize(results)
