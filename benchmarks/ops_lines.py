"""Which lines of gblas cost host time in one small operation (not a test).

Runs the operations of ``ops_overhead.py`` (n = 4096, 32 K entries) under line_profiler
with every function of gblas' object, operation, format and backend modules registered,
and prints, per operation, the lines that cost more than ``--min-us`` µs a call. Line
tracing inflates each line by ~0.1-0.5 µs, so read the lines against each other; the
plain per-call times are ops_overhead.py's. line_profiler is not a dependency: on the GPU
machine carry its wheel (docs/benchmarks.md says how).

    python3 benchmarks/ops_lines.py [--device cuda:0] [--ops mxv;select] [--calls 300]
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import pkgutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ops_overhead  # noqa: E402

import gblas  # noqa: E402

PACKAGES = ("gblas.core", "gblas.ops", "gblas.formats", "gblas.backend")


def _modules() -> list[object]:
    mods = []
    for pkg_name in PACKAGES:
        pkg = importlib.import_module(pkg_name)
        for info in pkgutil.walk_packages(pkg.__path__, pkg_name + "."):
            try:
                mods.append(importlib.import_module(info.name))
            except ImportError:  # a module that needs what this machine lacks (mpi4py)
                continue
    return mods


def _register(lp: object, mods: list[object]) -> None:
    for mod in mods:
        for obj in vars(mod).values():
            if getattr(obj, "__module__", None) != mod.__name__:
                continue
            if inspect.isfunction(obj):
                lp.add_function(obj)
            elif inspect.isclass(obj):
                for attr in vars(obj).values():
                    fn = attr.fget if isinstance(attr, property) else attr
                    if inspect.isfunction(fn):
                        lp.add_function(fn)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cuda:0" if gblas._device.cuda_available() else "cpu")
    ap.add_argument("--ops", default="mxv", help="';'-separated names of ops_overhead.py")
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--min-us", type=float, default=0.3)
    args = ap.parse_args()
    from line_profiler import LineProfiler  # noqa: PLC0415

    ops = ops_overhead.gblas_ops(ops_overhead.inputs(4096, 32768), args.device)
    mods = _modules()
    for name in args.ops.split(";"):
        f = ops[name]
        for _ in range(5):
            f()
        lp = LineProfiler()
        _register(lp, mods)
        lp.enable_by_count()
        for _ in range(args.calls):
            f()
        lp.disable_by_count()
        stats = lp.get_stats()
        print(f"=== {name} on {args.device}: lines over {args.min_us} µs a call")
        rows = []
        for (fname, _, func), lines in stats.timings.items():
            for lineno, hits, t in lines:
                us = t * stats.unit * 1e6 / args.calls
                if us >= args.min_us:
                    rows.append((us, hits / args.calls, fname, lineno, func))
        for us, per_call, fname, lineno, func in sorted(rows, reverse=True)[:40]:
            src = Path(fname).read_text().splitlines()[lineno - 1].strip() \
                if Path(fname).is_file() else ""
            short = fname.split("gblas/")[-1]
            print(f"{us:8.1f} µs {per_call:5.1f}x  {short}:{lineno} {func}: {src[:90]}")


if __name__ == "__main__":
    main()
