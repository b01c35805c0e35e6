"""Open protection: a damaged database file fails fast with a clear error, never hangs.

Kuzu 0.11.3 has no page checksums. Measured (docs/concepts/storage.md#damaged-files): one
zeroed 4 KB page in the middle of an 11 MB database makes ``kuzu.Database(path)`` spin inside
its constructor, growing by about 0.6 GB a second (4.7 GB after 8 s, with a 256 MB buffer
pool), read-only or not; other zeroed pages give a clean engine error or go unnoticed until
``graphmem check``. A hung constructor cannot be interrupted from Python, so the first open of
a file that *may* be damaged happens in a child process with a time and memory bound:

- **The seal.** A clean close of a writable store writes ``<db>.graphmem-seal`` (size,
  modification time and inode of the file it left). An open whose file still matches its seal,
  with no write-ahead log waiting, goes straight to the engine: the cost of a normal open is
  one ``stat`` and a small JSON read.
- **The probe.** Any other file (changed since its seal: a crash, another tool, a damaged
  disk; or never sealed: a database from an older graphmem) is first opened by a child process
  (``python -c 'import kuzu; kuzu.Database(path, read_only=True)'``) that must finish within
  :data:`PROBE_SECONDS` of CPU time (plus 1 s per 100 MB) and stay below :data:`PROBE_MEMORY`
  (plus 4x the file) resident memory, checked every 20 ms; it dies with its parent. If it
  does not, or the engine reports damage, the open raises
  :class:`~graphmem.errors.StoreError` naming ``graphmem check`` and the backup to restore.
  The probe costs one interpreter start and engine import (about 0.3 s on 2 cores), once per
  change: a read-only open seals the file it probed.
- **The write-ahead log.** Neither engine reports a write-ahead log it cannot replay: Kuzu
  0.11.3 and ladybug 0.22 both drop a garbage log silently, read-only or not (measured). A log
  is checked before the engine sees it: a Kuzu log starts with a BEGIN TRANSACTION record
  (byte ``0x01``), or is one CHECKPOINT record (``0xFE``) beside the shadow file when a
  checkpoint was killed after logging itself (the engine completes it); a ladybug log starts
  with the 16-byte database id stored in the database file's header. A log that fails the
  check is reported (the writes it holds would be lost) and the open refuses to go on.
- **A killed checkpoint.** Kuzu only: a probe that fails replaying the log with "duplicated
  primary key value" while the copy taken before a checkpoint is there (a checkpoint was
  killed: :mod:`graphmem.store.kuzu.checkpoint`) puts the copy back and probes again; the
  open reports it (a warning on the ``graphmem.store`` logger, and the returned note).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import subprocess
import sys
import time
from collections.abc import Callable

from graphmem.errors import StoreError
from graphmem.store.kuzu import checkpoint

_log = logging.getLogger("graphmem.store")

__all__ = ["PROBE_MEMORY", "PROBE_SECONDS", "SEAL_SUFFIX", "check_before_open", "seal"]

#: The seal file's suffix (next to the database file).
SEAL_SUFFIX = ".graphmem-seal"
#: A probing open must finish within this many seconds, plus 1 s per 100 MB of file.
PROBE_SECONDS = 15.0
#: ... and stay below this many bytes of resident memory, plus 4x the file size. The time is
#: CPU time where the system reports it (Linux): a busy machine slows a probe down without
#: making it fail; wall time is bounded at WALL_FACTOR times as much.
PROBE_MEMORY = 1 << 30
WALL_FACTOR = 8

_PROBE = """
import os, sys
if sys.platform == "linux":  # die with the opener: a killed open leaves no probe behind
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except Exception:
        pass
    if os.getppid() != int(sys.argv[3]):
        sys.exit(5)  # the opener died before the signal was set
mod = __import__(sys.argv[1])
try:
    mod.Database(sys.argv[2], read_only=True).close()
except RuntimeError as exc:
    text = " ".join(str(exc).split())
    sys.stderr.write(text)
    low = text.lower()
    if "lock" in low:
        sys.exit(4)
    if "shadow pages" in low or "recovery is pending" in low:
        sys.exit(3)
    sys.exit(2)
"""


def _stamp(path: str) -> dict[str, int]:
    st = os.stat(path)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ino": st.st_ino}


def seal(path: str, engine: str) -> None:
    """Record that ``path`` was left whole by a clean close (best effort: errors are ignored)."""
    from graphmem.fileio import atomic_write

    with contextlib.suppress(OSError):
        record = {**_stamp(path), "engine": engine}
        with atomic_write(path + SEAL_SUFFIX, durable=False) as fh:
            fh.write(json.dumps(record, sort_keys=True))


def _sealed(path: str, engine: str) -> bool:
    try:
        with open(path + SEAL_SUFFIX, encoding="utf-8") as fh:
            record = json.load(fh)
        return isinstance(record, dict) and record == {**_stamp(path), "engine": engine}
    except (OSError, ValueError):
        return False


def _advice(path: str) -> str:
    return (
        "restore the last backup into a new database ('graphmem --db NEW_PATH import "
        "BACKUP.jsonl') and verify it with 'graphmem --db NEW_PATH check'; keep the damaged "
        f"file {path!r} aside for inspection (docs/concepts/storage.md)"
    )


#: The first bytes of a database file of each engine.
MAGIC = {"kuzu": b"KUZU", "ladybug": b"LBUG"}


def _check_magic(path: str, engine: str) -> None:
    """Refuse a file that does not start like a database file of any engine."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(4)
    except OSError:
        return  # the engine reports it
    if not head or head in MAGIC.values():
        return  # empty (the engine reports it), or another engine's file (so does the engine)
    raise StoreError(
        f"{path!r} is not a graphmem database: it does not start with a {engine} database "
        "header (is it another kind of file?); pass the path of a graphmem database, or a new "
        "path to create one. If it was a graphmem database, its header is damaged: " + _advice(path)
    )


