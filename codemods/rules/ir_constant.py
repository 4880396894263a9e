"""``ir-constant``: ``mlir.ir_constant(v)`` gets a NumPy value, as jax now requires.

Legacy form
    ``mlir.ir_constant(v)`` / ``mlir.ir_constants(v)`` with a Python scalar (``3``,
    ``n_samples``, a primitive's ``int`` parameter), usually as an extra scalar operand of
    a custom call, and ``ir_constant(v, canonicalize_types=...)`` from older jax.

Broken
    jax 0.4.28 turned a Python scalar into a constant of the 64-bit NumPy type of its kind
    (``int`` -> ``i64``, ``float`` -> ``f64``, ``bool`` -> ``i1``, ``complex`` ->
    ``complex<f64>``). Current jax (0.10) needs ``aval=`` for a Python scalar and fails
    with a bare ``AssertionError`` while lowering; the ``canonicalize_types`` keyword of
    older releases is gone (``TypeError: ir_constant() got an unexpected keyword
    argument 'canonicalize_types'``).

Replacement (every jax release)
    ``mlir.ir_constant(np.asarray(v))``: a NumPy value needs no ``aval``, and
    ``np.asarray`` gives a Python scalar the same 64-bit type jax 0.4.28 gave it (a NumPy
    value passes unchanged). ``canonicalize_types=False`` is dropped (the value was never
    canonicalised). ``canonicalize_types=True`` becomes a small helper written into the
    module once, ``_ccmigrate_canonical_constant(v)``, which converts the value to
    ``jax.dtypes.canonicalize_dtype`` of its type (``i32`` for an ``int`` unless
    ``jax_enable_x64``), as that keyword did. A computed ``canonicalize_types`` value is
    reported as manual. Calls that pass ``aval=``, or whose value is already built by
    NumPy (``np.asarray(...)``, ``np.int32(...)``, ``np.prod(s).astype(...)``...; not
    ``np.size`` or ``np.ndim``, which give Python ints, nor ``.tolist()`` / ``.item()`` of a
    NumPy value or an ``np.random`` draw without a size, which give Python numbers) or a
    name bound once to such a call, are left
    alone. The value may be given by keyword (``ir_constant(val=n)``): it is wrapped
    where it stands.

What the kernel receives afterwards
    The same constant operand: the dtype jax 0.4.28 built for the value. Code written for
    releases before 0.4.14, whose ``ir_constant`` canonicalised by default, received an
    ``i32`` for a Python ``int`` there (without x64): if the kernel was written against
    that, spell the dtype (``np.int32(v)``).

Before::

    operands=[x, mlir.ir_constant(n)]

After::

    operands=[x, mlir.ir_constant(np.asarray(n))]
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from codemods.rule import Rule, Safety
from codemods.rules._shared import keyword, positional, short

IR_CONSTANT = frozenset(
    f"{module}.{fn}"
    for module in ("jax.interpreters.mlir", "jax._src.interpreters.mlir")
    for fn in ("ir_constant", "ir_constants")
)
#: NumPy functions that give Python values (or shapes, dtypes, text), not NumPy ones:
#: every other ``numpy`` function gives an array or a NumPy scalar.
PYTHON_VALUED = frozenset({
    "size", "ndim", "shape", "isscalar", "iterable", "allclose", "array_equal", "array_equiv", "can_cast",
    "issubdtype", "isfortran", "result_type", "promote_types", "min_scalar_type", "binary_repr", "base_repr",
    "array2string", "array_repr", "array_str", "format_float_positional", "format_float_scientific", "dtype",
    "finfo", "iinfo", "shares_memory", "may_share_memory",
})
#: Methods of a NumPy array or scalar that give a NumPy value again.
ARRAY_METHODS = frozenset({"astype", "reshape", "ravel", "flatten", "copy", "view", "transpose", "squeeze", "byteswap"})
HELPER = "_ccmigrate_canonical_constant"


def _dotted(node: cst.BaseExpression) -> bool:
    """A plain dotted name (``np.int32``), no call or subscript along the way."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)
HELPER_CODE = f'''
def {HELPER}(value):
    """The constant ir_constant(value, canonicalize_types=True) built (added by ccmigrate)."""
    import jax
    import numpy as np

    value = np.asarray(value)
    return value.astype(jax.dtypes.canonicalize_dtype(value.dtype))
'''
RECEIVES = ("the same constant operand as on jax 0.4.28 (a Python int/float/bool becomes a 64-bit NumPy scalar); "
            "before jax 0.4.14 an int was an i32 without x64: spell np.int32(v) if the kernel reads 32 bits")


