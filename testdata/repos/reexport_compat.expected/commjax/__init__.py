"""commjax: collective operations lowered to custom calls (laid out like mpi4jax)."""

from ._src.ops import allsum, barrier  # noqa: F401
