"""Maintenance bookkeeping: when ``graphmem maintain --auto`` is due, and its log.

See docs/concepts/hotness.md#maintenance.

``maintain --auto`` runs triage when it never ran, and otherwise only when at least 24 hours
**and** at least 5 new sessions have passed since the last run. :class:`ConsolidateState`
remembers the last run in a small JSON file written atomically (temp file in the same directory,
fsync, ``os.replace``); a missing or corrupt file means "never ran", which is due. Every run
appends one JSON line to a log (:func:`append_log`).

Files live next to the database (:func:`maintenance_paths`)::

    agent.kuzu                        the database
    agent.kuzu.maintain.json          the state
    agent.kuzu.maintain.log.jsonl     one JSON object per run

An in-memory database has no path: the caller passes both paths explicitly.

>>> import datetime as dt
>>> t = dt.datetime(2026, 6, 10, tzinfo=dt.timezone.utc)
>>> ConsolidateState().is_due(now=t, session_count=0)
True
>>> ConsolidateState(t, 5).is_due(now=t + dt.timedelta(hours=24), session_count=9)
False
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple, Union

from graphmem.errors import InvalidInput
from graphmem.fileio import append_durable, atomic_write
from graphmem.timeutil import to_utc

__all__ = [
    "MIN_INTERVAL",
    "MIN_NEW_SESSIONS",
    "ConsolidateState",
    "MaintenancePaths",
    "append_log",
    "maintenance_paths",
    "read_log",
]

MIN_INTERVAL = dt.timedelta(hours=24)
"""Least time between two automatic runs."""
MIN_NEW_SESSIONS = 5
"""Least number of sessions added since the last automatic run."""

_STATE_VERSION = 1
StrPath = Union[str, "os.PathLike[str]"]
Replace = Callable[[str, str], None]


def _aware(value: dt.datetime, name: str) -> dt.datetime:
    if not isinstance(value, dt.datetime):
        raise InvalidInput(f"{name}={value!r} is not a datetime; pass an aware datetime")
    if value.tzinfo is None or value.utcoffset() is None:
        raise InvalidInput(
            f"{name}={value!r} is a naive datetime; pass an aware one "
            "(tzinfo=datetime.timezone.utc)"
        )
    return value.astimezone(dt.timezone.utc)


def _count(name: str, value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(f"{name}={value!r} must be a non-negative int")
    return value


def _last_record(lines: list[bytes]) -> tuple[dt.datetime, int] | None:
    """The time and session total of the last whole run line, or ``None`` (none whole)."""
    for line in reversed(lines):
        try:
            record = json.loads(line.decode("utf-8"))
            at = to_utc(record["at"], name="at")
            total = record["sessions_total"]
        except (ValueError, KeyError, TypeError, InvalidInput):
            continue  # a partial line left by a crash
        return (at, total) if isinstance(total, int) else None
    return None


@dataclasses.dataclass(frozen=True)
class ConsolidateState:
    """When maintenance last ran, and how many sessions the memory held then.

    Attributes:
        last_run_at: aware time of the last run (stored in UTC); ``None`` if it never ran.
        session_count: sessions in the memory at the last run (0 if it never ran).

    Raises:
        InvalidInput: a naive ``last_run_at`` or a negative ``session_count``.

    Examples:
        >>> ConsolidateState()
        ConsolidateState(last_run_at=None, session_count=0)
    """

    last_run_at: dt.datetime | None = None
    session_count: int = 0

    def __post_init__(self) -> None:
        if self.last_run_at is not None:
            object.__setattr__(self, "last_run_at", _aware(self.last_run_at, "last_run_at"))
        _count("session_count", self.session_count)

    @property
    def never_ran(self) -> bool:
        """Whether maintenance has never run."""
        return self.last_run_at is None

    def is_due(
        self,
        *,
        now: dt.datetime,
        session_count: int,
        min_interval: dt.timedelta = MIN_INTERVAL,
        min_new_sessions: int = MIN_NEW_SESSIONS,
    ) -> bool:
        """Return whether an automatic run is due: never ran, or enough time AND new sessions.

        A state that never ran (:attr:`never_ran`: no state file, or a corrupt one) is due,
        whatever the session count. Otherwise new sessions are ``session_count -
        self.session_count`` (never negative) and both thresholds must be reached. A ``now``
        before the last run (clock moved back) is not due.

        Args:
            now: the current aware time.
            session_count: sessions in the memory now.
            min_interval: least time since the last run (default 24 h).
            min_new_sessions: least new sessions since the last run (default 5).

        Returns:
            ``True`` when it never ran, or when both thresholds are reached.

        Raises:
            InvalidInput: a naive ``now`` or a negative count.

        Examples:
            >>> import datetime as dt
            >>> last = dt.datetime(2026, 6, 10, tzinfo=dt.timezone.utc)
            >>> state = ConsolidateState(last, 10)
            >>> state.is_due(now=last + dt.timedelta(hours=24), session_count=15)
            True
            >>> state.is_due(now=last + dt.timedelta(hours=23, minutes=59), session_count=20)
            False
            >>> ConsolidateState().is_due(now=last, session_count=0)  # never ran: due
            True
        """
        now = _aware(now, "now")
        new_sessions = max(_count("session_count", session_count) - self.session_count, 0)
        enough = new_sessions >= _count("min_new_sessions", min_new_sessions)
        if self.last_run_at is None:
            return True
        return enough and now - self.last_run_at >= min_interval

    def to_json(self) -> dict[str, Any]:
        """Return the JSON object stored in the state file.

        Returns:
            ``{"version", "last_run_at" (ISO string or null), "session_count"}``.

        Examples:
            >>> ConsolidateState().to_json()
            {'version': 1, 'last_run_at': None, 'session_count': 0}
        """
        return {
            "version": _STATE_VERSION,
            "last_run_at": None if self.last_run_at is None else self.last_run_at.isoformat(),
            "session_count": self.session_count,
        }

    @classmethod
    def from_json(cls, data: object) -> ConsolidateState:
        """Build a state from the object :meth:`to_json` returns.

        Args:
            data: the decoded JSON.

        Returns:
            The state.

        Raises:
            InvalidInput: the object is not a valid state (wrong shape, version or types).
        """
        if not isinstance(data, dict) or data.get("version") != _STATE_VERSION:
            raise InvalidInput(f"{data!r} is not a version-{_STATE_VERSION} maintenance state")
        raw_time = data.get("last_run_at")
        count = data.get("session_count")
        if raw_time is None:
            last_run_at = None
        elif isinstance(raw_time, str):
            try:
                last_run_at = dt.datetime.fromisoformat(raw_time)
            except ValueError as exc:
                raise InvalidInput(f"last_run_at={raw_time!r} is not an ISO datetime") from exc
        else:
            raise InvalidInput(f"last_run_at={raw_time!r} is not an ISO datetime string")
        if not isinstance(count, int):
            raise InvalidInput(f"session_count={count!r} is not an int")
        return cls(last_run_at, count)

    @classmethod
    def load(cls, path: StrPath) -> ConsolidateState:
        """Read the state file; a missing or corrupt file means "never ran".

        Args:
            path: the state file.

        Returns:
            The stored state, or ``ConsolidateState()`` if the file is missing, is not valid
            UTF-8 JSON, or does not hold a valid state.

        Raises:
            OSError: the file exists but cannot be read (permissions, a directory, ...).

        Examples:
            >>> ConsolidateState.load("/nonexistent/agent.kuzu.maintain.json")
            ConsolidateState(last_run_at=None, session_count=0)
        """
        try:
            raw = Path(path).read_bytes()
        except FileNotFoundError:
            return cls()
        try:
            return cls.from_json(json.loads(raw.decode("utf-8")))
        except ValueError:  # UnicodeDecodeError, JSONDecodeError and InvalidInput alike
            return cls()

    def recovered(self, log: StrPath) -> ConsolidateState:
        """Return this state, or the newer run the log's last line records.

        A run appends its log line first and saves the state second, so the log line is the
        run's commit point: a run killed between the two is still a run. Only the end of the
        file is read, as much of it as holds the last whole line (a run's line can be longer
        than 100 KB: it lists every suggestion).

        Raises:
            OSError: the log exists but cannot be read.
        """
        try:
            with open(log, "rb") as f:
                f.seek(0, os.SEEK_END)
                size = f.tell()
                block = 65536
                while True:
                    start = max(0, size - block)
                    f.seek(start)
                    lines = f.read().splitlines()
                    if start > 0:
                        lines = lines[1:]  # the window's first piece may start mid-line
                    record = _last_record(lines)
                    if record is not None or start == 0:
                        break
                    block *= 4
        except FileNotFoundError:
            return self
        if record is None:
            return self
        at, total = record
        if self.last_run_at is None or at > self.last_run_at:
            return ConsolidateState(at, total)
        return self

    def save(self, path: StrPath, *, replace: Replace = os.replace) -> None:
        """Write the state file atomically: temp file, fsync, then rename over ``path``.

        A crash at any point leaves either the old file or the new one, never a mix. The temp
        file lives in the same directory (a rename is atomic only within one file system) and is
        removed if anything fails.

        Args:
            path: the state file; its directory must exist.
            replace: the rename step, ``os.replace`` by default (a seam for crash tests).

        Raises:
            OSError: the file cannot be written or renamed; the old file is left untouched.
        """
        payload = (json.dumps(self.to_json(), sort_keys=True) + "\n").encode("utf-8")
        with atomic_write(path, "wb", replace=replace) as fh:
            fh.write(payload)


class MaintenancePaths(NamedTuple):
    """Where maintenance keeps its state and log for one database."""

    state: Path
    log: Path


def maintenance_paths(db_path: StrPath) -> MaintenancePaths:
    """Return the state and log paths next to a database: ``<db>.maintain.json`` and ``.log.jsonl``.

    Args:
        db_path: the database path (file or directory).

    Returns:
        ``MaintenancePaths(state=<db>.maintain.json, log=<db>.maintain.log.jsonl)``.

    Raises:
        InvalidInput: an in-memory database (``""`` or ``":memory:"``) has no place for the
            files; pass explicit paths instead.

    Examples:
        >>> p = maintenance_paths("data/agent.kuzu")
        >>> p.state.as_posix(), p.log.as_posix()
        ('data/agent.kuzu.maintain.json', 'data/agent.kuzu.maintain.log.jsonl')
    """
    raw = os.fspath(db_path)
    if raw in ("", ":memory:"):
        raise InvalidInput(
            f"db_path={raw!r} is an in-memory database; pass the state and log paths explicitly"
        )
    base = Path(raw)
    return MaintenancePaths(
        state=base.with_name(base.name + ".maintain.json"),
        log=base.with_name(base.name + ".maintain.log.jsonl"),
    )


def _json_default(value: object) -> object:
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=repr)
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")


def append_log(path: StrPath, record: Mapping[str, Any]) -> None:
    """Append one run record to the log as a single JSON line.

    Datetimes and dates are written as ISO strings, enums as their values, paths as strings,
    sets as sorted lists. If an earlier crash left a partial last line, the record starts on a
    new line so it stays readable.

    Args:
        path: the log file; created if missing (its directory must exist).
        record: a JSON-serialisable mapping describing the run.

    Raises:
        InvalidInput: ``record`` is not a mapping or holds a value JSON cannot represent
            (including NaN and infinity).
        OSError: the file cannot be written.

    Examples:
        >>> import tempfile, pathlib
        >>> with tempfile.TemporaryDirectory() as d:
        ...     log = pathlib.Path(d, "m.log.jsonl")
        ...     append_log(log, {"ran": True, "topics": 3})
        ...     read_log(log)
        [{'ran': True, 'topics': 3}]
    """
    if not isinstance(record, Mapping):
        raise InvalidInput(f"record={record!r} is not a mapping; pass a dict")
    try:
        line = json.dumps(dict(record), sort_keys=True, default=_json_default, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"log record {record!r} is not JSON serialisable: {exc}") from exc
    append_durable(path, (line + "\n").encode("utf-8"))


def read_log(path: StrPath) -> list[dict[str, Any]]:
    """Read the run records from a log, oldest first.

    Lines that are not JSON objects (a record cut short by a crash) are skipped.

    Args:
        path: the log file.

    Returns:
        The records; an empty list if the file does not exist.

    Raises:
        OSError: the file exists but cannot be read.
    """
    try:
        raw = Path(path).read_bytes()
    except FileNotFoundError:
        return []
    records: list[dict[str, Any]] = []
    for line in raw.splitlines():
        try:
            obj = json.loads(line.decode("utf-8"))
        except ValueError:
            continue
        if isinstance(obj, dict):
            records.append(obj)
    return records
