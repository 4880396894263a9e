"""A brain-simulation library's operator registry: which registration helpers to use is
chosen by comparing jax's version as text, which picks the XlaBuilder helpers on jax 0.10."""
import jax
import jaxlib
from jax import __version__ as jax_version

if tuple(int(p) for p in jax.__version__.split(".") if p.isdigit()) >= (0, 4, 16):
    from .numba_based import register_numba_mlir_cpu_translation_rule as register_numba_cpu_translation_rule
else:
    from .numba_based import register_numba_xla_cpu_translation_rule as register_numba_cpu_translation_rule


def make_primitive(name):
    if tuple(int(p) for p in jax.__version__.split(".") if p.isdigit()) > (0, 4, 23):
        from jax.extend.core import Primitive
    else:
        from jax.core import Primitive
    return Primitive(name)


OLD_JAXLIB = (0, 4, 2) > tuple(int(p) for p in jaxlib.__version__.split(".") if p.isdigit())
NEW_ENOUGH = tuple(int(p) for p in jax_version.split(".") if p.isdigit()) >= (0, 4, 30)
EXACT = jax.__version__ == "0.4.30"  # text equality is version equality: left alone
NOT_A_VERSION = jax.__version__ >= "main"  # not a version literal: left alone
