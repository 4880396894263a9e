"""Worker processes that verify modules, kept apart from the parent and from each other.

Each worker is a fresh interpreter (``subprocess``, never a fork of a process that has
imported jax) that imports jax once and serves many jobs. Per job the parent enforces a
wall-clock timeout; the worker enforces an address-space limit on itself. What the
user's code prints is drained continuously (so a flood never blocks the worker) and kept
only up to a few kilobytes. A worker that crashes, exits, times out or runs out of memory
is reported for the job it was on and replaced; workers are also recycled after a number
of jobs, because every jitted function they keep costs memory.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import os
import queue
import re
import selectors
import signal
import subprocess
import sys
import threading
import time
from typing import Callable, Iterable, Optional

OUTPUT_KEEP = 2048
#: The last line of a Python traceback: ``ModuleNotFoundError: No module named 'jax'``.
_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b.*$")
STARTUP_TIMEOUT = 180.0
#: Until a worker has said how long it took to start: about a jax import.
STARTUP_GUESS_S = 1.0
#: Another worker starts only when the work left would keep the running ones busy this
#: many times as long as starting one takes (its start costs a jax import of CPU time).
SPAWN_FACTOR = 2.0
#: Job durations to see before judging the work left by them.
SPAWN_SAMPLE = 3
#: How often the pool reconsiders starting another worker, in seconds.
SPAWN_POLL_S = 0.05


@dataclasses.dataclass
class PoolSettings:
    workers: int = 2
    timeout: float = 60.0
    memory_limit_mb: int = 4096
    recycle_after: int = 200
    user_files: tuple[str, ...] = ()
    #: Platforms the jobs lower for (empty: the default backend); workers warm up for them.
    platforms: tuple[str, ...] = ()


class WorkerFailed(Exception):
    """The worker died or hung; ``str(exc)`` says how, for the job it was serving."""


class WorkerProcess:
    """One worker. Spawning does not wait: jax is imported while the parent scans."""

    def __init__(self, settings: PoolSettings) -> None:
        self.settings = settings
        self.jobs_served = 0
        read_fd, write_fd = os.pipe()
        root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env = dict(os.environ)
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env.setdefault("PYTHONUNBUFFERED", "1")
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "codemods.verify.worker", str(write_fd), ",".join(settings.platforms)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            pass_fds=(write_fd,),
            env=env,
            start_new_session=True,  # so a timeout can kill whatever the user's code started
        )
        os.close(write_fd)
        self.answers = read_fd
        os.set_blocking(read_fd, False)
        os.set_blocking(self.process.stdout.fileno(), False)
        self._pending = b""
        self.default_backend: Optional[str] = None
        #: Seconds the worker took to import jax and warm up, as it measured them.
        self.startup_s: Optional[float] = None
        self.output = bytearray()
        #: The last OUTPUT_KEEP bytes the worker wrote since it started, or since its
        #: current job began: its last words when it dies.
        self.output_tail = b""
        self.output_total = 0
        self.ready = False

    def start(self) -> None:
        """Hand the worker its settings and wait until it has imported jax."""
        if self.ready:
            return
        settings = self.settings
        self._send({"user_files": list(settings.user_files), "memory_limit_mb": settings.memory_limit_mb})
        answer = self._receive(STARTUP_TIMEOUT, "starting")
        self.default_backend = answer.get("default_backend")
        self.startup_s = answer.get("startup_s")
        self.output.clear()
        self.output_tail = b""
        self.output_total = 0
        self.ready = True

    def _send(self, message: dict) -> None:
        try:
            self.process.stdin.write((json.dumps(message) + "\n").encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise WorkerFailed(self._death("receiving the job")) from exc

    def _receive(self, timeout: float, doing: str) -> dict:
        deadline = time.monotonic() + timeout
        selector = selectors.DefaultSelector()
        selector.register(self.answers, selectors.EVENT_READ, "answers")
        selector.register(self.process.stdout, selectors.EVENT_READ, "output")
        try:
            while True:
                while b"\n" in self._pending:
                    line, self._pending = self._pending.split(b"\n", 1)
                    message = json.loads(line)
                    if "progress" in message:
                        doing = message["progress"]
                        continue
                    self._drain()
                    return message
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    self.kill()
                    raise WorkerFailed(f"timed out after {timeout:g} s while {doing}")
                for key, _ in selector.select(min(remaining, 1.0)):
                    if key.data == "output":
                        self._drain()
                        continue
                    chunk = _read(self.answers)
                    if chunk == b"":
                        self._drain()
                        raise WorkerFailed(self._death(doing))
                    self._pending += chunk or b""
        finally:
            selector.close()

    def _drain(self) -> None:
        while True:
            chunk = _read(self.process.stdout.fileno())
            if not chunk:
                return
            self.output_total += len(chunk)
            room = OUTPUT_KEEP - len(self.output)
            if room > 0:
                self.output += chunk[:room]
            self.output_tail = (self.output_tail + chunk)[-OUTPUT_KEEP:]

    def _death(self, doing: str) -> str:
        try:
            code = self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
            code = self.process.wait()
        if code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            return f"worker crashed ({name}) while {doing}"
        return f"worker exited with status {code} while {doing}" + self._last_exception()

    def _last_exception(self) -> str:
        """`` (Error: why)`` when the worker's output ends with a traceback: a worker that
        cannot import jax, or one the user's module made exit, says so."""
        self._drain()
        lines = [line.strip() for line in self.output_tail.decode("utf-8", "replace").splitlines() if line.strip()]
        if not lines or not _EXCEPTION_LINE.match(lines[-1]):
            return ""
        last = lines[-1]
        return f" ({last[:197] + '...' if len(last) > 200 else last})"

    def run(self, job: dict) -> tuple[dict, str, int]:
        """Send one job; returns (answer, captured output, total output bytes)."""
        self.start()
        self.output.clear()
        self.output_tail = b""
        self.output_total = 0
        self._send(job)
        try:
            answer = self._receive(self.settings.timeout, f"starting {job.get('module')}")
        finally:
            self.jobs_served += 1
        return answer.get("result", answer), self.output.decode("utf-8", "replace"), self.output_total

    def kill(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass

    def close(self) -> None:
        # A worker holds nothing worth a graceful shutdown (jax's teardown takes a while).
        self.kill()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        try:
            os.close(self.answers)
        except OSError:
            pass


def _read(fd: int) -> Optional[bytes]:
    try:
        return os.read(fd, 65536)
    except BlockingIOError:
        return None
    except OSError:
        return b""


_early: Optional[WorkerProcess] = None


def start_early(platforms: Iterable[str] = ()) -> None:
    """Spawn a worker now, for the next :class:`Pool` to take (killed at exit if none does)."""
    global _early
    if _early is not None:
        return
    try:
        _early = WorkerProcess(PoolSettings(platforms=tuple(platforms)))
    except OSError:
        return  # the pool spawns its own, and reports what fails then
    atexit.register(_discard_early)


def _take_early(settings: PoolSettings) -> Optional[WorkerProcess]:
    global _early
    worker, _early = _early, None
    if worker is not None:
        if worker.process.poll() is not None:
            worker.close()
            return None
        worker.settings = settings  # it reads its settings only when started
    return worker


def _discard_early() -> None:
    global _early
    if _early is not None:
        _early.close()
        _early = None


class Pool:
    """Worker processes: one spawned at once (jax imports while the caller scans files),
    more only while the work left is worth the start of another.

    Starting a worker costs about a second of CPU (its jax import); a small module
    lowers in a few hundredths of that. So ``workers`` is a ceiling: a second worker
    starts when the jobs left, at the pace jobs have taken so far, would keep the
    running workers busy well beyond the time one takes to start, or when a job has
    run longer than a start takes (a slow import, a hang) while others wait.
    """

    def __init__(self, settings: PoolSettings) -> None:
        self.settings = settings
        self.spare: list[WorkerProcess] = []
        early = _take_early(settings)
        try:
            self.spare = [early or WorkerProcess(settings)]
        except OSError:
            self.spare = []

    def _take(self) -> WorkerProcess:
        return self.spare.pop() if self.spare else WorkerProcess(self.settings)

    def close(self) -> None:
        while self.spare:
            self.spare.pop().close()

    def run(self, jobs: Iterable[dict], user_files: Iterable[str], on_result: Callable[[dict, dict], None]) -> Optional[str]:
        """Run every job; ``on_result(job, answer)`` gets each answer (in this thread's lock).

        An answer always comes back, also for a job whose worker failed: it then carries
        ``worker_error``. Returns the default backend the workers reported (``None``
        when no worker ever started).
        """
        self.settings.user_files = tuple(user_files)
        pending: "queue.Queue[dict]" = queue.Queue()
        jobs = list(jobs)
        for job in jobs:
            pending.put(job)
        backend: list[str] = []
        lock = threading.Lock()
        pace = _Pace()
        first: Optional[WorkerProcess] = None
        if jobs:
            try:
                first = self._take()
            except OSError:
                first = None  # the slot reports it for its first job
        self.close()

        def slot(worker: Optional[WorkerProcess]) -> None:
            try:
                while True:
                    try:
                        job = pending.get_nowait()
                    except queue.Empty:
                        return
                    if worker is None:
                        try:
                            worker = WorkerProcess(self.settings)
                        except OSError as exc:
                            with lock:
                                on_result(job, {"module": job.get("module"), "worker_error": f"cannot start a worker: {exc}"})
                            continue
                    token = None
                    try:
                        worker.start()
                        pace.started(worker.startup_s)
                        token = pace.begin()
                        answer, output, total = worker.run(job)
                        if worker.default_backend:
                            backend.append(worker.default_backend)
                        pace.end(token)
                    except WorkerFailed as exc:
                        pace.end(token)
                        output, total = worker.output.decode("utf-8", "replace"), worker.output_total
                        error = str(exc) if worker.ready else f"cannot start a worker: {exc}"
                        answer = {"module": job.get("module"), "worker_error": error}
                        worker.close()
                        worker = None
                    answer["output"] = output
                    answer["output_bytes"] = total
                    with lock:
                        on_result(job, answer)
                    if worker is not None and (answer.get("recycle") or worker.jobs_served >= self.settings.recycle_after):
                        worker.close()
                        worker = None
            finally:
                if worker is not None:
                    worker.close()

        threads: list[threading.Thread] = []

        def add_slot(worker: Optional[WorkerProcess]) -> None:
            thread = threading.Thread(target=slot, args=(worker,), daemon=True)
            threads.append(thread)
            thread.start()

        if jobs:
            add_slot(first)
        ceiling = max(1, min(self.settings.workers, len(jobs)))
        while True:
            alive = [t for t in threads if t.is_alive()]
            if not alive:
                break
            if len(threads) < ceiling and pace.worth_another(len(alive), pending.qsize()):
                add_slot(None)
                continue
            alive[0].join(SPAWN_POLL_S)
        return backend[0] if backend else None


class _Pace:
    """How long jobs take and workers take to start, to judge whether another worker pays."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.durations: list[float] = []
        self.running: dict[int, float] = {}
        self.startup_s: Optional[float] = None
        self._next = 0

    def started(self, startup_s: Optional[float]) -> None:
        if startup_s is not None:
            with self.lock:
                self.startup_s = startup_s if self.startup_s is None else min(self.startup_s, startup_s)

    def begin(self) -> int:
        with self.lock:
            self._next += 1
            self.running[self._next] = time.monotonic()
            return self._next

    def end(self, token: Optional[int]) -> None:
        with self.lock:
            began = self.running.pop(token, None) if token is not None else None
            if began is not None:
                self.durations.append(time.monotonic() - began)

    def worth_another(self, workers: int, waiting: int) -> bool:
        if waiting == 0:
            return False
        with self.lock:
            startup = self.startup_s if self.startup_s is not None else STARTUP_GUESS_S
            now = time.monotonic()
            if any(now - began > startup for began in self.running.values()):
                return True  # one slow job: the waiting ones need another worker
            if len(self.durations) < SPAWN_SAMPLE:
                return False
            typical = sorted(self.durations)[len(self.durations) // 2]
        return waiting * typical > SPAWN_FACTOR * workers * startup
