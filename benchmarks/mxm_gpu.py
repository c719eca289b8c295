"""Masked mxm on the GPU: triangle counting's C⟨L⟩ = L +.pair Lᵀ (dot products) and a
betweenness batch (complemented-mask saxpy), time and peak device memory.

    python3 benchmarks/mxm_gpu.py [--scales 20,22] [--warp-min 16,32,64] [--bc 22:64]
        [--reps 3] [--out results.json]

Prints one line per measurement and writes JSON. Peak memory is the CuPy pool's most used
bytes (an allocator wrapper records the high-water mark). Compare with docs/mxm.md (the
floor estimate for kron:22).
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from typing import Any

import numpy as np


class PeakAllocator:
    """Records the high-water mark of the default memory pool's used bytes."""

    def __init__(self, cp: Any) -> None:
        self.cp, self.pool, self.peak = cp, cp.get_default_memory_pool(), 0
        cp.cuda.set_allocator(self.malloc)

    def malloc(self, n: int) -> Any:
        mem = self.pool.malloc(n)
        self.peak = max(self.peak, self.pool.used_bytes())
        return mem

    def reset(self) -> None:
        self.peak = self.pool.used_bytes()


def _timed(cp: Any, fn: Any, reps: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(reps):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        out = fn()
        cp.cuda.Device().synchronize()
        best = min(best, time.perf_counter() - t)
    return best, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", default="20,22")
    ap.add_argument("--warp-min", default="16,32,64")
    ap.add_argument("--bc", default="22:64", help="scale:sources, comma separated ('' = none)")
    ap.add_argument("--saxpy-tc", default="", help="scales whose triangle-counting product "
                    "also runs as the chunked saxpy (direction='push'): 3.5e9 products at 18")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default="mxm_gpu.json")
    ap.add_argument("--profile", action="store_true",
                    help="also time the dot kernel alone (no write-back) and each CUDA kernel")
    args = ap.parse_args()

    import cupy as cp  # noqa: PLC0415

    import gblas as gb  # noqa: PLC0415
    from gblas import INT64, Descriptor, Matrix, select, semiring  # noqa: PLC0415
    from gblas.algorithms import betweenness_centrality, triangle_count  # noqa: PLC0415
    from gblas.formats.csr import mxm_cuda  # noqa: PLC0415

    peak = PeakAllocator(cp)
    rows: list[dict[str, Any]] = []

    def log(**kw: Any) -> None:
        rows.append(kw)
        print(" ".join(f"{k}={v}" for k, v in kw.items()), flush=True)

    def tc_step(L: Matrix, desc: Descriptor) -> Matrix:  # noqa: N803
        C = Matrix(INT64, L.nrows, L.ncols, device="cuda")  # noqa: N806
        C(L.S, desc=desc) << L.mxm(L.T, semiring.plus_pair[INT64])
        return C

    def tc_scale(scale: int) -> None:
        t = time.perf_counter()
        G = gb.generators.kronecker(scale, seed=1).to("cuda")  # noqa: N806
        gen = time.perf_counter() - t
        peak.reset()
        t_tc, count = _timed(cp, functools.partial(triangle_count, G), 2)  # 2nd: warm
        log(what="triangle_count", scale=scale, n=G.nrows, nvals=G.nvals, triangles=count,
            seconds=round(t_tc, 4), peak_gib=round(peak.peak / 2**30, 3),
            generate_s=round(gen, 1))
        L = G.select(select.tril, -1).new()  # noqa: N806
        tc_steps(scale, G, L)
        for wm in (int(w) for w in args.warp_min.split(",") if w):
            mxm_cuda.DOT_WARP_MIN = wm
            desc = Descriptor(direction="pull")
            peak.reset()
            secs, C = _timed(cp, functools.partial(tc_step, L, desc), args.reps)  # noqa: N806
            log(what="tc_masked_dot", scale=scale, nnz_L=L.nvals, warp_min=wm,
                kernel=desc.last_kernel, seconds=round(secs, 4),
                peak_gib=round(peak.peak / 2**30, 3), nvals_C=C.nvals)
        mxm_cuda.DOT_WARP_MIN = 32
        if args.profile:
            profile_dot(scale, L)

    def tc_steps(scale: int, G: Matrix, L: Matrix) -> None:  # noqa: N803
        """triangle_count's steps one by one (each timed warm, synchronised): the degree
        order, the renumbering G[p, p], its lower triangle, the masked dot, the sum."""
        from gblas import monoid  # noqa: PLC0415
        from gblas.algorithms.triangle_count import degree_order  # noqa: PLC0415

        t_order, order = _timed(cp, functools.partial(degree_order, L), 2)
        steps = {"degree_order": t_order}
        Lp = L  # noqa: N806
        if order is not None:
            t_perm, P = _timed(cp, lambda: G[order, order].new(), 2)  # noqa: N806
            t_tril, Lp = _timed(cp, lambda: P.select(select.tril, -1).new(), 2)  # noqa: N806
            steps.update(renumber=t_perm, tril=t_tril)
        desc = Descriptor()
        steps["masked_dot"], C = _timed(cp, functools.partial(tc_step, Lp, desc),  # noqa: N806
                                        args.reps)
        steps["sum"], total = _timed(
            cp, lambda: C.reduce_scalar(monoid.plus).new().value, args.reps)
        log(what="tc_steps", scale=scale, renumbered=order is not None, triangles=total,
            kernel=desc.last_kernel, **{k: round(v, 4) for k, v in steps.items()})
        if args.profile and order is not None:
            profile_dot(scale, Lp)

    def profile_dot(scale: int, L: Matrix) -> None:  # noqa: N803
        """The kernel function alone (CSR in, CSR out) and its CUDA kernels (events)."""
        from gblas.backend.registry import MxmCall  # noqa: PLC0415
        from gblas.semirings.model import resolve_semiring  # noqa: PLC0415

        ks = resolve_semiring(semiring.plus_pair[INT64], L.dtype, L.dtype)
        LT = L.T  # noqa: N806
        call = MxmCall(L._csr(), LT._csr(), LT._csr_T, ks, L._csr(), False)
        secs, _ = _timed(cp, functools.partial(mxm_cuda.mxm_dot, call), args.reps)
        spans: list[tuple[str, Any, Any]] = []
        orig = mxm_cuda._kernel

        def timed_kernel(dev: int, expr: str) -> Any:
            k = orig(dev, expr)

            def launch(*a: Any) -> None:
                e0, e1 = cp.cuda.Event(), cp.cuda.Event()
                e0.record()
                k(*a)
                e1.record()
                spans.append((expr.split("<")[0], e0, e1))
            return launch

        mxm_cuda._kernel = timed_kernel
        try:
            mxm_cuda.mxm_dot(call)
        finally:
            mxm_cuda._kernel = orig
        cp.cuda.Device().synchronize()
        per = {name: round(cp.cuda.get_elapsed_time(a, b) / 1e3, 4) for name, a, b in spans}
        st = cp.asarray(L._csr().indptr)
        log(what="tc_dot_kernel_only", scale=scale, seconds=round(secs, 4), kernels=per,
            rows=int(st.shape[0] - 1))

    def bc_scale(scale: int, k: int) -> None:
        G = gb.generators.kronecker(scale, seed=1).to("cuda")  # noqa: N806
        src = np.random.default_rng(0).choice(G.nrows, size=k, replace=False).tolist()
        peak.reset()
        secs, bc = _timed(cp, functools.partial(betweenness_centrality, G, sources=src,
                                                batch_size=k), 2)
        log(what="betweenness", scale=scale, sources=k, seconds=round(secs, 3),
            peak_gib=round(peak.peak / 2**30, 3), sum=float(np.sum(bc.to_coo()[1])))

    def saxpy_tc(scale: int) -> None:
        G = gb.generators.kronecker(scale, seed=1).to("cuda")  # noqa: N806
        L = G.select(select.tril, -1).new()  # noqa: N806
        desc = Descriptor(direction="push")
        peak.reset()
        secs, C = _timed(cp, functools.partial(tc_step, L, desc), 1)  # noqa: N806
        log(what="tc_masked_saxpy", scale=scale, kernel=desc.last_kernel,
            seconds=round(secs, 3), peak_gib=round(peak.peak / 2**30, 3),
            triangles=int(np.sum(C.to_coo()[2])))

    for scale in (int(s) for s in args.saxpy_tc.split(",") if s):
        saxpy_tc(scale)
        cp.get_default_memory_pool().free_all_blocks()
    for scale in (int(s) for s in args.scales.split(",") if s):
        tc_scale(scale)
        cp.get_default_memory_pool().free_all_blocks()
    for spec in (s for s in args.bc.split(",") if s):
        bc_scale(*(int(x) for x in spec.split(":")))
        cp.get_default_memory_pool().free_all_blocks()

    with open(args.out, "w") as f:
        json.dump({"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                   "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
