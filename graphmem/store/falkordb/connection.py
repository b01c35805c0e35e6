"""The connection to a FalkorDB server: URL parsing, the pool, errors, the executor.

:class:`FalkorExecutor` is the store's executor; :class:`FalkorBase` is what its topic
mixins build on.

A store URL is ``falkordb://[[user:]password@]host[:port]/graph[?options]``; the graph name is
the tenant (one graph per memory; a store never reads another graph). Options:

- ``tls=1``: TLS to the server (``ssl_ca_certs=/path/ca.pem`` for a private CA);
- ``timeout=S``: seconds for connecting and for each query's reply (default 60);
- ``pool=N``: connections kept in the pool (default 8; a caller waits for a free one).

A graph name is 1-128 ASCII letters, digits and ``_`` (:data:`GRAPH_NAME`): the names graphmem
itself keeps beside a memory (its write lock, staging graphs of large writes) hold ``::``, so
they can never be a memory's name (docs/falkordb.md#the-url). A URL with a ``#fragment`` is
refused rather than cut.

Every client or server failure becomes :class:`graphmem.errors.StoreError` naming the server as
``host:port/graph`` (never the password) and the fix. A query whose connection was lost (the
server restarted) is sent once more on a fresh connection: reads are safe to resend, and
``apply``'s writes are made idempotent by their token (:mod:`graphmem.store.falkordb.writes`).
A reply that did not come within the timeout is never resent (that would double the wait):
a write then asks the server once whether it was applied and says so in its error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from graphmem.errors import ExtraUnavailable, GraphmemError, InvalidInput, StoreBusy, StoreError
from graphmem.store.cypher.reads import CypherReads
from graphmem.store.falkordb.codec import FALKOR, decode_value, encode_value

__all__ = [
    "GRAPH_ALPHABET",
    "GRAPH_NAME",
    "Connection",
    "FalkorBase",
    "FalkorExecutor",
    "FalkorURL",
    "parse_url",
    "redact",
]

SCHEME = "falkordb"
DEFAULT_PORT = 6379
DEFAULT_TIMEOUT = 60.0
DEFAULT_POOL = 8
#: What a graph (memory) name may be: ASCII letters, digits and ``_``, 1-128 of them.
GRAPH_NAME = re.compile(r"[A-Za-z0-9_]{1,128}")
#: What a graph name may hold, for messages.
GRAPH_ALPHABET = "1-128 ASCII letters, digits and '_'"
_OPTIONS = ("tls", "ssl_ca_certs", "timeout", "pool")


@dataclass(frozen=True)
class FalkorURL:
    """A parsed ``falkordb://`` URL."""

    host: str
    port: int
    graph: str
    password: str | None = None
    username: str | None = None
    tls: bool = False
    ssl_ca_certs: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    pool: int = DEFAULT_POOL

    @property
    def where(self) -> str:
        """``host:port/graph``: how messages name the server (no password)."""
        return f"{self.host}:{self.port}/{self.graph}"

    @property
    def display(self) -> str:
        """The URL without its password (the store's ``path``)."""
        opts = []
        if self.tls:
            opts.append("tls=1")
        query = f"?{'&'.join(opts)}" if opts else ""
        return f"{SCHEME}://{self.host}:{self.port}/{self.graph}{query}"


def _plain(name: str) -> str:
    """``name`` with every character outside the graph-name alphabet replaced by ``_``."""
    return re.sub(r"[^A-Za-z0-9_]", "_", name)[:128]


def redact(url: str) -> str:
    """``url`` with any password replaced by ``***`` (for error messages)."""
    return re.sub(r"(://)([^@/]*)@", r"\1***@", url)


