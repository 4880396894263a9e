"""Each compat case's rewrite, lowered on the installed jax in this one process: the
custom_call it emits (target, api_version, backend_config bytes or typed attributes,
layouts), read through the MLIR Python API, must be the one declared in the rule's
``compat.toml``; ``run`` cases are also executed and their outputs compared."""

from __future__ import annotations

import pytest

from tests.compat.custom_calls import custom_calls, load_module, lower_entry, run_entry
from tests.compat.declarations import cases, mismatches, rewritten_source

CASES = cases()
#: A rewrite for an older --target-jax that the installed jax rejects is lowered by make
#: test-compat on that release only.
INSTALLED = [c for c in CASES if c.rewrite_jax is None]


@pytest.mark.parametrize("case", INSTALLED, ids=[c.id for c in INSTALLED])
def test_rewrite_lowers_to_declared_custom_call(case, tmp_path) -> None:
    path = tmp_path / ("rewritten_" + case.id.replace("/", "_").replace("-", "_").replace(":", "_") + ".py")
    path.write_bytes(rewritten_source(case))
    module = load_module(str(path))
    description = {
        "custom_calls": custom_calls(lower_entry(module, case.entry)),
        "outputs": run_entry(module, case.entry) if case.run else None,
    }
    assert case.expect, f"{case.id} declares no [case.expect]"
    assert mismatches(case.expect, description) == []


def test_every_ffi_rule_declares_a_compat_case() -> None:
    declared = {c.rule for c in CASES}
    for rule in ("jax-extend-ffi", "ffi-call-inline", "register-custom-call-target", "xla-translation-rule",
                 "custom-call-api", "hlo-helpers", "stablehlo-custom-call-op", "core-primitive",
                 "aval-to-ir-type", "backend-config"):
        assert rule in declared, rule
