#!/usr/bin/python3
"""vkdml against torch on CUDA, on the same shapes, interleaved in one run.

Each round times every case once on each side, torch first, then vkdml:

- torch: warm-up calls, then one pair of CUDA events around each of many
  calls (wall clock with --torch-device cpu); the median.
- vkdml: `vkdml bench --json` (docs/json.md): the median of its device
  times from timestamp queries, and the kernel it chose.

A round also measures each side's copy bandwidth over one large FLOAT32
buffer (1 GiB; 16 MiB with --quick): torch's `clone` and vkdml's copy
kernel (`vkdml bench --op copy`). For each case the table shows the medians
over rounds of torch ms and vkdml ms, the median of the per-round ratios
(torch ms / vkdml ms: above 1 means vkdml is faster), and each side's
%copy: the minimal bytes moved (input read once, outputs written once)
per second, as a share of that side's copy bandwidth in the same round.
vkdml is asked for 64-bit indices (argmax INT64, max pooling UINT64), so
both sides write the same bytes as torch, whose indices are int64.

torch has no argmax for unsigned 16-, 32- and 64-bit integers; those cases
compare vkdml's unsigned type with torch on the signed twin. The strided
case gives torch a transposed view; `vkdml bench` has no strided-input
flag, so vkdml reads the same bytes as a packed tensor along the other
axis, which is the same memory walk and the same result.

Prepared here, run on the GPU machine with .gpu and .gl carried along
(../shared/gpu/README.md), both from the project root:

    ../shared/gpu/prepare.sh ./ops              # here: .gpu/vkdml, the loader in .gl
    bash .gpu/on-device.sh 'python3 scripts/gpu_compare.py --out "$OUT/gpu"'   # there

Dry run without a GPU (torch on the CPU, vkdml on lavapipe):

    go build -o bin/vkdml ./cmd/vkdml
    VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json \\
      /usr/bin/python3 scripts/gpu_compare.py --torch-device cpu --quick

--sweep first runs the tuning sweep (below), then the comparison with the
tuning it picked, within one --time-limit:

    bash .gpu/on-device.sh 'python3 scripts/gpu_compare.py --sweep --out "$OUT/gpu"'

The sweep times, with `vkdml bench`, each class of shapes (SWEEP) under
each forced strategy and each point of the class's tuning knobs (`--tune`,
the knobs of ops/layout.go's tuning struct), one bench process per point
with all the class's shapes of one type. Per class it picks the point of
least summed regret (time over the shape's best, summed over the shapes),
writes DIR/sweep.jsonl (every record), DIR/sweep.md (default and best per
shape, the pick per class) and DIR/tuning.json (the picked knobs, the
format of $VKDML_TUNING), and runs the comparison with VKDML_TUNING set to
it. A point whose time runs past --sweep-time is skipped and said so.
--sweep --dry-run prints the planned points, their `vkdml bench` command
lines and an estimate of their time, and runs nothing (no GPU, no torch).

--gpu-run is one GPU session in one command of at most --time-limit
(540 s): the exactness tests of the kernels that have never run on a GPU
(FIRST_TESTS, from the test binaries ../shared/gpu/prepare.sh put in
.gpu/), then the comparison of every case (two rounds at most, leaving the
sweep a quarter of the budget), then the sweep with the time left, max
pooling's class first; it builds nothing, and every result is a file in
--out (docs/gpu-run.md):

    bash .gpu/on-device.sh 'python3 scripts/gpu_compare.py --gpu-run --out "$OUT/gpu"'

`make gpu-run-dry` (a CI stage) runs it on lavapipe with --quick and CPU
torch within 100 s, listing the tests rather than running them.

--plan-check PROFILE needs no GPU either: it prints, for every case, the
plan `vkdml plan --check` makes on a device profile (h100, ...), its facts
and the GPU goals it misses (lanes, empty lanes, bytes in flight, serial
partials, counted ops per byte moved, partials over the inputs;
cmd/vkdml's TestH100Goals holds the h100 results).

The table (Markdown) goes to stdout and DIR/gpu_compare.md, everything
measured to DIR/gpu_compare.json; both are rewritten after every round, so
a run cut short keeps what it finished. A case that fails on one side is
recorded with the reason and the run goes on.
"""
import argparse
import datetime
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # --list and --sweep --dry-run run without torch
    torch = F = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# vkdml's ten types: (torch dtype name, the note when torch runs a signed twin).
TYPES = {
    "FLOAT32": ("float32", ""), "FLOAT16": ("float16", ""),
    "UINT8": ("uint8", ""), "INT8": ("int8", ""),
    "UINT16": ("int16", "torch: int16"), "INT16": ("int16", ""),
    "UINT32": ("int32", "torch: int32"), "INT32": ("int32", ""),
    "UINT64": ("int64", "torch: int64"), "INT64": ("int64", ""),
}
M = 1 << 20


