"""Speed of a bulk ``add_facts`` on Kuzu 0.11.3: the COPY path against logged inserts only.

docs/concepts/storage.md#checkpoint-base. For each case, a store is filled with STORED
versions, then one ``add_facts`` call of BATCH facts about new entities is timed with the
store's ``copy_policy`` ``auto`` (the COPY path: nodes committed, checkpoint with the file
copied first, version COPY) and ``never`` (one transaction of logged inserts).

Usage: python scripts/crash_probes/bulk_write_speed.py OUTDIR [STORED:BATCH ...]
"""

import os
import shutil
import sys
import time

import graphmem as gm
from graphmem.admission import AdmissionPolicy


def rows(tag, n):
    return [
        {"subject": f"{tag}-{i}", "predicate": "tag", "object": f"{tag}-o{i % 97}"}
        for i in range(n)
    ]


def one(out, stored, batch, policy):
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    path = out + "/m.kuzu"
    with gm.open(path, admission=AdmissionPolicy.unlimited()) as mem:
        mem.define_predicate("tag", cardinality="many")
        for k in range(0, stored, 5000):
            mem.add_facts(rows(f"pre{k}", min(5000, stored - k)))
    size = os.path.getsize(path)
    with gm.open(path, admission=AdmissionPolicy.unlimited()) as mem:
        mem._store.writer.copy_policy = policy
        t = time.perf_counter()
        mem.add_facts(rows("new", batch))
        took = time.perf_counter() - t
        paths = dict(mem._store.writer.write_paths)
    return took, size, paths


def main():
    out = sys.argv[1]
    cases = [tuple(int(x) for x in c.split(":")) for c in sys.argv[2:]] or [
        (0, 2000),
        (20000, 2000),
        (20000, 10000),
    ]
    for stored, batch in cases:
        for policy in ("auto", "never"):
            took, size, paths = one(out, stored, batch, policy)
            print(
                f"stored={stored} batch={batch} file={size / 1e6:.1f}MB policy={policy}: {took:.2f} s {paths}",
                flush=True,
            )


if __name__ == "__main__":
    main()
