"""A writer process for tests/test_falkordb_concurrency.py (many writers on one server).

``python tests/race_child.py URL``: open the memory (the wall clock), print ``ready``, then for
each line of stdin, a JSON object ``{"subject", "value", "valid_from", "at"}``, sleep until the
wall clock reads ``at`` (so every writer starts together), call ``add_fact(subject,
"works_at", value, valid_from=...)`` and print one JSON line: ``{"decision", "fid",
"recorded_at", "closed"}`` or ``{"error"}``. Exits when stdin closes.
"""

from __future__ import annotations

import json
import sys
import time


def main(url: str) -> None:
    """Run the writer loop (module docstring)."""
    import graphmem as gm

    mem = gm.open(url)
    print("ready", flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        time.sleep(max(0.0, job["at"] - time.time()))
        try:
            r = mem.add_fact(job["subject"], "works_at", job["value"], valid_from=job["valid_from"])
        except Exception as exc:  # noqa: BLE001 - reported to the parent
            print(json.dumps({"error": f"{type(exc).__name__}: {exc}"}), flush=True)
            continue
        assert r.fact is not None
        print(
            json.dumps(
                {
                    "decision": r.decision.value,
                    "fid": r.fact.id,
                    "recorded_at": r.fact.recorded_at.isoformat(),
                    "closed": [f.id for f in r.superseded],
                }
            ),
            flush=True,
        )
    mem.close()


if __name__ == "__main__":
    main(sys.argv[1])
