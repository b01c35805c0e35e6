r"""The MCP server's stdio wire: every request line is screened before the SDK reads it.

See docs/agents.md#errors-on-each-surface. The SDK drops a line it cannot read without any
reply, so a client waits forever: a line that is not JSON (truncated), is nested deeper than
:data:`MAX_DEPTH`, or is not a JSON-RPC object gets a JSON-RPC error here (``-32700`` /
``-32600``, with the request's id when it can be read), and the SDK never sees it.

Text that is not valid Unicode must be refused with a tool error naming it, but the SDK's JSON
parser cannot read a lone surrogate (``"\ud800"``) and its stdin decoder turns invalid UTF-8
into U+FFFD. So the screen rewrites such a line before the SDK reads it: a lone surrogate
becomes the mark ``U+FDD0 d800 U+FDD1``, an invalid byte ``U+FDD0 x80 U+FDD1``, and a
U+FDD0 the client really sent ``U+FDD0 fdd0 U+FDD1`` (so valid text never reads as a mark).
:func:`bad_text` names the first mark of an argument for the tool error, and :func:`unmark`
gives the tool the text as sent.

Replies go through a pipe too (:func:`wire`): one thread writes the SDK's lines and the
screen's errors to standard output, whole lines only, so they never interleave.

The wire starts before the SDK is imported (about half a second), so it can answer the
client's ``initialize`` at once with the answer the SDK would give (:func:`initialize_reply`,
for the SDK versions in :data:`KNOWN_SDKS` only); the SDK still reads the request, and its own
answer is dropped (docs/agents.md#start-up).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import select
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["KNOWN_SDKS", "MAX_DEPTH", "bad_text", "initialize_reply", "screen", "unmark", "wire"]

#: The ``initialize`` answer of each ``mcp`` SDK version it was checked against
#: (``tests/test_mcp_wire.py`` compares it with the installed SDK's own): the protocol
#: versions the SDK agrees to (a client asking for another gets the last) and its
#: capabilities. With any other SDK version the SDK answers, once it has loaded.
KNOWN_SDKS: dict[str, tuple[tuple[str, ...], dict[str, Any]]] = {
    "2.3.0": (
        ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"),
        {
            "prompts": {"listChanged": False},
            "resources": {"listChanged": False, "subscribe": False},
            "tools": {"listChanged": False},
        },
    ),
}

#: The deepest nesting of a request line passed to the SDK (its parser refuses about 130+
#: levels, and no tool argument nests).
MAX_DEPTH = 100

_MARK = re.compile("\ufdd0(d[89a-f][0-9a-f]{2}|x[89a-f][0-9a-f]|fdd0)\ufdd1")
_ID = re.compile(rb'"id"\s*:\s*(-?\d{1,18}|"(?:[^"\\]|\\.){0,200}")')


def _error(code: int, message: str, ident: Any) -> bytes:
    reply = {"jsonrpc": "2.0", "id": ident, "error": {"code": code, "message": message}}
    return json.dumps(reply).encode() + b"\n"


def _ident(line: bytes) -> Any:
    """The request id of a line that does not parse, when it can be read (else ``None``)."""
    found = _ID.search(line[:4096])
    if found is None:
        return None
    with contextlib.suppress(ValueError):
        return json.loads(found.group(1))
    return None


def _depth(value: Any) -> int:
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (list, dict)):
            deepest = max(deepest, depth)
            stack.extend(
                (v, depth + 1) for v in (item.values() if isinstance(item, dict) else item)
            )
    return deepest


def screen(line: bytes) -> tuple[bytes | None, bytes | None]:
    r"""Screen one request line: ``(line for the SDK or None, error reply or None)``.

    >>> screen(b'{"jsonrpc": "2.0", "id": 1, "method": "ping"}\n')[0] is not None
    True
    >>> screen(b'{"jsonrpc": "2.0", "id": 3, "method": "tools/ca')[1]
    b'{"jsonrpc": "2.0", "id": 3, "error": {"code": -32700, "message": "Parse error: ...
    >>> screen(b'{"jsonrpc": "2.0", "a": "x \\ud800"}\n')[0].decode()
    '{"jsonrpc": "2.0", "a": "x \ufdd0d800\ufdd1"}\n'
    >>> screen(b'[1, 2]')[1]
    b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid request: ...'
    """
    if not line.strip():
        return line, None
    try:
        text = line.decode("utf-8")
        raw_bytes = False
    except UnicodeDecodeError:
        text = line.decode("utf-8", "surrogateescape")  # invalid bytes: \udc80-\udcff
        raw_bytes = True
    try:
        message = json.loads(text)
    except RecursionError:
        return None, _error(
            -32700, f"Parse error: nested deeper than {MAX_DEPTH} levels", _ident(line)
        )
    except ValueError as exc:
        why = "invalid JSON (a truncated or damaged line?)"
        if isinstance(exc, json.JSONDecodeError):
            why = f"invalid JSON at character {exc.pos} ({exc.msg}; a truncated line?)"
        return None, _error(
            -32700, f"Parse error: {why}; send one JSON-RPC object a line", _ident(line)
        )
    ident = message.get("id") if isinstance(message, dict) else None
    if _depth(message) > MAX_DEPTH:
        return None, _error(-32700, f"Parse error: nested deeper than {MAX_DEPTH} levels", ident)
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None, _error(-32600, "Invalid request: not a JSON-RPC 2.0 object", ident)
    if not raw_bytes and "\\u" not in text.lower() and "\ufdd0" not in text:
        return line, None  # nothing to mark: as sent

    def mark(value: Any) -> Any:
        if isinstance(value, str):
            out = []
            for c in value:
                if c == "\ufdd0":
                    out.append("\ufdd0fdd0\ufdd1")
                elif raw_bytes and "\udc80" <= c <= "\udcff":
                    out.append(f"\ufdd0x{ord(c) - 0xDC00:02x}\ufdd1")
                elif "\ud800" <= c <= "\udfff":
                    out.append(f"\ufdd0{ord(c):04x}\ufdd1")
                else:
                    out.append(c)
            return "".join(out)
        if isinstance(value, list):
            return [mark(v) for v in value]
        if isinstance(value, dict):
            return {mark(k): mark(v) for k, v in value.items()}
        return value

    return json.dumps(mark(message), ensure_ascii=False).encode("utf-8") + b"\n", None


def bad_text(name: str, value: Any, *, marked: bool = True) -> str | None:
    """Name the first text of an argument that is not valid Unicode, or ``None``.

    ``marked``: the value came through :func:`screen` (its marks count); else only raw lone
    surrogates do.
    """
    if isinstance(value, str):
        found = None
        if marked and "\ufdd0" in value:
            found = next((m for m in _MARK.finditer(value) if m.group(1) != "fdd0"), None)
        if found is not None:
            position = len(_MARK.sub("?", value[: found.start()]))
            code = found.group(1)
            if code.startswith("x"):
                return (
                    f"argument {name!r} holds the byte 0{code} at position {position}, which is "
                    "not valid UTF-8; send UTF-8 text (e.g. replace it with U+FFFD)"
                )
        else:
            position = next((i for i, c in enumerate(value) if "\ud800" <= c <= "\udfff"), -1)
            if position < 0:
                return None
            code = f"{ord(value[position]):04x}"
        return (
            f"argument {name!r} holds '\\u{code}' at position {position}, an unpaired surrogate "
            "that is not valid Unicode text; send UTF-8 text (e.g. replace it with U+FFFD)"
        )
    if isinstance(value, (list, tuple)):
        return next((m for v in value if (m := bad_text(name, v, marked=marked))), None)
    if isinstance(value, dict):
        return next((m for v in value.values() if (m := bad_text(name, v, marked=marked))), None)
    return None


def unmark(value: Any) -> Any:
    """The argument as the client sent it (a marked U+FDD0 back to itself)."""
    if isinstance(value, str):
        return value.replace("\ufdd0fdd0\ufdd1", "\ufdd0") if "\ufdd0" in value else value
    if isinstance(value, list):
        return [unmark(v) for v in value]
    if isinstance(value, dict):
        return {k: unmark(v) for k, v in value.items()}
    return value


def initialize_reply(
    message: Any, *, sdk: str | None, name: str, version: str, instructions: str
) -> tuple[Any, bytes] | None:
    """The SDK's answer to an ``initialize`` request, given before the SDK has loaded.

    Returns ``(request id, reply line)``, or ``None`` when the SDK must answer itself: another
    method, an SDK version not in :data:`KNOWN_SDKS`, or a request the SDK may refuse (its
    error says what is wrong).

    >>> request = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    ...     "protocolVersion": "1999-01-01", "capabilities": {},
    ...     "clientInfo": {"name": "c", "version": "1"}}}
    >>> ident, line = initialize_reply(request, sdk="2.3.0", name="g", version="0", instructions="")
    >>> ident, json.loads(line)["result"]["protocolVersion"]
    (1, '2025-11-25')
    >>> initialize_reply(request, sdk="9.9", name="g", version="0", instructions="") is None
    True
    """
    if sdk not in KNOWN_SDKS or not isinstance(message, dict):
        return None
    ident, params = message.get("id"), message.get("params")
    if message.get("method") != "initialize" or not isinstance(params, dict):
        return None
    if isinstance(ident, bool) or not isinstance(ident, (int, str)):
        return None
    requested, client = params.get("protocolVersion"), params.get("clientInfo")
    if not (
        isinstance(requested, str)
        and isinstance(params.get("capabilities"), dict)
        and isinstance(client, dict)
        and isinstance(client.get("name"), str)
        and isinstance(client.get("version"), str)
    ):
        return None
    versions, capabilities = KNOWN_SDKS[sdk]
    result = {
        "capabilities": capabilities,
        "instructions": instructions,
        "protocolVersion": requested if requested in versions else versions[-1],
        "serverInfo": {"name": name, "version": version},
    }
    reply = {"jsonrpc": "2.0", "id": ident, "result": result}
    return ident, json.dumps(reply, separators=(",", ":")).encode() + b"\n"


def _answers(line: bytes, ident: Any) -> bool:
    """Whether a reply line is the result of the request ``ident``.

    An error is never taken for it: were the SDK to refuse an ``initialize`` answered early,
    the client reads why.
    """
    try:
        message = json.loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("id") == ident and "result" in message


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


@contextlib.contextmanager
def wire(
    early: Callable[[Any], tuple[Any, bytes] | None] | None = None,
) -> Iterator[None]:
    """Serve the SDK through pipes on file descriptors 0 and 1 (the module docstring).

    A thread reads the real standard input line by line and feeds :func:`screen`'s lines to
    the SDK; another writes the SDK's replies, whole lines, to the real standard output. An
    error reply of the screen is written between two whole lines under the same lock.

    ``early``: given the first ``initialize`` request, the reply to send at once and the
    request's id (:func:`initialize_reply`); the SDK's own result for that id is then dropped.
    """
    try:
        real_in, real_out = os.dup(0), os.dup(1)
    except OSError:  # pragma: no cover - no standard streams
        yield
        return
    in_read, in_write = os.pipe()
    out_read, out_write = os.pipe()
    saved_in, saved_out = os.dup(0), os.dup(1)
    os.dup2(in_read, 0)
    os.dup2(out_write, 1)
    os.close(in_read)
    os.close(out_write)
    lock = threading.Lock()
    stop = threading.Event()
    # The id whose SDK answer is dropped (answered early), while it is awaited.
    dropping: list[Any] = []
    asking = [early is not None]  # until the first initialize request

    def answer_early(line: bytes) -> None:
        if early is None or b"initialize" not in line:
            return
        try:
            message = json.loads(line)
        except ValueError:
            return
        if not isinstance(message, dict) or message.get("method") != "initialize":
            return
        asking[0] = False
        found = early(message)
        if found is not None:
            ident, reply = found
            dropping.append(ident)  # before the SDK can read the request
            with lock:
                _write_all(real_out, reply)

    def pump_in() -> None:
        with (
            os.fdopen(real_in, "rb") as src,
            os.fdopen(in_write, "wb") as dst,
            contextlib.suppress(OSError, ValueError),
        ):
            # A buffered readline returns as soon as a line is in: a pipe never blocks it
            # waiting to fill the buffer.
            for line in iter(src.readline, b""):
                forward, reply = screen(line)
                if reply is not None:
                    with lock:
                        _write_all(real_out, reply)
                if forward is not None:
                    if asking[0]:
                        answer_early(forward)
                    dst.write(forward)
                    dst.flush()

    def pump_out() -> None:
        pending = b""
        with contextlib.suppress(OSError, ValueError):
            while True:
                ready, _, _ = select.select([out_read], [], [], 0.1)
                if not ready:
                    if stop.is_set():
                        break
                    continue
                chunk = os.read(out_read, 1 << 16)
                if not chunk:
                    break
                pending += chunk
                cut = pending.rfind(b"\n") + 1
                if cut:
                    whole, pending = pending[:cut], pending[cut:]
                    if dropping:  # the SDK's answer to an initialize answered early
                        lines = whole.splitlines(keepends=True)
                        for n, line in enumerate(lines):
                            if _answers(line, dropping[0]):
                                del lines[n]
                                dropping.clear()
                                break
                        whole = b"".join(lines)
                    with lock:
                        _write_all(real_out, whole)
            if pending:
                with lock:
                    _write_all(real_out, pending)

    threading.Thread(target=pump_in, daemon=True, name="gm-stdin").start()
    writer = threading.Thread(target=pump_out, daemon=True, name="gm-stdout")
    writer.start()
    try:
        yield
    finally:
        os.dup2(saved_in, 0)
        os.dup2(saved_out, 1)
        os.close(saved_in)
        os.close(saved_out)
        stop.set()
        writer.join(5)  # every reply the SDK wrote reaches the client
        # real_out stays open: the input thread may still answer a last bad line.
