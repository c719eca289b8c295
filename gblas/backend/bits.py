"""Bit intrinsics on words for Numba kernels (emitted as LLVM instructions: Numba has no
functions for them). Bitmaps of vertices (a bit a vertex) are scanned with ``ctz`` (the
next set bit) and counted with ``popc``; ``prefetch`` hints the cache line of an array
element (the pulls prefetch the heads of the rows they will scan)."""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from llvmlite.binding import llvm_version_info
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def ctz(typingctx: Any, x: Any) -> Any:
    """Trailing zero bits of a nonzero word."""
    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return x(x), codegen


@intrinsic
def popc(typingctx: Any, x: Any) -> Any:
    """Set bits of a word."""
    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.ctpop(args[0])

    return x(x), codegen


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


__all__ = ["ctz", "item_pointer", "popc", "prefetch"]
