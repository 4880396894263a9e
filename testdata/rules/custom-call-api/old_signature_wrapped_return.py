"""jaxlib 0.4.8-0.4.14 `out_types` calls whose value the rule wraps itself: a PyTorch-bridge
rule binds `ret` in each platform branch and returns `(ret,) if len(out_layouts) == 1 else ret`, a Hermite-function rule returns
`(out,)`. Both were written for the one-value return of jaxlib <= 0.4.7; jax flattens the
list inside the 1-tuple, so the list ffi_lowering returns serves both."""
from jax.interpreters import mlir
from jax.interpreters.mlir import ir
from jaxlib.hlo_helpers import custom_call


def _torch_call_lowering(ctx, *args, platform="cpu", descriptor=b"\x01\x02"):
    out_types = [
        mlir.ir.RankedTensorType.get(aval.shape, mlir.dtype_to_ir_type(aval.dtype))
        for aval in ctx.avals_out
    ]
    in_shapes = [list(mlir.ir.RankedTensorType(arg.type).shape) for arg in args]
    in_layouts = [tuple(range(len(shape) - 1, -1, -1)) for shape in in_shapes]
    out_layouts = [tuple(range(len(aval.shape) - 1, -1, -1)) for aval in ctx.avals_out]
    if platform == "cpu":
        ret = custom_call(
            "cpu_torch_call_f32",
            out_types=out_types,
            operands=list(args),
            operand_layouts=in_layouts,
            result_layouts=out_layouts,
            backend_config=descriptor,
        )
    else:
        ret = custom_call(
            "gpu_torch_call_f32",
            out_types=out_types,
            operands=list(args),
            operand_layouts=in_layouts,
            result_layouts=out_layouts,
            backend_config=descriptor,
        )
    return (ret,) if len(out_layouts) == 1 else ret


def _hermite_lowering(ctx, x, *, n_max=8):
    x_type = ir.RankedTensorType(x.type)
    layout = tuple(range(len(x_type.shape) - 1, -1, -1))
    # One result: the old builder handed back one value, wrapped here for the rule.
    out = custom_call(
        b"hermite_recursive",
        out_types=[ir.RankedTensorType.get([*x_type.shape, n_max], x_type.element_type)],
        operands=[x],
        operand_layouts=[layout],
        result_layouts=[layout + (len(layout),)],
    )
    return (out,)
