"""The GPU side of :mod:`gblas.backend.scatter` (kernels in ``scatter.cu``): last-wins by
an atomic max of positions, and monoid accumulators folded with compare-and-swap. Nothing
is read back to the host."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ..dtypes import DataType
from ..semirings.codegen_cuda import c_type
from ..semirings.model import BinaryOp
from .cuda import BLOCK, _cp, _grid, module_kernel

_SOURCE = Path(__file__).with_name("scatter.cu")


def _dummy_bits(cp: Any) -> Any:
    return cp.zeros(1, dtype=np.bool_)


def scatter(bits: Any, vals: Any, idx: Any, u: tuple[Any, Any], accum: BinaryOp | None,
            out: DataType, u_dtype: DataType) -> bool:
    """Scatter u into (bits, vals) at ``idx`` (all CuPy); False when the accumulator is
    order-dependent (not a monoid) or needs a cast between steps: the caller then runs
    the sequential loop."""
    cp = _cp()
    ub, uv = u
    n, k = int(vals.shape[0]), int(idx.shape[0])
    dev = int(vals.device.id)
    full = ub is None
    tu, tc = c_type(uv.dtype), c_type(out)
    with cp.cuda.Device(dev):
        idx = cp.ascontiguousarray(idx, dtype=np.int64)
        ubits = _dummy_bits(cp) if full else cp.ascontiguousarray(ub, dtype=np.bool_)
        if accum is None:
            lastpos = cp.full(n, -1, dtype=np.int64)
            module_kernel(dev, "gb_scatter_lastpos", _SOURCE)(
                (_grid(k, dev),), (BLOCK,), (idx, np.int64(k), lastpos))
            module_kernel(dev, f"gb_scatter_last<{tu}, {tc}>", _SOURCE)(
                (_grid(n, dev),), (BLOCK,), (np.int64(n), lastpos, ubits, uv, np.int32(full),
                                             bits, vals))
            return True
        domain = accum.domain(out, u_dtype)
        op = accum.for_domain(domain)
        mon = op.monoid
        if (mon is None or mon.is_any or op.is_udf or op.opcode < 0 or domain != out
                or op.name in ("first", "second", "any")):
            return False
        ident = np.asarray(mon.identity(out)).astype(out.np_type)[()]
        module_kernel(dev, f"gb_scatter_prep<{tc}>", _SOURCE)(
            (_grid(k, dev),), (BLOCK,), (idx, np.int64(k), ubits, np.int32(full), bits, vals,
                                         ident))
        module_kernel(dev, f"gb_scatter_fold<{int(op.opcode)}, {tu}, {tc}>", _SOURCE)(
            (_grid(k, dev),), (BLOCK,), (idx, np.int64(k), ubits, uv, np.int32(full), bits,
                                         vals))
    return True


# Instantiations compiled by scripts/check_cuda.sh (nvcc -Xptxas -v: errors and spills)
CHECK_INSTANCES: dict[str, list[str]] = {"scatter.cu": [
    "gb_scatter_lastpos", "gb_scatter_last<long long, long long>",
    "gb_scatter_last<double, float>", "gb_scatter_prep<long long>", "gb_scatter_prep<bool>",
    "gb_scatter_fold<10, long long, long long>", "gb_scatter_fold<4, double, double>",
    "gb_scatter_fold<4, signed char, signed char>", "gb_scatter_fold<11, short, short>",
    "gb_scatter_fold<12, bool, bool>", "gb_scatter_fold<10, float, float>",
]}

__all__ = ["CHECK_INSTANCES", "scatter"]
