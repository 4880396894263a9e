"""jax is an optional dependency: a lowering rule that is a method imports jax in the
method, and a one-line rule gets `import jax; ` in its line; nothing at module level."""


class Kernels:
    def lowering(self, ctx, x):
        from jax.interpreters import mlir
        import jax
        out_type = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
        return jax.ffi.ffi_lowering("kernel", api_version=2, result_types=[out_type], skip_ffi_layout_processing=True)(ctx, x)


def one_line_lowering(ctx, x): import jax; return jax.ffi.ffi_lowering("kernel", api_version=2, result_types=[x.type], skip_ffi_layout_processing=True)(ctx, x)
