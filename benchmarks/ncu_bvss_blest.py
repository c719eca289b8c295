"""One search from the same root by gblas' BVSS BFS, gblas' fused CSR BFS and Blest, for
Nsight Compute to compare the kernels (issue 12, item 2; not a test).

    PYTHONPATH=. python3 benchmarks/ncu_bvss_blest.py --graph kron:22 --blest PATH
    ncu --clock-control none --kernel-name regex:'bfs_bvss|bfs_fused|BVSSBFS' \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy \
        --section WarpStateStats --section LaunchStats \
        python3 benchmarks/ncu_bvss_blest.py --graph kron:22 --blest PATH

The graph is generated on the GPU as ``bfs_gpu.py`` does (bit-identical to
gblas.generators); the root is the first of ``bfs_gpu.py``'s sources for the same seed.
Order: Blest's preprocessing (its reordering and BVSS build, on the host), then one
search each: ``bvss`` (A's arrays as a matrix in format bvss, natural order, Tensor Core
slices: the kernel ``bfs_bvss<true>``), ``csr`` (the fused kernel ``bfs_fused``, one launch
or three) and Blest (``BVSSBFS8...``). Each kernel is launched once for the search (no
warm-up: a warm-up would be profiled too; the compilation happens before the launch,
outside the kernel). Blest's
and the BVSS search's levels are checked against the CSR search's; the script prints each
method's wall time (under ncu: replays included, so meaningless) and device time, the
BVSS search's steps, and the verdicts.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bfs_bvss  # noqa: E402
import bfs_gpu  # noqa: E402 - puts gblas on sys.path, generates graphs on the GPU
import blest  # noqa: E402
import common  # noqa: E402

from gblas import cuda  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", default="kron:22")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--blest", default=None, help="Blest checkout (else $BLEST_DIR)")
    ap.add_argument("--blest-build", default=str(blest.BUILD_ROOT))
    args = ap.parse_args()

    cp = bfs_gpu._cp()
    A, sym = bfs_gpu.load(args.graph)  # noqa: N806
    A._csr_T()
    csr = A._csr()
    src = common.pick_sources(cp.diff(csr.indptr).get(), 1, args.seed)[0]
    print(f"{args.graph}: n={A.nrows} nnz={A.nvals} sym={sym} root {src}", flush=True)

    checkout = blest.resolve_checkout(args.blest)
    run = None
    if checkout is not None:
        cc = cp.cuda.Device().compute_capability
        peer = blest.Blest(checkout, Path(args.blest_build), arch=cc)
        g = peer.graph(common.graph_label(args.graph), csr.indptr.get(), csr.indices.get(),
                       symmetric=sym)
        run = peer.start(g)
        r = run.ready
        print(f"blest: kernel {r.kernel}, ordering {r.ordering} ({r.reorder_s:.1f} s), "
              f"BVSS {r.bvss_s:.1f} s, {r.slices} slices", flush=True)

    B, _ = bfs_bvss.bvss_copy(A, "none")  # noqa: N806 - A's arrays, A stays csr
    cp.cuda.Device().synchronize()
    results = {}
    for name, M in (("bvss", B), ("csr", A)):  # noqa: N806
        t0 = time.perf_counter()
        lv, _, info = cuda.bfs(M, src)  # with its step log: each step's device µs
        cp.cuda.Device().synchronize()
        results[name] = bfs_gpu.dense_levels(lv, A.nrows)
        print(f"{name}: {1e3 * (time.perf_counter() - t0):.2f} ms wall, kernel "
              f"{info['kernel']}, kernel µs {info.get('kernel_us')}", flush=True)
        print(f"  steps {info['directions']}, frontier {info['frontier']}, step µs "
              f"{[round(float(x), 1) for x in info['step_us']]}", flush=True)
    same = bool((results["bvss"] == results["csr"]).all())
    print(f"bvss levels equal csr levels: {same}", flush=True)
    ok = same
    if run is not None:
        with run:
            res = run.bfs(src)
        verdict = blest.check_levels(res, results["csr"].get())
        print(f"blest: {res.ms:.3f} ms (its timer), levels vs csr: {verdict}", flush=True)
        ok = ok and verdict == "ok"
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
