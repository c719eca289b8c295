"""Registers the SlimSell CPU mxv kernel (the Sell-C-σ kernel reading no values: every
entry is 1 of the multiply's domain) with the dispatch registry."""

from __future__ import annotations

from ...backend.registry import register_kernel
from ..sellcs.kernels import mxv

register_kernel("mxv", "slimsell_pull_structural", device="cpu", format="slimsell",
                traits="structural", fuses_mask=True)(mxv)
register_kernel("mxv", "slimsell_pull_spmv", device="cpu", format="slimsell",
                traits="builtin|udf", fuses_mask=True)(mxv)
