"""CUDA (CuPy) kernels of the BVSS format: the mxv of a pattern semiring (``mxv.cu``) and the
whole direction-optimising BFS with BVSS pull levels (``bfs_tc.cu``); the device code they
share is ``bvss_common.cuh`` (design notes there and in docs/bvss.md).

The slice test runs on 1-bit Tensor Cores (``mma.sync ... m8n8k128 ... and.popc``, sm_80+)
or on CUDA cores (popcount), by the config key ``bvss_variant`` ("auto": Tensor Cores where
the instruction exists). Kernels are compiled once per (device, file, instantiation) with
``cupy.RawModule(name_expressions=[...])`` and memoised, as the CSR kernels are; the local
``#include``s are inlined first, so CuPy's compile cache keys the whole text.

Registered for ``device="cuda"``, format ``"bvss"``, pattern semirings (``any_pair``,
``lor_land``, ...; the dispatch traits ``pattern`` / ``pattern_bool``), every mask kind
(fused: the finalisation pass applies it).
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import numpy as np

from ..._config import get as config_get
from ...backend.cuda import inline_includes
from ...backend.registry import MxvCall, register_kernel
from ..csr.cuda import _cp, _grid  # grid-stride launch shape: at most 32 blocks per SM
from ..vector import VecData

_HERE = Path(__file__).parent
_BLOCK = 256
# template instantiations compiled by scripts/check_cuda.sh (nvcc, sm_90) in CI
CHECK_INSTANCES = {"mxv.cu": ["bvss_process<true>", "bvss_process<false>"],
                   "bfs_tc.cu": ["bfs_bvss<true>", "bfs_bvss<false>"]}
LAST_VARIANT: list[str] = [""]  # the slice test the last BVSS kernel used ("tc"/"popcount")


@functools.cache
def get_kernel(device_id: int, name: str, expr: str, cooperative: bool = False) -> Any:
    """The compiled kernel ``expr`` of the .cu file ``name`` beside this module, for device
    ``device_id``; memoised per (device, file, instantiation)."""
    cp = _cp()
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(code=inline_includes(_HERE / name), options=("-std=c++17",),
                           name_expressions=[expr], enable_cooperative_groups=cooperative)
        return mod.get_function(expr)


@functools.cache
def has_mma(device_id: int) -> bool:
    """Whether the device has the 1-bit ``and.popc`` MMA (compute capability >= 8.0)."""
    props = _cp().cuda.runtime.getDeviceProperties(device_id)
    return int(props.get("major", 0)) >= 8


def use_tc(device_id: int) -> bool:
    """The slice test to run: Tensor Cores or CUDA-core popcounts (config ``bvss_variant``)."""
    variant = config_get("bvss_variant")
    tc = has_mma(device_id) if variant == "auto" else variant == "tc"
    LAST_VARIANT[0] = "tc" if tc else "popcount"
    return tc


def _pattern_bits(rep: Any, xbits: Any, call: MxvCall, tc: bool) -> Any:
    """bool[nrows]: rows of ``rep`` with a stored column where ``xbits`` is set, under the
    call's mask (three launches, no host read)."""
    cp = _cp()
    dev = int(rep.masks.device.id)
    nsets, nrows = rep.nsets, rep.nrows
    use_perm = rep.perm is not None
    perm = rep.perm if use_perm else cp.zeros(1, dtype=np.int64)
    vq = cp.empty((max(rep.nvss, 1), 2), dtype=np.int64)  # longlong2 entries
    vq_len = cp.zeros(1, dtype=np.uint64)
    seen = cp.zeros(max((nrows + 31) // 32, 1), dtype=np.uint32)
    get_kernel(dev, "mxv.cu", "bvss_pack")(
        (_grid(nsets, dev),), (_BLOCK,),
        (cp.ascontiguousarray(xbits, dtype=np.bool_), perm, np.int32(use_perm),
         np.int64(rep.ncols), np.int64(nsets), rep.set_ptr, rep.vss_ptr, vq, vq_len))
    get_kernel(dev, "mxv.cu", f"bvss_process<{'true' if tc else 'false'}>")(
        (_grid(32 * rep.nvss, dev),), (_BLOCK,), (rep.row_ids, rep.masks, vq, vq_len, seen))
    mask = call.mask_bits
    use_mask = mask is not None
    out = cp.empty(nrows, dtype=np.bool_)
    get_kernel(dev, "mxv.cu", "bvss_finalise")(
        (_grid(nrows, dev),), (_BLOCK,),
        (seen, perm, np.int32(use_perm), np.int64(nrows),
         cp.ascontiguousarray(mask, dtype=np.bool_) if use_mask else cp.zeros(1, np.bool_),
         np.int32(use_mask), np.int32(bool(call.mask_comp)), out))
    return out


@register_kernel("mxv", "cuda_bvss_pull", device="cuda", format="bvss",
                 traits="pattern|pattern_bool", fuses_mask=True)
def mxv_bvss(call: MxvCall) -> VecData:
    """T = M ⊕.⊗ x for a pattern semiring over the BVSS of M: presence from x's present
    bits; the value is the constant product (pattern) or, for lor_land-like semirings, the
    OR of x's values over the present in-neighbours (a second pass on x's true bits, run
    only when some present value is false)."""
    cp = _cp()
    rep, ks = call.rep, call.ks
    out_t = ks.out_type.np_type
    tc = use_tc(int(rep.masks.device.id))
    xb, xv = call.x.as_bitmap()
    present = _pattern_bits(rep, xb, call, tc)
    if ks.uses_right:  # pattern_bool (land, second, ...): x's value matters; first: 1
        truthy = cp.logical_and(xb, xv.astype(np.bool_, copy=False))
        if bool((truthy == xb).all()):
            vals = present.astype(out_t)
        else:
            vals = _pattern_bits(rep, truthy, call, tc).astype(out_t)
    else:
        vals = cp.ones(call.nrows, dtype=out_t)
    return VecData.bitmap(call.nrows, ks.out_type, present, vals).normalized()
