"""``version-string-compare``: ``jax.__version__ >= "0.4.16"`` compares text, not versions.

Legacy form
    A version test written as a string comparison: ``if jax.__version__ >= '0.4.16':``,
    ``jaxlib.__version__ < "0.4.2"``, also with the literal on the left. It only ever held
    while every part of the version had one digit: ``'0.4.9' >= '0.4.16'`` is already
    ``True``, and since jax **0.10.0** every such test against a ``0.4``-``0.9`` literal
    answers wrongly, because ``'0.10.2' >= '0.4.16'`` is ``False`` as text. Compatibility
    code then picks the branch written for old jax (the XlaBuilder translation rule, the
    removed import) on the newest releases: the module fails, or a primitive is left
    without a lowering.

Replacement (every jax release)
    The same comparison between integer tuples, parsed the way jax parses its own
    version (``jax.version._version_as_tuple``: the dot-separated parts that are digits)::

        tuple(int(p) for p in jax.__version__.split(".") if p.isdigit()) >= (0, 4, 16)

    ``jax.__version_info__`` would read better but is missing from some of the old
    releases such a test exists for; the expression above works on all of them and on
    ``jaxlib.__version__``. Equality tests are left alone (text equality is version
    equality for the literal written), and so are comparisons with anything but a
    version literal.

What the kernel receives afterwards
    Unchanged by this rule; the branch the test selects on the target jax is the one
    written for it.

Safety
    Safe: on every release whose version has one-digit parts the tuple comparison gives
    the same answer as the text one, and where they differ the text comparison was
    wrong (it is what broke). The change is reported at the test, so the branch it now
    selects can be reviewed.

Before::

    if jax.__version__ >= '0.4.16':
        from .numba_based import register_numba_mlir_cpu_translation_rule as register_cpu
    else:
        from .numba_based import register_numba_xla_cpu_translation_rule as register_cpu

After::

    if tuple(int(p) for p in jax.__version__.split(".") if p.isdigit()) >= (0, 4, 16):
        ...
"""

from __future__ import annotations

import libcst as cst

from codemods.rule import Rule, Safety
from codemods.rules._shared import VERSION_STRINGS, version_string

ORDERING = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)


class VersionStringCompare(Rule):
    __doc__ = __doc__
    name = "version-string-compare"
    summary = "Compare jax/jaxlib versions as integer tuples, not text ('0.10.2' < '0.4.16' as text)."
    triggers = (b"__version__",)
    statement_scoped = True

    def visit_Comparison(self, node: cst.Comparison) -> None:
        if len(node.comparisons) != 1 or not isinstance(node.comparisons[0].operator, ORDERING):
            return
        left, right = node.left, node.comparisons[0].comparator
        version_on_left = self._version(left)
        version = left if version_on_left else right
        literal = version_string(right if version_on_left else left)
        if literal is None or not (version_on_left or self._version(right)):
            return
        parts = tuple(int(p) for p in literal.split("."))
        code = self.ctx.module.code_for_node(version)
        parsed = cst.parse_expression(f'tuple(int(p) for p in {code}.split(".") if p.isdigit())')
        bound = cst.parse_expression(f"({', '.join(map(str, parts))},)" if len(parts) == 1 else repr(parts))

        def edit(updated: cst.CSTNode) -> cst.CSTNode:
            if not isinstance(updated, cst.Comparison):
                return updated
            target = updated.comparisons[0]
            if version_on_left:
                return updated.with_changes(left=parsed, comparisons=[target.with_changes(comparator=bound)])
            return updated.with_changes(left=bound, comparisons=[target.with_changes(comparator=parsed)])

        self.report(
            node,
            Safety.SAFE,
            f"{code} compared with '{literal}' as text, which is wrong once a part has two digits "
            f"('0.10.2' < '0.4.16' as text; jax is at 0.10): compared as integers",
            edit,
            kernel_receives="unchanged (the branch written for the target jax is the one taken)",
        )

    def _version(self, node: cst.BaseExpression) -> bool:
        return isinstance(node, (cst.Attribute, cst.Name)) and self.ctx.qualified_name(node) in VERSION_STRINGS
