# ccmigrate-args: --annotate
"""The translation tables imported under other names (`from jax.interpreters.xla import
translations as xla_translations`): each name read is a table all the same, reported with
the import kept for it."""
from jax.interpreters.xla import backend_specific_translations as platform_rules
from jax.interpreters.xla import translations as xla_translations


def lowers_on(prim, platform="cpu"):
    return prim in xla_translations or prim in platform_rules[platform]
