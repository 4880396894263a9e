"""Stand-ins for compiled extensions that are not built (``verify --stub-missing``).

Lowering a custom call needs no native code: only compiling and running do. A package
whose kernels live in an extension module that was never built (``from . import
_kernels`` with no ``_kernels*.so``) can therefore still be verified, once the missing
module is replaced by a stand-in whose every attribute is another stand-in: callable,
iterable as empty, usable as a number; what a call of it returns is empty ``bytes`` as
well, which a kernel descriptor passed as ``backend_config`` would have been.
``jax.ffi.register_ffi_target`` and ``jax.ffi.pycapsule`` given a stand-in do nothing.

Only an extension counts as missing, never an ordinary dependency: the missing module
must lie inside the package being verified (a name with no ``.py`` file there), or the
import must have failed on the shared object itself (``cannot open shared object``,
``undefined symbol``...), or, for a top-level module (``import klujax_cpp``), the project
must declare it as an extension it builds: ``Extension("name", ...)`` (or
``Pybind11Extension``...) in ``setup.py``, ``pybind11_add_module(name ...)`` /
``nanobind_add_module`` / ``Python_add_library`` in ``CMakeLists.txt``, or
``PYBIND11_MODULE(name, m)`` / ``NB_MODULE(name, m)`` / ``PyInit_name`` in its C/C++
sources, found beside the import root or one folder up. A module inside a stand-in (an
extension built as a package: ``from ._native.ops import f``) stands in as well. A
missing ``jaxlib.hlo_helpers`` is a real failure and stays one.

An import the project guards itself (``try: from . import gpu_ops`` / ``except
ImportError: gpu_ops = None``, the extending-jax layout) never fails where the worker sees
it, and its fallback is a lowering rule that raises "not compiled with CUDA support": for
those, :class:`ExtensionFinder` sits last on ``sys.meta_path`` during the job and answers
a module no other finder found with a stand-in, under the same rule (no Python source of
that name in the package being verified, or a declared top-level extension).

A shared library the project loads with ctypes (``ctypes.cdll.LoadLibrary(path)``, the
layout of jax's FFI examples, then ``jax.ffi.pycapsule(lib.Kernel)``) stands in too when
the file is absent from the project's folders (:class:`LibraryStandIns`): every symbol
looked up on it is a stand-in.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import re
import sys
import types
from typing import Iterable, Optional

NATIVE_ERRORS = re.compile(
    r"shared object|undefined symbol|\.so\b|\.pyd\b|\.dylib\b|DLL load failed|dynamic module|invalid ELF|wrong ELF",
    re.IGNORECASE,
)
CANNOT_IMPORT_NAME = re.compile(r"cannot import name '([\w.]+)' from (?:partially initialized module )?'([\w.]+)'")
NATIVE_SOURCES = (".pyx", ".cc", ".cpp", ".cxx", ".cu", ".c", ".rs")


class _Behaviour:
    """What a stand-in answers, whatever is asked of it."""

    _ccmigrate_name: str

    def __getattr__(self, attr: str) -> "StandIn":
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return StandIn(f"{self._ccmigrate_name}.{attr}")

    def __call__(self, *args, **kwargs) -> "StandInBytes":
        return StandInBytes(f"{self._ccmigrate_name}()")

    def __getitem__(self, key) -> "StandIn":
        return StandIn(f"{self._ccmigrate_name}[{key!r}]")

    def __iter__(self):
        return iter(())

    def __len__(self) -> int:
        return 0

    def __bool__(self) -> bool:
        return True

    def __int__(self) -> int:
        return 0

    __index__ = __int__

    def __float__(self) -> float:
        return 0.0

    def __repr__(self) -> str:
        return f"<stand-in for {self._ccmigrate_name}>"


class StandIn(_Behaviour):
    """Whatever the missing extension would have provided."""

    def __init__(self, name: str) -> None:
        self._ccmigrate_name = name


class StandInBytes(_Behaviour, bytes):
    """What calling a stand-in returns: a stand-in that is also (empty) ``bytes``, so the
    descriptor an extension builds for its kernel (``opaque = gpu_ops.build_descriptor(n)``)
    passes as a custom call's ``backend_config``, as the real bytes would."""

    def __new__(cls, name: str) -> "StandInBytes":
        value = super().__new__(cls, b"")
        value._ccmigrate_name = name
        return value


