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
from jax.interpreters import xla
from jax.lib import xla_client

xops = xla_client.ops


def _abstract_eval(spec, *args):
    vals = spec["get_dims"](*(a.shape for a in args))
    return tuple(
        core.ShapedArray(eval(s["shape"], dict(vals)), s.get("dtype", np.float32))
        for s in spec["outputs"] + spec["extra_outputs"]
    )


def _translation_rule(spec, c, *args):
    vals = spec["get_dims"](*(c.get_shape(a).dimensions() for a in args))
    dtype = c.get_shape(args[0]).element_type()
    if dtype != np.float32:
        raise ValueError("Invalid dtype; must be float32")

    return xops.CustomCallWithLayout(
        c,
        spec["xla_name"],
        operands=tuple(xops.ConstantLiteral(c, np.int32(v)) for v in vals.values()) + args,
        shape_with_layout=xla_client.Shape.tuple_shape(
            tuple(
                xla_client.Shape.array_shape(jnp.dtype(dtype), shape, tuple(range(len(shape) - 1, -1, -1)))
                for dtype, shape in (
                    (s.get("dtype", np.float32), eval(s["shape"], dict(vals)))
                    for s in spec["outputs"] + spec["extra_outputs"]
                )
            )
        ),
        operand_shapes_with_layout=tuple(
            xla_client.Shape.array_shape(jnp.dtype(jnp.int32), (), ()) for _ in range(len(vals))
        )
        + tuple(
            xla_client.Shape.array_shape(jnp.dtype(dtype), shape, tuple(range(len(shape) - 1, -1, -1)))
            for dtype, shape in (
                (s.get("dtype", np.float32), eval(s["shape"], dict(vals))) for s in spec["inputs"]
            )
        ),
    )


def _rev_translation_rule(spec, c, *args):
    rev_spec = dict(
        xla_name=spec["xla_name"] + b"_rev",
        get_dims=spec["get_dims"],
        inputs=spec["inputs"] + spec["outputs"] + spec["extra_outputs"] + spec["outputs"],
        outputs=spec["inputs"],
        extra_outputs=(),
    )
    return _translation_rule(rev_spec, c, *args)


def setup_spec(spec):
    prim = core.Primitive(spec["name"])
    prim.multiple_results = True
    rev = core.Primitive(spec["name"] + "_rev")
    rev.multiple_results = True
    prim.def_abstract_eval(partial(_abstract_eval, spec))
    rev.def_abstract_eval(lambda *args: tuple(core.ShapedArray(a.shape, a.dtype) for a in args[: len(spec["inputs"])]))
    xla.backend_specific_translations["cpu"][prim] = partial(_translation_rule, spec)
    xla.backend_specific_translations["cpu"][rev] = partial(_rev_translation_rule, spec)
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
