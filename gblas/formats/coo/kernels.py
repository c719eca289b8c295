"""Registers the COO kernels (edge-parallel mxv over the row-sorted entries)."""

from __future__ import annotations

from ...backend.registry import MxvCall, register_kernel
from ...backend.threads import threads_for
from ..vector import VecData
from . import cpu


@register_kernel("mxv", "coo_edge_spmv", device="cpu", format="coo", traits="builtin|udf",
                 fuses_mask=True)
def _mxv_coo(call: MxvCall) -> VecData:
    xb, xv = call.x.as_bitmap()
    with threads_for(call.rep.nnz + call.nrows):
        present, values = cpu.mxv_coo(call.rep, xb, xv if call.ks.uses_right else None,
                                      call.mask_bits, call.mask_comp, call.ks)
    return VecData.bitmap(call.nrows, call.ks.out_type, present, values).normalized()