class Case:
    """One comparison: an ARGMAX (axes None = the whole tensor), a 2D max
    pooling with indices or a TOP_K along the last axis (k: the K largest,
    sorted), at its full size; shrink() gives the --quick one."""

    def __init__(self, op, shape, dtype="FLOAT32", axes=None, pool=None, transposed=False, k=None):
        self.op, self.shape, self.dtype, self.axes = op, tuple(shape), dtype, axes
        self.pool, self.transposed, self.k = pool, transposed, k
        self.id = self.label()  # --cases matches the full-size name too

    def shrink(self, limit):
        """The same case with every size scaled by one factor so that it has
        at most limit elements; odd sizes stay odd."""
        n = math.prod(self.shape)
        if n <= limit:
            return self
        f = (limit / n) ** (1 / len(self.shape))
        shape = [max(1, int(s * f)) | (s & 1) for s in self.shape]
        if self.pool:  # keep the padded spatial extent at least one window
            reach = (self.pool["window"] - 1) * self.pool.get("dilation", 1) + 1
            shape[2:] = [max(s, reach) for s in shape[2:]]
        k = None if self.k is None else min(self.k, shape[-1])  # K never past the shrunk row
        c = Case(self.op, shape, self.dtype, self.axes, self.pool, self.transposed, k)
        c.id = self.id
        return c

    def label(self):
        dims = "×".join(map(str, self.shape))
        if len(self.shape) == 1:
            dims = f"{self.shape[0] // M}M elements" if self.shape[0] % M == 0 else f"{self.shape[0]} elements"
        twin = TYPES[self.dtype][1]
        dt = "" if self.dtype == "FLOAT32" else f" {self.dtype}" + (f" ({twin})" if twin else "")
        if self.op == "maxpool":
            p = self.pool
            desc = f"{p['window']}×{p['window']} s{p['stride']}" + (f" p{p['padding']}" if p.get("padding") else "")
            desc += f" dilation {p['dilation']}" if p.get("dilation", 1) > 1 else ""
            idx = "indices" if p.get("indices", True) else "no indices"
            return f"max pooling {desc}, {idx}, [{','.join(map(str, self.shape))}]{dt}"
        if self.op == "topk":
            return f"top_k {dims}{dt}, K={self.k}"
        where = "whole tensor" if self.axes is None else ("axis " if len(self.axes) == 1 else "axes ") + ",".join(map(str, self.axes))
        if self.transposed:
            return f"argmax {dims}{dt} transposed view (strides 1,{self.shape[0]}), {where}"
        return f"argmax {dims}{dt}, {where}"

    def vkdml_args(self):
        """`vkdml bench` flags for this case. The transposed view's bytes are
        the packed reversed shape, reduced along the other axis."""
        shape, axes = self.shape, self.axes
        if self.transposed:
            shape, axes = shape[::-1], [len(shape) - 1 - axes[0]]
        args = ["--dtype", self.dtype.lower(), "--shape", ",".join(map(str, shape))]
        if self.op == "topk":
            return ["--op", "topk", "--k", str(self.k), "--index-type", "uint64"] + args
        if self.op == "argmax":
            axes = range(len(shape)) if axes is None else axes
            return ["--op", "argmax", "--axes", ",".join(map(str, axes)), "--index-type", "int64"] + args
        p = self.pool
        args += ["--op", "maxpool", "--window", str(p["window"]), "--strides", str(p["stride"])]
        if p.get("indices", True):
            args += ["--indices", "--index-type", "uint64"]
        if p.get("padding"):
            args += ["--padding", str(p["padding"])]
        if p.get("dilation", 1) > 1:
            args += ["--dilations", str(p["dilation"])]
        return args


def all_cases():
    """The shapes vkdml's GPU goals are measured on: large and model-sized
    reductions, the row and column cases in all ten types, odd sizes, a
    strided input and the max pooling rows."""
    a = lambda shape, axes=None, dtype="FLOAT32", **kw: Case("argmax", shape, dtype, axes, **kw)
    pool = lambda shape, **p: Case("maxpool", shape, pool=p)
    topk = lambda shape, k, dtype="FLOAT32": Case("topk", shape, dtype, k=k)
    cases = [
        a([64 * M]), a([256 * M]),
        a([4096, 16384], [1]), a([4096, 16384], [0]), a([16384, 4096], [0]),
        a([65536, 1000], [1]), a([128, 256000], [1]), a([32, 1000], [1]), a([8, 32000], [1]),
        a([64 * M], dtype="FLOAT16"),
    ]
    for dt in TYPES:
        if dt != "FLOAT32":
            cases += [a([4096, 16384], [1], dt), a([4096, 16384], [0], dt)]
    cases += [
        a([64 * M + 1]), a([4097, 16383], [1]), a([4097, 16383], [0]), a([4097, 16383], [0], "INT8"),
        a([4097, 16383], [1], "FLOAT16"), a([63, 1031, 1025], [1]),
        a([4096, 16384], [1], transposed=True),
        pool([32, 64, 112, 112], window=3, stride=2, padding=1),
        pool([8, 64, 128, 128], window=3, stride=1, padding=1, dilation=2),
        pool([16, 64, 512, 512], window=2, stride=2),
        pool([7, 61, 111, 113], window=3, stride=2, padding=1),
        # issue 29's additions: the multi-axis and split-column cases, 3×3
        # without indices, the small and the FLOAT16 2×2 poolings
        a([64, 512, 512], [1, 2]), a([1024, 64, 1024], [1]),
        pool([32, 64, 112, 112], window=3, stride=2, padding=1, indices=False),
        pool([1, 64, 512, 512], window=2, stride=2),
        Case("maxpool", [16, 64, 512, 512], "FLOAT16", pool=dict(window=2, stride=2)),
    ]
    # issue 31's TOP_K cases: vocabulary rows and mixture-of-experts
    # routing in FLOAT32, and in every other type one case of each kind of
    # kernel: a short row at K = 50, a long row at K = 1024 (the radix and
    # byte selects) and the routing rows at K = 8.
    cases += [topk([8, 32000], k) for k in (1, 50, 1024, 2048)]
    cases += [topk([128, 256000], k) for k in (1, 50, 1024, 2048)]
    cases += [topk([65536, 64], k) for k in (2, 8)]
    for dt in TYPES:
        if dt != "FLOAT32":
            cases += [topk([8, 32000], 50, dt), topk([128, 256000], 1024, dt), topk([65536, 64], 8, dt)]
    return cases


def torch_input(case, device):
    """Random values of the case's torch type (the transposed case's view
    over a packed tensor of the reversed shape)."""
    dt = getattr(torch, TYPES[case.dtype][0])
    shape = case.shape[::-1] if case.transposed else case.shape
    if dt.is_floating_point:
        x = torch.randn(shape, device=device, dtype=torch.float32).to(dt)
    else:
        lo, hi = (torch.iinfo(dt).min, torch.iinfo(dt).max) if dt != torch.int64 else (-(1 << 40), 1 << 40)
        x = torch.randint(lo, hi, shape, device=device, dtype=dt)
    return x.t() if case.transposed else x


