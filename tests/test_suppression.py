"""``# ccmigrate: ignore[rule]`` and bare ``# ccmigrate: ignore`` leave a site alone."""

from __future__ import annotations

from tests.helpers import rewrite_source

HEAD = b"from jax._src.interpreters import mlir\n\n\ndef lower(ctx, x):\n"


def _site(comment: bytes, config: bytes = b'{"a": 1}') -> bytes:
    return HEAD + b'    return mlir.custom_call("k", result_types=[], operands=[x], backend_config=' + config + b")" + comment + b"\n"


def _suppressed(source: bytes) -> bool:
    result = rewrite_source(source)
    assert result.error is None
    [change] = result.changes
    if change.message.startswith("suppressed by comment: "):
        assert result.updated is None and not change.applied
        return True
    assert result.updated is not None and change.applied
    return False


def test_rule_specific_comment_suppresses_that_rule():
    assert _suppressed(_site(b"  # ccmigrate: ignore[backend-config]"))
    assert _suppressed(_site(b"  # ccmigrate: ignore[other-rule, backend-config]"))


def test_bare_comment_suppresses_every_rule():
    assert _suppressed(_site(b"  # ccmigrate: ignore"))
    assert _suppressed(_site(b"  #ccmigrate:ignore"))


def test_comment_naming_another_rule_does_not():
    assert not _suppressed(_site(b"  # ccmigrate: ignore[api-version]"))
    assert not _suppressed(_site(b"  # ccmigrate ignore"))  # not the marker


def test_comment_on_any_line_of_a_multiline_site():
    source = HEAD + (
        b'    return mlir.custom_call("k", result_types=[], operands=[x], backend_config={\n'
        b'        "a": 1,  # ccmigrate: ignore[backend-config]\n'
        b"    })\n"
    )
    assert _suppressed(source)


def test_comment_on_another_line_does_not():
    source = HEAD + b"    # ccmigrate: ignore\n" + _site(b"")[len(HEAD):]
    assert not _suppressed(source)


def test_two_findings_worded_the_same_on_one_statement_make_one_note() -> None:
    from tests.helpers import rewrite_source

    source = (b"import numpy as np\nfrom jax.lib import xla_client\n\n"
              b"SHAPES = (xla_client.Shape.array_shape(np.float32, (2,), (0,)), "
              b"xla_client.Shape.array_shape(np.float32, (3,), (0,)))\n")
    result = rewrite_source(source, "shapes.py", ["--annotate", "--select", "xla-translation-rule"])
    assert result.error is None, result.error
    notes = [line for line in result.updated.decode().splitlines() if "Shape.array_shape` builds XLA shapes" in line]
    assert len([c for c in result.changes if "Shape.array_shape` builds" in c.message]) == 2
    assert len(notes) == 1
