"""Where ``apply`` may write: only inside the paths it was given, never through a
symbolic link that leads out of them, and never a file whose content does not change."""

from __future__ import annotations

import os

from codemods import cli, fileio, writer
from tests.helpers import TESTDATA

with open(os.path.join(TESTDATA, "bad", "good.py"), "rb") as _fh:
    LEGACY = _fh.read()
with open(os.path.join(TESTDATA, "bad", "good.expected.py"), "rb") as _fh:
    MIGRATED = _fh.read()
MANUAL_ONLY = b'''from jax.interpreters import mlir

mlir.custom_call("t", result_types=[], operands=[], backend_config={"a": 1}, api_version=4)
'''
UNSAFE_ONLY = b'''from jax.interpreters import mlir


def _lowering(ctx, x, config):
    return mlir.custom_call("t", result_types=[], operands=[x], backend_config=config.value, api_version=2)
'''


def _state(root) -> dict[str, tuple]:
    """Every entry under ``root``: identity, content and times; links by their target."""
    out = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = os.path.join(directory, name)
            st = os.lstat(path)
            if os.path.islink(path):
                out[path] = ("link", os.readlink(path))
            elif os.path.isfile(path):
                with open(path, "rb") as fh:
                    out[path] = (st.st_ino, st.st_mtime_ns, st.st_mode, fh.read())
    return out


def _spy_writes(monkeypatch) -> list[str]:
    written: list[str] = []
    real = writer.write_atomic

    def spy(path, data, expected):
        written.append(os.path.realpath(path))
        return real(path, data, expected)

    monkeypatch.setattr(writer, "write_atomic", spy)
    return written


def test_nothing_outside_the_given_paths_is_touched(tmp_path, monkeypatch, capsys):
    given, sibling = tmp_path / "given", tmp_path / "sibling"
    (given / "pkg").mkdir(parents=True)
    sibling.mkdir()
    (given / "pkg" / "inside.py").write_bytes(LEGACY)
    (sibling / "legacy.py").write_bytes(LEGACY)
    (tmp_path / "parent_level.py").write_bytes(LEGACY)
    os.symlink(sibling / "legacy.py", given / "link_to_file_outside.py")
    os.symlink(sibling, given / "link_to_dir_outside")
    os.symlink("..", given / "pkg" / "link_to_parent")  # leads back into given: a loop, not out
    outside_before = {p: s for p, s in _state(tmp_path).items() if not p.startswith(str(given) + os.sep)}
    written = _spy_writes(monkeypatch)

    assert cli.main(["apply", "-q", str(given)]) == 2
    errors = capsys.readouterr().err.splitlines()
    assert sorted(errors) == sorted(
        [
            f"{given / 'link_to_dir_outside'}: symbolic link points outside the given root; not followed",
            f"{given / 'link_to_file_outside.py'}: symbolic link points outside the given root; not followed",
            f"{given / 'pkg' / 'link_to_parent'}: symbolic link loop",
        ]
    )
    assert written == [str(given / "pkg" / "inside.py")]
    assert (given / "pkg" / "inside.py").read_bytes() == MIGRATED
    after = _state(tmp_path)
    assert {p: after[p] for p in outside_before} == outside_before
    assert set(after) == set(outside_before) | {p for p in after if p.startswith(str(given) + os.sep)}


def test_a_file_given_alone_leaves_its_neighbours_alone(tmp_path, monkeypatch, capsys):
    for name in ("chosen.py", "neighbour.py"):
        (tmp_path / name).write_bytes(LEGACY)
    written = _spy_writes(monkeypatch)
    assert cli.main(["apply", "-q", str(tmp_path / "chosen.py")]) == 0
    assert written == [str(tmp_path / "chosen.py")]
    assert (tmp_path / "neighbour.py").read_bytes() == LEGACY
    assert sorted(os.listdir(tmp_path)) == ["chosen.py", "neighbour.py"]


def test_a_link_inside_the_root_stays_a_link_and_its_target_is_rewritten(tmp_path, monkeypatch, capsys):
    # The link sorts first, so it is the path discovery yields for the shared file.
    (tmp_path / "z_real.py").write_bytes(LEGACY)
    os.symlink("z_real.py", tmp_path / "a_alias.py")
    written = _spy_writes(monkeypatch)
    assert cli.main(["apply", "-q", str(tmp_path)]) == 0
    assert len(written) == 1, "the shared file was written twice"
    assert os.readlink(tmp_path / "a_alias.py") == "z_real.py"
    assert (tmp_path / "z_real.py").read_bytes() == MIGRATED


def test_files_whose_content_does_not_change_are_never_written(tmp_path, monkeypatch, capsys):
    files = {
        "no_site.py": b"import os\n",
        "empty.py": b"",
        "already_migrated.py": MIGRATED,
        "manual_finding_only.py": MANUAL_ONLY,
        "unsafe_fix_not_asked_for.py": UNSAFE_ONLY,
        "suppressed.py": LEGACY.replace(b"api_version=2,", b"api_version=2,  # ccmigrate: ignore[backend-config]").replace(
            b'backend_config={"mode": "fast", "alpha": 2.0},', b'backend_config={"mode": "fast", "alpha": 2.0},  # ccmigrate: ignore'
        ),
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "to_migrate.py").write_bytes(LEGACY)
    before = _state(tmp_path)
    written = _spy_writes(monkeypatch)

    only = ["--select", "backend-config"]  # the cases are written for this rule's findings
    assert cli.main(["apply", "-q", *only, str(tmp_path)]) == 0
    assert written == [str(tmp_path / "to_migrate.py")]
    after = _state(tmp_path)
    for name in files:
        path = str(tmp_path / name)
        assert after[path] == before[path], f"{name} was written (inode, mtime or content changed)"
    # And a second apply writes nothing at all.
    written.clear()
    assert cli.main(["apply", "-q", *only, str(tmp_path)]) == 0
    assert written == []
    assert _state(tmp_path) == after


def test_the_writer_itself_refuses_a_no_op(tmp_path):
    from codemods.engine import FileResult

    path = tmp_path / "m.py"
    path.write_bytes(LEGACY)
    st = os.stat(path)
    result = FileResult(path=str(path), original=LEGACY, updated=LEGACY)
    writer.write_all([result])
    assert result.error is None
    assert os.stat(path).st_mtime_ns == st.st_mtime_ns and os.stat(path).st_ino == st.st_ino


def test_temporary_files_live_beside_their_target_only(tmp_path, monkeypatch, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "m.py").write_bytes(LEGACY)
    seen: list[str] = []
    real_replace = os.replace

    def watch(src, dst, *args, **kwargs):
        seen.append(os.path.dirname(os.path.abspath(src)))
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(fileio.os, "replace", watch)
    assert cli.main(["apply", "-q", str(tmp_path)]) == 0
    assert seen == [str(tmp_path / "a")]
