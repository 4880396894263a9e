"""A Triton bridge reading jax's private core module, and an MPI binding's abstract
evaluation returning the token aval through the old abstract_arrays module."""
from jax import abstract_arrays
from jax._src import core


def avals_of(flat_args):
    return [core.raise_to_shaped(core.get_aval(a)) for a in flat_args]


def mpi_send_abstract_eval(xs, token, **params):
    return abstract_arrays.abstract_token


def mpi_recv_abstract_eval(xs, token, **params):
    return (abstract_arrays.ShapedArray(xs.shape, xs.dtype), abstract_arrays.abstract_token)
