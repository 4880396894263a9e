"""The worker pool on its own: answers per job, recycling after N jobs, and a module
that prints to stdout/stderr without disturbing the protocol."""

from __future__ import annotations

import pytest

from codemods.verify.pool import Pool, PoolSettings, WorkerFailed, WorkerProcess


def test_workers_are_recycled_and_user_output_is_captured(tmp_path):
    for name in ("a", "b", "c"):
        (tmp_path / f"mod_{name}.py").write_text(
            f"import sys\nprint('hello from {name}')\nprint('{{\"result\": 1}}', file=sys.stderr)\n"
        )
    jobs = [
        {"module": f"mod_{name}", "path": str(tmp_path / f"mod_{name}.py"), "sys_path": [str(tmp_path)], "platforms": ["cpu"]}
        for name in ("a", "b", "c")
    ]
    answers = {}
    pool = Pool(PoolSettings(workers=1, timeout=60, recycle_after=2))
    try:
        backend = pool.run(jobs, [j["path"] for j in jobs], lambda job, answer: answers.__setitem__(job["module"], answer))
    finally:
        pool.close()
    assert backend == "cpu"
    assert [answers[m]["import_error"] for m in ("mod_a", "mod_b", "mod_c")] == [None, None, None]
    pids = [answers[m]["worker_pid"] for m in ("mod_a", "mod_b", "mod_c")]
    assert pids[0] == pids[1] != pids[2]
    assert "hello from b" in answers["mod_b"]["output"] and '{"result": 1}' in answers["mod_b"]["output"]
    assert "hello from a" not in answers["mod_b"]["output"]


def _modules(tmp_path, bodies: dict) -> list:
    jobs = []
    for name, body in bodies.items():
        (tmp_path / f"{name}.py").write_text(body)
        jobs.append({"module": name, "path": str(tmp_path / f"{name}.py"), "sys_path": [str(tmp_path)], "platforms": ["cpu"]})
    return jobs


def test_an_early_worker_is_taken_and_serves_a_handful_of_quick_modules_alone(tmp_path):
    from codemods.verify import pool as pool_module

    pool_module.start_early(["cpu"])
    early = pool_module._early
    assert early is not None
    jobs = _modules(tmp_path, {f"quick_{i}": "VALUE = 1\n" for i in range(4)})
    answers = {}
    pool = Pool(PoolSettings(workers=2, timeout=60))
    try:
        assert pool.spare == [early] and pool_module._early is None
        pool.run(jobs, [j["path"] for j in jobs], lambda job, answer: answers.__setitem__(job["module"], answer))
    finally:
        pool.close()
    # Starting a second worker (a jax import) would cost more than these jobs take.
    assert {answers[j["module"]]["worker_pid"] for j in jobs} == {early.process.pid}
    assert all(answers[j["module"]]["import_error"] is None for j in jobs)


def test_a_slow_module_gets_the_others_a_second_worker(tmp_path):
    release = tmp_path / "release"
    slow = (
        "import os, time\n"
        f"deadline = time.monotonic() + 90\n"
        f"while not os.path.exists({str(release)!r}) and time.monotonic() < deadline:\n"
        "    time.sleep(0.05)\n"
    )
    jobs = _modules(tmp_path, {"slow": slow, "quick_a": "A = 1\n", "quick_b": "B = 1\n"})
    order = []

    def on_result(job, answer):
        order.append((job["module"], answer.get("worker_pid"), answer.get("worker_error")))
        if job["module"] == "quick_b":
            release.write_text("")  # the slow module waits until the quick ones are done

    pool = Pool(PoolSettings(workers=2, timeout=120))
    try:
        pool.run(jobs, [j["path"] for j in jobs], on_result)
    finally:
        pool.close()
    assert [m for m, _, _ in order] == ["quick_a", "quick_b", "slow"]
    pids = {m: pid for m, pid, _ in order}
    assert pids["quick_a"] == pids["quick_b"] != pids["slow"]
    assert all(error is None for _, _, error in order)


def test_pace_starts_another_worker_only_when_the_work_left_outweighs_a_start():
    from codemods.verify.pool import SPAWN_FACTOR, _Pace

    pace = _Pace()
    pace.started(1.0)
    assert not pace.worth_another(1, 1000)  # no job has finished: nothing to judge by
    for _ in range(3):
        pace.durations.append(0.01)
    assert not pace.worth_another(1, int(SPAWN_FACTOR / 0.01) - 1)
    assert pace.worth_another(1, int(SPAWN_FACTOR / 0.01) + 10)
    assert not pace.worth_another(2, int(SPAWN_FACTOR / 0.01) + 10)  # two workers share it
    assert not pace.worth_another(1, 0)
    token = pace.begin()
    pace.running[token] -= 5.0  # a job running longer than a start takes
    assert pace.worth_another(3, 1)


def test_a_worker_that_cannot_start_says_why(tmp_path, monkeypatch):
    # A host whose jax cannot be imported (here: a broken jax first on the path).
    (tmp_path / "jax").mkdir()
    (tmp_path / "jax" / "__init__.py").write_text("raise ImportError('this jax is broken')\n")
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    worker = WorkerProcess(PoolSettings())
    try:
        with pytest.raises(WorkerFailed) as failed:
            worker.start()
    finally:
        worker.kill()
    assert str(failed.value) == "worker exited with status 1 while starting (ImportError: this jax is broken)"
