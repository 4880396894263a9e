"""Code that already picks the API by jax version keeps both branches."""
import jax
from jax.interpreters import mlir, xla

from ._lowerings import scale_lowering, scale_p, scale_translation

if jax.__version_info__ < (0, 4, 29):
    xla.register_translation(scale_p, scale_translation, platform="cpu")
else:
    mlir.register_lowering(scale_p, scale_lowering, platform="cpu")
