"""Diagnostic probe (docs/concepts/storage.md#checkpoint-base), plain Kuzu 0.11.3: logged node
inserts, COMMIT, CHECKPOINT; SIGKILL inside the CHECKPOINT; reopen (MODE=copy adds a rel COPY).

Usage: python scripts/crash_probes/kuzu_checkpoint_kill.py ROUNDS OUTDIR SEED
"""

import os
import random
import shutil
import subprocess
import sys
import time

import kuzu

MODE = os.environ.get("MODE", "nocopy")


def child(path, start):
    db = kuzu.Database(path, auto_checkpoint=False)
    c = kuzu.Connection(db)
    n = start
    while True:
        c.execute("BEGIN TRANSACTION")
        c.execute(
            "UNWIND $ids AS i CREATE (:E {id: i})", {"ids": [f"b{n}-{i}" for i in range(500)]}
        )
        c.execute("COMMIT")
        print("K", flush=True)
        c.execute("CHECKPOINT")
        print("k", flush=True)
        if MODE == "copy":
            import pyarrow as pa

            t = pa.table(
                {
                    "f": [f"b{n}-{i}" for i in range(500)],
                    "t": [f"b{n}-{(i + 1) % 500}" for i in range(500)],
                    "p": [f"x{i}" for i in range(500)],
                }
            )
            c.execute("BEGIN TRANSACTION")
            c.execute("COPY R FROM $t", {"t": t})
            c.execute("COMMIT")
        print("A", n, flush=True)
        n += 1


def main():
    rounds = int(sys.argv[1])
    out = sys.argv[2]
    rng = random.Random(int(sys.argv[3]))
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    path = out + "/db.kuzu"
    db = kuzu.Database(path)
    c = kuzu.Connection(db)
    c.execute("CREATE NODE TABLE E(id STRING PRIMARY KEY)")
    c.execute("CREATE REL TABLE R(FROM E TO E, p STRING)")
    c.close()
    db.close()
    start = 0
    bad = 0
    for r in range(rounds):
        p = subprocess.Popen(
            [sys.executable, __file__, "child", path, str(start)], stdout=subprocess.PIPE, text=True
        )
        skip = rng.randint(0, 3)
        while True:
            l = p.stdout.readline()
            if l.startswith("A"):
                start = int(l.split()[1]) + 1
            if l.strip() == "K":
                if skip == 0:
                    time.sleep(rng.uniform(0, 0.04))
                    p.kill()
                    break
                skip -= 1
        rest = p.communicate()[0]
        for l in rest.split("\n"):
            if l.startswith("A"):
                start = int(l.split()[1]) + 1
        try:
            db = kuzu.Database(path)
            c = kuzu.Connection(db)
            n = c.execute("MATCH (e:E) RETURN count(e)").get_all()[0][0]
            nr = c.execute("MATCH ()-[r:R]->() RETURN count(r)").get_all()[0][0]
            nn = c.execute("MATCH ()-[r:R]->() WITH r WHERE r.p IS NULL RETURN count(r)").get_all()[
                0
            ][0]
            c.close()
            db.close()
            # the killed batch's nodes are committed (COMMIT returned before K)
            start = max(start, n // 500)
            print(r, "ok", n, nr, nn, flush=True)
        except RuntimeError as e:
            print(r, "FAIL", str(e)[:150], flush=True)
            bad += 1
            shutil.rmtree(out)
            os.makedirs(out)
            db = kuzu.Database(path)
            c = kuzu.Connection(db)
            c.execute("CREATE NODE TABLE E(id STRING PRIMARY KEY)")
            c.execute("CREATE REL TABLE R(FROM E TO E, p STRING)")
            c.close()
            db.close()
            start = 0
    print("bad", bad, "of", rounds)


if __name__ == "__main__":
    if sys.argv[1] == "child":
        child(sys.argv[2], int(sys.argv[3]))
    else:
        main()
