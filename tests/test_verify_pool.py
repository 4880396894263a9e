"""The worker pool on its own: answers per job, recycling after N jobs, and a module
that prints to stdout/stderr without disturbing the protocol."""

from __future__ import annotations

from codemods.verify.pool import Pool, PoolSettings


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
