"""The line index kept in a file beside the database (docs/concepts/recall.md#line-index-file).

A new process's first search builds the in-memory line index (:mod:`graphmem.store.lineindex`)
from every stored line: about half a second at 200k lines. A writable store that built it
saves it beside the database (``<db>.graphmem-lines``: the lines' columns, the postings, the
vocabulary) when it closes, or when :func:`graphmem.context.prepare` asks; the next process
maps the file and searches at once.

The file is a cache, never the truth:

- it names the store's ``lines_gen`` it holds (every line write changes it, in the write's
  transaction) and the :data:`graphmem.normalize.TERMS_VERSION` of its terms, and is used only
  while both match the store; a damaged file (its checksum) is ignored;
- a line write removes it before its transaction begins, so a purged text is not left in it,
  even when the process is killed before the commit;
- it is written to a temporary file and renamed over the old one (``atomic_write``), by the
  one process that writes the database; readers only read it.

Layout: a magic string, the header's length (8 bytes, little-endian), the header (JSON: the
generation, the terms version, the payload's Adler-32, each part's place), then the parts at
64-byte boundaries: the columns as one Arrow IPC stream, the vocabulary (JSON), NumPy arrays.
"""

from __future__ import annotations

import contextlib
import json
import mmap
import os
import zlib
from typing import Any

from graphmem.fileio import atomic_write

__all__ = ["SUFFIX", "load", "remove", "save"]

#: The file's name: the database's path and this.
SUFFIX = ".graphmem-lines"
_MAGIC = b"graphmem-lines\x00\x01"
_ALIGN = 64


def _pad(n: int) -> int:
    return -n % _ALIGN


def save(
    path: str,
    *,
    gen: str,
    terms: str,
    columns: Any,
    vocab: list[str],
    arrays: dict[str, Any],
) -> None:
    """Write the file at ``path`` (atomically): ``columns`` an Arrow table, ``arrays`` NumPy."""
    import numpy as np
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, columns.schema) as writer:
        writer.write_table(columns)
    blobs: list[tuple[str, str, bytes | memoryview]] = [
        ("columns", "arrow", sink.getvalue().to_pybytes()),
        ("vocab", "json", json.dumps(vocab, ensure_ascii=False).encode("utf-8")),
    ]
    for name, arr in sorted(arrays.items()):
        a = np.ascontiguousarray(arr)
        blobs.append((name, a.dtype.str, a.tobytes()))
    parts, at, checksum = [], 0, 1
    for name, kind, blob in blobs:
        parts.append([name, kind, at, len(blob)])
        checksum = zlib.adler32(blob, checksum)
        pad = _pad(len(blob))
        checksum = zlib.adler32(b"\0" * pad, checksum)
        at += len(blob) + pad
    header = json.dumps(
        {"gen": gen, "terms": terms, "checksum": checksum, "size": at, "parts": parts}
    ).encode("utf-8")
    head = _MAGIC + len(header).to_bytes(8, "little") + header
    head += b"\0" * _pad(len(head))
    with atomic_write(path, "wb", durable=False) as fh:
        fh.write(head)
        for _, _, blob in blobs:
            fh.write(blob)
            fh.write(b"\0" * _pad(len(blob)))


def load(path: str, *, gen: str, terms: str) -> tuple[Any, list[str], dict[str, Any]] | None:
    """``(columns, vocabulary, arrays)`` of the file at ``path``, or ``None``.

    ``None`` unless it holds generation ``gen`` of terms version ``terms``, whole (missing,
    another generation, damaged: ``None``).
    """
    import numpy as np
    import pyarrow as pa

    try:
        with open(path, "rb") as fh:
            mm = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # missing, or empty
        return None
    try:
        if mm[: len(_MAGIC)] != _MAGIC:
            return None
        size = int.from_bytes(mm[len(_MAGIC) : len(_MAGIC) + 8], "little")
        start = len(_MAGIC) + 8
        header = json.loads(mm[start : start + size].decode("utf-8"))
        if header.get("gen") != gen or header.get("terms") != terms:
            return None
        base = start + size + _pad(start + size)
        if base + header["size"] != len(mm):
            return None
        view = memoryview(mm)
        if zlib.adler32(view[base:]) != header["checksum"]:
            return None
        columns, vocab, arrays = None, [], {}
        for name, kind, at, length in header["parts"]:
            part = view[base + at : base + at + length]
            if kind == "arrow":
                columns = pa.ipc.open_stream(pa.py_buffer(part)).read_all()
            elif kind == "json":
                vocab = json.loads(bytes(part).decode("utf-8"))
            else:
                arrays[name] = np.frombuffer(part, dtype=np.dtype(kind))
        if columns is None:
            return None
        return columns, vocab, arrays
    except (ValueError, KeyError, TypeError, pa.ArrowException):
        return None


def remove(path: str) -> None:
    """Remove the file at ``path`` if there is one."""
    with contextlib.suppress(OSError):  # (missing; a write never fails for a cache)
        os.remove(path)
