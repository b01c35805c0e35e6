"""Child processes for tests/test_crash.py and tests/test_concurrency.py.

- ``python tests/crash_child.py PATH START|-``: write deterministic batches until killed
  (``-``: read START from stdin once graphmem is imported). Batch
  ``n`` is one ``add_facts`` call at system time ``BASE + n seconds`` (a manual clock), so the
  parent can replay the same batches on a reference store. The batch number is printed (and
  flushed) only after ``add_facts`` returns.
- ``python tests/crash_child.py op KIND PATH WORK``: the crash harness of every public write
  (:data:`KINDS`): read START from stdin once graphmem is imported, then run operation START,
  START+1, ... of that kind (:func:`apply`), one public call each at system time
  ``BASE + n seconds``, printing ``n`` after the call returned. ``WORK`` is a scratch folder
  (export targets, import databases, the source export).
- ``python tests/crash_child.py hold PATH write|read``: open the store (and write one fact when
  writing), print ``ready``, keep it open until stdin closes, then close it and exit 0.
- ``python tests/crash_child.py checkpoint PATH``: read START from stdin once graphmem is
  imported; then for n = START, START+1, ...: one ``add_facts`` call of :data:`CKPT_ENTITIES`
  new entities (logged node inserts), print ``c n`` once it returned, run an explicit
  checkpoint, print ``k n``. With ``GRAPHMEM_TEST_NO_BASE=1`` the copy taken before each
  checkpoint is skipped (the defect the copy fixes comes back:
  docs/concepts/storage.md#checkpoint-base).
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
    from graphmem.store.kuzu.engine import COPY_THRESHOLD

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


# -- the crash harness of every public write (tests/test_crash.py) ----------------------------

#: Every public write the harness kills, with its kill window in seconds (how long after the
#: child was told to start the kill may land; the child opens the store and, for text, loads
#: the extractor first).
KINDS: dict[str, float] = {
    "add_fact": 0.4,
    "add_facts": 0.4,
    "add_facts_bulk": 1.5,
    "retract": 0.4,
    "remember": 2.0,
    "add_session": 2.0,
    "add_sessions": 3.0,
    "ingest_text": 3.0,
    "define_predicate": 0.4,
    "purge": 2.5,
    "import": 6.0,
    "export": 1.0,
    "maintain": 1.5,
}
#: Store-state kinds are verified by replaying them on a reference memory; the others by
#: their files.
FILE_KINDS = frozenset({"import", "export", "maintain"})
#: Entities prepared for the kinds that use one per operation (retract, purge).
PREPARED = 300


def op_time(n: int) -> dt.datetime:
    """Return the system time of operation ``n`` (maintain: one day apart, so it is due)."""
    return BASE + dt.timedelta(seconds=n)


def prepare(mem: Any, kind: str) -> None:
    """Fill a fresh store for ``kind`` (run by the parent on the file and on the reference)."""
    setup(mem)
    mem.define_predicate("owner", cardinality="one")
    if kind in ("retract", "purge"):
        rows = [
            {
                "subject": f"victim {i}",
                "predicate": "owner",
                "object": f"secret-{kind}-{i}-token",
                "statement": f"victim {i} holds secret-{kind}-{i}-token",
                "source": "prep",
            }
            for i in range(PREPARED)
        ]
        mem.add_facts(rows)
    if kind in ("export", "import", "maintain"):
        mem.add_facts(
            [
                {"subject": f"p{i % 300}", "predicate": "tag", "object": f"o{i}", "source": "prep"}
                for i in range(3000)
            ]
        )
        from graphmem.sessions import add_sessions

        add_sessions(
            mem,
            [
                {
                    "session_id": f"prep-{i}",
                    "started_at": BASE - dt.timedelta(days=40 - i),
                    "text": f"prep session {i}",
                    "mentions": [f"p{i}"],
                }
                for i in range(40)
            ],
        )


def _session(n: int, sid: str | None = None) -> dict[str, Any]:
    return {
        "session_id": sid or f"s{n}",
        "started_at": op_time(n),
        "text": f"session {n} on topic{n % 5}",
        "mentions": {f"topic{n % 5}": 1 + n % 3, f"topic{(n + 1) % 7}": 1},
    }


def apply(mem: Any, kind: str, n: int, work: str) -> None:
    """Run operation ``n`` of ``kind``: exactly one public call."""
    if kind == "add_fact":
        mem.add_fact(f"s{n % 7}", "value", f"v{n}", source=f"op-{n}")
    elif kind == "add_facts":
        mem.add_facts(batch_rows(n if n % BIG_EVERY != BIG_EVERY - 1 else n + 1))
    elif kind == "add_facts_bulk":
        # Pure inserts of new entities (the COPY-only commit), and on odd n a supersession
        # too (the same big batch, statement by statement).
        rows = [
            {"subject": f"bulk{n}-{i}", "predicate": "tag", "object": f"o{i % 9}", "source": "b"}
            for i in range(big_size())
        ]
        if n % 2:
            rows.append({"subject": "counter", "predicate": "value", "object": f"v{n}"})
        mem.add_facts(rows)
    elif kind == "retract":
        # Even operations retract a victim's fact, odd ones assert it again (the victims are
        # used in turn, so a fast engine never runs out of current facts to retract).
        victim = f"victim {n // 2 % PREPARED}"
        if n % 2 == 0:
            mem.retract(victim, "owner", reason=f"op {n}")
        else:
            mem.add_fact(victim, "owner", f"value-{n}", source=f"op-{n}")
    elif kind == "remember":
        mem.remember(f"We deploy service{n % 4} with tool{n}.", subject=f"service{n % 4}")
    elif kind == "add_session":
        # Every third call rewrites an earlier session (its mentions are replaced).
        mem.add_session(**_session(n, f"s{n - 2}" if n % 3 == 2 else None))
    elif kind == "add_sessions":
        from graphmem.sessions import add_sessions

        items = [_session(n * 100 + i, f"s{n}-{i}") for i in range(40)]
        if n:
            items.append(_session(n * 100 + 99, f"s{n - 1}-0"))  # rewrites a stored session
        add_sessions(mem, items)
    elif kind == "ingest_text":
        mem.ingest_text(f"Alice{n % 3} works at Company{n}. Bob{n % 2} lives in Town{n}.")
    elif kind == "define_predicate":
        mem.define_predicate(
            f"relation_{n}",
            cardinality="one" if n % 2 else "many",
            aliases=(f"relation alias {n}",),
        )
    elif kind == "purge":
        mem.purge(f"victim {n}", reason=f"erasure {n}")
    elif kind == "export":
        from graphmem.export import export_memory

        export_memory(mem, f"{work}/export.jsonl")
    else:
        raise ValueError(f"kind {kind!r} has no store operation")


def run_ops(kind: str, path: str, work: str) -> None:
    """Run the operations of ``kind`` from START (read from stdin) until killed."""
    import graphmem as gm
    from graphmem.timeutil import ManualClock

    if kind in ("remember", "ingest_text"):
        from graphmem import extract  # noqa: F401  # the extractor loads before the clock runs

    from graphmem.admission import AdmissionPolicy

    start = int(sys.stdin.readline())
    clock = ManualClock(op_time(start))
    unlimited = AdmissionPolicy.unlimited()  # thousands of operations an hour of system time
    if kind == "import":
        from graphmem.export import import_memory

        n = start
        while True:
            clock.set(op_time(n))
            with gm.open(f"{work}/import-{n}.kuzu", clock=clock, admission=unlimited) as mem:
                import_memory(mem, f"{work}/source.jsonl")
            print(n, flush=True)
            n += 1
    if kind == "maintain":
        import contextlib
        import io

        from graphmem.cli import cli

        n = start
        while True:
            at = (BASE + dt.timedelta(days=n)).isoformat()
            with contextlib.redirect_stdout(io.StringIO()):
                cli.main(["--db", path, "maintain", "--now", at, "--json"], standalone_mode=False)
            print(n, flush=True)
            n += 1
    with gm.open(path, clock=clock, read_only=kind == "export", admission=unlimited) as mem:
        n = start
        while True:
            clock.set(op_time(n))
            apply(mem, kind, n, work)
            sys.stdout.write(f"{n}\n")
            sys.stdout.flush()
            n += 1


#: New entities of one ``checkpoint`` batch (each one a logged node insert).
CKPT_ENTITIES = 400


def checkpoint_rows(n: int) -> list[dict[str, Any]]:
    """Return the facts of ``checkpoint`` batch ``n``: each about a new entity."""
    return [
        {"subject": f"ck{n}-{i}", "predicate": "tag", "object": f"ck{n}-o{i}", "source": f"c{n}"}
        for i in range(CKPT_ENTITIES)
    ]


def checkpoints(path: str) -> None:
    """Commit a batch of new entities, then checkpoint, until killed (module docstring)."""
    import os

    import graphmem as gm
    from graphmem.admission import AdmissionPolicy
    from graphmem.store import open_store
    from graphmem.timeutil import ManualClock

    if os.environ.get("GRAPHMEM_TEST_NO_BASE") == "1":
        from graphmem.store.kuzu import checkpoint

        checkpoint.Checkpointer.before = lambda self: None  # type: ignore[method-assign]

    start = int(sys.stdin.readline())
    clock = ManualClock(op_time(start))
    store = open_store(path)
    with gm.open(store=store, clock=clock, admission=AdmissionPolicy.unlimited()) as mem:
        if start == 0:
            setup(mem)
        n = start
        while True:
            clock.set(op_time(n))
            mem.add_facts(checkpoint_rows(n))
            print(f"c {n}", flush=True)
            store.executor.checkpoint_now()  # the checkpoint under test
            print(f"k {n}", flush=True)
            n += 1


def main(argv: list[str]) -> None:
    """Dispatch on the first argument (see the module docstring)."""
    if argv[0] == "op":
        run_ops(argv[1], argv[2], argv[3])
    elif argv[0] == "hold":
        hold(argv[1], argv[2])
    elif argv[0] == "checkpoint":
        checkpoints(argv[1])
    elif argv[0] == "writer":
        writer(argv[1], argv[2], int(argv[3]))
    else:
        crash(argv[0], None if argv[1] == "-" else int(argv[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