def parse_url(url: str) -> FalkorURL:
    """Parse a ``falkordb://`` store URL.

    Raises:
        InvalidInput: not a falkordb URL, no graph name, a bad port or option.
    """
    shown = redact(url)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise InvalidInput(f"store URL {shown!r} is malformed ({exc}); use {_FORM}") from None
    if parts.scheme != SCHEME:
        raise InvalidInput(f"store URL {shown!r} is not a {SCHEME}:// URL; use {_FORM}")
    if "#" in url:
        raise InvalidInput(
            f"store URL {shown!r} has a '#' fragment, which names nothing in a store URL; "
            f"remove it (a graph name is {GRAPH_ALPHABET}; a '#' in a password is written "
            f"%23): {_FORM}"
        )
    host = parts.hostname or ""
    if not host:
        raise InvalidInput(f"store URL {shown!r} names no host; use {_FORM}")
    graph = unquote(parts.path.lstrip("/"))
    if not graph:
        raise InvalidInput(
            f"store URL {shown!r} names no graph: add /graphname (one graph per memory), "
            f"e.g. {SCHEME}://{host}:{port or DEFAULT_PORT}/memory"
        )
    if not GRAPH_NAME.fullmatch(graph):
        raise InvalidInput(
            f"graph name {graph!r} in {shown!r} is invalid: a graph name is {GRAPH_ALPHABET} "
            f"(no '-', '.', ':', '/' or spaces), e.g. {_plain(graph)!r}"
        )
    password = unquote(parts.password) if parts.password is not None else None
    username = unquote(parts.username) if parts.username else None
    if password is None and username is not None:  # falkordb://secret@host: a bare password
        password, username = username, None
    opts: dict[str, str] = {}
    for key, value in parse_qsl(parts.query, keep_blank_values=True):
        if key not in _OPTIONS:
            raise InvalidInput(
                f"store URL option {key!r} in {shown!r} is unknown; use {', '.join(_OPTIONS)}"
            )
        opts[key] = value
    tls = opts.get("tls", "0").lower() in {"1", "true", "yes", "on"}
    try:
        timeout = float(opts.get("timeout", DEFAULT_TIMEOUT))
        pool = int(opts.get("pool", DEFAULT_POOL))
    except ValueError:
        raise InvalidInput(
            f"store URL {shown!r}: timeout must be seconds (e.g. timeout=5) and pool a "
            "whole number (e.g. pool=8)"
        ) from None
    if not timeout > 0 or not 1 <= pool <= 1024:
        raise InvalidInput(
            f"store URL {shown!r}: timeout must be > 0 seconds and pool between 1 and 1024"
        )
    return FalkorURL(
        host=host,
        port=port or DEFAULT_PORT,
        graph=graph,
        password=password,
        username=username,
        tls=tls or "ssl_ca_certs" in opts,
        ssl_ca_certs=opts.get("ssl_ca_certs") or None,
        timeout=timeout,
        pool=pool,
    )


_FORM = f"{SCHEME}://[password@]host[:port]/graph[?tls=1&timeout=S&pool=N]"


