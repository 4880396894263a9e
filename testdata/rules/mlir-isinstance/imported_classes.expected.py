"""Classes imported from the bindings by name, a method passed as a value, values and
dialect classes."""
from jax._src.lib.mlir.dialects import hlo
from jaxlib.mlir import ir
from jaxlib.mlir.ir import DenseResourceElementsAttr, IntegerAttr, RankedTensorType


def operand_shapes(operands):
    return [RankedTensorType(v.type).shape for v in operands if isinstance(v.type, RankedTensorType)]


def integer_params(attrs):
    return [IntegerAttr(a).value for a in attrs if isinstance(a, (IntegerAttr, ir.BoolAttr))]


def float_types(types):
    return list(filter(ir.F32Type.isinstance, types))


def produced_here(value):
    return isinstance(value, ir.OpResult) and not isinstance(value, ir.BlockArgument)


def is_token(t):
    return hlo.TokenType.isinstance(t)


def is_blob(attr):
    return DenseResourceElementsAttr.isinstance(attr)
