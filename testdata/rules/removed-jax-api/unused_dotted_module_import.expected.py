"""A robotics toolkit's utilities (jaxsim style): an import of jax's abstract_arrays module (removed
in jax 0.4.14) is read only for ShapedArray, which moves to jax.core in the same run, and
`import jax.flatten_util` binds `jax` as well, so the import goes without losing a name."""
import contextlib

import jax.flatten_util
import jax.interpreters.partial_eval
import jax.core


def tracing(var) -> bool:
    return isinstance(var, jax.interpreters.partial_eval.DynamicJaxprTracer)


def ravel(tree):
    with contextlib.suppress(TypeError):
        return jax.flatten_util.ravel_pytree(tree)[0]


def is_abstract(x) -> bool:
    return isinstance(x, jax.core.ShapedArray)
