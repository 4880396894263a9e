# ccmigrate-args: --annotate --select backend-config,custom-call-api
"""A typed-FFI config the rule cannot prove to be attributes, on a custom call that
custom-call-api rewrites in the same run: the TODO names no callee, so the next run,
which sees jax.ffi.ffi_lowering there, writes no second one."""
from jax.interpreters.mlir import ir
import jax


def lowering(ctx, x, *, name, make_config):
    config = make_config(name=ir.StringAttr.get(name))
    # TODO(ccmigrate): [backend-config] backend_config `config` (bound to `make_config(name=ir.StringAttr.get(name))` (the result of a call)) passed with api_version=4 must be a dict of MLIR attributes; `config` (bound to `make_config(name=ir.StringAttr.get(name))` (the result of a call)) cannot become typed FFI attributes: pass the values as keyword attributes of the ffi_lowering call, or use an api_version < 4 with a serialised string
    return jax.ffi.ffi_lowering("kernel", result_types=[x.type], backend_config=config, api_version=4, skip_ffi_layout_processing=True)(ctx, x)