def torch_fn(case, x):
    if case.op == "argmax":
        if case.axes is None:
            return lambda: x.argmax()
        if len(case.axes) > 1:  # trailing axes of a packed tensor: one flattened axis
            first = case.axes[0]
            return lambda: x.flatten(first, case.axes[-1]).argmax(dim=first)
        return lambda: x.argmax(dim=case.axes[0])
    if case.op == "topk":
        return lambda: x.topk(case.k, dim=-1, largest=True, sorted=True)
    p = case.pool
    return lambda: F.max_pool2d(x, p["window"], p["stride"], p.get("padding", 0), p.get("dilation", 1),
                                return_indices=p.get("indices", True))


def time_torch(fn, warmup, repeat, cuda):
    """Milliseconds per call, sorted: CUDA events around each call, or the
    wall clock on the CPU."""
    for _ in range(warmup):
        fn()
    if not cuda:
        ts = []
        for _ in range(repeat):
            t = time.perf_counter()
            fn()
            ts.append((time.perf_counter() - t) * 1e3)
        return sorted(ts)
    torch.cuda.synchronize()
    ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(repeat)]
    for start, end in ev:
        start.record()
        fn()
        end.record()
    torch.cuda.synchronize()
    return sorted(s.elapsed_time(e) for s, e in ev)


def nbytes(*ts):
    return sum(t.numel() * t.element_size() for t in ts)


def run_torch(case, a, device):
    """One round of a case in torch: median ms and the minimal bytes moved."""
    if torch is None:
        raise RuntimeError("no torch module (a dry run of vkdml's side)")
    x = torch_input(case, device)
    fn = torch_fn(case, x)
    out = fn()
    outs = out if isinstance(out, tuple) else (out,)
    ts = time_torch(fn, a.torch_warmup, a.torch_repeat, device == "cuda")
    return {"ms": statistics.median(ts), "min_ms": ts[0], "max_ms": ts[-1], "bytes": nbytes(x, *outs),
            "torch_dtype": str(x.dtype).replace("torch.", "")}


class VkdmlError(Exception):
    pass


def run_vkdml(args, a):
    """One `vkdml bench --json` run: its single record."""
    cmd = [a.vkdml, "bench", "--json", "--repeat", str(a.vkdml_repeat), "--warmup", str(a.vkdml_warmup)] + args
    if a.vkdml_device:
        cmd += ["--device", a.vkdml_device]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=a.case_timeout)
    except subprocess.TimeoutExpired:
        raise VkdmlError(f"timed out after {a.case_timeout} s")
    if p.returncode != 0:
        err = p.stderr.strip().splitlines()
        raise VkdmlError(f"exit {p.returncode}: {err[-1] if err else '(no message)'}")
    try:
        recs = [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]
    except ValueError as e:
        raise VkdmlError(f"unreadable JSON record: {e}")
    if len(recs) != 1:
        raise VkdmlError(f"expected one JSON record, got {len(recs)}")
    r = recs[0]
    missing = [k for k in ("median_ms", "kernel", "bytes", "gbps") if k not in r]
    if r.get("schema_version") != 1 or missing:
        raise VkdmlError(f"unexpected record (schema_version {r.get('schema_version')}, missing {missing})")
    return r


def copy_round(a, device):
    """Each side's copy bandwidth (GB/s, read + write) over one buffer of
    32-bit elements, this round."""
    n = a.copy_bytes // 4
    out = {}
    try:
        x = torch.randn(n, device=device)
        ms = statistics.median(time_torch(lambda: x.clone(), a.torch_warmup, a.torch_repeat, device == "cuda"))
        out["torch_gbps"] = 2 * x.numel() * 4 / ms / 1e6
        del x
    except Exception as e:  # noqa: BLE001 - recorded, the run goes on
        out["torch_error"] = f"{type(e).__name__}: {e}"
    try:
        # UINT32 moves the same bytes and `vkdml bench` fills it faster than FLOAT32.
        r = run_vkdml(["--op", "copy", "--dtype", "uint32", "--shape", str(n)], a)
        out["vkdml_gbps"], out["vkdml_kernel"], out["vkdml_record"] = r["gbps"], r["kernel"], r
    except VkdmlError as e:
        out["vkdml_error"] = str(e)
    return out


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarize(case, rounds, copies):
    """The medians over rounds of one case, with each side's %copy against
    that round's copy bandwidth."""
    s = {"torch_ms": med([r.get("torch", {}).get("ms") for r in rounds]),
         "vkdml_ms": med([r.get("vkdml", {}).get("median_ms") for r in rounds]),
         "kernel": next((r["vkdml"]["kernel"] for r in rounds if "vkdml" in r), None),
         "errors": sorted({r[k] for r in rounds for k in ("torch_error", "vkdml_error") if k in r})}
    ratios, vpct, tpct = [], [], []
    for r, c in zip(rounds, copies):
        t, v = r.get("torch"), r.get("vkdml")
        if t and v:
            ratios.append(t["ms"] / v["median_ms"])
        if v and c.get("vkdml_gbps"):
            vpct.append(100 * v["bytes"] / v["median_ms"] / 1e6 / c["vkdml_gbps"])
        if t and c.get("torch_gbps"):
            tpct.append(100 * t["bytes"] / t["ms"] / 1e6 / c["torch_gbps"])
    s["ratio"], s["vkdml_pct_copy"], s["torch_pct_copy"] = med(ratios), med(vpct), med(tpct)
    s["bytes"] = next((r["vkdml"]["bytes"] for r in rounds if "vkdml" in r), None)
    return s


def fmt(v, spec, suffix=""):
    return "—" if v is None else format(v, spec) + suffix


