"""The extending-jax template's `xops = xla_client.ops`, left over after the move to MLIR
lowering: nothing reads it, so it goes, and with it the import it kept alive."""
import numpy as np


def as_array(x):
    return np.asarray(x)
