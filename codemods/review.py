"""``ccmigrate review``: decide change by change, then write only what was accepted.

Each fixable change (the ones ``apply`` would write with the same flags) is shown as
its own diff hunk with its rule, safety and message, and the user answers

    y  accept it           n  skip it
    a  accept it and every remaining change in this file
    q  quit: write what was accepted so far, ask nothing more

Manual follow-ups are listed after a file's questions; they have no edit to accept.
Changes that share a link (one translation rule's conversion, say) are written together:
skipping one holds back the others (``engine.rewrite``).
A file's accepted changes are written (atomically, and only if the file is unchanged
on disk since it was read) as soon as its last question is answered.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Sequence, TextIO

from libcst.codemod import diff_code

from codemods.context import Options
from codemods.engine import FileResult, accepted, analyse, package_of, process_source, rewrite, triggered
from codemods.formats import SAFETY_COLOUR, colour_diff, paint
from codemods.rule import Change, Rule, Safety
from codemods.writer import dirty_files, write_all

PROMPT = "Accept this change? [y]es, [n]o, [a]ll in this file, [q]uit: "
ANSWERS = {"y": "yes", "yes": "yes", "n": "no", "no": "no", "s": "no", "a": "all", "all": "all", "q": "quit", "quit": "quit"}


@dataclasses.dataclass
class Outcome:
    accepted: int = 0
    skipped: int = 0
    files_written: int = 0
    results: list[FileResult] = dataclasses.field(default_factory=list)
    quit: bool = False


def _key(change: Change) -> tuple:
    return (change.rule, change.line, change.column, change.end_line, change.end_column)


class Reviewer:
    def __init__(self, rules: Sequence[type[Rule]], options: Options, stdin: TextIO, stdout: TextIO, colour: bool) -> None:
        self.rules = rules
        self.options = options
        self.stdin = stdin
        self.stdout = stdout
        self.colour = colour

    def say(self, text: str = "") -> None:
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def ask(self) -> str:
        while True:
            self.stdout.write(paint(PROMPT, "bold", self.colour))
            self.stdout.flush()
            line = self.stdin.readline()
            if not line:  # end of input: stop as if asked to
                self.say()
                return "quit"
            answer = ANSWERS.get(line.strip().lower())
            if answer:
                return answer
            self.say("Please answer y, n, a or q.")

    def review(self, results: Sequence[FileResult], allow_dirty: bool) -> Outcome:
        outcome = Outcome()
        candidates = [r for r in results if r.changed and not r.error]
        dirty = set() if allow_dirty else dirty_files(r.path for r in candidates)
        total = sum(1 for r in candidates for c in r.changes if c.applied)
        asked = 0
        for result in candidates:
            if os.path.realpath(result.path) in dirty:
                result.error = "has uncommitted changes; commit or stash them first, or pass --allow-dirty"
                outcome.results.append(result)
                continue
            if outcome.quit:
                # Never asked about: nothing of it is written, so nothing of it is applied.
                outcome.skipped += sum(c.applied for c in result.changes)
                for change in result.changes:
                    change.applied = False
                result.updated = None
                outcome.results.append(result)
                continue
            asked = self._review_file(result, outcome, asked, total)
        return outcome

    def _review_file(self, result: FileResult, outcome: Outcome, asked: int, total: int) -> int:
        source = result.original
        assert source is not None
        rules = triggered(self.rules, source)
        package = package_of(result.path)
        ctx = analyse(result.path, source, rules, self.options, package)
        old = ctx.module.code
        fixable = [f for f in ctx.findings if accepted(f, self.options)]
        chosen: set[tuple] = set()
        accept_rest = False
        for finding in fixable:
            change = finding.change
            asked += 1
            if outcome.quit:
                outcome.skipped += 1
                continue
            if not accept_rest:
                preview = rewrite(ctx, keep=lambda c, me=change: c is me)
                hunk = diff_code(old, preview.code if preview is not None else old, 3, filename=result.path)
                hunk = hunk if hunk.endswith("\n") else hunk + "\n"
                self.say()
                safety = paint(change.safety.value, SAFETY_COLOUR[change.safety.value], self.colour)
                self.say(paint(f"[{asked}/{total}] {result.path}:{change.line}:{change.column}", "bold", self.colour) + f" {change.rule} [{safety}]")
                self.say(f"  {change.message}")
                if change.kernel_receives:
                    self.say(f"  the kernel will receive {change.kernel_receives}")
                self.stdout.write(colour_diff(hunk) if self.colour else hunk)
                answer = self.ask()
            else:
                answer = "yes"
            if answer == "all":
                accept_rest, answer = True, "yes"
            if answer == "quit":
                outcome.quit = True
                outcome.skipped += 1
            elif answer == "yes":
                chosen.add(_key(change))
                outcome.accepted += 1
            else:
                outcome.skipped += 1
        manual = [f.change for f in ctx.findings if f.change.safety is Safety.MANUAL and not f.suppressed]
        if manual:
            self.say()
        for change in manual:
            self.say(f"{result.path}:{change.line}:{change.column}: {change.rule} [manual follow-up] {change.message}")
        final = process_source(result.path, source, rules, self.options, package, keep=lambda c: _key(c) in chosen)
        if final.changed and not final.error:
            # Already checked for uncommitted work before asking; a change on disk since
            # then is still caught by the writer's content check.
            write_all([final], allow_dirty=True)
            if not final.error:
                outcome.files_written += 1
        outcome.results.append(final)
        return asked


def review(
    results: Sequence[FileResult],
    rules: Sequence[type[Rule]],
    options: Options,
    *,
    stdin: TextIO,
    stdout: TextIO,
    colour: bool,
    allow_dirty: bool = False,
) -> Outcome:
    """Ask about every pending change of ``results`` and write the accepted ones."""
    return Reviewer(rules, options, stdin, stdout, colour).review(results, allow_dirty)
