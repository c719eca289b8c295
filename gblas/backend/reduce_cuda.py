"""Reduction of a dense vector (bitmap or full) to a scalar on the GPU, left on the device.

One launch and no read: each block folds a grid-stride share of the positions (in
increasing order per thread) and writes a partial (present, value, position); the last
block to finish folds the partials and writes the value and its presence to a 2-element
device array (:class:`gblas.backend.dense.DeviceScalar`). Monoids fold with the generated ``gb_add``
functor; ``any``/``first`` keep the value of the smallest position and ``second`` that of
the largest, as the CPU does. The source is generated per (monoid, types) and memoised
per device, like :mod:`gblas.backend.dense_cuda`.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ..dtypes import DataType
from ..semirings.codegen_cuda import c_type, functor_source
from ..semirings.model import BinaryOp, Monoid
from .cuda import BLOCK, _cp
from .dense import DeviceScalar

_KERNEL = r"""
struct gb_part { bool has; TZ v; long long at; };

__device__ __forceinline__ gb_part gb_combine(gb_part x, gb_part y) {
  if (!y.has) return x;
  if (!x.has) return y;
#if GB_KEEP == 1
  return y.at < x.at ? y : x;
#elif GB_KEEP == 2
  return y.at > x.at ? y : x;
#else
  x.v = gb_add<GB_AOP, TZ>(x.v, y.v);
  return x;
#endif
}

__device__ __forceinline__ gb_part gb_block(gb_part p) {
  __shared__ bool s_has[GB_BLOCK];
  __shared__ TZ s_v[GB_BLOCK];
  __shared__ long long s_at[GB_BLOCK];
  const int t = threadIdx.x;
  s_has[t] = p.has; s_v[t] = p.v; s_at[t] = p.at;
  __syncthreads();
  for (int off = GB_BLOCK / 2; off > 0; off >>= 1) {
    if (t < off) {
      gb_part a = {s_has[t], s_v[t], s_at[t]};
      gb_part b = {s_has[t + off], s_v[t + off], s_at[t + off]};
      a = gb_combine(a, b);
      s_has[t] = a.has; s_v[t] = a.v; s_at[t] = a.at;
    }
    __syncthreads();
  }
  gb_part r = {s_has[0], s_v[0], s_at[0]};
  return r;
}

