"""The public surface: __all__ sorted, complete and importable; import stays light."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import click

import graphmem as gm


def test_all_is_sorted_and_importable():
    assert gm.__all__ == sorted(gm.__all__)
    for name in gm.__all__:
        assert getattr(gm, name) is not None


def test_every_error_is_a_public_name():
    # graphmem/__init__.py lists the error names again (its lazy table): the two lists agree
    from graphmem import errors

    assert set(errors.__all__) <= set(gm.__all__)
    assert all(getattr(gm, name) is getattr(errors, name) for name in errors.__all__)


def test_errors_form_one_tree_with_builtin_bases():
    assert issubclass(gm.InvalidInput, ValueError)
    assert issubclass(gm.NotFound, KeyError)
    assert issubclass(gm.ExtraUnavailable, ImportError)
    for name in (
        "InvalidInput",
        "NotFound",
        "StoreError",
        "StoreBusy",
        "SchemaVersionError",
        "ClockError",
        "BackfillOrderError",
        "RateLimited",
        "IntegrityError",
        "ExtraUnavailable",
    ):
        assert issubclass(getattr(gm, name), gm.GraphmemError)


HEAVY = ("kuzu", "ladybug", "falkordb", "redis", "spacy", "matplotlib", "networkx", "pyarrow")


def _loaded_after(code: str) -> set[str]:
    """The top-level packages in ``sys.modules`` after running ``code`` in a fresh Python."""
    probe = f"{code}\nimport sys\nprint(' '.join({{m.split('.')[0] for m in sys.modules}}))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_import_does_not_load_heavy_dependencies():
    # docs/api.md#importing-graphmem: every public name loads on first use
    loaded = _loaded_after("import graphmem")
    assert not loaded & {*HEAVY, "mcp", "pydantic", "rich", "click"}, sorted(loaded)


def test_import_graphmem_loads_no_graphmem_submodule():
    probe = "import sys, graphmem; print([m for m in sys.modules if m.startswith('graphmem.')])"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_version_and_the_cli_load_no_store_engine_pydantic_or_rich():
    # `graphmem --version` imports the CLI's group only (docs/api.md#importing-graphmem)
    code = (
        "import contextlib, io\nfrom graphmem.cli import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['--version'])"
    )
    loaded = _loaded_after(code)
    assert not loaded & {*HEAVY, "mcp", "pydantic", "rich"}, sorted(loaded)


def test_a_read_command_builds_no_validator(tmp_path: Path) -> None:
    # docs/concepts/surfaces.md#startup: models defer their validators, reads build none
    db = str(tmp_path / "r.kuzu")
    with gm.open(db) as mem:
        mem.add_fact("api", "runs_on", "Go", valid_from="2026-01-01")
    code = (
        "import contextlib, io\nfrom graphmem.cli import main\n"
        "with contextlib.suppress(SystemExit), contextlib.redirect_stdout(io.StringIO()):\n"
        f"    main(['--db', {db!r}, 'facts'])\n"
        "import pydantic\n"
        "built = [c.__name__ for c in pydantic.BaseModel.__subclasses__() + "
        "[s for c in pydantic.BaseModel.__subclasses__() for s in c.__subclasses__()] "
        "if c.__module__.startswith('graphmem') and c.__pydantic_complete__]\n"
        "print('BUILT', built)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "BUILT []" in out.stdout, out.stdout[-500:]
    assert "rich" not in _loaded_after(code)


def test_every_public_name_is_importable_lazily():
    names = ", ".join(n for n in gm.__all__ if n != "__version__")
    code = (
        f"from graphmem import {names}\nimport graphmem\n"
        f"print([n for n in graphmem.__all__ if getattr(graphmem, n) is not globals().get(n)])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['__version__']"
    assert gm.ManualClock is gm.timeutil.ManualClock
    assert gm.open is gm.memory.open  # type: ignore[attr-defined]


def test_an_unknown_name_is_an_attribute_error():
    import pytest

    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        gm.nope  # type: ignore[attr-defined]  # noqa: B018


def test_the_version_is_the_package_version():
    from importlib.metadata import version

    assert gm.__version__ == version("graphmem")


def test_the_cli_knows_each_command_module_and_the_engine_names():
    from graphmem.cli import COMMANDS, cli
    from graphmem.store import EMBEDDED_ENGINES, ENGINES

    assert sorted(EMBEDDED_ENGINES) == sorted(ENGINES)
    ctx = click.Context(cli)
    commands = {name: cli.get_command(ctx, name) for name in cli.list_commands(ctx)}
    assert sorted(commands) == sorted(COMMANDS)
    for name, command in commands.items():
        assert command is not None
        assert command.callback is not None
        assert command.callback.__module__ == f"graphmem.cli.{COMMANDS[name]}", name


def test_memory_surface_matches_the_spec():
    for name in (
        "define_predicate",
        "add_fact",
        "add_facts",
        "retract",
        "add_session",
        "ingest_text",
        "facts",
        "believed",
        "history",
        "changes",
        "why",
        "neighborhood",
        "to_networkx",
        "hot_topics",
        "triage",
        "context",
        "purge",
        "remember",
    ):
        assert callable(getattr(gm.Memory, name)), name
