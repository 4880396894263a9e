"""A persistent verification worker: imports jax once, then imports and lowers modules.

Started by :mod:`codemods.verify.pool` as ``python -m codemods.verify.worker FD``. It
reads one JSON request per line on stdin and answers one JSON line per request on file
descriptor ``FD``; its stdout and stderr (what the user's code prints) go to a pipe the
parent drains and truncates. It imports jax first; the first line it reads is the set-up
(memory limit, the files whose sites matter), sent once the parent has scanned them;
every later line is a *job*: import one module, find or read its
entry points, lower each for every platform, and report what custom calls were built,
from which source lines, with which backend_config, and what failed where.

The worker runs the user's code: that is the point of it. It holds no state the parent
needs, so when a module crashes, hangs or exits it, the parent reports that module and
starts another worker.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import json
import linecache
import os
import resource
import sys
import threading
import time
import traceback
import types
from typing import Any, Callable, Optional

from codemods.verify import configs, stubs

#: Shapes of the float32 arrays automatic probes try, in this order: vectors, matrices,
#: then scalars (kernels whose operands are all scalars).
PROBE_SHAPES = ((8,), (8, 8), ())
MAX_PROBE_ARITY = 16
ERROR_CHARS = 400
#: Lowerings that share one MLIR context before a fresh one is made. Making a context
#: (loading every dialect) costs more than lowering a small module; a context keeps
#: every type and attribute it ever uniqued, so it is renewed now and then.
CONTEXT_REUSE = 64
NON_ARRAY_ANNOTATIONS = frozenset({"int", "float", "str", "bool", "bytes", "dict", "list", "tuple", "Callable", "type"})
#: What jax chains to an error as its ``__cause__`` only to show a traceback.
JAX_TRACEBACK_NOTES = frozenset({"UnfilteredStackTrace", "JaxStackTraceBeforeTransformation"})
#: What a probe passes a required parameter annotated with one of these (``eps: float``).
SCALAR_PROBES = {"float": 0.5, "int": 1, "bool": False}


def jax_reuses_contexts(mlir_private) -> bool:
    """jax 0.12 hands out one MLIR context per thread for several lowerings itself
    (``_thread_local_context`` in its mlir module): the worker then leaves it alone."""
    return hasattr(mlir_private, "_thread_local_context")


def one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    message = text[0] if text else ""
    out = f"{type(exc).__name__}: {message}" if message else type(exc).__name__
    return out if len(out) <= ERROR_CHARS else out[: ERROR_CHARS - 3] + "..."


@dataclasses.dataclass
class Registration:
    primitive: Any
    rule: Callable
    platform: Optional[str]

    @property
    def code(self) -> Optional[types.CodeType]:
        rule = self.rule
        while isinstance(rule, functools.partial):
            rule = rule.func
        return getattr(inspect.unwrap(rule), "__code__", None)


class Worker:
    def __init__(self) -> None:
        import jax
        from jax._src import source_info_util
        from jax._src.interpreters import mlir as mlir_private
        from jax.interpreters import mlir as mlir_public

        self.jax = jax
        self.source_info = source_info_util
        self.mlir_private = mlir_private
        self.mlir_public = mlir_public
        self.user_files: set[str] = set()
        self._real_paths: dict[str, str] = {}
        self.mode = "new"  # "original" while the pre-migration code runs
        self.events: Optional[list] = None
        self.registrations: list[Registration] = []
        self.reported = 0  # registrations already sent to the parent
        self.registered_targets: set[str] = set()
        self.lowered_primitives: set = set()
        #: Lowering-table entries the original code replaced, to put back afterwards.
        self.overridden: list = []
        self.local = threading.local()
        self._context = None
        self._context_uses = 0
        self._environment_names: Optional[frozenset] = None
        self._install_interceptors()
        self.default_backend = jax.default_backend()
        jax.devices()  # initialise the backend now, not inside the first job's timeout

    def warm_up(self, platforms: list) -> None:
        """Lower a small function with a custom call once for each platform.

        A process's first lowering pays one-time costs (jax's lowering tables, the MLIR
        bindings' first use, the custom-call builder's), and custom-call modules import
        ``jax.extend`` (a fifth of a second); paid here, while the parent still starts
        up and scans, they no longer delay the first module. Nothing is recorded: no job
        is running.
        """
        import jax.numpy as jnp

        jax = self.jax
        try:
            import jax.extend  # noqa: F401

            array = jax.ShapeDtypeStruct((8,), jnp.float32)
            call = jax.ffi.ffi_call("ccmigrate_warm_up", array)
            traced = jax.jit(lambda x: call(x + 1)).trace(array)
            for platform in platforms or [self.default_backend]:
                traced.lower(lowering_platforms=(platform,))
        except Exception:  # noqa: BLE001 - what cannot lower here fails in the jobs, with its error
            pass

    # -- interception ------------------------------------------------------------
    def _install_interceptors(self) -> None:
        import jax.ffi
        from jax._src import ffi as ffi_private

        worker = self
        real_custom_call = self.mlir_private.custom_call
        self.real_custom_call = real_custom_call

        @functools.wraps(real_custom_call)
        def custom_call(call_target_name, *args, **kwargs):
            config = kwargs.get("backend_config", "")
            event = worker._emitted(call_target_name, config)
            if worker.mode == "original" and not _accepted_config(config):
                kwargs["backend_config"] = ""  # keep lowering so later sites are captured too
            worker.local.inside = True
            try:
                return real_custom_call(call_target_name, *args, **kwargs)
            except Exception as exc:
                if event is not None:
                    event["error"] = one_line(exc)
                raise
            finally:
                worker.local.inside = False

        self.custom_call = custom_call
        self.mlir_private.custom_call = custom_call
        if hasattr(self.mlir_public, "custom_call"):  # jax < 0.8 still exported it
            self.mlir_public.custom_call = custom_call

        for dialect in _dialect_modules():
            op_class = getattr(dialect, "CustomCallOp", None)
            if op_class is not None and not getattr(op_class.__init__, "_ccmigrate", False):
                op_class.__init__ = self._wrap_op_init(op_class.__init__)

        real_register = self.mlir_private.register_lowering

        @functools.wraps(real_register)
        def register_lowering(prim, rule, platform=None, *args, **kwargs):
            worker.registrations.append(Registration(prim, rule, platform))
            if worker.mode == "original":
                worker.overridden.append(worker._lowering_entries(prim))
            return real_register(prim, rule, platform, *args, **kwargs)

        self.mlir_private.register_lowering = register_lowering
        self.mlir_public.register_lowering = register_lowering

        # jax up to 0.11 makes a context for every module it lowers; the modules lowered
        # here are dropped as soon as their custom calls are recorded, so they can share
        # one. jax 0.12 reuses a context per thread itself (ten lowerings each), as here.
        real_make_context = self.mlir_private.make_ir_context

        @functools.wraps(real_make_context)
        def make_ir_context():
            if worker._context is None or worker._context_uses >= CONTEXT_REUSE:
                worker._context = real_make_context()
                worker._context_uses = 0
            worker._context_uses += 1
            return worker._context

        if not jax_reuses_contexts(self.mlir_private):
            self.mlir_private.make_ir_context = make_ir_context

        real_register_target = ffi_private.register_ffi_target

        @functools.wraps(real_register_target)
        def register_ffi_target(name, fn, platform="cpu", *args, **kwargs):
            if worker.mode == "original" or stubs.is_stand_in(fn):
                return None  # no native code to register: lowering needs none
            result = real_register_target(name, fn, platform, *args, **kwargs)
            worker.registered_targets.add(name.decode() if isinstance(name, bytes) else name)
            return result

        real_pycapsule = ffi_private.pycapsule

        @functools.wraps(real_pycapsule)
        def pycapsule(funcptr):
            return funcptr if stubs.is_stand_in(funcptr) else real_pycapsule(funcptr)

        for module in (ffi_private, jax.ffi):
            module.register_ffi_target = register_ffi_target
            module.pycapsule = pycapsule

    def _lowering_entries(self, prim) -> tuple:
        """``prim``'s current rules (common and per platform), to restore them later."""
        tables = [self.mlir_private._lowerings, *self.mlir_private._platform_specific_lowerings.values()]
        return prim, [(table, table.get(prim)) for table in tables]

    def _restore_lowerings(self) -> None:
        while self.overridden:
            prim, entries = self.overridden.pop()
            for table, entry in entries:
                if entry is None:
                    table.pop(prim, None)
                else:
                    table[prim] = entry

    def _wrap_op_init(self, real_init: Callable) -> Callable:
        worker = self

        @functools.wraps(real_init)
        def __init__(op_self, *args, **kwargs):
            nested = getattr(worker.local, "inside", False)
            event = None
            if not nested:
                target = kwargs.get("call_target_name", args[2] if len(args) > 2 else None)
                event = worker._emitted(_attr_text(target), kwargs.get("backend_config", args[5] if len(args) > 5 else None))
            try:
                real_init(op_self, *args, **kwargs)
            except Exception as exc:
                if event is not None:
                    event["error"] = one_line(exc)
                raise

        __init__._ccmigrate = True
        return __init__

    def _emitted(self, target: Any, config: Any) -> Optional[dict]:
        if self.events is None:
            return None
        if isinstance(target, bytes):
            target = target.decode("utf-8", "replace")
        event = {
            "target": target if isinstance(target, str) else _attr_text(target),
            "frames": self._emission_frames(),
            "config": configs.describe(_attr_value(config)),
            "error": None,
        }
        self.events.append(event)
        return event

    def _emission_frames(self) -> list:
        """Source lines (innermost first) in the user's files that built this op."""
        frames = []
        frame = sys._getframe(2)
        while frame is not None:
            path = self._user_path(frame.f_code.co_filename)
            if path:
                frames.append([path, frame.f_lineno])
            frame = frame.f_back
        # The equation being lowered (for ops built by jax's own rules, e.g. ffi_call).
        traceback_ = self.source_info.current().traceback
        for user_frame in self.source_info.user_frames(traceback_):
            path = self._user_path(user_frame.file_name)
            if path:
                frames.append([path, user_frame.start_line])
        return frames

    def _real(self, filename: str) -> str:
        real = self._real_paths.get(filename)
        if real is None:
            real = os.path.realpath(filename) if filename and not filename.startswith("<") else ""
            self._real_paths[filename] = real
        return real

    def _user_path(self, filename: str) -> Optional[str]:
        real = self._real(filename)
        return real if real in self.user_files else None

    def error_frames(self, exc: BaseException) -> list:
        """User-file lines an exception passed through, innermost first, causes included."""
        frames: list = []
        seen: set[int] = set()
        current: Optional[BaseException] = exc
        while current is not None and id(current) not in seen:
            seen.add(id(current))
            chain = []
            tb = current.__traceback__
            while tb is not None:
                path = self._user_path(tb.tb_frame.f_code.co_filename)
                if path:
                    chain.append([path, tb.tb_lineno])
                tb = tb.tb_next
            frames.extend(reversed(chain))
            current = current.__cause__ or current.__context__
        return frames

    def raised_by_project(self, exc: BaseException) -> bool:
        """Whether ``exc`` comes from a ``raise`` or ``assert`` of a verified file itself,
        not caused by another error: the project turning down what it was given."""
        cause = exc.__cause__
        if cause is not None and type(cause).__name__ not in JAX_TRACEBACK_NOTES:
            return False
        if cause is None and exc.__context__ is not None and not exc.__suppress_context__:
            return False
        tb = exc.__traceback__
        if tb is None:
            return False
        while tb.tb_next is not None:
            tb = tb.tb_next
        filename = tb.tb_frame.f_code.co_filename
        if not self._user_path(filename):
            return False
        return linecache.getline(filename, tb.tb_lineno).lstrip().startswith(("raise", "assert"))

    # -- one job -----------------------------------------------------------------
    def run(self, job: dict, progress: Callable[[str], None]) -> dict:
        # A job's import roots go when it ends: a later project's module must not be
        # found in an earlier project's folder.
        saved_path = list(sys.path)
        self._environment()  # before any job's modules join sys.modules
        for entry in reversed(job.get("sys_path", ())):
            if entry not in sys.path:
                sys.path.insert(0, entry)
        finder = libraries = None
        if job.get("stub_missing"):
            roots = job.get("sys_path", ())[:1]
            finder = stubs.ExtensionFinder(job.get("package_dirs", ()), roots)
            sys.meta_path.append(finder)
            libraries = stubs.LibraryStandIns([*job.get("package_dirs", ()), *roots])
            libraries.install()
        try:
            result = self._run(job, progress)
        finally:
            sys.path[:] = saved_path
            if finder is not None:
                sys.meta_path.remove(finder)
            if libraries is not None:
                libraries.remove()
        if finder is not None:
            # A retried import asks the finder again for what it already stood in for.
            result["stubs"] = list(dict.fromkeys([*finder.stubbed, *result["stubs"], *libraries.stubbed]))
        return result

    def _environment(self) -> frozenset:
        """Top-level names of what the worker itself runs on (jax, numpy, the standard
        library...), taken before the first job: a verified file of the same name must
        not take their place in ``sys.modules``."""
        if self._environment_names is None:
            names = {name.partition(".")[0] for name in sys.modules}
            self._environment_names = frozenset(names | set(getattr(sys, "stdlib_module_names", ())))
        return self._environment_names

    def _run(self, job: dict, progress: Callable[[str], None]) -> dict:
        platforms = job.get("platforms") or [self.default_backend]
        result: dict = {
            "module": job["module"],
            "platforms": platforms,
            "stubs": [],
            "import_error": None,
            "import_frames": [],
            "probes": [],
            "original_probes": [],
            "notes": [],
            "recycle": False,
        }
        progress(f"importing {job['module']}")
        try:
            module = self._import(job, result)
        except BaseException as exc:  # noqa: BLE001 - SystemExit at import is a module failure too
            result["import_error"] = one_line(exc)
            result["import_frames"] = self.error_frames(exc)
            result["recycle"] = isinstance(exc, MemoryError)
            return self._finish(result)
        entries = self._entries(module, job, result)
        if not job.get("platforms"):
            # No platforms asked for: the host's backend, and the platforms this module
            # registers lowering rules for (a cpu/cuda kernel verified on a TPU host is
            # lowered for cpu and cuda, without their hardware, not skipped).
            platforms = result["platforms"] = platforms + [
                p for p in self._registered_platforms(module) if p not in platforms]
        chosen = {}
        self.lowered_primitives = set()
        try:
            for entry in entries:
                if entry["kind"] == "primitive" and entry["primitive"] in self.lowered_primitives:
                    continue  # a public function already lowered it on every platform
                progress(f"lowering {entry['name']}")
                chosen[entry["name"]] = self._probe(entry, platforms, job, result["probes"])
            if job.get("original") is not None:
                progress(f"lowering the original of {job['module']}")
                self._original(module, job, entries, chosen, platforms, result)
        except MemoryError as exc:
            result["notes"].append(f"memory limit reached: {one_line(exc)}")
            result["recycle"] = True
        for probe in result["probes"]:
            if probe["platform"] not in result["platforms"] and probe["platform"] != "*":
                result["platforms"].append(probe["platform"])
        return self._finish(result)

    def _finish(self, result: dict) -> dict:
        # Only what this job registered: the parent keeps what earlier jobs sent.
        result["registrations"] = self._registrations_json(self.registrations[self.reported:])
        self.reported = len(self.registrations)
        return result

    def _registrations_json(self, registrations: list) -> list:
        out = []
        for reg in registrations:
            code = reg.code
            path = self._user_path(code.co_filename) if code else None
            if path:
                last = max((line for _, _, line in code.co_lines() if line), default=code.co_firstlineno)
                out.append({"path": path, "first": code.co_firstlineno, "last": last, "platform": reg.platform,
                            "primitive": str(reg.primitive)})
        return out

    def _import(self, job: dict, result: dict) -> types.ModuleType:
        name = job["module"]
        path = job.get("path")
        loaded = sys.modules.get(name)
        loaded_from = getattr(loaded, "__file__", None)
        shadowing = bool(path) and name.partition(".")[0] in self._environment() and not (
            loaded_from and os.path.realpath(loaded_from) == os.path.realpath(path))
        if shadowing:
            if "." in name:
                raise ImportError(f"`{name}` would be a module of the installed `{name.partition('.')[0]}` package, "
                                  "which this worker runs on: verify it from a checkout where it has a name of its own")
            # A repository's own ``jax.py`` (an interop module, a script): importing it as
            # ``jax`` would evict the worker's jax for every module after it.
            alias = f"_ccmigrate_verified_{name}"
            result["notes"].append(f"`{os.path.basename(path)}` has the name of the installed `{name}` module: "
                                   f"imported as `{alias}`, its own `import {name}` gets the installed one")
            job["import_name"] = name = alias
        elif path and loaded_from and os.path.realpath(loaded_from) != os.path.realpath(path):
            del sys.modules[name]  # another project's module of the same name, from an earlier job
        stem = os.path.splitext(os.path.basename(path))[0] if path else ""
        dotted = "." in stem
        if dotted and not shadowing:
            result["notes"].append(f"`{os.path.basename(path)}` has dots in its name, which no import statement can "
                                   f"name: imported from its file as `{name}`")
        if path and not shadowing:
            _evict_foreign_packages(name, path)
        attempts = 0
        while True:
            before = set(sys.modules)
            try:
                module = _import_from_file(name, path) if shadowing or dotted else importlib.import_module(name)
                break
            except ImportError as exc:
                missing = None
                if job.get("stub_missing"):
                    missing = stubs.missing_native(exc, job.get("package_dirs", ()), job.get("sys_path", ())[:1])
                if missing is None or attempts >= 8 or missing in result["stubs"]:
                    raise
                for added in set(sys.modules) - before:
                    sys.modules.pop(added, None)
                stubs.install(missing)
                result["stubs"].append(missing)
                attempts += 1
        found = getattr(module, "__file__", None)
        if path and found and os.path.realpath(found) != os.path.realpath(path):
            result["notes"].append(f"`import {name}` loaded {found}, not {path}")
        return module

    # -- entry points ------------------------------------------------------------
    def _own_registrations(self, module: types.ModuleType) -> list[Registration]:
        """The lowering registrations made by code in ``module``'s own file."""
        path = self._real(module.__file__) if getattr(module, "__file__", None) else None
        if path is None:
            return []
        return [reg for reg in self.registrations if reg.code is not None and self._real(reg.code.co_filename) == path]

    def _registered_platforms(self, module: types.ModuleType) -> list:
        """The platforms the module's own lowering registrations name, in a fixed order."""
        covered = _expand_platforms({reg.platform for reg in self._own_registrations(module) if reg.platform is not None})
        return [p for p in _PLATFORM_ORDER if p in covered]

    def _entries(self, module: types.ModuleType, job: dict, result: dict) -> list:
        explicit = job.get("entry_points")
        if explicit is not None:
            entries = []
            for spec in explicit:
                target: Any = module
                try:
                    for part in spec["function"].split("."):
                        target = getattr(target, part)
                except AttributeError:
                    result["notes"].append(f"entry point {job['module']}:{spec['function']} does not exist")
                    continue
                entries.append({"name": f"{job['module']}:{spec['function']}", "kind": "explicit", "spec": spec})
            return entries
        entries = []
        for name, value in sorted(vars(module).items()):
            # Plain functions, and functions wrapped by jax.jit / custom_vjp / functools.wraps.
            function = inspect.unwrap(value) if callable(value) and not isinstance(value, type) else None
            if name.startswith("_") or not inspect.isfunction(function) or function.__module__ != module.__name__:
                continue
            plan = _probe_plan(value)
            if plan:
                entries.append({"name": f"{module.__name__}:{name}", "kind": "function", "attr": name,
                                "arity": len(plan[0]), "plan": plan})
        seen: dict = {}
        for reg in self._own_registrations(module):
            entry = seen.get(id(reg.primitive))
            if entry is None:
                arity = _rule_arity(reg.rule)
                entry = {"name": f"primitive {reg.primitive}", "kind": "primitive", "primitive": reg.primitive,
                         "arity": arity, "platforms": set()}
                seen[id(reg.primitive)] = entry
                entries.append(entry)
            entry["platforms"].add(reg.platform)
        return entries

    def _callable(self, entry: dict, module: types.ModuleType, shape: tuple) -> tuple[Callable, list]:
        """A jit-able function of arrays only, and the abstract arrays to trace it with."""
        import jax
        import jax.numpy as jnp

        if entry["kind"] == "explicit":
            spec = entry["spec"]
            function: Any = module
            for part in spec["function"].split("."):
                function = getattr(function, part)
            args = [_decode_arg(a) for a in spec["args"]]
            kwargs = {k: _decode_arg(v) for k, v in spec["kwargs"].items()}
            arrays = [a for a in [*args, *kwargs.values()] if isinstance(a, jax.ShapeDtypeStruct)]
            slots = [i for i, a in enumerate(args) if isinstance(a, jax.ShapeDtypeStruct)]
            keys = [k for k, v in kwargs.items() if isinstance(v, jax.ShapeDtypeStruct)]

            def call(*values):
                full = list(args)
                for index, value in zip(slots, values):
                    full[index] = value
                named = dict(kwargs)
                named.update(zip(keys, values[len(slots):]))
                return function(*full, **named)

            return call, arrays
        sds = [jax.ShapeDtypeStruct(shape, jnp.float32)] * entry["arity"]
        if entry["kind"] == "function":
            function = getattr(module, entry["attr"])
            names, statics = entry["plan"]
            if statics:

                def call(*values):
                    return function(**dict(zip(names, values)), **statics)

                return call, sds
            return function, sds
        primitive = entry["primitive"]
        return (lambda *values: primitive.bind(*values)), sds

    def _probe(self, entry: dict, platforms: list, job: dict, out: list, module=None, shapes=None) -> Optional[tuple]:
        """Trace and lower one entry point for every platform; returns the shape used."""
        module = module if module is not None else sys.modules[job.get("import_name", job["module"])]
        candidates = [None] if entry["kind"] == "explicit" else list(shapes or PROBE_SHAPES)
        wanted = platforms
        if entry["kind"] == "primitive" and None not in entry["platforms"]:
            covered = _expand_platforms(entry["platforms"])
            wanted = [p for p in platforms if p in covered]
        best: Optional[tuple[tuple[int, int], Any, list]] = None
        for shape in candidates:
            probes = self._lower_all(entry, module, shape, wanted, job)
            # Most platforms lowered; on a tie, most failures the project raised itself
            # ("Unsupported dtype float32" tells more than an IndexError on a shape).
            score = (sum(p["error"] is None for p in probes), sum(bool(p.get("rejected")) for p in probes))
            if best is None or score > best[0]:
                best = (score, shape, probes)
            if score[0] == len(probes):
                break
        assert best is not None
        out.extend(best[2])
        return best[1]

    def _lower_all(self, entry: dict, module, shape, platforms: list, job: dict) -> list:
        base = {"entry": entry["name"], "auto": entry["kind"] != "explicit", "shape": list(shape) if shape else None,
                "arity": entry.get("arity") if entry["kind"] == "function" else None}
        try:
            function, arrays = self._callable(entry, module, shape)
            traced = self.jax.jit(function).trace(*arrays)
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001 - a probe that fails is evidence, not a crash
            return [{**base, "platform": "*", "phase": "trace", "error": one_line(exc),
                     "frames": self.error_frames(exc), "emissions": [],
                     "rejected": base["auto"] and self.raised_by_project(exc)}]
        probes = []
        for platform in platforms:
            probe = {**base, "platform": platform, "phase": "lower", "error": None, "frames": [], "emissions": []}
            self.events = probe["emissions"]
            try:
                lowered = traced.lower(lowering_platforms=(platform,))
            except MemoryError:
                raise
            except Exception as exc:  # noqa: BLE001
                probe["error"], probe["frames"] = one_line(exc), self.error_frames(exc)
                probe["rejected"] = base["auto"] and self.raised_by_project(exc)
                lowered = None
            finally:
                self.events = None
            if lowered is not None and job.get("compile") and self.mode == "new":
                self._compile(lowered, arrays, platform, probe)
            probes.append(probe)
        if entry["kind"] == "function" and all(p["error"] is None for p in probes):
            self.lowered_primitives.update(_primitives(traced.jaxpr))
        return probes

    def _compile(self, lowered, arrays: list, platform: str, probe: dict) -> None:
        import numpy as np

        targets = {e["target"] for e in probe["emissions"]}
        if platform != self.default_backend:
            probe["note"] = f"not compiled: this host's backend is {self.default_backend}, not {platform}"
            return
        missing = sorted(t for t in targets if t not in self.registered_targets)
        if missing:
            probe["note"] = f"not compiled: target(s) {', '.join(missing)} not registered in this process"
            return
        probe["phase"] = "compile"
        try:
            compiled = lowered.compile()
            probe["phase"] = "execute"
            values = [np.ones(a.shape, a.dtype) for a in arrays]
            self.jax.block_until_ready(compiled(*values))
            probe["compiled"] = True
        except MemoryError:
            raise
        except Exception as exc:  # noqa: BLE001
            probe["error"], probe["frames"] = one_line(exc), self.error_frames(exc)

    # -- the original (pre-migration) code ----------------------------------------
    def _original(self, module, job: dict, entries: list, chosen: dict, platforms: list, result: dict) -> None:
        name = job.get("import_name", job["module"])
        original = types.ModuleType(name)
        for attr in ("__file__", "__package__", "__spec__", "__path__", "__loader__"):
            if hasattr(module, attr):
                setattr(original, attr, getattr(module, attr))
        self.mode = "original"
        restore = _install_legacy_shims(self)
        registered = len(self.registrations)
        try:
            sys.modules[name] = original
            try:
                exec(compile(job["original"], module.__file__, "exec"), original.__dict__)
            except BaseException as exc:  # noqa: BLE001 - legacy code may not import at all
                result["notes"].append(f"the original code does not import: {one_line(exc)}")
                return
            finally:
                sys.modules[name] = module
            original_entries = []
            for entry in entries:
                if entry["kind"] == "primitive":
                    # The original registered its own primitive object under the same name.
                    same = [r for r in self.registrations[registered:] if str(r.primitive) == str(entry["primitive"])]
                    if not same:
                        continue
                    entry = {**entry, "primitive": same[0].primitive}
                elif entry["kind"] == "function" and not hasattr(original, entry["attr"]):
                    continue
                original_entries.append(entry)
            for entry in original_entries:
                shape = chosen.get(entry["name"])
                self._probe(entry, platforms, job, result["original_probes"], module=original,
                            shapes=[shape] if shape else None)
        finally:
            self.mode = "new"
            restore()
            # The original may have registered rules for primitives the new code shares.
            self._restore_lowerings()
            del self.registrations[registered:]


