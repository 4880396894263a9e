"""Where the engine puts the imports rules add, and what stays of the ones they remove."""

import ast
import functools
import os
import subprocess
import sys
import textwrap

import pytest

from tests.helpers import TESTDATA, rewrite_source

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


def _rewrite(source: str, rule: str = "register-custom-call-target") -> str:
    result = rewrite_source(source.encode(), "/tmp/module.py", ["--select", rule])
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


def test_comments_right_above_the_first_jax_import_stay_with_it() -> None:
    # With --annotate the kept import's TODO is such a comment: given to the new `import jax`
    # above it, the next run would annotate the import again (and the run fails its self-check).
    source = ("__all__ = ['f']\n\nfrom jax.lib import xla_client\n\n"
              "xla_client.register_custom_call_target('k', object(), platform='cpu')\n\n"
              "xops = xla_client.ops\n\n\ndef f(c, x):\n    return xops.Neg(x)\n")
    result = rewrite_source(source.encode(), "/tmp/module.py", ["--annotate"])
    assert result.error is None, result.error
    lines = result.updated.decode().splitlines()
    kept = lines.index("from jax.lib import xla_client")
    assert lines[kept - 1].startswith("# TODO(ccmigrate): [xla-translation-rule] import of `jax.lib.xla_client`")
    assert lines[kept - 2] == "import jax" and lines[kept - 3] == ""


def test_plain_import_block_keeps_libcsts_placement() -> None:
    out = _rewrite("import os\nfrom jax.lib import xla_client\n\nxla_client.register_custom_call_target('k', object(), platform='cpu')\n")
    assert out.startswith("import os\nimport jax\n")


def test_removing_the_first_import_leaves_no_blank_first_line() -> None:
    source = "import jax.extend as jex\n\nimport math\nimport jax\n\njex.ffi.register_ffi_target('k', object(), platform='cpu')\n"
    result = rewrite_source(source.encode(), "/tmp/module.py", ["--select", "jax-extend-ffi"])
    assert result.error is None and result.updated is not None
    assert result.updated.decode().startswith("import math\nimport jax\n")


# -- modules that import jax only inside functions (jax is an optional dependency) ----------

OPTIONAL_JAX = [
    os.path.join(TESTDATA, "rules", "custom-call-api", "optional_jax_factory.expected.py"),
    os.path.join(TESTDATA, "rules", "custom-call-api", "optional_jax_factory_no_jax_name.expected.py"),
    os.path.join(TESTDATA, "rules", "custom-call-api", "optional_jax_method_and_one_liner.expected.py"),
    os.path.join(TESTDATA, "rules", "removed-jax-api", "optional_jax_functions.expected.py"),
    os.path.join(TESTDATA, "rules", "register-custom-call-target", "optional_jax_register.expected.py"),
]


def _load(path: str) -> dict:
    with open(path) as fh:
        code = compile(fh.read(), path, "exec")
    namespace: dict = {"__name__": "optional_jax_case"}
    exec(code, namespace)
    return namespace


def _module_level_imports(source: str) -> set[str]:
    tree = ast.parse(source)
    found = set()
    for node in tree.body:  # what runs when the module is imported
        for inner in ast.walk(node) if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) else ():
            if isinstance(inner, ast.Import):
                found.update(alias.name.split(".")[0] for alias in inner.names)
            elif isinstance(inner, ast.ImportFrom) and inner.module:
                found.add(inner.module.split(".")[0])
    return found


@pytest.mark.parametrize("path", OPTIONAL_JAX, ids=os.path.basename)
def test_rewritten_optional_jax_module_imports_without_jax(path: str, monkeypatch) -> None:
    with open(path) as fh:
        assert not _module_level_imports(fh.read()) & {"jax", "jaxlib"}
    for name in [n for n in sys.modules if n.split(".")[0] in ("jax", "jaxlib")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "jax", None)
    monkeypatch.setitem(sys.modules, "jaxlib", None)
    namespace = _load(path)  # raises ImportError if anything imports jax at module level
    factory = namespace.get("_create_primitive") or namespace.get("one_line_lowering") or namespace.get("_register_targets") or namespace["zeros"]
    with pytest.raises(ImportError):
        factory(*[None] * factory.__code__.co_argcount)


