"""Bit intrinsics on words for Numba kernels (emitted as LLVM instructions: Numba has no
functions for them). Bitmaps of vertices (a bit a vertex) are scanned with ``ctz`` (the
next set bit) and counted with ``popc``."""

from __future__ import annotations

from typing import Any

from llvmlite import ir
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


__all__ = ["ctz", "popc"]
