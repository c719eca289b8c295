"""What a small BFS level is made of, measured on the GPU (not a test): the latency of one
barrier of the whole grid, of a thread-block cluster and of a block, and of one dependent
load through L2, one from DRAM and one dependent atomic (benchmarks/sync_latency.cu).

    PYTHONPATH=. python3 benchmarks/sync_latency.py [--iters 10000] [--out DIR]

The fused BFS runs a level of a grid or a road network as a chain of dependent L2 accesses
ended by a grid barrier (docs/gpu_bfs_notes.md §6); these numbers price the links. It also
tries what the cluster idea of that section needs: a launch with both the cooperative and
the cluster attributes (``cuLaunchKernelEx`` through ctypes; CuPy has no cluster launch),
in which ``grid.sync()`` and the cluster's barrier both work. A configuration the driver
refuses is reported with its error name, not skipped. Clusters of 16 blocks need the
non-portable size attribute, which the script sets. Grids: ``blocks/SM`` times the SM
count, rounded down to a multiple of the cluster size and to what
``cuOccupancyMaxActiveClusters`` says fits at once (a cooperative grid must be resident).
Writes ``<out>/sync_latency.json``.
"""

from __future__ import annotations

import argparse
import ctypes
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

_ATTR_COOPERATIVE, _ATTR_CLUSTER = 2, 4  # CU_LAUNCH_ATTRIBUTE_* (cuda.h)
_FUNC_NON_PORTABLE_CLUSTER = 14  # CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED
_BLOCK = 256


class _AttrValue(ctypes.Union):
    _fields_ = [("align", ctypes.c_uint64), ("pad", ctypes.c_char * 64),
                ("cooperative", ctypes.c_int), ("cluster", ctypes.c_uint * 3)]


