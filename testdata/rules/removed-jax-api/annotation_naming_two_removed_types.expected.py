"""A typed XlaBuilder helper whose annotations each name two removed translation types: one
finding drops each annotation."""
from typing import Tuple


def rule(c, v):
    res = v
    return res


def rule2(c):
    return c
