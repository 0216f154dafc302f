"""The in-process workloads of compare.py, peers interleaved: for noisy shared machines.

compare.py measures one peer after another, so when the machine's speed drifts between
seconds (other builds running) its ratios drift with it. This runs each peer's workloads (batched
writes of the table (500 rows per call or transaction), point writes, point reads, 100-row
ranges, full scan; compare.py's peer classes and loops, the same data)
in a fresh child process, round after round with the peers in turn, and prints each figure's
median over the rounds. A peer named `sparsetable@DIR` imports the `sparsetable` package
found in DIR first (an unpacked wheel), so two builds of the module can be compared in one run.

Run: python bindings/python/bench/interleaved.py [--rows N] [--ops N] [--rounds N]
[--writes N] [--peer sqlite3|lmdb|sparsetable|sparsetable@DIR ...]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(peer_name: str, rows: int, ops: int, writes: int) -> dict:
    sys.path.insert(0, str(HERE))
    import compare

    tmp = tempfile.mkdtemp(prefix="sparsetable-interleaved-")
    if peer_name.startswith("sparsetable"):
        peer = compare.Sparsetable(peer_name)
    elif peer_name == "sqlite3":
        peer = compare.Sqlite("sqlite3 (memory)", ":memory:")
    else:
        peer = compare.Lmdb("lmdb", os.path.join(tmp, "lmdb"))
    keys = [compare.key(i) for i in range(rows)]
    out = {"batched writes (rows/s)": rows / compare.timed(lambda: [peer.write_batch(keys[i : i + 500]) for i in range(0, rows, 500)])}
    point = [compare.key(i) for i in range(rows, rows + writes)]
    out["point writes"] = writes / compare.timed(lambda: peer.write(point))
    rows += writes
    rng = random.Random(7)
    reads = [compare.key(rng.randrange(rows)) for _ in range(ops)]
    read, range100 = peer.read, peer.range100

    def point_reads():
        for k in reads:
            read(k)

    starts = reads[: max(1, ops // 20)]
    got = []
    out["point reads"] = ops / compare.timed(point_reads)
    seconds = compare.timed(lambda: got.append(sum(len(range100(k)) for k in starts)))
    out["100-row ranges (rows/s)"] = got[0] / seconds
    n = []
    out["scan (rows/s)"] = rows / compare.timed(lambda: n.append(peer.scan()))
    assert n == [rows], n
    peer.close()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=50000)
    ap.add_argument("--ops", type=int, default=50000)
    ap.add_argument("--writes", type=int, default=5000, help="point writes (one row per call or commit)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--peer", action="append", help="sqlite3, lmdb, sparsetable or sparsetable@DIR")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.rows, args.ops, args.writes)))
        return
    peers = args.peer or ["sparsetable", "sqlite3", "lmdb"]
    runs = {p: [] for p in peers}
    for _ in range(args.rounds):
        for p in peers:
            env = dict(os.environ)
            if "@" in p:
                env["PYTHONPATH"] = p.split("@", 1)[1] + os.pathsep + env.get("PYTHONPATH", "")
            argv = [sys.executable, __file__, "--child", p, "--rows", str(args.rows), "--ops", str(args.ops), "--writes", str(args.writes)]
            runs[p].append(json.loads(subprocess.run(argv, env=env, capture_output=True, check=True, text=True).stdout))
    base = peers[0]
    workloads = list(runs[base][0])
    med = {p: {w: statistics.median(r[w] for r in runs[p]) for w in workloads} for p in peers}
    print(f"rows={args.rows} ops={args.ops}, median of {args.rounds} interleaved rounds; ops/s (ratio: {base} / peer)\n")
    print("| peer | " + " | ".join(workloads) + " |")
    print("|---|" + "---|" * len(workloads))
    for p in peers:
        cells = [f"{med[p][w]:,.0f} ({med[base][w] / med[p][w]:.2f}x)" for w in workloads]
        print(f"| {p} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
