#!/usr/bin/python3
"""Side-by-side benchmark: NumPy / PyTorch on the CPU against `vkdml bench`
on the same shapes, interleaved round by round in one run, printing the
ratios against the targets BENCHMARKS.md records.

Run it with Debian's interpreter (numpy 1.24, torch 1.13 from python3-numpy
and python3-torch), not a pyenv python3:

    /usr/bin/python3 scripts/bench_compare.py [--rounds 5] [--repeat 7] [--vkdml PATH]

Without --vkdml it builds ./cmd/vkdml into a temporary directory with `go
build`. Each round times every case once in NumPy/PyTorch (median of
--repeat calls, wall clock) and once in vkdml (median of --repeat device
times from timestamp queries, and the wall-clock median of Execute + Wait);
a case's ratio is baseline time / vkdml time within the round, and the
table shows the median over rounds (higher is better, except the submit
ratio, which is vkdml's own re-submit time over an empty submit, lower is
better). NumPy runs on one thread (its argmax is single-threaded); PyTorch
uses 2 threads (torch.set_num_threads(2)).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

try:
    import torch
except ImportError:  # the pooling case is skipped without torch
    torch = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def vkdml_bench(binary, args, repeat, warmup=2):
    cmd = [binary, "bench", "--json", "--repeat", str(repeat), "--warmup", str(warmup)] + args
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(l) for l in out.splitlines() if l.startswith("{")][0]


def timed(fn, repeat):
    fn()  # warm up
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t) * 1e3)
    return statistics.median(ts)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--vkdml", default="")
    ap.add_argument("--only", default="", help="comma-separated case names to run")
    a = ap.parse_args()

    binary = a.vkdml
    if not binary:
        binary = os.path.join(tempfile.mkdtemp(prefix="vkdml-bench-"), "vkdml")
        subprocess.run(["go", "build", "-o", binary, "./cmd/vkdml"], check=True, cwd=ROOT)

    rng = np.random.default_rng(1)
    x64m = rng.standard_normal(64 << 20, dtype=np.float32)
    mat = rng.standard_normal((4096, 16384), dtype=np.float32)
    i64m = rng.integers(-1000, 1000, 64 << 20, dtype=np.int32)
    imat = i64m.reshape(4096, 16384)
    cases = [
        # name, baseline label, baseline fn, vkdml args, goal, goal text
        ("argmax 64M f32", "numpy", lambda: np.argmax(x64m),
         ["--op", "argmax", "--shape", str(64 << 20), "--axes", "0"], 1.0),
        ("argmax 4096x16384 axis 1", "numpy", lambda: np.argmax(mat, axis=1),
         ["--op", "argmax", "--shape", "4096,16384", "--axes", "1"], 1.0),
        ("argmax 4096x16384 axis 0", "numpy", lambda: np.argmax(mat, axis=0),
         ["--op", "argmax", "--shape", "4096,16384", "--axes", "0"], 5.0),
        ("reduce max 64M f32", "numpy", lambda: np.max(x64m),
         ["--op", "reduce", "--function", "max", "--shape", str(64 << 20), "--axes", "0"], 0.5),
        ("reduce max 4096x16384 axis 0", "numpy", lambda: np.max(mat, axis=0),
         ["--op", "reduce", "--function", "max", "--shape", "4096,16384", "--axes", "0"], 5.0),
        ("reduce sum i32 64M", "numpy", lambda: np.sum(i64m, dtype=np.int32),
         ["--op", "reduce", "--function", "sum", "--dtype", "int32", "--shape", str(64 << 20), "--axes", "0"], 0.5),
        ("reduce sum i32 4096x16384 axis 0", "numpy", lambda: np.sum(imat, axis=0, dtype=np.int32),
         ["--op", "reduce", "--function", "sum", "--dtype", "int32", "--shape", "4096,16384", "--axes", "0"], 5.0),
        # The exact float SUM (one rounding of the exact sum) against
        # NumPy's pairwise FLOAT32 sum.
        ("reduce sum f32 64M", "numpy", lambda: np.sum(x64m),
         ["--op", "reduce", "--function", "sum", "--shape", str(64 << 20), "--axes", "0"], 0.5),
        ("reduce sum f32 4096x16384 axis 0", "numpy", lambda: np.sum(mat, axis=0),
         ["--op", "reduce", "--function", "sum", "--shape", "4096,16384", "--axes", "0"], 3.0),
    ]
    if torch is not None:
        torch.set_num_threads(2)
        timg = torch.from_numpy(rng.standard_normal((1, 64, 512, 512), dtype=np.float32))
        cases.append(("maxpool 2x2 s2 idx [1,64,512,512]", "torch",
                      lambda: torch.nn.functional.max_pool2d(timg, 2, 2, return_indices=True),
                      ["--op", "maxpool", "--shape", "1,64,512,512", "--window", "2", "--strides", "2", "--indices"], 2.0))
        # REDUCE against PyTorch, for the record (the goals are NumPy's).
        tx, tm, ti = torch.from_numpy(x64m), torch.from_numpy(mat), torch.from_numpy(imat)
        cases += [
            ("reduce max 64M f32 (torch.amax)", "torch", lambda: torch.amax(tx),
             ["--op", "reduce", "--function", "max", "--shape", str(64 << 20), "--axes", "0"], 0.0),
            ("reduce max 4096x16384 axis 0 (torch.amax)", "torch", lambda: torch.amax(tm, 0),
             ["--op", "reduce", "--function", "max", "--shape", "4096,16384", "--axes", "0"], 0.0),
            ("reduce sum i32 4096x16384 axis 0 (torch.sum)", "torch", lambda: torch.sum(ti, 0, dtype=torch.int32),
             ["--op", "reduce", "--function", "sum", "--dtype", "int32", "--shape", "4096,16384", "--axes", "0"], 0.0),
        ]
    if a.only:
        keep = [s.strip() for s in a.only.split(",")]
        cases = [c for c in cases if any(k in c[0] for k in keep)]

    info = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
    model = next((l.split(":", 1)[1].strip() for l in info.splitlines() if l.startswith("Model name")), "?")
    print(f"cpu: {model}, {os.cpu_count()} cores; numpy {np.__version__}"
          + (f", torch {torch.__version__} ({torch.get_num_threads()} threads)" if torch is not None else ""))
    print(f"load average at start: {os.getloadavg()}")

    rows = {c[0]: {"base": [], "dev": [], "wall": [], "r_dev": [], "r_wall": [], "kernel": ""} for c in cases}
    subs = []
    for r in range(a.rounds):
        for name, _, fn, args, _ in cases:
            base = timed(fn, a.repeat)
            res = vkdml_bench(binary, args, a.repeat)
            row = rows[name]
            row["base"].append(base)
            row["dev"].append(res["median_ms"])
            row["wall"].append(res["wall_median_ms"])
            row["r_dev"].append(base / res["median_ms"])
            row["r_wall"].append(base / res["wall_median_ms"])
            row["kernel"] = res["kernel"]
            row.setdefault("gbps", []).append(res["gbps"])
            row.setdefault("copy", []).append(res["copy_gbps"])
        s = vkdml_bench(binary, ["--op", "submit"], 2000)
        subs.append((s["wall_median_ms"], s["empty_wall_median_ms"], s["submit_ratio"]))
        print(f"round {r + 1}/{a.rounds} done, load average {os.getloadavg()[0]:.2f}", file=sys.stderr)

    med = statistics.median
    print()
    print(f"{'case':46} {'baseline':>9} {'base ms':>9} {'vkdml ms':>9} {'wall ms':>9} {'GB/s':>6} {'copy':>6} {'kernel':>8} {'ratio':>7} {'(wall)':>7} {'goal':>6}  met")
    for name, label, _, _, goal in cases:
        row = rows[name]
        ratio = med(row["r_dev"])
        print(f"{name:46} {label:>9} {med(row['base']):9.2f} {med(row['dev']):9.2f} {med(row['wall']):9.2f} "
              f"{med(row['gbps']):6.2f} {med(row['copy']):6.2f} {row['kernel']:>8} "
              f"{ratio:6.2f}x {med(row['r_wall']):6.2f}x "
              + (f"{goal:5.1f}x  {'yes' if ratio >= goal else 'NO (%.0f%% of goal)' % (100 * ratio / goal)}" if goal else f"{'-':>6}  -"))
    sr = med([s[2] for s in subs])
    print(f"{'submit: 3x3 argmax / empty list':46} {'':>9} {1e3 * med([s[1] for s in subs]):8.1f}µ {1e3 * med([s[0] for s in subs]):8.1f}µ "
          f"{'':>9} {'':>6} {'':>6} {'':>8} {sr:6.2f}x {'':>7} {'≤1.2':>6}  {'yes' if sr <= 1.2 else 'NO'}")
    print("\nratio = baseline median / vkdml median device time (timestamp queries), per round, median over rounds;"
          " (wall) uses vkdml's Execute+Wait wall time instead; GB/s = vkdml's bytes read + written per device second;"
          " copy = the same run's vec4 copy kernel (read + write) over the same input (at most 128 MiB);"
          " submit: vkdml wall medians (µs), ratio = re-submitted / empty")
    print(f"load average at end: {os.getloadavg()}")


if __name__ == "__main__":
    main()