// the value at i: A's (cast), or with GB_DOT the product a(i) (x) b(i) where both exist.
// Every block writes its partial; the last block to finish (a counter, reset by it for the
// next reduction on the stream) folds the partials in block order and writes the result:
// one launch for the whole reduction.
extern "C" __global__ void gb_reduce(const long long n, const int full,
                                     const bool* bits, const TA* vals,
                                     const int b_full, const bool* b_bits,
                                     const TB* b_vals,
                                     bool* p_has, TZ* p_v, long long* p_at,
                                     unsigned* done, TZ* out) {
  gb_part acc = {false, TZ(), 0};
  const long long stride = (long long)gridDim.x * blockDim.x;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
#if GB_DOT
    if ((full || bits[i]) && (b_full || b_bits[i])) {
      gb_part x = {true, gb_mult<GB_MOP, TD, TZ>((TD)vals[i], (TD)b_vals[i], i, 0LL, 0LL), i};
      acc = gb_combine(acc, x);
    }
#else
    if (full || bits[i]) {
      gb_part x = {true, (TZ)vals[i], i};
      acc = gb_combine(acc, x);
    }
#endif
  }
  acc = gb_block(acc);
  __shared__ bool s_last;
  if (threadIdx.x == 0) {
    p_has[blockIdx.x] = acc.has; p_v[blockIdx.x] = acc.v; p_at[blockIdx.x] = acc.at;
    __threadfence();  // the partial is visible before the count says so
    s_last = atomicAdd(done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!s_last) return;
  __threadfence();
  gb_part tot = {false, TZ(), 0};
  for (int i = threadIdx.x; i < (int)gridDim.x; i += blockDim.x) {
    gb_part x = {((volatile bool*)p_has)[i], ((volatile TZ*)p_v)[i],
                 ((volatile long long*)p_at)[i]};
    tot = gb_combine(tot, x);
  }
  tot = gb_block(tot);
  if (threadIdx.x == 0) {  // [value, present]
    out[0] = tot.v;
    out[1] = tot.has ? (TZ)1 : (TZ)0;
    *done = 0u;
  }
}
"""

# partial results: up to 1024 blocks (8 of 256 threads an SM on an H100: full occupancy;
# with 256 a PageRank reduction of one or two 4 M-element FP64 vectors took 30 µs against
# 11-22 µs to read them); the final fold is the last block's
MAX_PARTS = 4 * BLOCK


def _keep(m: Monoid) -> int | None:
    """0: fold with the monoid's opcode; 1: the first value; 2: the last; None: no CUDA form
    (user-defined monoids)."""
    name = m.binaryop.name
    if m.is_any or name in ("first", "any"):
        return 1
    if name == "second":
        return 2
    if m.binaryop.opcode < 0 or m.binaryop.is_udf:
        return None
    return 0


@functools.cache
def _kernels(device_id: int, ta: str, tz: str, aop: int, keep: int,
             dot: tuple[int, str, str] | None = None) -> Any:
    """The kernel for (input type, result type, monoid[, the dot's multiply opcode,
    domain and B's type]), compiled once per device."""
    cp = _cp()
    mop, td, tb = dot if dot is not None else (0, "bool", "bool")
    src = (functor_source() + f"typedef {ta} TA;\ntypedef {tz} TZ;\ntypedef {tb} TB;\n"
           f"typedef {td} TD;\n#define GB_AOP {aop}\n#define GB_KEEP {keep}\n"
           f"#define GB_BLOCK {BLOCK}\n#define GB_DOT {int(dot is not None)}\n"
           f"#define GB_MOP {mop}\n" + _KERNEL)
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(code=src, options=("-std=c++17",))
        return mod.get_function("gb_reduce")


def reduce_dense(m: Monoid, bits: Any, vals: Any, out: DataType,
                 dot: tuple[BinaryOp, DataType, Any, Any] | None = None
                 ) -> DeviceScalar | None:
    """⊕ of the present values (``bits`` None: all) as a DeviceScalar of type ``out``;
    with ``dot`` = (multiply, its domain, B's bits, B's values) the ⊕ of a(i) ⊗ b(i) over
    the positions both have (an inner product, T never stored). None when the monoid or
    the multiply has no CUDA form."""
    keep = _keep(m)
    if keep is None:
        return None
    dot_key = None
    b_bits = b_vals = None
    if dot is not None:
        mult, domain, b_bits, b_vals = dot
        mult = mult.for_domain(domain)
        if mult.opcode < 0 or mult.is_udf or mult.positional:
            return None
        dot_key = (int(mult.opcode), _ctype(domain.np_type), _ctype(b_vals.dtype))
    cp = _cp()
    n = int(vals.shape[0])
    dev = int(vals.device.id)
    kernel = _kernels(dev, _ctype(vals.dtype), _ctype(out.np_type), int(m.binaryop.opcode),
                      keep, dot_key)
    nparts = int(max(1, min(MAX_PARTS, (n + BLOCK - 1) // BLOCK)))
    p_has, p_v, p_at, done = _partials(dev, out.np_type, cp.cuda.get_current_stream().ptr)
    with cp.cuda.Device(dev):
        full = bits is None
        b_full = b_bits is None
        res = cp.empty(2, dtype=out.np_type)
        kernel((nparts,), (BLOCK,), (np.int64(n), np.int32(full), vals if full else bits, vals,
                                     np.int32(b_full), vals if b_full else b_bits,
                                     vals if b_vals is None else b_vals, p_has, p_v, p_at, done,
                                     res))
    # a full vector (and a full B for the dot) of at least one element has a value
    return DeviceScalar(res, out, surely_present=n > 0 and full and b_full)


@functools.cache
def _ctype(dtype: Any) -> str:
    return c_type(dtype)


@functools.cache
def _partials(device_id: int, dtype: Any, stream: int) -> tuple[Any, Any, Any, Any]:
    """Per device, type and stream: the blocks' partial results and the count of blocks
    done (reused: the stream orders one reduction's final fold, which resets the count,
    before the next one's partials)."""
    cp = _cp()
    with cp.cuda.Device(device_id):
        return (cp.empty(MAX_PARTS, dtype=np.bool_), cp.empty(MAX_PARTS, dtype=dtype),
                cp.empty(MAX_PARTS, dtype=np.int64), cp.zeros(1, dtype=np.uint32))


__all__ = ["reduce_dense"]
