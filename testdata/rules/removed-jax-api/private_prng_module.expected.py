"""A PRNG extension (2024) registers its own implementation through the private
jax._src.prng: jax 0.10.2 made jax._src.random a package, and the module is
jax._src.random.prng now. Its threefry pieces moved on: the ones jax.extend.random
exports are read from there, the rest from jax._src.random.threefry2x32."""
import jax
from jax._src.random import prng as jax_prng
from jax._src.random.prng import PRNGImpl
from jax._src.random.threefry2x32 import threefry_fold_in, threefry_random_bits, threefry_seed, threefry_split
from jax.extend.random import threefry_prng_impl


def _fold_in(key, data):
    return threefry_fold_in(key, data)


mirror_impl = PRNGImpl(
    key_shape=(2,),
    seed=threefry_seed,
    split=threefry_split,
    random_bits=threefry_random_bits,
    fold_in=_fold_in,
    name="mirror_threefry",
    tag="mir",
)
jax_prng.register_prng(mirror_impl)


def uniform_pair(seed):
    key = jax.random.key(seed, impl=mirror_impl)
    reference = jax.random.key(seed, impl=threefry_prng_impl)
    return jax.random.uniform(key, (3,)), jax.random.uniform(reference, (3,))
