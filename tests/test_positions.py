"""The statement index (where each top-level statement starts, read from Python's parser)
gives exactly what LibCST's own code generation gives: the module's bytes when kept
statements are copied from the original text, and every node's position.

Checked over every Python file of testdata/ and a table of inputs made to trip it up;
where the index cannot be trusted it must say so (``None``), never guess.
"""

from __future__ import annotations

import glob
import os
import random

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from codemods import positions, walk

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TRICKY = {
    "comments_between": b"import os\n\n# about x\n\n# more\nx = 1\n# trailing\n",
    "block_footer": b"def f():\n    return 1\n    # indented after the body\n\n# column 0\ny = 2\n",
    "decorators": b"import functools\n\n# above\n@functools.lru_cache()\n# between\n\n@staticmethod\ndef f():\n    pass\n\n\n@functools.wraps(\n    f\n)\nclass C:\n    pass\n",
    "semicolons": b"a = 1; b = 2\nc = 3;\nif a: b; c\n",
    "continuations": b"x = 1 + \\\n    2\ny = \\\n3\nassert x, \\\n  'message'\n",
    "strings": b'"""Doc\nat column 0\nimport os\n"""\ns = """\ndef f():\n"""\nt = (\n"x"\n)\n',
    "crlf": b"import os\r\n\r\n# c\r\ndef f():\r\n    return 1\r\n\r\nx = '''a\r\nb'''\r\n",
    "no_final_newline": b"import os\nx = 1",
    "no_final_newline_comment": b"import os\nx = 1\n# end",
    "header_comments": b"#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n\n# header\n\nimport os\n",
    "form_feed": b"import os\n\x0c\n# page two\ndef f():\n    pass\n\x0c\nx = 1\n",
    "form_feed_line_start": b"import os\n\x0cx = 1\n",
    "lone_cr": b"import os\rx = 1\r",
    "bom": b"\xef\xbb\xbfimport os\nx = 1\n",
    "latin1": b"# -*- coding: latin-1 -*-\ns = '\xe9'\nt = 1\n",
    "tabs": b"if True:\n\tx = 1\n\t# tab comment\ny = 2\n",
    "async_and_match": b"async def f():\n    pass\n\nmatch x:\n    case 1:\n        pass\n# after\n",
    "only_comments_after": b"x = 1\n\n\n# one\n\n# two\n\n",
    "trailing_whitespace": b"x = 1   \n   \ny = 2\n",
    "parenthesised_start": b"(a) = 1\n(b, c) = 2, 3\n[d] = [4]\n",
    "empty_lines_top": b"\n\n\nimport os\n",
}

#: Inputs whose index must be known (so the comparisons below are not vacuous).
INDEXED = {"comments_between", "block_footer", "decorators", "semicolons", "continuations", "strings", "crlf",
           "header_comments", "latin1", "tabs", "async_and_match", "only_comments_after", "trailing_whitespace",
           "empty_lines_top"}


def _fixture_sources() -> list[tuple[str, bytes]]:
    found = []
    for path in sorted(glob.glob(os.path.join(ROOT, "testdata", "**", "*.py"), recursive=True)):
        with open(path, "rb") as fh:
            found.append((os.path.relpath(path, ROOT), fh.read()))
    return found


CASES = sorted(TRICKY.items()) + _fixture_sources()


def _parse(source: bytes):
    try:
        return cst.parse_module(source)
    except Exception:  # noqa: BLE001 - bad fixtures (binary, invalid UTF-8) are not this test's
        return None


def _expected_starts(module: cst.Module) -> list[int]:
    line = positions._newlines(positions.lines_code(module, module.header))
    starts = []
    for stmt in module.body:
        starts.append(line)
        line += positions._newlines(positions.code_for_node(module, stmt))
    starts.append(line)
    return starts


@pytest.mark.parametrize("name,source", CASES, ids=[c[0] for c in CASES])
def test_index_splice_and_positions_match_libcst(name: str, source: bytes) -> None:
    module = _parse(source)
    if module is None:
        pytest.skip("not parseable by LibCST")
    index = positions.statement_index(module, source)
    if name in INDEXED:
        assert index is not None
    if index is None:
        return
    assert index.starts == _expected_starts(module)
    assert positions.module_bytes(module) == source

    # Kept statements copied, others generated: the same bytes as LibCST's.
    rng = random.Random(name)
    for _ in range(2):
        body = []
        for stmt in module.body:
            roll = rng.random()
            if roll < 0.3:
                body.append(stmt.deep_clone())  # the same code, another node
            elif roll < 0.4:
                body.append(cst.parse_statement("value = 1\n"))
            elif roll < 0.5:
                continue
            else:
                body.append(stmt)
        new = module.with_changes(body=body)
        spliced = positions.splice(index, new)
        assert spliced is not None
        assert spliced.data == positions.module_bytes(new)
        assert spliced.starts == _expected_starts(new)

    # Positions of nodes in a few statements, as PositionProvider gives them.
    parents: dict = {}
    walk.record_parents(module, parents)

    def top_of(node):
        while parents.get(node) is not module:
            node = parents.get(node)
            if node is None:
                return None
        return node

    expected = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    chosen = [stmt for k, stmt in enumerate(module.body) if k % 2 == 0]
    wanted = set(chosen)
    for stmt in chosen:
        below: dict = {}
        walk.record_parents(stmt, below)
        wanted.update(list(below)[:: max(1, len(below) // 20)])
    found = positions.locate_in(index, wanted, top_of)
    assert found is not None
    ranges, ancestors = found
    whole_ranges, whole_ancestors = positions.locate(module, wanted)
    for node in wanted:
        if node not in expected:
            # LibCST before 1.8.4 gives no position to some empty whitespace of a match
            # statement (its codegen skips it); there is nothing to compare with.
            continue
        assert ranges[node] == expected[node], node
        assert ancestors.get(node) == whole_ancestors.get(node)


@pytest.mark.parametrize("name", ["no_final_newline", "lone_cr", "bom", "form_feed_line_start"])
def test_doubtful_inputs_have_no_index(name: str) -> None:
    source = TRICKY[name]
    module = cst.parse_module(source)
    assert positions.statement_index(module, source) is None


def test_splice_refuses_another_newline_convention() -> None:
    source = TRICKY["crlf"]
    module = cst.parse_module(source)
    index = positions.statement_index(module, source)
    assert index is not None
    assert positions.splice(index, module.with_changes(default_newline="\n")) is None