def _lower_with(lowering, **params) -> list:
    import jax
    import numpy as np
    from jax.extend.core import Primitive
    from jax.interpreters import mlir

    from tests.lowering import custom_calls

    prim = Primitive("optional_jax_kernel")
    prim.def_abstract_eval(lambda x, **_: x)
    mlir.register_lowering(prim, functools.partial(lowering, **params), platform="cpu")
    spec = jax.ShapeDtypeStruct((4,), np.float32)
    lowered = jax.jit(lambda x: prim.bind(x)).trace(spec).lower(lowering_platforms=("cpu",))
    return custom_calls(lowered.compiler_ir("stablehlo"))


def test_factory_lowering_spelt_through_its_own_jax_import_lowers() -> None:
    lowering = _load(OPTIONAL_JAX[0])["_create_primitive"]()
    [call] = _lower_with(lowering, descriptor="cfg")
    assert (call.target, call.api_version, call.backend_config) == ("warp_call", 2, b"cfg")


def test_factory_lowering_with_import_added_in_the_factory_lowers() -> None:
    lowering = _load(OPTIONAL_JAX[1])["_create_primitive"]("cpu")
    [call] = _lower_with(lowering, descriptor="cfg")
    assert (call.target, call.api_version, call.backend_config) == ("kernel", 2, b"cfg")
    assert call.operand_layouts == [[0]] and call.result_layouts == [[0]]


def test_moved_and_rewritten_names_work_inside_their_functions() -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.interpreters import ad

    namespace = _load(OPTIONAL_JAX[3])
    assert isinstance(namespace["make_mesh"](jax.devices()[:1]), jax.sharding.Mesh)
    assert np.array_equal(namespace["zeros"](jnp.ones(3)), np.zeros(3))
    zero = namespace["typed_zero"](jnp.ones(3, jnp.float32))
    assert isinstance(zero, ad.Zero) and zero.aval.shape == (3,)


def test_type_checking_import_of_jax_keeps_the_module_lazy() -> None:
    source = textwrap.dedent('''\
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            import jax


        def lowering(ctx, x):
            from jaxlib.hlo_helpers import custom_call
            return custom_call("kernel", result_types=[x.type], operands=[x]).results
    ''')
    result = rewrite_source(source.encode(), "/tmp/module.py", ["--select", "custom-call-api"])
    assert result.error is None and result.updated is not None
    out = result.updated.decode()
    # The annotation-only binding is not there at run time: the function imports jax itself.
    assert "    import jax\n    return jax.ffi.ffi_lowering(" in out
    assert out.startswith("from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import jax\n\n\ndef")


def test_method_and_one_line_lowering_rules_lower() -> None:
    namespace = _load(OPTIONAL_JAX[2])
    for lowering in (namespace["Kernels"]().lowering, namespace["one_line_lowering"]):
        [call] = _lower_with(lowering)
        assert (call.target, call.api_version) == ("kernel", 2)


def test_a_submodule_the_top_package_does_not_load_is_imported_itself() -> None:
    path = os.path.join(TESTDATA, "rules", "xla-client-import", "bridge_backend_without_jax_import.expected.py")
    with open(path) as fh:
        probe = fh.read() + (
            "\nimport numpy as np\n"
            "print(event_sum(np.ones(3), np.array([0, 1, 2]), np.array([0, 1, 2, 3]), 2.0).tolist())\n"
        )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[2.0, 2.0, 2.0]"


HELPER_AFTER_ALL = textwrap.dedent('''\
    # -*- coding: utf-8 -*-

    __all__ = ["rule"]

    from jax.lib import xla_client
    from jax.interpreters import xla
    from jax.extend.core import Primitive

    p = Primitive("p")


    def rule(c, x, *, platform="cpu"):
        return xla_client.ops.CustomCallWithLayout(
            c, platform.encode() + b"_op", operands=(x,),
            shape_with_layout=c.get_shape(x),
            operand_shapes_with_layout=(c.get_shape(x),))


    xla.backend_specific_translations["cpu"][p] = rule
''')