def is_stand_in(value: object) -> bool:
    return isinstance(value, (StandIn, StandInBytes))


class StandInModule(types.ModuleType):
    def __getattr__(self, attr: str) -> StandIn:
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        return StandIn(f"{self.__name__}.{attr}")


#: Build files that declare a project's extension modules (its sources: NATIVE_SOURCES).
BUILD_FILES = ("setup.py", "CMakeLists.txt", "meson.build")
#: Folders below a root where extension sources usually sit.
SOURCE_FOLDERS = ("", "src", "csrc", "cpp", "lib", "ext", "extensions", "native")


def missing_native(exc: ImportError, package_dirs: Iterable[str], roots: Iterable[str] = ()) -> Optional[str]:
    """The dotted name of the extension whose absence caused ``exc``, if that is the cause."""
    message = str(exc)
    name = getattr(exc, "name", None)
    if isinstance(exc, ModuleNotFoundError) and name and isinstance(sys.modules.get(name.rpartition(".")[0]), StandInModule):
        return name  # a submodule of a stand-in (``from ._ext.ops import f``) stands in too
    if not isinstance(exc, ModuleNotFoundError) and NATIVE_ERRORS.search(message) and name:
        return name
    if isinstance(exc, ModuleNotFoundError) and name and "." not in name:
        return name if declared_extension(name, roots) else None
    match = CANNOT_IMPORT_NAME.search(message)
    if match and not isinstance(exc, ModuleNotFoundError):
        name = f"{match.group(2)}.{match.group(1)}"
    if not name:
        return None
    module_dir = _directory_of_package(name.rpartition(".")[0])
    if module_dir is None:
        return None
    last = name.rpartition(".")[2]
    if _has_python_source(module_dir, last):
        return None
    inside = any(_within(module_dir, d) for d in package_dirs)
    native_source = any(os.path.exists(os.path.join(module_dir, last + ext)) for ext in NATIVE_SOURCES)
    return name if inside or native_source else None


class ExtensionFinder(importlib.abc.MetaPathFinder):
    """The last finder on ``sys.meta_path`` while a ``--stub-missing`` job runs."""

    def __init__(self, package_dirs: Iterable[str], roots: Iterable[str]) -> None:
        self.package_dirs = list(package_dirs)
        self.roots = list(roots)
        #: Dotted names this finder stood in for, in order.
        self.stubbed: list[str] = []

    def find_spec(self, fullname, path, target=None):
        last = fullname.rpartition(".")[2]
        if path is None:  # a top-level module: only one the project declares it builds
            native = "." not in fullname and declared_extension(fullname, self.roots)
        else:
            folders = [str(p) for p in path]
            native = any(
                any(_within(folder, d) for d in self.package_dirs) and not _has_python_source(folder, last)
                for folder in folders
            )
        if not native:
            return None
        self.stubbed.append(fullname)
        return importlib.machinery.ModuleSpec(fullname, _StandInLoader())


class _StandInLoader(importlib.abc.Loader):
    def create_module(self, spec) -> StandInModule:
        module = StandInModule(spec.name)
        module.__file__ = None
        return module

    def exec_module(self, module) -> None:
        pass


