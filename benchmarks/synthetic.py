"""A deterministic synthetic repository: ordinary Python with a few custom-call modules.

The same ``(files, lines, seed)`` always gives the same bytes, so timings from different
machines or commits compare like with like. About 1% of the files are lowering modules
holding ``backend_config`` sites of every kind the ``backend-config`` rule handles, under
every import spelling it resolves; a few ordinary files mention ``backend_config`` in
passing (a settings attribute), as real code does, so the text prefilter lets through
files that turn out to hold no site. The rest is ordinary application code: classes,
dataclasses, typed functions, comprehensions, ``with``/``try``, decorators, async code,
and some newer syntax (``:=``, positional-only parameters, ``match``) that older
parsers reject.

File sizes follow a log-normal law (most files a few hundred lines, a few several
thousand) because parse cost per line grows with file size and a uniform corpus would
hide that.
"""

from __future__ import annotations

import math
import os
import random
from typing import Callable

#: Fraction of files that are lowering modules with custom-call sites.
SITE_FRACTION = 0.01
#: Fraction of ordinary files that merely mention ``backend_config``.
MENTION_FRACTION = 0.003

WORDS = (
    "account batch buffer cache channel client config cursor dataset device event feature "
    "frame graph handler index item job kernel layer ledger metric model node offset order "
    "packet page payload record region report request sample schema session shard signal "
    "source stage stream table task tensor token track user vector window worker"
).split()


def _name(rng: random.Random, parts: int = 2) -> str:
    return "_".join(rng.choice(WORDS) for _ in range(parts))


def _cls(rng: random.Random) -> str:
    return "".join(w.capitalize() for w in (rng.choice(WORDS), rng.choice(WORDS), rng.choice(("Manager", "Store", "Builder", "Spec", "Result", "Loader"))))


# -- ordinary code ------------------------------------------------------------------
# Each chunk returns a block of top-level code; ``n`` makes names unique in the file.


def _chunk_function(rng: random.Random, n: int) -> str:
    a, b = _name(rng), _name(rng)
    return f'''
def {a}_{n}(items: list[dict[str, int]], limit: int = {rng.randint(2, 500)}) -> dict[str, int]:
    """Sum the {b} counts of the first ``limit`` items, skipping empty ones."""
    totals: dict[str, int] = {{}}
    for index, item in enumerate(items):
        if index >= limit:
            break
        if not item:
            continue
        for key, value in sorted(item.items()):
            totals[key] = totals.get(key, 0) + value * {rng.randint(1, 9)}
    return {{k: v for k, v in totals.items() if v > {rng.randint(0, 50)}}}
'''


def _chunk_class(rng: random.Random, n: int) -> str:
    cls, field = _cls(rng), _name(rng)
    return f'''
class {cls}{n}:
    """Keeps the {field} entries seen so far and answers lookups on them."""

    default_size = {rng.randint(8, 4096)}

    def __init__(self, name: str, size: int | None = None) -> None:
        self.name = name
        self.size = size or self.default_size
        self._entries: dict[str, list[float]] = {{}}

    def add(self, key: str, value: float) -> None:
        bucket = self._entries.setdefault(key, [])
        bucket.append(float(value))
        if len(bucket) > self.size:
            del bucket[0]

    def mean(self, key: str) -> float:
        values = self._entries.get(key, [])
        return sum(values) / len(values) if values else 0.0

    def __repr__(self) -> str:
        return f"{{type(self).__name__}}({{self.name!r}}, size={{self.size}})"

    @property
    def keys(self) -> list[str]:
        return sorted(self._entries)
'''


def _chunk_dataclass(rng: random.Random, n: int) -> str:
    cls = _cls(rng)
    fields = "\n".join(f"    {_name(rng, 1)}_{i}: {rng.choice(('int', 'str', 'float', 'bool'))} = {rng.choice(('0', repr('x'), '1.5', 'False'))}" for i in range(rng.randint(2, 6)))
    return f'''
@dataclasses.dataclass(frozen=True)
class {cls}Options{n}:
{fields}

    def replace(self, **changes) -> "{cls}Options{n}":
        return dataclasses.replace(self, **changes)
'''


def _chunk_io(rng: random.Random, n: int) -> str:
    a = _name(rng)
    return f'''
def load_{a}_{n}(path: str, encoding: str = "utf-8") -> list[str]:
    try:
        with open(path, encoding=encoding) as handle:
            lines = [line.rstrip("\\n") for line in handle if line.strip()]
    except FileNotFoundError:
        logger.warning("missing %s", path)
        return []
    except (OSError, UnicodeDecodeError) as exc:
        raise RuntimeError(f"cannot read {{path}}: {{exc}}") from exc
    else:
        return [line for line in lines if not line.startswith("#")]
    finally:
        logger.debug("read %s", path)
'''


