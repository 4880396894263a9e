"""Lower a module's entry point and describe every custom_call op in it.

Runs under any jax from 0.4.28 to the installed one (the compatibility check starts it
with an old release's interpreter), so it touches only APIs all of them share:
``jax.jit(f).lower(*args).compiler_ir("stablehlo")`` and the MLIR Python bindings that
jaxlib ships.

Command line: ``python custom_calls.py MODULE_PATH ENTRY [--run]`` prints a JSON object:
``custom_calls``, one object per op (``target``, ``api_version``, ``backend_config`` as
hex of the opaque bytes or the printed dictionary of typed-FFI attributes,
``operand_layouts``, ``result_layouts``, ``has_side_effect``, ``operand_types``,
``result_types``), and with ``--run`` the ``outputs`` of executing the entry on the CPU.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import warnings


def load_module(path: str, name: str | None = None):
    name = name or "ccm_fixture_" + os.path.basename(path).replace(".", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spec.loader.exec_module(module)
    return module


def lower_entry(module, entry: str):
    """``entry()`` returns ``(function, example_args)``; lowered for the CPU."""
    import jax

    function, args = getattr(module, entry)()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jitted = jax.jit(function)
        if hasattr(jitted, "trace"):  # jax >= 0.4.30: the platform named, whatever the host's backend
            return jitted.trace(*args).lower(lowering_platforms=("cpu",)).compiler_ir("stablehlo")
        with jax.default_device(jax.devices("cpu")[0]):
            return jitted.lower(*args).compiler_ir("stablehlo")


def custom_calls(ir_module) -> list[dict]:
    found: list[dict] = []
    _walk(ir_module.operation, found)
    return found


def _walk(operation, found: list[dict]) -> None:
    for region in operation.regions:
        for block in region:
            for op in block:
                op = op.operation
                if op.name.endswith(".custom_call"):
                    found.append(describe(op))
                _walk(op, found)


def describe(op) -> dict:
    keys = ("call_target_name", "api_version", "backend_config", "mhlo.backend_config",
            "operand_layouts", "result_layouts", "has_side_effect")
    attrs = {key: op.attributes[key] for key in keys if key in op.attributes}

    def layouts(key):
        if key not in attrs:
            return None
        return [_index_list(str(layout)) for layout in attrs[key]]

    backend = None
    if "mhlo.backend_config" in attrs:
        backend = {"typed": str(attrs["mhlo.backend_config"])}
    elif "backend_config" in attrs:
        attr = attrs["backend_config"]
        raw = _string_bytes(attr)
        backend = {"opaque": raw.hex()} if raw is not None else {"typed": str(attr)}
    api = attrs.get("api_version")
    return {
        "target": _string_bytes(attrs["call_target_name"]).decode(),
        # The attribute is omitted when it is 1 (API_VERSION_ORIGINAL).
        "api_version": int(_integer(api)) if api is not None else 1,
        "backend_config": backend if backend not in ({"opaque": ""},) else None,
        "operand_layouts": layouts("operand_layouts"),
        "result_layouts": layouts("result_layouts"),
        "has_side_effect": str(attrs["has_side_effect"]) == "true" if "has_side_effect" in attrs else False,
        "operand_types": [str(v.type) for v in op.operands],
        # XlaBuilder code returned one tuple-typed result; XLA treats a tuple of several
        # as the same multi-result custom call, so those are compared element by element.
        # A tuple of one is not one result: on CPU the kernel reaches its output through
        # the tuple's table of pointers, so it stays ``tuple<...>``.
        "result_types": [t for r in op.results for t in _flatten_tuple(str(r.type))],
    }


def _flatten_tuple(text: str) -> list[str]:
    if not text.startswith("tuple<"):
        return [text]
    inner, parts, depth, start = text[len("tuple<"):-1], [], 0, 0
    for i, ch in enumerate(inner):
        depth += ch == "<"
        depth -= ch == ">"
        if ch == "," and depth == 0:
            parts.append(inner[start:i].strip())
            start = i + 1
    parts.append(inner[start:].strip())
    if len(parts) == 1:
        return [text]
    return [t for part in parts for t in _flatten_tuple(part)]


def _index_list(text: str) -> list[int]:
    """``dense<[1, 0]> : tensor<2xindex>`` / splat ``dense<0> : tensor<1xindex>`` -> ints.

    Printed form is used because the element accessors of index-typed dense attributes
    differ between the MLIR bindings of old and new jaxlib releases.
    """
    body = text[text.index("dense<") + len("dense<"): text.index(">")].strip()
    count = int(text[text.index("tensor<") + len("tensor<"):].split("x", 1)[0])
    if not body:
        return []
    if body.startswith("["):
        return [int(v) for v in body.strip("[]").split(",")]
    return [int(body)] * count


def _string_bytes(attr):
    from jaxlib.mlir import ir

    try:
        string = ir.StringAttr(attr)
    except (ValueError, TypeError):
        return None
    try:
        return bytes(string.value_bytes)
    except AttributeError:  # older bindings
        return string.value.encode("utf-8", "surrogateescape")


def _integer(attr):
    from jaxlib.mlir import ir

    return ir.IntegerAttr(attr).value


def run_entry(module, entry: str) -> list:
    """Compile and execute ``entry`` on the CPU; the outputs as nested lists."""
    import jax
    import numpy as np

    function, args = getattr(module, entry)()
    with warnings.catch_warnings(), jax.default_device(jax.devices("cpu")[0]):
        warnings.simplefilter("ignore")
        outputs = jax.jit(function)(*args)
    leaves = outputs if isinstance(outputs, (list, tuple)) else [outputs]
    return [np.asarray(leaf).tolist() for leaf in leaves]


def describe_module(path: str, entry: str, run: bool = False) -> dict:
    module = load_module(path)
    return {
        "custom_calls": custom_calls(lower_entry(module, entry)),
        "outputs": run_entry(module, entry) if run else None,
    }


def main(argv: list[str]) -> int:
    run = "--run" in argv
    path, entry = [a for a in argv[1:] if a != "--run"]
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    print(json.dumps(describe_module(path, entry, run)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
