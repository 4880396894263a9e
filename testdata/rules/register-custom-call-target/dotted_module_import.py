"""Registration through a plain dotted import (``import jax.lib.xla_client``), which is
also what binds ``jax``: the import becomes ``import jax`` for the new spelling."""
import jax.lib.xla_client

from . import cpu_ops

for _name, _value in cpu_ops.registrations().items():
    jax.lib.xla_client.register_custom_call_target(_name, _value, platform="cpu")
