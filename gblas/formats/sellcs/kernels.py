"""Registers the Sell-C-σ CPU mxv kernel (Numba, see cpu.py) with the dispatch registry;
importing ``cuda`` registers the CUDA kernels of both Sell formats (no CuPy needed to
import it).

The kernel is registered for ``direction="*"``: the planner runs it as pull whenever the
matrix holds this format (Sell-C-σ is a row format; its transpose serves vxm).
"""

from __future__ import annotations

from ...backend.registry import MxvCall, register_kernel
from ...backend.threads import threads_for
from ..vector import VecData
from . import cpu, cuda  # noqa: F401 - importing cuda registers the device kernels


def mxv(call: MxvCall) -> VecData:
    xb, xv = call.x.as_bitmap()
    with threads_for(call.rep.cells + call.nrows):
        present, values = cpu.mxv_pull(call.rep, xb, xv if call.ks.uses_right else None,
                                       call.mask_bits, call.mask_comp, call.ks)
    return VecData.bitmap(call.nrows, call.ks.out_type, present, values).normalized()


register_kernel("mxv", "sellcs_pull_structural", device="cpu", format="sellcs",
                traits="structural", fuses_mask=True)(mxv)
register_kernel("mxv", "sellcs_pull_spmv", device="cpu", format="sellcs",
                traits="builtin|udf", fuses_mask=True)(mxv)
