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
