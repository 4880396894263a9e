"""A primitive declared through jax.core and lowered with jax.ffi; lowers on jax 0.5.3,
the last release with jax.core.Primitive (make test-compat)."""
import numpy as np

import jax
from jax.interpreters import mlir
from jax.extend.core import Primitive

kepler_p = Primitive("ccm_kepler")
kepler_p.def_abstract_eval(lambda x: x)


def _kepler_lowering(ctx, x):
    return jax.ffi.ffi_lowering("ccm_kepler_f32")(ctx, x, tol=np.float32(1e-6))


mlir.register_lowering(kepler_p, _kepler_lowering, platform="cpu")


def kepler(x):
    return kepler_p.bind(x)


def compat_entry():
    return kepler, (np.ones(8, np.float32),)
