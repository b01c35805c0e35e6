"""Files: a memory's lossless export and import (graph snapshots are :mod:`graphmem.graphs`).

:func:`export_memory` writes *every* version ever recorded — both time axes, reasons,
``superseded_by`` chains, access counters, pins — with the entities (kinds, aliases), the
ontology, the sessions and their mentions, the audit records and the store's metadata.
:func:`import_memory` restores such a file into an **empty** memory with the same ids and system
times: it replays history as recorded, it does not re-decide it. Three formats:

- ``jsonl`` (the canonical backup): a ``header`` line with the format version, then one JSON
  record per line, each with a ``type``: ``meta``, ``predicate``, ``entity``, ``session``,
  ``fact``, ``audit``.
- ``node-link``: networkx's node-link JSON (``edges`` key) of the full-history graph: nodes
  ``entity:<id>`` and ``session:<id>``, edges for every fact version (keyed by its id) and for
  session mentions; the ontology, metadata and audit records sit in ``graph``.
- ``graphml``: the same graph as GraphML for Gephi, yEd or ``networkx.read_graphml``; lists and
  the graph-level records are JSON strings, absent values are left out.

After an import, the store's last-write marker is the newest system time imported, so the
clock can never write "before" the restored history (docs/concepts/time.md#rule-8).

Each format is a module of this package (``jsonl``, ``node_link``, ``graphml``) registered in
one table (:data:`graphmem.export.formats.REGISTRY`); all of them write and read the canonical
records (:mod:`graphmem.export.records`), and :mod:`graphmem.export.restore` validates and
restores them.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from typing import IO, TYPE_CHECKING, Any

from graphmem.errors import InvalidInput
from graphmem.export.formats import REGISTRY
from graphmem.export.records import (
    FORMAT_NAME,
    FORMAT_VERSION,
    TransferReport,
    _dump,
    _from_records,
    _records,
)
from graphmem.export.restore import _restore
from graphmem.fileio import atomic_write, replaceable
from graphmem.kernel import kernel_of
from graphmem.timeutil import to_utc

if TYPE_CHECKING:
    from graphmem.kernel import MemoryLike

__all__ = [
    "FORMATS",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "TransferReport",
    "export_memory",
    "from_records",
    "import_memory",
    "neighborhood",
    "to_networkx",
    "to_records",
]

#: File formats understood by :func:`export_memory` and :func:`import_memory`.
FORMATS: tuple[str, ...] = tuple(REGISTRY)


def to_records(mem: MemoryLike) -> Iterator[dict[str, Any]]:
    """Yield the canonical export records of a memory (one JSON line each in ``jsonl``).

    The first record is the ``header`` (``format``, ``version``, ``schema_version``,
    ``exported_at``, ``last_write``, ``counts``), then ``meta``, ``predicate``, ``entity``,
    ``session``, ``fact`` and ``audit`` records; times are ISO-8601 strings in UTC.
    """
    kernel = kernel_of(mem)
    yield from _records(_dump(kernel))


def from_records(mem: MemoryLike, records: Iterable[Mapping[str, Any]]) -> TransferReport:
    """Import canonical export records (as :func:`to_records` yields) into an empty memory.

    Raises:
        InvalidInput: the memory is not empty, or a record is invalid (the message gives its
            index); nothing is written.
    """
    kernel = kernel_of(mem)
    dump = _from_records((f"record {i}", r) for i, r in enumerate(records))
    return _restore(kernel, dump, "records")


def _check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise InvalidInput(f"format={fmt!r} is unknown; use one of {list(FORMATS)}")
    return fmt


def export_memory(
    mem: MemoryLike,
    target: str | os.PathLike[str] | IO[str],
    *,
    format: str = "jsonl",  # noqa: A002
) -> TransferReport:
    """Write every version and all metadata of a memory to a file or text stream.

    Args:
        mem: the memory to export (it is only read).
        target: a path or a text stream. A path is replaced atomically (temp file in its
            folder, fsync, rename): a crash or a failure leaves the previous file whole.
        format: ``"jsonl"`` (canonical backup), ``"graphml"`` or ``"node-link"``.

    Returns:
        What was written.

    Raises:
        InvalidInput: an unknown format, text GraphML cannot hold (control characters), a
            path that cannot be written, or one that must not be replaced: a file of the
            memory's own database, a directory, a device (nothing is written).
    """
    kernel = kernel_of(mem)
    _check_format(format)
    if isinstance(target, (str, os.PathLike)):
        why = replaceable(target, protected=kernel.store.capabilities.files)
        if why is not None:
            raise InvalidInput(
                f"target={os.fspath(target)!r} cannot be an export: {why}; nothing was "
                "written; pass the path of a new file (or of an earlier export) outside the "
                "database"
            )
    dump = _dump(kernel)
    if isinstance(target, (str, os.PathLike)):
        # Render first: a failure (GraphML-incompatible text) leaves no half-written file.
        buf = io.StringIO()
        REGISTRY[format].write(dump, buf)
        try:
            # Temp file, fsync, rename (graphmem.fileio): a crash or a full disk leaves the
            # previous backup whole.
            with atomic_write(target) as fh:
                fh.write(buf.getvalue())
        except OSError as exc:
            raise InvalidInput(
                f"target={os.fspath(target)!r} cannot be written: {exc.strerror}; any previous "
                "file there is unchanged; pass a path in an existing, writable folder with "
                "free space"
            ) from exc
    else:
        REGISTRY[format].write(dump, target)
    marker = dump.header.get("last_write")
    return dump.report(format, None if marker is None else to_utc(marker))


def _sniff(text: str) -> str:
    head = text.lstrip()
    if head.startswith("<"):
        return "graphml"
    first = head.split("\n", 1)[0]
    try:
        rec = json.loads(first)
    except json.JSONDecodeError:
        return "node-link"
    except RecursionError:
        return "jsonl"  # not an export's header: the reader names the line
    return "jsonl" if isinstance(rec, dict) and rec.get("type") == "header" else "node-link"


def import_memory(
    mem: MemoryLike,
    source: str | os.PathLike[str] | IO[str],
    *,
    format: str | None = None,  # noqa: A002
) -> TransferReport:
    """Restore an export into an **empty** memory, keeping ids and system times exactly.

    The import bypasses the write decisions: it restores the recorded history, it does not
    re-decide it. Everything is validated first and written in one transaction; the store's
    last-write marker becomes the newest system time imported.

    Args:
        mem: an empty memory (a fresh database).
        source: a path or a text stream holding an export.
        format: ``"jsonl"``, ``"graphml"`` or ``"node-link"``; detected from the content when
            ``None``.

    Returns:
        What was imported.

    Raises:
        InvalidInput: the memory is not empty, the format is unknown, or the file is not a
            valid export (the message says where), or the path cannot be read as UTF-8 text;
            nothing is written.
    """
    kernel = kernel_of(mem)
    if format is not None:
        _check_format(format)
    if isinstance(source, (str, os.PathLike)):
        try:
            with open(source, encoding="utf-8", newline="") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            why = exc.strerror if isinstance(exc, OSError) else f"not UTF-8 text ({exc.reason})"
            raise InvalidInput(
                f"source={os.fspath(source)!r} cannot be read: {why}; pass the path of a file "
                "written by export_memory (graphmem export)"
            ) from exc
    else:
        text = source.read()
    fmt = format or _sniff(text)
    dump = REGISTRY[fmt].read(text)
    return _restore(kernel, dump, fmt)


# The snapshots used to live here; existing code imports them from here.
from graphmem.graphs import neighborhood, to_networkx  # noqa: E402
