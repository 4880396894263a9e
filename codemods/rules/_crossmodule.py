"""Translation rules registered in one module and defined in another: what the project
index records about each registration (read with Python's ``ast``, before any file is
migrated), and where the registered function is defined. Also which modules of a package
refer to a name another module re-exports (``package_files_mentioning``), for the files a
run does not migrate, and what a project module re-exports from jax (``reexported``:
``from .compat import token_type``).

Not a rule itself (it defines no :class:`codemods.rule.Rule`).
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
import stat
from functools import lru_cache
from typing import Optional

from codemods.names import resolve_relative
from codemods.rules._shared import is_jax, project_module_ast, project_module_file

#: Bytes a module registering a translation rule holds (a superset test).
REGISTERS = (b"register_translation", b"translations[")


@dataclasses.dataclass(frozen=True)
class Registered:
    """A translation rule registered in one module and defined in another."""

    defined_in: str  # absolute path of the module defining the function
    function: str
    form: str  # "ctx" (register_translation) or "builder"
    bound: int  # arguments functools.partial binds positionally
    #: The registering module also uses the function other than to register it (calls
    #: it with a builder, say), which a converted function would break.
    used_otherwise: bool = False

    def same_site(self, other: "Registered") -> bool:
        return (self.defined_in, self.function, self.form, self.bound) == (other.defined_in, other.function, other.form, other.bound)


def defining_file(path: str, package: Optional[str], qualified: str) -> Optional[tuple[str, str]]:
    """``(absolute path, function)`` of the project module that defines ``qualified``
    (``.backends.cpu.encode`` as seen from the module at ``path``), or None when it is
    no module of the project (an installed package, say)."""
    module, _, function = qualified.rpartition(".")
    if not module or not function or module.strip(".") == "":
        return None
    if module.startswith("."):
        level = len(module) - len(module.lstrip("."))
        if level > len(package.split(".") if package else []):
            return None  # beyond the top-level package, or no package known
        module = resolve_relative(package, level, module[level:])
    found = project_module_file(path, package, module)
    if found is None or os.path.abspath(found) == os.path.abspath(path):
        return None
    return os.path.abspath(found), function


def registrations_elsewhere(path: str, package: Optional[str], source: bytes) -> tuple[Registered, ...]:
    """The translation rules the module at ``path`` registers that other project modules
    define, as far as Python's ``ast`` shows them (the rule confirms each one with its
    own name resolution when it migrates the file)."""
    if not any(t in source for t in REGISTERS):
        return ()
    tree = ast.parse(source)
    imported = _imports(tree)
    found = []
    registered: dict[str, int] = {}
    for node in ast.walk(tree):
        site = _registered(node)
        if site is None:
            continue
        rule, form = site
        bound = 0
        if isinstance(rule, ast.Call):
            if _dotted(rule.func) not in ("partial", "functools.partial") or not rule.args \
                    or any(isinstance(a, ast.Starred) for a in rule.args) or any(k.arg is None for k in rule.keywords):
                continue
            rule, bound = rule.args[0], len(rule.args) - 1
        dotted = _dotted(rule)
        if dotted is None:
            continue
        head, _, rest = dotted.partition(".")
        if head not in imported:
            continue
        where = defining_file(path, package, imported[head] + ("." + rest if rest else ""))
        if where is not None:
            found.append((dotted, Registered(where[0], where[1], form, bound)))
            registered[dotted] = registered.get(dotted, 0) + 1
    if not found:
        return ()
    uses = _references(tree)
    return tuple(dict.fromkeys(
        dataclasses.replace(r, used_otherwise=uses.get(dotted, 0) > registered[dotted]) for dotted, r in found))


def _references(tree: ast.Module) -> dict[str, int]:
    """How often each whole dotted name (``backends.cpu.encode``, not its ``backends.cpu``)
    is read in the module."""
    inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
    counts: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.Name, ast.Attribute)) and id(node) not in inner and isinstance(node.ctx, ast.Load):
            dotted = _dotted(node)
            if dotted:
                counts[dotted] = counts.get(dotted, 0) + 1
    return counts


def _registered(node: ast.AST) -> Optional[tuple[ast.expr, str]]:
    """``(rule, form)`` when ``node`` registers a translation rule."""
    if isinstance(node, ast.Call):
        name = _dotted(node.func) or ""
        if name.rpartition(".")[2] == "register_translation" and len(node.args) == 2:
            return node.args[1], "ctx"
    elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript):
        table = node.targets[0].value
        if isinstance(table, ast.Subscript):
            table = table.value
            if (_dotted(table) or "").rpartition(".")[2] == "backend_specific_translations":
                return node.value, "builder"
        elif (_dotted(table) or "").rpartition(".")[2] == "translations":
            return node.value, "builder"
    return None


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> what it names, relative imports keeping their leading dots."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names.setdefault(alias.asname, alias.name)
                else:
                    head = alias.name.partition(".")[0]
                    names.setdefault(head, head)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module + "." if node.module else "")
            for alias in node.names:
                names.setdefault(alias.asname or alias.name, base + alias.name)
    return names


def _dotted(node: ast.AST) -> Optional[str]:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        value = _dotted(node.value)
        return f"{value}.{node.attr}" if value else None
    return None


def where_text(path: str, other: str) -> str:
    """``other`` as seen from the module at ``path`` (the same whatever directory the
    run started in, so a report or annotation reads the same on every run)."""
    return os.path.relpath(other, os.path.dirname(os.path.abspath(path)))


#: Directories no package module lives in (caches, virtual environments, VCS data).
_SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "build", "dist"})


def package_root(path: str, package: Optional[str]) -> str:
    """The directory of the top-level package holding the module at ``path`` (its own
    directory when it is in no package)."""
    root = os.path.dirname(os.path.abspath(path))
    for _ in range(len(package.split(".")) - 1 if package else 0):
        root = os.path.dirname(root)
    return root


@lru_cache(maxsize=64)
def package_files_mentioning(path: str, package: Optional[str], name: str) -> tuple[str, ...]:
    """Absolute paths of the Python files of the package holding ``path`` (``path`` left
    out) whose text holds ``name`` as a word: every module that could import ``name`` from
    it, whether or not the run migrates that module. Read from disk, as they are before
    the run writes anything."""
    here = os.path.abspath(path)
    word = re.compile(rb"\b" + re.escape(name.encode()) + rb"\b")
    found = []
    for directory, dirs, files in os.walk(package_root(path, package)):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS and not d.startswith("."))
        for file in sorted(files):
            if not file.endswith(".py"):
                continue
            candidate = os.path.join(directory, file)
            if candidate == here:
                continue
            try:
                if not stat.S_ISREG(os.stat(candidate).st_mode):
                    continue  # a FIFO named ``x.py`` would block the read; no module anyway
                with open(candidate, "rb") as fh:
                    data = fh.read()
            except OSError:
                found.append(candidate)  # unreadable: it may well use the name
                continue
            if word.search(data):
                found.append(candidate)
    return tuple(found)


def package_files_parsed(path: str, package: Optional[str], name: str, reads) -> tuple[str, ...]:
    """Those of ``package_files_mentioning`` whose parsed module ``reads(tree)`` accepts; a
    file that cannot be read or parsed counts (it may well read the name)."""
    found = []
    for other in package_files_mentioning(path, package, name):
        try:
            with open(other, "rb") as fh:
                tree = ast.parse(fh.read())
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            found.append(other)
            continue
        if reads(tree):
            found.append(other)
    return tuple(found)


def package_files_reading(path: str, package: Optional[str], name: str) -> tuple[str, ...]:
    """Those of ``package_files_mentioning`` that may read ``name`` from another project
    module: import it by name (from a module outside jax), star-import a module outside
    jax, read it as an attribute of something that is no jax module, list it in
    ``__all__`` or look it up with ``getattr``/``hasattr`` (another string, such as a
    primitive's name ``Primitive("custom_call")``, reads nothing). A module that imports
    ``name`` from jax itself (two scripts each importing ``custom_call`` from
    ``jax.interpreters.mlir``) reads no other module's."""
    return package_files_parsed(path, package, name, lambda tree: _may_read(tree, name))


def _may_read(tree: ast.AST, name: str) -> bool:
    jax_names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            jax_names.update((a.asname or a.name).split(".")[0] for a in node.names if is_jax(a.name))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and is_jax(node.module):
            jax_names.update(a.asname or a.name for a in node.names)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not (node.level == 0 and is_jax(node.module)):
            if any(a.name == name or a.name == "*" for a in node.names):
                return True
        elif isinstance(node, ast.Attribute) and node.attr == name:
            head = node.value
            while isinstance(head, ast.Attribute):
                head = head.value
            if not (isinstance(head, ast.Name) and head.id in jax_names):
                return True
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and _assigns_all(node) \
                and any(isinstance(c, ast.Constant) and c.value == name for c in ast.walk(node.value)):
            return True  # ``__all__ = [..., "name"]``: re-exported from here, if imported
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("getattr", "hasattr") \
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and node.args[1].value == name:
            return True
    return False


def _assigns_all(node: ast.AST) -> bool:
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets)


