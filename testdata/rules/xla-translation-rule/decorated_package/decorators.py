"""Decorators of the extension's translation rules: a check before each lowering, the
arguments and results passed through untouched."""
import functools

_flushed = set()


def _flush_at_exit(platform):
    _flushed.add(platform)


def rule_cpu(func):
    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        _flush_at_exit("cpu")
        return func(*args, **kwargs)

    return wrapped


def rule_gpu(func):
    _flush_at_exit("gpu")
    return func


def _check_builder(args):
    if type(args[0]).__name__ not in ("XlaBuilder", "ComputationBuilder"):
        raise TypeError(f"{args[0]!r} is no XlaBuilder")


def rule_traced(func):
    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        print("lowering", args)  # a log line: harmless
        _check_builder(args)  # a check of what the rule receives: not looked through
        return func(*args, **kwargs)

    return wrapped


def trace(name):
    """jax's primitives tutorial's tracer: prints each call and result, passes both on."""

    def trace_func(func):
        def pp(v):
            return "<XlaBuilder>" if "Builder" in type(v).__name__ else str(v)

        def pp_values(args):
            return ", ".join([pp(arg) for arg in args])

        @functools.wraps(func)
        def func_wrapper(*args):
            print("call {}({})".format(name, pp_values(args)))
            res = func(*args)
            print("|<- {} = {}".format(name, pp(res)))
            return res

        return func_wrapper

    return trace_func
