"""A fixed sample of the mutation fuzzer (``benchmarks/fuzz.py``): rule fixtures written
the ways real extension code differs from them, each run through the engine and held to
the invariants ccmigrate promises on any file (no internal error, a one-line error for a
broken file, a rewrite that compiles and that a second run leaves alone, every reference
to an API the installed jax lacks left only where a manual finding covers it).

The sample is the pairs that once failed plus one of each mutation kind that changes
the file's text most (line endings, indentation, encoding, comments inside calls), so it
stays small; ``make test-nightly`` runs every seed with every kind, and stacked kinds.
"""

from __future__ import annotations

import os
import random

import pytest

from benchmarks import fuzz
from tests.helpers import TESTDATA

#: (seed under testdata/, mutation kind, option set)
SAMPLE = [
    ("rules/custom-call-api/compat_public_results.py", "try_import_guard", "default"),
    ("rules/register-custom-call-target/bytes_names.py", "try_import_guard", "default"),
    ("rules/backend-config/multiline_comments.py", "import_dotted", "default"),
    ("rules/register-custom-call-target/optional_extension_try.py", "import_dotted", "unsafe"),
    ("rules/custom-call-api/api_version_enum.py", "seed", "default"),
    ("rules/stablehlo-custom-call-op/python_values_and_mhlo.py", "global_decl", "unsafe"),
    ("rules/xla-translation-rule/from_jax_import_xla.py", "nest_function", "annotate"),
    ("rules/backend-config/typed_ffi.py", "seed", "annotate"),
    ("rules/backend-config/guarded_import.py", "parenthesised", "unsafe"),
    ("rules/custom-call-api/kepler_extra_operand.py", "crlf", "default"),
    ("rules/custom-call-api/kepler_extra_operand.py", "tabs", "default"),
    ("rules/hlo-helpers/finufft_cpu_descriptor.py", "coding_line", "default"),
    ("rules/jax-extend-ffi/attribute_chain.py", "bom", "default"),
    ("rules/custom-call-api/finufft_gpu_descriptor.py", "call_comments", "default"),
    ("rules/custom-call-api/finufft_gpu_descriptor.py", "shadow_local", "default"),
    ("rules/ffi-call-inline/options_and_attrs.py", "keyword_order", "default"),
    ("rules/core-primitive/extending_jax_tutorial.py", "truncated", "default"),
    ("rules/aval-to-ir-type/mapped_over_avals.py", "nul_byte", "default"),
    ("rules/xla-translation-rule/factory_nested_layouts.py", "try_import_guard", "annotate"),
    ("rules/xla-translation-rule/lower_fun_manual.py", "import_in_function", "default"),
]


def _mutant(seed: str, kind: str) -> tuple[str, bytes]:
    path = os.path.join(TESTDATA, seed)
    with open(path, "rb") as fh:
        source = fh.read()
    rng = random.Random(f"0:{fuzz.seed_id(path)}:{kind}")
    mutant = fuzz.apply_mutation(kind, source, rng)
    assert mutant is not None, f"{kind} does not apply to {seed}"
    return path, mutant


@pytest.mark.parametrize("seed,kind,options", SAMPLE, ids=[f"{k}:{s.split('/', 1)[1][:-3]}" for s, k, _ in SAMPLE])
def test_mutant_keeps_the_invariants(seed: str, kind: str, options: str) -> None:
    path, mutant = _mutant(seed, kind)
    failures = fuzz.check(path, mutant, kind, fuzz.OPTION_SETS[options])
    assert [f"{f.invariant}: {f.detail}" for f in failures] == []


def test_every_sampled_seed_exists_and_the_kinds_are_known() -> None:
    for seed, kind, options in SAMPLE:
        assert os.path.isfile(os.path.join(TESTDATA, seed)), seed
        assert kind in fuzz.MUTATIONS and options in fuzz.OPTION_SETS


def test_the_checker_reports_a_reference_no_manual_finding_covers(monkeypatch) -> None:
    """The invariant that found the most: a removed API left with nothing said about it
    (an engine that changes nothing and reports nothing stands in for a rule's gap)."""
    from codemods.engine import FileResult

    source = b"import jaxlib.hlo_helpers\n\n\ndef f(x):\n    return jaxlib.hlo_helpers.custom_call(x)\n"
    monkeypatch.setattr(fuzz, "run_engine", lambda path, src, options=None: FileResult(path, src))
    failures = fuzz.check("mod.py", source, "x")
    assert [(f.invariant, f.detail.split(":")[0]) for f in failures] == [
        ("unreported", "line 1 (mutant line 1)"), ("unreported", "line 5 (mutant line 5)")]


def test_the_checker_reports_an_error_on_a_valid_file(monkeypatch) -> None:
    from codemods.engine import FileResult

    monkeypatch.setattr(fuzz, "run_engine", lambda path, src, options=None: FileResult(path, src, error="internal error: boom"))
    assert [f.invariant for f in fuzz.check("mod.py", b"x = 1\n", "crlf")] == ["crash"]


@pytest.mark.parametrize("kind", ["import_alias", "call_comments"])
def test_mutant_rewrite_lowers_to_the_same_custom_call(kind: str, tmp_path) -> None:
    """The kernel receives the same call after the mutation: target, api_version,
    backend_config bytes, layouts and types, lowered with the installed jax."""
    seed = os.path.join(TESTDATA, "rules", "custom-call-api", "compat_public_results.py")
    assert fuzz.compat_cases().get(seed), "the seed has a compat case"
    _, mutant = _mutant("rules/custom-call-api/compat_public_results.py", kind)
    assert fuzz.check_lowering(seed, mutant, str(tmp_path), {}) == []
