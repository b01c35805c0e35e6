"""schemas/ holds generated artifacts; they must match the code (regenerate with
``python -m graphmem.schemas``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphmem.schemas import generate

ROOT = Path(__file__).resolve().parents[1] / "schemas"


@pytest.mark.parametrize(("name", "content"), sorted(generate().items()))
def test_schema_artifact_is_up_to_date(name, content):
    path = ROOT / name
    assert path.exists(), f"schemas/{name} missing: run python -m graphmem.schemas"
    assert path.read_text(encoding="utf-8") == content, (
        f"schemas/{name} drifted from the code: run python -m graphmem.schemas"
    )


def test_no_stale_artifacts():
    assert sorted(p.name for p in ROOT.iterdir()) == sorted(generate())
