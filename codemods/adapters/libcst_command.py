"""Any ccmigrate rule as a LibCST ``CodemodCommand``, so LibCST's own runner can run it.

``python -m libcst.tool codemod -x codemods.adapters.libcst_command.BackendConfigCommand
--no-format --unified-diff=3 PATH`` applies exactly the edits ``ccmigrate diff`` shows for
``backend-config``: the command hands the tree the runner parsed to the same rule
visitors and the same edit application as the engine, so comparing the two runners
measures the runners, not two different transforms.

One class per rule is generated at import time, named after the rule in CamelCase with
``Command`` appended (``backend-config`` -> ``BackendConfigCommand``). The runner
supplies the file name (for relative imports and package-local lookups); the options are
the defaults of ``ccmigrate diff`` on the installed jax.
"""

from __future__ import annotations

import argparse
from typing import Optional

import libcst as cst
from libcst.codemod import CodemodCommand, SkipFile

from codemods import engine
from codemods.context import FileContext, Options
from codemods.rule import Rule
from codemods.rules import all_rules


class RuleCommand(CodemodCommand):
    """Runs :attr:`rule` over each module the LibCST runner hands it."""

    rule: type[Rule]
    DESCRIPTION = "Run a ccmigrate rule."

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes that need review")

    def __init__(self, context, unsafe_fixes: bool = False) -> None:
        super().__init__(context)
        from codemods.cli import installed_jax

        self.options = Options(target_jax=installed_jax(), unsafe_fixes=unsafe_fixes)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        path = self.context.filename or "<stdin>"
        source = _source_of(self.context.filename, tree)
        # The same cheap test the engine makes; it only ever spares the peer work.
        if not engine.triggered((self.rule,), source):
            raise SkipFile(f"no {self.rule.name} trigger")
        package = engine.package_of(path) if self.context.filename else None
        ctx = FileContext(path, source, tree, self.options, package)
        ctx.wrapper.visit_batched([self.rule(ctx)])
        engine.locate_findings(ctx)
        new = engine.rewrite(ctx)
        return tree if new is None else new


def _source_of(filename: Optional[str], tree: cst.Module) -> bytes:
    if filename:
        try:
            with open(filename, "rb") as fh:
                return fh.read()
        except OSError:
            pass
    return tree.bytes


def command_name(rule: type[Rule]) -> str:
    return "".join(part.capitalize() for part in rule.name.split("-")) + "Command"


def _make(rule: type[Rule]) -> type[RuleCommand]:
    return type(command_name(rule), (RuleCommand,), {"rule": rule, "DESCRIPTION": rule.summary, "__module__": __name__})


for _rule in all_rules():
    globals()[command_name(_rule)] = _make(_rule)
del _rule
