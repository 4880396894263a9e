# ccmigrate-args: --target-jax 0.5
from jax import core

my_p = core.Primitive("my_p")
