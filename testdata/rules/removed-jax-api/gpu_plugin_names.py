"""jax-triton-style bridge: jaxlib binds these names only with a CUDA or ROCm plugin
installed; without one they are reported (nothing to rewrite), with one they are fine.
An annotation naming one stays too: it resolves where the code runs."""
from jax._src.lib import gpu_triton as triton_kernel_call_lib
from jaxlib import gpu_prng


def kernel_call(module, name, num_warps, grid) -> triton_kernel_call_lib.TritonKernelCall:
    kernel = triton_kernel_call_lib.TritonKernel(module, name, num_warps, 0)
    params = [triton_kernel_call_lib.create_scalar_parameter(1, "i32")]
    return triton_kernel_call_lib.TritonKernelCall(kernel, *grid, params)


def prng_descriptor(n):
    return gpu_prng._cuda_prng.threefry2x32_descriptor(n)
