"""ccmigrate: migrate legacy JAX custom-call code and prove that the result lowers."""

__version__ = "0.1.0"
