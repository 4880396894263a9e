"""Verification: prove, site by site, that custom-call code lowers with the installed jax.

``ccmigrate verify PATH...`` imports the modules under PATH in worker processes (this
*executes* their code), lowers their entry points for each platform, and gives every
custom-call site a status: ``verified``, ``failed`` (with jax's error) or ``unreached``.
``--static`` lists the sites without importing anything.

Modules: :mod:`.sites` (static scanner), :mod:`.entry_points` (``pyproject.toml``
specs), :mod:`.worker` (the process that imports jax and lowers), :mod:`.pool` (worker
processes, timeouts, memory limits, output capture), :mod:`.stubs` (stand-ins for
unbuilt extensions), :mod:`.configs` (backend_config comparison), :mod:`.runner` (the
run and its report).

Exports are resolved lazily: the worker process imports this package too, and must not
pay for LibCST (which only the parent's scanner needs).
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "VerifyOptions": "runner", "VerifyReport": "runner", "SiteStatus": "runner", "table": "runner", "verify": "runner",
    "Site": "sites", "scan_file": "sites", "scan_source": "sites",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(name)
