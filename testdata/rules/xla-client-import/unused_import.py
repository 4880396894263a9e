"""An import nothing uses still stops the module from loading on jax >= 0.9."""
import numpy as np
from jax.lib import xla_bridge, xla_extension

SIZE = np.int64(4)
