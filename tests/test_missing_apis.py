"""The reference counter of benchmarks/missing_apis.py (the measure of a migration's reach)."""

from __future__ import annotations

import importlib.util
import os

import pytest

from tests.helpers import ROOT

pytest.importorskip("jax")
_spec = importlib.util.spec_from_file_location("missing_apis", os.path.join(ROOT, "benchmarks", "missing_apis.py"))
missing_apis = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(missing_apis)


def test_references_in_version_tests_do_not_count(tmp_path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "import jax\n"
        "from jax.interpreters import ad\n"
        "if jax.__version_info__ < (0, 4, 35):\n"
        "    from jax.lib import xla_client\n"
        "f = lambda a: ad.Zero.from_primal_value(a) if jax.__version_info__ >= (0, 4, 34) else ad.Zero.from_value(a)\n"
        "g = ad.Zero.from_value\n"
    )
    assert missing_apis.scan(str(path)) == [(6, "jax.interpreters.ad.Zero.from_value")]


def test_references_behind_a_test_in_an_and_or_chain_do_not_count(tmp_path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "import jax\n"
        "a = hasattr(jax, 'pxla') and isinstance(1, jax.pxla.ShardedDeviceArray)\n"
        "b = not hasattr(jax, 'pxla') or jax.pxla.ShardedDeviceArray\n"
        "c = callable(print) and jax.pxla.ShardedDeviceArray\n"
        "d = jax.pxla.ShardedDeviceArray and hasattr(jax, 'pxla')\n"
    )
    assert missing_apis.scan(str(path)) == [(4, "jax.pxla"), (5, "jax.pxla")]


def test_references_behind_a_version_flag_do_not_count(tmp_path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "from importlib.metadata import version\n"
        "import jax\n"
        "from packaging.version import Version\n"
        "JAX_VERSION = Version(version('jax'))\n"
        "JAX_GE_0_8_2 = JAX_VERSION >= Version('0.8.2')\n"
        "OTHER = 3\n"
        "typeof = jax.typeof if JAX_GE_0_8_2 else jax.core.get_aval\n"
        "if not JAX_GE_0_8_2:\n"
        "    f = jax.core.get_aval\n"
        "if OTHER:\n"
        "    g = jax.core.get_aval\n"
    )
    assert missing_apis.scan(str(path)) == [(11, "jax.core.get_aval")]


def test_a_flag_bound_once_in_a_module_level_block_is_read(tmp_path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "import jax\n"
        "platform = 'cpu'\n"
        "if platform == 'cpu':\n"
        "    JAX_OLD = jax.__version_info__ < (0, 4, 36)\n"
        "f = jax.core.raise_to_shaped if JAX_OLD else None\n"
        "g = jax.core.raise_to_shaped if platform else None\n"
    )
    assert missing_apis.scan(str(path)) == [(6, "jax.core.raise_to_shaped")]


def test_an_fstring_without_fields_reads_as_its_text(tmp_path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "from importlib.metadata import version\n"
        "import jax\n"
        "if version(f'jax') < '0.4.35':\n"
        "    f = jax.core.get_aval\n"
        "if version(f'{jax}') < '0.4.35':\n"
        "    g = jax.core.get_aval\n"
    )
    assert missing_apis.scan(str(path)) == [(6, "jax.core.get_aval")]


def test_a_parameter_or_local_hides_the_import_of_its_name(tmp_path) -> None:
    path = tmp_path / "m.py"
    path.write_text(
        "from jax import config\n"
        "import jax\n"
        "def energy(model, config):\n"
        "    return config.shape\n"
        "def local():\n"
        "    jax = object()\n"
        "    return jax.abstract_arrays\n"
        "def module_level():\n"
        "    global config\n"
        "    config = None\n"
        "    return config.missing_member\n"
        "energy_fn = lambda config: config.shape\n"
        "gone = config.other_missing_member\n"
    )
    assert missing_apis.scan(str(path)) == [(11, "jax.config.missing_member"), (13, "jax.config.other_missing_member")]


def test_a_class_property_that_raises_outside_its_context_exists() -> None:
    # ``ir.InsertionPoint.current`` raises ValueError when no insertion point is set; the
    # property is there all the same, and a name the class lacks is not.
    assert missing_apis.exists("jaxlib.mlir.ir.InsertionPoint.current")
    assert not missing_apis.exists("jaxlib.mlir.ir.InsertionPoint.no_such_member")


def test_a_star_import_of_a_missing_module_counts(tmp_path) -> None:
    path = tmp_path / "m.py"
    path.write_text("from jaxlib.hlo_helpers import *\nfrom jax.interpreters.mlir import *\n")
    assert missing_apis.scan(str(path)) == [(1, "jaxlib.hlo_helpers")]
