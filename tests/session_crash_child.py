"""Child process for tests/test_session_crash.py: bulk session writes until killed.

``python tests/session_crash_child.py PATH START``: batch ``n`` is one ``add_sessions`` call at
system time ``BASE + n seconds`` with :data:`PER_BATCH` new sessions and a rewrite of the
session ``"shared"`` (new text and mentions), the shape that once tore. The batch
number is printed (and flushed) only after ``add_sessions`` returns.
"""

from __future__ import annotations

import datetime as dt
import sys
from typing import Any

BASE = dt.datetime(2031, 1, 1, tzinfo=dt.timezone.utc)
#: New sessions per batch (more than the bulk-write threshold).
PER_BATCH = 70


def batch_time(n: int) -> dt.datetime:
    """Return the system time of batch ``n``."""
    return BASE + dt.timedelta(seconds=n)


def shared_text(n: int) -> str:
    """Return the text batch ``n`` gives the shared session."""
    return f"Lead: batch {n} rewrote this session\nOps: second line of batch {n}"


def batch_rows(n: int) -> list[dict[str, Any]]:
    """Return the sessions of batch ``n``."""
    rows: list[dict[str, Any]] = [
        {
            "session_id": f"b{n}-{i}",
            "started_at": batch_time(n),
            "text": f"Ann: note {i} of batch {n}\nBo: reply {i}",
            "mentions": {f"topic-{n}-{i % 3}": 1, "common": 2},
        }
        for i in range(PER_BATCH)
    ]
    rows.append(
        {
            "session_id": "shared",
            "started_at": batch_time(n),
            "text": shared_text(n),
            "mentions": {f"shared-topic-{n}": 1},
        }
    )
    return rows


def main(path: str, start: int) -> None:
    """Write batches from ``start`` on, forever."""
    import graphmem as gm
    from graphmem.sessions import add_sessions
    from graphmem.timeutil import ManualClock

    clock = ManualClock(batch_time(start))
    with gm.open(path, clock=clock) as mem:
        print("ready", flush=True)
        n = start
        while True:
            clock.set(batch_time(n))
            add_sessions(mem, batch_rows(n), extract=False)
            sys.stdout.write(f"{n}\n")
            sys.stdout.flush()
            n += 1


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
