"""The translation tables read other than to register a rule: kept in a name, searched,
measured. jax removed them with translation rules; each read is reported, nothing is
rewritten (what the code meant to do with the table is not in its text)."""
from jax.interpreters import xla


def register(platform, prim, rule):
    table = xla.backend_specific_translations
    table[platform][prim] = rule


def is_registered(prim):
    return prim in xla.translations or any(prim in t for t in xla.backend_specific_translations.values())
