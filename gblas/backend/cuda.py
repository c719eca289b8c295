"""CUDA plumbing shared by the formats and the array algebra: the memoised RawModule factory,
the launch shape, and the segmented reduction.

Every ``.cu`` file is compiled with the generated semiring functors prepended
(``gblas.semirings.codegen_cuda``); each instantiation (kernel, opcodes, types) is compiled
once per device with ``cupy.RawModule(name_expressions=[...])`` and memoised (CuPy also
caches the cubin on disk), as cupyx.scipy.sparse does.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

import numpy as np

from ..semirings.codegen_cuda import c_type, functor_source

BLOCK = 256
_SEGMENT = Path(__file__).with_name("segment.cu")


def _cp() -> Any:
    import cupy  # noqa: PLC0415 - only imported when a GPU kernel runs

    return cupy


_INCLUDE = re.compile(r'^#include "([^"]+)"[ \t]*$', re.M)
HEADERS = Path(__file__).parent  # headers shared by several folders (bfs_rule.cuh)


def inline_includes(path: Path) -> str:
    """The text of the .cu or .cuh file ``path`` with every ``#include "name"`` replaced by
    that file's text (found beside the including file, else in gblas/backend), recursively,
    with ``#line`` markers for the compiler's messages: CuPy keys its compile cache by the
    source it is given, so an edit of a header must change that source."""
    text = path.read_text()

    def one(m: re.Match[str]) -> str:
        name = m[1]
        found = next((d / name for d in (path.parent, HEADERS) if (d / name).is_file()), None)
        if found is None:
            raise FileNotFoundError(f"{path.name} includes {name!r}, found neither beside "
                                    f"it nor in {HEADERS}")
        line = text[:m.start()].count("\n") + 2
        return (f'#line 1 "{name}"\n' + inline_includes(found)
                + f'\n#line {line} "{path.name}"')

    return _INCLUDE.sub(one, text)


@functools.cache
def module_source(path: Path) -> str:
    """The semiring functors followed by the kernels of the .cu file ``path``."""
    return functor_source() + path.read_text()


@functools.cache
def module_kernel(device_id: int, expr: str, path: Path) -> Any:
    """The compiled kernel ``expr`` (e.g. ``mxv_pull<4, 1, double, double, true, true>``)
    of the .cu file ``path`` for device ``device_id``; memoised per (device, instantiation,
    file)."""
    cp = _cp()
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(code=module_source(path), options=("-std=c++17",),
                           name_expressions=[expr])
        return mod.get_function(expr)


def _b(flag: bool) -> str:
    return "true" if flag else "false"


def _dev_id(arr: Any) -> int:
    return int(arr.device.id)


@functools.cache
def _sm_count(device_id: int) -> int:
    cp = _cp()
    return int(cp.cuda.runtime.getDeviceProperties(device_id)["multiProcessorCount"])


def _grid(n: int, device_id: int, per_thread: int = 1) -> int:
    """Blocks for a grid-stride loop over ``n`` items (capped at 32 blocks per SM)."""
    want = max(1, (n * per_thread + BLOCK - 1) // BLOCK)
    return int(min(want, 32 * _sm_count(device_id)))


def segment_reduce(add_op: int, values: Any, starts: Any, out_dtype: Any) -> Any:
    """out[s] = ⊕ values[starts[s]:starts[s+1]] for a built-in monoid opcode (CuPy)."""
    cp = _cp()
    out = np.dtype(out_dtype)
    nseg = int(starts.shape[0])
    res = cp.empty(nseg, dtype=out)
    if nseg == 0:
        return res
    dev = _dev_id(values)
    with cp.cuda.Device(dev):
        vals = cp.ascontiguousarray(values, dtype=out)
        st = cp.ascontiguousarray(starts, dtype=np.int64)
        k = module_kernel(dev, f"segment_reduce<{int(add_op)}, {c_type(out)}>", _SEGMENT)
        k((_grid(nseg, dev),), (BLOCK,), (vals, np.int64(vals.shape[0]), st, np.int64(nseg),
                                        res))
    return res


# Instantiations compiled by scripts/check_cuda.sh (nvcc -Xptxas -v: errors and spills)
CHECK_INSTANCES: dict[str, list[str]] = {"segment.cu": [
    "segment_reduce<4, double>", "segment_reduce<10, float>", "segment_reduce<12, bool>",
    "segment_reduce<7, long long>", "segment_reduce<24, unsigned char>",
]}

__all__ = ["BLOCK", "CHECK_INSTANCES", "HEADERS", "inline_includes", "module_kernel",
           "module_source", "segment_reduce"]