def test_a_helper_goes_below_the_imports_that_follow_dunder_all() -> None:
    result = rewrite_source(HELPER_AFTER_ALL.encode(), "/tmp/module.py", ["--select", "xla-translation-rule"])
    assert result.error is None, result.error
    out = result.updated.decode()
    tree = ast.parse(out)
    kinds = [type(s).__name__ for s in tree.body]
    helper = next(i for i, s in enumerate(tree.body) if isinstance(s, ast.FunctionDef) and s.name == "_ccmigrate_target_name")
    # Every import stays above the helper (pycodestyle E402), and PEP 8's two blank lines.
    assert "Import" not in kinds[helper:] and "ImportFrom" not in kinds[helper:]
    assert "\n\n\n\ndef _ccmigrate_target_name" not in out and "\n\n\ndef _ccmigrate_target_name" in out


def test_a_helper_asked_for_by_an_edit_that_was_declined_is_not_added() -> None:
    # A rule asks for a helper while it plans an edit; when a later check declines the
    # edit (veros's rule with a scratch result), nothing calls the helper.
    import libcst as cst

    from codemods.engine import _add_helpers

    helpers = {"_h": "def _h(x):\n    return x\n", "_g": "def _g(x):\n    return _h(x)\n"}
    unused = cst.parse_module("import jax\n\ny = 1\n")
    assert _add_helpers(unused, helpers).code == unused.code
    # One called helper comes with the helper it calls, and no other.
    called = _add_helpers(cst.parse_module("import jax\n\ny = _g(1)\n"), {**helpers, "_k": "def _k():\n    pass\n"}).code
    assert "def _g(" in called and "def _h(" in called and "def _k(" not in called


def test_comments_above_a_removed_import_stay_for_the_statement_after_it() -> None:
    source = textwrap.dedent('''\
        import jax

        # Enable double precision at startup.
        # The kernels work in float64.
        from jax.config import config
        from jax.experimental import sparse

        config.update("jax_enable_x64", True)
    ''')
    result = rewrite_source(source.encode(), "/tmp/module.py", ["--select", "removed-jax-api"])
    assert result.error is None, result.error
    out = result.updated.decode()
    assert "from jax.config import config" not in out
    assert "# Enable double precision at startup.\n# The kernels work in float64.\nfrom jax.experimental import sparse" in out


@pytest.mark.parametrize("guard", [
    'if importlib.util.find_spec("jax") is not None:\n    import jax\n',
    "try:\n    import jax\nexcept ImportError:\n    jax = None\n",
])
def test_imports_added_to_a_module_guarding_its_jax_import_go_inside_the_guard(guard) -> None:
    source = f"import importlib.util\n\n{guard}\n\ndef make():\n    return jax.core.Primitive('f')\n"
    result = rewrite_source(source.encode(), "/tmp/module.py", [])
    assert result.error is None, result.error
    out = result.updated.decode()
    assert "    from jax.extend.core import Primitive\n" in out and "\nfrom jax" not in out
    # Without jax the module still imports (PyBaMM's optional extra).
    code = compile(out, "module.py", "exec")
    saved = {name: sys.modules.get(name) for name in ("jax", "jax.extend", "jax.extend.core")}
    try:
        for name in saved:
            sys.modules[name] = None  # import of a module set to None raises ImportError
        if "try:" in guard:
            exec(code, {"__name__": "guarded"})
        else:
            import importlib.util as util
            real = util.find_spec
            util.find_spec = lambda name, *a: None if name == "jax" else real(name, *a)
            try:
                exec(code, {"__name__": "guarded"})
            finally:
                util.find_spec = real
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module


def test_an_if_else_or_type_checking_block_is_no_import_guard_and_a_second_guard_is_fine() -> None:
    both = ('import sys\nif sys.platform == "win32":\n    import jax\n    B = "cpu"\nelse:\n    import jax\n    B = "gpu"\n'
            'P = jax.core.Primitive("f")\n')
    out = rewrite_source(both.encode(), "/tmp/module.py", []).updated.decode()
    assert "\nfrom jax.extend.core import Primitive\n" in out or out.startswith("from jax.extend.core import Primitive")
    typing_only = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from jax import Array\nimport jax\n"
                   'P = jax.core.Primitive("f")\n')
    out = rewrite_source(typing_only.encode(), "/tmp/module.py", []).updated.decode()
    assert "    from jax.extend.core import Primitive" not in out
    two = ("try:\n    import jax\nexcept ImportError:\n    jax = None\ntry:\n    import jax.numpy as jnp\n"
           'except ImportError:\n    jnp = None\nP = jax.core.Primitive("f")\n')
    out = rewrite_source(two.encode(), "/tmp/module.py", []).updated.decode()
    assert out.startswith("try:\n    import jax\n    from jax.extend.core import Primitive\nexcept ImportError:")


