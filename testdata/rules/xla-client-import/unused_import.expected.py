"""An import nothing uses still stops the module from loading on jax >= 0.9."""
import numpy as np

SIZE = np.int64(4)
