# ccmigrate-args: --annotate --every-rule
# TODO(ccmigrate): [xla-translation-rule] import of `jax.lib.xla_client` (deleted from jax) kept for the 1 manual site(s) that use it, annotated with TODO(ccmigrate): it fails at import time until they are migrated
from jax.lib import xla_client
import jax


def _typed_lowering(ctx, x):
    return jax.ffi.ffi_lowering(
        "typed_kernel", result_types=[x.type],
        api_version=4, skip_ffi_layout_processing=True,
    )(ctx, x)


def builder_shape(x):
    # TODO(ccmigrate): [xla-translation-rule] `xla_client.Shape.array_shape` builds XLA shapes for the XlaBuilder, which jax removed (xla_client.ops in 0.6.0, jax.lib.xla_client in 0.9.0): use jax.ShapeDtypeStruct / layouts as minor_to_major tuples, or an MLIR lowering rule
    return xla_client.Shape.array_shape(x.dtype, x.shape)
