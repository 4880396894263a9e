"""Where the engine puts the imports rules add, and what stays of the ones they remove."""

import subprocess
import sys
import textwrap

from tests.helpers import rewrite_source

ENV_FIRST = textwrap.dedent('''\
    """x64 is switched on before jax is imported."""
    import os
    os.environ["JAX_ENABLE_X64"] = "True"

    import ctypes
    import jax.numpy as jnp

    # Register the kernel with XLA.
    from jax.lib import xla_client
    xla_client.register_custom_call_target("kernel", object(), platform="cpu")
''')


def _rewrite(source: str) -> str:
    result = rewrite_source(source.encode(), "/tmp/module.py", ["--select", "register-custom-call-target"])
    assert result.error is None, result.error
    assert result.updated is not None
    return result.updated.decode()


def test_new_import_stays_below_code_that_runs_before_jax() -> None:
    out = _rewrite(ENV_FIRST)
    lines = out.splitlines()
    assert lines.index("import jax") > lines.index('os.environ["JAX_ENABLE_X64"] = "True"')
    assert lines.index("import jax") < lines.index("import jax.numpy as jnp")
    # The comment above the removed import now heads the registration it described.
    assert "# Register the kernel with XLA.\njax.ffi.register_ffi_target(" in out


def test_environment_set_before_jax_still_takes_effect() -> None:
    out = _rewrite(ENV_FIRST).replace("object()", "None")
    probe = out.replace('jax.ffi.register_ffi_target("kernel", None, platform="cpu", api_version=0)', "") + (
        "\nimport jax\nprint(jax.config.jax_enable_x64)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


def test_plain_import_block_keeps_libcsts_placement() -> None:
    out = _rewrite("import os\nfrom jax.lib import xla_client\n\nxla_client.register_custom_call_target('k', object(), platform='cpu')\n")
    assert out.startswith("import os\nimport jax\n")


def test_removing_the_first_import_leaves_no_blank_first_line() -> None:
    source = "import jax.extend as jex\n\nimport math\nimport jax\n\njex.ffi.register_ffi_target('k', object(), platform='cpu')\n"
    result = rewrite_source(source.encode(), "/tmp/module.py", ["--select", "jax-extend-ffi"])
    assert result.error is None and result.updated is not None
    assert result.updated.decode().startswith("import math\nimport jax\n")
