"""A quantum-chemistry solver's lowering helper (pyscfad style): the removed builder and its
imports live in a branch for jax < 0.8 only, next to the FFI branch. On the target that branch
does not run, so nothing in it fails: the call is left as is with the replacement to use when
the branch goes, and the imports kept for it are not reported as failing at import time."""
import jax

if tuple(int(p) for p in jax.__version__.split(".") if p.isdigit()) < (0, 8):
    from jaxlib.hlo_helpers import custom_call, hlo_s32

    def sygvd_hlo(fn, a, b, result_types, layouts):
        n = hlo_s32(3)
        return custom_call(
            fn,
            result_types=result_types,
            operands=[n, a, b],
            operand_layouts=[(), *layouts],
            result_layouts=layouts,
        ).results
else:
    def sygvd_hlo(fn, a, b, result_types, layouts):
        raise NotImplementedError("use the FFI lowering")
