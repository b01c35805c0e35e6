"""The peer: a plain SQLite bitemporal table with indexes, doing the same work as graphmem.

One row per fact version with both intervals; writes apply a simplified form of
docs/concepts/time.md#rule-4 and #rule-5 in SQL (a single-valued predicate's new object ends the
current versions valid at its start, which are closed in system time and replaced by shortened
copies; re-asserting a current object is a no-op), row by row in one transaction, as graphmem does.
Times are ISO-8601 text (sortable)."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

DDL = """
CREATE TABLE facts(
    id INTEGER PRIMARY KEY,
    subject TEXT NOT NULL, predicate TEXT NOT NULL, object TEXT NOT NULL,
    valid_from TEXT NOT NULL, valid_to TEXT, recorded_at TEXT NOT NULL, expired_at TEXT,
    statement TEXT, kind TEXT, importance REAL, confidence REAL, source TEXT, source_ref TEXT,
    superseded_by INTEGER, reason TEXT, access_count INTEGER DEFAULT 0,
    last_accessed_at TEXT, pinned INTEGER DEFAULT 0
);
CREATE INDEX facts_spv ON facts(subject, predicate, valid_from);
CREATE INDEX facts_object ON facts(object);
"""


def iso(t: dt.datetime | None) -> str | None:
    return None if t is None else t.astimezone(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")


class SqlitePeer:
    def __init__(self, path: str, single_valued: set[str]) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        if not self.db.execute("SELECT name FROM sqlite_master WHERE name='facts'").fetchone():
            self.db.executescript(DDL)
        self.one = single_valued

    def close(self) -> None:
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.close()

    def _assert(self, row: Mapping[str, Any], now: str) -> str:
        s, p, o = row["subject"], row["predicate"], row["object"]
        start = iso(row["valid_from"])
        end = iso(row.get("valid_to"))
        cur = self.db.execute(
            "SELECT id, object, valid_from, valid_to FROM facts "
            "WHERE subject=? AND predicate=? AND expired_at IS NULL",
            (s, p),
        ).fetchall()
        same = [
            c
            for c in cur
            if c[1] == o and c[2] <= (end or "~") and start <= (c[3] or "~")  # touching
        ]
        if same and any(c[2] <= start and (end or "~") <= (c[3] or "~") for c in same):
            return "noop"
        decision = "add"
        if p in self.one:
            for vid, obj, vf, vt in cur:
                if obj != o and vf <= start and (vt is None or start < vt):
                    self.db.execute(
                        "UPDATE facts SET expired_at=?, reason='superseded' WHERE id=?", (now, vid)
                    )
                    if vf < start:
                        self.db.execute(
                            "INSERT INTO facts(subject, predicate, object, valid_from, valid_to,"
                            " recorded_at, kind, importance, confidence) "
                            "SELECT subject, predicate, object, valid_from, ?, ?, kind,"
                            " importance, confidence FROM facts WHERE id=?",
                            (start, now, vid),
                        )
                    decision = "supersede"
            later = [vf for _, obj, vf, _ in cur if obj != o and vf > start]
            if later and (end is None or min(later) < end):
                end = min(later)
        self.db.execute(
            "INSERT INTO facts(subject, predicate, object, valid_from, valid_to, recorded_at,"
            " kind, importance, confidence) VALUES (?,?,?,?,?,?,'fact',5.0,1.0)",
            (s, p, o, start, end, now),
        )
        return decision

    def add_facts(self, rows: Iterable[Mapping[str, Any]], now: dt.datetime) -> dict[str, int]:
        at = iso(now) or ""
        counts: dict[str, int] = {}
        self.db.execute("BEGIN")
        for row in rows:
            d = self._assert(row, at)
            counts[d] = counts.get(d, 0) + 1
        self.db.execute("COMMIT")
        return counts

    def as_of(self, s: str, p: str, valid_at: dt.datetime, known_at: dt.datetime) -> list[Any]:
        v, k = iso(valid_at), iso(known_at)
        return self.db.execute(
            "SELECT * FROM facts WHERE subject=? AND predicate=? AND valid_from<=? AND "
            "(valid_to IS NULL OR ?<valid_to) AND recorded_at<=? AND (expired_at IS NULL OR "
            "?<expired_at)",
            (s, p, v, v, k, k),
        ).fetchall()

    def current(self, s: str, now: dt.datetime) -> list[Any]:
        v = iso(now)
        return self.db.execute(
            "SELECT * FROM facts WHERE subject=? AND expired_at IS NULL AND valid_from<=? AND "
            "(valid_to IS NULL OR ?<valid_to)",
            (s, v, v),
        ).fetchall()

    def history(self, s: str) -> list[Any]:
        return self.db.execute(
            "SELECT * FROM facts WHERE subject=? AND expired_at IS NULL ORDER BY valid_from",
            (s,),
        ).fetchall()

    def two_hop(self, s: str) -> int:
        return int(
            self.db.execute(
                "SELECT count(DISTINCT f2.object) FROM facts f1 JOIN facts f2 "
                "ON f2.subject = f1.object WHERE f1.subject=? AND f1.expired_at IS NULL "
                "AND f2.expired_at IS NULL",
                (s,),
            ).fetchone()[0]
        )

    def count(self) -> int:
        return int(self.db.execute("SELECT count(*) FROM facts").fetchone()[0])


def single_valued(preds: Sequence[tuple[str, str]]) -> set[str]:
    return {p for p, c in preds if c == "one"}
