"""A parenthesised import inside a version guard: reported, left as is (once crashed
the position lookup of the finding at the import)."""
import jax

if jax.__version__ < "0.8":
    from jaxlib.hlo_helpers import (
        custom_call,
        hlo_s32,
    )

    def lowering(ctx, x):
        return custom_call("f", result_types=[x.type], operands=[hlo_s32(1), x]).results
