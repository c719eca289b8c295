"""Where one gblas algorithm call spends its GPU and host time (not a test).

Device side: every kernel, memset and copy of the call, from CUPTI through PyTorch's
profiler (it records the whole process's CUDA activity, CuPy's launches included), summed
per kernel name. Host side: cProfile of the same call, by own time. The machine has no
Nsight Systems; this is the substitute.

    python3 benchmarks/profile_gpu.py [--graph kron:22]
                                      [--algo pagerank|sssp|cc|bfs|tc|bc|cupyx_pagerank]
                                      [--rows 25]
"""

from __future__ import annotations

import argparse
import cProfile
import json
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
import numpy as np  # noqa: E402


def _algorithm(name: str, A: Any, G: Any) -> Callable[[], Any]:  # noqa: N803
    from gblas.algorithms import (  # noqa: PLC0415
        betweenness_centrality,
        bfs,
        connected_components,
        pagerank,
        sssp,
        triangle_count,
    )

    if name == "cupyx_pagerank":  # the naive loop PageRank is compared with, same rule
        import ops_overhead  # noqa: PLC0415

        return ops_overhead._cupyx_pagerank(A.to_scipy_sparse(), 0.85, 1e-9, 100)
    # the workloads of benchmarks/algorithms.py: its seeded source of positive degree, and
    # for SSSP its integer weights 1..255
    bench = common.algorithms_module()
    csr = A.to_scipy_sparse().tocsr()
    src = int(common.pick_sources(np.diff(csr.indptr), 1, 1)[0])
    if name == "sssp":
        from gblas import Matrix  # noqa: PLC0415

        w = bench.edge_weights(csr.indptr, csr.indices, 1)
        W = Matrix.from_coo(*csr.nonzero(), w, nrows=A.nrows, ncols=A.ncols,  # noqa: N806
                            device=G.device)
        return lambda: sssp(W, src)
    calls: dict[str, Callable[[], Any]] = {
        "pagerank": lambda: pagerank(G, tol=1e-9),
        "cc": lambda: connected_components(G),
        "bfs": lambda: bfs(G, src),
        "tc": lambda: triangle_count(G, symmetrize=False),
        "bc": lambda: betweenness_centrality(
            G, sources=common.pick_sources(np.diff(csr.indptr), 8, 1)),
    }
    return calls[name]


def _gaps(trace: Path, rows: int) -> None:
    """The device's idle time inside the call: the span from the call's first host event
    to its last device event, the time the device was busy, and the longest gaps with
    the kernel that ended each (what the device waited after)."""
    events = json.loads(trace.read_text())["traceEvents"]
    dev = sorted((e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")
                  and "dur" in e), key=lambda e: e["ts"])
    host = [e for e in events if e.get("cat") in ("cpu_op", "cuda_runtime", "cuda_driver",
                                                   "python_function") and "ts" in e]
    if not dev:
        print("no device events in the trace")
        return
    start = min([e["ts"] for e in host] + [dev[0]["ts"]])
    end = max(e["ts"] + e["dur"] for e in dev)
    busy, gaps, last_end, last_name = 0.0, [], start, "(call start)"
    for e in dev:
        if e["ts"] > last_end:
            gaps.append((e["ts"] - last_end, last_name, e["name"]))
        busy += max(0.0, e["ts"] + e["dur"] - max(e["ts"], last_end))
        if e["ts"] + e["dur"] > last_end:
            last_end, last_name = e["ts"] + e["dur"], e["name"]
    span = end - start
    print(f"device events {len(dev)}; span {span / 1e3:.3f} ms, busy {busy / 1e3:.3f} ms, "
          f"idle {(span - busy) / 1e3:.3f} ms in {len(gaps)} gaps")
    for gap, before, after in sorted(gaps, reverse=True)[:rows]:
        print(f"  {gap:8.1f} us after {before[:50]:50s} before {after[:50]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graph", default="kron:22")
    ap.add_argument("--algo", default="pagerank",
                    help="pagerank, sssp, cc, bfs, tc, bc, or cupyx_pagerank (the naive CuPy loop)")
    ap.add_argument("--rows", type=int, default=25)
    ap.add_argument("--trace", default="", help="where to write the Chrome trace (JSON)")
    args = ap.parse_args()

    import cupy as cp  # noqa: PLC0415

    A = common.load_graph(args.graph)  # noqa: N806
    G = A.to("cuda:0")  # noqa: N806
    run = _algorithm(args.algo, A, G)
    run()
    cp.cuda.get_current_stream().synchronize()
    t0 = time.perf_counter()
    run()
    cp.cuda.get_current_stream().synchronize()
    print(f"{args.algo} on {args.graph}: {(time.perf_counter() - t0) * 1e3:.2f} ms (warm)")

    try:
        from torch.profiler import ProfilerActivity, profile  # noqa: PLC0415
    except ImportError:
        print("no torch here: device-side breakdown skipped")
    else:
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            run()
            cp.cuda.get_current_stream().synchronize()
        print(prof.key_averages().table(sort_by="cuda_time_total", row_limit=args.rows,
                                        max_name_column_width=70))
        trace = Path(args.trace or "/tmp/gblas_profile_trace.json")
        prof.export_chrome_trace(str(trace))
        _gaps(trace, args.rows)
    pr = cProfile.Profile()
    pr.enable()
    run()
    cp.cuda.get_current_stream().synchronize()
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(args.rows)


if __name__ == "__main__":
    main()
