from . import cpu, gpu  # noqa: F401
