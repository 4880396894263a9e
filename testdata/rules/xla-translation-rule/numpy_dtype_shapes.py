"""A language bridge (2021) calls compiled functions as CPU custom calls: the rule reads
each operand's builder shape with numpy_dtype() and dimensions() to work out the result
aval, then calls ops.CustomCall with no layouts. numpy_dtype() gave the same NumPy dtype
as element_type(): both become the aval's dtype."""
import numpy as np
import jax
from jax.extend.core import Primitive
from jax.interpreters import xla
from jax.lib import xla_client as xc

native_call_p = Primitive("native_call")


def result_aval(*avals, symbol):
    del symbol
    return jax.core.ShapedArray(avals[0].shape, np.result_type(*(a.dtype for a in avals)))


native_call_p.def_abstract_eval(result_aval)


def native_call_cpu_translation(b, *args, symbol):
    xla_shapes = list(map(b.get_shape, args))
    aval = result_aval(*(jax.core.ShapedArray(xshape.dimensions(), xshape.numpy_dtype()) for xshape in xla_shapes),
                       symbol=symbol)
    result_xshape = xc.Shape.array_shape(aval.dtype, aval.shape)
    return xc.ops.CustomCall(b, symbol.encode(), operands=args, shape=result_xshape)


xla.backend_specific_translations["cpu"][native_call_p] = native_call_cpu_translation


def compat_entry():
    return (lambda x, y: native_call_p.bind(x, y, symbol="native_add")), (np.ones((2, 3), np.float32),
                                                                         np.ones((2, 3), np.float32))
