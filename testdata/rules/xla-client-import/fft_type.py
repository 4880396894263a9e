"""A distributed FFT's type enum taken from xla_client, aliased and matched on: jax.lax
holds the same enum."""
from jax.lib import xla_client

FftType = xla_client.FftType


def fft_type_of(name: str) -> xla_client.FftType:
    if name in ("fft", "FFT"):
        return xla_client.FftType.FFT
    return xla_client.FftType.IFFT


def is_forward(fft_type):
    match fft_type:
        case xla_client.FftType.FFT | xla_client.FftType.RFFT:
            return True
        case _:
            return fft_type in (FftType.RFFT,)
