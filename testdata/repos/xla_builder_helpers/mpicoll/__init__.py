from .collective_ops.allreduce import Allreduce

__all__ = ["Allreduce"]
