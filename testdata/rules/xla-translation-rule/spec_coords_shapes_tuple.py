"""The JSON-definitions era of a celerite2-style solver (2021; float32 here): the rule takes
every operand's builder shape into one tuple, ``tuple(c.get_shape(a) for a in args)``, reads
each named dimension at the (operand, axis) its spec lists, checks every element type in a
generator, and passes one int32 constant per dimension before the operands."""
from collections import OrderedDict
from functools import partial

import numpy as np
from jax import core
from jax import numpy as jnp
from jax.interpreters import xla
from jax.lib import xla_client

xops = xla_client.ops


def _abstract_eval(spec, *args):
    dims = {s["name"]: args[s["coords"][0]].shape[s["coords"][1]] for s in spec["dimensions"]}
    return tuple(core.ShapedArray(tuple(dims[k] for k in s["shape"]), np.float32) for s in spec["outputs"])


def _translation_rule(name, spec, c, *args):
    shapes = tuple(c.get_shape(arg) for arg in args)
    dims = OrderedDict(
        (s["name"], shapes[s["coords"][0]].dimensions()[s["coords"][1]])
        for s in spec["dimensions"]
    )
    if any(shape.element_type() != np.float32 for shape in shapes):
        raise ValueError(f"{spec['name']} requires float32 precision")

    return xops.CustomCallWithLayout(
        c,
        name,
        operands=tuple(xops.ConstantLiteral(c, np.int32(v)) for v in dims.values()) + args,
        shape_with_layout=xla_client.Shape.tuple_shape(
            tuple(
                xla_client.Shape.array_shape(
                    jnp.dtype(np.float32),
                    tuple(dims[k] for k in s["shape"]),
                    tuple(range(len(s["shape"]) - 1, -1, -1)),
                )
                for s in spec["outputs"]
            )
        ),
        operand_shapes_with_layout=tuple(
            xla_client.Shape.array_shape(jnp.dtype(jnp.int32), (), ()) for _ in range(len(dims))
        )
        + tuple(
            xla_client.Shape.array_shape(
                jnp.dtype(np.float32),
                tuple(dims[k] for k in s["shape"]),
                tuple(range(len(s["shape"]) - 1, -1, -1)),
            )
            for s in spec["inputs"]
        ),
    )


SPEC = dict(
    name="solve_lower",
    dimensions=[dict(name="N", coords=[0, 0]), dict(name="J", coords=[1, 1])],
    inputs=[dict(name="t", shape=["N"]), dict(name="U", shape=["N", "J"])],
    outputs=[dict(name="Z", shape=["N", "J"])],
)
solve_lower_p = core.Primitive("celerite2_solve_lower")
solve_lower_p.multiple_results = True
solve_lower_p.def_abstract_eval(partial(_abstract_eval, SPEC))
xla.backend_specific_translations["cpu"][solve_lower_p] = partial(_translation_rule, b"solve_lower", SPEC)


def compat_entry():
    return solve_lower_p.bind, (np.ones(6, np.float32), np.ones((6, 3), np.float32))