class Connection:
    """A pool of connections to one graph of one server."""

    def __init__(self, url: FalkorURL) -> None:
        try:
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError as exc:  # pragma: no cover - the extra pulls redis in
            raise ExtraUnavailable(
                "the FalkorDB client is not installed; run: pip install 'graphmem[falkordb]'"
            ) from exc
        self.url = url
        self._redis = redis
        kwargs: dict[str, Any] = {
            "host": url.host,
            "port": url.port,
            "password": url.password,
            "username": url.username,
            "socket_timeout": url.timeout,
            "socket_connect_timeout": url.timeout,
            "max_connections": url.pool,
            "timeout": url.timeout,  # waiting for a free pooled connection
            "decode_responses": True,
            "retry": Retry(NoBackoff(), 0),  # graphmem decides what is safe to resend
        }
        if url.tls:
            kwargs["connection_class"] = redis.SSLConnection
            if url.ssl_ca_certs:
                kwargs["ssl_ca_certs"] = url.ssl_ca_certs
        self._pool = redis.BlockingConnectionPool(**kwargs)  # type: ignore[no-untyped-call]
        self._client = redis.Redis(connection_pool=self._pool)
        self._graph: Any = None

    # -- errors -----------------------------------------------------------------------------

    def is_connection_error(self, exc: BaseException) -> bool:
        """Whether ``exc`` is a lost or refused connection (worth one resend).

        A timeout is not: resending would double the wait (:meth:`is_timeout`); nor is a
        server still loading its data (:meth:`error` says so).
        """
        r = self._redis.exceptions
        return isinstance(exc, r.ConnectionError) and not isinstance(
            exc, (r.AuthenticationError, r.BusyLoadingError, r.TimeoutError)
        )

    def is_timeout(self, exc: BaseException) -> bool:
        """Whether ``exc`` is a reply that did not come within the URL's timeout."""
        return isinstance(exc, self._redis.exceptions.TimeoutError)

    def error(self, exc: BaseException, what: str = "query") -> StoreError:
        """A StoreError for ``exc`` naming the server and the fix (never the password)."""
        r = self._redis.exceptions
        where = self.url.where
        text = str(exc).replace(self.url.password or "\0", "***")
        if isinstance(exc, r.AuthenticationError) or "WRONGPASS" in text or "NOAUTH" in text:
            return StoreError(
                f"FalkorDB at {where} refused the password ({text}); put the server's "
                "password in the URL: falkordb://PASSWORD@host:port/graph"
            )
        if isinstance(exc, r.BusyLoadingError) or text.startswith("LOADING"):
            return StoreBusy(
                f"FalkorDB at {where} is loading its data (it restarted and is replaying its "
                "files); nothing was done: retry in a moment (docs/falkordb.md#restarts)"
            )
        if isinstance(exc, r.TimeoutError):
            return StoreError(
                f"FalkorDB at {where} did not answer the {what} within {self.url.timeout:g} s; "
                "check the server is up and not overloaded, or raise ?timeout= in the URL"
            )
        if "empty key" in text.lower():
            return StoreError(
                f"the server lost this memory's data: graph {where} no longer exists on the "
                "server (it restarted without its files, or the graph was deleted); restore "
                "it from a backup or an export (graphmem import) into a new graph "
                "(docs/falkordb.md#a-server-that-lost-its-data)"
            )
        if isinstance(exc, r.ConnectionError):
            return StoreError(
                f"cannot reach FalkorDB at {where} ({text}); start the server (see "
                "docs/falkordb.md) or fix host:port in the URL"
            )
        if "unknown command" in text.lower() and "graph." in text.lower():
            return StoreError(
                f"the server at {where} is Redis without the FalkorDB module; load falkordb.so "
                "(redis-server --loadmodule falkordb.so) or use a FalkorDB server"
            )
        return StoreError(f"FalkorDB at {where} failed the {what}: {text}")

    # -- queries ----------------------------------------------------------------------------

    def execute(
        self, query: str, params: Mapping[str, Any] | None, *, read_only: bool
    ) -> list[list[Any]]:
        """Run one ``GRAPH.QUERY`` (``GRAPH.RO_QUERY`` when ``read_only``) and return its rows.

        Raises the client's exceptions unchanged (the caller maps them: :meth:`error`).
        """
        graph = self._graph
        if graph is None:
            from falkordb.graph import Graph  # noqa: TID251 - graphmem/store/ talks to it

            graph = self._graph = Graph(self._client, self.url.graph)
        args = encode_value(dict(params)) if params else None
        result = graph.ro_query(query, args) if read_only else graph.query(query, args)
        return [decode_value(row) for row in result.result_set]

    def execute_on(
        self, graph: str, query: str, params: Mapping[str, Any] | None
    ) -> list[list[Any]]:
        """Run one write query on another graph of the server (a staging graph)."""
        from falkordb.graph import Graph  # noqa: TID251 - graphmem/store/ talks to it

        args = encode_value(dict(params)) if params else None
        result = Graph(self._client, graph).query(query, args)
        return [decode_value(row) for row in result.result_set]

    def execute_short(
        self, query: str, params: Mapping[str, Any] | None, timeout: float
    ) -> list[list[Any]]:
        """Run one write query on a connection of its own that waits at most ``timeout`` s."""
        from falkordb.graph import Graph  # noqa: TID251 - graphmem/store/ talks to it

        url = self.url
        kwargs: dict[str, Any] = {
            "host": url.host,
            "port": url.port,
            "password": url.password,
            "username": url.username,
            "socket_timeout": timeout,
            "socket_connect_timeout": timeout,
            "decode_responses": True,
        }
        if url.tls:
            kwargs.update(ssl=True, ssl_ca_certs=url.ssl_ca_certs)
        client = self._redis.Redis(**kwargs)
        try:
            args = encode_value(dict(params)) if params else None
            result = Graph(client, self.url.graph).query(query, args)
            return [decode_value(row) for row in result.result_set]
        finally:
            client.close()

    def pipeline(self) -> Any:
        """A redis pipeline holding its own connection (``WATCH``/``MULTI``/``EXEC``)."""
        return self._client.pipeline()

    def is_watch_error(self, exc: BaseException) -> bool:
        """Whether ``exc`` is a failed ``EXEC`` (a watched key changed)."""
        return isinstance(exc, self._redis.exceptions.WatchError)

    def command(self, *args: Any) -> Any:
        """Run one raw server command (``GRAPH.DELETE``, ``PING`` ...)."""
        return self._client.execute_command(*args)  # type: ignore[no-untyped-call]

    def close(self) -> None:
        """Close every pooled connection."""
        self._pool.disconnect()


