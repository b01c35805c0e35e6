"""Who holds a database: one handle per path in this process, the lock's owner, and loans.

Kuzu 0.11.3 locks the database file with a POSIX lock (``fcntl``), which only excludes *other*
processes: a second ``Database`` on the same path inside one process opens without error and
the two handles then silently lose each other's writes. :func:`claim` closes that gap with a
per-process registry (any number of read-only handles, or exactly one handle that writes), and
:func:`describe_holder` names the process that holds the lock (Linux ``/proc/locks``) so that
:class:`~graphmem.errors.StoreBusy` can say who to stop. :class:`Lender` and :func:`borrow` let
a long-running holder (``graphmem mcp``) lend its database to short commands (the CLI).
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import socket
import stat
import struct
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Generic, NoReturn, TypeVar

from graphmem.errors import StoreBusy, StoreError

__all__ = [
    "GATE_SUFFIX",
    "GATE_TIMEOUT",
    "LEND_TIMEOUT",
    "Claim",
    "ClosedStore",
    "Gate",
    "Lender",
    "borrow",
    "claim",
    "describe_holder",
    "lease_address",
    "lock_holders",
    "peer_uid",
]

H = TypeVar("H")

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


class ClosedStore:
    """Stands in for the store of a closed memory: every use raises :class:`StoreError`.

    ``Memory.close()`` swaps its store for this, so a method called after ``close`` fails with
    a message that says what to do, whichever method it is (instead of an ``AttributeError``
    from deep inside the engine binding).

    >>> store = ClosedStore("agent.kuzu")
    >>> store.close()  # closing again is fine
    >>> store.query_facts()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    graphmem.errors.StoreError: memory 'agent.kuzu' is closed; open it again with graphmem.open(...)
    """

    def __init__(self, path: str | None) -> None:
        self.path = path

    def close(self) -> None:
        """Do nothing: the store is closed already."""

    def __getattr__(self, name: str) -> NoReturn:
        how = "graphmem.open()" if self.path is None else f"graphmem.open({self.path!r})"
        raise StoreError(f"memory {self.path or ':memory:'!r} is closed; open it again with {how}")


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


# -- lending a held database to other processes (docs/concurrency.md) ---------------------------
#
# Kuzu lets one process write or several read, never both, so a long-running holder (the MCP
# server) would lock every other process out. Instead it *lends* the database: it listens on a
# Unix socket named after the database path; a process that wants the database connects and
# sends one line, the holder finishes its current call, closes the database and answers
# ``lent``; the borrower opens the database, works, closes it and hangs up, and the holder
# opens it again. A borrower that dies hangs up too (the kernel closes its socket), so a loan
# never outlives its borrower.

#: How long a borrower waits for the holder to answer, and a holder's caller for a loan to end.
LEND_TIMEOUT = 30.0
_LINE = 1024


def _lease_dirs() -> list[str]:
    """The directories a lending socket may live in, best first (the same in every process).

    The user's runtime directory (``$XDG_RUNTIME_DIR/graphmem``), a ``graphmem-<uid>``
    directory under the temporary directory, and ``~/.graphmem/run``. A directory someone
    else created first (its owner or mode is wrong) is passed over (:func:`_trusted_dir`).
    """
    dirs = []
    runtime = os.environ.get("XDG_RUNTIME_DIR") or ""
    if runtime and os.path.isabs(runtime):
        dirs.append(os.path.join(runtime, "graphmem"))
    dirs.append(os.path.join(tempfile.gettempdir(), f"graphmem-{os.getuid()}"))
    dirs.append(os.path.join(os.path.expanduser("~"), ".graphmem", "run"))
    return dirs


def _trusted_dir(directory: str) -> bool:
    """Whether ``directory`` is a real directory of this user that no one else may enter."""
    try:
        st = os.lstat(directory)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def _trusted_socket(address: str) -> bool:
    """Whether ``address`` is a socket file of this user (not a link, not someone else's)."""
    try:
        st = os.lstat(address)
    except OSError:
        return False
    return stat.S_ISSOCK(st.st_mode) and st.st_uid == os.getuid()


def lease_address(path: str, *, create: bool = False) -> str | None:
    """Return the socket where a process holding ``path`` lends it (``None``: none usable).

    The socket lives in the first of :func:`_lease_dirs` that is private to this user (mode
    0700, owned by it; with ``create``, a missing one is made so), named by a hash of the
    database's real path (socket paths are limited to about 100 bytes, database paths are
    not). A directory another local user created first is never used: a socket there could
    hold every command of this user or read its command lines (docs/concurrency.md).
    """
    return next(_addresses(path, create=create), None)


def _addresses(path: str, *, create: bool = False) -> Iterator[str]:
    """The lending socket's possible addresses, in the private directories of this user."""
    if not hasattr(socket, "AF_UNIX"):  # pragma: no cover - Windows
        return
    digest = hashlib.sha256(_key(path).encode("utf-8", "surrogatepass")).hexdigest()[:24]
    for directory in _lease_dirs():
        address = os.path.join(directory, f"gm-{digest}.sock")
        if len(address.encode("utf-8", "surrogateescape")) > 100:
            continue  # beyond the length a Unix socket path may have
        if create and not os.path.lexists(directory):
            with contextlib.suppress(OSError):
                os.makedirs(directory, mode=0o700, exist_ok=True)
        if _trusted_dir(directory):
            yield address


def peer_uid(sock: socket.socket) -> int | None:
    """The user id of the process at the other end of a Unix socket (Linux), else ``None``."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None:  # pragma: no cover - not Linux
        return None
    raw = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    return int(struct.unpack("3i", raw)[1])


def _read_line(sock: socket.socket) -> str:
    data = b""
    while not data.endswith(b"\n") and len(data) < _LINE:
        chunk = sock.recv(_LINE - len(data))
        if not chunk:
            break
        data += chunk
    return data.decode("utf-8", "replace").strip()


def _who() -> str:
    cmd = _cmdline(os.getpid()) or "python"
    return f"process {os.getpid()} ({cmd})"


class Lender(Generic[H]):
    """Holds a database handle for this process and lends it to other processes that ask.

    ``use()`` gives the handle to this process's calls (one at a time); :func:`borrow` in
    another process asks for it. While a loan lasts ``use()`` waits (up to ``wait`` seconds)
    and the handle is closed; when the last borrower hangs up the handle is opened again.

    Args:
        path: the database path (its lending socket is :func:`lease_address`).
        opener: opens a new handle (it must raise :class:`StoreBusy` when the file is locked).
        wait: how long ``use()`` waits for a loan to end or the lock to free.
    """

    def __init__(self, path: str, opener: Callable[[], H], *, wait: float = LEND_TIMEOUT) -> None:
        self.path = path
        self.wait = wait
        self._opener = opener
        self._handle: H | None = None
        self._cond = threading.Condition(threading.RLock())
        self._loans: dict[int, str] = {}
        self._waiting = 0  # this process's calls waiting for a loan to end: they go first
        self._sock: socket.socket | None = None
        self.address: str | None = None
        self.loans_served = 0

    # -- this process's calls -----------------------------------------------------------------

    def start(self) -> None:
        """Open the handle and start lending (no lending without Unix sockets).

        Raises:
            StoreBusy: another process holds the database and does not lend it.
        """
        with self._cond:
            self._handle = self._opener()
        self._listen()

    @contextmanager
    def use(self) -> Iterator[H]:
        """Give the handle to one call; wait while it is lent out.

        Raises:
            StoreBusy: a loan lasted more than ``wait`` seconds, or the lock did not free.
        """
        with self._cond:
            # While a call waits, no new loan is granted (_lend): the loans out now end, and
            # the call goes next, however busy the borrowers are (docs/concurrency.md).
            self._waiting += 1
            try:
                free = self._cond.wait_for(lambda: not self._loans, timeout=self.wait)
            finally:
                self._waiting -= 1
                self._cond.notify_all()
            if not free:
                raise StoreBusy(
                    f"database {self.path!r} is lent to {'; '.join(self._loans.values())} for "
                    f"more than {self.wait:g} s; try again when that command has finished"
                )
            if self._handle is None:
                self._handle = self._open_retrying()
            yield self._handle

    def close(self) -> None:
        """Stop lending and close the handle."""
        sock, self._sock = self._sock, None
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.close()
            if self.address is not None:
                with contextlib.suppress(OSError):
                    os.unlink(self.address)
        with self._cond:
            self._release()

    def _release(self) -> None:
        handle, self._handle = self._handle, None
        if handle is not None:
            handle.close()  # type: ignore[attr-defined]

    def _open_retrying(self) -> H:
        deadline = time.monotonic() + self.wait
        delay = 0.01
        while True:
            try:
                return self._opener()
            except StoreBusy:
                if time.monotonic() + delay > deadline:
                    raise
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.5)

    # -- other processes ----------------------------------------------------------------------

    def _listen(self) -> None:
        address = lease_address(self.path, create=True)
        if address is None:
            return
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(address)
        except OSError:  # nobody there: a stale socket file (or none)
            with contextlib.suppress(OSError):
                os.unlink(address)
        else:  # pragma: no cover - another live lender of this path: leave it alone
            return
        finally:
            probe.close()
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(address)
            os.chmod(address, 0o600)
            # A burst of commands queues here instead of being refused (then StoreBusy).
            sock.listen(socket.SOMAXCONN)
        except OSError:  # pragma: no cover - e.g. a read-only temporary directory
            sock.close()
            return
        self._sock, self.address = sock, address
        threading.Thread(target=self._accept, args=(sock,), daemon=True, name="gm-lend").start()

    def _accept(self, sock: socket.socket) -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:  # closed by close()
                return
            threading.Thread(target=self._lend, args=(conn,), daemon=True).start()

    def _lend(self, conn: socket.socket) -> None:
        key = id(conn)
        with conn:
            try:
                conn.settimeout(5)
                request = _read_line(conn)
                if not request.startswith("borrow"):
                    return
                who = request.partition(" ")[2] or "another process"
                uid = peer_uid(conn)
                if uid is not None and uid != os.getuid():
                    return  # only this user's processes borrow (the socket is 0600 anyway)
                with self._cond:
                    # A call of this process that waits goes first (use()).
                    self._cond.wait_for(lambda: not self._waiting)
                    self._loans[key] = who
                    self._release()  # waits for the current call: the lock is held there
                    self.loans_served += 1
                conn.sendall(f"lent {_who()}\n".encode())
                conn.settimeout(None)
                while conn.recv(_LINE):  # until the borrower hangs up (or dies)
                    pass
            except OSError:
                pass
            finally:
                with self._cond:
                    if self._loans.pop(key, None) is not None and not self._loans:
                        with contextlib.suppress(StoreError):
                            # Open again now, so the next call does not pay for it.
                            self._handle = self._opener()
                    self._cond.notify_all()


@contextmanager
def borrow(path: str, *, timeout: float = LEND_TIMEOUT) -> Iterator[str | None]:
    """Borrow ``path`` from the process that holds it and lends it, for the ``with`` block.

    Yields the lender's description (``"process 4242 (graphmem mcp)"``), or ``None`` when no
    process lends this database (then open it as usual).

    Raises:
        StoreBusy: the lender did not let go within ``timeout`` seconds.
    """
    # The lender may run with another environment (an MCP client sets its own): look in
    # every private directory; a socket someone else put there is never talked to.
    address = next((a for a in _addresses(path) if _trusted_socket(a)), None)
    if address is None:
        yield None
        return
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        deadline = time.monotonic() + timeout
        delay = 0.005
        while True:
            try:
                sock.connect(address)
                break
            except (BlockingIOError, InterruptedError, TimeoutError) as exc:
                # The lender's queue is full (a burst of commands): wait for a place in it.
                if time.monotonic() + delay > deadline:
                    raise StoreBusy(
                        f"database {path!r} is held by a process whose lending queue stayed "
                        f"full for {timeout:g} s ({exc}); try again"
                    ) from exc
                sock.close()
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.2)
                sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                sock.settimeout(max(deadline - time.monotonic(), 0.01))
            except OSError:  # a stale socket: its process is gone
                yield None
                return
        uid = peer_uid(sock)
        if uid is not None and uid != os.getuid():
            yield None  # another user's process: send it nothing
            return
        try:
            sock.sendall(f"borrow {_who()}\n".encode())
            reply = _read_line(sock)
        except OSError as exc:
            raise StoreBusy(
                f"database {path!r} is held by a process that did not lend it within "
                f"{timeout:g} s ({exc}); try again, or stop that process (e.g. the MCP server)"
            ) from exc
        if not reply.startswith("lent"):
            raise StoreBusy(
                f"database {path!r} is held by a process that refused to lend it "
                f"({reply or 'no answer'}); stop that process (e.g. the MCP server)"
            )
        yield reply.partition(" ")[2] or "another process"
    finally:
        sock.close()


# -- the gate: one process at a time before an open, and during a checkpoint -------------------
#
# Kuzu 0.11.3 looks at a database's write-ahead log and shadow file (stat, open) *before* it
# takes its own lock on the database file. An open that lands while another process
# checkpoints and closes then takes the lock with a stale view of those files: "Reading past
# the end of the file ....wal with size 0", a log replayed twice ("Found duplicated primary
# key value"), a crash of the engine. graphmem's own steps before an open (the probe, putting
# back a killed checkpoint's copy) have the same problem. So every graphmem process takes the
# gate, an ``flock`` on ``<db>.graphmem-lock``, around the steps that look at or change these
# files: before an open until the engine holds its lock, and around each checkpoint (the
# copy, ``CHECKPOINT``, dropping the copy) and the close (docs/concepts/storage.md#the-gate).

#: The gate's lock file (next to the database file).
GATE_SUFFIX = ".graphmem-lock"
#: How long a process waits for the gate before it reports the database as busy.
GATE_TIMEOUT = LEND_TIMEOUT


class Gate:
    """An exclusive ``flock`` on ``<db>.graphmem-lock``, re-entrant within one holder.

    Without ``fcntl`` (Windows), or where the lock file cannot be created (a read-only
    directory: then no process can write there, nor checkpoint), the gate is a no-op.
    """

    def __init__(self, path: str) -> None:
        self.path = path + GATE_SUFFIX
        self._depth = 0
        self._fd: int | None = None
        self._mutex = threading.RLock()

    @contextmanager
    def held(self, *, timeout: float = GATE_TIMEOUT, required: bool = True) -> Iterator[None]:
        """Hold the gate for the block (wait up to ``timeout`` seconds for it).

        ``required=False``: after ``timeout`` seconds, run the block without the gate.

        Raises:
            StoreBusy: another process held it for more than ``timeout`` seconds.
        """
        with self._mutex:
            if self._depth == 0:
                try:
                    self._fd = self._acquire(timeout)
                except StoreBusy:
                    if required:
                        raise
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0:
                    fd, self._fd = self._fd, None
                    if fd is not None:
                        os.close(fd)  # releases the flock

    def _acquire(self, timeout: float) -> int | None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - Windows: no flock (nor Kuzu's fcntl lock)
            return None
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        except OSError:
            return None  # a read-only directory: nothing there is written, nor checkpointed
        deadline = time.monotonic() + timeout
        delay = 0.002
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except OSError:
                if time.monotonic() + delay > deadline:
                    os.close(fd)
                    raise StoreBusy(
                        f"database {self.path[: -len(GATE_SUFFIX)]!r} is being opened or "
                        f"checkpointed by {describe_holder(self.path)} for more than "
                        f"{timeout:g} s; try again when it has finished"
                    ) from None
                time.sleep(delay * (0.5 + random.random()))
                delay = min(delay * 2, 0.05)
