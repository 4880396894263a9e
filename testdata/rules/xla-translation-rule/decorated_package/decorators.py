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


def rule_traced(func):
    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        print("lowering", args)
        return func(*args, **kwargs)

    return wrapped
