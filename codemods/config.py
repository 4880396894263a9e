"""``[tool.ccmigrate]`` in the target repository's ``pyproject.toml``.

The file is found by walking up from the paths given on the command line (from the
directory holding all of them) to the first ``pyproject.toml`` that has a
``[tool.ccmigrate]`` table, as ruff and black do. Flags given on the command line win
over the file. A key this module does not know is an error that names it, so a typo
never silently does nothing.

Example::

    [tool.ccmigrate]
    select = ["backend-config"]        # rules to run (default: all)
    ignore = []                        # rules to skip
    exclude = ["third_party/*"]        # globs, relative to the scanned root
    target-jax = "0.7"                 # jax release the result must run on
    unsafe-fixes = false               # also apply fixes that need review
    annotate = false                   # write manual follow-ups as TODO comments
    platforms = ["cpu", "cuda"]        # platforms ``ccmigrate verify`` lowers for

    [tool.ccmigrate.verify]            # entry points for ``ccmigrate verify``
"""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import Any, Iterable, Optional

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

FILENAME = "pyproject.toml"


class ConfigError(Exception):
    """The configuration cannot be used; the message names the file and the key."""


@dataclasses.dataclass(frozen=True)
class Config:
    #: The ``pyproject.toml`` the settings came from (``None``: none found).
    path: Optional[str] = None
    select: Optional[frozenset[str]] = None
    ignore: Optional[frozenset[str]] = None
    exclude: Optional[tuple[str, ...]] = None
    target_jax: Optional[tuple[int, ...]] = None
    unsafe_fixes: Optional[bool] = None
    annotate: Optional[bool] = None
    platforms: Optional[tuple[str, ...]] = None
    #: ``[tool.ccmigrate.verify]`` as written; read by ``ccmigrate verify``.
    verify: Optional[dict] = None


def _strings(key: str, value: Any, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def _bool(key: str, value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{where}: '{key}' must be true or false")
    return value


def _version(key: str, value: Any, where: str) -> tuple[int, ...]:
    from codemods.cli import parse_version  # the one parser of jax versions

    if not isinstance(value, str):
        raise ConfigError(f"{where}: '{key}' must be a string such as \"0.7\"")
    try:
        return parse_version(value)
    except Exception as exc:  # argparse.ArgumentTypeError
        raise ConfigError(f"{where}: '{key}': {exc}") from None


def _table(key: str, value: Any, where: str) -> dict:
    if not isinstance(value, dict):
        raise ConfigError(f"{where}: '{key}' must be a table ([tool.ccmigrate.{key}])")
    return value


#: key in the file -> (field of :class:`Config`, converter)
KEYS = {
    "select": ("select", lambda k, v, w: frozenset(_strings(k, v, w))),
    "ignore": ("ignore", lambda k, v, w: frozenset(_strings(k, v, w))),
    "exclude": ("exclude", _strings),
    "target-jax": ("target_jax", _version),
    "unsafe-fixes": ("unsafe_fixes", _bool),
    "annotate": ("annotate", _bool),
    "platforms": ("platforms", _strings),
    "verify": ("verify", _table),
}


def parse(table: dict, where: str) -> dict:
    """Validated :class:`Config` fields from a ``[tool.ccmigrate]`` table."""
    fields = {}
    for key, value in table.items():
        if key not in KEYS:
            hint = ""
            if key.replace("_", "-") in KEYS:
                hint = f" (did you mean '{key.replace('_', '-')}'?)"
            raise ConfigError(
                f"{where}: unknown key '{key}' in [tool.ccmigrate]{hint}; known keys: {', '.join(sorted(KEYS))}"
            )
        name, convert = KEYS[key]
        fields[name] = convert(key, value, where)
    return fields


def find(paths: Iterable[str]) -> Optional[str]:
    """The nearest ``pyproject.toml`` with a ``[tool.ccmigrate]`` table above ``paths``."""
    absolute = [os.path.abspath(p) for p in paths] or [os.getcwd()]
    try:
        start = os.path.commonpath(absolute)
    except ValueError:  # paths on different drives
        start = os.getcwd()
    directory = start if os.path.isdir(start) else os.path.dirname(start)
    while True:
        candidate = os.path.join(directory, FILENAME)
        if os.path.isfile(candidate) and _tool_table(candidate) is not None:
            return candidate
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _tool_table(path: str) -> Optional[dict]:
    try:
        with open(path, "rb") as fh:
            data = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    tool = data.get("tool", {})
    table = tool.get("ccmigrate") if isinstance(tool, dict) else None
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: 'tool.ccmigrate' must be a table")
    return table


def load(paths: Iterable[str], config_file: Optional[str] = None) -> Config:
    """Settings for a run over ``paths`` (or from ``config_file`` when given)."""
    path = config_file or find(paths)
    if path is None:
        return Config()
    table = _tool_table(path)
    if table is None:
        if config_file:
            raise ConfigError(f"{path}: no [tool.ccmigrate] table")
        return Config()
    return Config(path=path, **parse(table, path))


@dataclasses.dataclass(frozen=True)
class Settings:
    """What a run uses: each command-line flag given, else the file's key, else the default."""

    select: Optional[frozenset[str]]
    ignore: frozenset[str]
    exclude: tuple[str, ...]
    target_jax: Optional[tuple[int, ...]]
    unsafe_fixes: bool
    annotate: bool
    platforms: tuple[str, ...]


def resolve(config: Config, **flags: Any) -> Settings:
    """Merge ``flags`` (``None`` where not given on the command line) over ``config``."""

    def pick(name: str, default: Any) -> Any:
        flag = flags.get(name)
        if flag is not None:
            return flag
        value = getattr(config, name)
        return default if value is None else value

    return Settings(
        select=pick("select", None),
        ignore=pick("ignore", frozenset()),
        exclude=tuple(pick("exclude", ())),
        target_jax=pick("target_jax", None),
        unsafe_fixes=bool(pick("unsafe_fixes", False)),
        annotate=bool(pick("annotate", False)),
        platforms=tuple(pick("platforms", ())),
    )
