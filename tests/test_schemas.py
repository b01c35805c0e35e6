"""schemas/ holds generated artifacts; they must match the code (regenerate with
``python scripts/gen_schemas.py``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from graphmem.store.kuzu.schema import DDL, TABLES

ROOT = Path(__file__).resolve().parents[1] / "schemas"


def _generator():
    path = ROOT.parent / "scripts" / "gen_schemas.py"
    spec = importlib.util.spec_from_file_location("gen_schemas", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate = _generator().generate


@pytest.mark.parametrize(("name", "content"), sorted(generate().items()))
def test_schema_artifact_is_up_to_date(name, content):
    path = ROOT / name
    assert path.exists(), f"schemas/{name} missing: run python scripts/gen_schemas.py"
    assert path.read_text(encoding="utf-8") == content, (
        f"schemas/{name} drifted from the code: run python scripts/gen_schemas.py"
    )


def test_no_stale_artifacts():
    assert sorted(p.name for p in ROOT.iterdir()) == sorted(generate())


def test_the_table_names_are_the_ddl_tables():
    """``graphmem check`` looks for ``graphmem.store.schema.TABLES``: the DDL's tables."""
    assert tuple(stmt.split("EXISTS ")[1].split("(")[0] for stmt in DDL) == TABLES
