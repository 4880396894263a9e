"""`import jax.abstract_arrays` is the module's only import binding `jax`: dropping it would
leave `jax.numpy` unbound, so it stays (reported as manual)."""
import jax.abstract_arrays


def as_array(x):
    return jax.numpy.asarray(x)
