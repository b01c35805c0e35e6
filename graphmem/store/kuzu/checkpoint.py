"""Checkpoints a kill cannot break: the database file is copied before each one (Kuzu 0.11.3).

Measured (docs/concepts/storage.md#checkpoint-base): a Kuzu 0.11.3 ``CHECKPOINT`` killed
while the write-ahead log holds node inserts can leave a data file whose primary-key index
already holds the inserted keys (written in place, before the checkpoint is logged), while the
log still holds the inserts and no checkpoint record: the next open replays the log, fails
with "Found duplicated primary key value ...", and refuses the file. The log is *not*
redundant then: the data file without it lacks the checkpointed commits, and its index keeps
their keys forever (a later ``CREATE`` of them fails). What the file was before the checkpoint
and the log together hold every commit, and Kuzu replays that pair without error.

So before every checkpoint of a file whose log holds commits (an explicit ``CHECKPOINT``, and
the close, which checkpoints by itself), the data file is copied to ``<db>.graphmem-base``
(flushed and renamed into place); the copy goes once the checkpoint has returned. An open that
finds a copy and an empty log removes it (the checkpoint finished). An open whose probe fails
with exactly that replay error while a copy is there puts the copy back in place of the torn
data file (the log stays and is replayed: nothing is lost; the torn file holds nothing the
copy and the log do not), probes again, and reports what it did.

A copy is kept, never refreshed, while a checkpoint after it has not finished (one was killed
before this open, or raised): the data file may hold part of that checkpoint since.

Every step here runs while its process holds the gate (:class:`graphmem.store.locks.Gate`,
docs/concepts/storage.md#the-gate): the copy, the checkpoint and dropping the copy in the
process that checkpoints; tidying and putting back the copy in a process that opens. Without
it, an opener's probe met a live checkpoint's state and took it for a killed one, or removed
the copy being written.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Callable

from graphmem.errors import StoreBusy, StoreError
from graphmem.fileio import fsync_dir

__all__ = [
    "BASE_SUFFIX",
    "REPLAY_ERROR",
    "Checkpointer",
    "log_pending",
    "replay_failed",
    "restore_base",
    "settle_before_open",
]

#: The copy of the data file taken before a checkpoint (next to the database file).
BASE_SUFFIX = ".graphmem-base"
#: Kuzu's error when it replays a log over a file a killed checkpoint left half-written.
REPLAY_ERROR = "duplicated primary key value"
#: Temporary files: the copy being written, the data file being put back.
_COPYING = BASE_SUFFIX + ".tmp"
_RESTORING = ".graphmem-restore.tmp"


def log_pending(path: str) -> bool:
    """Whether the write-ahead log of ``path`` holds anything (commits not checkpointed)."""
    try:
        return os.path.getsize(path + ".wal") > 0
    except OSError:
        return False


def replay_failed(message: str) -> bool:
    """Whether an open failed replaying a log over a file a killed checkpoint left torn."""
    return REPLAY_ERROR in " ".join(message.split()).lower()


def _copy_durable(src: str, dst: str, tmp: str) -> None:
    """Copy ``src`` to ``dst`` through ``tmp``: flushed, renamed, the folder flushed."""
    try:
        shutil.copyfile(src, tmp)
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, dst)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(os.path.dirname(os.path.abspath(dst)))


def settle_before_open(path: str) -> None:
    """Tidy the copies before an open: drop a leftover temporary file and a finished copy.

    A copy with an empty log belongs to a checkpoint that finished (Kuzu empties the log last)
    and is removed; a copy with a log is kept for :func:`restore_base`.
    """
    for leftover in (path + _COPYING, path + _RESTORING):
        with contextlib.suppress(OSError):
            os.unlink(leftover)
    base = path + BASE_SUFFIX
    if os.path.exists(base) and not log_pending(path):
        with contextlib.suppress(OSError):
            os.unlink(base)


def restore_base(path: str) -> str:
    """Put the copy taken before a killed checkpoint back in place of the torn data file.

    The write-ahead log is left as it is: the engine replays it over the copy, which is the
    file it was written against. Refuses while another process holds the database.

    Returns:
        What was done, for the log and the caller's report.

    Raises:
        StoreBusy: another process has the database open.
        StoreError: there is no copy, or it cannot be put in place.
    """
    try:
        import fcntl
    except ImportError:  # Windows: no POSIX locks (nor Kuzu's own fcntl lock to test for)
        fcntl = None  # type: ignore[assignment]

    base = path + BASE_SUFFIX
    if not os.path.isfile(base):
        raise StoreError(f"database {path!r} has no copy {base!r} to restore")
    with open(path, "rb+") as held:
        try:  # Kuzu locks the file with fcntl: this fails while an engine holds it
            if fcntl is not None:
                fcntl.lockf(held.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            raise StoreBusy(
                f"database {path!r} needs its copy {base!r} restored, but another process has "
                "it open; stop that process, then open it again"
            ) from exc
        try:
            _copy_durable(base, path, path + _RESTORING)
        except OSError as exc:
            raise StoreError(
                f"database {path!r}: a checkpoint was killed and its write-ahead log cannot be "
                f"replayed, and the copy {base!r} taken before it could not be put in place "
                f"({exc}); free disk space and open it again, or copy {base!r} over {path!r} "
                "by hand (keep its .wal)"
            ) from exc
    return (
        f"a checkpoint of {path!r} was killed and left the file half-written (Kuzu: "
        f"'{REPLAY_ERROR}' replaying its write-ahead log); the copy taken before that "
        "checkpoint was put back and the log replayed over it, so no commit is lost "
        "(docs/concepts/storage.md#checkpoint-base)"
    )


class Checkpointer:
    """Run a store's checkpoints with a copy of the data file before each (module docstring)."""

    def __init__(self, path: str) -> None:
        self.path = path
        #: A copy that must not be refreshed: found on open, or a checkpoint after it failed.
        self.keep = os.path.exists(path + BASE_SUFFIX)

    def before(self) -> None:
        """Copy the data file (unless a copy must be kept) when the log holds commits.

        Raises:
            OSError: the copy cannot be written (a full disk); do not checkpoint then.
        """
        if self.keep or not log_pending(self.path):
            return
        _copy_durable(self.path, self.path + BASE_SUFFIX, self.path + _COPYING)

    def after(self, ok: bool) -> None:
        """Drop the copy after a checkpoint that returned with an empty log; else keep it."""
        if not ok or log_pending(self.path):
            self.keep = self.keep or os.path.exists(self.path + BASE_SUFFIX)
            return
        try:
            os.unlink(self.path + BASE_SUFFIX)
        except FileNotFoundError:
            pass
        except OSError:
            return  # refreshed (overwritten) by the next checkpoint: self.keep stays False
        self.keep = False

    def run(self, checkpoint: Callable[[], None]) -> None:
        """Copy, call ``checkpoint``, drop the copy; a failure keeps the copy and re-raises."""
        self.before()
        try:
            checkpoint()
        except BaseException:
            self.after(False)
            raise
        self.after(True)