def _chunk_decorated(rng: random.Random, n: int) -> str:
    a = _name(rng)
    return f'''
@functools.lru_cache(maxsize={rng.choice((32, 128, 1024))})
def {a}_key_{n}(*parts: str, sep: str = "/") -> str:
    cleaned = (p.strip(sep) for p in parts if p)
    return sep.join(cleaned).lower()


def retry_{a}_{n}(attempts: int = {rng.randint(2, 6)}):
    def wrap(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            last = None
            for attempt in range(attempts):
                try:
                    return fn(*args, **kwargs)
                except ConnectionError as exc:  # transient: try again
                    last = exc
                    time.sleep(0.01 * 2 ** attempt)
            raise last
        return inner
    return wrap
'''


def _chunk_async(rng: random.Random, n: int) -> str:
    a = _name(rng)
    return f'''
async def fetch_{a}_{n}(client, urls: list[str], *, concurrency: int = {rng.randint(2, 16)}) -> list[bytes]:
    semaphore = asyncio.Semaphore(concurrency)

    async def one(url: str) -> bytes:
        async with semaphore:
            response = await client.get(url, timeout={rng.randint(1, 30)})
            return await response.read()

    return await asyncio.gather(*(one(u) for u in urls))
'''


def _chunk_numeric(rng: random.Random, n: int) -> str:
    a = _name(rng)
    return f'''
def normalise_{a}_{n}(x: np.ndarray, axis: int = -1, eps: float = {rng.choice(('1e-6', '1e-5', '1e-8'))}) -> np.ndarray:
    mean = x.mean(axis=axis, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axis, keepdims=True)
    scaled = (x - mean) / np.sqrt(var + eps)
    return np.clip(scaled, -{rng.randint(3, 10)}.0, {rng.randint(3, 10)}.0)
'''


def _chunk_table(rng: random.Random, n: int) -> str:
    rows = ",\n".join(f'    ("{_name(rng)}", {rng.randint(0, 999)}, {rng.random():.3f})' for _ in range(rng.randint(4, 20)))
    return f'''
{_name(rng).upper()}_{n} = [
{rows},
]
'''


def _chunk_walrus(rng: random.Random, n: int) -> str:
    return f'''
def scan_{_name(rng)}_{n}(lines, pattern=re.compile(r"(\\w+)=(\\d+)")):
    found = {{}}
    for line in lines:
        if (m := pattern.match(line)) is not None:
            found[m.group(1)] = int(m.group(2))
    return found
'''


def _chunk_posonly(rng: random.Random, n: int) -> str:
    return f'''
def clamp_{_name(rng)}_{n}(value, lo, hi, /, *, strict=False):
    if strict and not lo <= value <= hi:
        raise ValueError(value)
    return max(lo, min(hi, value))
'''


def _chunk_match(rng: random.Random, n: int) -> str:
    return f'''
def describe_{_name(rng)}_{n}(event):
    match event:
        case {{"type": "click", "x": x, "y": y}}:
            return f"click at {{x}},{{y}}"
        case {{"type": "key", "key": str(key)}}:
            return f"key {{key}}"
        case [first, *rest]:
            return f"batch of {{1 + len(rest)}} starting with {{first}}"
        case _:
            return "unknown"
'''


def _chunk_mention(rng: random.Random, n: int) -> str:
    # Text that passes the byte prefilter but holds no custom-call site.
    return f'''
class ServingSettings{n}:
    def __init__(self, backend_config: dict | None = None) -> None:
        self.backend_config = dict(backend_config or {{}})

    def merged(self, **overrides) -> dict:
        return {{**self.backend_config, **overrides}}
'''


COMMON = [_chunk_function, _chunk_class, _chunk_dataclass, _chunk_io, _chunk_decorated, _chunk_numeric, _chunk_table, _chunk_async]
NEWER = [_chunk_walrus, _chunk_posonly, _chunk_match]

HEADER = '''"""{doc}"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import re
import time

import numpy as np

logger = logging.getLogger(__name__)
'''


# -- lowering modules ------------------------------------------------------------
# (imports needed, module-level code, site code inside a lowering rule); ``{M}`` is the
# spelling of the mlir module, ``{i}`` makes names unique.

SPELLINGS = (
    ("from jax.interpreters import mlir", "mlir"),
    ("import jax._src.interpreters.mlir as M", "M"),
    ("from jax._src.interpreters import mlir as private_mlir", "private_mlir"),
    ("from jax.interpreters import mlir as jmlir", "jmlir"),
)

