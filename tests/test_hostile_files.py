"""Files that are not what a command expects: clear one-line errors, and nothing destroyed.

The export target that is the open database (or a device), a deeply nested import, binary
input to ``ingest-text`` and ``add-many``, and ``--db`` naming a file that is no database.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest

import graphmem as gm
from graphmem.timeutil import ManualClock

ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


def graphmem(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "graphmem", "--db", db, "--engine", ENGINE, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _one_line_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    assert result.returncode == 1, result
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("Error:")]
    assert len(lines) == 1, result.stderr
    for word in words:
        assert word in lines[0], lines[0]


@pytest.mark.parametrize("suffix", ["", ".wal", ".graphmem-seal"])
def test_export_refuses_the_open_database_and_its_files(db_path: str, suffix: str) -> None:
    clock = ManualClock("2026-01-01")
    with gm.open(db_path, clock=clock, engine=ENGINE) as mem:
        mem.add_fact("api", "runs_on", "Go")
        target = db_path + suffix
        with open(target, "a"):
            pass  # the log or seal may not exist yet: an export must not create it either
        with pytest.raises(gm.InvalidInput, match="a file of the open database"):
            _export(mem, target)
        with open(target, "rb") as fh:
            assert not fh.read(1).startswith(b"{")  # not replaced by an export
    with gm.open(db_path, clock=clock, engine=ENGINE, read_only=True) as mem:
        assert [f.object for f in mem.facts(subject="api")] == ["Go"]


def _export(mem: gm.Memory, target: str) -> None:
    from graphmem.export import export_memory

    export_memory(mem, target)


@pytest.mark.slow
def test_export_cli_refuses_the_database_a_link_to_it_and_devices(
    db_path: str, tmp_path: os.PathLike[str]
) -> None:
    assert graphmem(db_path, "add", "api", "runs_on", "Go").returncode == 0
    link = os.path.join(os.fspath(tmp_path), "backup.jsonl")
    os.link(db_path, link)  # the same file under another name
    # A FIFO stands in for a device: the old code, run as root, replaced /dev/full by a file.
    fifo = os.path.join(os.fspath(tmp_path), "fifo")
    os.mkfifo(fifo)
    for target in (db_path, link, fifo):
        _one_line_error(graphmem(db_path, "export", "-o", target), "cannot be an export")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    checked = graphmem(db_path, "check")
    assert checked.returncode == 0, checked.stderr
    assert graphmem(db_path, "export", "-o", db_path + ".jsonl").returncode == 0


def test_atomic_write_never_replaces_a_device_or_directory(tmp_path: os.PathLike[str]) -> None:
    from graphmem.fileio import atomic_write

    fifo = os.path.join(os.fspath(tmp_path), "fifo")  # a special file, as a device is
    os.mkfifo(fifo)
    for target in (fifo, os.fspath(tmp_path)):
        with pytest.raises(OSError, match="directory|special file"), atomic_write(target) as fh:
            fh.write("x")
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_import_of_deeply_nested_json_is_one_line(db_path: str, tmp_path: os.PathLike[str]) -> None:
    deep = os.path.join(os.fspath(tmp_path), "deep.jsonl")
    with open(deep, "w") as fh:
        fh.write("[" * 100_000 + "]" * 100_000 + "\n" + json.dumps({"type": "x"}) + "\n")
    _one_line_error(graphmem(db_path, "import", deep), "nested too deeply")


def test_binary_input_is_one_line(db_path: str, tmp_path: os.PathLike[str]) -> None:
    png = os.path.join(os.fspath(tmp_path), "image.png")
    with open(png, "wb") as fh:
        fh.write(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 40)
    _one_line_error(graphmem(db_path, "ingest-text", png), "is not UTF-8 text", "byte 0x89")
    result = graphmem(db_path, "add-many", png)
    _one_line_error(result, "is a binary file", "line(s)")
    assert len(result.stderr.splitlines()) == 1, result.stderr
    latin = os.path.join(os.fspath(tmp_path), "latin.jsonl")
    with open(latin, "wb") as fh:
        fh.write(b'{"subject": "caf\xe9", "predicate": "p", "object": "o"}\n' * 300)
    result = graphmem(db_path, "add-many", latin)
    assert result.returncode == 1
    assert len(result.stderr.splitlines()) <= 25, result.stderr
    assert "... and 280 more bad line(s)" in result.stderr


def test_a_file_that_is_no_database_says_so(tmp_path: os.PathLike[str]) -> None:
    readme = os.path.join(os.fspath(tmp_path), "README.md")
    with open(readme, "w") as fh:
        fh.write("# Not a database\n" * 200)
    for args in (("facts",), ("add", "a", "b", "c")):
        result = graphmem(readme, *args)
        _one_line_error(result, "is not a graphmem database")
        assert "damaged (" not in result.stderr
    with pytest.raises(gm.StoreError, match="is not a graphmem database"):
        gm.open(readme, engine=ENGINE)
    with open(readme) as fh:
        assert fh.read() == "# Not a database\n" * 200


def test_commits_checkpoint_so_a_long_running_process_holds_flat_memory(db_path: str) -> None:
    # Kuzu holds a commit's changes in memory until a checkpoint (about 300 KB a small write):
    # a checkpoint every CHECKPOINT_COMMITS commits, not only at 16 MiB of log.
    from graphmem.store.kuzu.engine import CHECKPOINT_COMMITS

    clock = ManualClock("2026-01-01")
    wal = db_path + ".wal"
    with gm.open(db_path, clock=clock, engine=ENGINE) as mem:
        sizes = []
        for i in range(CHECKPOINT_COMMITS + 5):
            mem.add_fact(f"svc{i % 7}", "runs_on", f"lang{i}")
            sizes.append(os.path.getsize(wal) if os.path.exists(wal) else 0)
        shrank = any(b < a for a, b in zip(sizes, sizes[1:], strict=False))
        assert shrank, "the log was never checkpointed"
