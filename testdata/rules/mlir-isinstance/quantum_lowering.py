"""Lowering rules of a quantum-circuit frontend that branch on their operands' MLIR types
(the shape of PennyLane Catalyst's jax_primitives before jaxlib 0.9)."""
from jax._src.lib.mlir import ir
from jax.interpreters import mlir
from jaxlib.mlir.dialects.arith import IndexCastOp
from jaxlib.mlir.dialects.tensor import ExtractOp as TensorExtractOp


def _qextract_lowering(jax_ctx: mlir.LoweringRuleContext, qreg: ir.Value, qubit_idx: ir.Value):
    assert ir.OpaqueType.isinstance(qreg.type)
    assert ir.OpaqueType(qreg.type).dialect_namespace == "quantum"

    if ir.RankedTensorType.isinstance(qubit_idx.type) and ir.RankedTensorType(qubit_idx.type).shape == []:
        base_type = ir.RankedTensorType(qubit_idx.type).element_type
        qubit_idx = TensorExtractOp(base_type, qubit_idx, []).result
    assert ir.IntegerType.isinstance(qubit_idx.type), "Scalar index must be an integer."
    if not ir.IndexType.isinstance(qubit_idx.type):
        qubit_idx = IndexCastOp(ir.IndexType.get(), qubit_idx).result
    return qubit_idx


def _qunitary_lowering(jax_ctx, matrix: ir.Value, *qubits):
    matrix_type = matrix.type
    is_tensor = ir.RankedTensorType.isinstance(matrix_type)
    shape = ir.RankedTensorType(matrix_type).shape if is_tensor else None
    if not (is_tensor and len(shape) == 2):
        raise TypeError("QubitUnitary must be a 2 dimensional tensor.")
    element = ir.RankedTensorType(matrix_type).element_type
    if not ir.ComplexType.isinstance(element):
        raise TypeError("QubitUnitary must be complex.")
    if ir.F64Type.isinstance(ir.ComplexType(element).element_type):
        return matrix
    shaped = ir.ShapedType(matrix_type)
    return ir.RankedTensorType.isinstance(shaped)


def _static_params(attr):
    if ir.IntegerAttr.isinstance(attr):
        return [ir.IntegerAttr(attr).value]
    if ir.DenseIntElementsAttr.isinstance(attr):
        return list(ir.DenseIntElementsAttr(attr))
    if mlir.ir.SymbolRefAttr.isinstance(attr):
        return [str(attr)]
    return []
