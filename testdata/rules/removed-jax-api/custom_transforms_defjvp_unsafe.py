# ccmigrate-args: --unsafe-fixes
"""Custom derivatives of 2019-20 code, before jax.custom_jvp: the safe square root of
jax's issue #1052 (one argument, one rule: exactly what custom_jvp's defjvps calls), and a
two-argument function whose rules custom_jvp would also call on the zero tangent of an
argument not being differentiated (unsafe: reported, applied with --unsafe-fixes)."""
import jax
import jax.numpy as np
from jax import custom_transforms, defjvp


@jax.custom_transforms
def safe_sqrt(x):
    return np.sqrt(x)
jax.defjvp(safe_sqrt, lambda g, ans, x: 0.5 * g / np.where(x > 0, ans, np.inf))


@custom_transforms
def scaled_log(x, scale):
    return scale * np.log(x)


defjvp(scaled_log, lambda g, ans, x, scale: scale * g / x, lambda g, ans, x, scale: g * np.log(x))


def energy(x):
    return safe_sqrt(x) + scaled_log(x, 2.0)
