"""Properties of the backend-config rewrite over generated custom-call sites.

Sites are generated with nested literal configs (unicode, escapes, implicit string
concatenation, numbers in several spellings), comments and line breaks inside the call
and inside the config, several import spellings of ``custom_call`` and of ``json``, and
configs inline or bound once to a name. For every site:

* the rewrite parses and compiles, keeps every comment, and a second run changes nothing;
* executing the rewritten lowering rule (with jax replaced by a recorder)
  hands the custom call a JSON string that decodes to the value of the original
  expression (tuples as arrays, numeric keys as strings: what JSON can hold).

``make test`` runs a couple of hundred examples; ``HYPOTHESIS_PROFILE=nightly`` (``make
test-nightly``) runs thousands.
"""

from __future__ import annotations

import ast
import builtins
import io
import json
import os
import tokenize

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import rewrite_source

NIGHTLY = os.environ.get("HYPOTHESIS_PROFILE") == "nightly"
PROFILE = settings(
    max_examples=5000 if NIGHTLY else 200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=not NIGHTLY,  # make test is reproducible; nightly explores
)

#: How the module reaches ``custom_call``: (import line, callee spelling).
CALLEES = [
    ("from jax.interpreters import mlir", "mlir.custom_call"),
    ("from jax.interpreters import mlir as jm", "jm.custom_call"),
    ("import jax.interpreters.mlir as m", "m.custom_call"),
    ("from jax.interpreters.mlir import custom_call as cc", "cc"),
    ("from jax.interpreters.mlir import custom_call", "custom_call"),
    ("import jax", "jax.interpreters.mlir.custom_call"),
    ("from jax._src.interpreters import mlir as private_mlir", "private_mlir.custom_call"),
]
JSON_IMPORTS = ["", "import json", "import json as js", "from json import dumps", "from json import dumps as jd"]
#: The backend-config rewrite alone (other rules migrate the call itself); some configs
#: are only unsafe fixes (keys the rule cannot prove sortable): apply those too.
UNSAFE = ["--unsafe-fixes", "--select", "backend-config"]
COMMENTS = ["# note", "# ünïcode ✓ 日本", "# )]} inside a comment", "#", "# backend_config={'x': 1}"]

TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
LEAVES = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TEXT
)
VALUES = st.recursive(
    LEAVES,
    lambda inner: st.lists(inner, max_size=4)
    | st.lists(inner, max_size=4).map(tuple)
    | st.dictionaries(TEXT, inner, max_size=4)
    | st.dictionaries(st.integers(-1000, 1000), inner, max_size=3),
    max_leaves=12,
)
#: What a kernel can be handed: a container, a number or a bool (a str passes through).
CONFIGS = VALUES.filter(lambda v: not isinstance(v, str) and v is not None)


class Renderer:
    """Python source for a value, choosing among its spellings with hypothesis."""

    def __init__(self, draw, indent: str) -> None:
        self.draw = draw
        self.indent = indent

    def sep(self) -> str:
        choice = self.draw(st.sampled_from(["space", "newline", "comment"]))
        if choice == "space":
            return " "
        if choice == "newline":
            return "\n" + self.indent
        return "  " + self.draw(st.sampled_from(COMMENTS)) + "\n" + self.indent

    def render(self, value) -> str:
        if isinstance(value, bool) or value is None:
            return repr(value)
        if isinstance(value, int):
            spelling = self.draw(st.sampled_from(["plain", "underscore", "hex", "spaced"]))
            if spelling == "underscore":
                return f"{value:_}"
            if spelling == "hex" and value >= 0:
                return hex(value)
            if spelling == "spaced" and value < 0:
                return f"- {-value}"
            return str(value)
        if isinstance(value, float):
            return repr(value)
        if isinstance(value, str):
            return self.string(value)
        if isinstance(value, (list, tuple)):
            items = [self.render(v) for v in value]
            open_, close = ("[", "]") if isinstance(value, list) else ("(", ")")
            if isinstance(value, tuple) and len(items) == 1:
                return f"({items[0]},)"
            return open_ + self.join(items) + close
        pairs = [f"{self.key(k)}: {self.render(v)}" for k, v in value.items()]
        return "{" + self.join(pairs) + "}"

    def key(self, key) -> str:
        return self.string(key) if isinstance(key, str) else str(key)

    def join(self, items: list[str]) -> str:
        if not items:
            return ""
        text = items[0]
        for item in items[1:]:
            text += "," + self.sep() + item
        if self.draw(st.booleans()):
            text += ","
        return text

    def string(self, text: str) -> str:
        spelling = self.draw(st.sampled_from(["repr", "double", "concatenated", "u-prefix"]))
        if spelling == "double":
            return json.dumps(text, ensure_ascii=False)  # escapes " \\ and controls; valid Python
        if spelling == "concatenated" and len(text) >= 2:
            cut = len(text) // 2
            return repr(text[:cut]) + self.draw(st.sampled_from([" ", "\n" + self.indent])) + repr(text[cut:])
        if spelling == "u-prefix":
            return "u" + repr(text)
        return repr(text)


