"""Reading sources and writing them back without ever leaving a half-written file.

A rewrite is written to an anonymous file in the target's directory (``O_TMPFILE``),
flushed to disk, given a name and renamed over the original in one step, so a reader
(or a crash, or SIGKILL) sees the old content or the new one, never a mix. Where the
file system has no anonymous files, a named temporary ``.<name>.<random>.ccmigrate-tmp``
is used instead; ``apply`` removes any such leftovers it meets on its next run.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import stat

from codemods.discovery import TEMP_SUFFIX

#: Files larger than this are reported instead of parsed.
MAX_BYTES = 32 * 1024 * 1024


class WriteConflict(Exception):
    """The file changed on disk between reading and writing it."""


def read_source(path: str) -> bytes:
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise OSError(f"not a regular file")
    if st.st_size > MAX_BYTES:
        raise OSError(f"file is larger than {MAX_BYTES // (1024 * 1024)} MiB; skipped")
    with open(path, "rb") as fh:
        return fh.read()


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def write_atomic(path: str, data: bytes, expected: bytes) -> None:
    """Replace ``path`` with ``data`` if it still holds ``expected``; keep its mode."""
    st = os.stat(path)
    with open(path, "rb") as fh:
        if fh.read() != expected:
            raise WriteConflict("file changed on disk since it was read; not written")
    directory = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(path)
    temp = os.path.join(directory, f".{name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    fd = _open_anonymous(directory)
    if fd is not None:
        try:
            _fill(fd, data, st.st_mode)
            _link_anonymous(fd, directory, os.path.basename(temp))
        except OSError:
            # Some file systems accept O_TMPFILE but not linking it: use a named file.
            fd = None
        finally:
            if fd is not None:
                os.close(fd)
    if fd is None:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            _fill(fd, data, st.st_mode)
        except BaseException:
            os.close(fd)
            _unlink_quietly(temp)
            raise
        os.close(fd)
    try:
        os.replace(temp, path)
    except BaseException:
        _unlink_quietly(temp)
        raise


def _fill(fd: int, data: bytes, mode: int) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fchmod(fd, stat.S_IMODE(mode))
    os.fsync(fd)


def _link_anonymous(fd: int, directory: str, name: str) -> None:
    # Linking /proc/self/fd/N needs linkat(AT_SYMLINK_FOLLOW); os.link only uses
    # linkat when a dir_fd is given.
    dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.link(f"/proc/self/fd/{fd}", name, dst_dir_fd=dir_fd, follow_symlinks=True)
    finally:
        os.close(dir_fd)


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _open_anonymous(directory: str):
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(directory, flag | os.O_WRONLY, 0o600)
    except OSError:
        return None
