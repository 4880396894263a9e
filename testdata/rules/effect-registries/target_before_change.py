# ccmigrate-args: --target-jax 0.4.20
"""For a jax release not checked to have jax._src.effects' registries, nothing changes."""
from jax.interpreters import mlir


class Effect:
    pass


mlir.lowerable_effects.add(Effect())
