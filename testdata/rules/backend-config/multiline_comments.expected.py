"""Comments and line breaks inside the call survive the rewrite."""
from jaxlib import hlo_helpers
import json


def lower(ctx, x):
    return hlo_helpers.custom_call(
        b"legacy_target",
        result_types=[],
        operands=[x],
        backend_config=json.dumps({  # opaque to XLA
            "alpha": 2.0,  # scale
            # the kernel reads the mode first
            "mode": "fast",
        }, sort_keys=True, separators=(",", ":")),
    )
