"""Bad input: each broken file is named on stderr in one line and left byte-identical,
the run goes on (exit 2), and files with odd encodings or line endings are rewritten
keeping them.

The committed corpus is ``testdata/bad/``; what git cannot hold (links, a directory
named ``x.py``, a FIFO, permissions, a 33 MiB file, races) is built here.

Which inputs are errors (exit 2):
    syntax error (in a file that can hold a site), undecodable bytes, an unknown coding
    cookie, NUL bytes, nesting deeper than Python's parser accepts (which would crash
    LibCST's native parser), a file over 32 MiB, a directory named ``*.py``, a FIFO, a symbolic
    link loop, a dangling link, a link leading out of the given root, a read-only file
    that needs a change (writing by rename would bypass the protection), an unreadable
    file, a file that vanishes or changes under the tool, a path that does not exist.
Which are fine:
    an empty file, a read-only file that needs no change, a multi-megabyte file, latin-1
    with its cookie, a UTF-8 byte-order mark, CRLF, mixed line endings, tabs.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import warnings

import pytest

from codemods import cli, engine, fileio, writer
from codemods.discovery import TEMP_SUFFIX
from tests.helpers import TESTDATA, child_env, rewrite_source

BAD = os.path.join(TESTDATA, "bad")
REWRITTEN = ["good", "latin1_cookie", "utf8_bom", "crlf", "mixed_newlines", "tabs"]
COMMITTED_ERRORS = {
    "syntax_error.py": "syntax error at line 5, column",
    "invalid_utf8.py": "cannot decode: byte 0xe4 at line 10 is not valid utf-8",
    "unknown_coding.py": "cannot decode: unknown encoding",
    "binary.py": "binary file (contains NUL bytes)",
}

#: Nesting Python's parser refuses, each of which crashed LibCST 1.9's native parser (a
#: segfault, which took the whole run with it) or kept it busy for minutes.
DEEP = {
    "deep_chain.py": b"total = 1" + b" + 1" * 10_000 + b"\n",
    "deep_brackets.py": b"nested = " + b"[" * 3_000 + b"1" + b"]" * 3_000 + b"\n",
    "deep_subscripts.py": b"item = table" + b"[0]" * 6_000 + b"\n",
}


def _read(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _write(path: str, data: bytes, mode: int | None = None) -> None:
    with open(path, "wb") as fh:
        fh.write(data)
    if mode is not None:
        os.chmod(path, mode)


def _snapshot(root: str) -> dict[str, tuple]:
    """Every entry under ``root`` (links not followed): kind and content or target."""
    state = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(directory, name)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                state[path] = ("link", os.readlink(path))
            elif stat.S_ISREG(st.st_mode):
                digest = hashlib.sha256(_read(path)).hexdigest() if st.st_mode & 0o444 else None
                state[path] = ("file", stat.S_IMODE(st.st_mode), st.st_size, digest)
            else:
                state[path] = ("other", stat.S_IFMT(st.st_mode))
    return state


#: Run before the CLI, in its own process: root loses the power to read and write any
#: file, then the interpreter re-executes itself with the remaining arguments. (A
#: ``preexec_fn`` would run Python between fork and exec, unsafe once jax's threads run.)
DROP_OVERRIDE = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
    if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
        raise SystemExit(3)
os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
"""


def _confinement():
    """The command prefix that makes a mode-000 file really unreadable, or None if impossible.

    Tests often run as root, which reads anything; without CAP_DAC_OVERRIDE and
    CAP_DAC_READ_SEARCH root obeys permission bits like everyone else.
    """
    if os.geteuid() != 0:
        return [sys.executable]
    prefix = [sys.executable, "-c", DROP_OVERRIDE]
    if subprocess.run([*prefix, "-c", "pass"]).returncode != 0:
        return None
    return prefix


