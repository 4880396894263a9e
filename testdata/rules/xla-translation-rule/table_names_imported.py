# ccmigrate-args: --annotate
"""A registry probe importing the translation tables by name: jax.interpreters.xla lost them
in jax 0.4.29, so the uses and the imports kept for them are reported."""
from jax.interpreters.xla import backend_specific_translations, translations
from jax.interpreters.xla import translations_with_avals


def has_translation(prim, platform="cpu"):
    return prim in translations or prim in backend_specific_translations[platform]
