"""Helpers shared by the collective operations (an MPI binding of the XlaBuilder era)."""
import numpy as _np

from jax.lib import xla_client

_ops = xla_client.ops


def to_mpi_ptr(handle):
    """The address of an MPI object, as the kernels read it."""
    return _np.uint64(handle)


def unpack_hashable(obj):
    return getattr(obj, "wrapped", obj)


def _constant_s32_scalar(c, x):
    return _ops.Constant(c, _np.int32(x))


def _constant_u64_scalar(c, x):
    return _ops.Constant(c, _np.uint64(x))


def _unpack_builder(c):
    # If `c` is a ComputationBuilder object, extracts the underlying XlaBuilder.
    return getattr(c, "_builder", c)
