"""Element-wise CUDA kernels for vector storage (CuPy ``ElementwiseKernel``).

One fused pass where the array code would make several: each array operation is a launch
and a full read and write of its operands. A factory builds each kernel once (CuPy then
compiles it once per device and dtype and caches the binary), as cupyx.scipy.sparse does.
Used by ``gblas.ops.entries`` and ``gblas.ops.writeback`` when the arrays are CuPy's.
"""

from __future__ import annotations

import functools
from typing import Any


def _cp() -> Any:
    import cupy  # noqa: PLC0415 - only with device arrays

    return cupy


@functools.cache
def fill_masked_kernel() -> Any:
    """(mask, value, bits, vals): where mask, set bits and store value; elsewhere unchanged
    (the outputs are updated in place)."""
    return _cp().ElementwiseKernel(
        "bool m, T value", "bool bits, T vals",
        "if (m) { bits = true; vals = value; }",
        "gblas_fill_masked")


@functools.cache
def masked_merge_kernel() -> Any:
    """(allowed, zb, zv, cb, cv, keep) -> (rb, rv): the write-back of a dense result under a
    mask: where allowed, the result's entry; elsewhere C's, kept only if ``keep`` (not
    replace). One pass instead of four ``where``/logical operations."""
    return _cp().ElementwiseKernel(
        "bool allowed, bool zb, T zv, bool cb, T cv, bool keep", "bool rb, T rv",
        "if (allowed) { rb = zb; rv = zv; } else { rb = keep && cb; rv = cv; }",
        "gblas_masked_merge")