def test_a_doctest_import_in_a_docstring_does_not_hide_the_modules_alias() -> None:
    # ``>>> import numpy as np`` in a docstring binds nothing: the module's own ``np`` is
    # reused, not joined by a second ``import numpy``.
    source = textwrap.dedent('''\
        import numpy as np
        from jax.interpreters import mlir


        def scale(x):
            """Scale by two.

            >>> import numpy as np
            >>> scale(np.ones(3))
            """
            return x * 2


        def _lowering(ctx, x, *, n):
            return [mlir.ir_constant(n)]
    ''')
    result = rewrite_source(source.encode(), "/tmp/module.py", ["--select", "ir-constant"])
    assert result.error is None, result.error
    out = result.updated.decode()
    assert "return [mlir.ir_constant(np.asarray(n))]" in out
    assert "import numpy\n" not in out and out.count("import numpy as np") == 2


def test_an_import_in_the_script_block_does_not_serve_the_module() -> None:
    """``import jax`` under ``if __name__ == "__main__":`` binds only when the file runs
    as a script; its ``else:`` branch runs on import and does serve."""
    script_only = (
        "from jax._src import core, ad_util\n"
        "\n"
        "\n"
        "def f(x):\n"
        "    return ad_util.Zero.from_value(x), core.Primitive\n"
        "\n"
        "\n"
        'if __name__ == "__main__":\n'
        "    import jax\n"
    )
    def rewrite(source: str) -> str:
        result = rewrite_source(source.encode(), "/tmp/module.py", ["--select", "removed-jax-api"])
        assert result.error is None and result.updated is not None
        return result.updated.decode()

    out = rewrite(script_only)
    assert "ad_util.Zero(jax.typeof(x))" in out
    assert out.splitlines()[:2] == ["from jax._src import core, ad_util", "import jax"]
    both = script_only + "else:\n    import jax\n"
    namespace = {"__name__": "module"}
    exec(compile(out, "module.py", "exec"), namespace)  # imported, not run: the script block is skipped
    assert type(namespace["f"](1.0)[0]).__name__ == "Zero"
    out = rewrite(both)
    assert "ad_util.Zero(jax.typeof(x))" in out
    namespace = {"__name__": "module"}
    exec(compile(out, "module.py", "exec"), namespace)
    assert type(namespace["f"](1.0)[0]).__name__ == "Zero"


def test_a_guard_emptied_by_import_removal_goes_but_not_one_the_author_wrote() -> None:
    """LibCST's import removal leaves ``try: pass / except ImportError: pass`` where a
    guard chose between two imports that nothing reads any more: it goes. A guard that
    already was all ``pass`` in the original is the author's, and stays."""
    guard = "try:\n    from jax.interpreters import mlir\nexcept ImportError:\n    from jax._src.interpreters import mlir\n"
    call = ("\n\ndef _lowering(ctx, x, out):\n"
            "    return mlir.custom_call('k', result_types=[out], operands=[x], backend_config=b'a').results\n")
    out = rewrite_source((guard + call).encode(), "/tmp/module.py", ["--select", "custom-call-api"]).updated.decode()
    assert "try:" not in out and "pass" not in out and out.startswith("import jax\n")
    own = "try:\n    pass\nexcept ImportError:\n    pass\n"
    out = rewrite_source((own + guard + call).encode(), "/tmp/module.py", ["--select", "custom-call-api"]).updated.decode()
    assert out.count("try:\n    pass\nexcept ImportError:\n    pass\n") == 2


# -- a name the rewrite needs only in one branch of a module-level `if` ---------------------

VERSION_BRANCHES = textwrap.dedent('''\
    import jax
    import numpy as np

    if jax.__version_info__ >= (0, 4, 14):
        from jax.interpreters.mlir import ir_constant as _const

        p = jax.core.Primitive("p")
    else:
        from jax.interpreters.mlir import ir_constants as _const

        p = None
''')


def _run_module(source: str) -> dict:
    namespace: dict = {"__name__": "branch_case"}
    exec(compile(source, "branch_case.py", "exec"), namespace)
    return namespace


