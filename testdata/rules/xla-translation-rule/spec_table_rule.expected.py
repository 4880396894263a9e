"""A Gaussian-process solver in the style of celerite2 (2021; float32 here): one builder
rule serves every primitive from a table of specs. It reads each operand's dimensions
through a generator over ``*args``, passes one int32 constant per named dimension before
the operands, and writes the result layouts with a generator over the spec's output
shapes; the reverse rule builds its own spec and hands the builder to the same rule."""
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
    vals = spec["get_dims"](*(a.shape for a in args))
    return tuple(
        core.ShapedArray(eval(s["shape"], dict(vals)), s.get("dtype", np.float32))
        for s in spec["outputs"] + spec["extra_outputs"]
    )


def _translation_rule(spec, ctx, *args):
    vals = spec["get_dims"](*(a.shape for a in ctx.avals_in))
    dtype = ctx.avals_in[0].dtype
    if dtype != np.float32:
        raise ValueError("Invalid dtype; must be float32")

    return _ccmigrate_tuple_lowering(
        _ccmigrate_target_name(spec["xla_name"]),
        api_version=1,
        operand_layouts=tuple(
            () for _ in range(len(vals))
        )
        + tuple(
            tuple(range(len(shape) - 1, -1, -1))
            for dtype, shape in (
                (s.get("dtype", np.float32), eval(s["shape"], dict(vals))) for s in spec["inputs"]
            )
        ),
        result_layouts=tuple(
                tuple(range(len(shape) - 1, -1, -1))
                for dtype, shape in (
                    (s.get("dtype", np.float32), eval(s["shape"], dict(vals)))
                    for s in spec["outputs"] + spec["extra_outputs"]
                )
            ),
    )(ctx.replace(avals_in=[*[core.ShapedArray(np.shape(np.int32(v)), np.asarray(np.int32(v)).dtype) for v in vals.values()], *ctx.avals_in]), *(tuple(mlir.ir_constant(np.asarray(np.int32(v))) for v in vals.values()) + args))


def _rev_translation_rule(spec, ctx, *args):
    rev_spec = dict(
        xla_name=spec["xla_name"] + b"_rev",
        get_dims=spec["get_dims"],
        inputs=spec["inputs"] + spec["outputs"] + spec["extra_outputs"] + spec["outputs"],
        outputs=spec["inputs"],
        extra_outputs=(),
    )
    return _translation_rule(rev_spec, ctx, *args)


def setup_spec(spec):
    prim = core.Primitive(spec["name"])
    prim.multiple_results = True
    rev = core.Primitive(spec["name"] + "_rev")
    rev.multiple_results = True
    prim.def_abstract_eval(partial(_abstract_eval, spec))
    rev.def_abstract_eval(lambda *args: tuple(core.ShapedArray(a.shape, a.dtype) for a in args[: len(spec["inputs"])]))
    mlir.register_lowering(prim, partial(_translation_rule, spec), platform="cpu")
    mlir.register_lowering(rev, partial(_rev_translation_rule, spec), platform="cpu")
    return prim, rev


factor_prim, factor_rev_prim = setup_spec(
    dict(
        name="celerite2_factor",
        xla_name=b"celerite2_factor",
        get_dims=lambda *args: OrderedDict(list(zip(("N", "J"), args[1]))),
        inputs=(
            dict(name="a", shape="(N,)"),
            dict(name="U", shape="(N, J)"),
            dict(name="V", shape="(N, J)"),
            dict(name="P", shape="(N - 1, J)"),
        ),
        outputs=(dict(name="d", shape="(N,)"), dict(name="W", shape="(N, J)")),
        extra_outputs=(dict(name="S", shape="(N, J, J)"),),
    )
)


def compat_entry():
    n, j = 5, 2
    return factor_prim.bind, (np.ones(n, np.float32), np.ones((n, j), np.float32), np.ones((n, j), np.float32), np.ones((n - 1, j), np.float32))


def compat_entry_rev():
    n, j = 5, 2
    inputs = (np.ones(n, np.float32), np.ones((n, j), np.float32), np.ones((n, j), np.float32), np.ones((n - 1, j), np.float32))
    outputs = (np.ones(n, np.float32), np.ones((n, j), np.float32), np.ones((n, j, j), np.float32), np.ones(n, np.float32), np.ones((n, j), np.float32))
    return factor_rev_prim.bind, inputs + outputs
