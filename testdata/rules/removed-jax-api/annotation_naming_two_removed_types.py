"""A typed XlaBuilder helper whose annotations each name two removed translation types: one
finding drops each annotation."""
from typing import Tuple
from jax.interpreters import xla


def rule(c, v):
    res: Tuple[xla.XlaOp, xla.TranslationContext] = v
    return res


def rule2(c: Tuple[xla.XlaOp, xla.TranslationContext]) -> Tuple[xla.XlaOp, xla.AxisEnv]:
    return c
