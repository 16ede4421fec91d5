"""A software prefetch for numba kernels: ask the processor to start loading a line of memory that a
kernel reads soon, so that several loads overlap rather than each waiting in turn (LLVM's
``llvm.prefetch``; numba has no such call of its own)."""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

LINE = 8  # float64 values a cache line holds (64 bytes)


@intrinsic
def prefetch(typingctx, W, seat, entry):  # pragma: no cover - numba
    """Ask for the line holding entry ``entry`` of the C-contiguous W[seat] counted flat (state idx, entry r
    at idx * W.shape[2] + r); nothing waits for it, and W is never read or written here."""

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        row = cgutils.get_item_pointer(context, builder, array_type, array, [args[1], zero, zero], wraparound=False)
        pointer = builder.gep(row, [args[2]])
        byte_pointer = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [byte_pointer, i32, i32, i32]), "llvm.prefetch.p0i8"
        )
        # a read (0), kept in every cache level (3), of data (1)
        builder.call(function, [builder.bitcast(pointer, byte_pointer), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return types.void(W, seat, entry), codegen
