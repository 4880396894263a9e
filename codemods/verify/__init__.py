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
"""

from codemods.verify.runner import VerifyOptions, VerifyReport, SiteStatus, table, verify
from codemods.verify.sites import Site, scan_file, scan_source

__all__ = ["VerifyOptions", "VerifyReport", "SiteStatus", "Site", "scan_file", "scan_source", "table", "verify"]
