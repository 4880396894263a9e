"""Which branch of a jax version test the target release takes (codemods.rules._shared)."""

from __future__ import annotations

import libcst as cst
import pytest

from codemods.context import FileContext, Options
from codemods.rules._shared import version_test_on_target

HEADER = """\
import jax
import jaxlib
from packaging import version
from importlib.metadata import version as dist_version
_V = tuple(int(p) for p in jax.__version__.split(".") if p.isdigit())
_SHORT = jax.__version_info__[:2]
"""


def _value(test: str, target: tuple[int, ...]):
    source = HEADER + f"if {test}:\n    pass\n"
    module = cst.parse_module(source)
    ctx = FileContext("m.py", source.encode(), module, Options(target_jax=target))
    return version_test_on_target(ctx, module.body[-1].test)


@pytest.mark.parametrize("test, expected", [
    ("jax.__version_info__ < (0, 4, 35)", False),
    ("jax.__version_info__ >= (0, 4, 35)", True),
    ("(0, 10, 2) <= jax.__version_info__", True),
    ("(0, 10, 3) <= jax.__version_info__", False),
    ("jax.__version__ >= '0.4.16'", True),  # read as the version it names, not as text
    ("jaxlib.__version__ < '0.4.16'", False),
    ("version.parse(jax.__version__) < version.parse('0.4.35')", False),
    ("dist_version('jax') >= '0.10'", True),
    ("_V > (0, 4, 23)", True),
    ("not _V > (0, 4, 23)", False),
    ("jax.__version_info__ > (0, 10)", True),  # (0, 10) is (0, 10, 0)
    ("jax.version.__version_info__ < (0, 4, 34)", False),  # jax-finufft
    ("_V >= versiontuple('0.3.15')", True),  # mpi4jax's own parser of version strings
    # An f-string without a replacement field, or literals side by side, is a constant.
    ("version.parse(dist_version(f'jax')) >= version.parse(f'0.8.2')", True),
    ("jax.__version__ < '0.4' '.16'", False),
])
def test_version_tests_read_on_the_target(test, expected) -> None:
    assert _value(test, (0, 10, 2)) is expected


@pytest.mark.parametrize("test", [
    "_SHORT >= (0, 4)",  # two parts of the version: not the whole of it
    "jax.__version_info__[0] == 0",
    "jax.__version_info__ == (0, 4, 35)",
    "hasattr(jax, 'ffi')",
    "jax.__version_info__ >= (0, 4) and jax.config.x",
    "len(jax.__version__) > 3",
    "some_version >= (0, 4, 35)",
    "_V >= major_of('0.3.15')",  # a helper that is not named for parsing versions
    "dist_version(f'{name}') >= '0.10'",  # a computed name: not known to be jax
])
def test_other_tests_are_not_read(test) -> None:
    assert _value(test, (0, 10, 2)) is None


def test_a_target_given_as_major_minor_is_padded() -> None:
    assert _value("jax.__version_info__ >= (0, 6, 0)", (0, 6)) is True
    assert _value("jax.__version_info__ < (0, 6, 1)", (0, 6)) is True
