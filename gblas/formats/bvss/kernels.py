"""Registers the CPU mxv kernel of BVSS (the Numba emulation of the Tensor Core pull, see
cpu.py); importing ``cuda`` registers the device kernels (no CuPy needed to import it).

The kernel serves the ``pattern`` and ``pattern_bool`` traits (gblas.ops.dispatch) with
``direction="*"``: its work is proportional to the active column blocks (SpMSpV-like), so
it runs for push and pull alike whenever the matrix holds BVSS; any other semiring on a
BVSS matrix falls back to CSR. BVSS stores no values: every entry is 1 (true), as in
SlimSell, so a matrix with stored zeros (false) reads as all-true under ``pattern_bool``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...backend.registry import MxvCall, register_kernel, semiring_traits
from ..vector import SPARSE, VecData
from . import cpu, cuda  # noqa: F401 - importing cuda registers the device kernels


def _operand_bytes(rep: Any, x: VecData) -> np.ndarray:
    if x.kind == SPARSE:
        return cpu.operand_bytes(rep, indices=x.indices)
    return cpu.operand_bytes(rep, present=x.present_bits())


def _truthy_bytes(rep: Any, x: VecData) -> np.ndarray | None:
    """Bytes of x's present-and-true entries; None when every present value is true (then
    the value pass would repeat the presence pass)."""
    if x.kind == SPARSE:
        idx, vals = x.as_sparse()
        keep = vals != 0
        return None if bool(keep.all()) else cpu.operand_bytes(rep, indices=idx[keep])
    truthy = x.truthy_bits()
    if int(np.count_nonzero(truthy)) == x.nvals:
        return None
    return cpu.operand_bytes(rep, present=truthy)


def _constant_product(call: MxvCall) -> Any:
    """The product of a structure-only, non-positional multiply (pair, oneb): it reads no
    value, so any operands give it."""
    ks = call.ks
    one = np.ones(1, dtype=ks.domain.np_type)
    return np.asarray(ks.mult.np_func(one, one)).astype(ks.out_type.np_type).reshape(-1)[0]


def bvss_pull(call: MxvCall) -> VecData:
    rep, ks, x = call.rep, call.ks, call.x
    out_t = ks.out_type
    with cpu.threads_for(rep.slots + call.nrows):
        present = cpu.mxv_bytes(rep, _operand_bytes(rep, x), call.mask_bits, call.mask_comp)
        if semiring_traits(ks) == "pattern":
            values = np.full(call.nrows, _constant_product(call), dtype=out_t.np_type)
        elif not ks.uses_right:  # first(a, x) = a: every entry of BVSS is true
            values = np.ones(call.nrows, dtype=np.bool_)
        else:  # a AND x with a = true: the OR of the present in-neighbours' values
            tbytes = _truthy_bytes(rep, x)
            values = present.copy() if tbytes is None else cpu.mxv_bytes(
                rep, tbytes, call.mask_bits, call.mask_comp)
    return VecData.bitmap(call.nrows, out_t, present, values).normalized()


register_kernel("mxv", "bvss_pull_emulated", device="cpu", format="bvss", direction="*",
                traits="pattern|pattern_bool", fuses_mask=True)(bvss_pull)
