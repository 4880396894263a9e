"""``removed-jax-api``: move renamed jax names; report every other jax name the target lacks.

Moved names (safe rewrites, curated; each target is the same object on jax 0.10.2)
    ===========================================  ==========================================
    legacy                                       becomes
    ===========================================  ==========================================
    ``jax.abstract_arrays.ShapedArray``          ``jax.core.ShapedArray`` (module removed in
    (and ``abstract_arrays.ShapedArray`` after   jax 0.4.14)
    ``from jax import abstract_arrays``)
    ``from jax.config import config``            ``from jax import config`` (``jax.config``
                                                 module removed in jax 0.4.25)
    ``from jax import xla``                      ``from jax.interpreters import xla`` (the
                                                 alias was removed in jax 0.4.0)
    ``jax.core.Token``                           ``jax.extend.core.Token`` (removed from
                                                 ``jax.core`` by 0.10)
    ===========================================  ==========================================

    ``from jax import abstract_arrays`` is dropped only when every use of it is
    ``abstract_arrays.ShapedArray``; otherwise the import is reported.

Everything else (manual)
    Any import of, or dotted use through an import of, a ``jax.*``/``jaxlib.*`` name that
    the installed jax does not define is reported on its line, e.g. ``jax.dlpack.to_dlpack
    does not exist in the installed jax 0.10.2``. ``jax.interpreters.ad.Zero.from_value``
    falls here: 0.10.2 has no public replacement (build ``ad.Zero(aval)`` directly).
    Names that other rules migrate (``jax.core.Primitive``, ``jaxlib.hlo_helpers``,
    ``jaxlib.mhlo_helpers``, ``jax.extend.ffi``, ``jax.lib``/``jaxlib`` ``xla_client``,
    ``xla_bridge``, ``xla_extension``, ``jax.interpreters.xla`` translation APIs) are
    left to them.

    Existence is decided from the installed jax's *source*, never by importing it: the
    package directory comes from ``importlib.util.find_spec`` (which does not import
    jax), ``jax.a.b`` maps to ``jax/a/b.py`` or ``jax/a/b/__init__.py``, and a module's
    names are what it binds at top level (``def``, ``class``, assignments, imports,
    ``__all__``, one level of ``import *``, minus top-level ``del``). A name in the
    module's ``_deprecations`` table with no object is missing; a module ``__getattr__``
    built by jax's ``deprecation_getattr`` serves only that table. Any other
    ``__getattr__``, a compiled module, or a file that does not parse counts as "the name
    exists": a doubt never produces a finding. The catch-all runs only when
    ``--target-jax`` is the installed release, the only one whose source is at hand.

Left alone
    Sites inside compatibility guards (``try``/``except ImportError``, version tests,
    ``hasattr``). Moved names are rewritten only for a ``--target-jax`` that has the new
    spelling.

What the kernel receives afterwards
    Unchanged: the rewrites name the same objects.

Before::

    from jax.abstract_arrays import ShapedArray
    from jax.config import config

After::

    from jax.core import ShapedArray
    from jax import config
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
from functools import lru_cache
from typing import Optional

import libcst as cst
from libcst.helpers import get_full_name_for_node

from codemods.rule import Rule, Safety
from codemods.rules._shared import compatibility_guard, member_spelling

#: legacy qualified name -> (new qualified name, first jax release that has the new one).
MOVED = {
    "jax.abstract_arrays.ShapedArray": ("jax.core.ShapedArray", (0, 4, 0)),
    "jax.config.config": ("jax.config", (0, 4, 0)),
    "jax.xla": ("jax.interpreters.xla", (0, 4, 0)),
    "jax.core.Token": ("jax.extend.core.Token", (0, 4, 36)),
}
#: Modules whose uses, once all rewritten, let their import go.
MOVED_MODULES = {"jax.abstract_arrays": "ShapedArray"}

TRANSLATIONS = re.compile(rb"backend_specific_translations|register_translation|translations\[")

#: Prefixes other rules migrate or report; this rule says nothing about them.
OWNED = (
    "jax.core.Primitive",
    "jaxlib.hlo_helpers",
    "jaxlib.mhlo_helpers",
    "jax.extend.ffi",
    "jax.lib.xla_client",
    "jax.lib.xla_bridge",
    "jax.lib.xla_extension",
    "jaxlib.xla_client",
    "jaxlib.xla_extension",
    "jax._src.lib.xla_client",
    "jax._src.lib.xla_bridge",
    "jax.interpreters.xla.",
    "jax.interpreters.mlir.custom_call",
)


def _owned(name: str) -> bool:
    return any(name == p.rstrip(".") and not p.endswith(".") or name.startswith(p.rstrip(".") + ".") for p in OWNED)


# -- the installed jax, read from its source ------------------------------------------

@lru_cache(maxsize=None)
def _package_dir(top: str) -> Optional[str]:
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec else []
    return locations[0] if locations else None


@lru_cache(maxsize=None)
def installed_version() -> Optional[tuple[int, ...]]:
    base = _package_dir("jax")
    if base is None:
        return None
    try:
        with open(os.path.join(base, "version.py"), encoding="utf-8") as f:
            match = re.search(r'^_version\s*(?::\s*str)?\s*=\s*"([0-9.]+)"', f.read(), re.M)
    except OSError:
        return None
    return tuple(int(p) for p in match.group(1).split(".")) if match else None


@lru_cache(maxsize=None)
def _module_file(module: str) -> Optional[str]:
    """Source file of ``module``; ``""`` when it exists but is compiled; ``None`` if absent."""
    parts = module.split(".")
    base = _package_dir(parts[0])
    if base is None:
        return ""  # not installed: nothing can be said
    path = os.path.join(base, *parts[1:])
    for candidate in (path + ".py", os.path.join(path, "__init__.py")):
        if os.path.isfile(candidate):
            return candidate
    directory, stem = os.path.split(path)
    try:
        if any(n.startswith(stem + ".") and n.endswith((".so", ".pyd")) for n in os.listdir(directory)):
            return ""
    except OSError:
        return None
    return "" if os.path.isdir(path) else None


class _Names:
    """What one module binds at top level."""

    def __init__(self, names: set[str], removed: set[str], deprecated: set[str], opaque: bool,
                 classes: dict[str, ast.ClassDef], imported: dict[str, str]) -> None:
        self.names = names
        self.removed = removed
        self.deprecated = deprecated
        #: A ``__getattr__`` that may serve any name.
        self.opaque = opaque
        self.classes = classes
        #: local name -> qualified name it was imported from
        self.imported = imported


def _top_statements(body):
    for stmt in body:
        yield stmt
        if isinstance(stmt, (ast.If, ast.Try, ast.With)):
            blocks = [stmt.body, getattr(stmt, "orelse", []), getattr(stmt, "finalbody", [])]
            blocks += [h.body for h in getattr(stmt, "handlers", [])]
            for block in blocks:
                yield from _top_statements(block)


def _resolve(module: str, level: int, target: Optional[str], is_package: bool) -> str:
    if not level:
        return target or ""
    parts = module.split(".")
    base = parts if is_package else parts[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


@lru_cache(maxsize=None)
def _names_of(module: str, follow_star: bool = True) -> Optional[_Names]:
    path = _module_file(module)
    if not path:
        return None
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError):
        return None
    is_package = path.endswith("__init__.py")
    names: set[str] = set()
    removed: set[str] = set()
    deprecated: set[str] = set()
    classes: dict[str, ast.ClassDef] = {}
    imported: dict[str, str] = {}
    opaque = False
    for stmt in _top_statements(tree.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
            if isinstance(stmt, ast.ClassDef):
                classes[stmt.name] = stmt
            if stmt.name == "__getattr__":
                opaque = True
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name):
                        names.add(node.id)
                        if node.id == "__getattr__" and not _is_deprecation_getattr(stmt.value):
                            opaque = True
                        if node.id == "_deprecations" and isinstance(stmt.value, ast.Dict):
                            for key, value in zip(stmt.value.keys, stmt.value.values):
                                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                                    gone = (isinstance(value, ast.Tuple) and len(value.elts) > 1
                                            and isinstance(value.elts[1], ast.Constant) and value.elts[1].value is None)
                                    (removed if gone else deprecated).add(key.value)
                        if node.id == "__all__" and isinstance(stmt.value, (ast.List, ast.Tuple)):
                            names.update(e.value for e in stmt.value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str))
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                local = alias.asname or alias.name.split(".")[0]
                names.add(local)
                imported[local] = alias.name if alias.asname else local
        elif isinstance(stmt, ast.ImportFrom):
            source = _resolve(module, stmt.level, stmt.module, is_package)
            for alias in stmt.names:
                if alias.name == "*":
                    star = _names_of(source, False) if follow_star and source.split(".")[0] in ("jax", "jaxlib") else None
                    if star is None or star.opaque:
                        opaque = True
                    else:
                        names.update(n for n in star.names if not n.startswith("_"))
                    continue
                local = alias.asname or alias.name
                names.add(local)
                imported[local] = f"{source}.{alias.name}"
        elif isinstance(stmt, ast.Delete):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    names.discard(target.id)
    return _Names(names, removed, deprecated, opaque, classes, imported)


def _is_deprecation_getattr(value: Optional[ast.expr]) -> bool:
    if not isinstance(value, ast.Call) or len(value.args) != 2:
        return False
    func = value.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    arg = value.args[1]
    return "deprecation_getattr" in name and isinstance(arg, ast.Name) and arg.id == "_deprecations"


def _class_has(cls: ast.ClassDef, attr: str) -> bool:
    """Whether a class defines ``attr``; true on any doubt (bases, metaclass, __getattr__)."""
    if cls.keywords or any(not (isinstance(b, ast.Name) and b.id == "object") for b in cls.bases):
        return True
    for stmt in _top_statements(cls.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if stmt.name in (attr, "__getattr__", "__getattribute__"):
                return True
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                for node in ast.walk(target):
                    if isinstance(node, ast.Name) and node.id in (attr, "__slots__") and node.id == attr:
                        return True
    return False


@lru_cache(maxsize=None)
def first_missing(qualified: str, depth: int = 0) -> Optional[str]:
    """The shortest prefix of ``qualified`` the installed jax lacks, or ``None``."""
    parts = qualified.split(".")
    if parts[0] not in ("jax", "jaxlib") or depth > 8:
        return None
    module = parts[0]
    if _package_dir(module) is None:
        return None
    for i in range(1, len(parts)):
        part = parts[i]
        sub = f"{module}.{part}"
        if _module_file(sub) is not None:
            module = sub
            continue
        info = _names_of(module)
        if info is None:
            return None
        prefix = ".".join(parts[: i + 1])
        if part in info.removed:
            return prefix
        if part in info.deprecated:
            return None
        if part not in info.names:
            return None if info.opaque else prefix
        rest = parts[i + 1:]
        if not rest:
            return None
        if part in info.imported:
            found = first_missing(".".join([info.imported[part], *rest]), depth + 1)
            if found is None:
                return None
            # Spell the missing part in the name the user wrote.
            return ".".join(parts[: i + 1 + len(found.split(".")) - len(info.imported[part].split("."))])
        if part in info.classes and not _class_has(info.classes[part], rest[0]):
            return ".".join(parts[: i + 2])
        return None
    return None


# -- the rule ---------------------------------------------------------------------------

class RemovedJaxApi(Rule):
    __doc__ = __doc__
    name = "removed-jax-api"
    summary = "Move renamed jax names (abstract_arrays, jax.config, jax.xla, core.Token); report jax names the target lacks."
    triggers = (b"jax",)

    def __init__(self, ctx) -> None:
        super().__init__(ctx)
        self.check_all = installed_version() is not None and tuple(ctx.options.target_jax) == installed_version()[: len(ctx.options.target_jax)]

    def moved(self, legacy: str) -> Optional[str]:
        target = MOVED.get(legacy)
        if target is None or tuple(self.ctx.options.target_jax) < target[1]:
            return None
        return target[0]

    def missing(self, qualified: str) -> Optional[str]:
        if not self.check_all or _owned(qualified):
            return None
        gone = first_missing(qualified)
        if gone is None or _owned(gone):
            return None
        return gone

    def manual(self, node: cst.CSTNode, gone: str) -> None:
        version = ".".join(map(str, installed_version() or ()))
        hint = " (no public replacement: build ad.Zero(aval) directly)" if gone.endswith("Zero.from_value") else ""
        self.report(node, Safety.MANUAL, f"{gone} does not exist in the installed jax {version}{hint}")

    def _all_uses_rewritable(self, local: str, module: str) -> bool:
        member = MOVED_MODULES[module]
        if self.moved(f"{module}.{member}") is None:
            return False
        text = self.ctx.source.decode("utf-8", "replace")
        uses = len(re.findall(rf"(?<![.\w]){re.escape(local)}\b", text))
        members = len(re.findall(rf"(?<![.\w]){re.escape(local)}\s*\.\s*{member}\b", text))
        imports = len(re.findall(rf"\bimport\b[^\n]*(?<![.\w]){re.escape(local)}\b", text))
        return imports == 1 and uses - imports == members

    def _only_registers_translations(self, local: str) -> bool:
        text = self.ctx.source.decode("utf-8", "replace")
        uses = len(re.findall(rf"(?<![.\w]){re.escape(local)}\b", text))
        registers = len(re.findall(
            rf"(?<![.\w]){re.escape(local)}\s*\.\s*(?:backend_specific_translations|translations|register_translation)\b", text))
        imports = len(re.findall(rf"\bimport\b[^\n]*(?<![.\w]){re.escape(local)}\b", text))
        return imports == 1 and uses - imports == registers

    # -- imports ---------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> Optional[bool]:
        for alias in node.names:
            full = get_full_name_for_node(alias.name) or ""
            gone = self.missing(full)
            if gone and not compatibility_guard(self.ctx, node):
                self.manual(node, gone)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> Optional[bool]:
        if node.relative:
            return False
        module = get_full_name_for_node(node.module) or ""
        if module.split(".")[0] not in ("jax", "jaxlib"):
            return False
        if isinstance(node.names, cst.ImportStar):
            gone = self.missing(module)
            if gone and not compatibility_guard(self.ctx, node):
                self.manual(node, gone)
            return False
        moves: list[tuple[str, str, Optional[str]]] = []  # (name, new qualified, asname)
        drops: list[str] = []
        reports: list[str] = []
        for alias in node.names:
            name = get_full_name_for_node(alias.name) or ""
            asname = get_full_name_for_node(alias.asname.name) if alias.asname else None
            qualified = f"{module}.{name}"
            new = self.moved(qualified)
            if new is not None and qualified == "jax.xla" and TRANSLATIONS.search(self.ctx.source):
                if self._only_registers_translations(asname or name):
                    # xla-translation-rule converts or reports each registration, and the
                    # import goes with the last one (or is reported as kept for them).
                    continue
                # Moving it would let xla-translation-rule convert these rules only on a
                # second run; the whole file is left for the user instead.
                reports.append("jax.xla (moved to jax.interpreters.xla; this module registers translation rules)")
                continue
            if new is not None:
                moves.append((name, new, asname))
                continue
            if qualified in MOVED_MODULES and self._all_uses_rewritable(asname or name, qualified):
                drops.append(name)
                continue
            gone = self.missing(qualified)
            if gone:
                reports.append(gone)
        if not (moves or drops or reports) or compatibility_guard(self.ctx, node):
            return False
        for gone in reports:
            self.manual(node, gone)
        if moves or drops:
            self.report(node, Safety.SAFE, self._move_message(module, moves, drops), self._import_edit(moves, drops),
                        kernel_receives="unchanged (the same objects)")
        return False

    def _move_message(self, module, moves, drops) -> str:
        said = [f"{module}.{name} is now {new}" for name, new, _ in moves]
        for name in drops:
            legacy = f"{module}.{name}"
            member = MOVED[f"{legacy}.{MOVED_MODULES[legacy]}"][0]
            said.append(f"{legacy} was removed (its uses now name {member})")
        return "; ".join(said)

    def _import_edit(self, moves, drops):
        def edit(updated: cst.CSTNode):
            assert isinstance(updated, cst.ImportFrom) and not isinstance(updated.names, cst.ImportStar)
            gone = {name for name, _, _ in moves} | set(drops)
            for name, new, asname in moves:
                new_module, _, new_name = new.rpartition(".")
                local = asname or name
                self.ctx.add_import(new_module, new_name, None if local == new_name else local)
            kept = [a for a in updated.names if (get_full_name_for_node(a.name) or "") not in gone]
            if not kept:
                return cst.RemovalSentinel.REMOVE
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated.with_changes(names=kept)

        return edit

    # -- dotted uses -------------------------------------------------------------
    def visit_Attribute(self, node: cst.Attribute) -> Optional[bool]:
        qualified = self.ctx.qualified_name(node)
        if not qualified or qualified.split(".")[0] not in ("jax", "jaxlib"):
            return None
        head = (get_full_name_for_node(node) or "").split(".")[0]
        new = self.moved(qualified)
        if new is not None and not self._import_line_moves(head):
            if compatibility_guard(self.ctx, node):
                return False
            new_module, _, new_name = new.rpartition(".")

            def edit(_updated: cst.CSTNode) -> cst.CSTNode:
                return cst.parse_expression(member_spelling(self.ctx, new_module, new_name, moved_from=qualified))

            self.report(node, Safety.SAFE, f"{qualified} was removed; the same object is {new}", edit,
                        kernel_receives="unchanged (the same objects)")
            return False
        gone = self.missing(qualified)
        if gone != qualified:
            return None  # the missing part is further in (reported there) or nothing is missing
        binding = self.ctx.names.binding_and_prefix(qualified)
        if binding is not None and self.missing(binding[1]):
            return None  # the import itself is reported
        if not compatibility_guard(self.ctx, node):
            self.manual(node, gone)
        return False

    def _import_line_moves(self, head: str) -> bool:
        """Whether the use names a binding that the import rewrite already moves."""
        for binding in self.ctx.names.imports:
            if binding.local == head and binding.qualified in MOVED:
                return True
        return False
