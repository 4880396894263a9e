# ccmigrate-args: --target-jax 0.4.30
"""For jax 0.4.30 the old BlockSpec order and pl.load still work: left alone."""
from jax.experimental import pallas as pl


def kernel(x_ref, o_ref):
    o_ref[...] = pl.load(x_ref, (slice(None),))


spec = pl.BlockSpec(lambda i: (i,), (128,))
