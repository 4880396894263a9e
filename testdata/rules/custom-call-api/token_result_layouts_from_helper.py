"""An MPI-style binding threading an ordered-effect token through the custom call, its result
layouts computed by a helper from the result types: one result per result type, so the
results the primitive does not have (the token) are counted from them."""
import numpy as np
from jax import core
from jax.core import ShapedArray
from jax.interpreters import mlir
from jax.interpreters.mlir import token_type, custom_call
from jax.lib import xla_client

ordered_effect = object()


def get_default_layouts(operands, order="c"):
    (token,) = token_type()
    layouts = []
    for op in operands:
        if isinstance(op, mlir.ir.Value):
            if op.type == token:
                layouts.append(())
            else:
                layouts.append(tuple(range(len(mlir.ir.RankedTensorType(op.type).shape))))
        elif op == token:
            layouts.append(())
        else:
            layouts.append(tuple(range(len(op.shape))))
    return layouts


def _define_layout2d_lowering(ctx, global_indices, ndivs, layout):
    global_indices_type = mlir.ir.RankedTensorType(global_indices.type)
    n_indices = np.prod(global_indices_type.shape).astype(np.int32)
    layout_type = mlir.ir.RankedTensorType(layout.type)
    n_layout = np.prod(layout_type.shape).astype(np.int32)
    token = ctx.tokens_in.get(ordered_effect)[0]
    operands = [
        global_indices,
        mlir.ir_constant(n_indices),
        ndivs,
        layout,
        mlir.ir_constant(n_layout),
        token,
    ]
    result_types = [global_indices_type, layout_type, token_type()]
    results_obj = custom_call(
        "jax_py_mpp_define_layout2D",
        result_types=result_types,
        operands=operands,
        operand_layouts=get_default_layouts(operands, order="f"),
        result_layouts=get_default_layouts(result_types, order="f"),
        has_side_effect=True,
    )
    results = list(results_obj.results)
    token = results.pop(-1)
    ctx.set_tokens_out(mlir.TokenSet({ordered_effect: (token,)}))
    return results


_p = core.Primitive("py_mpp_define_layout2d")
_p.multiple_results = True
mlir.register_lowering(_p, _define_layout2d_lowering, platform="cpu")