@pytest.fixture
def corpus():
    """The committed corpus plus generated bad entries, and how to run the CLI on it."""
    confinement = _confinement()
    base = tempfile.mkdtemp(prefix="ccmigrate-bad-")
    root = os.path.join(base, "project")
    shutil.copytree(BAD, root)
    good = _read(os.path.join(BAD, "good.py"))
    errors = {os.path.join(root, name): text for name, text in COMMITTED_ERRORS.items()}

    padding = b"".join(b"# padding %04d " % i + b"x" * 30000 + b"\n" for i in range(70))
    _write(os.path.join(root, "multi_megabyte.py"), good + padding)
    with open(os.path.join(root, "oversized.py"), "wb") as fh:
        fh.write(good)
        fh.truncate(33 * 1024 * 1024)  # sparse: costs no disk
    errors[os.path.join(root, "oversized.py")] = "file is larger than 32 MiB"

    for name, nested in DEEP.items():
        _write(os.path.join(root, name), good + nested)
        errors[os.path.join(root, name)] = "cannot parse: nesting too deep"

    os.mkdir(os.path.join(root, "directory.py"))
    _write(os.path.join(root, "directory.py", "inner.py"), good)
    errors[os.path.join(root, "directory.py")] = "is a directory, not a Python file"

    os.symlink("loop.py", os.path.join(root, "loop.py"))
    errors[os.path.join(root, "loop.py")] = "symbolic link loop"
    os.symlink("nowhere/gone.py", os.path.join(root, "dangling.py"))
    errors[os.path.join(root, "dangling.py")] = "broken symbolic link"
    os.mkdir(os.path.join(base, "elsewhere"))
    _write(os.path.join(base, "elsewhere", "legacy.py"), good)
    os.symlink(os.path.join(base, "elsewhere", "legacy.py"), os.path.join(root, "outside.py"))
    errors[os.path.join(root, "outside.py")] = "points outside the given root; not followed"
    os.symlink(os.path.join(base, "elsewhere"), os.path.join(root, "outside_dir"))
    errors[os.path.join(root, "outside_dir")] = "points outside the given root; not followed"
    os.mkfifo(os.path.join(root, "fifo.py"))
    errors[os.path.join(root, "fifo.py")] = "not a regular file"

    _write(os.path.join(root, "readonly.py"), good, 0o444)
    errors[os.path.join(root, "readonly.py")] = "file is read-only; not written"
    _write(os.path.join(root, "readonly_clean.py"), b"x = 1\n", 0o444)
    if confinement is None:
        warnings.warn("root cannot drop CAP_DAC_OVERRIDE here: the unreadable-file case is left out")
    else:
        _write(os.path.join(root, "unreadable.py"), good, 0o000)
        errors[os.path.join(root, "unreadable.py")] = "cannot read: Permission denied"
    missing = os.path.join(root, "does_not_exist.py")
    errors[missing] = "no such file or directory"

    try:
        yield root, errors, missing, confinement or [sys.executable]
    finally:
        for directory, dirs, _ in os.walk(base):
            for name in dirs:
                os.chmod(os.path.join(directory, name), 0o755)
        os.chmod(os.path.join(root, "readonly.py"), 0o644)
        shutil.rmtree(base)