@st.composite
def sites(draw):
    value = draw(CONFIGS)
    imports, callee = draw(st.sampled_from(CALLEES))
    json_import = draw(st.sampled_from(JSON_IMPORTS))
    placement = draw(st.sampled_from(["inline", "local", "module"]))
    api = draw(st.sampled_from(["", "1", "2", "3"]))
    renderer = Renderer(draw, " " * 12)
    config = renderer.render(value)
    header = "\n".join(line for line in (json_import, imports) if line)
    constant = f"\n\nCONFIG = {config}\n" if placement == "module" else ""
    local = f"    cfg = {config}  # bound once\n" if placement == "local" else ""
    argument = {"inline": config, "local": "cfg", "module": "CONFIG"}[placement]
    api_arg = f"\n        api_version={api}," if api else ""
    source = (
        f'"""A generated lowering rule."""\n{header}\n{constant}\n\n'
        f"def _lowering(ctx, x):\n{local}"
        f"    return {callee}(\n"
        f'        "kernel_f32",  {draw(st.sampled_from(COMMENTS))}\n'
        f"        result_types=[],\n"
        f"        operands=[x],\n"
        f"        backend_config={argument},{api_arg}\n"
        f"    )\n"
    )
    return source, value


class Recorder:
    """Stands for ``custom_call`` (or the module that holds it); keeps what it was given."""

    def __init__(self) -> None:
        self.calls: list[dict] = []

    def __getattr__(self, name):
        return self

    def __call__(self, *args, **kwargs):
        self.calls.append(kwargs)
        return None


def _importer(recorder: Recorder):
    """``import`` for the generated module: jax is the recorder, everything else is real."""

    def import_(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "jax" or name.startswith("jax."):
            return recorder
        return builtins.__import__(name, globals, locals, fromlist, level)

    return import_


def as_json_can_hold(value):
    """``value`` as it comes back from JSON: tuples as lists, numeric keys as strings."""
    if isinstance(value, (list, tuple)):
        return [as_json_can_hold(v) for v in value]
    if isinstance(value, dict):
        return {(k if isinstance(k, str) else str(k)): as_json_can_hold(v) for k, v in value.items()}
    return value


def comments(text: str) -> list[str]:
    return sorted(t.string for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type == tokenize.COMMENT)


@PROFILE
@given(sites())
def test_the_rewrite_parses_settles_and_hands_the_kernel_the_same_value(site):
    source, value = site
    assert ast.literal_eval(_config_text(source)) == value, "the generator's own spelling is wrong"

    result = rewrite_source(source.encode(), "generated.py", UNSAFE)
    assert result.error is None, result.error
    if isinstance(value, dict) and not value:
        assert result.updated is None  # an empty dict is already a valid config
        return
    assert result.updated is not None, source
    updated = result.updated.decode()
    compile(updated, "generated.py", "exec", dont_inherit=True)
    assert comments(updated) == comments(source)

    again = rewrite_source(result.updated, "generated.py", UNSAFE)
    assert again.error is None and again.updated is None, "a second run changed the rewrite"

    recorder = Recorder()
    namespace: dict = {"__name__": "generated", "__builtins__": {**vars(builtins), "__import__": _importer(recorder)}}
    exec(compile(updated, "generated.py", "exec", dont_inherit=True), namespace)
    namespace["_lowering"](None, "operand")
    (call,) = recorder.calls
    config = call["backend_config"]
    assert isinstance(config, str)
    assert json.loads(config) == as_json_can_hold(value)


def _config_text(source: str) -> str:
    """The config expression as written in the generated source."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and node.targets[0].id in ("cfg", "CONFIG"):
            return ast.get_source_segment(source, node.value)
        if isinstance(node, ast.keyword) and node.arg == "backend_config" and not isinstance(node.value, ast.Name):
            return ast.get_source_segment(source, node.value)
    raise AssertionError("no config in the generated source")


@PROFILE
@given(st.dictionaries(st.sampled_from(["a", "b", "é"]), st.integers(), min_size=1, max_size=2), st.integers(-5, 5))
def test_keys_json_cannot_sort_are_left_for_review(strings, number):
    mixed = {**strings, number: "n"}
    source = (
        "from jax.interpreters import mlir\n\n\n"
        f"def _lowering(ctx, x):\n    return mlir.custom_call('t', operands=[x], backend_config={mixed!r})\n"
    )
    result = rewrite_source(source.encode(), "generated.py", ["--select", "backend-config"])
    assert result.error is None and result.updated is None
    assert [c.safety.value for c in result.changes] == ["unsafe"]
