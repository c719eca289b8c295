"""mxm: C = A ⊕.⊗ B, masked (dot products at the mask's entries) or Gustavson."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from .._device import device_kind, same_device
from ..core.expr import Expression, Result
from ..core.mask import Mask
from ..exceptions import DimensionMismatch, NotImplementedForFormat
from ..formats.csr.convert import csr_from_keys, csr_keys
from ..semirings.model import resolve_semiring
from .dispatch import MxmCall, find_kernel, semiring_traits
from .plan import record
from .validate import as_semiring, require


def mask_pattern(mask: Mask) -> Any:
    """CSR pattern of the mask's true entries (complement not applied)."""

    csr = mask.parent._csr()
    if mask.structure:
        return csr
    keys = csr_keys(csr)
    vals = csr.full_values()
    keep = vals != 0
    return csr_from_keys(csr.nrows, csr.ncols, keys[keep], vals[keep], csr.dtype)


def mxm_expr(A: Any, B: Any, op: Any) -> Expression:  # noqa: N803
    require(A, "matrix", "mxm")
    require(B, "matrix", "mxm")
    sr = as_semiring(op, "mxm")
    if A.ncols != B.nrows:
        raise DimensionMismatch(
            f"mxm: {A.name} is {A.nrows}x{A.ncols} and {B.name} is {B.nrows}x{B.ncols}; "
            "the inner dimensions must agree"
        )
    dev = same_device(A, B)
    ks = resolve_semiring(sr, A.dtype, B.dtype)

    def compute(mask: Mask | None, desc: Any) -> Result:
        a, b = A, B
        if desc is not None and desc.transpose_first:
            a = a.T
        if desc is not None and desc.transpose_second:
            b = b.T
        k = ks if desc is None or desc.early_exit else replace(ks, has_terminal=False)
        strategy = "dot" if mask is not None and not mask.complement else "gustavson"
        key = {"device": device_kind(dev), "traits": semiring_traits(k),
               "mask": mask.kind if mask is not None else "none", "direction": strategy}
        reg = find_kernel("mxm", format="csr", **key)
        if reg is None:
            raise NotImplementedForFormat(f"no mxm kernel for {key}")
        call = MxmCall(a._csr(), b._csr(), b._csr_T, k,
                       None if mask is None else mask_pattern(mask),
                       bool(mask is not None and mask.complement))
        T = reg.func(call)  # noqa: N806
        record(desc, "mxm", reg.name, strategy, "csr")
        return Result(T, mask_applied=reg.fuses_mask and mask is not None)

    return Expression("mxm", 2, (A.nrows, B.ncols), ks.out_type, dev, compute, (A, B))


__all__ = ["mxm_expr", "mask_pattern"]