class WriteApplied(StoreError):
    """Not an error: a write whose reply came late had been applied (``_w`` reports it)."""


#: Record a write token unless it is there; returns whether it was (see ``FalkorBase._w``).
_CANCEL = (
    "MERGE (t:GraphmemTx {key: 'tokens'}) "
    "WITH t, $tok IN coalesce(t.recent, []) AS was "
    "SET t.recent = CASE WHEN was THEN t.recent "
    "ELSE ([$tok] + coalesce(t.recent, []))[0..32] END RETURN was"
)


class FalkorExecutor:
    """The connection pool and the queries, with the resend rules of the module docstring.

    The store's ``executor`` part (docs/concepts/storage.md#the-backends-parts).

    Attributes:
        url: the parsed URL.
        path: the URL without its password.
        graph: the graph name (the tenant).
        read_only: writes raise :class:`StoreError`.
        conn: the connection pool (``None`` once closed).
    """

    def __init__(self, url: str | FalkorURL, *, read_only: bool = False) -> None:
        self.url = url if isinstance(url, FalkorURL) else parse_url(url)
        self.path = self.url.display
        self.graph = self.url.graph
        self.read_only = read_only
        self.conn: Connection | None = Connection(self.url)

    def connection(self) -> Connection:
        """The open connection pool.

        Raises:
            StoreError: the store is closed.
        """
        conn = self.conn
        if conn is None:
            raise StoreError(f"the store {self.path} is closed; open it again (gm.open)")
        return conn

    def q(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Run a read query (``GRAPH.RO_QUERY``); resent once after a lost connection."""
        conn = self.connection()
        try:
            return conn.execute(query, params, read_only=True)
        except GraphmemError:
            raise  # a parameter graphmem refused (codec)
        except Exception as exc:  # noqa: BLE001 - mapped to StoreError below
            if not conn.is_connection_error(exc):
                raise conn.error(exc) from None
        try:
            return conn.execute(query, params, read_only=True)
        except Exception as exc:  # noqa: BLE001
            raise conn.error(exc) from None

    def w(
        self,
        query: str,
        params: Mapping[str, Any] | None = None,
        *,
        token: str | None = None,
    ) -> list[list[Any]]:
        """Run a write query (one ``GRAPH.QUERY``: all of it or nothing).

        ``token`` is the write token the query records (``apply``'s): such a query does
        nothing once its token is recorded, so after a lost connection it is sent once more;
        a query without one is sent again only when idempotent (schema, indexes). A reply
        that does not come within the timeout is never resent (docs/falkordb.md#timeouts):
        the token is recorded at once instead, so the write is either applied already or
        can no longer apply, and the error says which.

        Raises:
            StoreError: read-only store, the server failed, or it stayed unreachable.
        """
        if self.read_only:
            raise StoreError(f"the store {self.path} is open read-only; open it writable")
        conn = self.connection()
        try:
            return conn.execute(query, params, read_only=False)
        except GraphmemError:
            raise  # a parameter graphmem refused (codec): nothing was sent
        except Exception as exc:  # noqa: BLE001 - mapped to StoreError below
            if conn.is_timeout(exc):
                raise self.timed_out(conn, token) from None
            if not conn.is_connection_error(exc):
                raise conn.error(exc, "write") from None
        try:
            return conn.execute(query, params, read_only=False)
        except Exception as exc:  # noqa: BLE001
            if conn.is_timeout(exc):
                raise self.timed_out(conn, token) from None
            raise conn.error(exc, "write") from None

    def timed_out(self, conn: Connection, token: str | None) -> StoreError:
        """The error of a write whose reply did not come in time, saying whether it applied.

        With a token, the token is recorded by a short query of its own (FalkorDB runs the
        writes of a graph one at a time): if it was there, the write had committed and
        :class:`WriteApplied` is returned for the caller to treat as success; if not, the
        write can no longer apply when the server reaches it.
        """
        wait = f"{conn.url.timeout:g} s"
        where = conn.url.where
        if token is None:
            return StoreError(
                f"FalkorDB at {where} did not answer the write within {wait}; whether it was "
                "applied is unknown (it was not sent again): check the server is up and not "
                "overloaded, or raise ?timeout= in the URL"
            )
        try:
            rows = conn.execute_short(_CANCEL, {"tok": token}, min(conn.url.timeout, 5.0))
            was = bool(rows and rows[0][0])
        except Exception:  # noqa: BLE001 - the server did not answer this either
            return StoreError(
                f"FalkorDB at {where} did not answer the write within {wait}, nor the check "
                "that followed; whether it was applied is unknown (it was not sent again): "
                "read the memory once the server answers (e.g. facts or history) before "
                "writing it again"
            )
        if was:
            return WriteApplied(f"the write to {where} was applied (its reply was late)")
        return StoreError(
            f"FalkorDB at {where} did not answer the write within {wait}; it was not applied "
            "and never will be (it was cancelled, not sent again): retry it, and check the "
            "server is not overloaded, or raise ?timeout= in the URL"
        )

    def close(self) -> None:
        """Close the connection pool (the server keeps the data); closing twice is harmless."""
        conn, self.conn = self.conn, None
        if conn is not None:
            conn.close()


class FalkorBase(CypherReads):
    """What every FalkorDB store mixin builds on: its executor, ``_q`` and ``_w``."""

    dialect = FALKOR

    engine: str = "falkordb"
    #: The connection pool and the queries (a part: docs/concepts/storage.md#the-backends-parts).
    executor: FalkorExecutor

    @property
    def url(self) -> FalkorURL:
        """The parsed URL."""
        return self.executor.url

    @property
    def path(self) -> str:
        """The URL without its password."""
        return self.executor.path

    @property
    def graph(self) -> str:
        """The graph name (the tenant)."""
        return self.executor.graph

    @property
    def read_only(self) -> bool:
        """Whether writes raise :class:`StoreError`."""
        return self.executor.read_only

    def _q(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Run a read query (:meth:`FalkorExecutor.q`)."""
        return self.executor.q(query, params)

    def _w(self, query: str, params: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """Run a write query (:meth:`FalkorExecutor.w`)."""
        return self.executor.w(query, params)
