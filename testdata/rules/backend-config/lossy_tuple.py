"""Tuples and numeric keys have no exact JSON form: serialised, with a note; keys that
cannot be sorted together (mixed types) need review (unsafe)."""
from jax._src.interpreters import mlir


def lower(ctx, x):
    mlir.custom_call("a", result_types=[], operands=[x], backend_config=(1, 2))
    mlir.custom_call("b", result_types=[], operands=[x], backend_config={1: "one", 2: "two"})
    return mlir.custom_call("c", result_types=[], operands=[x], backend_config={1: "one", "two": 2})