def test_import_for_one_branch_goes_after_that_branchs_imports(monkeypatch) -> None:
    out = _rewrite(VERSION_BRANCHES, "core-primitive")
    assert out == VERSION_BRANCHES.replace(
        "ir_constant as _const\n", "ir_constant as _const\n    from jax.extend.core import Primitive\n").replace(
        'jax.core.Primitive("p")', 'Primitive("p")')
    import jax

    assert _run_module(out)["p"].name == "p"  # the installed jax takes the branch
    # On a release the other branch serves, without jax.extend.core, the module still imports:
    # at the top the new import would fail there.
    monkeypatch.setattr(jax, "__version_info__", (0, 4, 0))
    monkeypatch.setitem(sys.modules, "jax.extend.core", None)
    assert _run_module(out)["p"] is None
    with pytest.raises(ImportError):
        _run_module("from jax.extend.core import Primitive\n" + out)


def test_a_star_import_beside_the_added_one_is_no_added_import() -> None:
    out = _rewrite("from math import *\n" + VERSION_BRANCHES, "core-primitive")
    assert out.startswith("from math import *\nimport jax\n")
    assert "ir_constant as _const\n    from jax.extend.core import Primitive\n" in out


@pytest.mark.parametrize("source", [
    # read in both branches
    VERSION_BRANCHES.replace("p = None", 'p = jax.core.Primitive("q")'),
    # the branch imports nothing before it reads the name
    VERSION_BRANCHES.replace('    from jax.interpreters.mlir import ir_constant as _const\n\n', ""),
    # read outside the `if` too
    VERSION_BRANCHES + '\nq = jax.core.Primitive("q")\n',
    # exported by name
    '__all__ = ["Primitive"]\n' + VERSION_BRANCHES,
], ids=["both-branches", "no-import-in-branch", "read-outside", "exported"])
def test_import_stays_at_the_top_unless_one_importing_branch_alone_reads_it(source: str) -> None:
    out = _rewrite(source, "core-primitive")
    assert "\nfrom jax.extend.core import Primitive\n" in out and "    from jax.extend.core" not in out


# -- a name moved out of an import statement inside a block ---------------------------------

SPLIT_IN_BRANCH = textwrap.dedent('''\
    import jax

    if jax.__version_info__ >= (0, 2, 26):
        from jax.core import Tracer, Token
    else:
        from jax.core import Tracer
        from jax.interpreters.xla import Token


    def kinds():
        from jax.core import Token as T, Tracer
        return T, Tracer
''')


def test_a_name_moved_out_of_an_import_in_a_block_is_imported_right_after_it(monkeypatch) -> None:
    """mpi4jax's jax_compat shape: the branch the target takes keeps its own imports, and
    the module still imports where the other branch runs (no module-level import of
    jax.extend.core, which older releases lack)."""
    import types

    import jax
    from jax.extend import core as extend_core

    out = _rewrite(SPLIT_IN_BRANCH, "removed-jax-api")
    assert out == SPLIT_IN_BRANCH.replace(
        "    from jax.core import Tracer, Token\n",
        "    from jax.core import Tracer\n    from jax.extend.core import Token\n").replace(
        "    from jax.core import Token as T, Tracer\n",
        "    from jax.core import Tracer\n    from jax.extend.core import Token as T\n")
    namespace = _run_module(out)
    assert namespace["Token"] is extend_core.Token and namespace["kinds"]()[0] is extend_core.Token
    # Where the other branch runs (an old release: its own Token, no jax.extend.core).
    old_xla = types.ModuleType("jax.interpreters.xla")
    old_xla.Token = object()
    monkeypatch.setattr(jax, "__version_info__", (0, 2, 0))
    monkeypatch.setitem(sys.modules, "jax.extend.core", None)
    monkeypatch.setitem(sys.modules, "jax.interpreters.xla", old_xla)
    assert _run_module(out)["Token"] is old_xla.Token


def test_a_name_the_module_already_imports_at_the_top_is_not_imported_again() -> None:
    source = "from jax.extend.core import Token\n" + SPLIT_IN_BRANCH
    out = _rewrite(source, "removed-jax-api")
    assert "    from jax.core import Tracer\nelse:" in out  # nothing added to the branch
    assert out.count("from jax.extend.core import Token\n") == 1
