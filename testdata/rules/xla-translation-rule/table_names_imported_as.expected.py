# ccmigrate-args: --annotate
"""The translation tables imported under other names (`from jax.interpreters.xla import
translations as xla_translations`): each name read is a table all the same, reported with
the import kept for it."""
# TODO(ccmigrate): [xla-translation-rule] `platform_rules` is imported from jax.interpreters.xla, which lost it with translation rules (jax 0.4.29): the import fails; it stays for the 1 manual site(s) using it here: delete it once they are migrated
from jax.interpreters.xla import backend_specific_translations as platform_rules
# TODO(ccmigrate): [xla-translation-rule] `xla_translations` is imported from jax.interpreters.xla, which lost it with translation rules (jax 0.4.29): the import fails; it stays for the 1 manual site(s) using it here: delete it once they are migrated
from jax.interpreters.xla import translations as xla_translations


def lowers_on(prim, platform="cpu"):
    # TODO(ccmigrate): [xla-translation-rule] xla.translations was removed with translation rules in jax 0.4.29, and this use is not a registration that can be rewritten here: register an MLIR lowering with `mlir.register_lowering(prim, rule, platform=...)` instead
    # TODO(ccmigrate): [xla-translation-rule] xla.backend_specific_translations was removed with translation rules in jax 0.4.29, and this use is not a registration that can be rewritten here: register an MLIR lowering with `mlir.register_lowering(prim, rule, platform=...)` instead
    return prim in xla_translations or prim in platform_rules[platform]