def markdown(env, results, copies):
    tc, vc = med([c.get("torch_gbps") for c in copies]), med([c.get("vkdml_gbps") for c in copies])
    lines = [
        f"vkdml on {env['vkdml_device']} ({env['vkdml_driver']}, Vulkan {env['vulkan_api']}); "
        f"torch {env['torch']} on {env['torch_device_name']}; {env['date']}, {env['rounds_done']} round(s).",
        "",
        f"Copy bandwidth of the same run (read + write, {env['copy_bytes'] // M} MiB of 32-bit elements, median of rounds): "
        f"torch `clone` {fmt(tc, '.1f')} GB/s, vkdml's copy kernel {fmt(vc, '.1f')} GB/s.",
        "",
        "| case (FLOAT32 unless named) | torch ms | vkdml ms | kernel | ratio | vkdml %copy | torch %copy |",
        "|---|---:|---:|---|---:|---:|---:|",
    ]
    for case, rounds in results:
        s = summarize(case, rounds, copies)
        ratio = fmt(s["ratio"], ".2f")
        if s["ratio"] is not None and s["ratio"] < 1:
            ratio = f"**{ratio}**"
        row = [case.label(), fmt(s["torch_ms"], ".3f"), fmt(s["vkdml_ms"], ".3f"), s["kernel"] or "—", ratio,
               fmt(s["vkdml_pct_copy"], ".0f", "%"), fmt(s["torch_pct_copy"], ".0f", "%")]
        lines.append("| " + " | ".join(row) + " |")
        for e in s["errors"]:
            lines.append(f"| ↳ failed: {e.replace('|', '/')} | | | | | | |")
    lines += ["", "ratio = torch ms ÷ vkdml ms per round, median over rounds (above 1: vkdml is faster). "
              "%copy = minimal bytes moved (input once, outputs once, 64-bit indices on both sides) per second "
              "÷ that side's copy bandwidth in the same round (a case that fits in cache can pass 100%). torch: "
              + ("CUDA events" if env["torch_device"] == "cuda" else "wall clock on the CPU") + ", median of "
              f"{env['torch_repeat']} calls; vkdml: `vkdml bench --json` device timestamps, median of "
              f"{env['vkdml_repeat']} runs."]
    lines += ["", *goals(results, copies)]
    return "\n".join(lines) + "\n"


def goals(results, copies):
    """vkdml's GPU goals (at or above torch on every case, 85% of copy
    bandwidth for a large argmax, 80% for max pooling), checked on this run."""
    behind, slow_arg, slow_pool, counted = [], [], [], {"argmax": 0, "maxpool": 0}
    for case, rounds in results:
        s = summarize(case, rounds, copies)
        if s["ratio"] is None or s["ratio"] < 1:
            behind.append(case.label())
        big = (s["bytes"] or 0) >= 64 * M
        pct = s["vkdml_pct_copy"]
        if case.op == "argmax" and big:
            counted["argmax"] += 1
            if pct is None or pct < 85:
                slow_arg.append(case.label())
        if case.op == "maxpool":
            counted["maxpool"] += 1
            if pct is None or pct < 80:
                slow_pool.append(case.label())

    def say(what, bad, n):
        if n == 0:
            return f"- {what}: no such case in this run"
        return f"- {what}: " + ("yes" if not bad else f"no, {len(bad)} of {n}: " + "; ".join(bad))
    return [say("every case at or above 1.0× torch", behind, len(results)),
            say("every argmax moving 64 MiB or more at 85% of copy or more", slow_arg, counted["argmax"]),
            say("every max pooling case at 80% of copy or more", slow_pool, counted["maxpool"])]


def environment(a, device):
    env = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "command": " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]),
           "torch": torch.__version__ if torch else "(no torch module)", "cuda": torch.version.cuda if torch else None,
           "torch_device": device,
           "torch_device_name": torch.cuda.get_device_name() if device == "cuda" else "the CPU",
           "vkdml": a.vkdml, "copy_bytes": a.copy_bytes, "quick": a.quick,
           "torch_repeat": a.torch_repeat, "vkdml_repeat": a.vkdml_repeat}
    if shutil.which("nvidia-smi"):
        q = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                           capture_output=True, text=True)
        env["nvidia_smi"] = q.stdout.strip()
    return env


def write(a, env, results, copies):
    """Rewrites DIR/gpu_compare.md and DIR/gpu_compare.json."""
    first = next((c["vkdml_record"] for c in copies if "vkdml_record" in c), None)
    first = first or next((r["vkdml"] for _, rs in results for r in rs if "vkdml" in r), {})
    env.update(vkdml_device=first.get("device", "?"), vkdml_driver=first.get("driver", "?"),
               vulkan_api=first.get("vulkan_api", "?"), vkdml_version=first.get("vkdml_version", "?"),
               rounds_done=len(copies))
    md = markdown(env, results, copies)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "gpu_compare.md"), "w") as f:
        f.write(md)
    doc = {"environment": env, "copy_rounds": copies,
           "cases": [{"id": c.id, "label": c.label(), "op": c.op, "shape": list(c.shape), "dtype": c.dtype,
                      "torch_dtype": TYPES[c.dtype][0], "axes": c.axes,
                      "pool": c.pool, "transposed": c.transposed, "k": c.k, "vkdml_args": c.vkdml_args(),
                      "summary": summarize(c, rs, copies), "rounds": rs} for c, rs in results]}
    with open(os.path.join(a.out, "gpu_compare.json"), "w") as f:
        json.dump(doc, f, indent=1)
    return md


# The tuning sweep's classes: shapes that share their best knobs, the
# strategies to force ("" lets vkdml choose) and the knob values to try
# (the Cartesian product of `knobs`). Knob names are ops/layout.go's tuning
# fields; TestSweepDryRun (cmd/vkdml) plans every point, so a knob or a
# strategy that no longer exists fails there, not on the GPU.
SWEEP = [
    {"name": "whole tensors and long rows",
     "cases": [("argmax", [64 * M], None, "FLOAT32"), ("argmax", [64 * M], None, "FLOAT16"), ("argmax", [128, 256000], [1], "FLOAT32"),
               ("argmax", [8, 32000], [1], "FLOAT32"), ("argmax", [64, 512, 512], [1, 2], "FLOAT32")],
     "kernels": ["", "splitk"],
     "knobs": {"argRowGroupsPerCU": [8, 32, 128]}},
    {"name": "rows",
     "cases": [("argmax", [4096, 16384], [1], dt) for dt in ("FLOAT32", "FLOAT16", "INT8", "UINT8", "INT16", "INT32", "INT64")]
              + [("argmax", [65536, 1000], [1], "FLOAT32"), ("argmax", [32, 1000], [1], "FLOAT32")],
     "kernels": [],
     "knobs": {"argRowSubgroups": ["true", "false"], "argRowFilter": ["true", "false"]}},
    {"name": "columns",
     "cases": [("argmax", [4096, 16384], [0], dt) for dt in ("FLOAT32", "FLOAT16", "INT8", "UINT8", "INT16", "INT32", "INT64")]
              + [("argmax", [16384, 4096], [0], "FLOAT32"), ("argmax", [1024, 64, 1024], [1], "FLOAT32")],
     "kernels": [],
     "knobs": {"argVecColMinOutputs": [0, 1 << 18], "argColInFlightPerCU": [16384, 65536]}},
    {"name": "max pooling",
     "cases": [("maxpool", [32, 64, 112, 112], dict(window=3, stride=2, padding=1), "FLOAT32"),
               ("maxpool", [32, 64, 112, 112], dict(window=3, stride=2, padding=1, indices=False), "FLOAT32"),
               ("maxpool", [8, 64, 128, 128], dict(window=3, stride=1, padding=1, dilation=2), "FLOAT32"),
               ("maxpool", [16, 64, 512, 512], dict(window=2, stride=2), "FLOAT32"),
               ("maxpool", [1, 64, 512, 512], dict(window=2, stride=2), "FLOAT32")],
     "kernels": [],
     "knobs": {"poolGrid": ["false", "true"], "poolPreloadTaps": [0, 16], "poolGridOuts": [1, 4, 8]}},
]


