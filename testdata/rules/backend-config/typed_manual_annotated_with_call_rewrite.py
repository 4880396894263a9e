# ccmigrate-args: --annotate --select backend-config,custom-call-api
"""A typed-FFI config the rule cannot prove to be attributes, on a custom call that
custom-call-api rewrites in the same run: the TODO names no callee, so the next run,
which sees jax.ffi.ffi_lowering there, writes no second one."""
from jax.interpreters import mlir
from jax.interpreters.mlir import ir


def lowering(ctx, x, *, name, make_config):
    config = make_config(name=ir.StringAttr.get(name))
    return mlir.custom_call("kernel", result_types=[x.type], operands=[x], backend_config=config, api_version=4).results