def _primitives(jaxpr: Any, depth: int = 0) -> set:
    """Every primitive a (closed) jaxpr binds, sub-jaxprs included."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    found = set()
    for eqn in getattr(jaxpr, "eqns", ()):
        found.add(eqn.primitive)
        if depth < 8:
            for value in eqn.params.values():
                for item in value if isinstance(value, (tuple, list)) else (value,):
                    if hasattr(item, "eqns") or hasattr(getattr(item, "jaxpr", None), "eqns"):
                        found |= _primitives(item, depth + 1)
    return found


def _accepted_config(config: Any) -> bool:
    if config is None or isinstance(config, (str, bytes)):
        return True
    return isinstance(config, dict) and all(type(v).__module__.startswith("jaxlib.mlir") for v in config.values())


def _install_legacy_shims(worker: Worker) -> Callable[[], None]:
    """Make removed custom-call builders callable again while the original code runs.

    Only for capturing what the original passed as backend_config: the public
    ``jax.interpreters.mlir.custom_call`` (removed in 0.8) and ``jaxlib.hlo_helpers``.
    """
    public = worker.mlir_public
    had_public = "custom_call" in vars(public)
    if not had_public:
        public.custom_call = worker.custom_call
    helpers_name = "jaxlib.hlo_helpers"
    had_helpers = helpers_name in sys.modules
    if not had_helpers:
        try:
            importlib.import_module(helpers_name)
            had_helpers = True
        except ImportError:
            helpers = types.ModuleType(helpers_name)

            def custom_call(call_target_name, *args, **kwargs):
                # jaxlib <= 0.4.14 took these positionally.
                for key, value in zip(("result_types", "operands", "operand_layouts", "result_layouts",
                                       "backend_config", "has_side_effect", "api_version"), args):
                    kwargs[key] = value
                if "out_types" in kwargs:
                    kwargs["result_types"] = kwargs.pop("out_types")
                return worker.custom_call(call_target_name, **kwargs)

            helpers.custom_call = custom_call
            sys.modules[helpers_name] = helpers

    def restore() -> None:
        if not had_public:
            vars(public).pop("custom_call", None)
        if not had_helpers:
            sys.modules.pop(helpers_name, None)

    return restore


def _dialect_modules() -> list:
    found = []
    for name in ("jaxlib.mlir.dialects.stablehlo", "jaxlib.mlir.dialects.mhlo"):
        try:
            found.append(importlib.import_module(name))
        except ImportError:
            pass
    return found


def _attr_text(value: Any) -> Optional[str]:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    raw = getattr(value, "value", None)  # ir.StringAttr
    return raw if isinstance(raw, str) else str(value)


def _attr_value(value: Any) -> Any:
    """A StringAttr's bytes; any other value as it is."""
    raw = getattr(value, "value_bytes", None)
    return raw if isinstance(raw, bytes) else value


