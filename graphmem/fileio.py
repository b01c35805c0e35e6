"""Durable file writes: every file graphmem writes goes through this module.

- :func:`atomic_write` replaces a file as a whole: the data goes to a temporary file in the
  target's directory (a rename is atomic only within one file system), is flushed and
  ``fsync``-ed, then renamed over the target, and the directory is ``fsync``-ed so the rename
  itself survives a power loss. A crash at any moment leaves the old file or the new one, never
  a mix and never an empty file. A failure (an exception, a full disk) removes the temporary
  file and leaves the target untouched. Only a SIGKILL or a power loss can leave the temporary
  file behind: it is named ``.<target name>.<random>.tmp`` and is never read.
- :func:`append_durable` appends to an append-only log: one ``write`` of the whole record,
  then flush and ``fsync``. A crash can only cut the *last* line short; readers skip a line
  that does not parse, and the next append starts on a new line.

A symbolic link as the target is resolved first, so the file it points to is replaced and the
link stays a link.

>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as d:
...     p = pathlib.Path(d, "backup.txt")
...     with atomic_write(p) as fh:
...         _ = fh.write("hello")
...     p.read_text()
'hello'
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any, Literal, overload

__all__ = ["append_durable", "atomic_write", "fsync_dir", "real_path", "replaceable"]

StrPath = str | os.PathLike[str]


def real_path(path: StrPath) -> str:
    """Return the absolute path with every symbolic link resolved (the file that is written)."""
    return os.path.realpath(os.fspath(path))


def fsync_dir(directory: StrPath) -> None:
    """Make renames and creations in ``directory`` durable (a no-op where impossible).

    Windows cannot open a directory; the data itself is already on disk, so failures are
    ignored.
    """
    try:
        fd = os.open(os.fspath(directory), os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def replaceable(path: StrPath, *, protected: Iterable[StrPath] = ()) -> str | None:
    """Say why :func:`atomic_write` must not replace ``path``, or ``None`` when it may.

    A directory or a special file (a device such as ``/dev/full``, a FIFO, a socket) is never
    replaced by a regular file, and neither is any of the ``protected`` files (an open
    database and the files beside it), whatever the path names them by (a symbolic or hard
    link, ``..``).

    >>> replaceable("/dev/null")
    'it is a special file (a device, FIFO or socket), not a regular file'
    """
    target = real_path(path)
    try:
        st = os.stat(target)
    except OSError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        return "it is a directory"
    if st is not None and not stat.S_ISREG(st.st_mode):
        return "it is a special file (a device, FIFO or socket), not a regular file"
    for other in protected:
        other_real = real_path(other)
        same = target == other_real or target.startswith(other_real + os.sep)
        if not same and st is not None:
            with contextlib.suppress(OSError):
                same = os.path.samefile(target, other_real)
        if same:
            return f"it is {os.fspath(other)!r}, a file of the open database"
    return None


@overload
def atomic_write(
    path: StrPath,
    mode: Literal["w"] = "w",
    *,
    encoding: str = "utf-8",
    newline: str | None = "",
    replace: Callable[[str, str], None] = os.replace,
    durable: bool = True,
) -> contextlib.AbstractContextManager[IO[str]]: ...


@overload
def atomic_write(
    path: StrPath,
    mode: Literal["wb"],
    *,
    encoding: str = "utf-8",
    newline: str | None = "",
    replace: Callable[[str, str], None] = os.replace,
    durable: bool = True,
) -> contextlib.AbstractContextManager[IO[bytes]]: ...


def atomic_write(
    path: StrPath,
    mode: Literal["w", "wb"] = "w",
    *,
    encoding: str = "utf-8",
    newline: str | None = "",
    replace: Callable[[str, str], None] = os.replace,
    durable: bool = True,
) -> contextlib.AbstractContextManager[IO[str]] | contextlib.AbstractContextManager[IO[bytes]]:
    """Open a file for writing that replaces ``path`` only when the block ends without error.

    Args:
        path: the target; its directory must exist. A symbolic link is followed.
        mode: ``"w"`` (text) or ``"wb"`` (bytes).
        encoding: the text encoding (text mode).
        newline: newline translation (text mode); ``""`` writes line ends as given.
        replace: the rename step, ``os.replace`` by default (a seam for crash tests).
        durable: ``False`` skips both ``fsync`` calls (still atomic, not durable: for files
            whose loss costs nothing, such as the database seal).

    Returns:
        A context manager yielding the open temporary file.

    Raises:
        OSError: the file cannot be created, written or renamed, or the target is a directory
            or a special file (:func:`replaceable`); the target is left untouched.
        ValueError: ``mode`` is not ``"w"`` or ``"wb"``.
    """
    if mode not in ("w", "wb"):
        raise ValueError(f"mode={mode!r}; atomic_write writes whole files: use 'w' or 'wb'")
    why = replaceable(path)
    if why is not None:
        # A rename would put a regular file in its place (as root even over /dev/full).
        raise OSError(errno.EISDIR if "directory" in why else errno.EINVAL, why, os.fspath(path))
    opened: contextlib.AbstractContextManager[Any] = _atomic(
        real_path(path), mode, encoding, newline, replace, durable
    )
    return opened  # the overloads give the file type


@contextlib.contextmanager
def _atomic(
    target: str,
    mode: str,
    encoding: str,
    newline: str | None,
    replace: Callable[[str, str], None],
    durable: bool,
) -> Iterator[IO[str] | IO[bytes]]:
    directory = os.path.dirname(target)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(target)}.", suffix=".tmp")
    try:
        fh: IO[str] | IO[bytes]
        if mode == "wb":
            fh = os.fdopen(fd, "wb")
        else:
            fh = os.fdopen(fd, "w", encoding=encoding, newline=newline)
        with fh:
            yield fh
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        with contextlib.suppress(OSError):  # keep the target's permissions when it exists
            os.chmod(tmp, os.stat(target).st_mode & 0o7777)
        replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_dir(directory)


def append_durable(path: StrPath, data: bytes) -> None:
    """Append ``data`` to an append-only log, then flush and ``fsync`` it.

    If an earlier crash cut the last line short, ``data`` starts on a new line.

    Raises:
        OSError: the file cannot be written.
    """
    with open(os.fspath(path), "a+b") as fh:
        fh.seek(0, os.SEEK_END)
        if fh.tell() > 0:
            fh.seek(-1, os.SEEK_END)
            if fh.read(1) != b"\n":
                data = b"\n" + data
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