def sweep_points(a):
    """Every point of the sweep: (class, dtype, kernel, tune, shapes, bench
    args), one `vkdml bench` process each, in the order they run."""
    points = []
    classes = SWEEP
    if a.gpu_run:  # max pooling's kernels are the newest: their knobs first
        classes = sorted(SWEEP, key=lambda c: c["name"] != "max pooling")
    for cls in classes:
        names = sorted(cls["knobs"])
        tunes = [[]]
        for n in names:
            tunes = [t + [f"{n}={v}"] for t in tunes for v in cls["knobs"][n]]
        # One process per (type, operator flags): its shapes share them.
        groups = {}
        for op, shape, extra, dt in cls["cases"]:
            c = Case(op, shape, dt, extra if op == "argmax" else None, pool=extra if op == "maxpool" else None)
            if a.quick:
                c = quick_case(c)
            args = c.vkdml_args()
            i = args.index("--shape")
            key = tuple(args[:i] + args[i + 2:])
            groups.setdefault(key, []).append((c, args[i + 1]))
        for key, members in groups.items():
            # The knob points under vkdml's own choice of strategy; each
            # forced strategy once, with the defaults, to compare.
            for kernel, ts in [("", tunes)] + [(k, [[]]) for k in cls["kernels"] if k]:
                for tune in ts:
                    args = list(key) + [x for _, sh in members for x in ("--shape", sh)]
                    if kernel:
                        args += ["--kernel", kernel]
                    for t in tune:
                        args += ["--tune", t]
                    points.append({"class": cls["name"], "dtype": members[0][0].dtype, "kernel": kernel,
                                   "tune": tune, "shapes": [sh for _, sh in members], "args": args})
    return points


def estimate_s(point, a):
    """A rough time for one point: the process and device (about 1 s), then
    per shape the random fill and upload (about 2.5 s/GB) and the runs."""
    total = 1.0
    for sh in point["shapes"]:
        n = math.prod(int(x) for x in sh.split(","))
        nbytes = n * {"FLOAT32": 4, "FLOAT16": 2, "INT8": 1, "UINT8": 1, "INT16": 2, "INT32": 4, "INT64": 8}[point["dtype"]]
        total += 0.1 + nbytes * 2.5e-9 + (a.sweep_warmup + a.sweep_repeat) * (nbytes / 2.5e12 + 10e-6)
    return total


