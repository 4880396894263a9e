"""A local function that merely shares a name with jax's is never touched."""


def custom_call(name, **kwargs):
    return name, kwargs


def ffi_lowering(name, **kwargs):
    return name


class mlir:
    @staticmethod
    def custom_call(name, **kwargs):
        return name


def build():
    custom_call("x", backend_config={"a": 1})
    ffi_lowering("y", api_version=2, backend_config=[1])
    return mlir.custom_call("z", backend_config={"b": 2})