class _Attr(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", _AttrValue)]


class _Config(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("smem", ctypes.c_uint), ("stream", ctypes.c_void_p),
                ("attrs", ctypes.POINTER(_Attr)), ("nattrs", ctypes.c_uint)]


class Driver:
    """The few driver calls CuPy does not wrap: a launch with attributes, the clusters that
    fit, a function attribute, an error's name."""

    def __init__(self) -> None:
        self.lib = ctypes.CDLL("libcuda.so.1")

    def error(self, code: int) -> str:
        name = ctypes.c_char_p()
        self.lib.cuGetErrorName(ctypes.c_int(code), ctypes.byref(name))
        return (name.value or b"?").decode()

    @staticmethod
    def config(grid: int, cluster: int, cooperative: bool) -> tuple[_Config, Any]:
        attrs = []
        if cooperative:
            a = _Attr(id=_ATTR_COOPERATIVE)
            a.value.cooperative = 1
            attrs.append(a)
        if cluster > 1:
            a = _Attr(id=_ATTR_CLUSTER)
            a.value.cluster[0], a.value.cluster[1], a.value.cluster[2] = cluster, 1, 1
            attrs.append(a)
        arr = (_Attr * max(1, len(attrs)))(*attrs)
        cfg = _Config(smem=0, stream=None, attrs=arr if attrs else None, nattrs=len(attrs))
        cfg.grid[0], cfg.grid[1], cfg.grid[2] = grid, 1, 1
        cfg.block[0], cfg.block[1], cfg.block[2] = _BLOCK, 1, 1
        return cfg, arr

    def max_clusters(self, func: int, grid: int, cluster: int) -> tuple[int, str]:
        cfg, _keep = self.config(grid, cluster, False)
        n = ctypes.c_int(0)
        code = self.lib.cuOccupancyMaxActiveClusters(ctypes.byref(n), ctypes.c_void_p(func),
                                                     ctypes.byref(cfg))
        return n.value, ("" if code == 0 else self.error(code))

    def allow_non_portable(self, func: int) -> str:
        code = self.lib.cuFuncSetAttribute(ctypes.c_void_p(func),
                                           ctypes.c_int(_FUNC_NON_PORTABLE_CLUSTER),
                                           ctypes.c_int(1))
        return "" if code == 0 else self.error(code)

    def launch(self, func: int, grid: int, cluster: int, cooperative: bool,
               args: list[Any]) -> str:
        cfg, _keep = self.config(grid, cluster, cooperative)
        params = (ctypes.c_void_p * len(args))(*(ctypes.addressof(a) for a in args))
        code = self.lib.cuLaunchKernelEx(ctypes.byref(cfg), ctypes.c_void_p(func), params,
                                         None)
        return "" if code == 0 else self.error(code)


def _kernels(cp: Any) -> dict[str, Any]:
    src = (Path(__file__).resolve().parent / "sync_latency.cu").read_text()
    mod = cp.RawModule(code=src, options=("-std=c++17",), enable_cooperative_groups=True)
    return {name: mod.get_function(name) for name in ("sl_barriers", "sl_chase")}


def _run(cp: Any, drv: Driver, kern: Any, grid: int, cluster: int, cooperative: bool,
         args: list[Any], iters: int, out: Any) -> tuple[float | None, int, str]:
    """ns per iteration (None if the launch failed), the cluster size the kernel saw, the
    error. ``args``: the kernel's arguments as ctypes values (``out`` the last)."""
    err = drv.launch(kern.kernel.ptr, grid, cluster, cooperative, args)
    if err:
        return None, 0, err
    try:
        cp.cuda.Device().synchronize()
    except cp.cuda.driver.CUDADriverError as e:  # a launch accepted, then failed
        return None, 0, str(e)
    span, seen = (int(x) for x in out.get())
    return span / iters, seen, ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=10000, help="barriers / loads per kernel")
    ap.add_argument("--blocks-per-sm", type=int, nargs="+", default=[1, 2, 4])
    ap.add_argument("--clusters", type=int, nargs="+", default=[2, 4, 8, 16])
    ap.add_argument("--out", default=str(common.ROOT / "bench_out"))
    args = ap.parse_args()
    import cupy as cp  # noqa: PLC0415

    info = common.machine_info()
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = int(props["multiProcessorCount"])
    info["device"] = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print(info)
    drv = Driver()
    kern = _kernels(cp)
    out = cp.zeros(2, dtype=cp.uint64)
    rows: list[dict[str, Any]] = []

    # dependent loads: a random cycle through 4 MB (L2) and 1 GiB (DRAM)
    rng = cp.random.RandomState(1)
    out_ptr = ctypes.c_uint64(out.data.ptr)
    for label, words, iters in (("L2 load (4 MB)", 1 << 20, args.iters * 10),
                                ("DRAM load (1 GiB)", 1 << 28, args.iters),
                                ("L2 atomic (4 MB)", 1 << 20, args.iters * 10)):
        order = rng.permutation(words).astype(cp.uint32)
        nxt = cp.empty(words, dtype=cp.uint32)
        nxt[order] = cp.roll(order, -1)
        mode = 1 if "atomic" in label else 0
        for _ in range(2):  # the second run: L2 warm where it fits
            ns, _, err = _run(cp, drv, kern["sl_chase"], 1, 1, False,
                              [ctypes.c_int(mode), ctypes.c_int(iters),
                               ctypes.c_uint64(nxt.data.ptr), out_ptr], iters, out)
        rows.append({"what": label, "grid": 1, "cluster": 1, "ns": ns, "error": err})
        del order, nxt

    fn = kern["sl_barriers"].kernel.ptr
    np_err = drv.allow_non_portable(fn)
    for bpsm in args.blocks_per_sm:
        grid = sms * bpsm
        for what, mode, cluster, coop in (("__syncthreads", 2, 1, False),
                                          ("grid.sync", 0, 1, True)):
            ns, seen, err = _run(cp, drv, kern["sl_barriers"], grid, cluster, coop,
                                 [ctypes.c_int(mode), ctypes.c_int(args.iters), out_ptr],
                                 args.iters, out)
            rows.append({"what": what, "blocks_per_sm": bpsm, "grid": grid, "cluster": seen,
                         "ns": ns, "error": err})
        for cluster in args.clusters:
            fit, ferr = drv.max_clusters(fn, sms * bpsm, cluster)
            g = min(grid // cluster, fit) * cluster
            for what, mode, coop in (("cluster.sync", 1, False),
                                     ("cluster.sync, cooperative launch", 1, True),
                                     ("grid.sync, cluster launch", 0, True)):
                if g == 0:
                    rows.append({"what": what, "blocks_per_sm": bpsm, "grid": 0,
                                 "cluster": cluster, "ns": None,
                                 "error": ferr or f"no cluster of {cluster} fits"
                                 + (f" ({np_err})" if np_err else "")})
                    continue
                ns, seen, err = _run(cp, drv, kern["sl_barriers"], g, cluster, coop,
                                     [ctypes.c_int(mode), ctypes.c_int(args.iters),
                                      out_ptr], args.iters, out)
                rows.append({"what": what, "blocks_per_sm": bpsm, "grid": g,
                             "cluster": seen or cluster, "max_clusters": fit, "ns": ns,
                             "error": err})
    print(common.markdown_table(
        ["what", "blocks/SM", "grid", "cluster", "ns each", "error"],
        [[r["what"], r.get("blocks_per_sm", ""), r["grid"], r["cluster"],
          "" if r["ns"] is None else f"{r['ns']:.0f}", r["error"]] for r in rows]))
    common.write_json(Path(args.out) / "sync_latency.json", {"machine": info, "rows": rows})


if __name__ == "__main__":
    main()
