"""CUDA (CuPy) element-wise union and intersection of two CSR matrices by a merge of each
row pair (``ewise.cu``): no global row-major keys, sort or searches (a union of two
64 M-entry matrices on an H100 took 39 ms that way, 27× the time its bytes need).

Built-in and positional operators only; user-defined ones keep the key path of
:mod:`gblas.ops.ewise`, and so do matrices whose entries sit in a few long rows (a k × n
matrix of betweenness' levels: a thread per row would do all of it on k threads). One
read of the result's size (to allocate it), as any element-wise operation on matrices
makes, and one of the longest row on matrices of more than ``LONG_ROW`` entries.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ...backend.cuda import BLOCK, _b, _cp, _dev_id, _grid, module_kernel
from ...dtypes import DataType
from ...semirings.codegen_cuda import c_type
from ...semirings.model import BinaryOp
from .container import CSR

_SOURCE = Path(__file__).with_name("ewise.cu")
# rows longer than this, when one is also over 1/64 of all entries, take the key path
LONG_ROW = 8192


def _operator(op: BinaryOp) -> tuple[int, int, int] | None:
    """(opcode, position kind, offset) of the kernel's template; None: no CUDA form."""
    if op.positional:
        return 0, (1 if op.positional in ("firsti", "secondi") else 2), int(op.offset)
    if op.opcode < 0 or op.is_udf:
        return None
    return int(op.opcode), 0, 0


def merge_rows(A: CSR, B: CSR, union: bool, op: BinaryOp, domain: DataType,  # noqa: N803
               out: DataType) -> CSR | None:
    """A ∪ B (``union``: ewise_add) or A ∩ B (ewise_mult) with op(a, b) where both have an
    entry and an operand's own value (cast) where only it has one; None when ``op`` has no
    CUDA form or a few rows hold most entries (a thread per row would serialise them)."""
    code = _operator(op.for_domain(domain))
    if code is None:
        return None
    cp = _cp()
    dev = _dev_id(A.indptr)
    n = A.nrows
    u = _b(union)
    with cp.cuda.Device(dev):
        if n and A.nnz + B.nnz > LONG_ROW:  # else no row can be long
            # a thread merges a row: few long rows (betweenness' k × n levels) would leave
            # a handful of threads doing all the work (11 s at kron:22): sorted keys then
            longest = int(cp.maximum(cp.diff(A.indptr), cp.diff(B.indptr)).max())
            if longest > LONG_ROW and longest * 64 > A.nnz + B.nnz:
                return None
        a_ptr, a_idx, b_ptr, b_idx = (cp.ascontiguousarray(x, dtype=np.int64)
                                      for x in (A.indptr, A.indices, B.indptr, B.indices))
        counts = cp.empty(n, dtype=np.int64)
        grid = (_grid(n, dev),)
        module_kernel(dev, f"csr_merge_count<{u}>", _SOURCE)(
            grid, (BLOCK,), (np.int64(n), a_ptr, a_idx, b_ptr, b_idx, counts))
        indptr = cp.zeros(n + 1, dtype=np.int64)
        cp.cumsum(counts, out=indptr[1:])
        nnz = int(indptr[-1])  # the result's size: read to allocate it
        o_idx = cp.empty(nnz, dtype=np.int64)
        o_val = cp.empty(nnz, dtype=out.np_type)
        av, bv = A.full_values(), B.full_values()
        expr = (f"csr_merge_fill<{u}, {code[0]}, {code[1]}, {code[2]}, {c_type(av.dtype)}, "
                f"{c_type(bv.dtype)}, {c_type(domain.np_type)}, {c_type(out.np_type)}>")
        module_kernel(dev, expr, _SOURCE)(
            grid, (BLOCK,), (np.int64(n), a_ptr, a_idx, av, b_ptr, b_idx, bv, indptr, o_idx,
                             o_val))
    return CSR(A.nrows, A.ncols, indptr, o_idx, o_val, out)


# Instantiations compiled by scripts/check_cuda.sh (nvcc -Xptxas -v: errors and spills)
CHECK_INSTANCES: dict[str, list[str]] = {"ewise.cu": [
    "csr_merge_count<true>", "csr_merge_count<false>",
    "csr_merge_fill<true, 4, 0, 0, double, double, double, double>",  # plus
    "csr_merge_fill<false, 7, 0, 0, long long, double, double, double>",  # times, mixed
    "csr_merge_fill<true, 12, 0, 0, bool, bool, bool, bool>",  # lor
    "csr_merge_fill<false, 0, 1, 0, float, float, float, long long>",  # firsti
    "csr_merge_fill<true, 16, 0, 0, int, int, int, bool>",  # eq
]}

__all__ = ["CHECK_INSTANCES", "LONG_ROW", "merge_rows"]
