"""Names the installed jax lacks and no rule rewrites: reported manual, file unchanged."""
import jax
from jax.interpreters import ad, batching


def jvp(token_jvp, x, d):
    moved = batching.moveaxis(x, d, 0)
    return moved, ad.Zero.from_value(token_jvp), jax.dlpack.to_dlpack(x)
