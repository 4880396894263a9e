"""A distributed FFT's type enum taken from xla_client, aliased and matched on: jax.lax
holds the same enum."""
import jax

FftType = jax.lax.FftType


def fft_type_of(name: str) -> jax.lax.FftType:
    if name in ("fft", "FFT"):
        return jax.lax.FftType.FFT
    return jax.lax.FftType.IFFT


def is_forward(fft_type):
    match fft_type:
        case jax.lax.FftType.FFT | jax.lax.FftType.RFFT:
            return True
        case _:
            return fft_type in (FftType.RFFT,)
