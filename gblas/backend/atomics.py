"""LLVM memory intrinsics for Numba kernels: atomics (compare-and-swap, min, add, or on an
array element, each returning the old value) and a prefetch hint. Numba has no functions for
them; the parallel CPU searches (``bfs_fused``, ``gblas.distributed.bfs_levels_cpu``) claim
vertices and lower parents with them, and prefetch the rows they will scan."""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from llvmlite.binding import llvm_version_info
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


def item_pointer(context: Any, builder: Any, aryty: Any, ary: Any, idx: Any) -> Any:
    """LLVM pointer to ary[idx] (no bounds check, no wraparound), for intrinsics."""
    arr = context.make_array(aryty)(context, builder, ary)
    return cgutils.get_item_pointer(context, builder, aryty, arr, [idx], wraparound=False)


_PREFETCH = "llvm.prefetch.p0" if llvm_version_info[0] >= 15 else "llvm.prefetch.p0i8"


@intrinsic
def prefetch(typingctx: Any, arr: Any, idx: Any) -> Any:
    """Prefetch the cache line of arr[idx] (a hint; no fault on any index of arr)."""
    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]), _PREFETCH)
        ptr = item_pointer(context, builder, sig.args[0], args[0], args[1])
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])  # read, keep
        return context.get_dummy_value()

    return types.none(arr, idx), codegen


@intrinsic
def cas(typingctx: Any, arr: Any, idx: Any, expected: Any, value: Any) -> Any:
    """arr[idx] = value if arr[idx] == expected (atomically); returns the old arr[idx]."""
    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        ptr = item_pointer(context, builder, sig.args[0], args[0], args[1])
        res = builder.cmpxchg(ptr, args[2], args[3], "monotonic", "monotonic")
        return builder.extract_value(res, 0)

    return arr.dtype(arr, idx, arr.dtype, arr.dtype), codegen


def _rmw(op: str, doc: str) -> Any:
    """An intrinsic (arr, idx, value) -> old arr[idx] doing ``atomicrmw op`` on arr[idx]."""
    @intrinsic
    def rmw(typingctx: Any, arr: Any, idx: Any, value: Any) -> Any:
        def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
            ptr = item_pointer(context, builder, sig.args[0], args[0], args[1])
            return builder.atomic_rmw(op, ptr, args[2], "monotonic")

        return arr.dtype(arr, idx, arr.dtype), codegen

    rmw.__doc__ = doc
    return rmw


atomic_min = _rmw("min", "arr[idx] = min(arr[idx], value) atomically (signed); returns the "
                  "old arr[idx].")
fetch_add = _rmw("add", "arr[idx] += value atomically; returns the old arr[idx].")
fetch_or = _rmw("or", "arr[idx] |= value atomically; returns the old arr[idx].")


__all__ = ["atomic_min", "cas", "fetch_add", "fetch_or", "item_pointer", "prefetch"]
