"""Functions imported by name, a pure flavour on another device index, and the uses with
no faithful rewrite: the device passed to the callback, id_print, a stored function."""
import numpy as np
from jax.experimental.host_callback import CallbackFlavor, call, id_print, id_tap


def host_double(x):
    return np.asarray(x * 2)


def double(x):
    return call(host_double, x, result_shape=x, callback_flavor=CallbackFlavor.PURE, device_index=0)


def debug_tap(x, tap):
    id_tap(tap, x, callback_flavor=CallbackFlavor.DEBUG)
    return x


def with_device(x):
    return call(lambda v, device: v, x, result_shape=x, call_with_device=True)


def show(x):
    return id_print(x, what="x")


TAP = id_tap
