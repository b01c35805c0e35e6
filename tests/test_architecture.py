"""The layer rules of ARCHITECTURE.md, checked on the imports of every module.

An import counts wherever it is written (module level, inside a function, under
``TYPE_CHECKING``): a layer that needs another's names depends on it.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "graphmem"


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


@functools.cache
def modules() -> dict[str, set[str]]:
    """Each module's imports, parsed by the test that reads them (not at collection: parsing
    every module takes a second, which every xdist worker would pay)."""
    return {_module(p): _imports(p) for p in sorted(ROOT.rglob("*.py"))}


def test_the_import_contracts_hold() -> None:
    """The layers and rules of ARCHITECTURE.md: the import-linter contracts of pyproject.toml.

    The same check as ``lint-imports`` (CI runs it after mypy): the layers (a core module
    imports no store, kernel or service; a service no facade), only ``graphmem.store`` imports
    a database client, only ``graphmem.text.nlp`` spaCy, services and the kernel reach the store
    through its interface only, and ``graphmem.text`` does not import the store.
    """
    from importlinter.cli import lint_imports

    code = lint_imports(config_filename=str(ROOT.parent / "pyproject.toml"), no_cache=True)
    assert code == 0, "an import contract is broken: run lint-imports to see which import"


#: The layers of ARCHITECTURE.md's drawing, top to bottom, as its left column names them.
DRAWN_LAYERS = ("surfaces", "facade", "services", "kernel", "store", "core")


def _drawing() -> dict[str, set[str]]:
    """ARCHITECTURE.md's drawing: the module paths each layer's rows name."""
    text = (ROOT.parent / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = text.split("```\n", 2)[1]
    rows: dict[str, list[str]] = {}
    layer = ""
    for line in block.splitlines():
        first = line.split()[0] if line.split() else ""
        if first in DRAWN_LAYERS:
            layer = first
        rows.setdefault(layer, []).append(line)
    drawn: dict[str, set[str]] = {}
    for name, lines in rows.items():
        joined = " ".join(lines)
        for base, items in re.findall(r"([\w/]+)/\{([^}]*)\}", joined):  # text/{a,b,...}
            joined += " " + " ".join(f"{base}/{i.strip()}" for i in items.split(","))
        paths = set()
        for token in re.findall(r"[\w./]+", joined):
            token = token.removesuffix(".py").strip("/")
            parts = token.split("/")
            paths.update("/".join(parts[: n + 1]) for n in range(len(parts)))
        drawn[name] = paths
    return drawn


def test_the_drawing_is_the_layers_contract() -> None:
    """Every module of the ``layers`` contract is drawn in its layer of ARCHITECTURE.md."""
    tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11")
    config = tomllib.loads((ROOT.parent / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (layers,) = [c["layers"] for c in contracts if c["id"] == "layers"]
    assert len(layers) == len(DRAWN_LAYERS)
    drawn = _drawing()
    for name, line in zip(DRAWN_LAYERS, layers, strict=True):
        for module in (m.strip() for m in line.split(":")):
            path = module.replace(".", "/")
            assert path in drawn[name], f"graphmem.{module} is not drawn in {name}"


#: Where an import cycle may be left: the clause rules of ``text/rules/`` and the reader use
#: each other's names (``graphmem.text``).
CYCLE_PACKAGES = ("graphmem.text.",)


def _cycles() -> list[set[str]]:
    """The strongly connected components of more than one module (every import counts)."""
    import grimp

    graph = grimp.build_graph("graphmem", cache_dir=None)
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for module in sorted(edges):
        if module not in index:
            visit(module)
    return found


def test_at_most_two_import_cycles() -> None:
    """Modules import down the layers; what imports in a circle stays inside one package."""
    cycles = _cycles()
    shown = [sorted(c) for c in cycles]
    assert len(cycles) <= 2, f"{len(cycles)} import cycles: {shown}"
    for cycle in cycles:
        assert any(all(m.startswith(p) for m in cycle) for p in CYCLE_PACKAGES), (
            f"a new import cycle: {sorted(cycle)}"
        )


def test_only_the_facade_opens_a_store() -> None:
    opening = {
        name
        for name, imports in modules().items()
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


#: Test files that open an in-memory embedded memory on purpose: reference memories of the
#: crash loops, engine-specific checks, subprocess scripts and the corpus tools.
_EMBEDDED_ON_PURPOSE = {
    "backends.py",
    "test_crash.py",
    "test_purge_bytes.py",
    "test_engines.py",
    "test_readers.py",
    "test_trust.py",
    "rot_eval.py",
    "text_eval.py",
}


def test_fresh_memories_come_from_the_backend_of_the_run() -> None:
    """``gm.open()`` without a path or a store would pin a test to the embedded engine and hide
    it from ``pytest --backend falkordb``: tests take ``mem`` or ``tests.backends.memory()``
    (docs/concepts/storage.md#tests-on-every-backend)."""
    found = []
    for path in sorted((ROOT.parent / "tests").rglob("*.py")):
        if path.name in _EMBEDDED_ON_PURPOSE:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "open"
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id == "gm"
                and (
                    not node.args
                    or (isinstance(node.args[0], ast.Constant) and node.args[0].value is None)
                )
                and not any(k.arg == "store" for k in node.keywords)
            ):
                found.append(f"{path.name}:{node.lineno}")
    assert not found, f"fresh memories opened with gm.open(), not tests.backends.memory(): {found}"


#: Test files allowed to reach into a memory's private store attribute, with the reason. Keep it
#: empty: a test that looks at the store opens it and passes it in.
_PRIVATE_STORE_ALLOWED: dict[str, str] = {}

#: An attribute access of the memory's private store (``mem`` dot ``_store``); ``open_store``,
#: ``mem_store`` and ``_store_...`` names do not match. Written so it does not match itself.
_PRIVATE_STORE = re.compile(r"\.(_store)\b")


def test_tests_hold_the_store_they_look_at() -> None:
    """A test that looks at the store under a memory opens it and passes it in (like httpx's
    ``Client(transport=...)``); it never reaches into the memory for its private store, which
    would pin the suite to the facade's internals (docs/concepts/storage.md#tests-on-every-backend).
    Scripts run in a child process (strings in a test file) are checked too.
    """
    tests = ROOT.parent / "tests"
    found = []
    for path in sorted(tests.rglob("*.py")):
        name = path.relative_to(tests).as_posix()
        if name in _PRIVATE_STORE_ALLOWED:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if _PRIVATE_STORE.search(line):
                found.append(f"tests/{name}:{n}: {line.strip()}")
    assert not found, (
        "tests reach into a memory's private store; open the store and pass it in instead: "
        "the mem_store fixture beside mem, tests.backends.store(), or "
        "graphmem.store.open_store(path, engine=...) for a path, then "
        "gm.open(store=store, clock=...) and call the store directly (the memory owns it and "
        "closes it):\n" + "\n".join(found)
    )


def test_the_private_store_allowlist_is_current() -> None:
    """Every allowed file exists and still needs its exception."""
    tests = ROOT.parent / "tests"
    stale = [
        name
        for name in _PRIVATE_STORE_ALLOWED
        if not (tests / name).is_file()
        or not _PRIVATE_STORE.search((tests / name).read_text(encoding="utf-8"))
    ]
    assert not stale, f"drop these from _PRIVATE_STORE_ALLOWED: {stale}"