def is_private_module(path: str, package: Optional[str]) -> bool:
    """Whether the module at ``path`` is private to its project: its name, or one of its
    packages' (``_src``), starts with an underscore."""
    parts = [*(package.split(".") if package else []), os.path.splitext(os.path.basename(path))[0]]
    if parts[-1] == "__init__":
        parts.pop()
    return any(part.startswith("_") for part in parts)


def reexported(path: str, package: Optional[str], qualified: str, originals: frozenset[str]) -> Optional[str]:
    """The name in ``originals`` that the project module of ``qualified`` (``..compat.f``,
    seen from the module at ``path``) binds as ``f``, when every module-level binding of
    ``f`` there, in any branch of a version ``if`` or a ``try``, imports one of them; else
    None (a module of no project, a name it defines itself, or one bound to other things too)."""
    where = defining_file(path, package, qualified)
    if where is None:
        return None
    module_path, name = where
    return _bound_by_imports(module_path, name, originals)


@lru_cache(maxsize=256)
def _bound_by_imports(path: str, name: str, originals: frozenset[str]) -> Optional[str]:
    tree = project_module_ast(path, name.encode())
    if tree is None:
        return None
    found: list[Optional[str]] = []
    for node in _module_level(tree.body):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if (alias.asname or alias.name) == name:
                    imported = f"{node.module}.{alias.name}" if node.level == 0 and node.module else None
                    found.append(imported if imported in originals else None)
        elif isinstance(node, ast.Import):
            found += [None for alias in node.names if (alias.asname or alias.name.partition(".")[0]) == name]
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                found.append(None)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(n, ast.Name) and n.id == name for t in targets for n in ast.walk(t)):
                found.append(None)
    if not found or None in found:
        return None
    return found[0]


def _module_level(body: list[ast.stmt]):
    """The statements run at import time: the module's, and those in its ``if``/``try``/``with`` blocks."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _module_level(stmt.body)
            yield from _module_level(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for block in (stmt.body, stmt.orelse, stmt.finalbody, *(h.body for h in stmt.handlers)):
                yield from _module_level(block)
        elif isinstance(stmt, ast.With):
            yield from _module_level(stmt.body)
