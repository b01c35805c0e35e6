"""Who holds a database: one open handle per path in this process, and the lock's owner.

Kuzu 0.11.3 locks the database file with a POSIX lock (``fcntl``), which only excludes *other*
processes: a second ``Database`` on the same path inside one process opens without error and
the two handles then silently lose each other's writes. :func:`claim` closes that gap with a
per-process registry (any number of read-only handles, or exactly one handle that writes), and
:func:`describe_holder` names the process that holds the lock (Linux ``/proc/locks``) so that
:class:`~graphmem.errors.StoreBusy` can say who to stop.
"""

from __future__ import annotations

import os
import threading
import weakref
from dataclasses import dataclass, field

from graphmem.errors import StoreBusy

__all__ = ["Claim", "claim", "describe_holder", "lock_holders"]

_GUARD = threading.Lock()
#: realpath -> live claims (a weak reference to each owner, and whether it only reads).
_OPEN: dict[str, list[tuple[weakref.ref[object], bool]]] = {}


class _Anchor:
    """Stands in for an owner when none is given (lives as long as its claim)."""


@dataclass
class Claim:
    """A registered open handle; :meth:`release` it when the handle closes (idempotent)."""

    key: str | None
    read_only: bool
    _ref: weakref.ref[object] | None = field(default=None, repr=False)
    _anchor: object = field(default=None, repr=False)
    released: bool = False

    def release(self) -> None:
        """Forget this handle."""
        if not self.released and self.key is not None:
            with _GUARD:
                live = _OPEN.get(self.key, [])
                live[:] = [(r, ro) for r, ro in live if r is not self._ref and r() is not None]
                if not live:
                    _OPEN.pop(self.key, None)
        self.released = True


def _key(path: str) -> str:
    return os.path.realpath(os.path.abspath(os.path.expanduser(path)))


def claim(path: str | None, *, read_only: bool, owner: object | None = None) -> Claim:
    """Register an open handle on ``path`` in this process.

    Args:
        path: the database path (``None``, in memory, is never shared).
        read_only: whether the handle only reads.
        owner: the object whose lifetime bounds the claim (a claim whose owner was garbage
            collected without closing no longer counts).

    Returns:
        The claim; release it when the handle closes.

    Raises:
        StoreBusy: the path is already open in this process for writing, or is open for
            reading and this handle wants to write.
    """
    if path is None:
        return Claim(None, read_only)
    key = _key(path)
    anchor = None if owner is not None else _Anchor()
    ref: weakref.ref[object] = weakref.ref(owner if owner is not None else anchor)
    with _GUARD:
        live = [(r, ro) for r, ro in _OPEN.get(key, []) if r() is not None]
        if live and (not read_only or not all(ro for _, ro in live)):
            mode = "read-only" if all(ro for _, ro in live) else "for writing"
            raise StoreBusy(
                f"database {path!r} is already open {mode} in this process; a second handle "
                "would lose writes: reuse the open Memory or close it first (mem.close()); "
                "several read-only handles may coexist"
            )
        live.append((ref, read_only))
        _OPEN[key] = live
    c = Claim(key, read_only, ref, anchor)
    return c


def lock_holders(path: str) -> list[tuple[int, str]]:
    """Return ``(pid, "READ" | "WRITE")`` of the processes holding a lock on ``path``.

    Linux only (``/proc/locks``); elsewhere, or when the file is missing, an empty list.
    """
    try:
        st = os.stat(path)
        with open("/proc/locks", encoding="ascii", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return []
    found: list[tuple[int, str]] = []
    for line in lines:
        parts = line.split()
        if "->" in parts:  # a waiter, not a holder
            continue
        try:
            mode, pid, dev_ino = parts[3], int(parts[4]), parts[5]
            ino = int(dev_ino.rsplit(":", 1)[1])
        except (IndexError, ValueError):
            continue
        if ino == st.st_ino and pid != os.getpid():
            found.append((pid, mode))
    return found


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            raw = fh.read()
    except OSError:
        return ""
    text = " ".join(raw.decode("utf-8", "replace").split("\0")).strip()
    return text if len(text) <= 80 else text[:77] + "..."


def describe_holder(path: str) -> str:
    """Describe who holds ``path``: ``"process 123 (graphmem mcp), writing"`` or a fallback."""
    holders = lock_holders(path)
    if not holders:
        return "another process"
    parts = []
    for pid, mode in holders[:3]:
        cmd = _cmdline(pid) if pid > 0 else ""
        who = f"process {pid}" if pid > 0 else "a process in another namespace"
        what = "writing" if mode == "WRITE" else "reading"
        parts.append(f"{who}{f' ({cmd})' if cmd else ''}, {what}")
    return "; ".join(parts)
