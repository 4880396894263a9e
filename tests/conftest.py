"""The suite runs on jax's CPU backend whatever accelerator the host has, as CI does: it
lowers for cuda, rocm and tpu by cross-platform lowering, and its subprocesses (the
verification workers) inherit the setting. An accelerator is held by one process at a
time, so a suite whose in-process tests opened it would leave none for the workers.
Set JAX_PLATFORMS yourself to run it against another backend."""

import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")
