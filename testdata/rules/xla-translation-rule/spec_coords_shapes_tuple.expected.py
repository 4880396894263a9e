"""The JSON-definitions era of a celerite2-style solver (2021; float32 here): the rule takes
every operand's builder shape into one tuple, ``tuple(c.get_shape(a) for a in args)``, reads
each named dimension at the (operand, axis) its spec lists, checks every element type in a
generator, and passes one int32 constant per dimension before the operands."""
from collections import OrderedDict
from functools import partial

import numpy as np
from jax import core
from jax import numpy as jnp
from jax.interpreters import mlir
import jax
from jax.extend.mlir.dialects import stablehlo as hlo
from jax.extend.mlir import ir


def _ccmigrate_tuple_lowering(call_target_name, **kwargs):
    """jax.ffi.ffi_lowering for a custom call XlaBuilder made with a tuple shape (added by ccmigrate): a tuple
    of one result stays a tuple, its element taken out for the rule, since on CPU a legacy kernel reaches its
    outputs through the tuple's table of pointers; several results are that tuple in XLA already."""

    def lowering(ctx, *operands):
        if len(ctx.avals_out) != 1:
            return jax.ffi.ffi_lowering(call_target_name, **kwargs)(ctx, *operands)
        (aval,) = ctx.avals_out
        result_types = [ir.TupleType.get_tuple([mlir.aval_to_ir_type(ctx.module_context, aval)])]
        (result,) = jax.ffi.ffi_lowering(call_target_name, result_types=result_types, **kwargs)(ctx, *operands)
        return [hlo.get_tuple_element(result, 0)]

    return lowering


def _ccmigrate_target_name(name):
    """Custom-call target names may be bytes in XlaBuilder code; MLIR wants str (added by ccmigrate)."""
    return name.decode() if isinstance(name, bytes) else name


def _abstract_eval(spec, *args):
    dims = {s["name"]: args[s["coords"][0]].shape[s["coords"][1]] for s in spec["dimensions"]}
    return tuple(core.ShapedArray(tuple(dims[k] for k in s["shape"]), np.float32) for s in spec["outputs"])


def _translation_rule(name, spec, ctx, *args):
    shapes = tuple(ctx.avals_in)
    dims = OrderedDict(
        (s["name"], shapes[s["coords"][0]].shape[s["coords"][1]])
        for s in spec["dimensions"]
    )
    if any(shape.dtype != np.float32 for shape in shapes):
        raise ValueError(f"{spec['name']} requires float32 precision")

    return _ccmigrate_tuple_lowering(
        _ccmigrate_target_name(name),
        api_version=1,
        operand_layouts=tuple(
            () for _ in range(len(dims))
        )
        + tuple(
            tuple(range(len(s["shape"]) - 1, -1, -1))
            for s in spec["inputs"]
        ),
        result_layouts=tuple(
                tuple(range(len(s["shape"]) - 1, -1, -1))
                for s in spec["outputs"]
            ),
    )(ctx.replace(avals_in=[*[core.ShapedArray(np.shape(np.int32(v)), np.asarray(np.int32(v)).dtype) for v in dims.values()], *ctx.avals_in]), *(tuple(mlir.ir_constant(np.asarray(np.int32(v))) for v in dims.values()) + args))


SPEC = dict(
    name="solve_lower",
    dimensions=[dict(name="N", coords=[0, 0]), dict(name="J", coords=[1, 1])],
    inputs=[dict(name="t", shape=["N"]), dict(name="U", shape=["N", "J"])],
    outputs=[dict(name="Z", shape=["N", "J"])],
)
solve_lower_p = core.Primitive("celerite2_solve_lower")
solve_lower_p.multiple_results = True
solve_lower_p.def_abstract_eval(partial(_abstract_eval, SPEC))
mlir.register_lowering(solve_lower_p, partial(_translation_rule, b"solve_lower", SPEC), platform="cpu")


def compat_entry():
    return solve_lower_p.bind, (np.ones(6, np.float32), np.ones((6, 3), np.float32))
