#!/usr/bin/python3
"""TOP_K against torch.topk on the CPU, the cases of issue 31, interleaved
round by round in one run (as scripts/bench_compare.py does for the other
operators): vocabulary rows (8x32000 and 128x256000, K = 1, 50, 1024,
2048) and mixture-of-experts routing (65536x64, K = 2 and 8), FLOAT32,
the last axis, largest first.

    /usr/bin/python3 scripts/bench_topk.py [--rounds 3] [--repeat 3] [--vkdml PATH] [--only 8x32000]
        [--baseline PATH [--baseline-skip "128x256000 K=2048"]]

Each round times every case once in PyTorch (median of --repeat calls,
wall clock, torch.set_num_threads(2)) and once with `vkdml bench --json`
(median of --repeat device times from timestamp queries, after 2 warm-up runs); a case's ratio
is torch's time / vkdml's within the round, and the table shows the median
over rounds (higher is better). --baseline times a second vkdml binary
(an earlier build: before and after a change, in the same run) case by
case beside the first, with one warm-up run (the slowest cases take
seconds a run); --baseline-skip names cases (substrings) it leaves out.
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
    ap.add_argument("--baseline", default="", help="a second vkdml binary timed beside the first (before a change)")
    ap.add_argument("--baseline-skip", default="", help="comma-separated substrings of case names the baseline skips")
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
    skip = [w for w in a.baseline_skip.split(",") if w]
    rows = {name: {"torch": [], "vkdml": [], "base": [], "kernel": "", "base_kernel": ""} for name, _, _ in cases}
    for r in range(a.rounds):
        for name, s, k in cases:
            x = inputs[s]
            row = rows[name]
            args = ["--op", "topk", "--shape", ",".join(map(str, s)), "--k", str(k)]
            tt = timed(lambda: torch.topk(x, k, dim=-1, largest=True, sorted=True), a.repeat)
            rec = vkdml_bench(binary, args, a.repeat)
            row["torch"].append(tt)
            row["vkdml"].append(rec["median_ms"])
            row["kernel"] = rec.get("kernel", "")
            line = f"round {r + 1} {name}: torch {tt:.3f} ms, vkdml {rec['median_ms']:.3f} ms ({row['kernel']})"
            if a.baseline and not any(w in name for w in skip):
                base = vkdml_bench(a.baseline, args, 1, warmup=1)
                row["base"].append(base["median_ms"])
                row["base_kernel"] = base.get("kernel", "")
                line += f", baseline {base['median_ms']:.3f} ms ({row['base_kernel']})"
            print(line, flush=True)
    head, rule = "| case | torch.topk ms | vkdml ms (device) | vkdml kernel | ratio |", "|---|---:|---:|---|---:|"
    if a.baseline:
        head += " baseline ms | baseline kernel | baseline ratio |"
        rule += "---:|---|---:|"
    print("\n" + head + "\n" + rule)
    for name, _, _ in cases:
        row = rows[name]
        tts, vts = row["torch"], row["vkdml"]
        ratio = statistics.median(t / v for t, v in zip(tts, vts))
        line = f"| {name} | {statistics.median(tts):.3f} | {statistics.median(vts):.3f} | {row['kernel']} | **{ratio:.2f}×** |"
        if a.baseline:
            if row["base"]:
                bratio = statistics.median(t / v for t, v in zip(tts, row["base"]))
                line += f" {statistics.median(row['base']):.3f} | {row['base_kernel']} | {bratio:.2f}× |"
            else:
                line += " – | not run | – |"
        print(line)


if __name__ == "__main__":
    main()
