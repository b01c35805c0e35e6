"""Child processes for tests/test_crash.py and tests/test_concurrency.py.

- ``python tests/crash_child.py PATH START|-``: write deterministic batches until killed
  (``-``: read START from stdin once graphmem is imported). Batch
  ``n`` is one ``add_facts`` call at system time ``BASE + n seconds`` (a manual clock), so the
  parent can replay the same batches on a reference store. The batch number is printed (and
  flushed) only after ``add_facts`` returns.
- ``python tests/crash_child.py hold PATH write|read``: open the store (and write one fact when
  writing), print ``ready``, keep it open until stdin closes, then close it and exit 0.
- ``python tests/crash_child.py writer PATH NAME COUNT``: write COUNT facts about NAME, opening
  and closing the store for each; on ``StoreBusy`` wait a little and retry. Prints
  ``done <busy retries>``.
"""

from __future__ import annotations

import datetime as dt
import sys
from typing import Any

BASE = dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)
#: Every BIG_EVERY-th batch is big enough to take the store's bulk COPY path.
BIG_EVERY = 40


def batch_time(n: int) -> dt.datetime:
    """Return the system time of batch ``n``."""
    return BASE + dt.timedelta(seconds=n)


def batch_number(at: dt.datetime) -> int:
    """Return the batch whose system time is ``at``."""
    return int((at - BASE).total_seconds())


def big_size() -> int:
    """Return a batch size that takes the store's bulk COPY path."""
    from graphmem.store.kuzu_store import COPY_THRESHOLD

    return max(COPY_THRESHOLD, 1)


def batch_rows(n: int) -> list[dict[str, Any]]:
    """Return the facts of batch ``n``.

    Usually a few adds, a supersession and a negation of batch n-1. Every BIG_EVERY-th batch
    is big: alternately pure inserts of new entities with a new predicate (the store may
    commit those as bulk COPYs only) and big plus mixed (the statement-by-statement path).
    """
    src = f"batch-{n}"
    big = n % BIG_EVERY == BIG_EVERY - 1
    if big and (n // BIG_EVERY) % 2 == 0:
        rows = [
            {"subject": f"b{n}-s{i}", "predicate": "tag", "object": f"o{i % 7}", "source": src}
            for i in range(big_size())
        ]
        rows += [
            {"subject": f"b{n}-s{i}", "predicate": f"bulk_{n}", "object": "x", "source": src}
            for i in range(5)
        ]
        return rows
    size = big_size() if big else 1 + n % 12
    rows = [
        {"subject": f"b{n}-s{i % 50}", "predicate": "tag", "object": f"o{i}", "source": src}
        for i in range(size)
    ]
    # Single-valued: closes the previous batch's counter version and inserts a shortened copy.
    rows.append({"subject": "counter", "predicate": "value", "object": f"v{n}", "source": src})
    if n > 0:
        # A negation of a fact of the previous batch: closes a version of another subject.
        rows.append(
            {
                "subject": f"b{n - 1}-s0",
                "predicate": "tag",
                "object": "o0",
                "statement": "that is no longer true",
                "source": src,
            }
        )
    return rows


def setup(mem: Any) -> None:
    """Define the predicates the batches use (idempotent)."""
    mem.define_predicate("tag", cardinality="many")
    mem.define_predicate("value", cardinality="one")


def crash(path: str, start: int | None) -> None:
    """Write batches START, START+1, ... forever, reporting each after it returns.

    With ``start=None`` the child imports graphmem, then reads START from stdin: the parent
    starts it ahead of time, so that the import overlaps the parent's checks.
    """
    import graphmem as gm
    from graphmem.timeutil import ManualClock

    if start is None:
        start = int(sys.stdin.readline())
    clock = ManualClock(batch_time(start))
    with gm.open(path, clock=clock) as mem:
        if start == 0:
            setup(mem)
        print("ready", flush=True)
        n = start
        while True:
            clock.set(batch_time(n))
            mem.add_facts(batch_rows(n))
            sys.stdout.write(f"{n}\n")
            sys.stdout.flush()
            n += 1


def hold(path: str, mode: str) -> None:
    """Hold the store open (writing or reading) until stdin closes."""
    import graphmem as gm

    with gm.open(path, read_only=mode == "read") as mem:
        if mode == "write":
            mem.add_fact("holder", "state", "holding")
        print("ready", flush=True)
        sys.stdin.read()


def writer(path: str, name: str, count: int) -> None:
    """Write ``count`` facts, one open/close each, retrying while another process holds it."""
    import random
    import time

    import graphmem as gm
    from graphmem.errors import StoreBusy

    busy = 0
    for i in range(count):
        while True:
            try:
                with gm.open(path) as mem:
                    mem.define_predicate("noted_item", cardinality="many")
                    mem.add_fact(name, "noted_item", f"{name}-{i}")
                break
            except StoreBusy:
                busy += 1
                time.sleep(random.uniform(0.01, 0.1))
    print(f"done {busy}", flush=True)


def main(argv: list[str]) -> None:
    """Dispatch on the first argument (see the module docstring)."""
    if argv[0] == "hold":
        hold(argv[1], argv[2])
    elif argv[0] == "writer":
        writer(argv[1], argv[2], int(argv[3]))
    else:
        crash(argv[0], None if argv[1] == "-" else int(argv[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
