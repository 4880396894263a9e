"""The verification run: scan sites, lower modules in workers, give every site a status.

1. Discover the files, scan each for custom-call sites (static, nothing imported).
2. For each file with sites, a job: its module name and import root (from the file's
   location), its entry points (``pyproject.toml`` or automatic), the platforms, and the
   original text when the file was rewritten (``apply --verify``, or git HEAD).
3. Workers import and lower; every custom call they see built comes back with the
   source lines that built it, its target, its backend_config, and any error.
4. Evidence is mapped onto the static sites: per site and platform ``verified``,
   ``failed`` (with the error) or ``unreached`` (with how to add an entry point), plus
   ``config_preserved`` where the original could be lowered too.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import io
import os
import re
import subprocess
import sys
import tokenize
from typing import Iterable, Optional, Sequence

import libcst as cst

from codemods.discovery import discover
from codemods.engine import package_of
from codemods.fileio import read_source
from codemods.positions import NestingTooDeep
from codemods.verify import configs
from codemods.verify.entry_points import EntryPoint, SpecError, find_pyproject, load_settings, parse_entry_points
from codemods.verify.pool import Pool, PoolSettings
from codemods.verify.sites import Site, kind_of, scan_source

VERIFIED, FAILED, UNREACHED, STATIC = "verified", "failed", "unreached", "static"
PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


@dataclasses.dataclass
class VerifyOptions:
    #: Platforms to lower for; ``None`` means the workers' default backend.
    platforms: Optional[Sequence[str]] = None
    timeout: float = 60.0
    memory_limit_mb: int = 4096
    workers: int = 2
    recycle_after: int = 200
    stub_missing: bool = False
    compile: bool = False
    #: Report the sites without importing anything.
    static: bool = False
    #: Compare with git HEAD when no original text is given.
    use_git: bool = True
    excludes: tuple[str, ...] = ()


@dataclasses.dataclass
class SiteStatus:
    site: Site
    platform: Optional[str]
    status: str
    error: Optional[str] = None
    config_preserved: Optional[bool] = None
    note: Optional[str] = None

    def to_json(self) -> dict:
        return {
            "path": self.site.path,
            "line": self.site.line,
            "target": self.site.target,
            "platform": self.platform,
            "status": self.status,
            "error": self.error,
            "config_preserved": self.config_preserved,
            "builder": self.site.builder,
            "end_line": self.site.end_line,
            "note": self.note,
        }


@dataclasses.dataclass
class ModuleOutcome:
    module: str
    path: Optional[str]
    status: str = "ok"  # ok | import failed | crashed
    error: Optional[str] = None
    stubs: list[str] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    output: str = ""
    output_bytes: int = 0

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class VerifyReport:
    sites: list[SiteStatus]
    modules: list[ModuleOutcome]
    #: Problems of the tool's own (unreadable paths, bad specs): exit status 2.
    errors: list[str]
    platforms: list[str]
    static: bool = False
    #: Sites that got no row: each inside lowering rules registered only for platforms
    #: that were not lowered for (``--platforms cpu`` and a cuda-only rule), with those.
    not_lowered: list[tuple[Site, list[str]]] = dataclasses.field(default_factory=list)

    def counts(self) -> dict:
        counts = {VERIFIED: 0, FAILED: 0, UNREACHED: 0, STATIC: 0}
        for row in self.sites:
            counts[row.status] += 1
        return counts

    def exit_code(self, strict: bool = False) -> int:
        if self.errors:
            return 2
        counts = self.counts()
        if counts[FAILED] or (strict and counts[UNREACHED]):
            return 1
        # A site that lowers but hands its kernel a different config is a broken migration.
        if any(row.config_preserved is False for row in self.sites):
            return 1
        return 0

    def to_json(self) -> dict:
        return {
            "version": 1,
            "tool": "ccmigrate",
            "command": "verify",
            "static": self.static,
            "platforms": self.platforms,
            "summary": self.counts(),
            "sites": [row.to_json() for row in self.sites],
            "modules": [m.to_json() for m in self.modules],
            "errors": self.errors,
            "not_lowered": [{"path": site.path, "line": site.line, "target": site.target, "registered_for": platforms}
                            for site, platforms in self.not_lowered],
        }


# -- where a file lives ---------------------------------------------------------------


def module_location(path: str) -> tuple[str, str, list[str]]:
    """(import root, dotted module name, package directories) of a source file."""
    path = os.path.abspath(path)
    # ``kernel.v2.py``: no import statement can name it; the worker imports the file
    # itself under this name.
    stem = os.path.splitext(os.path.basename(path))[0].replace(".", "_")
    package = package_of(path)
    if package:
        top = os.path.dirname(path)
        for _ in package.split(".")[1:]:
            top = os.path.dirname(top)
        name = package if stem == "__init__" else f"{package}.{stem}"
        # A package named like an installed module (``jax``, ``numpy``) inside a folder
        # without ``__init__.py`` is a namespace package's member (``sphericart.jax``):
        # imported as ``jax.ops`` it would be looked up inside the installed jax.
        while _installed_elsewhere(name.partition(".")[0], top):
            parent = os.path.dirname(top)
            if not os.path.basename(parent).isidentifier() or os.path.dirname(parent) == parent:
                break
            name, top = f"{os.path.basename(parent)}.{name}", parent
        return os.path.dirname(top), name, [top]
    # No __init__ chain: a namespace package under a project root, or a lone module.
    directory = os.path.dirname(path)
    probe = directory
    while True:
        if any(os.path.exists(os.path.join(probe, f)) for f in PROJECT_FILES):
            root = os.path.join(probe, "src") if _within(path, os.path.join(probe, "src")) else probe
            rel = os.path.relpath(os.path.splitext(path)[0], root).split(os.sep)
            if all(part.isidentifier() for part in rel):
                return root, ".".join(rel), [os.path.join(root, rel[0])] if len(rel) > 1 else []
            break
        parent = os.path.dirname(probe)
        if parent == probe:
            break
        probe = parent
    return directory, stem, []


def _installed_elsewhere(name: str, directory: str) -> bool:
    """Whether ``name`` is a module of the standard library or of the environment that
    is not the package at ``directory``."""
    if name in getattr(sys, "stdlib_module_names", ()):
        return True
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    places = list(spec.submodule_search_locations or ()) or ([spec.origin] if spec.origin else [])
    return not any(os.path.realpath(p) == os.path.realpath(directory) or _within(os.path.realpath(p), os.path.realpath(directory))
                   for p in places)


def _within(path: str, directory: str) -> bool:
    return os.path.abspath(path).startswith(os.path.abspath(directory) + os.sep)


# -- originals ---------------------------------------------------------------------------


def head_versions(paths: Iterable[str]) -> dict[str, bytes]:
    """The git HEAD content of each path that has one (one ``git`` call per work tree)."""
    by_root: dict[str, list[str]] = {}
    top_of: dict[str, Optional[str]] = {}  # one ``git`` call per directory, not per file
    for path in paths:
        directory = os.path.dirname(os.path.abspath(path))
        if directory not in top_of:
            try:
                proc = subprocess.run(["git", "-C", directory, "rev-parse", "--show-toplevel"], capture_output=True, timeout=30)
            except (OSError, subprocess.SubprocessError):
                return {}
            top_of[directory] = proc.stdout.decode().strip() if proc.returncode == 0 else None
        top = top_of[directory]
        if top is not None:
            by_root.setdefault(top, []).append(path)
    found: dict[str, bytes] = {}
    for root, files in by_root.items():
        rels = [os.path.relpath(os.path.realpath(p), os.path.realpath(root)) for p in files]
        query = "".join(f"HEAD:{rel}\n" for rel in rels).encode()
        try:
            proc = subprocess.run(["git", "-C", root, "cat-file", "--batch"], input=query, capture_output=True, timeout=120)
        except (OSError, subprocess.SubprocessError):
            continue
        data = proc.stdout
        for path in files:
            header_end = data.find(b"\n")
            if header_end < 0:
                break
            header, data = data[:header_end].split(), data[header_end + 1 :]
            if len(header) == 3 and header[1] == b"blob":
                size = int(header[2])
                found[path] = data[:size]
                data = data[size + 1 :]
    return found


def _decode(source: bytes) -> str:
    encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
    return source.decode(encoding)


# -- the run ------------------------------------------------------------------------------


def verify(
    paths: Sequence[str],
    options: VerifyOptions,
    originals: Optional[dict[str, bytes]] = None,
) -> VerifyReport:
    pool = None
    if not options.static:
        settings = PoolSettings(
            workers=max(1, options.workers),
            timeout=options.timeout,
            memory_limit_mb=options.memory_limit_mb,
            recycle_after=options.recycle_after,
            platforms=tuple(options.platforms or ()),
        )
        pool = Pool(settings)  # jax imports in the workers while the files are scanned
    try:
        return _verify(paths, options, originals, pool)
    finally:
        if pool is not None:
            pool.close()


def _verify(paths, options: VerifyOptions, originals, pool: Optional[Pool]) -> VerifyReport:
    errors: list[str] = []
    sites_by_file: dict[str, list[Site]] = {}
    for found in discover(paths, options.excludes):
        if found.error:
            errors.append(f"{found.path}: {found.error}")
            continue
        real = os.path.realpath(found.path)
        try:
            source = read_source(real)
            sites = scan_source(real, source)
        except OSError as exc:
            errors.append(f"{found.path}: {exc.strerror or exc}")
            continue
        except cst.ParserSyntaxError as exc:
            errors.append(f"{found.path}: cannot parse: {exc.message} (line {exc.raw_line})")
            continue
        except (NestingTooDeep, RecursionError):
            errors.append(f"{found.path}: cannot parse: nesting too deep")
            continue
        except (UnicodeDecodeError, LookupError) as exc:
            errors.append(f"{found.path}: cannot decode: {exc}")
            continue
        if sites:
            sites_by_file[real] = sites
    platforms = list(options.platforms or [])
    if pool is None:
        rows = [SiteStatus(s, None, STATIC) for sites in sites_by_file.values() for s in sites]
        return VerifyReport(rows, [], errors, platforms, static=True)

    jobs, spec_errors = _jobs(sites_by_file, options, originals)
    errors.extend(spec_errors)
    collector = _Evidence(sites_by_file)
    backend = pool.run(jobs, sites_by_file, collector.add) if jobs else None
    # Without --platforms: the host's backend for every site, and for a site inside a
    # lowering rule registered only for other platforms, those platforms (the workers
    # lowered it there: a cpu/cuda kernel verified on a TPU host is not left out).
    extra: list[str] = []
    if not platforms:
        platforms = [backend or "cpu"]
        extra = [p for p in collector.job_platforms if p not in platforms]
    if jobs and backend is None:
        errors.append("no verification worker could start (see the module errors)")
    rows = collector.statuses(platforms, extra)
    used = platforms + [p for p in extra if any(row.platform == p for row in rows)]
    with_rows = {(row.site.path, row.site.line, row.site.end_line) for row in rows}
    not_lowered = [(site, registered) for sites in sites_by_file.values() for site in sites
                   if (site.path, site.line, site.end_line) not in with_rows
                   for registered in [collector.registered_for(site)] if registered]
    return VerifyReport(rows, collector.modules, errors, used, not_lowered=not_lowered)


def _jobs(sites_by_file: dict[str, list[Site]], options: VerifyOptions, originals: Optional[dict[str, bytes]]):
    errors: list[str] = []
    specs: dict[str, list[EntryPoint]] = {}
    roots_of_project: dict[str, list[str]] = {}
    loaded: set[str] = set()
    for path in sites_by_file:
        pyproject = find_pyproject(path)
        if pyproject is None or pyproject in loaded:
            continue
        loaded.add(pyproject)
        base = os.path.dirname(pyproject)
        roots_of_project[pyproject] = [base, os.path.join(base, "src")]
        try:
            for entry in parse_entry_points(load_settings(pyproject), pyproject):
                specs.setdefault(entry.module, []).append(entry)
        except SpecError as exc:
            errors.append(str(exc))
    originals = {os.path.realpath(k): v for k, v in (originals or {}).items()}
    if not originals and options.use_git:
        originals = {os.path.realpath(k): v for k, v in head_versions(sites_by_file).items()}
    extra_roots = [r for roots in roots_of_project.values() for r in roots if os.path.isdir(r)]
    jobs: list[dict] = []
    covered: set[str] = set()
    for path in sites_by_file:
        root, name, package_dirs = module_location(path)
        original = originals.get(path)
        current = read_source(path)
        entry_points = specs.get(name)
        covered.add(name)
        jobs.append(
            {
                "module": name,
                "path": path,
                "sys_path": [root, *[r for r in extra_roots if r != root]],
                "package_dirs": package_dirs,
                "platforms": list(options.platforms) if options.platforms else None,
                "entry_points": [e.to_json() for e in entry_points] if entry_points else None,
                "original": _decode(original) if original is not None and original != current else None,
                "stub_missing": options.stub_missing,
                "compile": options.compile,
            }
        )
    for name, entry_points in specs.items():
        if name in covered:
            continue
        jobs.append(
            {
                "module": name,
                "path": None,
                "sys_path": extra_roots,
                "package_dirs": [],
                "platforms": list(options.platforms) if options.platforms else None,
                "entry_points": [e.to_json() for e in entry_points],
                "original": None,
                "stub_missing": options.stub_missing,
                "compile": options.compile,
            }
        )
    # Largest files first, so one slow module does not finish last on its own.
    jobs.sort(key=lambda j: -(len(sites_by_file.get(j["path"], ())) if j["path"] else 0))
    return jobs, errors


#: A lowering rule unpacking a shape of another rank than the probe's guess.
_UNPACKED_SHAPE = re.compile(r"ValueError: (not enough|too many) values to unpack")


class _Evidence:
    """What the workers saw, mapped onto the static sites."""

    def __init__(self, sites_by_file: dict[str, list[Site]]) -> None:
        self.sites_by_file = sites_by_file
        self.modules: list[ModuleOutcome] = []
        #: (status, error, guessed) per site and platform; ``guessed``: a failure of an
        #: automatic probe raised off the custom-call builder (its inputs were made up).
        self.outcome: dict[tuple[Site, str], list[tuple[str, Optional[str], bool]]] = {}
        self.file_failure: dict[str, str] = {}
        self.stubbed: dict[str, list[str]] = {}
        self.rule_platforms: list[dict] = []
        self.preserved: dict[tuple[Site, str], list[Optional[bool]]] = {}
        self.notes: dict[tuple[Site, str], list[str]] = {}
        #: The automatic probes of a file that failed without blaming a site.
        self.reasons: dict[str, list[dict]] = {}
        self.job_platforms: list[str] = []

    # -- intake -----------------------------------------------------------------
    def add(self, job: dict, answer: dict) -> None:
        path = job.get("path")
        outcome = ModuleOutcome(job["module"], path, output=answer.get("output", ""), output_bytes=answer.get("output_bytes", 0))
        outcome.stubs = list(answer.get("stubs", ()))
        outcome.notes = list(answer.get("notes", ()))
        if answer.get("output_bytes", 0) > len(outcome.output.encode()):
            outcome.notes.append(f"output truncated: {answer['output_bytes']} bytes printed, first {len(outcome.output.encode())} kept")
        if answer.get("worker_error"):
            error = answer["worker_error"]
            outcome.status, outcome.error = ("timed out" if error.startswith("timed out") else "crashed"), error
        elif answer.get("import_error"):
            outcome.status, outcome.error = "import failed", answer["import_error"]
            if outcome.error.startswith("MemoryError"):
                outcome.error += " (the worker's memory limit was reached)"
        self.modules.append(outcome)
        if path and outcome.error:
            self.file_failure[path] = outcome.error
            # An import error raised at a site's own line names that site.
            for frame_path, line in answer.get("import_frames", ()):
                site = self._site_at(frame_path, line)
                if site is not None:
                    for platform in answer.get("platforms") or ["*"]:
                        self._record(site, platform, FAILED, answer["import_error"])
                    break
        if path and outcome.stubs:
            self.stubbed[path] = outcome.stubs
        for platform in answer.get("platforms") or ():
            if platform not in self.job_platforms:
                self.job_platforms.append(platform)
        self.rule_platforms.extend(answer.get("registrations", ()))
        new = self._probes(answer.get("probes", ()), job, outcome)
        if job.get("original") is not None:
            self._compare(new, self._emissions_by_entry(answer.get("original_probes", ())))

    def _probes(self, probes: Iterable[dict], job: dict, outcome: ModuleOutcome) -> dict:
        emitted: dict[tuple[str, str], list[tuple[Optional[Site], dict]]] = {}
        for probe in probes:
            platform = probe["platform"]
            sites_here: list[Site] = []
            for emission in probe.get("emissions", ()):
                site = self._site_of(emission["frames"])
                emitted.setdefault((probe["entry"], platform), []).append((site, emission))
                if site is None:
                    continue
                sites_here.append(site)
                if emission.get("error"):
                    self._record(site, platform, FAILED, emission["error"])
                else:
                    self._record(site, platform, VERIFIED, None)
                    if probe.get("compiled"):
                        self._note(site, platform, "compiled and run")
                    elif probe.get("note"):
                        self._note(site, platform, probe["note"])
            error = probe.get("error")
            if not error:
                continue
            blamed = [] if self._guess_turned_down(probe) else self._blame(probe, sites_here)
            if probe.get("auto") and probe["phase"] == "trace":
                # An automatic probe passes an array for every parameter. Only ffi_call builds
                # its custom call while tracing; a lowering-time builder reached then was
                # called from a helper given arrays where it takes a lowering context or
                # objects: the guess was wrong, which says nothing about the site.
                blamed = [site for site in blamed if kind_of(site.builder) == "ffi_call"]
            if blamed:
                for site in blamed:
                    self._record(site, platform, FAILED, error, guessed=bool(probe.get("auto")))
            elif job.get("path"):
                self.reasons.setdefault(job["path"], []).append(probe)
        return emitted

    def _guess_turned_down(self, probe: dict) -> bool:
        """Whether an automatic probe failed only because its made-up arrays were not what
        the project takes, which says nothing about its sites: the project's own
        raise/assert turned them down ("Unsupported dtype float32"), or a rule unpacked a
        shape of another rank before its custom call (``N, H, W, C = ctx.avals_in[0].shape``
        given the guessed (8,) array)."""
        if probe.get("rejected"):
            return True
        return bool(probe.get("auto")) and probe["phase"] == "lower" and bool(_UNPACKED_SHAPE.match(probe["error"])) \
            and not any(self._site_at(path, line) for path, line in probe.get("frames", ()))

    def _blame(self, probe: dict, emitted: list[Site]) -> list[Site]:
        frames = probe.get("frames", ())
        for path, line in frames:
            site = self._site_at(path, line)
            if site is not None:
                return [site]
        if probe["phase"] in ("compile", "execute"):
            named = [s for s in emitted if s.target and s.target in probe["error"]]
            return named or emitted
        if probe["phase"] == "lower":
            # Raised inside a lowering rule but off its sites' lines: the rule's sites.
            for path, line in frames:
                inside = [s for s in self.sites_by_file.get(path, ()) if s.function_start and s.function_start <= line <= s.function_end]
                if inside:
                    return inside
        return []

    def _emissions_by_entry(self, probes: Iterable[dict]) -> dict:
        out: dict[tuple[str, str], list[dict]] = {}
        for probe in probes:
            for emission in probe.get("emissions", ()):
                out.setdefault((probe["entry"], probe["platform"]), []).append(emission)
        return out

    def _compare(self, new: dict, original: dict) -> None:
        for key, pairs in new.items():
            by_target: dict[Optional[str], list[dict]] = {}
            for emission in original.get(key, ()):
                by_target.setdefault(emission["target"], []).append(emission)
            for site, emission in pairs:
                queue = by_target.get(emission["target"])
                if site is None:
                    if queue:
                        queue.pop(0)
                    continue
                verdict = configs.preserved(queue.pop(0)["config"], emission["config"]) if queue else None
                self.preserved.setdefault((site, key[1]), []).append(verdict)

    # -- mapping --------------------------------------------------------------------
    def _site_at(self, path: str, line: int) -> Optional[Site]:
        best = None
        for site in self.sites_by_file.get(path, ()):
            if site.contains(line) and (best is None or site.end_line - site.line < best.end_line - best.line):
                best = site
        return best

    def _site_of(self, frames: Iterable) -> Optional[Site]:
        for path, line in frames:
            site = self._site_at(path, line)
            if site is not None:
                return site
        return None

    def _record(self, site: Site, platform: str, status: str, error: Optional[str], guessed: bool = False) -> None:
        self.outcome.setdefault((site, platform), []).append((status, error, guessed))

    def _note(self, site: Site, platform: str, note: str) -> None:
        notes = self.notes.setdefault((site, platform), [])
        if note not in notes:
            notes.append(note)

    def registered_for(self, site: Site) -> list[str]:
        """The platforms of the lowering rules around ``site`` when each names some (a
        rule for every platform, or none found: ``[]``)."""
        found: set = set()
        for reg in self.rule_platforms:
            if reg["path"] == site.path and reg["first"] <= site.line <= reg["last"]:
                platform = reg["platform"]
                if platform is None:
                    return []
                platform = str(platform).lower()
                found.update(("cuda", "rocm") if platform == "gpu" else (platform,))
        return sorted(found)

    def _applicable(self, site: Site, platforms: list[str], extra: Sequence[str] = ()) -> list[str]:
        """The platforms a site gets rows for: all of ``platforms``, or where the site is
        inside lowering rules registered for some platforms only, those of them; of
        ``extra`` (lowered only for such rules) only those its rules are registered for."""
        found = self.registered_for(site)
        if not found:
            return platforms
        return [p for p in [*platforms, *extra] if p in found]

    # -- statuses -----------------------------------------------------------------------
    def statuses(self, platforms: list[str], extra: Sequence[str] = ()) -> list[SiteStatus]:
        rows = []
        for path, sites in self.sites_by_file.items():
            module = module_location(path)[1]
            for site in sites:
                applicable = self._applicable(site, platforms, extra)
                reached = [p for p in applicable if self.outcome.get((site, p))]
                for platform in applicable:
                    if reached and platform not in reached and self._other_branch(site, platform, sites):
                        continue
                    rows.append(self._status(site, platform, path, module))
        return rows

    def _other_branch(self, site: Site, platform: str, sites: Sequence[Site]) -> bool:
        """Whether ``site``, reached on other platforms, sits in a function that ran on
        ``platform`` and built another of its custom calls instead: a branch for those
        other platforms (``if platform == "cpu": ... elif platform == "gpu": ...``),
        which no entry point could make it take here."""
        if not site.function_start or self.outcome.get((site, "*")):
            return False
        return any(
            other is not site
            and (other.function_start, other.function_end) == (site.function_start, site.function_end)
            and self.outcome.get((other, platform))
            for other in sites
        )

    def _status(self, site: Site, platform: str, path: str, module: str) -> SiteStatus:
        evidence = self.outcome.get((site, platform), []) + self.outcome.get((site, "*"), [])
        notes = list(self.notes.get((site, platform), ()))
        if path in self.stubbed:
            notes.insert(0, f"with stubs ({', '.join(self.stubbed[path])})")
        note = "; ".join(notes) or None
        verified = any(s == VERIFIED for s, _, _ in evidence)
        # A site one probe lowered is not failed by another probe's made-up inputs (a
        # primitive bound without the params its rule needs) failing before its builder.
        failures = [e for s, e, guessed in evidence if s == FAILED and not (guessed and verified)]
        verdicts = [v for v in self.preserved.get((site, platform), ()) if v is not None]
        preserved = None if not verdicts else all(verdicts)
        if failures:
            return SiteStatus(site, platform, FAILED, failures[0], preserved, note)
        if verified:
            return SiteStatus(site, platform, VERIFIED, None, preserved, note)
        if path in self.file_failure:
            return SiteStatus(site, platform, FAILED, self.file_failure[path], None, note)
        reasons = self.reasons.get(path) or []
        # The failure raised in the site's own function, when there is one.
        own = [probe for probe in reasons if site.function_start and any(
            frame_path == site.path and site.function_start <= line <= site.function_end
            for frame_path, line in probe.get("frames", ()))]
        spec = f'"{module}:<function>" = ["f32[8]"]'
        if own and own[0].get("arity"):
            # The public function whose probe got there: its entry, for the user to fix the
            # dtypes and shapes of (and to add its other arguments).
            arrays = ", ".join(['"f32[8]"'] * own[0]["arity"])
            spec = f'"{own[0]["entry"]}" = [{arrays}]'
        hint = f"no entry point reached this site; declare one in pyproject.toml: [tool.ccmigrate.verify] {spec}"
        if reasons:
            probe = (own or reasons)[0]
            hint += f" (automatic probes failed: {probe['entry']} ({probe['platform']}): {probe['error']})"
        return SiteStatus(site, platform, UNREACHED, hint, None, note)


# -- output ---------------------------------------------------------------------------------


def table(report: VerifyReport, relative_to: Optional[str] = None, quiet: bool = False) -> list[str]:
    """The human-readable report: one line per site and platform, then module problems.

    ``quiet`` keeps only failed sites, module problems and the summary.
    """
    lines = []
    for row in report.sites:
        if quiet and row.status != FAILED:
            continue
        where = f"{_rel(row.site.path, relative_to)}:{row.site.line}"
        target = row.site.target or "?"
        config = {True: "config preserved", False: "CONFIG CHANGED", None: ""}[row.config_preserved]
        detail = " ".join(x for x in (config, row.note and f"({row.note})", row.error or "") if x)
        platform = row.platform or "-"
        lines.append(f"{where:40} {target:24} {platform:6} {row.status:10} {detail}".rstrip())
    for module in report.modules:
        if module.error:
            prefix = "import failed: " if module.status == "import failed" else ""
            lines.append(f"{_rel(module.path, relative_to) if module.path else module.module}: {prefix}{module.error}")
        for note in module.notes:
            lines.append(f"{_rel(module.path, relative_to) if module.path else module.module}: {note}")
    counts = report.counts()
    if report.static:
        lines.append(f"{counts[STATIC]} custom-call site(s) found (static scan; nothing was imported)")
    else:
        for site, registered in report.not_lowered:
            lines.append(f"{_rel(site.path, relative_to)}:{site.line}: not lowered: its lowering rule is registered for "
                         f"{', '.join(registered)} only (add --platforms {','.join(registered)})")
        lines.append(
            f"{len(report.sites)} site/platform pair(s) on {','.join(report.platforms)}: {counts[VERIFIED]} verified, "
            f"{counts[FAILED]} failed, {counts[UNREACHED]} unreached"
        )
    return lines


def _rel(path: Optional[str], base: Optional[str]) -> str:
    if not path:
        return ""
    base = base or os.getcwd()
    rel = os.path.relpath(path, base)
    return path if rel.startswith("..") else rel