SITES: list[tuple[str, str]] = [
    ("", '{M}.custom_call("k{i}_dict", result_types=[t], operands=[x], backend_config={{"mode": "fast", "alpha": {f}}})'),
    ("", '{M}.custom_call("k{i}_list", result_types=[t], operands=[x], backend_config=[{a}, {b}, 3])'),
    ("", '{M}.custom_call("k{i}_tuple", result_types=[t], operands=[x], backend_config=({a}, {b}))'),
    ("", '{M}.custom_call("k{i}_num", result_types=[t], operands=[x], backend_config={a})'),
    ("", '{M}.custom_call("k{i}_bool", result_types=[t], operands=[x], backend_config=True)'),
    ("", '{M}.custom_call("k{i}_dictcall", result_types=[t], operands=[x], backend_config=dict(tile={a}, mode="slow"))'),
    ('DEFAULTS_{i} = {{"tile": {a}, "mode": "fast"}}', '{M}.custom_call("k{i}_bound", result_types=[t], operands=[x], backend_config=DEFAULTS_{i})'),
    ("", 'local_{i} = {{"beta": [{a}, {b}]}}\n    {M}.custom_call("k{i}_local", result_types=[t], operands=[x], backend_config=local_{i})'),
    ("@dataclasses.dataclass\nclass Tile{i}:\n    tile: int = {a}\n    mode: str = \"fast\"", '{M}.custom_call("k{i}_dc", result_types=[t], operands=[x], backend_config=Tile{i}(tile={b}))'),
    ("", 'msg_{i} = kernel_pb2.KernelConfig(alpha={f})\n    {M}.custom_call("k{i}_pb", result_types=[t], operands=[x], backend_config=msg_{i})'),
    ("", '{M}.custom_call("k{i}_param", result_types=[t], operands=[x], backend_config=cfg)'),
    ("", 'hlo_custom_call("k{i}_old", [t], [x], None, None, {{"k": {a}}})'),
    ("", 'jax.ffi.ffi_lowering("k{i}_ffi2", api_version=2, backend_config={{"k": {a}}})(ctx, x)'),
    ("", 'ffi.ffi_lowering("k{i}_ffi4", api_version=4, backend_config={{"n": {a}, "mode": "fast"}})(ctx, x)'),
    ("", 'jax.ffi.ffi_call("k{i}_call", x, custom_call_api_version=2, legacy_backend_config={{"b": {b}, "a": {a}}})'),
    ("", '{M}.custom_call("k{i}_str", result_types=[t], operands=[x], backend_config="opaque-{a}")'),
    ("", '{M}.custom_call("k{i}_json", result_types=[t], operands=[x], backend_config=json.dumps({{"a": {a}}}))'),
    ("", '{M}.custom_call("k{i}_attrs", result_types=[t], operands=[x], backend_config={{"n": {M}.i64_attr({a})}}, api_version=4)'),
]

LOWERING_IMPORTS = """import json

import jax
from jax import ffi
from jaxlib.hlo_helpers import custom_call as hlo_custom_call

from . import kernel_pb2
"""


def _lowering_block(rng: random.Random, n: int, spelling: str, kinds: list[int]) -> tuple[str, str]:
    module_level, body = [], []
    for k in kinds:
        values = {"M": spelling, "i": f"{n}_{k}", "a": rng.randint(1, 512), "b": rng.randint(1, 512), "f": f"{rng.uniform(0, 4):.2f}"}
        top, site = SITES[k]
        if top:
            module_level.append(top.format(**values))
        body.append("    " + site.format(**values))
    rule = f'''
def _lowering_{n}(ctx, x, *, cfg=None):
    """Lowering rule of the {rng.choice(WORDS)} kernel (entry point {n})."""
    t = {spelling}.aval_to_ir_type(ctx.avals_out[0])
{chr(10).join(body)}
    return [x]
'''
    return "\n\n".join(module_level), rule


# -- the repository ---------------------------------------------------------------


def plan_sizes(files: int, lines: int, rng: random.Random) -> list[int]:
    """Log-normal line counts summing to about ``lines``."""
    sigma = 0.9
    mu = math.log(max(lines / max(files, 1), 20)) - sigma * sigma / 2
    sizes = [min(max(int(rng.lognormvariate(mu, sigma)), 15), 8000) for _ in range(files)]
    scale = lines / max(sum(sizes), 1)
    return [max(15, int(s * scale)) for s in sizes]


