"""Turn a current Kuzu-family database into one of an older schema, for the upgrade tests."""

from __future__ import annotations

import re
from typing import Any

_ADD = re.compile(r"ALTER TABLE (\w+) ADD (\w+) ")


def make_old_schema(store: Any, version: str) -> None:
    """Drop the columns the upgrade from ``version`` adds, and record ``version``.

    Derived from the engine's own upgrade steps (``graphmem.store.kuzu.schema.UPGRADES``), so a
    new schema's columns are dropped here without a change to this helper.
    """
    from graphmem.store.kuzu.schema import UPGRADES

    for stmt in UPGRADES[version]:
        added = _ADD.match(stmt)
        if added is None:
            raise ValueError(f"schema {version}'s upgrade {stmt!r} is not a column to drop")
        store.run(f"ALTER TABLE {added[1]} DROP {added[2]}")
    store.run("MATCH (m:Meta {key: 'schema_version'}) SET m.value = $v", {"v": version})