class LibraryStandIns:
    """While installed, ``ctypes.CDLL`` (and so ``ctypes.cdll.LoadLibrary``) of a missing
    file inside ``folders`` gives a library whose every symbol is a stand-in."""

    MISSING = re.compile(r"No such file|cannot open shared object|not found|cannot find", re.IGNORECASE)

    def __init__(self, folders: Iterable[str]) -> None:
        self.folders = [f for f in folders if f]
        #: File names of the libraries stood in for, in order.
        self.stubbed: list[str] = []
        self._saved: Optional[tuple] = None

    def covers(self, name: object, exc: OSError) -> bool:
        if not isinstance(name, (str, os.PathLike)) or not self.MISSING.search(str(exc)):
            return False
        path = os.fspath(name)
        if os.sep not in path or os.path.exists(path):
            return False  # a bare name is looked up on the system's library path: a dependency
        path = os.path.abspath(path)
        return any(_within(path, folder) for folder in self.folders)

    def install(self) -> None:
        import ctypes

        real_init = ctypes.CDLL.__init__
        real_getattr = ctypes.CDLL.__getattr__
        real_getitem = ctypes.CDLL.__getitem__
        owner = self

        def __init__(lib, name, *args, **kwargs):
            try:
                real_init(lib, name, *args, **kwargs)
            except OSError as exc:
                if not owner.covers(name, exc):
                    raise
                lib._name, lib._handle, lib._ccmigrate_stand_in = os.fspath(name), 0, True
                owner.stubbed.append(os.path.basename(os.fspath(name)))

        def __getattr__(lib, attr):
            if lib.__dict__.get("_ccmigrate_stand_in") and not (attr.startswith("__") and attr.endswith("__")):
                return StandIn(f"{os.path.basename(lib._name)}.{attr}")
            return real_getattr(lib, attr)

        def __getitem__(lib, key):
            if lib.__dict__.get("_ccmigrate_stand_in"):
                return StandIn(f"{os.path.basename(lib._name)}[{key!r}]")
            return real_getitem(lib, key)

        self._saved = (real_init, real_getattr, real_getitem)
        ctypes.CDLL.__init__, ctypes.CDLL.__getattr__, ctypes.CDLL.__getitem__ = __init__, __getattr__, __getitem__

    def remove(self) -> None:
        import ctypes

        if self._saved is not None:
            ctypes.CDLL.__init__, ctypes.CDLL.__getattr__, ctypes.CDLL.__getitem__ = self._saved
            self._saved = None


def declared_extension(name: str, roots: Iterable[str]) -> bool:
    """Whether the project around ``roots`` (import roots) builds a top-level extension
    module ``name``: see the module docstring for the declarations read."""
    word = re.escape(name)
    build = re.compile(
        rf"""Extension\(\s*["']{word}["']|(?:pybind11_add_module|nanobind_add_module|python_add_library|"""
        rf"""Python3?_add_library)\(\s*{word}\b|extension_module\(\s*["']{word}["']""", re.IGNORECASE)
    source = re.compile(rf"(?:PYBIND11_MODULE|NB_MODULE)\(\s*{word}\s*,|\bPyInit_{word}\b")
    seen: set[str] = set()
    for root in roots:
        for folder in (root, os.path.dirname(os.path.abspath(root))):
            folder = os.path.realpath(folder)
            if folder in seen or not os.path.isdir(folder):
                continue
            seen.add(folder)
            for build_file in BUILD_FILES:
                if _matches(os.path.join(folder, build_file), build):
                    return True
            for sub in SOURCE_FOLDERS:
                directory = os.path.join(folder, sub)
                try:
                    names = sorted(os.listdir(directory))[:500]
                except OSError:
                    continue
                for entry in names:
                    if entry.endswith(NATIVE_SOURCES) and _matches(os.path.join(directory, entry), source):
                        return True
    return False


def _matches(path: str, pattern: "re.Pattern[str]") -> bool:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return pattern.search(fh.read(1 << 20)) is not None
    except OSError:
        return False


def _directory_of_package(package: str) -> Optional[str]:
    if not package:
        return None
    module = sys.modules.get(package)
    paths = list(getattr(module, "__path__", ()) or ())
    if not paths:
        spec = importlib.machinery.PathFinder.find_spec(package.split(".")[0])
        if spec is None or not spec.submodule_search_locations:
            return None
        directory = list(spec.submodule_search_locations)[0]
        for part in package.split(".")[1:]:
            directory = os.path.join(directory, part)
        return directory if os.path.isdir(directory) else None
    return paths[0]


def _has_python_source(folder: str, name: str) -> bool:
    """Whether ``folder`` holds module ``name`` as Python: ``name.py`` or a package folder."""
    return os.path.exists(os.path.join(folder, name + ".py")) or os.path.isdir(os.path.join(folder, name))


def _within(path: str, directory: str) -> bool:
    path, directory = os.path.realpath(path), os.path.realpath(directory)
    return path == directory or path.startswith(directory + os.sep)


def install(name: str) -> StandInModule:
    """Put a stand-in for ``name`` in ``sys.modules`` (and on its parent package)."""
    module = StandInModule(name)
    module.__file__ = None
    module.__spec__ = importlib.machinery.ModuleSpec(name, None)
    sys.modules[name] = module
    parent, _, last = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], last, module)
    return module
