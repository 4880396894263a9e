"""ChaCha-PRNG style: the builder is imported from hlo_helpers, else mhlo_helpers, else an
ImportError explains the jax version is unsupported. Once the one call is migrated, the
whole guard goes (removing only the imports would leave `try: pass` behind)."""
import numpy as np
from jax.interpreters import mlir

try:
    from jaxlib.hlo_helpers import custom_call
except (AttributeError, ImportError):
    try:
        from jaxlib.mhlo_helpers import custom_call
    except (AttributeError, ImportError):
        raise ImportError("Cannot import custom_call. "
                          "You are probably using an incompatible version of jax.")


def _chacha20_block_lowering(ctx, states, *, num_states):
    state_type = mlir.ir.RankedTensorType(states.type)
    layout = tuple(range(len(state_type.shape) - 1, -1, -1))
    call_ret = custom_call(
        b"cpu_chacha20_block",
        out_types=[state_type],
        operands=[mlir.ir_constant(np.uint32(num_states)), states],
        operand_layouts=[(), layout],
        result_layouts=[layout],
    )
    return (call_ret,)
