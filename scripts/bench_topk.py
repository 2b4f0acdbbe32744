#!/usr/bin/python3
"""TOP_K against torch.topk on the CPU, the cases of issue 31, interleaved
round by round in one run (as scripts/bench_compare.py does for the other
operators): vocabulary rows (8x32000 and 128x256000, K = 1, 50, 1024,
2048) and mixture-of-experts routing (65536x64, K = 2 and 8), FLOAT32,
the last axis, largest first.

    /usr/bin/python3 scripts/bench_topk.py [--rounds 3] [--repeat 3] [--vkdml PATH] [--only 8x32000]

Each round times every case once in PyTorch (median of --repeat calls,
wall clock, torch.set_num_threads(2)) and once with `vkdml bench --json`
(median of --repeat device times from timestamp queries, after 2 warm-up runs); a case's ratio
is torch's time / vkdml's within the round, and the table shows the median
over rounds (higher is better).
"""
import argparse
import os
import statistics
import subprocess
import tempfile

import torch

from bench_compare import timed, vkdml_bench  # this folder is on sys.path when the script runs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = [((8, 32000), k) for k in (1, 50, 1024, 2048)] + [((128, 256000), k) for k in (1, 50, 1024, 2048)] + \
        [((65536, 64), k) for k in (2, 8)]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--vkdml", default="")
    ap.add_argument("--only", default="", help="comma-separated substrings of case names to run")
    a = ap.parse_args()
    binary = a.vkdml
    if not binary:
        binary = os.path.join(tempfile.mkdtemp(prefix="vkdml-bench-"), "vkdml")
        subprocess.run(["go", "build", "-o", binary, "./cmd/vkdml"], check=True, cwd=ROOT)
    torch.set_num_threads(2)
    gen = torch.Generator().manual_seed(1)
    cases = [(f"{s[0]}x{s[1]} K={k}", s, k) for s, k in CASES]
    if a.only:
        keep = [w for w in a.only.split(",") if w]
        cases = [c for c in cases if any(w in c[0] for w in keep)]
    inputs = {s: torch.randn(*s, generator=gen) for _, s, _ in cases}
    rows = {name: ([], [], "") for name, _, _ in cases}
    for r in range(a.rounds):
        for name, s, k in cases:
            x = inputs[s]
            tt = timed(lambda: torch.topk(x, k, dim=-1, largest=True, sorted=True), a.repeat)
            rec = vkdml_bench(binary, ["--op", "topk", "--shape", ",".join(map(str, s)), "--k", str(k)], a.repeat)
            vt = rec["median_ms"]
            rows[name][0].append(tt)
            rows[name][1].append(vt)
            rows[name] = (rows[name][0], rows[name][1], rec.get("kernel", ""))
            print(f"round {r + 1} {name}: torch {tt:.3f} ms, vkdml {vt:.3f} ms ({rows[name][2]})", flush=True)
    print("\n| case | torch.topk ms | vkdml ms (device) | vkdml kernel | ratio |")
    print("|---|---:|---:|---|---:|")
    for name, _, _ in cases:
        tts, vts, kern = rows[name]
        ratio = statistics.median(t / v for t, v in zip(tts, vts))
        print(f"| {name} | {statistics.median(tts):.3f} | {statistics.median(vts):.3f} | {kern} | **{ratio:.2f}×** |")


if __name__ == "__main__":
    main()
