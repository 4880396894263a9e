"""Tuples and numeric keys have no exact JSON form: serialised, with a note. Bytes, sets,
complex numbers and keys of mixed types make json.dumps fail: reported as unsafe."""
from jax._src.interpreters import mlir


def lower(ctx, x):
    mlir.custom_call("a", result_types=[], operands=[x], backend_config=(1, 2))
    mlir.custom_call("b", result_types=[], operands=[x], backend_config={1: "one", 2: "two"})
    return mlir.custom_call("c", result_types=[], operands=[x], backend_config={1: "one", "two": 2})


def not_serialisable(ctx, x):
    mlir.custom_call("d", result_types=[], operands=[x], backend_config={"raw": b"\x00"})
    mlir.custom_call("e", result_types=[], operands=[x], backend_config=[{1, 2}])
    mlir.custom_call("f", result_types=[], operands=[x], backend_config={"z": 1j})
    return mlir.custom_call("g", result_types=[], operands=[x], backend_config={-1: "neg", 2: "pos"})
