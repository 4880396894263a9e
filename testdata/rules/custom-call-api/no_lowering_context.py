# ccmigrate-args: --annotate
"""A module-level helper without a lowering context: manual, annotated."""
from jaxlib.hlo_helpers import custom_call


def build_call(name, operands, out_type, opaque):
    return custom_call(name, result_types=[out_type], operands=operands, backend_config=opaque).results
