"""The stored schema every backend shares: its version, the fact columns, the table names.

Part of the store's interface (beside :mod:`graphmem.store.base` and
:mod:`graphmem.store.records`): ``graphmem check``, the export and the import read these, and
each backend builds its own schema from them (the Kuzu DDL is
:mod:`graphmem.store.kuzu.schema`, mirrored in ``schemas/kuzu.cypher``).
"""

from __future__ import annotations

__all__ = ["FACT_COLUMNS", "SCHEMA_VERSION", "TABLES"]

#: Bump when the DDL changes; a database of an older version listed in the Kuzu schema's
#: :data:`~graphmem.store.kuzu.schema.UPGRADES` is
#: upgraded on a writable open, any other version refuses to open.
#: 2: ``Session.recorded_at`` (system time of the write) and the ``SessionLine`` table
#: (docs/concepts/recall.md#rule-6). 3: ``Fact.source_type`` (who said it;
#: docs/concepts/decisions.md#authority-and-disputes). 4: ``Fact.scope`` and ``Session.scope``
#: (docs/concepts/scopes.md).
SCHEMA_VERSION = 4

#: Fact edge properties in storage order (after the FROM/TO endpoints).
FACT_COLUMNS: tuple[tuple[str, str], ...] = (
    ("fid", "STRING"),
    ("predicate", "STRING"),
    ("object", "STRING"),
    ("valid_from", "TIMESTAMP"),
    ("valid_to", "TIMESTAMP"),
    ("recorded_at", "TIMESTAMP"),
    ("expired_at", "TIMESTAMP"),
    ("statement", "STRING"),
    ("kind", "STRING"),
    ("importance", "DOUBLE"),
    ("confidence", "DOUBLE"),
    ("source", "STRING"),
    ("source_ref", "STRING"),
    ("superseded_by", "STRING"),
    ("reason", "STRING"),
    ("access_count", "INT64"),
    ("last_accessed_at", "TIMESTAMP"),
    ("pinned", "BOOLEAN"),
    ("source_type", "STRING"),
    ("scope", "STRING"),
)

#: The node and rel tables of a database, in the order the DDL creates them.
TABLES: tuple[str, ...] = (
    "Meta",
    "Entity",
    "Predicate",
    "Session",
    "SessionLine",
    "Audit",
    "Fact",
    "MENTIONS",
)
