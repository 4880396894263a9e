"""Small legacy modules shared by the tests of reports, formats, review and shards."""

#: Two safe fixes, one unsafe one, one suppressed site and one manual follow-up.
MIXED = b'''from jax._src.interpreters import mlir


def lower(ctx, x, *, config):
    t = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    mlir.custom_call("a", result_types=[t], operands=[x], backend_config={"a": 1})
    mlir.custom_call("b", result_types=[t], operands=[x], backend_config=[1, 2])
    mlir.custom_call("c", result_types=[t], operands=[x], backend_config=config)
    return mlir.custom_call("d", result_types=[t], operands=[x], backend_config={"d": 2})  # ccmigrate: ignore[backend-config]


def lower_typed(ctx, x, *, config):
    t = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    return mlir.custom_call("e", result_types=[t], operands=[x], backend_config=config, api_version=4)
'''

#: One safe fix.
ONE = b'''from jax._src.interpreters import mlir


def lower(ctx, x):
    return mlir.custom_call("k", result_types=[], operands=[x], backend_config={"b": 1, "a": 2})
'''

#: Already valid: nothing to do.
VALID = b'''from jax._src.interpreters import mlir


def lower(ctx, x):
    return mlir.custom_call("k", result_types=[], operands=[x], backend_config="{}")
'''
