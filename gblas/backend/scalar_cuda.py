"""``s(accum) << t`` for a Scalar whose value (or t) is still on the GPU, on the GPU: one
one-thread kernel writes the new [value, present] pair, so that nothing waits for the
device (the read there stalled a loop that sums a reduction and a constant into one
scalar before filling a vector with it). An operand on the host enters as a kernel
argument. The source is generated per (accumulator, types) and memoised per device, like
:mod:`gblas.backend.reduce_cuda`.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..dtypes import DataType
from ..semirings.codegen_cuda import c_type, functor_source
from ..semirings.model import BinaryOp
from .cuda import _cp
from .dense import DeviceScalar

_KERNEL = r"""
// z = c accum t where both are present, else whichever is; each operand either a device
// pair [value, present] (dev != 0) or the value and presence given as arguments
extern "C" __global__ void gb_scalar_accum(const TC* c, int c_dev, TC c_v, int c_has,
                                           const TT* t, int t_dev, TT t_v, int t_has,
                                           TC* out) {
  const TC cv = c_dev ? c[0] : c_v;
  const bool ch = c_dev ? c[1] != (TC)0 : c_has != 0;
  const TT tv = t_dev ? t[0] : t_v;
  const bool th = t_dev ? t[1] != (TT)0 : t_has != 0;
  TC z = cv;
  if (ch && th) {
    z = (TC)gb_mult<GB_ACC, TDA, TDA>((TDA)cv, (TDA)tv, 0LL, 0LL, 0LL);
  } else if (th) {
    z = (TC)tv;
  }
  out[0] = z;
  out[1] = (ch || th) ? (TC)1 : (TC)0;
}
"""


@functools.cache
def _kernel(device_id: int, tc: str, tt: str, tda: str, acc: int) -> Any:
    cp = _cp()
    src = (functor_source() + f"typedef {tc} TC;\ntypedef {tt} TT;\ntypedef {tda} TDA;\n"
           f"#define GB_ACC {acc}\n" + _KERNEL)
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(code=src, options=("-std=c++17",))
        return mod.get_function("gb_scalar_accum")


def _operand(x: DeviceScalar | tuple[Any, bool], dtype: DataType, dummy: Any
             ) -> tuple[Any, ...]:
    """(pointer, on device, value, present) kernel arguments of one operand."""
    if isinstance(x, DeviceScalar):
        return x.buf, np.int32(1), np.dtype(dtype.np_type).type(0), np.int32(0)
    value, present = x
    v = np.dtype(dtype.np_type).type(value if present and value is not None else 0)
    return dummy, np.int32(0), v, np.int32(bool(present and value is not None))


def accumulate_scalar(accum: BinaryOp, c: DeviceScalar | tuple[Any, bool], c_dtype: DataType,
                      t: DeviceScalar | tuple[Any, bool], t_dtype: DataType,
                      device_id: int) -> DeviceScalar | None:
    """``c accum t`` (GraphBLAS: t alone where c is empty, c where t is) as a DeviceScalar of
    c's type, computed on device ``device_id``; None when the accumulator has no CUDA form
    (user-defined, positional)."""
    domain = accum.domain(c_dtype, t_dtype)
    op = accum.for_domain(domain)
    if op.positional or op.opcode < 0 or op.is_udf:
        return None
    cp = _cp()
    kern = _kernel(device_id, c_type(c_dtype.np_type), c_type(t_dtype.np_type),
                   c_type(domain.np_type), int(op.opcode))
    with cp.cuda.Device(device_id):
        out = cp.empty(2, dtype=c_dtype.np_type)
        kern((1,), (1,), _operand(c, c_dtype, out) + _operand(t, t_dtype, out) + (out,))
    return DeviceScalar(out, c_dtype, surely_present=_surely(c) or _surely(t))


def _surely(x: DeviceScalar | tuple[Any, bool]) -> bool:
    if isinstance(x, DeviceScalar):
        return x.surely_present
    return bool(x[1] and x[0] is not None)


__all__ = ["accumulate_scalar"]
