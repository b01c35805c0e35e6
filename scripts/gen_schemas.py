"""Generate the artifacts in ``schemas/``: JSON Schemas of the models, the ontology, the DDL.

Usage::

    python scripts/gen_schemas.py            # rewrite schemas/

``tests/test_schemas.py`` fails when they drift. A script, not a module of ``graphmem``: it reads
the models and the Kuzu DDL together, which no layer of the library does.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from graphmem.models import Entity, Fact, Predicate, Session, WriteResult
from graphmem.ontology import default_predicates
from graphmem.store.kuzu.schema import DDL, SCHEMA_VERSION

__all__ = ["generate", "write"]


def generate() -> dict[str, str]:
    """Return ``{file name: content}`` for every artifact in ``schemas/``."""
    out: dict[str, str] = {}
    for model in (Entity, Fact, Predicate, Session, WriteResult):
        schema = model.model_json_schema()
        out[f"{model.__name__.lower()}.schema.json"] = json.dumps(schema, indent=2) + "\n"
    ontology = {
        "version": 1,
        "predicates": [p.model_dump(mode="json") for p in default_predicates()],
    }
    out["ontology.json"] = json.dumps(ontology, indent=2, ensure_ascii=False) + "\n"
    out["kuzu.cypher"] = (
        f"// graphmem storage DDL, schema version {SCHEMA_VERSION}\n" + ";\n".join(DDL) + ";\n"
    )
    return out


def write(folder: str | Path) -> list[Path]:
    """Write the artifacts into ``folder`` and return their paths."""
    root = Path(folder)
    root.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, content in generate().items():
        path = root / name
        path.write_text(content, encoding="utf-8")
        paths.append(path)
    return paths


if __name__ == "__main__":  # pragma: no cover
    default = Path(__file__).resolve().parents[1] / "schemas"
    for p in write(sys.argv[1] if len(sys.argv) > 1 else default):
        print(p)
