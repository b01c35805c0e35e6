"""Cost of the copy taken before each checkpoint (docs/concepts/storage.md#checkpoint-base).

Fills a store with STORED versions, then times, ROUNDS times: one ``add_fact`` and the
checkpoint that follows it (``_checkpoint_now``), and a close after one ``add_fact``.
Run it with PYTHONPATH pointing at a graphmem with and without the copy to compare.

Usage: python scripts/crash_probes/checkpoint_copy_cost.py OUTDIR STORED [ROUNDS]
"""

import os
import shutil
import statistics
import sys
import time

import graphmem as gm
from graphmem.admission import AdmissionPolicy


def main():
    out, stored = sys.argv[1], int(sys.argv[2])
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    path = out + "/m.kuzu"
    adm = AdmissionPolicy.unlimited()
    with gm.open(path, admission=adm) as mem:
        mem.define_predicate("tag", cardinality="many")
        for k in range(0, stored, 5000):
            mem.add_facts(
                [
                    {"subject": f"p{k}-{i}", "predicate": "tag", "object": f"o{i % 97}"}
                    for i in range(min(5000, stored - k))
                ]
            )
    ck, cl = [], []
    with gm.open(path, admission=adm) as mem:
        for r in range(rounds):
            mem.add_fact(f"x{r}", "tag", "y")
            t = time.perf_counter()
            st = mem._store
            if hasattr(st, "_checkpoint_now"):
                st.executor.checkpoint_now()
            else:  # a graphmem without the copy
                st.executor.conn.execute("CHECKPOINT")
            ck.append(time.perf_counter() - t)
    for r in range(rounds):
        mem = gm.open(path, admission=adm)
        mem.add_fact(f"z{r}", "tag", "y")
        t = time.perf_counter()
        mem.close()
        cl.append(time.perf_counter() - t)
    size = os.path.getsize(path) / 1e6
    print(
        f"file {size:.1f} MB: checkpoint after one write median {statistics.median(ck) * 1e3:.0f} ms, close after one write median {statistics.median(cl) * 1e3:.0f} ms"
    )


if __name__ == "__main__":
    main()
