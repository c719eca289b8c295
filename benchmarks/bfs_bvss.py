"""GPU BFS with BVSS pull levels on Tensor Cores against the fused CSR kernel and Blest.

    PYTHONPATH=. python3 benchmarks/bfs_bvss.py [--graphs kron:22,urand:22,kron:24,urand:24,
        grid:2048x2048,grid:4096x4096,real] [--sources 16] [--reorders none,auto]
        [--variants tc,popcount] [--out DIR]

On the same graphs and sources, in one process, on one CUDA device, it times

* ``csr``            gblas.algorithms.bfs on the CSR matrix: the fused CSR kernel
                     (gblas/formats/csr/bfs_fused.py), levels only;
* ``bvss/<r>/<v>``   the same call on a copy of the matrix in format bvss with reordering
                     ``r`` (``A.to_format("bvss", reorder=r)``), slice test ``v`` (config
                     ``bvss_variant``: ``tc`` = 1-bit Tensor Core MMAs, ``popcount`` = CUDA
                     cores): the fused kernel with BVSS pull levels (gblas/formats/bvss/).

Each method runs once per graph as a warm-up (compilation; for bvss the build of the BVSS of
Aᵀ, and the reordering, whose seconds are reported: a preprocessing cost the user sees),
then over the sources back to back, each BFS timed with CUDA events; a time is the median
over the sources (the mean is reported too: Blest's figures are means and medians). Levels
of every bvss run are compared with the CSR kernel's. For the first source it also prints
each step's direction, new frontier and device µs (``profile`` in the JSON). GTEPS = edges
of the reached component / time (stored entries / 2 for symmetric graphs). µs/level = time /
levels. Graphs as in benchmarks/bfs_gpu.py (generated on the GPU, bit-identical to
gblas.generators). ``blest`` is the published Blest time on the same H100 with our
generator's graphs (the issue's targets). Writes ``<out>/bfs_bvss.json`` and ``<out>/bfs_bvss.md``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import bfs_gpu  # the GPU graph generators and CUDA-event timing (puts gblas on sys.path)
import common

import gblas as gb
from gblas.algorithms.bfs import bfs
from gblas.core.matrix import Matrix
from gblas.formats.bvss.bfs_tc import pull_rep

DEFAULT_GRAPHS = "kron:22,urand:22,kron:24,urand:24,grid:2048x2048,grid:4096x4096,real"
# Blest on the H100, our generators' graphs: mean (median) ms per BFS (issue 6's targets)
BLEST_MS = {"kron:22": (0.486, 0.394), "urand:22": (0.515, 0.510), "kron:24": (1.49, 1.25),
            "urand:24": (3.26, 3.50), "grid:2048x2048": (18.4, None),
            "grid:4096x4096": (42.8, None)}


def bvss_copy(A: Matrix, reorder: str) -> tuple[Matrix, dict[str, Any]]:  # noqa: N803
    """A second handle on A's CSR arrays (and transpose) in format bvss; the build of the
    BVSS of Aᵀ (the pull's), timed, and its stats."""
    cp = bfs_gpu._cp()
    B = Matrix._from_csr(A._csr(), A.device)  # noqa: N806
    B._reps["csr_T"] = A._csr_T()
    B._primary, B._primary_params = f"bvss(reorder={reorder})", {"reorder": reorder}
    t0 = time.perf_counter()
    rep = pull_rep(B)
    cp.cuda.Device().synchronize()
    st = rep.stats()
    st["total_seconds"] = time.perf_counter() - t0
    return B, st


def run_graph(spec: str, nsrc: int, seed: int, reorders: list[str],
              variants: list[str]) -> dict[str, Any]:
    cp = bfs_gpu._cp()
    t0 = time.perf_counter()
    A, sym = bfs_gpu.load(spec)  # noqa: N806
    A._csr_T()
    cp.cuda.Device().synchronize()
    cp.get_default_memory_pool().free_all_blocks()  # the generator's temporaries (scale 24)
    n, nnz = A.nrows, A.nvals
    deg = cp.diff(A._csr().indptr)
    sources = common.pick_sources(deg.get(), nsrc, seed)
    label = common.graph_label(spec)
    print(f"[{time.strftime('%H:%M:%S')}] {label}: n={n} nnz={nnz} sym={sym} load+transpose "
          f"{time.perf_counter() - t0:.1f}s", flush=True)
    mats: dict[str, tuple[Matrix, str | None]] = {"csr": (A, None)}
    builds: dict[str, dict[str, Any]] = {}
    for r in reorders:
        B, st = bvss_copy(A, r)  # noqa: N806
        builds[r] = st
        print(f"  bvss reorder={r}: {st['reorder']} {st['reorder_seconds']:.2f}s + build "
              f"{st['build_seconds']:.2f}s; slices {st['slices']}, vss {st['vss']}, "
              f"compression {st['compression_ratio']:.3f}, {st['bytes_per_edge']:.2f} B/edge",
              flush=True)
        for v in variants:
            mats[f"bvss/{r}/{v}"] = (B, v)
    out: dict[str, Any] = {"graph": label, "spec": spec, "n": n, "nnz": nnz, "symmetric": sym,
                           "sources": sources, "builds": builds, "methods": {}}
    ref: dict[int, Any] = {}
    mismatches = 0
    for name, (M, variant) in mats.items():  # noqa: N806
        with gb.config.override(bvss_variant=variant or "auto"):
            bfs(M, sources[0])  # warm-up: compilation
            runs = []
            for s in sources:
                st: dict[str, Any] = {}
                ms, lv = bfs_gpu.timed(lambda M=M, s=s, st=st: bfs(M, s, stats=st))
                dl = bfs_gpu.dense_levels(lv, n)
                reached = dl >= 0
                edges = float(deg[reached].sum()) / (2.0 if sym else 1.0)
                if name == "csr":
                    ref[s] = dl
                elif not bool(cp.array_equal(dl, ref[s])):
                    mismatches += 1
                    print(f"  MISMATCH {name} vs csr levels, source {s}", flush=True)
                runs.append({"source": s, "ms": ms, "levels": int(st["levels"]),
                             "gteps": edges / (ms * 1e6), "kernel": st["kernels"][0],
                             "pull_levels": sum(d == "pull" for d in st["directions"])})
            _, _, info = gb.cuda.bfs(M, sources[0])  # per-step device times (one source)
        ms = [r["ms"] for r in runs]
        out["methods"][name] = {
            "ms": statistics.median(ms), "mean_ms": statistics.fmean(ms),
            "gteps": statistics.median(r["gteps"] for r in runs),
            "levels": statistics.median(r["levels"] for r in runs),
            "pull_levels": statistics.median(r["pull_levels"] for r in runs),
            "us_per_level": statistics.median(1e3 * r["ms"] / r["levels"] for r in runs),
            "kernel": runs[0]["kernel"], "runs": runs,
            "profile": {k: info[k] for k in ("directions", "frontier", "step_us")}}
        m = out["methods"][name]
        print(f"  {name:22s} {m['ms']:8.3f} ms (mean {m['mean_ms']:.3f}) {m['gteps']:6.1f} "
              f"GTEPS, {m['us_per_level']:.1f} us/level, {m['pull_levels']} pull levels, "
              f"{m['kernel']}", flush=True)
        p = m["profile"]
        print("      steps (us): " + ", ".join(
            f"{d[:2]} {f} {u:.0f}" for d, f, u in zip(p["directions"], p["frontier"],
                                                      p["step_us"])), flush=True)
    out["mismatches"] = mismatches
    out["blest"] = BLEST_MS.get(spec)
    return out


def table(results: list[dict[str, Any]]) -> str:
    rows = []
    for r in results:
        csr = r["methods"]["csr"]["ms"]
        blest = r["blest"]
        for name, m in r["methods"].items():
            reorder = name.split("/")[1] if "/" in name else None
            b = r["builds"].get(reorder) if reorder else None
            rows.append([r["graph"], name, common.fmt(m["ms"]), common.fmt(m["mean_ms"]),
                         common.fmt(m["gteps"]), common.fmt(m["us_per_level"]),
                         f"{m['levels']:g}/{m['pull_levels']:g}",
                         common.fmt(csr / m["ms"]),
                         common.fmt(blest[0] / m["mean_ms"]) if blest else "",
                         common.fmt(b["reorder_seconds"]) if b else "",
                         common.fmt(b["build_seconds"]) if b else "",
                         common.fmt(b["bytes_per_edge"]) if b else "",
                         common.fmt(b["compression_ratio"]) if b else ""])
    return common.markdown_table(
        ["graph", "method", "ms (median)", "ms (mean)", "GTEPS", "µs/level", "levels/pull",
         "csr / this", "Blest mean / this mean", "reorder s", "build s", "B/edge",
         "compression"], rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs", default=DEFAULT_GRAPHS)
    ap.add_argument("--sources", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--reorders", default="none,auto")
    ap.add_argument("--variants", default="tc,popcount")
    ap.add_argument("--out", default="bench_out")
    args = ap.parse_args(argv)
    specs = common.expand_specs(s for s in args.graphs.split(",") if s)
    reorders = [r for r in args.reorders.split(",") if r]
    variants = [v for v in args.variants.split(",") if v]
    info = common.machine_info()
    cp = bfs_gpu._cp()
    props = cp.cuda.runtime.getDeviceProperties(0)
    info["gpu"] = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print(f"device {info['gpu']}, {time.strftime('%Y-%m-%d %H:%M:%S')}", flush=True)
    results = []
    for spec in specs:
        results.append(run_graph(spec, args.sources, args.seed, reorders, variants))
        cp.get_default_memory_pool().free_all_blocks()
    md = table(results)
    print(md)
    out = Path(args.out)
    common.write_json(out / "bfs_bvss.json", {"machine": info, "results": results})
    common.write_text(out / "bfs_bvss.md", md)
    return 0 if all(r["mismatches"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
