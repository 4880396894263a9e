"""``ccmigrate review`` through a real pseudo-terminal, and the engine hook behind it."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time

from codemods.engine import process_source
from codemods.rules import select_rules
from tests.helpers import ROOT, child_env, options_from
from tests.samples import MIXED, ONE

ANSI = "\x1b["
PROMPT = "[q]uit: "


class Terminal:
    """A child process on a pseudo-terminal: wait for text, type answers."""

    def __init__(self, argv: list[str], cwd: str, env: dict[str, str]) -> None:
        # openpty + subprocess rather than pty.fork: this test process may have jax's
        # threads running, and a bare fork of a threaded process is not safe.
        self.fd, child = pty.openpty()
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=child, stdout=child, stderr=child, start_new_session=True)
        os.close(child)
        self.seen = ""

    def expect(self, text: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"timed out waiting for {text!r}; screen so far:\n{self.seen}"
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if ready:
                try:
                    chunk = os.read(self.fd, 4096)
                except OSError:  # the child closed the terminal
                    chunk = b""
                assert chunk, f"the program ended before printing {text!r}:\n{self.seen}"
                self.seen += chunk.decode("utf-8", "replace")
        before, _, self.seen = self.seen.partition(text)
        return before + text

    def send(self, line: str) -> None:
        os.write(self.fd, (line + "\n").encode())

    def finish(self, timeout: float = 60) -> tuple[int, str]:
        """Read to the end of the output; the exit code and what was printed."""
        rest = []
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.proc.kill()
                raise AssertionError(f"review did not finish:\n{self.seen}{''.join(rest)}")
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if not ready:
                continue
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:  # EIO: the child has closed the terminal
                chunk = b""
            if not chunk:
                break
            rest.append(chunk.decode("utf-8", "replace"))
        code = self.proc.wait(timeout=60)
        os.close(self.fd)
        return code, self.seen + "".join(rest)


def _review(tmp_path, *args: str, no_color: bool = False) -> Terminal:
    env = {k: v for k, v in child_env().items() if k != "NO_COLOR"}
    env["TERM"] = "xterm"
    if no_color:
        env["NO_COLOR"] = "1"
    return Terminal([sys.executable, "-m", "codemods", "review", *args], str(tmp_path), env)


def test_accept_skip_then_accept_all(tmp_path):
    target = tmp_path / "ops.py"
    target.write_bytes(MIXED)
    term = _review(tmp_path, "ops.py")
    screen = term.expect(PROMPT)
    assert "[1/2]" in screen and "backend-config" in screen and "safe" in screen
    assert "dict literal passed as backend_config" in screen
    assert ANSI in screen  # a terminal gets colour
    plain = screen.replace("\x1b[", "\0").split("\0")
    assert any('backend_config=json.dumps({"a": 1}' in part for part in plain)
    term.send("y")
    screen = term.expect(PROMPT)
    assert "[2/2]" in screen and "list literal" in screen
    term.send("n")
    code, rest = term.finish()
    assert code == 0, rest
    assert "[manual follow-up]" in rest  # the api_version=4 site is listed, not asked about
    assert "1 change(s) accepted, 1 skipped; 1 file(s) written" in rest
    text = target.read_text()
    assert 'backend_config=json.dumps({"a": 1}, sort_keys=True, separators=(",", ":"))' in text
    assert "backend_config=[1, 2]" in text  # skipped
    assert "import json" in text
    assert "backend_config=config)" in text  # unsafe: not offered without --unsafe-fixes

    # Second session on the result: only the skipped change is left; accept-all in file.
    term = _review(tmp_path, "ops.py", no_color=True)
    screen = term.expect(PROMPT)
    assert "[1/1]" in screen and "list literal" in screen
    assert ANSI not in screen  # NO_COLOR
    term.send("a")
    code, rest = term.finish()
    assert code == 0 and "1 change(s) accepted, 0 skipped" in rest
    assert 'backend_config=json.dumps([1, 2], sort_keys=True, separators=(",", ":"))' in target.read_text()


def test_quit_writes_nothing_not_accepted(tmp_path):
    target = tmp_path / "ops.py"
    target.write_bytes(MIXED)
    other = tmp_path / "two.py"
    other.write_bytes(ONE)
    term = _review(tmp_path, "ops.py", "two.py", "--unsafe-fixes", "--report", "r.json", no_color=True)
    screen = term.expect(PROMPT)
    assert "[1/4]" in screen
    term.send("maybe")
    term.expect("Please answer y, n, a or q.")
    term.send("q")
    code, rest = term.finish()
    assert code == 0, rest
    assert "0 change(s) accepted, 4 skipped; 0 file(s) written" in rest
    assert target.read_bytes() == MIXED and other.read_bytes() == ONE
    data = json.loads((tmp_path / "r.json").read_text())
    assert data["summary"]["applied"] == 0 and data["summary"]["files_changed"] == 0


def _subset(keep_lines: set[int]) -> bytes:
    options, select, ignore = options_from(["--unsafe-fixes"])
    result = process_source("ops.py", MIXED, select_rules(select, ignore), options, keep=lambda c: c.line in keep_lines)
    assert result.error is None, result.error
    return result.updated


def test_engine_applies_only_kept_changes_and_their_imports():
    helper_only = _subset({8}).decode()
    assert "_ccmigrate_backend_config(config)" in helper_only
    assert "\nimport json\n" not in helper_only  # asked for only by the declined json.dumps edits
    assert 'backend_config={"a": 1}' in helper_only
    json_only = _subset({6}).decode()
    assert "\nimport json\n" in json_only and "def _ccmigrate_backend_config" not in json_only
    assert _subset(set()) is None


def test_a_conversion_lands_whole_or_not_at_all():
    """A translation rule's conversion is several changes (signature, call, registration):
    declining one in review, or suppressing one by comment, holds back every other."""
    path = os.path.join(ROOT, "testdata", "rules", "xla-translation-rule", "typed_context_rule.py")
    with open(path, "rb") as fh:
        source = fh.read()
    options, select, ignore = options_from(["--select", "xla-translation-rule"])
    rules = select_rules(select, ignore)
    whole = process_source(path, source, rules, options)
    registration = next(c for c in whole.changes if "register_lowering" in c.message)
    assert whole.updated is not None and len([c for c in whole.changes if c.applied]) > 2
    declined = process_source(path, source, rules, options, keep=lambda c: c.line != registration.line)
    assert declined.error is None and declined.updated is None
    assert not [c for c in declined.changes if c.applied]
    suppressed = source.replace(b'platform="cuda")', b'platform="cuda")  # ccmigrate: ignore')
    held = process_source(path, suppressed, rules, options)
    assert held.error is None and held.updated is None and not [c for c in held.changes if c.applied]
