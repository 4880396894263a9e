# ccmigrate-args: --annotate --select hlo-helpers,custom-call-api
"""A builder call with no lowering context in reach stays; so does its import, and both
are reported (annotated here)."""
from jaxlib.hlo_helpers import custom_call


def build_call(name, operands, out_type, opaque):
    return custom_call(name, result_types=[out_type], operands=operands, backend_config=opaque).results