def run_sweep(a):
    """Runs the sweep within --sweep-time; returns the path of the picked
    tuning file (None when nothing was measured)."""
    points = sweep_points(a)
    os.makedirs(a.out, exist_ok=True)
    began = time.monotonic()
    records, skipped = [], []
    with open(os.path.join(a.out, "sweep.jsonl"), "w") as jl:
        for i, p in enumerate(points):
            left = a.sweep_time - (time.monotonic() - began)
            if estimate_s(p, a) > left:
                skipped.append(p)
                continue
            cmd = [a.vkdml, "bench", "--json", "--repeat", str(a.sweep_repeat), "--warmup", str(a.sweep_warmup)] + p["args"]
            if a.vkdml_device:
                cmd += ["--device", a.vkdml_device]
            try:
                r = subprocess.run(cmd, capture_output=True, text=True, timeout=max(5, left))
            except subprocess.TimeoutExpired:
                skipped.append(p)
                continue
            recs = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
            for rec in recs:
                rec["sweep"] = {k: p[k] for k in ("class", "kernel", "tune")}
                jl.write(json.dumps(rec) + "\n")
            records += recs
            print(f"{time.monotonic() - began:5.0f} s sweep {i + 1}/{len(points)} {p['class']} {p['dtype']} "
                  f"{p['kernel'] or '(default)'} {' '.join(p['tune'])}: {len(recs)} record(s)"
                  + (f" [{r.stderr.strip().splitlines()[-1]}]" if r.returncode and r.stderr.strip() else ""), file=sys.stderr)
    picked, lines = pick_tuning(records)
    lines += [f"- skipped (past --sweep-time {a.sweep_time:.0f} s): {len(skipped)} point(s)" if skipped else "- no point skipped"]
    with open(os.path.join(a.out, "sweep.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    if not picked:
        return None
    path = os.path.join(a.out, "tuning.json")
    with open(path, "w") as f:
        json.dump(picked, f, indent=1, sort_keys=True)
    return path


def pick_tuning(records):
    """Per class, the tuning point (under the strategy vkdml chooses by
    itself) of least summed regret; returns the merged knobs and the
    report's lines."""
    lines = ["| class | shape | dtype | picked point ms | best ms | best: kernel, tuning |", "|---|---|---|---:|---:|---|"]
    picked, summary, by_class = {}, [], {}
    for r in records:
        by_class.setdefault(r["sweep"]["class"], []).append(r)
    for cls, recs in by_class.items():
        best = {}
        for r in recs:
            k = (tuple(r["shape"]), r["dtype"])
            if k not in best or r["median_ms"] < best[k]["median_ms"]:
                best[k] = r
        points = {}
        for r in recs:
            if not r["sweep"]["kernel"]:  # a forced strategy is a comparison, not a pick
                points.setdefault(tuple(r["sweep"]["tune"]), {})[(tuple(r["shape"]), r["dtype"])] = r["median_ms"]
        full = {t: sum(ms / best[k]["median_ms"] for k, ms in v.items()) for t, v in points.items() if len(v) == len(best)}
        choice = min(full, key=full.get) if full else None
        if choice is not None:
            for kv in choice:
                n, v = kv.split("=", 1)
                picked[n] = v == "true" if v in ("true", "false") else int(v)
            summary.append(f"- {cls}: picked {' '.join(choice) or '(defaults)'}, summed regret {full[choice]:.3f} "
                           f"over {len(best)} shape(s) (1 per shape is no regret)")
        else:
            summary.append(f"- {cls}: no tuning point ran every shape; nothing picked")
        for (shape, dt), b in sorted(best.items()):
            mine = points.get(choice, {}).get((shape, dt)) if choice is not None else None
            lines.append(f"| {cls} | {'x'.join(map(str, shape))} | {dt} | {fmt(mine, '.4f')} | {b['median_ms']:.4f} | "
                         f"{b['kernel']}, {' '.join(b['sweep']['tune']) or 'defaults'} |")
    return picked, lines + [""] + summary


# The exactness tests of the kernels that have never run on a GPU, which
# --gpu-run runs first, in order: (test binary in --test-bins, as
# ../shared/gpu/prepare.sh names it; the package folder it runs in;
# -test.run pattern; what it covers). A new kernel adds a row here; a row
# goes once a GPU run has passed it.
FIRST_TESTS = [
    ("ops.test", "ops", "^TestArgRowRisingBestGPU$", "vec-row's load filter (argmax_vec_row.comp ROW_FILTER)"),
    ("ops.test", "ops", "^(TestMaxPoolPreloadGPU|TestMaxPoolGridGPU|TestMaxPoolGridOverLimits)$",
     "max pooling's window scan (maxpool_window.glsl) on maxpool.comp and maxpool_grid.comp"),
    ("ops.test", "ops", "^TestMaxPoolRunGPU$", "max pooling's runs of outputs per lane (maxpool_grid.comp OUTS)"),
    ("ops.test", "ops", "^TestMaxPoolRunFloatCmpGPU$",
     "max pooling's runs comparing FLOAT32 natively under the float controls (maxpool_grid.comp FLOAT_CMP)"),
    ("ops.test", "ops", "^TestReduceFloatMultiplyNative$",
     "REDUCE MULTIPLY's native FLOAT32 products under the float controls (reduce_fmul.comp HW_MUL)"),
    ("ops.test", "ops", "^TestReduceFloatSquareNative$",
     "REDUCE SUM_SQUARE's and L2's native FLOAT32 squares under the float controls (argmax.comp REDUCE_FLOAT HW_MUL)"),
    # (TestTopKFilterAdversarial and TestTopKListGate, 160 and 300 s on
    # lavapipe, wait for a run with more time.)
    ("ops.test", "ops", "^(TestTopKRules|TestTopKMeasured|TestTopKRadix|TestTopKRadixVec8|"
     "TestTopKByteSelect|TestTopKScan8|TestTopKRandom)$",
     "TOP_K's kernels (topk_select.comp thread/lane/filter/radix/byte select, topk_merge.comp) on the GPU's own plans"),
]


def run_first_tests(a, budget):
    """FIRST_TESTS, each under what is left of budget seconds, its output
    in DIR/tests-N.log; returns one record per row."""
    records, began = [], time.monotonic()
    for i, (binary, pkg, rx, what) in enumerate(FIRST_TESTS):
        left = budget - (time.monotonic() - began)
        path = os.path.abspath(os.path.join(a.test_bins, binary))
        log = f"tests-{i + 1}.log"
        rec = {"binary": path, "run": rx, "what": what, "log": log}
        if left < 5:
            rec.update(result="skipped: no time left", log="")
        elif not os.access(path, os.X_OK):
            rec.update(result=f"missing: no test binary {path} (../shared/gpu/prepare.sh builds it)", log="")
        else:
            cmd = [path, "-test.count=1", "-test.v", "-test.run", rx, "-test.timeout", f"{int(left)}s"]
            if a.quick:
                # The dry run checks that the row names tests of its binary
                # (on lavapipe they take minutes; `make test` runs them).
                cmd = [path, "-test.list", rx]
            t0 = time.monotonic()
            try:
                p = subprocess.run(cmd, cwd=os.path.join(ROOT, pkg), capture_output=True, text=True, timeout=left + 10)
                out, rc = p.stdout + p.stderr, p.returncode
            except subprocess.TimeoutExpired as e:
                out = "".join(x.decode() if isinstance(x, bytes) else (x or "") for x in (e.stdout, e.stderr))
                rc = "timeout"
            with open(os.path.join(a.out, log), "w") as f:
                f.write(f"$ (cd {pkg} && {' '.join(cmd)})\n{out}")
            result = "pass" if rc == 0 else f"FAIL (exit {rc})"
            if a.quick and rc == 0:
                listed = [l for l in out.splitlines() if l.startswith("Test")]
                result = "pass" if listed else "FAIL (the pattern names no test)"
                rec["listed"] = listed
            rec.update(result=result, seconds=round(time.monotonic() - t0, 1),
                       seeds=sorted(set(re.findall(r"seed (\d+)", out))),
                       failed=sorted(set(re.findall(r"--- FAIL: (\S+)", out))))
        records.append(rec)
        print(f"{time.monotonic() - began:5.0f} s tests {i + 1}/{len(FIRST_TESTS)} {what}: {rec['result']}", file=sys.stderr)
    return records


def gpu_run(a):
    """--gpu-run: everything one GPU session needs, within --time-limit:
    FIRST_TESTS, the comparison of every case, then the sweep (max pooling
    first) with the time left. Builds nothing; writes DIR/gpu_run.md and
    DIR/gpu_run.json beside the comparison's and the sweep's files. Returns
    the exit status: 1 when a test failed or the run overran its budget."""
    began = time.monotonic()
    os.makedirs(a.out, exist_ok=True)
    elapsed = lambda: time.monotonic() - began
    # The device's facts first (features such as the float controls that
    # choose kernels, limits, compute units): devices.json.
    cmd = [a.vkdml, "devices", "--json"] + (["--device", a.vkdml_device] if a.vkdml_device else [])
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        with open(os.path.join(a.out, "devices.json"), "w") as f:
            f.write(p.stdout or p.stderr)
    except subprocess.TimeoutExpired:
        print("gpu-run: vkdml devices timed out", file=sys.stderr)
    tests = run_first_tests(a, a.time_limit * a.test_share)
    cases = chosen_cases(a)
    # The comparison leaves the sweep at least --sweep-share of the budget.
    compare_limit = max(0.0, a.time_limit * (1 - a.sweep_share) - elapsed())
    if compare_limit > 0:
        compare(a, cases, compare_limit)
    a.sweep_time = a.time_limit - elapsed() - a.margin
    if a.sweep_time > 0:
        run_sweep(a)
    total = elapsed()
    failed = [t for t in tests if t["result"] != "pass"]
    over = total > a.time_limit
    lines = [f"# gpu_compare.py --gpu-run, {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M UTC}", "",
             f"Finished in {total:.0f} s of a {a.time_limit:.0f} s budget" + (" (**over**)" if over else "") + ".", "",
             "| exactness tests (kernels never run on a GPU) | result | s | seeds | log |", "|---|---|---:|---|---|"]
    for t in tests:
        lines.append(f"| {t['what']}: `{t['run']}` | {t['result']} {' '.join(t.get('failed', []))} | "
                     f"{t.get('seconds', '')} | {' '.join(t.get('seeds', []))} | {t['log']} |")
    lines += ["", "Then the comparison (gpu_compare.md, gpu_compare.json) and the sweep with the time left "
              "(sweep.md, sweep.jsonl, tuning.json)."]
    with open(os.path.join(a.out, "gpu_run.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(os.path.join(a.out, "gpu_run.json"), "w") as f:
        json.dump({"seconds": total, "budget_s": a.time_limit, "tests": tests}, f, indent=1)
    print("\n".join(lines))
    return 1 if failed or over else 0


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--vkdml", default="", help="the vkdml binary (default: .gpu/vkdml, bin/vkdml, then PATH)")
    ap.add_argument("--vkdml-device", default="", help="passed to vkdml as --device")
    ap.add_argument("--torch-device", default="cuda", choices=["cuda", "cpu"])
    ap.add_argument("--quick", action="store_true", help="small shapes and few repeats: a dry run")
    ap.add_argument("--cases", default="", help="run only the cases whose name matches this regular expression")
    ap.add_argument("--out", default="gpu-compare", help="folder for gpu_compare.md and gpu_compare.json")
    ap.add_argument("--rounds", type=int, default=None, help="rounds (default 3; 1 with --quick)")
    ap.add_argument("--time-limit", type=float, default=480,
                    help="seconds: start no round that would end past this (the GPU machine allows 600 per command)")
    ap.add_argument("--case-timeout", type=float, default=120, help="seconds one vkdml bench run may take")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--plan-check", metavar="PROFILE", default="",
                    help="print each case's plan facts and GPU-goal verdict on a device profile (vkdml plan --check) and exit")
    ap.add_argument("--sweep", action="store_true", help="run the tuning sweep first, then the comparison with its picks")
    ap.add_argument("--sweep-time", type=float, default=240, help="seconds the sweep may take (out of --time-limit)")
    ap.add_argument("--dry-run", action="store_true", help="with --sweep: print the planned points and exit")
    ap.add_argument("--gpu-run", action="store_true",
                    help="one GPU session in one command: the exactness tests of kernels never run on a GPU "
                         "(FIRST_TESTS), the comparison, then the sweep with the time left, within --time-limit "
                         "(default 540 s; 100 s with --quick)")
    ap.add_argument("--test-bins", default=os.path.join(ROOT, ".gpu"),
                    help="with --gpu-run: the folder of the prebuilt test binaries (default .gpu)")
    a = ap.parse_args()
    # --gpu-run's shares of --time-limit: the tests at most test_share, the
    # comparison up to 1 - sweep_share, the sweep the rest less a margin.
    a.test_share, a.sweep_share, a.margin = 0.25, 0.25, 5.0
    if a.gpu_run:
        if a.time_limit == ap.get_default("time_limit"):
            a.time_limit = 100 if a.quick else 540
        a.rounds = a.rounds or (1 if a.quick else 2)
    a.sweep_warmup, a.sweep_repeat = 2, 10
    a.rounds = a.rounds or (1 if a.quick else 3)
    a.torch_warmup, a.torch_repeat = (2, 5) if a.quick else (10, 100)
    a.vkdml_warmup, a.vkdml_repeat = (1, 5) if a.quick else (5, 50)
    a.copy_bytes = 16 * M if a.quick else 1024 * M
    if not a.vkdml:
        found = [p for p in (os.path.join(ROOT, ".gpu/vkdml"), os.path.join(ROOT, "bin/vkdml")) if os.path.exists(p)]
        a.vkdml = found[0] if found else shutil.which("vkdml") or ""
    if a.dry_run and not a.sweep:
        ap.error("--dry-run goes with --sweep")
    if not a.list and not a.dry_run and not (a.vkdml and os.access(a.vkdml, os.X_OK)):
        ap.error("no vkdml binary: build one (go build -o bin/vkdml ./cmd/vkdml) or pass --vkdml PATH")
    return a


def plan_check(a, cases):
    """`vkdml plan --check --profile PROFILE` for every case: a table of the
    streaming dispatch's facts and the goals each plan misses. No GPU runs;
    returns how many cases miss a goal."""
    print(f"| case | strategy | dispatches | lanes | empty | in flight KiB | serial | ops/B | partials | goals |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    failed = 0
    for c in cases:
        cmd = [a.vkdml, "plan", "--json", "--check", "--profile", a.plan_check] + c.vkdml_args()
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode not in (0, 1) or not p.stdout.startswith("{"):
            failed += 1
            print(f"| {c.label()} | — | | | | | | | | vkdml plan failed: {p.stderr.strip()} |")
            continue
        r = json.loads(p.stdout)
        bad = [f.split(":")[0] for f in r["check"]["failures"]]
        failed += bool(bad)
        empty = 100 * r["empty_lanes"] / r["lanes"] if r["lanes"] else 0
        # The costliest dispatch's counted ops per byte (None: not counted,
        # no SPIR-V tools), and partials written and read over the inputs.
        counted = [d["ops_per_byte"] for d in r["dispatches"] if d["ops_per_byte"] is not None]
        ops = f"{max(counted):.2f}" if len(counted) == len(r["dispatches"]) else "—"
        partials = 100 * r["partial_bytes"] / r["input_bytes"] if r["input_bytes"] else 0
        print(f"| {c.label()} | {r['strategy']} | {len(r['dispatches'])} | {r['lanes']} | {empty:.1f}% | "
              f"{r['bytes_in_flight'] // 1024} | {r['serial_partials']} | {ops} | {partials:.1f}% | {', '.join(bad) or 'pass'} |")
    print(f"\n{len(cases) - failed} of {len(cases)} cases meet the goals on {a.plan_check}")
    return failed


def main():
    a = parse_args()
    if a.plan_check:
        sys.exit(1 if plan_check(a, all_cases()) else 0)
    if a.sweep and a.dry_run:
        points = sweep_points(a)
        total = 0.0
        for p in points:
            est = estimate_s(p, a)
            total += est
            print(f"{p['class']} | {p['dtype']} | {p['kernel'] or '(default)'} | {' '.join(p['tune']) or '(defaults)'} | "
                  f"~{est:.1f} s | vkdml bench --json --repeat {a.sweep_repeat} --warmup {a.sweep_warmup} {' '.join(p['args'])}")
        print(f"# {len(points)} points, about {total:.0f} s (--sweep-time {a.sweep_time:.0f} s), "
              f"then the comparison within --time-limit {a.time_limit:.0f} s")
        return
    began_all = time.monotonic()
    if a.sweep:
        if torch is None:
            sys.exit("gpu_compare: no torch module: only --list and --sweep --dry-run run without it")
        tuned = run_sweep(a)
        if tuned:
            os.environ["VKDML_TUNING"] = tuned
            print(f"gpu_compare: comparing with VKDML_TUNING={tuned}", file=sys.stderr)
        a.time_limit -= time.monotonic() - began_all
    if a.gpu_run:
        sys.exit(gpu_run(a))
    device = a.torch_device
    cases = chosen_cases(a)
    if a.list:
        for c in cases:
            print(f"{c.label():70} vkdml bench {' '.join(c.vkdml_args())}")
        return
    if torch is None:
        sys.exit("gpu_compare: no torch module: only --list runs without it")
    if device == "cuda" and not torch.cuda.is_available():
        sys.exit("gpu_compare: torch sees no CUDA device; use --torch-device cpu for a dry run")
    print(compare(a, cases, a.time_limit), end="")


def quick_case(c):
    """--quick: 1/256 of the elements, or 256K, whichever is more."""
    return c.shrink(max(1 << 18, math.prod(c.shape) // 256))


def chosen_cases(a):
    """The cases of all_cases() (shrunk with --quick) that --cases picks."""
    cases = [quick_case(c) if a.quick else c for c in all_cases()]
    if a.cases:
        rx = re.compile(a.cases)
        cases = [c for c in cases if rx.search(c.id) or rx.search(c.label())]
    if not cases:
        sys.exit(f"gpu_compare: no case matches --cases {a.cases!r}")
    return cases


def compare(a, cases, time_limit):
    """The comparison: rounds of every case on each side, none started past
    time_limit seconds; returns the Markdown table (also written to --out)."""
    device = a.torch_device
    env = environment(a, device)
    print(f"gpu_compare: {len(cases)} cases, vkdml binary {a.vkdml}, torch on {env['torch_device_name']}",
          file=sys.stderr)
    results = [(c, []) for c in cases]
    copies = []
    md = ""
    began = time.monotonic()
    for rnd in range(a.rounds):
        elapsed = time.monotonic() - began
        if rnd and elapsed / rnd * (rnd + 1) > time_limit:
            print(f"stopping after {rnd} round(s): another would end past the time limit {time_limit:.0f} s",
                  file=sys.stderr)
            break
        copies.append(copy_round(a, device))
        for i, (case, rounds) in enumerate(results):
            if time.monotonic() - began > time_limit:
                print(f"stopping in round {rnd + 1} at case {i + 1}: past the time limit {time_limit:.0f} s",
                      file=sys.stderr)
                break
            r = {}
            try:
                r["torch"] = run_torch(case, a, device)
            except Exception as e:  # noqa: BLE001 - recorded, the run goes on
                r["torch_error"] = f"torch: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            if device == "cuda" and torch:
                torch.cuda.empty_cache()  # leave the memory to vkdml's process
            try:
                r["vkdml"] = run_vkdml(case.vkdml_args(), a)
            except VkdmlError as e:
                r["vkdml_error"] = f"vkdml: {e}"
            rounds.append(r)
            t, v = r.get("torch", {}).get("ms"), r.get("vkdml", {}).get("median_ms")
            print(f"{time.monotonic() - began:5.0f} s round {rnd + 1}/{a.rounds} case {i + 1}/{len(results)} {case.label()}: torch {fmt(t, '.3f')} ms, "
                  f"vkdml {fmt(v, '.3f')} ms {r.get('vkdml', {}).get('kernel', '')}"
                  + "".join(f" [{r[k]}]" for k in ("torch_error", "vkdml_error") if k in r), file=sys.stderr)
        md = write(a, env, results, copies)
        print(f"round {rnd + 1} done at {time.monotonic() - began:.0f} s; written to {a.out}/", file=sys.stderr)
    return md


if __name__ == "__main__":
    main()