def generate(root: str, files: int = 5000, lines: int = 1_000_000, seed: int = 0) -> dict:
    """Write the repository under ``root`` (created); returns counts of what it holds."""
    rng = random.Random(seed)
    sizes = plan_sizes(files, lines, rng)
    site_every = max(int(round(1 / SITE_FRACTION)), 1)
    stats = {"files": 0, "lines": 0, "site_files": 0, "sites": 0, "mention_files": 0}
    per_dir = 40
    for index, size in enumerate(sizes):
        directory = os.path.join(root, f"pkg{index // (per_dir * 10):02d}", f"sub{(index // per_dir) % 10}")
        if not os.path.isdir(directory):
            os.makedirs(directory)
            for level in (directory, os.path.dirname(directory)):
                init = os.path.join(level, "__init__.py")
                if not os.path.exists(init):
                    with open(init, "w") as fh:
                        fh.write('"""Package."""\n')
                    stats["files"] += 1
                    stats["lines"] += 1
        is_site = index % site_every == site_every // 2
        mention = not is_site and rng.random() < MENTION_FRACTION
        text, sites = _module(rng, index, size, is_site, mention)
        with open(os.path.join(directory, f"{_name(rng, 1)}_{index}.py"), "w") as fh:
            fh.write(text)
        stats["files"] += 1
        stats["lines"] += text.count("\n")
        stats["site_files"] += is_site
        stats["sites"] += sites
        stats["mention_files"] += mention
    return stats


def _module(rng: random.Random, index: int, size: int, is_site: bool, mention: bool) -> tuple[str, int]:
    parts = [HEADER.format(doc=f"{_cls(rng)} utilities ({index}).")]
    sites = 0
    if is_site:
        import_line, spelling = SPELLINGS[index % len(SPELLINGS)]
        parts.append(import_line + "\n" + LOWERING_IMPORTS)
        # Every kind appears in every lowering module, split over a few rules, so the
        # 1% of files exercise the whole rule under each import spelling.
        kinds = list(range(len(SITES)))
        rng.shuffle(kinds)
        groups = [kinds[i : i + 6] for i in range(0, len(kinds), 6)]
        for g, group in enumerate(groups):
            top, rule = _lowering_block(rng, index * 10 + g, spelling, group)
            if top:
                parts.append(top + "\n")
            parts.append(rule)
            sites += len(group)
    if mention:
        parts.append(_chunk_mention(rng, index))
    count = sum(p.count("\n") for p in parts)
    n = 0
    while count < size:
        chooser: Callable = rng.choice(NEWER) if rng.random() < 0.04 else rng.choice(COMMON)
        chunk = chooser(rng, n)
        parts.append(chunk)
        count += chunk.count("\n")
        n += 1
    return "\n".join(parts), sites


if __name__ == "__main__":  # pragma: no cover - handy for a look at the output
    import sys

    print(generate(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 100, int(sys.argv[3]) if len(sys.argv) > 3 else 20000))


# -- modules ``ccmigrate verify`` can import and lower ---------------------------------

VERIFIABLE = '''"""Kernel wrapper {n}: its lowering rule passes configs jax rejects until rewritten."""
import dataclasses

from jax._src.interpreters import mlir
from jax.extend import core

DEFAULTS_{n} = {{"tile": {a}, "mode": "fast"}}


@dataclasses.dataclass
class Tile{n}:
    size: int = {b}


scale_{n}_p = core.Primitive("synthetic_scale_{n}")
scale_{n}_p.def_abstract_eval(lambda x: x)


def _scale_{n}_lowering(ctx, x):
    t = mlir.aval_to_ir_type(ctx.module_context, ctx.avals_out[0])
    local = {{"beta": [{a}, {b}]}}
    mlir.custom_call("k{n}_dict", result_types=[t], operands=[x], backend_config={{"alpha": {f}}})
    mlir.custom_call("k{n}_bound", result_types=[t], operands=[x], backend_config=DEFAULTS_{n})
    mlir.custom_call("k{n}_local", result_types=[t], operands=[x], backend_config=local)
    mlir.custom_call("k{n}_list", result_types=[t], operands=[x], backend_config=[{a}, {b}])
    mlir.custom_call("k{n}_num", result_types=[t], operands=[x], backend_config={a})
    return mlir.custom_call("k{n}_dc", result_types=[t], operands=[x], backend_config=Tile{n}(size={b})).results


mlir.register_lowering(scale_{n}_p, _scale_{n}_lowering)


def scale_{n}(x):
    return scale_{n}_p.bind(x)
'''


def generate_verifiable(root: str, modules: int = 40, seed: int = 0) -> list[str]:
    """A package of lowering modules whose entry points ``ccmigrate verify`` finds itself."""
    rng = random.Random(seed)
    package = os.path.join(root, "synthetic_kernels")
    os.makedirs(package, exist_ok=True)
    with open(os.path.join(package, "__init__.py"), "w") as fh:
        fh.write('"""Synthetic kernels."""\n')
    paths = []
    for n in range(modules):
        path = os.path.join(package, f"op{n}.py")
        with open(path, "w") as fh:
            fh.write(VERIFIABLE.format(n=n, a=rng.randint(1, 512), b=rng.randint(1, 64), f=f"{rng.uniform(0, 4):.2f}"))
        paths.append(path)
    return paths
