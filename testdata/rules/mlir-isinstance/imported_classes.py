"""Classes imported from the bindings by name, a method passed as a value, values and
dialect classes."""
from jax._src.lib.mlir.dialects import hlo
from jaxlib.mlir import ir
from jaxlib.mlir.ir import DenseResourceElementsAttr, IntegerAttr, RankedTensorType


def operand_shapes(operands):
    return [RankedTensorType(v.type).shape for v in operands if RankedTensorType.isinstance(v.type)]


def integer_params(attrs):
    return [IntegerAttr(a).value for a in attrs if IntegerAttr.isinstance(a)]


def float_types(types):
    return list(filter(ir.F32Type.isinstance, types))


def produced_here(value):
    return ir.OpResult.isinstance(value) and not ir.BlockArgument.isinstance(value)


def is_token(t):
    return hlo.TokenType.isinstance(t)


def is_blob(attr):
    return DenseResourceElementsAttr.isinstance(attr)
