"""The fused GPU BFS's tuning knobs, side by side: block levels (``small_edges``), eager grid
levels (``eager_edges``), marked push levels (``mark_edges``), the pull's serial head
(``pull_serial``), int64 column ids (``wide_ids=1``), the direction rule's thresholds
(``alpha``, ``beta1``, ``beta2``), blocks per SM and in all (``max_blocks``), the resident
blocks per SM the kernel is compiled for (``min_blocks``; ``pull_blocks``: the pull levels'
launch, 0 for one launch), the barrier-free kernel (``async_bfs=0|1``, ``async_sleep_ns``,
``async_claim``, its look build ``async_look=1`` (the default) or the build without it
``async_look=0``, its profile build ``async_profile=1``), and parents (``parents=1``).

For each graph and source, every configuration runs back to back (interleaved, so a noisy
machine shifts them together); the table gives the median device time of the kernel
(``kernel_us``: the kernel's own %globaltimer span, no host; for the fused kernel its
start, its first 4096 steps and its output pass: a search of more steps is longer, see the
call), the median whole call, the median µs per level (:func:`per_level_us`), the share of
steps run as block levels, and the kernel's start (level 0) and output pass (µs, medians).
Every configuration's levels are compared with the first's on every source (a difference
is an error, not a table entry). For graphs of at most 16 steps the first source's steps
are printed (">" push, "<" pull; the frontier after the step; its µs).

    PYTHONPATH=. python3 benchmarks/bfs_fused_knobs.py --graphs grid:2048x2048,real \\
        --configs "small_edges=0;small_edges=1024;small_edges=1024,alpha=32" --out $OUT

Graph specs as benchmarks/bfs_gpu.py (kron:S, urand:S, grid:RxC, real, a file).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bfs_gpu  # noqa: E402
import common  # noqa: E402

from gblas import Vector  # noqa: E402
from gblas.formats.csr.bfs_fused import SMALL_EDGES, fused_bfs  # noqa: E402

DEFAULT_CONFIGS = (f"small_edges=0;small_edges={SMALL_EDGES};small_edges=4096;"
                   f"alpha=32;alpha=128")
_KNOBS = {"small_edges": int, "eager_edges": int, "mark_edges": int, "pull_serial": int,
          "wide_ids": lambda v: bool(int(v)),
          "blocks_per_sm": int, "max_blocks": int, "min_blocks": int,
          "pull_blocks": lambda v: int(v) or None, "alpha": float,
          "beta1": float, "beta2": float, "async_bfs": lambda v: bool(int(v)),
          "async_sleep_ns": int, "async_cap": int, "async_claim": int,
          "async_profile": lambda v: bool(int(v)), "async_look": lambda v: bool(int(v)),
          "parents": lambda v: bool(int(v))}


def parse_configs(text: str) -> list[dict[str, Any]]:
    """"k=v,k=v;k=v" -> [{k: v, k: v}, {k: v}] ("default" or "" for no override)."""
    out: list[dict[str, Any]] = []
    for part in text.split(";"):
        cfg: dict[str, Any] = {}
        for item in filter(None, (s.strip() for s in part.split(","))):
            if item == "default":
                continue
            key, _, val = item.partition("=")
            if key not in _KNOBS:
                raise SystemExit(f"unknown knob {key!r}; expected one of {sorted(_KNOBS)}")
            cfg[key] = _KNOBS[key](val)
        out.append(cfg)
    return out


def label(cfg: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in cfg.items()) or "default"


def per_level_us(info: dict[str, Any]) -> float:
    """µs a step: the mean of the logged step times (the first 4096 steps of the fused
    kernel), or for the barrier-free kernel, which logs the whole search as its first step,
    that time over all its steps."""
    steps = max(len(info["directions"]), 1)
    if info.get("async_grid") and not info.get("async_fallback"):
        return info["step_us"][0] / steps if info["step_us"] else 0.0
    return sum(info["step_us"]) / max(len(info["step_us"]), 1)


def print_profile(lab: str, profs: list[dict[str, int]]) -> None:
    """The barrier-free kernel's profile build (``async_profile=1``), medians over the
    sources: its warps' passes and clock64 cycles a pass, busy (relaxing rows) and idle
    (polling, claiming, looking at the counters), where the relaxed vertices came from, and
    a busy pass's cycles in its segments (bfs_async.cu's AB_SEG)."""
    def med(f: Any) -> float:
        return common.median([f(p) for p in profs])

    print(f"    {lab:34s} profile: busy passes {med(lambda p: p['busy_passes']):.0f} "
          f"({med(lambda p: p['busy_passes'] / max(p['levels'], 1)):.1f} a level), "
          f"{med(lambda p: p['busy_cycles'] / max(p['busy_passes'], 1)):.0f} cycles each; "
          f"idle {med(lambda p: p['idle_passes']):.0f}, "
          f"{med(lambda p: p['idle_cycles'] / max(p['idle_passes'], 1)):.0f} cycles each; "
          f"slots {med(lambda p: p['slots_taken']):.0f}, handed locally "
          f"{med(lambda p: p['handed_locally']):.0f} "
          f"({med(lambda p: p['handed_locally'] / max(p['pushes'], 1)):.0%} of pushes "
          f"{med(lambda p: p['pushes']):.0f})", flush=True)
    segs = ("take", "level", "cols", "cas", "place", "handover")
    print(f"    {'':34s} a busy pass's cycles: " + ", ".join(
        f"{k} {med(lambda p, k=k: p[k + '_cycles'] / max(p['busy_passes'], 1)):.0f}"
        for k in segs), flush=True)


def run_graph(spec: str, configs: list[dict[str, Any]], nsrc: int, seed: int) -> dict[str, Any]:
    cp = bfs_gpu._cp()
    A, _ = bfs_gpu.load(spec)  # noqa: N806
    A._csr_T()
    deg = cp.diff(A._csr().indptr).get()
    sources = common.pick_sources(deg, nsrc, seed)
    for cfg in configs:  # compile and warm
        fused_bfs(A, sources[0], **cfg)
    keys = ("kernel_us", "call_ms", "us_per_level", "block_steps", "start_us", "output_us")
    rows: dict[str, dict[str, list[float]]] = {label(c): {k: [] for k in keys}
                                               for c in configs}
    first: dict[str, Any] = {}
    profiles: dict[str, list[dict[str, int]]] = {}
    for s in sources:
        ref = None
        for cfg in configs:
            t0 = time.perf_counter()
            lv, _, info = fused_bfs(A, s, **cfg)
            cp.cuda.Device().synchronize()
            ms = (time.perf_counter() - t0) * 1e3
            dense = bfs_gpu.dense_levels(Vector._from_data(lv, A.device), A.nrows)
            if ref is None:
                ref = dense
            elif not bool(cp.array_equal(ref, dense)):
                raise SystemExit(f"{spec} source {s} {label(cfg)}: levels differ from "
                                 f"{label(configs[0])}")
            if s == sources[0]:
                first[label(cfg)] = {k: info[k] for k in ("directions", "frontier", "step_us",
                                                          "block_steps")}
            if "async_profile" in info:
                profiles.setdefault(label(cfg), []).append(
                    {**info["async_profile"], "levels": len(info["directions"])})
            r = rows[label(cfg)]
            r["kernel_us"].append(info["kernel_us"])
            r["start_us"].append(info["start_us"])
            r["output_us"].append(info["output_us"])
            r["call_ms"].append(ms)
            r["us_per_level"].append(per_level_us(info))
            r["block_steps"].append(info["block_steps"] / max(len(info["step_us"]), 1))
    med = {lab: {k: common.median(v) for k, v in r.items()} for lab, r in rows.items()}
    print(f"{common.graph_label(spec)} ({len(sources)} sources)", flush=True)
    for lab, m in med.items():
        print(f"  {lab:36s} kernel {m['kernel_us']:9.1f} us  call {m['call_ms']:8.3f} ms  "
              f"{m['us_per_level']:7.2f} us/level  block steps {m['block_steps']:.2f}  "
              f"start {m['start_us']:.1f} output {m['output_us']:.1f} us", flush=True)
    for lab, profs in profiles.items():
        print_profile(lab, profs)
    for lab, f in first.items():  # the first source's steps, where they are few
        if len(f["step_us"]) <= 16:
            steps = " ".join(f"{'>' if d == 'push' else '<'}{fr}:{us:.0f}" for d, fr, us in
                             zip(f["directions"], f["frontier"], f["step_us"], strict=True))
            print(f"    {lab:34s} source {sources[0]} ({f['block_steps']} block): {steps}")
    return {"graph": common.graph_label(spec), "n": A.nrows, "nnz": A.nvals,
            "sources": sources, "median": med, "first_source": first}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs", default="kron:22,urand:22,grid:2048x2048,real")
    ap.add_argument("--configs", default=DEFAULT_CONFIGS,
                    help='";"-separated configurations of "knob=value,..." (knobs: '
                         f'{", ".join(sorted(_KNOBS))}; the first is the reference)')
    ap.add_argument("--sources", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=str(common.ROOT / "bench_out"))
    args = ap.parse_args(argv)
    configs = parse_configs(args.configs)
    results = [run_graph(spec, configs, args.sources, args.seed)
               for spec in common.expand_specs(args.graphs.split(","))]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    common.write_json(out / "bfs_fused_knobs.json",
                      {"machine": common.machine_info(), "configs": [label(c) for c in configs],
                       "results": results})
    rows = [[r["graph"], lab, common.fmt(m["kernel_us"] / 1e3), common.fmt(m["call_ms"]),
             common.fmt(m["us_per_level"]), common.fmt(m["block_steps"], 2)]
            for r in results for lab, m in r["median"].items()]
    common.write_text(out / "bfs_fused_knobs.md", common.markdown_table(
        ["graph", "config", "kernel ms", "call ms", "µs/level", "block steps"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
