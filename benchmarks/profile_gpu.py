"""Where one gblas algorithm call spends its GPU and host time (not a test).

Device side: every kernel, memset and copy of the call, from CUPTI through PyTorch's
profiler (it records the whole process's CUDA activity, CuPy's launches included), summed
per kernel name. Host side: cProfile of the same call, by own time. The machine has no
Nsight Systems; this is the substitute.

    python3 benchmarks/profile_gpu.py [--graph kron:22] [--algo pagerank|sssp|cc|bfs]
                                      [--rows 25]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402


def _algorithm(name: str, G: Any) -> Callable[[], Any]:  # noqa: N803
    from gblas.algorithms import bfs, connected_components, pagerank, sssp  # noqa: PLC0415

    calls: dict[str, Callable[[], Any]] = {
        "pagerank": lambda: pagerank(G, tol=1e-9),
        "sssp": lambda: sssp(G, 1),
        "cc": lambda: connected_components(G),
        "bfs": lambda: bfs(G, 1),
    }
    return calls[name]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--graph", default="kron:22")
    ap.add_argument("--algo", default="pagerank")
    ap.add_argument("--rows", type=int, default=25)
    args = ap.parse_args()

    import cupy as cp  # noqa: PLC0415

    A = common.load_graph(args.graph)  # noqa: N806
    G = A.to("cuda:0")  # noqa: N806
    run = _algorithm(args.algo, G)
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
    pr = cProfile.Profile()
    pr.enable()
    run()
    cp.cuda.get_current_stream().synchronize()
    pr.disable()
    pstats.Stats(pr).sort_stats("tottime").print_stats(args.rows)


if __name__ == "__main__":
    main()