def _probe_plan(function: Callable) -> Optional[tuple[list, dict]]:
    """The parameters a probe gives arrays, by name, and the values it gives the required
    ones annotated as Python scalars (``eps: float`` -> 0.5); ``None`` when the function
    needs something a probe cannot make up (a string, a callable, an unannotated
    keyword-only parameter...)."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return None
    arrays: list = []
    statics: dict = {}
    for param in signature.parameters.values():
        if param.default is not param.empty or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        annotation = param.annotation
        text = annotation if isinstance(annotation, str) else getattr(annotation, "__name__", "")
        kind = text.split("[")[0].split(".")[-1]
        if kind in SCALAR_PROBES and param.kind != param.POSITIONAL_ONLY:
            statics[param.name] = SCALAR_PROBES[kind]
        elif kind in NON_ARRAY_ANNOTATIONS or param.kind == param.KEYWORD_ONLY:
            return None
        else:
            arrays.append(param.name)
    if not arrays or len(arrays) > MAX_PROBE_ARITY:
        return None
    return arrays, statics


def _rule_arity(rule: Callable) -> int:
    """Operands a lowering rule takes after ``ctx`` (one for ``*args``)."""
    try:
        params = list(inspect.signature(rule).parameters.values())[1:]
    except (TypeError, ValueError, IndexError):
        return 1
    count = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty for p in params)
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        count = max(count, 1)
    return count


_PLATFORM_ORDER = ("cpu", "cuda", "rocm", "tpu")


def _evict_foreign_packages(name: str, path: str) -> None:
    """Drop from ``sys.modules`` a package of ``name``'s dotted path that an earlier job
    imported from another folder (two copies of ``knn_jax`` at two roots of one
    repository), with its submodules: ``name`` is looked up in its own folders then."""
    parts = name.split(".")
    directory = os.path.dirname(os.path.realpath(path))
    count = len(parts) if os.path.basename(path) == "__init__.py" else len(parts) - 1
    for k in range(count, 0, -1):
        prefix = ".".join(parts[:k])
        module = sys.modules.get(prefix)
        folders = getattr(module, "__path__", None)
        if module is not None and folders is not None and directory not in {os.path.realpath(f) for f in folders}:
            for key in [key for key in sys.modules if key == prefix or key.startswith(prefix + ".")]:
                del sys.modules[key]
            return
        directory = os.path.dirname(directory)


def _expand_platforms(platforms: set) -> set:
    out = set()
    for platform in platforms:
        platform = str(platform).lower()
        out.update(("cuda", "rocm") if platform == "gpu" else (platform,))
    return out


def _decode_arg(value: Any) -> Any:
    import jax
    import jax.numpy as jnp

    if isinstance(value, dict) and "array" in value:
        dtype, shape = value["array"]
        return jax.ShapeDtypeStruct(tuple(shape), jnp.dtype(dtype))
    return value["static"] if isinstance(value, dict) and "static" in value else value


def _limit_memory(megabytes: int) -> None:
    """Cap the address space at what the worker uses now plus ``megabytes``."""
    if megabytes <= 0:
        return
    size = 0
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmSize:"):
                size = int(line.split()[1]) * 1024
    if size:
        limit = size + megabytes * 1024 * 1024
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _import_from_file(name: str, path: str) -> types.ModuleType:
    """Import the file at ``path`` as the top-level module ``name``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}", name=name, path=path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def main() -> None:
    result_fd = int(sys.argv[1])
    requests = os.fdopen(os.dup(0), "r", encoding="utf-8")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # the user's code must not read the request stream
    os.close(null)
    answers = os.fdopen(result_fd, "w", encoding="utf-8")

    def send(message: dict) -> None:
        # Whatever the user's code handed jax may end up in a result (a stand-in for a
        # missing extension as a target name or config): it travels as its repr.
        answers.write(json.dumps(message, default=repr) + "\n")
        answers.flush()

    # jax is imported before the set-up arrives: the parent scans meanwhile.
    started = time.monotonic()
    worker = Worker()
    worker.warm_up([p for p in (sys.argv[2] if len(sys.argv) > 2 else "").split(",") if p])
    startup_s = time.monotonic() - started
    line = requests.readline()
    if not line:
        return
    setup = json.loads(line)
    worker.user_files = {os.path.realpath(p) for p in setup.get("user_files", ())}
    if os.path.exists("/proc/self/status"):
        _limit_memory(int(setup.get("memory_limit_mb", 0)))
    send({"ready": True, "default_backend": worker.default_backend, "pid": os.getpid(), "startup_s": startup_s})
    for line in requests:
        job = json.loads(line)
        try:
            result = worker.run(job, lambda text: send({"progress": text}))
        except BaseException as exc:  # noqa: BLE001 - answer rather than die when possible
            result = {"module": job.get("module"), "worker_error": "".join(traceback.format_exception_only(type(exc), exc)).strip(),
                      "recycle": True}
        sys.stdout.flush()
        sys.stderr.flush()
        result["worker_pid"] = os.getpid()
        send({"result": result})


if __name__ == "__main__":
    main()
