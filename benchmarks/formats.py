"""Storage of CSR, Sell-C-σ and SlimSell, and the SlimWork effect on BFS-SpMV (CPU).

    python3 benchmarks/formats.py [--graphs kron:16,kron:18,urand:16,urand:18,grid:512x512,real]
                                  [--C 8,32] [--out bench_out] [--tag ""] [--no-timing]
                                  [--timing-graphs kron:16,urand:16,grid:256x256]
                                  [--device cpu|cuda|all] [--gpu-graphs kron:18,urand:18,...]

Storage: bytes of every array of each format (``nbytes()``), for σ ∈ {1, C, √n, n}. The
matrices are given FP64 values (8-byte values, like the 8-byte column indices), as in the
SlimSell paper's comparison; ``csr`` counts indptr + indices + values, ``csr-pattern``
indptr + indices only (an iso matrix). SlimSell stores no values, Sell-C-σ does.

Timing: ``bfs_semiring`` (four families) on CSR, Sell-C-σ and SlimSell with SlimWork on and
off: per-iteration time = BFS time / number of SpMVs; and the push-pull BFS
(gblas.algorithms.bfs) on the same source.

GPU (``--device cuda`` or ``all``; needs CuPy and a GPU): the same ``bfs_semiring`` runs on
the device for Sell-C-σ and SlimSell (C=32, σ=n) with SlimWork on and off. Every Sell SpMV
is bracketed by CUDA events (the launch, the fold of pieces and the one count read that
sizes the result); ms/SpMV is their summed time / SpMVs, BFS ms the event time of the whole
call, both the median of ``--repeat`` runs after a warm-up. On the GPU ``slimwork(False)``
only turns the terminal stop off (a lane stops at the monoid's terminal value): rows the
mask forbids are skipped by the kernel either way, so "chunks skipped" there is the share
of chunks whose rows the mask all forbids (counted on the warm-up run, not timed).
``--graphs ""`` skips the storage part. Writes ``<out>/formats<tag>.json``, ``.md`` and
``.png`` (bytes per edge).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

import common  # noqa: I001 - puts the checkout on sys.path
import numpy as np

from gblas import FP64, unary
from gblas.algorithms import bfs, bfs_semiring
from gblas.formats.csr.container import CSR
from gblas.formats.sellcs import cpu as sell_cpu
from gblas.formats.sellcs.container import build

DEFAULT_GRAPHS = "kron:16,kron:18,urand:16,urand:18,grid:512x512,real"
FAMILIES = ("boolean", "real", "tropical", "selmax")


def sigmas(n: int, C: int) -> dict[str, int]:  # noqa: N803
    return {"1": 1, "C": C, "sqrt(n)": max(1, math.isqrt(n)), "n": max(n, 1)}


def storage(spec: str, Cs: list[int]) -> dict[str, Any]:  # noqa: N803
    A = common.load_graph(spec)
    csr0 = A._csr()
    csr = CSR(csr0.nrows, csr0.ncols, csr0.indptr, csr0.indices,
              np.ones(csr0.nnz, dtype=np.float64), FP64)
    row: dict[str, Any] = {"graph": common.graph_label(spec), "n": csr.nrows, "nnz": csr.nnz,
                           "csr": csr.nbytes(),
                           "csr-pattern": csr0.indptr.nbytes + csr0.indices.nbytes,
                           "formats": []}
    for C in Cs:  # noqa: N806
        for label, s in sigmas(csr.nrows, C).items():
            for fmt in ("sellcs", "slimsell"):
                st = build(csr, fmt, C=C, sigma=s).stats()
                row["formats"].append({"format": fmt, "C": C, "sigma": label,
                                       "sigma_value": s, "nbytes": st["nbytes"],
                                       "padding": st["padding"],
                                       "bytes_per_edge": st["bytes_per_edge"]})
    return row


def _count_spmv() -> tuple[dict[str, int], Any]:
    counter = {"calls": 0, "pieces": 0, "skipped": 0}
    orig = sell_cpu.mxv_pull

    def counted(*args: Any, **kw: Any) -> Any:
        out = orig(*args, **kw)
        counter["calls"] += 1
        counter["pieces"] += sell_cpu.LAST_RUN["pieces"]
        counter["skipped"] += sell_cpu.LAST_RUN["skipped"]
        return out

    return counter, counted


def timing(spec: str, repeat: int) -> list[dict[str, Any]]:
    A0 = common.load_graph(spec)
    n = A0.nrows
    src = int(np.argmax(np.diff(A0._csr().indptr)))
    rows: list[dict[str, Any]] = []
    t_pp, _ = common.time_call(lambda: bfs(A0, src), repeat=repeat)
    for fmt, params in (("csr", {}), ("sellcs", {"C": 8, "sigma": n}),
                        ("slimsell", {"C": 8, "sigma": n}),
                        ("slimsell", {"C": 8, "sigma": n, "slimchunk": 64})):
        A = A0.apply(unary.one[FP64]).new() if fmt == "sellcs" else A0.dup()
        if fmt != "csr":
            A.to_format(fmt, **params)
        for family in FAMILIES:
            for on in ((True, False) if fmt != "csr" else (True,)):
                counter, counted = _count_spmv()
                orig = sell_cpu.mxv_pull
                sell_cpu.mxv_pull = counted
                try:
                    with sell_cpu.slimwork(on):
                        bfs_semiring(A, src, family)  # warm-up (JIT, transposes)
                        counter.update(calls=0, pieces=0, skipped=0)
                        t, _ = common.time_call(lambda A=A, f=family: bfs_semiring(A, src, f),
                                                repeat=repeat)
                finally:
                    sell_cpu.mxv_pull = orig
                calls = counter["calls"] / repeat if fmt != "csr" else None
                rows.append({"graph": common.graph_label(spec), "format": fmt,
                             "slimchunk": params.get("slimchunk", 0), "family": family,
                             "slimwork": on if fmt != "csr" else None, "bfs_s": t,
                             "spmv": calls, "per_iter_s": t / calls if calls else None,
                             "skipped_frac": counter["skipped"] / max(counter["pieces"], 1),
                             "pushpull_s": t_pp})
    return rows


def _gpu_available() -> bool:
    try:
        import cupy as cp

        return cp.cuda.runtime.getDeviceCount() > 0
    except Exception:  # noqa: BLE001 - no CuPy, no driver, no device
        return False


def _gpu_counting_kernel(cp: Any, state: dict[str, Any]) -> Any:
    """A wrapper of the CUDA Sell mxv that brackets each call with CUDA events and, when
    ``state["count_chunks"]``, counts the chunks whose rows the mask all forbids."""
    from gblas.formats.sellcs import cuda as sell_cuda

    orig = sell_cuda.mxv_pull

    def counted(call: Any) -> Any:
        if state["count_chunks"]:
            S, n = call.rep, call.nrows  # noqa: N806
            nch = int(S.nchunks)
            state["pieces"] += nch
            if call.mask_bits is not None and nch:
                forbid = cp.asarray(call.mask_bits, dtype=np.bool_) == bool(call.mask_comp)
                if S.perm is not None:
                    forbid = forbid[S.perm]
                pad = cp.ones(nch * int(S.C), dtype=np.bool_)
                pad[:n] = forbid
                state["skipped"] += int(pad.reshape(nch, int(S.C)).all(axis=1).sum())
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        e0.record()
        out = orig(call)
        e1.record()
        state["events"].append((e0, e1))
        return out

    return counted


def _register_gpu(func: Any) -> None:
    from gblas.ops.dispatch import register_kernel

    for fmt in ("sellcs", "slimsell"):
        register_kernel("mxv", f"cuda_{fmt}_pull_structural", device="cuda", format=fmt,
                        traits="structural", fuses_mask=True)(func)
        register_kernel("mxv", f"cuda_{fmt}_pull_spmv", device="cuda", format=fmt,
                        traits="builtin", fuses_mask=True)(func)


def timing_gpu(spec: str, repeat: int, C: int = 32) -> list[dict[str, Any]]:  # noqa: N803
    """bfs_semiring on the GPU, Sell-C-σ and SlimSell (σ = n), SlimWork on and off."""
    import cupy as cp

    from gblas.formats.sellcs import cuda as sell_cuda

    A0 = common.load_graph(spec)
    n = A0.nrows
    src = int(np.argmax(np.diff(A0._csr().indptr)))
    dev_name = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"]
    dev_name = dev_name.decode() if isinstance(dev_name, bytes) else str(dev_name)
    state: dict[str, Any] = {"events": [], "count_chunks": False, "pieces": 0, "skipped": 0}
    _register_gpu(_gpu_counting_kernel(cp, state))
    rows: list[dict[str, Any]] = []
    try:
        for fmt in ("sellcs", "slimsell"):
            A = (A0.apply(unary.one[FP64]).new() if fmt == "sellcs" else A0.dup()).to("cuda")
            A.to_format(fmt, C=C, sigma=n)
            for family in FAMILIES:
                for on in (True, False):
                    with sell_cpu.slimwork(on):
                        state.update(events=[], count_chunks=True, pieces=0, skipped=0)
                        bfs_semiring(A, src, family)  # warm-up (NVRTC, transposes)
                        cp.cuda.Device().synchronize()
                        state["count_chunks"] = False
                        bfs_ms, spmv_ms, calls = [], [], 0
                        for _ in range(max(1, repeat)):
                            state["events"] = []
                            b0, b1 = cp.cuda.Event(), cp.cuda.Event()
                            b0.record()
                            bfs_semiring(A, src, family)
                            b1.record()
                            b1.synchronize()
                            bfs_ms.append(cp.cuda.get_elapsed_time(b0, b1))
                            spmv_ms.append(sum(cp.cuda.get_elapsed_time(e0, e1)
                                               for e0, e1 in state["events"]))
                            calls = len(state["events"])
                    t_bfs, t_spmv = common.median(bfs_ms), common.median(spmv_ms)
                    rows.append({"graph": common.graph_label(spec), "format": fmt,
                                 "slimchunk": 0, "family": family, "slimwork": on, "C": C,
                                 "device": dev_name, "bfs_s": t_bfs / 1e3, "spmv": calls,
                                 "spmv_s": t_spmv / 1e3,
                                 "per_iter_s": t_spmv / 1e3 / calls if calls else None,
                                 "skipped_frac": state["skipped"] / max(state["pieces"], 1)})
    finally:
        _register_gpu(sell_cuda.mxv_pull)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graphs", default=DEFAULT_GRAPHS)
    ap.add_argument("--C", default="8,32")
    ap.add_argument("--out", default="bench_out")
    ap.add_argument("--tag", default="")
    ap.add_argument("--no-timing", action="store_true")
    ap.add_argument("--timing-graphs", default="kron:16,urand:16,grid:256x256")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--device", choices=("cpu", "cuda", "all"), default="cpu",
                    help="which SlimWork timing pass to run: CPU (Numba), GPU (CuPy), both")
    ap.add_argument("--gpu-graphs", default="kron:18,urand:18,grid:512x512")
    ap.add_argument("--gpu-C", type=int, default=32)
    args = ap.parse_args(argv)
    Cs = [int(c) for c in args.C.split(",")]  # noqa: N806
    info = common.machine_info()
    results: dict[str, Any] = {"machine": info, "storage": [], "timing": []}
    table = []
    specs = [g for g in args.graphs.split(",") if g]
    for spec in common.expand_specs(specs):
        row = storage(spec, Cs)
        results["storage"].append(row)
        for C in Cs:  # noqa: N806
            f = {(r["format"], r["sigma"]): r for r in row["formats"] if r["C"] == C}
            table.append([row["graph"], row["n"], row["nnz"], C, row["csr"] / row["nnz"]]
                         + [f[("sellcs", s)]["bytes_per_edge"] for s in ("1", "n")]
                         + [f[("slimsell", s)]["bytes_per_edge"]
                            for s in ("1", "C", "sqrt(n)", "n")]
                         + [f[("slimsell", "n")]["nbytes"] / f[("sellcs", "n")]["nbytes"],
                            f[("slimsell", "n")]["nbytes"] / row["csr"]])
        print(f"{row['graph']}: done", file=sys.stderr)
    headers = ["graph", "n", "nnz", "C", "CSR B/e", "Sell σ=1", "Sell σ=n", "Slim σ=1",
               "Slim σ=C", "Slim σ=√n", "Slim σ=n", "Slim/Sell (σ=n)", "Slim/CSR (σ=n)"]
    md = (["## Storage (bytes per edge; FP64 values, int64 indices)", "",
           common.markdown_table(headers, table), ""] if table else [])
    if not args.no_timing and args.device in ("cpu", "all"):
        trows = []
        for spec in args.timing_graphs.split(","):
            t0 = time.perf_counter()
            rows = timing(spec, args.repeat)
            results["timing"].extend(rows)
            for r in rows:
                trows.append([r["graph"], r["format"] + (f" chunk{r['slimchunk']}"
                                                         if r["slimchunk"] else ""),
                              r["family"], {True: "on", False: "off", None: "-"}[r["slimwork"]],
                              r["bfs_s"] * 1e3, r["spmv"],
                              None if r["per_iter_s"] is None else r["per_iter_s"] * 1e3,
                              r["skipped_frac"], r["pushpull_s"] * 1e3])
            print(f"{spec}: timed in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
        md += ["## BFS-SpMV with and without SlimWork (CPU)", "",
               common.markdown_table(["graph", "format", "family", "SlimWork", "BFS ms",
                                      "SpMVs", "ms/SpMV", "chunks skipped",
                                      "push-pull BFS ms"], trows), ""]
    if not args.no_timing and args.device in ("cuda", "all"):
        if not _gpu_available():
            print("no CUDA device (or no CuPy): GPU pass skipped", file=sys.stderr)
        else:
            grows, dev_name = [], ""
            for spec in args.gpu_graphs.split(","):
                t0 = time.perf_counter()
                rows = timing_gpu(spec, args.repeat, args.gpu_C)
                results["timing"].extend(rows)
                for r in rows:
                    dev_name = r["device"]
                    grows.append([r["graph"], r["format"], r["family"],
                                  "on" if r["slimwork"] else "off", r["bfs_s"] * 1e3,
                                  r["spmv"],
                                  None if r["per_iter_s"] is None else r["per_iter_s"] * 1e3,
                                  r["skipped_frac"]])
                print(f"{spec}: GPU timed in {time.perf_counter() - t0:.1f}s", file=sys.stderr)
            md += [f"## BFS-SpMV with and without SlimWork (GPU: {dev_name}, "
                   f"C={args.gpu_C}, σ=n)", "",
                   common.markdown_table(["graph", "format", "family", "SlimWork", "BFS ms",
                                          "SpMVs", "ms/SpMV", "chunks skipped"], grows), ""]
    text = "\n".join(md)
    print(text)
    out = common.Path(args.out)
    common.write_json(out / f"formats{args.tag}.json", results)
    common.write_text(out / f"formats{args.tag}.md", text)
    groups = [f"{r[0]} C={r[3]}" for r in table]
    if not table:
        return 0
    common.bar_plot(out / f"formats{args.tag}.png", groups,
                    {"CSR": [r[4] for r in table], "Sell-C-σ σ=n": [r[6] for r in table],
                     "SlimSell σ=1": [r[7] for r in table],
                     "SlimSell σ=n": [r[10] for r in table]},
                    ylabel="bytes per edge", title="Storage of CSR, Sell-C-σ, SlimSell",
                    log=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
