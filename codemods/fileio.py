"""Reading sources and writing them back without ever leaving a half-written file.

A rewrite is written to an anonymous file in the target's directory (``O_TMPFILE``),
flushed to disk, given a name and renamed over the original in one step, so a reader
(or a crash, or SIGKILL) sees the old content or the new one, never a mix. A named
temporary ``.<name>.<random>.ccmigrate-tmp`` exists only between naming the anonymous
file and the rename (two system calls), or for the whole write where the file system
has no anonymous files; ``apply`` removes any such leftovers it meets on its next run.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import hashlib
import io
import os
import secrets
import stat
import tokenize
from typing import Optional

from codemods.discovery import TEMP_SUFFIX

#: Files larger than this are reported instead of parsed.
MAX_BYTES = 32 * 1024 * 1024

_AT_FDCWD = -100
_AT_EMPTY_PATH = 0x1000


class WriteConflict(Exception):
    """The file changed on disk between reading and writing it."""


class ReadOnly(Exception):
    """The user marked the file read-only; a rename would bypass that, so it is not written."""


def read_source(path: str) -> bytes:
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise OSError("not a regular file")
    if not st.st_mode & 0o444:
        # Nobody may read it; root could, but the owner's intent is plain.
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
    if st.st_size > MAX_BYTES:
        raise OSError(f"file is larger than {MAX_BYTES // (1024 * 1024)} MiB; skipped")
    with open(path, "rb") as fh:
        return fh.read()


def text_problem(source: bytes) -> Optional[str]:
    """Why ``source`` cannot be Python source text, or ``None``.

    Cheap enough to run on every file, including those no rule needs to parse: a file
    that cannot be decoded cannot be checked for sites either.
    """
    if b"\0" in source:
        return "binary file (contains NUL bytes); skipped"
    if source.isascii():
        return None
    try:
        encoding = tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError as exc:
        # An unknown coding cookie, a BOM contradicting it, or undecodable first lines.
        encoding, cookie_error = "utf-8", exc.msg
        if cookie_error.startswith("encoding problem"):
            cookie_error = "the coding declaration contradicts the UTF-8 byte-order mark"
    else:
        cookie_error = None
    try:
        source.decode(encoding)
    except UnicodeDecodeError as exc:
        line = source.count(b"\n", 0, exc.start) + 1
        return f"cannot decode: byte 0x{source[exc.start]:02x} at line {line} is not valid {encoding}"
    except LookupError:
        return f"cannot decode: unknown encoding {encoding!r}"
    return f"cannot decode: {cookie_error}" if cookie_error else None


def digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def check_writable(path: str, expected: bytes) -> tuple[str, os.stat_result]:
    """The real file behind ``path`` and its status, when it may be replaced: writable,
    and still holding ``expected``; raises :class:`ReadOnly` or :class:`WriteConflict`
    (or ``OSError``) otherwise."""
    target = os.path.realpath(path)
    st = os.stat(target)
    if not st.st_mode & 0o222 or not os.access(target, os.W_OK):
        raise ReadOnly("file is read-only; not written (make it writable to migrate it)")
    with open(target, "rb") as fh:
        if fh.read() != expected:
            raise WriteConflict("file changed on disk since it was read; not written")
    return target, st


def write_atomic(path: str, data: bytes, expected: bytes) -> None:
    """Replace the file at ``path`` with ``data`` if it still holds ``expected``.

    The real file is replaced (a symbolic link stays a link to the new content), with
    its permission bits and, where allowed, its owner.
    """
    target, st = check_writable(path, expected)
    directory, name = os.path.split(target)
    temp = os.path.join(directory, f".{name}.{secrets.token_hex(4)}{TEMP_SUFFIX}")
    fd = _anonymous_file(directory)
    named = fd is None
    if named:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            _fill(fd, data, st)
            if not named and not _give_name(fd, temp):
                # Anonymous files cannot be named here: start again with a named one.
                os.close(fd)
                fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                _fill(fd, data, st)
            _unchanged_since(target, st)
            os.replace(temp, target)
        except BaseException:
            try:
                os.unlink(temp)
            except OSError:
                pass
            raise
    finally:
        os.close(fd)
    _sync_directory(directory)


def _fill(fd: int, data: bytes, st: os.stat_result) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    os.fchmod(fd, stat.S_IMODE(st.st_mode))
    try:
        os.fchown(fd, st.st_uid, st.st_gid)
    except OSError:
        pass  # not the owner and not privileged: the file becomes the writer's
    os.fsync(fd)


def _unchanged_since(target: str, before: os.stat_result) -> None:
    """Narrow the window in which another writer's change could be overwritten."""
    now = os.stat(target)
    if (now.st_ino, now.st_size, now.st_mtime_ns) != (before.st_ino, before.st_size, before.st_mtime_ns):
        raise WriteConflict("file changed on disk since it was read; not written")


_anonymous_ok: Optional[bool] = None


def _anonymous_file(directory: str) -> Optional[int]:
    flag = getattr(os, "O_TMPFILE", None)
    if flag is None or _anonymous_ok is False:
        return None
    try:
        return os.open(directory, flag | os.O_WRONLY, 0o600)
    except OSError:
        return None


def _give_name(fd: int, name: str) -> bool:
    """Link the anonymous file ``fd`` at ``name``; False where no way of doing so works here."""
    global _anonymous_ok
    # os.link calls linkat(AT_SYMLINK_FOLLOW), which follows /proc's fd link to the
    # open file, only when a dir_fd is given; plain link() would fail with EXDEV.
    directory, base = os.path.split(name)
    dir_fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.link(f"/proc/self/fd/{fd}", base, dst_dir_fd=dir_fd, follow_symlinks=True)
        _anonymous_ok = True
        return True
    except OSError as exc:
        if exc.errno == errno.EEXIST:
            raise
    finally:
        os.close(dir_fd)
    # Some kernels refuse to follow /proc's fd links across mounts (EXDEV); linkat
    # with AT_EMPTY_PATH names the open file directly.
    linkat = _libc_linkat()
    if linkat is not None and linkat(fd, b"", _AT_FDCWD, os.fsencode(name), _AT_EMPTY_PATH) == 0:
        _anonymous_ok = True
        return True
    if _anonymous_ok is None:
        _anonymous_ok = False
    return False


@functools.lru_cache(maxsize=None)
def _libc_linkat():
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.linkat
    except (OSError, AttributeError):
        return None


def _sync_directory(directory: str) -> None:
    """Make the rename itself durable, not only the new file's content."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
