"""The canonical-form and range check of CSR arrays on a GPU, in one pass (``check.cu``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from ...backend.cuda import BLOCK, _cp, _grid, module_kernel

_SOURCE = Path(__file__).with_name("check.cu")
_LIMIT = np.iinfo(np.int64)


def check_csr(ptr: Any, idx: Any) -> tuple[bool, int, int, Any]:
    """(canonical, smallest column id, largest column id, the ids as int64) for CSR arrays
    on a GPU: ``ptr`` int64 of nrows + 1 entries from 0 to nnz, ``idx`` int32 or int64
    (an int64 ``idx`` is returned as the wide ids itself). Canonical: row pointers
    non-decreasing, ids strictly increasing within each row. One read back."""
    cp = _cp()
    nrows, nnz = int(ptr.shape[0]) - 1, int(idx.shape[0])
    dev = int(idx.device.id)
    with cp.cuda.Device(dev):
        out = cp.asarray(np.array([0, 0, _LIMIT.min, _LIMIT.max, 0], dtype=np.int64))
        wide = idx if idx.dtype == np.int64 else cp.empty(nnz, dtype=np.int64)
        kind = "long long" if idx.dtype == np.int64 else "int"
        module_kernel(dev, f"csr_check<{kind}>", _SOURCE)(
            (_grid(max(nnz, nrows), dev),), (BLOCK,),
            (ptr, np.int64(nrows), idx, np.int64(nnz),
             wide if wide is not idx else np.uint64(0), out))
        desc, starts, hi, lo, back = (int(x) for x in out.get())
    return desc == starts and back == 0, lo, hi, wide


# Instantiations compiled by scripts/check_cuda.sh (nvcc -Xptxas -v: errors and spills)
CHECK_INSTANCES: dict[str, list[str]] = {"check.cu": ["csr_check<int>", "csr_check<long long>"]}

__all__ = ["CHECK_INSTANCES", "check_csr"]
