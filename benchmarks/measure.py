"""What every benchmark worker measures with: progress, peak RSS, disk size and latencies.

Standard library only: ``benchmarks/memvara_worker.py`` imports it from memvara's own env
(docs/benchmarks.md#memvara), where graphmem is not installed.
"""

from __future__ import annotations

import glob
import os
import resource
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any


def note(*parts: object) -> None:
    """Progress on stderr (the driver passes it through)."""
    print("#  ", *parts, file=sys.stderr, flush=True)


def rss_mb() -> float:
    """Peak RSS of this process (VmHWM: unlike ru_maxrss it is not inherited from the parent)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def disk_mb(path: str) -> float:
    """Megabytes of the files (and folders) whose names start with ``path``."""
    total = 0
    for f in glob.glob(path + "*"):
        if os.path.isdir(f):
            total += sum(p.stat().st_size for p in Path(f).rglob("*") if p.is_file())
        else:
            total += os.path.getsize(f)
    return total / 1e6


def lat(label: str, fn: Callable[[Any], Any], args: list[Any], warm: int = 20) -> dict[str, float]:
    """Return p50/p95 latency (ms) of ``fn`` over ``args``, after ``warm`` warm-up calls."""
    for a in args[:warm]:
        fn(a)
    times = []
    for a in args:
        t = time.perf_counter()
        fn(a)
        times.append((time.perf_counter() - t) * 1e3)
    times.sort()
    result = {
        "p50_ms": round(statistics.median(times), 3),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 3),
        "n": len(times),
    }
    note(label, result)
    return result