def test_every_bad_input_is_reported_once_left_untouched_and_the_rest_rewritten(corpus):
    root, errors, missing, confinement = corpus
    before = _snapshot(os.path.dirname(root))
    proc = subprocess.run(
        [*confinement, "-m", "codemods", "apply", "-q", "--jobs", "2", root, missing],
        capture_output=True, text=True, timeout=300, env=child_env(),
        cwd=os.path.dirname(root),
    )
    assert proc.returncode == 2, proc.stderr

    lines = proc.stderr.splitlines()
    for path, text in errors.items():
        mine = [line for line in lines if line.startswith(f"{path}: ")]
        assert len(mine) == 1, (path, lines)
        assert text in mine[0], (path, mine[0])
    assert len(lines) == len(errors), "stderr holds lines for files that are fine:\n" + proc.stderr

    after = _snapshot(os.path.dirname(root))
    changed = {path for path in before if before[path] != after.get(path)}
    expected_changed = {os.path.join(root, f"{name}.py") for name in REWRITTEN}
    expected_changed |= {os.path.join(root, "multi_megabyte.py"), os.path.join(root, "directory.py", "inner.py")}
    assert changed == expected_changed
    assert set(after) == set(before), "files appeared or vanished (temporary files left behind?)"
    for name in REWRITTEN:
        assert _read(os.path.join(root, f"{name}.py")) == _read(os.path.join(BAD, f"{name}.expected.py")), name
    good_expected = _read(os.path.join(BAD, "good.expected.py"))
    assert _read(os.path.join(root, "directory.py", "inner.py")) == good_expected
    assert _read(os.path.join(root, "multi_megabyte.py")).startswith(good_expected + b"# padding 0000 ")
    assert os.path.getsize(os.path.join(root, "multi_megabyte.py")) > 2_000_000


@pytest.mark.parametrize("name", REWRITTEN)
def test_expected_outputs_of_the_corpus_are_fixed_points(name):
    expected = _read(os.path.join(BAD, f"{name}.expected.py"))
    again = rewrite_source(expected, f"{name}.expected.py")
    assert again.error is None and again.updated is None


@pytest.mark.parametrize("name", sorted(DEEP))
def test_nesting_python_refuses_is_one_error_line_with_one_job(tmp_path, name):
    """With one job the CLI's own process parses, where a crash of the parser would end
    the run (a child process here, so that it could not end the tests): the deep file is
    reported, the good one beside it rewritten."""
    good = _read(os.path.join(BAD, "good.py"))
    (tmp_path / name).write_bytes(good + DEEP[name])
    (tmp_path / "good.py").write_bytes(good)
    proc = subprocess.run([sys.executable, "-m", "codemods", "apply", "-q", "--jobs", "1", str(tmp_path)],
                          capture_output=True, text=True, timeout=300, env=child_env())
    assert proc.returncode == 2, proc
    assert proc.stderr.splitlines() == [f"{tmp_path / name}: cannot parse: nesting too deep"]
    assert (tmp_path / "good.py").read_bytes() == _read(os.path.join(BAD, "good.expected.py"))
    assert (tmp_path / name).read_bytes() == good + DEEP[name]


def test_an_empty_file_is_fine(tmp_path):
    (tmp_path / "empty.py").write_bytes(b"")
    (tmp_path / "empty_site.py").write_bytes(b"backend_config = 1\n")
    results, scanned = engine.run([str(tmp_path)], _rules(), _options())
    assert scanned == 2
    assert all(r.error is None and not r.changed for r in results)


# -- races: deterministic hooks around the real code, no timing ----------------------


def _rules():
    from codemods.rules import select_rules

    return select_rules(frozenset({"backend-config"}))


def _options():
    from codemods.context import Options

    return Options(target_jax=(0, 10, 2))


def _tree(tmp_path, names):
    good = _read(os.path.join(BAD, "good.py"))
    for name in names:
        (tmp_path / name).write_bytes(good)
    return good


def _errors(capsys) -> dict[str, str]:
    lines = capsys.readouterr().err.splitlines()
    return dict(line.split(": ", 1) for line in lines)


def test_files_deleted_or_edited_between_read_and_write(tmp_path, monkeypatch, capsys):
    good = _tree(tmp_path, ["a_deleted.py", "b_edited.py", "c_fine.py"])
    real_write = writer.write_atomic

    def someone_else_acts_first(path, data, expected):
        if path.endswith("a_deleted.py"):
            os.unlink(path)
        elif path.endswith("b_edited.py"):
            with open(path, "ab") as fh:
                fh.write(b"# their edit\n")
        return real_write(path, data, expected)

    monkeypatch.setattr(writer, "write_atomic", someone_else_acts_first)
    assert cli.main(["apply", "-q", str(tmp_path)]) == 2
    errors = _errors(capsys)
    assert errors == {
        str(tmp_path / "a_deleted.py"): "file disappeared before it could be written; not written",
        str(tmp_path / "b_edited.py"): "file changed on disk since it was read; not written",
    }
    assert not (tmp_path / "a_deleted.py").exists()
    assert (tmp_path / "b_edited.py").read_bytes() == good + b"# their edit\n"
    assert (tmp_path / "c_fine.py").read_bytes() == _read(os.path.join(BAD, "good.expected.py"))
    assert sorted(os.listdir(tmp_path)) == ["b_edited.py", "c_fine.py"]


