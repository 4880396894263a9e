"""Translation rules defined in other modules of the package and registered here: this
file is migrated on its own, so each registration says which module to convert."""
from functools import partial

from jax.extend.core import Primitive
from jax.interpreters import xla

from kernels import gpu_backend
from kernels.cpu_backend import encode as cpu_encode

solve_p = Primitive("solve")
xla.backend_specific_translations["cpu"][solve_p] = cpu_encode
xla.backend_specific_translations["gpu"][solve_p] = partial(gpu_backend.encode, b"solve_gpu")
