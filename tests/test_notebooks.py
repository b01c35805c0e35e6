"""The notebooks in notebooks/ follow the conventions and run top to bottom (nbclient).

Conventions (STYLE.md): numbered, one idea each, a markdown cell before every code cell,
``import graphmem as gm`` and public names only, offline, committed without outputs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("matplotlib")

NOTEBOOKS = sorted((Path(__file__).parent.parent / "notebooks").glob("*.ipynb"))
IDS = [p.stem for p in NOTEBOOKS]
# Attribute access or imports of underscore names: gm._x, mem._kernel, from graphmem._x ...
PRIVATE = re.compile(r"\.\s*_[a-zA-Z]|graphmem\.[\w.]*\._")


def test_the_eight_notebooks_exist() -> None:
    assert IDS == [
        "01-quickstart",
        "02-what-did-we-believe",
        "03-contradictions-and-why",
        "04-topics-and-hotness",
        "05-text-memory",
        "06-episodic-recall",
        "07-topic-files",
        "08-explore",
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_conventions(path: Path) -> None:
    book = nbformat.read(path, as_version=4)
    cells = book.cells
    assert cells[0].cell_type == "markdown"
    assert cells[0].source.startswith(f"# {int(path.name[:2])} · ")
    code = [c for c in cells if c.cell_type == "code"]
    assert "import graphmem as gm" in code[0].source
    for before, cell in zip(cells[:-1], cells[1:], strict=True):
        if cell.cell_type == "code":
            assert before.cell_type == "markdown", f"no markdown before: {cell.source[:60]!r}"
    for cell in code:
        assert cell.outputs == [], f"{path.name}: commit notebooks without outputs"
        assert cell.execution_count is None
        assert not PRIVATE.search(cell.source), f"private name in {path.name}: {cell.source}"
        assert "http" not in cell.source, "notebooks run offline"


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
@pytest.mark.filterwarnings("ignore::ResourceWarning")
@pytest.mark.parametrize("path", NOTEBOOKS, ids=IDS)
def test_runs_top_to_bottom(path: Path) -> None:
    book = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        book,
        timeout=180,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    errors = [o for c in book.cells for o in c.get("outputs", []) if o.output_type == "error"]
    assert errors == []
    # every figure a notebook returns shows up as an image
    figures = [c for c in book.cells if c.cell_type == "code" and "plot." in c.source]
    for cell in figures:
        assert any("image/png" in o.get("data", {}) for o in cell.outputs), cell.source