def test_a_change_landing_while_the_new_text_is_flushed_is_not_overwritten(tmp_path, monkeypatch, capsys):
    good = _tree(tmp_path, ["late_edit.py"])
    real_fill = fileio._fill

    def edit_during_fill(fd, data, st):
        with open(tmp_path / "late_edit.py", "ab") as fh:
            fh.write(b"# their edit\n")
        return real_fill(fd, data, st)

    monkeypatch.setattr(fileio, "_fill", edit_during_fill)
    assert cli.main(["apply", "-q", str(tmp_path)]) == 2
    assert _errors(capsys) == {str(tmp_path / "late_edit.py"): "file changed on disk since it was read; not written"}
    assert (tmp_path / "late_edit.py").read_bytes() == good + b"# their edit\n"
    assert os.listdir(tmp_path) == ["late_edit.py"], "the temporary file was left behind"


def test_a_file_deleted_between_discovery_and_read(tmp_path, monkeypatch, capsys):
    _tree(tmp_path, ["gone.py", "kept.py"])
    real_discover = engine.discover

    def discover_then_delete(*args, **kwargs):
        found = list(real_discover(*args, **kwargs))
        os.unlink(tmp_path / "gone.py")
        return found

    monkeypatch.setattr(engine, "discover", discover_then_delete)
    assert cli.main(["apply", "-q", str(tmp_path)]) == 2
    assert _errors(capsys) == {str(tmp_path / "gone.py"): "file disappeared before it could be read"}
    assert (tmp_path / "kept.py").read_bytes() == _read(os.path.join(BAD, "good.expected.py"))


def test_one_error_line_even_for_a_multi_line_exception(tmp_path, monkeypatch, capsys):
    _tree(tmp_path, ["a.py"])

    def explode(*args, **kwargs):
        raise ValueError("first line\nsecond line\n\tthird")

    monkeypatch.setattr(engine, "analyse", explode)
    assert cli.main(["apply", "-q", str(tmp_path)]) == 2
    assert _errors(capsys) == {str(tmp_path / "a.py"): "internal error: ValueError: first line second line third"}


def test_temporary_files_are_never_left_when_a_write_fails(tmp_path, monkeypatch, capsys):
    _tree(tmp_path, ["a.py"])

    def disk_full(fd, data, st):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileio, "_fill", disk_full)
    assert cli.main(["apply", "-q", str(tmp_path)]) == 2
    assert _errors(capsys) == {str(tmp_path / "a.py"): "cannot write: No space left on device"}
    assert os.listdir(tmp_path) == ["a.py"]
    assert not any(name.endswith(TEMP_SUFFIX) for name in os.listdir(tmp_path))


def test_a_file_nobody_may_read_is_not_read_even_by_root(tmp_path, capsys):
    good = _tree(tmp_path, ["locked.py", "open.py"])
    os.chmod(tmp_path / "locked.py", 0o000)
    try:
        assert cli.main(["apply", "-q", str(tmp_path)]) == 2
        assert _errors(capsys) == {str(tmp_path / "locked.py"): "cannot read: Permission denied"}
    finally:
        os.chmod(tmp_path / "locked.py", 0o644)
    assert (tmp_path / "locked.py").read_bytes() == good
    assert (tmp_path / "open.py").read_bytes() == _read(os.path.join(BAD, "good.expected.py"))