#: The first byte of a Kuzu 0.11.3 log record: BEGIN TRANSACTION, and CHECKPOINT.
_BEGIN_TRANSACTION, _CHECKPOINT = 0x01, 0xFE


def _check_wal(path: str, engine: str) -> None:
    wal = path + ".wal"
    try:
        with open(wal, "rb") as fh:
            head = fh.read(16)
    except OSError:
        return
    if not head:
        return
    if engine == "ladybug":
        with open(path, "rb") as fh:
            ident = fh.read(44)[28:44]
        ok = len(head) == 16 and head == ident
    else:
        # A transaction, or a checkpoint killed after it logged itself: Kuzu finishes that
        # checkpoint from the shadow file (docs/concepts/storage.md#the-write-ahead-log).
        ok = head[0] == _BEGIN_TRANSACTION or (
            head[0] == _CHECKPOINT and os.path.exists(path + ".shadow")
        )
    if not ok:
        raise StoreError(
            f"the write-ahead log {wal!r} of database {path!r} is damaged or belongs to another "
            "database: it cannot be replayed, and opening would silently drop the writes it "
            f"holds; keep a copy of it, then move it aside to open the file without them, or "
            f"{_advice(path)}"
        )


def _rss(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/statm", encoding="ascii") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def _cpu_seconds(pid: int) -> float | None:
    """Return the CPU time a process used (a busy machine slows a probe, it does not damage it)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _probe(path: str, module: str) -> tuple[str, int | None, str]:
    """Open ``path`` read-only in a bounded child; return (why it was stopped, exit code, error)."""
    size = os.path.getsize(path)
    limit_s = PROBE_SECONDS + size / 100e6
    limit_b = PROBE_MEMORY + 4 * size
    started = time.monotonic()
    proc = subprocess.Popen(
        # No preexec_fn: code run between fork and exec can deadlock when the opener has
        # other threads (the engine's); the probe sets its parent-death signal itself.
        [sys.executable, "-c", _PROBE, module, path, str(os.getpid())],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    why = ""
    try:
        while proc.poll() is None:
            elapsed = time.monotonic() - started
            cpu = _cpu_seconds(proc.pid)
            rss = _rss(proc.pid)
            if (cpu if cpu is not None else elapsed) > limit_s:
                why = f"opening it did not finish within {limit_s:.0f} s of CPU time"
            elif elapsed > WALL_FACTOR * limit_s:
                why = f"opening it did not finish within {WALL_FACTOR * limit_s:.0f} s"
            elif rss is not None and rss > limit_b:
                why = f"opening it used more than {limit_b / 2**20:,.0f} MB of memory"
            if why:
                proc.kill()
                break
            time.sleep(0.02)
        _, err = proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    msg = err.decode("utf-8", "replace").strip()[-500:] or f"exit status {proc.returncode}"
    return why, proc.returncode, msg


def check_before_open(
    path: str, engine: str, module: str, *, before_probe: Callable[[], None] | None = None
) -> str | None:
    """Refuse a damaged database file or write-ahead log before the engine opens it.

    Kuzu: a file a killed checkpoint left torn is first restored from the copy taken before
    that checkpoint (:mod:`graphmem.store.kuzu.checkpoint`). ``before_probe`` runs only when
    the file must be probed (the opener refuses there a file another process holds).

    Returns:
        What a recovery did (``None`` when there was none), for the caller to report.

    Raises:
        StoreError: the log cannot be replayed, or a probing open failed, did not finish in
            time or grew beyond its memory bound; the message names ``graphmem check`` and the
            backup.
        StoreBusy: a torn file must be restored while another process has it open.
    """
    if not os.path.isfile(path):
        return None  # a new database, or a directory the engine will refuse by itself
    _check_magic(path, engine)
    if engine == "kuzu":
        checkpoint.settle_before_open(path)
    _check_wal(path, engine)
    wal = path + ".wal"
    if _sealed(path, engine) and not (os.path.exists(wal) and os.path.getsize(wal)):
        return None
    if before_probe is not None:
        before_probe()
    why, code, msg = _probe(path, module)
    note = None
    if (
        engine == "kuzu"
        and not why
        and code == 2
        and checkpoint.replay_failed(msg)
        and os.path.exists(path + checkpoint.BASE_SUFFIX)
    ):
        note = checkpoint.restore_base(path)
        why, code, msg = _probe(path, module)
        if why or code not in (0, 3, 4):
            raise StoreError(
                f"database {path!r}: a checkpoint was killed, and its write-ahead log does not "
                f"replay even over the copy taken before it ({why or msg}); the copy stays as "
                f"{path + checkpoint.BASE_SUFFIX!r}; {_advice(path)}"
            )
        _log.warning("%s", note)
    if why:
        raise StoreError(f"database {path!r} looks damaged: {why}; {_advice(path)}")
    if code not in (0, 3, 4):
        raise StoreError(f"database {path!r} is damaged ({msg}); {_advice(path)}")
    if code == 0 and not (os.path.exists(wal) and os.path.getsize(wal)):
        seal(path, engine)  # probed as it is: the next open goes straight to the engine
    # 3 (a recovery only a writable open can run) and 4 (locked by a writer): the engine's own
    # open reports or handles those.
    return note