class IrConstant(Rule):
    __doc__ = __doc__
    name = "ir-constant"
    summary = "Give mlir.ir_constant a NumPy value (Python scalars need aval= on current jax); drop canonicalize_types."
    triggers = (b"ir_constant",)
    statement_scoped = True

    def visit_Call(self, node: cst.Call) -> None:
        if self.ctx.qualified_name(node.func) not in IR_CONSTANT:
            return
        value_arg = self._value_arg(node)
        if value_arg is None or keyword(node, "aval") is not None:
            return
        value = value_arg.value
        canonicalize = keyword(node, "canonicalize_types")
        fn = self.ctx.module.code_for_node(node.func)
        code = short(self.ctx.module.code_for_node(value), limit=50)
        if canonicalize is None:
            if self._numpy_value(value):
                return
            self.report(
                value,
                Safety.SAFE,
                f"{fn}({code}) needs a NumPy value on current jax (a Python scalar fails with AssertionError "
                "unless aval= is given); wrapped in np.asarray",
                self._wrap_edit(),
                kernel_receives=RECEIVES,
            )
            return
        flag = canonicalize.value
        if not (isinstance(flag, cst.Name) and flag.value in ("True", "False")):
            self.report(
                canonicalize,
                Safety.MANUAL,
                f"canonicalize_types={short(self.ctx.module.code_for_node(flag), 30)} was removed from {fn}; "
                f"pass np.asarray(v) (False) or {HELPER}-style canonicalised values (True) yourself",
            )
            return
        self.report(
            node,
            Safety.SAFE,
            f"canonicalize_types was removed from {fn}; "
            + ("the value goes through np.asarray, uncanonicalised as before" if flag.value == "False"
               else f"the value goes through {HELPER}() (jax.dtypes.canonicalize_dtype), as the keyword did"),
            self._keyword_edit(canonical=flag.value == "True", already_numpy=self._numpy_value(value)),
            kernel_receives="the same constant operand (same dtype as with canonicalize_types)",
        )

    @staticmethod
    def _value_arg(node: cst.Call) -> Optional[cst.Arg]:
        """The argument carrying the value: the one positional argument, or ``val=``
        (the parameter's name in every release)."""
        if any(a.star for a in node.args):
            return None
        args = positional(node)
        by_keyword = keyword(node, "val")
        if len(args) == 1 and by_keyword is None:
            return args[0]
        if not args and by_keyword is not None:
            return by_keyword
        return None

    def _numpy_value(self, value: cst.BaseExpression, depth: int = 0) -> bool:
        if isinstance(value, cst.Name) and depth < 3:
            # ``kept_i = np.int32(i)`` then ``ir_constant(kept_i)``
            bound = self.ctx.value_bound_once(value)
            return bound is not None and self._numpy_value(bound, depth + 1)
        if isinstance(value, cst.Call):
            if isinstance(value.func, cst.Name) and value.func.value == HELPER:
                return True
            func = value.func
            if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Call):
                # np.prod(dims).astype(np.int32) stays NumPy; .tolist() / .item() give Python values.
                return func.attr.value in ARRAY_METHODS and self._numpy_value(func.value, depth + 1)
            if not _dotted(func):
                return False
            qualified = self.ctx.qualified_name(value.func) or ""
            # np.size(shape) and np.ndim(x) give Python ints; np.random's draws without a size
            # give Python numbers.
            return qualified.startswith("numpy.") and not qualified.startswith("numpy.random.") \
                and qualified.rsplit(".", 1)[-1] not in PYTHON_VALUED
        return False

    def _wrap_edit(self):
        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            asarray = self.ctx.name_for("numpy.asarray")
            return cst.Call(cst.parse_expression(asarray), [cst.Arg(updated)])

        return edit

    def _keyword_edit(self, canonical: bool, already_numpy: bool):
        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            assert isinstance(updated, cst.Call)
            kept = [a for a in updated.args if not (a.keyword is not None and a.keyword.value == "canonicalize_types")]
            at = next(i for i, a in enumerate(kept) if a.keyword is None or a.keyword.value == "val")
            first = kept[at]
            if canonical:
                wrapper: Optional[str] = self.ctx.add_helper(HELPER, HELPER_CODE)
            else:
                wrapper = None if already_numpy else self.ctx.name_for("numpy.asarray")
            if wrapper is not None:
                first = first.with_changes(value=cst.Call(cst.parse_expression(wrapper), [cst.Arg(first.value)]))
            kept[at] = first
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(args=kept)

        return edit
