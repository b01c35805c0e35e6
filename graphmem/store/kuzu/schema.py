"""The storage DDL shared by the Kuzu-family engines (mirrored in ``schemas/kuzu.cypher``).

Facts are REL edges ``(:Entity)-[:Fact]->(:Entity)``; each edge is one *version*. Sessions are
nodes that ``MENTIONS`` entities; their text is also stored line by line (``SessionLine``, one node
per line or turn, with the normalised ``terms`` the episodic search indexes: see
:mod:`graphmem.store.kuzu.lines`). All timestamps are naive UTC (Kuzu drops tzinfo without
converting, docs/concepts/storage.md#naive-utc). Rel properties have no index and ``fid`` uniqueness
is enforced by graphmem, not by Kuzu (a rel PRIMARY KEY is accepted but not enforced).
"""

from __future__ import annotations

# The version and the fact columns are every backend's (graphmem.store.schema); re-exported.
from graphmem.store.schema import FACT_COLUMNS, SCHEMA_VERSION, TABLES

__all__ = ["DDL", "FACT_COLUMNS", "SCHEMA_VERSION", "TABLES", "UPGRADES"]

#: The tables of :data:`TABLES`, in that order (``tests/test_schemas.py`` holds them equal).
DDL: tuple[str, ...] = (
    "CREATE NODE TABLE IF NOT EXISTS Meta(key STRING PRIMARY KEY, value STRING)",
    "CREATE NODE TABLE IF NOT EXISTS Entity(id STRING PRIMARY KEY, name STRING, kind STRING, "
    "aliases STRING[])",
    "CREATE NODE TABLE IF NOT EXISTS Predicate(name STRING PRIMARY KEY, cardinality STRING, "
    "aliases STRING[], inverse STRING, symmetric BOOLEAN, description STRING)",
    "CREATE NODE TABLE IF NOT EXISTS Session(id STRING PRIMARY KEY, started_at TIMESTAMP, "
    "ended_at TIMESTAMP, title STRING, text STRING, summary STRING, source STRING, "
    "recorded_at TIMESTAMP, scope STRING)",
    "CREATE NODE TABLE IF NOT EXISTS SessionLine(id STRING PRIMARY KEY, session STRING, n INT64, "
    "speaker STRING, text STRING, terms STRING, started_at TIMESTAMP, recorded_at TIMESTAMP)",
    "CREATE NODE TABLE IF NOT EXISTS Audit(id STRING PRIMARY KEY, at TIMESTAMP, action STRING, "
    "detail STRING)",
    "CREATE REL TABLE IF NOT EXISTS Fact(FROM Entity TO Entity, "
    + ", ".join(f"{name} {typ}" for name, typ in FACT_COLUMNS)
    + ")",
    "CREATE REL TABLE IF NOT EXISTS MENTIONS(FROM Session TO Entity, count INT64)",
)

#: Schema 4's columns (docs/concepts/scopes.md): NULL on older rows reads as the root scope.
_SCOPES = ("ALTER TABLE Fact ADD scope STRING", "ALTER TABLE Session ADD scope STRING")

#: DDL that upgrades a database of an older schema version, by version found. The data part of
#: an upgrade (filling new columns, indexing the lines of stored sessions) is
#: :meth:`upgrade_data`.
UPGRADES: dict[str, tuple[str, ...]] = {
    "1": (
        "ALTER TABLE Session ADD recorded_at TIMESTAMP",
        DDL[4],  # SessionLine
        "ALTER TABLE Fact ADD source_type STRING",
        *_SCOPES,
    ),
    "2": ("ALTER TABLE Fact ADD source_type STRING", *_SCOPES),
    "3": _SCOPES,
}
