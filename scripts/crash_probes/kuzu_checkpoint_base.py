"""Probe (docs/concepts/storage.md#checkpoint-base), plain Kuzu 0.11.3: logged node inserts,
COMMIT, a copy of the data file, CHECKPOINT; SIGKILL inside the CHECKPOINT; reopen. When the
open fails replaying the log ("duplicated primary key"), the files are printed, the copy is
put back in place of the data file (the log stays) and the file is opened again: it must hold
every committed batch whole.

Usage: python scripts/crash_probes/kuzu_checkpoint_base.py ROUNDS OUTDIR SEED [MAX_DELAY_S]
"""

import os
import random
import shutil
import subprocess
import sys
import time

import kuzu

B = 500


def child(path, start):
    db = kuzu.Database(path, auto_checkpoint=False)
    c = kuzu.Connection(db)
    n = start
    while True:
        c.execute("BEGIN TRANSACTION")
        c.execute(
            "UNWIND $ids AS i CREATE (:E {id: i, v: i})", {"ids": [f"b{n}-{i}" for i in range(B)]}
        )
        c.execute("COMMIT")
        print("K", n, flush=True)
        shutil.copyfile(path, path + ".base.tmp")
        os.replace(path + ".base.tmp", path + ".base")
        print("C", n, flush=True)
        c.execute("CHECKPOINT")
        os.remove(path + ".base")
        n += 1


def count(path):
    db = kuzu.Database(path)
    c = kuzu.Connection(db)
    n = c.execute("MATCH (e:E) RETURN count(e)").get_all()[0][0]
    bad = c.execute("MATCH (e:E) WHERE e.v <> e.id OR e.v IS NULL RETURN count(e)").get_all()[0][0]
    c.close()
    db.close()
    return n, bad


def sizes(path):
    return {
        s or "db": os.path.getsize(path + s) if os.path.exists(path + s) else None
        for s in ("", ".wal", ".shadow", ".base")
    }


def main():
    rounds, out, rng = int(sys.argv[1]), sys.argv[2], random.Random(int(sys.argv[3]))
    most = float(sys.argv[4]) if len(sys.argv) > 4 else 0.06
    path = out + "/db.kuzu"
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    db = kuzu.Database(path)
    c = kuzu.Connection(db)
    c.execute("CREATE NODE TABLE E(id STRING PRIMARY KEY, v STRING)")
    c.close()
    db.close()
    start, stats = 0, {}
    for r in range(rounds):
        p = subprocess.Popen(
            [sys.executable, __file__, "child", path, str(start)], stdout=subprocess.PIPE, text=True
        )
        skip = rng.randint(0, 2)
        acked = start - 1
        while True:
            l = p.stdout.readline()
            if l.startswith("K"):
                acked = int(l.split()[1])
            if l.startswith("C"):
                if skip == 0:
                    time.sleep(rng.uniform(0, most))
                    p.kill()
                    break
                skip -= 1
        for l in p.communicate()[0].split("\n"):
            if l.startswith("K"):
                acked = int(l.split()[1])
        try:
            n, bad = count(path)
            how = "ok"
        except RuntimeError as e:
            if "duplicated primary key" not in str(e) or not os.path.exists(path + ".base"):
                print(r, "FAIL", str(e)[:150], sizes(path))
                break
            how = "restored"
            print(r, "replay failed; files:", sizes(path), flush=True)
            shutil.copyfile(path + ".base", path + ".tmp")
            os.replace(path + ".tmp", path)
            n, bad = count(path)
        if os.path.exists(path + ".base") and not (
            os.path.exists(path + ".wal") and os.path.getsize(path + ".wal")
        ):
            os.remove(path + ".base")
        stats[how] = stats.get(how, 0) + 1
        whole = n % B == 0 and bad == 0 and n // B in (acked + 1, acked + 2)
        print(
            r,
            how,
            n,
            "nodes, acknowledged batches",
            acked + 1,
            "whole" if whole else "TORN",
            flush=True,
        )
        if not whole:
            break
        start = n // B
    print(stats)


if __name__ == "__main__":
    if sys.argv[1] == "child":
        child(sys.argv[2], int(sys.argv[3]))
    else:
        main()
