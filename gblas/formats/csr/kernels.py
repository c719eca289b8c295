"""Registers the CSR kernels with the dispatch registry (CPU: Numba, see cpu.py and
mxm_cpu.py)."""

from __future__ import annotations

from ...backend.registry import MxmCall, MxvCall, register_kernel
from ...backend.threads import threads_for
from ..vector import VecData
from . import cpu, mxm_cpu
from .container import CSR


def _pull(call: MxvCall) -> VecData:
    xb, xv = call.x.as_bitmap()
    with threads_for(call.rep.nnz + call.nrows):
        present, values = cpu.mxv_pull(call.rep, xb, xv if call.ks.uses_right else None,
                                       call.mask_bits, call.mask_comp, call.ks)
    return VecData.bitmap(call.nrows, call.ks.out_type, present, values).normalized()


def _push(call: MxvCall) -> VecData:
    xi, xv = call.x.as_sparse()
    if cpu.push_parallel_applies(call.rep, xi, call.nrows, call.ks):
        dense = cpu.mxv_push_parallel(call.rep, xi, call.nrows, call.mask_bits,
                                      call.mask_comp, call.ks, checked=True)
        return VecData.bitmap(call.nrows, call.ks.out_type, *dense).normalized()
    # a sparse structural mask goes in as its keys: no bool array of nrows is made
    keys = call.mask_keys
    idx, values = cpu.mxv_push(call.rep, xi, xv if call.ks.uses_right else None, call.nrows,
                               None if keys is not None else call.mask_bits, call.mask_comp,
                               call.ks, mask_keys=keys)
    return VecData.sparse(call.nrows, call.ks.out_type, idx, values).normalized()


# The structure-only registrations exist so that the plan names the BFS path it took.
register_kernel("mxv", "csr_pull_structural", device="cpu", format="csr", direction="pull",
                traits="structural", fuses_mask=True)(_pull)
register_kernel("mxv", "csr_pull_spmv", device="cpu", format="csr", direction="pull",
                traits="builtin|udf", fuses_mask=True)(_pull)
register_kernel("mxv", "csr_push_structural", device="cpu", format="csr", direction="push",
                traits="structural", fuses_mask=True)(_push)
register_kernel("mxv", "csr_push_spmspv", device="cpu", format="csr", direction="push",
                traits="builtin|udf", fuses_mask=True)(_push)


@register_kernel("mxm", "csr_masked_dot", device="cpu", format="csr", direction="dot",
                 mask="structural|value", traits="builtin|udf", fuses_mask=True)
def _mxm_dot(call: MxmCall) -> CSR:
    A, BT, M = call.a, call.b_t(), call.mask  # noqa: N806
    with threads_for(A.nnz + BT.nnz + M.nnz):
        return mxm_cpu.mxm_masked_dot(A, BT, M, call.ks)


@register_kernel("mxm", "csr_gustavson", device="cpu", format="csr", traits="builtin|udf",
                 fuses_mask=True)
def _mxm_gustavson(call: MxmCall) -> CSR:
    A, B = call.a, call.b  # noqa: N806
    with threads_for(A.nnz + B.nnz):
        return mxm_cpu.mxm_gustavson(A, B, call.mask, call.mask_comp, call.ks)
