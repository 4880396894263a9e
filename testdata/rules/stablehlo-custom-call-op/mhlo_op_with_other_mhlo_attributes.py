"""An MHLO attribute with no stablehlo namesake built in the module: the op stays
mhlo (it still lowers) and the site is reported."""
from jaxlib.mlir import ir
from jaxlib.mlir.dialects import mhlo


def lowering(ctx, x, *, name):
    op = mhlo.CustomCallOp(
        [x.type],
        [x],
        call_target_name=ir.StringAttr.get(name),
        api_version=ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
    )
    op.attributes["mhlo.direction"] = mhlo.ComparisonDirectionAttr.get("EQ")
    return [op.result]
