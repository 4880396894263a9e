# ccmigrate-args: --annotate
"""A registry probe importing the translation tables by name: jax.interpreters.xla lost them
in jax 0.4.29, so the uses and the imports kept for them are reported."""
# TODO(ccmigrate): [xla-translation-rule] `backend_specific_translations` is imported from jax.interpreters.xla, which lost it with translation rules (jax 0.4.29): the import fails; it stays for the 1 manual site(s) using it here: delete it once they are migrated
# TODO(ccmigrate): [xla-translation-rule] `translations` is imported from jax.interpreters.xla, which lost it with translation rules (jax 0.4.29): the import fails; it stays for the 1 manual site(s) using it here: delete it once they are migrated
from jax.interpreters.xla import backend_specific_translations, translations
# TODO(ccmigrate): [xla-translation-rule] `translations_with_avals` is imported from jax.interpreters.xla, which lost it with translation rules (jax 0.4.29), and not used here: the import fails; delete it (and its imports from this module elsewhere, if it is re-exported)
from jax.interpreters.xla import translations_with_avals


def has_translation(prim, platform="cpu"):
    # TODO(ccmigrate): [xla-translation-rule] xla.translations was removed with translation rules in jax 0.4.29, and this use is not a registration that can be rewritten here: register an MLIR lowering with `mlir.register_lowering(prim, rule, platform=...)` instead
    # TODO(ccmigrate): [xla-translation-rule] xla.backend_specific_translations was removed with translation rules in jax 0.4.29, and this use is not a registration that can be rewritten here: register an MLIR lowering with `mlir.register_lowering(prim, rule, platform=...)` instead
    return prim in translations or prim in backend_specific_translations[platform]
