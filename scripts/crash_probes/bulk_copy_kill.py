"""Diagnostic probe (docs/concepts/storage.md#known-copy-defect): SIGKILL a child doing bulk
``add_facts`` (COPY path forced) at a chosen event (TRIG=C: the version COPY, TRIG=K: the
checkpoint before it), then inspect the raw Fact rel table after reopen.

Usage: PYTHONPATH=. python scripts/crash_probes/bulk_copy_kill.py ROUNDS SEED OUTDIR MAXDELAY
"""

import json
import os
import random
import select
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ENGINE = os.environ.get("GRAPHMEM_ENGINE", "kuzu")


def child(path, start):
    import datetime as dt

    import graphmem as gm
    from graphmem.admission import AdmissionPolicy
    from graphmem.store.kuzu.connection import KuzuConnection
    from graphmem.store.kuzu.transactions import KuzuWriter
    from graphmem.timeutil import ManualClock

    orig_exec = KuzuConnection.execute

    def _execute(self, q, p):
        if q == "CHECKPOINT":
            sys.stdout.write("K\n")
            sys.stdout.flush()
            t = time.time()
            r = orig_exec(self, q, p)
            sys.stdout.write(f"k {time.time() - t:.4f}\n")
            sys.stdout.flush()
            return r
        if q.startswith("COPY Fact"):
            sys.stdout.write("C\n")
            sys.stdout.flush()
            t = time.time()
            r = orig_exec(self, q, p)
            sys.stdout.write(f"X {time.time() - t:.4f}\n")
            sys.stdout.flush()
            return r
        return orig_exec(self, q, p)

    KuzuConnection.execute = _execute
    KuzuWriter._copy_pays = lambda self, n, stored: True
    orig_commit = KuzuWriter._commit

    def _commit(self):
        t = time.time()
        orig_commit(self)
        sys.stdout.write(f"M {time.time() - t:.4f}\n")
        sys.stdout.flush()

    KuzuWriter._commit = _commit
    base = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    clock = ManualClock(base)
    with gm.open(path, clock=clock, engine=ENGINE, admission=AdmissionPolicy.unlimited()) as mem:
        sys.stdout.write("R\n")
        sys.stdout.flush()
        n = start
        while True:
            clock.set(base + dt.timedelta(seconds=n))
            rows = [
                {
                    "subject": f"bulk{n}-{i}",
                    "predicate": "tag",
                    "object": f"o{i % 9}",
                    "source": f"b{n}",
                }
                for i in range(500)
            ]
            mem.add_facts(rows)
            sys.stdout.write(f"A {n}\n")
            sys.stdout.flush()
            n += 1


def inspect(path):
    mod = __import__(ENGINE)
    db = mod.Database(path)
    c = mod.Connection(db)

    def q(s):
        return c.execute(s).get_all()

    tot = q("MATCH ()-[r:Fact]->() RETURN count(r)")[0][0]
    nulls = q(
        "MATCH (a)-[r:Fact]->(b) WITH a, r, b WHERE r.fid IS NULL RETURN a.id, b.id, r.predicate, r.recorded_at, r.source LIMIT 5"
    )
    nnull = q("MATCH ()-[r:Fact]->() WITH r WHERE r.fid IS NULL RETURN count(r)")[0][0]
    bysrc = q("MATCH ()-[r:Fact]->() RETURN r.source, count(r) ORDER BY r.source")
    meta = q("MATCH (m:Meta) RETURN m.key, m.value")
    ents = q("MATCH (e:Entity) RETURN count(e)")[0][0]
    c.close()
    db.close()
    return tot, nnull, nulls, bysrc, meta, ents


def guarded(cmd, limit=60, mem=1500):
    import tempfile

    o = tempfile.TemporaryFile()
    e = tempfile.TemporaryFile()
    p = subprocess.Popen(cmd, stdout=o, stderr=e)
    t0 = time.time()
    while p.poll() is None:
        time.sleep(0.05)
        try:
            rss = (
                int(
                    [l for l in open(f"/proc/{p.pid}/status") if l.startswith("VmRSS")][0].split()[
                        1
                    ]
                )
                // 1024
            )
        except Exception:
            rss = 0
        if rss > mem or time.time() - t0 > limit:
            p.kill()
            p.wait()
            return None
    o.seek(0)
    e.seek(0)
    return subprocess.CompletedProcess(cmd, p.returncode, o.read(), e.read())


