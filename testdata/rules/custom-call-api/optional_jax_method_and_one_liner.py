"""jax is an optional dependency: a lowering rule that is a method imports jax in the
method, and a one-line rule gets `import jax; ` in its line; nothing at module level."""


class Kernels:
    def lowering(self, ctx, x):
        from jaxlib.hlo_helpers import custom_call
        from jax.interpreters import mlir
        out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
        return custom_call("kernel", result_types=[out_type], operands=[x]).results


def one_line_lowering(ctx, x): from jaxlib.hlo_helpers import custom_call; return custom_call("kernel", result_types=[x.type], operands=[x]).results
