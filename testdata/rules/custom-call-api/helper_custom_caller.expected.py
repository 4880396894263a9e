"""TransformerEngine's custom_caller: a helper, called by lowering rules only, builds the
removed custom_call (old out_types signature, returned as the rules' results) with
operands and layouts read off an argument wrapper and **kwargs passed on. It takes the
lowering context as its first parameter, every caller passes its own, and the call
reads no avals of the caller's primitive."""
from jaxlib.mlir import ir
import jax


class CustomCallArgsWrapper:
    """Operands, result types and layouts of one custom call."""

    def __init__(self, output_types, operands, operand_layouts, output_layouts):
        self.output_types = output_types
        self.operands = operands
        self.operand_layouts = operand_layouts
        self.output_layouts = output_layouts


def custom_caller(ctx, name, args, opaque, has_side_effect, **kwargs):
    """XLA custom call wrapper."""
    out = jax.ffi.build_ffi_lowering_function(name,
                      api_version=2,
                      result_types=args.output_types,
                      operand_layouts=args.operand_layouts,
                      result_layouts=args.output_layouts,
                      backend_config=opaque,
                      has_side_effect=has_side_effect,
                      result_shapes=None,
                      **kwargs)(ctx.replace(avals_in=[None] * len(args.operand_layouts), avals_out=[None] * len(args.output_layouts)), *args.operands).results
    return out


def _layernorm_fwd_lowering(ctx, x, gamma, *, epsilon):
    x_type = ir.RankedTensorType(x.type)
    args = CustomCallArgsWrapper([x_type], [x, gamma], [(1, 0), (0,)], [(1, 0)])
    return custom_caller(ctx, "te_layernorm_forward", args, b"\x01\x02opaque", False)


def _layernorm_bwd_lowering(ctx, dz, x):
    args = CustomCallArgsWrapper([ir.RankedTensorType(x.type)], [dz, x], [(1, 0), (1, 0)], [(1, 0)])
    return custom_caller(ctx, "te_layernorm_backward", args, b"\x03", True, operand_output_aliases={0: 0})


def _layernorm_fwd_single_lowering(ctx, x, gamma):
    args = CustomCallArgsWrapper([ir.RankedTensorType(x.type)], [x, gamma], [(1, 0), (0,)], [(1, 0)])
    out = custom_caller(ctx, "te_layernorm_forward_single", args, b"", False)
    return [out]
