"""Lending a held database (docs/concurrency.md): who may lend, who goes first, bursts.

The lending socket lives in a directory only this user may enter; a directory or socket that
someone else put at the predictable place is never trusted (it could hold every command for
30 s and read its command lines). A tool call that waits goes before new loans, however busy
the borrowers are; a burst of commands queues instead of being refused.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem.errors import StoreBusy
from graphmem.store.locks import Lender, borrow, lease_address, peer_uid

pytestmark = pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets")

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


class _Handle:
    """Stands in for a database handle (the lending does not depend on what it lends)."""

    def close(self) -> None:
        pass


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A temporary directory with a short path (socket paths are limited to ~100 bytes)."""
    path = Path(tempfile.mkdtemp(prefix="gm"))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def runtime(short_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private runtime directory of this test (``$XDG_RUNTIME_DIR``)."""
    run = short_tmp / "run"
    run.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(run))
    return run


@pytest.fixture
def lender(runtime: Path, tmp_path: Path) -> Iterator[Lender[_Handle]]:
    lent = Lender(str(tmp_path / "db.kuzu"), _Handle, wait=10)
    lent.start()
    try:
        assert lent.address is not None
        yield lent
    finally:
        lent.close()


def test_the_socket_lives_in_a_private_runtime_directory(
    lender: Lender[_Handle], runtime: Path
) -> None:
    assert lender.address is not None
    assert lender.address.startswith(str(runtime / "graphmem") + os.sep)
    directory = os.path.dirname(lender.address)
    assert os.stat(directory).st_mode & 0o777 == 0o700
    assert os.stat(lender.address).st_mode & 0o777 == 0o600
    with borrow(lender.path) as who:
        assert who is not None
        assert f"process {os.getpid()}" in who
    left, right = socket.socketpair()
    with left, right:
        assert peer_uid(left) in (None, os.getuid())


def test_a_squatted_lending_directory_is_never_trusted(tmp_path: Path, short_tmp: Path) -> None:
    # Another local user creates /tmp/graphmem-<uid> first and listens there: the victim's
    # commands hung 30 s on it and sent it their command lines. Now the directory is passed
    # over (wrong mode, or wrong owner) and the command runs at once.
    tmp = short_tmp / "tmp"
    tmp.mkdir()
    squatted = tmp / f"graphmem-{os.getuid()}"
    squatted.mkdir()
    os.chmod(squatted, 0o777)
    if os.getuid() == 0:
        os.chown(squatted, 65534, 65534)  # as root: someone else's directory too
    db = tmp_path / "mem.kuzu"
    digest = hashlib.sha256(os.path.realpath(db).encode()).hexdigest()[:24]
    received: list[bytes] = []
    squatter = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    squatter.bind(str(squatted / f"gm-{digest}.sock"))
    squatter.listen(16)
    stop = threading.Event()

    def listen() -> None:
        squatter.settimeout(0.2)
        held = []
        while not stop.is_set():
            try:
                conn, _ = squatter.accept()
            except OSError:
                continue
            conn.settimeout(0.5)
            with contextlib.suppress(OSError):
                received.append(conn.recv(1024))
            held.append(conn)  # never answers: the old borrower waited 30 s
        for c in held:
            c.close()

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    env = {k: v for k, v in os.environ.items() if k != "XDG_RUNTIME_DIR"}
    env.update(TMPDIR=str(tmp), HOME=str(tmp_path / "home"))
    try:
        for args in (("add", "api", "runs_on", "Go"), ("facts", "--json")):
            result = subprocess.run(
                [sys.executable, "-m", "graphmem", "--db", str(db), "--engine", ENGINE, *args],
                capture_output=True,
                text=True,
                timeout=20,  # the old borrower hung 30 s on the squatter
                env=env,
                check=False,
            )
            assert result.returncode == 0, result.stderr
    finally:
        stop.set()
        thread.join(5)
        squatter.close()
    assert received == []


def test_a_socket_of_someone_else_is_not_borrowed_from(runtime: Path, tmp_path: Path) -> None:
    path = str(tmp_path / "db.kuzu")
    address = lease_address(path, create=True)
    assert address is not None
    os.symlink("/nonexistent", address)  # not a socket of this user: ignored
    with borrow(path) as who:
        assert who is None


def test_a_waiting_tool_call_goes_before_busy_borrowers(lender: Lender[_Handle]) -> None:
    # Four CLI loops borrowing back to back starved the agent: its calls waited 30 s and
    # failed. A call that waits now goes next; no loan is granted while one waits.
    stop = threading.Event()
    errors: list[BaseException] = []

    def borrower(n: int) -> None:
        time.sleep(0.05 * n)  # staggered: some loan is always out
        while not stop.is_set():
            try:
                with borrow(lender.path, timeout=20):
                    time.sleep(0.2)
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)
                return

    threads = [threading.Thread(target=borrower, args=(n,), daemon=True) for n in range(4)]
    for t in threads:
        t.start()
    lender.wait = 5
    served = 0
    try:
        time.sleep(0.3)
        for _ in range(8):
            with lender.use():  # StoreBusy on the old code: the loans never all ended
                served += 1
            time.sleep(0.05)
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    assert served == 8
    assert errors == []
    assert lender.loans_served > 4  # the borrowers got their turns too


def test_a_burst_of_borrowers_queues_instead_of_being_refused(lender: Lender[_Handle]) -> None:
    # The listen backlog was 8: the ninth command of a burst was refused, took the socket for
    # a stale one and failed with StoreBusy.
    assert lender.address is not None
    clients = []
    try:
        for _ in range(64):
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.setblocking(False)
            clients.append(c)
            c.connect(lender.address)  # BlockingIOError once a backlog of 8 is full
    finally:
        for c in clients:
            c.close()
    results: list[object] = []

    def one() -> None:
        try:
            with borrow(lender.path, timeout=20) as who:
                results.append(who)
        except StoreBusy as exc:
            results.append(exc)

    threads = [threading.Thread(target=one) for _ in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(results) == 32
    assert all(isinstance(r, str) for r in results), results
