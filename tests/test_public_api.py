"""The public surface: __all__ sorted, complete and importable; import stays light."""

from __future__ import annotations

import subprocess
import sys

import graphmem as gm


def test_all_is_sorted_and_importable():
    assert gm.__all__ == sorted(gm.__all__)
    for name in gm.__all__:
        assert getattr(gm, name) is not None


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


def test_import_does_not_load_heavy_dependencies():
    code = (
        "import sys, graphmem; heavy = {'kuzu', 'ladybug', 'spacy', 'matplotlib', "
        "'networkx', 'pyarrow', 'mcp'} & set(sys.modules); print(sorted(heavy))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


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