def files(path):
    d = os.path.dirname(path)
    return {f: os.path.getsize(os.path.join(d, f)) for f in sorted(os.listdir(d))}


TRIG = os.environ.get("TRIG", "C")


def main():
    rounds = int(sys.argv[1])
    seed = int(sys.argv[2])
    out = sys.argv[3]
    maxdelay = float(sys.argv[4]) if len(sys.argv) > 4 else 0.1
    rng = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    work = os.path.join(out, "db")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "mem.kuzu")
    start = 0
    bad = 0
    import datetime as dt

    import graphmem as gm
    from graphmem.timeutil import ManualClock

    C = lambda: ManualClock(dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc))
    with gm.open(path, engine=ENGINE, clock=C()) as mem:
        mem.define_predicate("tag", cardinality="many")
    for r in range(rounds):
        p = subprocess.Popen(
            [sys.executable, __file__, "child", path, str(start)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        acks = []
        lines = []
        # wait for the Nth COPY start, then kill after delay
        skip = rng.randint(0, 2)
        delay = rng.uniform(0, maxdelay)
        buf = b""
        killed = False
        t0 = time.time()
        while not killed:
            ready, _, _ = select.select([p.stdout], [], [], 60)
            if not ready:
                print("timeout")
                break
            chunk = os.read(p.stdout.fileno(), 4096)
            if not chunk:
                print("child died", p.stderr.read().decode()[-2000:])
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                line = line.decode()
                lines.append(line)
                if line.startswith("A "):
                    acks.append(int(line[2:]))
                if line == TRIG:
                    if skip == 0:
                        time.sleep(delay)
                        p.send_signal(signal.SIGKILL)
                        killed = True
                        break
                    skip -= 1
        out_, err = p.communicate()
        for line in (buf + out_).decode().split("\n"):
            if line:
                lines.append(line)
            if line.startswith("A "):
                acks.append(int(line[2:]))
        idx = max([i for i, l in enumerate(lines) if l == "C"], default=0)
        copyt = lines[-6:]
        fs = files(path)
        snap = os.path.join(out, f"pre-{r}")
        shutil.copytree(work, snap)
        pr = guarded([sys.executable, __file__, "inspect", path])
        if pr is None:
            print(
                f"r{r} INSPECT HANG delay={delay:.4f} acks={acks} files={fs} snapshot={snap}",
                flush=True,
            )
            return
        if pr.returncode:
            print(
                f"r{r} INSPECT FAIL delay={delay:.4f} acks={acks} files={fs} ev={lines[-6:]} {pr.stderr.decode()[-600:]}",
                flush=True,
            )
            return
        tot, nnull, nulls, bysrc, meta, ents = json.loads(pr.stdout)
        last = acks[-1] if acks else start - 1
        killed_src = f"b{last + 1}"
        kb = dict((s, c) for s, c in bysrc).get(killed_src, 0)
        state = (
            "NULL"
            if nnull
            else ("whole" if kb == 500 else "absent" if kb == 0 else f"PARTIAL {kb}")
        )
        pend = [m for m in meta if m[0] == "copy_pending"]
        print(
            f"r{r} delay={delay:.4f} acks={acks} files={fs} copyt={copyt[-2:]} total={tot} null={nnull} killed_batch_edges={kb} state={state} pending={'yes' if pend else 'no'} ents={ents} nullrows={nulls[:2]}",
            flush=True,
        )
        if nnull:
            bad += 1
        else:
            shutil.rmtree(snap)
        # continue: reopen via graphmem so recovery runs
        with gm.open(path, engine=ENGINE, clock=C()) as mem:
            pass
        start = last + 1 + (1 if kb == 500 else 0)
        if nnull or tot > 5000:
            # restart fresh db
            shutil.rmtree(work)
            os.makedirs(work)
            with gm.open(path, engine=ENGINE, clock=C()) as mem:
                mem.define_predicate("tag", cardinality="many")
            start = 0
    print("bad", bad, "of", rounds)


if __name__ == "__main__":
    if sys.argv[1] == "inspect":
        print(json.dumps(inspect(sys.argv[2]), default=str))
    elif sys.argv[1] == "child":
        child(sys.argv[2], int(sys.argv[3]))
    else:
        main()
