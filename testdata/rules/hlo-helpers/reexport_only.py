"""Re-exports the removed builder for other modules: reported, not deleted."""
from jaxlib.hlo_helpers import custom_call as hlo_custom_call  # noqa: F401
