"""Translation rules without a custom call that do touch XLA, kept manual: one reads its
avals, one hands its operands to a function of another module (it may build ops)."""
from jax.interpreters import xla

from .kernels import scaled


def _reads_avals(ctx, avals_in, avals_out, x):
    if avals_in[0].ndim:
        return [x]
    raise ValueError("scalar")


def _other_module(ctx, avals_in, avals_out, x):
    return [scaled(x)]


xla.register_translation(first_p, _reads_avals)
xla.register_translation(second_p, _other_module)
