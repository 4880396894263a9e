"""A module alias made by assignment fails like the import it stands for: reported."""
import jax

xla_client = jax.lib.xla_client
for _name, _value in {}.items():
    xla_client.register_custom_call_target(_name, _value, platform="cpu")
