"""The rules: one module per breakage, discovered by walking this package.

Adding a rule means adding one module here (a :class:`codemods.rule.Rule` subclass with
its docstring) and one folder of fixtures under ``testdata/rules/<rule-name>/``.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from codemods.rule import Rule


@lru_cache(maxsize=None)
def all_rules() -> tuple[type[Rule], ...]:
    found: list[type[Rule]] = []
    for info in pkgutil.iter_modules(__path__, __name__ + "."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, Rule)
                and value is not Rule
                and value.__module__ == module.__name__
                and value.name
            ):
                found.append(value)
    return tuple(sorted(found, key=lambda r: r.name))


def select_rules(select: frozenset[str] | None = None, ignore: frozenset[str] = frozenset()) -> tuple[type[Rule], ...]:
    """Rules chosen by ``--select``/``--ignore``; unknown names raise ``ValueError``."""
    rules = all_rules()
    known = {r.name for r in rules}
    unknown = sorted(((select or set()) | ignore) - known)
    if unknown:
        raise ValueError(f"unknown rule(s): {', '.join(unknown)} (known: {', '.join(sorted(known))})")
    return tuple(r for r in rules if (select is None or r.name in select) and r.name not in ignore)
