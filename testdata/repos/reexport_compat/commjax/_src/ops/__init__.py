from .allsum import allsum  # noqa: F401
from .barrier import barrier  # noqa: F401
