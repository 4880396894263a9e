from jax.core import Primitive

sh_enc_p = Primitive("spherical_harmonics_encoding")
