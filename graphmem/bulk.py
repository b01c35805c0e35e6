"""Streaming bulk ingest: facts from any iterable, written in chunks of bounded memory.

:func:`ingest_facts` reads its input lazily and writes each chunk as one public write (one
``add_facts`` call: validated, planned against what the earlier chunks stored, and committed
atomically). **Atomicity is per chunk**: if chunk ``k`` fails (bad input, a full disk), chunks
``0..k-1`` stay written, chunk ``k`` is absent, and the error says how many facts were written.
Peak memory is that of one chunk, not of the whole input, and with ``results=False`` (the
default) no per-fact :class:`~graphmem.models.WriteResult` outlives its chunk: a one-call
``add_facts`` of 1M facts peaks at about 3.5 GB, most of it input rows and results
(docs/benchmarks.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any, Protocol

from graphmem.errors import GraphmemError, InvalidInput

if TYPE_CHECKING:
    from graphmem.models import Fact, WriteResult
    from graphmem.timeutil import TimeLike

__all__ = ["DEFAULT_CHUNK", "IngestReport", "ingest_facts"]


class FactWriter(Protocol):
    """What :func:`ingest_facts` writes through: ``Memory.add_facts`` (the public API)."""

    def add_facts(
        self, facts: Iterable[Mapping[str, Any] | Fact], *, learned_at: TimeLike | None = None
    ) -> list[WriteResult]: ...


#: Facts per chunk: large enough that a chunk into a growing store can take the bulk COPY
#: path (a COPY into a non-empty Kuzu table costs a fixed part that grows with the table), small
#: enough that one chunk's Python objects stay a few hundred MB.
DEFAULT_CHUNK = 100_000


@dataclass
class IngestReport:
    """What :func:`ingest_facts` wrote.

    Attributes:
        facts: input rows written.
        chunks: ``add_facts`` calls made (one transaction each).
        decisions: how many writes took each decision (``add``, ``supersede``, ...).
        seconds: wall time of the whole ingest.
        results: every ``WriteResult`` in input order when asked for (``results=True``), else
            ``None``.
    """

    facts: int = 0
    chunks: int = 0
    decisions: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    results: list[WriteResult] | None = None


def _chunks(facts: Iterable[Any], size: int) -> Iterator[list[Any]]:
    it = iter(facts)
    while True:
        chunk = list(islice(it, size))
        if not chunk:
            return
        yield chunk


def ingest_facts(
    mem: FactWriter,
    facts: Iterable[Mapping[str, Any] | Fact],
    *,
    chunk: int = DEFAULT_CHUNK,
    results: bool = False,
    progress: Callable[[IngestReport], None] | None = None,
) -> IngestReport:
    """Write ``facts`` in chunks of ``chunk`` rows, each chunk one atomic ``add_facts`` call.

    Args:
        mem: the memory to write into.
        facts: ``add_facts`` rows (dicts or Fact models), read lazily: a generator over a
            file keeps only one chunk in memory.
        chunk: rows per call (and per transaction).
        results: keep every ``WriteResult`` (memory grows with the input); by default only
            the decision counts are kept.
        progress: called with the report so far after each chunk is written.

    Returns:
        An :class:`IngestReport`.

    Raises:
        InvalidInput: a bad row or argument; the chunks before it are written (the message
            says how many facts), its own chunk is not.
        GraphmemError: any other failure of a chunk, with the same note attached.
    """
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise InvalidInput(f"chunk={chunk!r} must be a positive number of facts, e.g. 100000")
    if isinstance(facts, (str, bytes, Mapping)) or not isinstance(facts, Iterable):
        raise InvalidInput(
            f"facts={facts!r} is not a collection of facts; pass an iterable of dicts "
            "(a list, or a generator over a file)"
        )
    report = IngestReport(results=[] if results else None)
    start = time.perf_counter()
    for rows in _chunks(facts, chunk):
        try:
            written = mem.add_facts(rows)
        except GraphmemError as exc:
            note = (
                f" (ingest_facts: chunk {report.chunks} failed and was not written; the "
                f"{report.facts} facts of the {report.chunks} chunks before it are)"
            )
            if isinstance(exc, InvalidInput):
                # add_facts numbers rows within the chunk: say where the chunk starts.
                raise InvalidInput(
                    f"{exc}{note}; the chunk starts at input index {report.facts}"
                ) from exc
            exc.add_note(note.strip(" ()"))
            raise
        for r in written:
            key = r.decision.value
            report.decisions[key] = report.decisions.get(key, 0) + 1
        if report.results is not None:
            report.results.extend(written)
        report.facts += len(rows)
        report.chunks += 1
        del written, rows
        if progress is not None:
            report.seconds = time.perf_counter() - start
            progress(report)
    report.seconds = time.perf_counter() - start
    return report
