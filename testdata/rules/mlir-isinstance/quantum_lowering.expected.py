"""Lowering rules of a quantum-circuit frontend that branch on their operands' MLIR types
(the shape of PennyLane Catalyst's jax_primitives before jaxlib 0.9)."""
from jax._src.lib.mlir import ir
from jax.interpreters import mlir
from jaxlib.mlir.dialects.arith import IndexCastOp
from jaxlib.mlir.dialects.tensor import ExtractOp as TensorExtractOp


def _qextract_lowering(jax_ctx: mlir.LoweringRuleContext, qreg: ir.Value, qubit_idx: ir.Value):
    assert isinstance(qreg.type, ir.OpaqueType)
    assert ir.OpaqueType(qreg.type).dialect_namespace == "quantum"

    if isinstance(qubit_idx.type, ir.RankedTensorType) and ir.RankedTensorType(qubit_idx.type).shape == []:
        base_type = ir.RankedTensorType(qubit_idx.type).element_type
        qubit_idx = TensorExtractOp(base_type, qubit_idx, []).result
    assert isinstance(qubit_idx.type, ir.IntegerType), "Scalar index must be an integer."
    if not isinstance(qubit_idx.type, ir.IndexType):
        qubit_idx = IndexCastOp(ir.IndexType.get(), qubit_idx).result
    return qubit_idx


def _qunitary_lowering(jax_ctx, matrix: ir.Value, *qubits):
    matrix_type = matrix.type
    is_tensor = isinstance(matrix_type, ir.RankedTensorType)
    shape = ir.RankedTensorType(matrix_type).shape if is_tensor else None
    if not (is_tensor and len(shape) == 2):
        raise TypeError("QubitUnitary must be a 2 dimensional tensor.")
    element = ir.RankedTensorType(matrix_type).element_type
    if not isinstance(element, ir.ComplexType):
        raise TypeError("QubitUnitary must be complex.")
    if isinstance(ir.ComplexType(element).element_type, ir.F64Type):
        return matrix
    shaped = ir.ShapedType(matrix_type)
    return isinstance(shaped.maybe_downcast(), ir.RankedTensorType)


def _static_params(attr):
    if isinstance(attr, (ir.IntegerAttr, ir.BoolAttr)):
        return [ir.IntegerAttr(attr).value]
    if isinstance(attr, ir.DenseIntElementsAttr):
        return list(ir.DenseIntElementsAttr(attr))
    if isinstance(attr, (mlir.ir.SymbolRefAttr, mlir.ir.FlatSymbolRefAttr)):
        return [str(attr)]
    return []
